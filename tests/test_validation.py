"""docs/validation.md, the accuracy table the project regenerates (issue 20, item 6): the leave-one-out error of
the interpolation in closed form, the simulator section on a tiny scenario, the registry's extension point, the
command, and the committed file against the code that writes it."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import rackcost
from inferencex_files import AGG_8
from rackcost import files
from rackcost.analysis.validation.inferencex import compare_file, inferencex_section, reconcile_figures, worst
from rackcost.analysis.validation.interpolation import (
    curve_errors,
    curve_from_performance,
    interpolation_section,
    leave_one_out,
    same_measurement,
    scenario_curves,
)
from rackcost.analysis.validation.registry import SLOTS, build_sections
from rackcost.analysis.validation.sections import (
    FULL_BUDGET,
    QUICK_BUDGET,
    NamedCurve,
    SectionSlot,
    SectionTable,
    ValidationContext,
    ValidationSection,
    with_section,
)
from rackcost.analysis.validation.simulator import COLUMNS, covers, scenario_rows, share_resolution, simulator_section
from rackcost.cli.entry import app
from rackcost.cli.validation import DEFAULT_LABEL, read_inferencex_files
from rackcost.model.replica.performance import build_curve
from rackcost.model.strategies import Routing
from rackcost.reporting.markdown import md_escape
from rackcost.reporting.validation import DEFAULT_OUTPUT, TITLE, command_line, render_validation, run_line
from rackcost.scenario.loading import scenario_from_dict, scenario_to_data

ROOT = Path(__file__).resolve().parents[1]
TWO_SYSTEMS = ROOT / "tests" / "data" / "two_systems.yaml"
DISAGG = (
    ROOT
    / "tests"
    / "data"
    / "inferencex_fixtures"
    / "newer"
    / ("agg_moe1t_8k1k_fp4_dynamo-sglang_disagg-true_spec-none_conc64_gb200-fx01.json")
)
ISL, OSL = 900.0, 100.0


def _curve(concurrency, service_s, tpot_ms, ttft_ms, power_w=None):
    """A curve whose slot holding time at each concurrency is ``service_s`` (throughput c / S, on a total basis)."""
    c = np.asarray(concurrency, dtype=float)
    tokens_per_s = c / np.asarray(service_s, dtype=float) * (ISL + OSL)
    return build_curve(c, tokens_per_s, "total", tpot_ms, ttft_ms, ISL, OSL, power_w)


@pytest.fixture(scope="module")
def two_systems():
    return rackcost.load_scenario(TWO_SYSTEMS)


# ------------------------------------------------------------------------------------------ leave one out


def test_points_on_a_straight_line_in_the_interpolations_space_are_predicted_exactly() -> None:
    # S, TPOT, TTFT and power linear in concurrency: what the interpolation assumes, so every error is 0
    c = np.array([2.0, 4.0, 8.0, 16.0, 20.0])
    curve = _curve(c, 1.0 + 0.5 * c, 10.0 + 2.0 * c, 100.0 + 5.0 * c, 300.0 + 10.0 * c)
    loo = leave_one_out(curve)
    assert loo["concurrency"].tolist() == [4.0, 8.0, 16.0]  # the ends are never left out
    for figure in ("throughput", "tpot", "ttft", "power"):
        assert np.abs(loo[f"{figure}_error_fraction"]).max() < 1e-12
    errors = curve_errors(loo)
    assert errors["points_left_out"] == 3
    assert errors["throughput_mape_fraction"] < 1e-12 and errors["throughput_max_ape_fraction"] < 1e-12


def test_a_convex_curve_has_the_error_computed_by_hand() -> None:
    # S = c^2 s at c = 1, 2, 3: left out, c = 2 is predicted at S = (1 + 9) / 2 = 5 s, so 2 / 5 = 0.4 requests/s
    # where 2 / 4 = 0.5 was measured: -20%. TPOT = 10 c^2 ms: 50 predicted, 40 measured, +25%; TTFT alike.
    curve = _curve([1.0, 2.0, 3.0], [1.0, 4.0, 9.0], [10.0, 40.0, 90.0], [100.0, 400.0, 900.0])
    loo = leave_one_out(curve)
    assert len(loo) == 1
    row = loo.iloc[0]
    assert row["throughput_measured_rps"] == pytest.approx(0.5)
    assert row["throughput_predicted_rps"] == pytest.approx(0.4)
    assert row["throughput_error_fraction"] == pytest.approx(-0.2)
    assert row["tpot_predicted_ms"] == pytest.approx(50.0)
    assert row["tpot_error_fraction"] == pytest.approx(0.25)
    assert row["ttft_error_fraction"] == pytest.approx(0.25)
    assert math.isnan(row["power_error_fraction"])  # no measured power: nothing predicted
    errors = curve_errors(loo)
    assert errors["throughput_mape_fraction"] == pytest.approx(0.2)
    assert errors["tpot_max_ape_fraction"] == pytest.approx(0.25)
    assert math.isnan(errors["power_mape_fraction"])


def test_a_curve_of_two_points_leaves_nothing_out() -> None:
    loo = leave_one_out(_curve([1.0, 3.0], [1.0, 9.0], [10.0, 90.0], [100.0, 900.0]))
    assert loo.empty
    errors = curve_errors(loo)
    assert errors["points_left_out"] == 0 and math.isnan(errors["throughput_mape_fraction"])


def test_an_imported_performance_mapping_is_the_curve_build_curve_makes() -> None:
    performance = {
        "token_basis": "total",
        "benchmark_input_tokens": ISL,
        "benchmark_output_tokens": OSL,
        "points": [
            {"concurrency": 8, "throughput_tokens_per_s": 4000.0, "tpot_ms": 20.0, "ttft_ms": 300.0},
            {"concurrency": 4, "throughput_tokens_per_s": 3000.0, "tpot_ms": 15.0, "ttft_ms": 200.0},
        ],
    }
    curve = curve_from_performance(performance)
    assert curve.concurrency.tolist() == [4.0, 8.0]  # sorted by concurrency
    assert curve.request_rps.tolist() == pytest.approx([3.0, 4.0])
    assert curve.power_w_per_accelerator is None
    assert same_measurement(curve, _curve([4.0, 8.0], [4 / 3.0, 2.0], [15.0, 20.0], [200.0, 300.0]))
    assert not same_measurement(curve, _curve([4.0, 8.0], [4 / 3.0, 2.1], [15.0, 20.0], [200.0, 300.0]))


def test_the_interpolation_section_has_every_curve_and_the_ends_are_said(two_systems) -> None:
    curves = scenario_curves([("two_systems.yaml", two_systems)])
    assert [c.label for c in curves] == ["A"]  # B is a single claim: no curve to leave a point out of
    convex = NamedCurve(
        "made.json", "convex", _curve([1.0, 2.0, 3.0], [1.0, 4.0, 9.0], [10.0, 40.0, 90.0], [100.0, 400.0, 900.0])
    )
    context = ValidationContext((("two_systems.yaml", two_systems),), (convex,), "one invented curve")
    section = interpolation_section(context)
    overall, bundled, shared = (t.frame for t in section.tables)
    assert bundled["curve"].tolist() == ["A"] and bundled["points_left_out"].tolist() == [1]
    assert shared["throughput_mape_fraction"].tolist() == pytest.approx([0.2])
    assert overall["source"].tolist() == ["bundled scenarios", "shared InferenceX files", "all"]
    assert overall["points_left_out"].tolist() == [1, 1, 2]
    assert "extrapolation" in section.text and "one invented curve" in section.text
    # the same measurement in both sets (a scenario built from a shared file) counts once in "all"
    copy = NamedCurve("a.json", "A again", curves[0].curve)
    again = interpolation_section(ValidationContext((("two_systems.yaml", two_systems),), (copy, convex)))
    assert again.tables[0].frame["points_left_out"].tolist() == [1, 2, 2]
    assert "1 curves of the shared files are the same measurement" in again.text


# -------------------------------------------------------------------------------------------- simulator


def test_covers_reads_the_interval() -> None:
    assert covers(0.99, 0.985, 0.01) is True
    assert covers(0.99, 0.97, 0.01) is False
    assert covers(0.9998, 1.0, 0.0) is False  # every replication alike: only an equal value is covered...
    assert covers(0.9998, 1.0, 0.0, share_resolution(4_000)) is True  # ...unless the requests cannot tell them apart
    assert covers(0.998, 1.0, 0.0, share_resolution(4_000)) is False
    assert covers(None, 0.5, 0.1) is None
    assert covers(0.5, 0.5, None) is None


def test_the_simulator_section_on_a_tiny_scenario_covers_the_pooled_analytic_value(two_systems) -> None:
    rows = scenario_rows("two_systems.yaml", two_systems, QUICK_BUDGET, 1, (Routing.pooled, Routing.round_robin))
    pooled = [r for r in rows if r["routing"] == "pooled"]
    assert {r["system"] for r in pooled} == {"A", "B"}
    for row in pooled:
        assert set(row) == set(COLUMNS)
        assert 0.0 <= row["simulated_accepted_fraction"] <= 1.0 and math.isfinite(row["simulated_accepted_fraction"])
        assert row["accepted_covered"] is True, row
        half = max(row["simulated_accepted_fraction_ci95_halfwidth"], share_resolution(QUICK_BUDGET.requests))
        assert abs(row["analytic_accepted_fraction"] - row["simulated_accepted_fraction"]) <= half
    for row in (r for r in rows if r["routing"] == "round_robin"):
        assert row["analytic_accepted_fraction"] is None and row["accepted_covered"] is None
        assert "no analytic form" in row["note"]
        assert 0.0 <= row["simulated_accepted_fraction"] <= 1.0


def test_an_overloaded_pooled_fleet_is_covered_too(two_systems) -> None:
    # two replicas where the peak needs three: admission control drops 3.9% before the queue, in both
    data = scenario_to_data(two_systems)
    data["fleet"]["replicas"] = 2
    scenario = scenario_from_dict(data)
    row = next(r for r in scenario_rows("t", scenario, QUICK_BUDGET, 1, (Routing.pooled,)) if r["system"] == "A")
    assert 0.9 < row["analytic_accepted_fraction"] < 0.99
    assert row["accepted_covered"] is True
    assert "admission control" in row["note"]


def test_the_simulator_section_states_the_replication_length(two_systems) -> None:
    context = ValidationContext((("two_systems.yaml", two_systems),), budget=QUICK_BUDGET, seed=1)
    section = simulator_section(context)
    summary, table = (t.frame for t in section.tables)
    assert summary["routing"].tolist() == [r.value for r in Routing]
    assert sorted(set(table["routing"])) == sorted(r.value for r in Routing)
    assert f"{QUICK_BUDGET.requests_per_replication:,} requests each" in section.text
    assert "docs/model.md, step 6" in section.text
    assert section.parameters["budget"] == "quick"


# ------------------------------------------------------------------------------------ registry and file


def _made_up(context: ValidationContext) -> ValidationSection:
    frame = pd.DataFrame([{"gpu": "H100", "mape_fraction": 0.061}])
    table = SectionTable("Error per GPU", frame, formats={"mape_fraction": "{:.1%}"})
    return ValidationSection("power_law", "ignored", "measured", "6.1% on H100", "Fitted on half.", (table,))


def test_a_registered_section_replaces_its_not_yet_measured_paragraph() -> None:
    # two slots without their functions (whatever the registry has by now), so that the test does not depend on it
    pending = tuple(
        SectionSlot(s.key, s.title, pending_reason="to come") for s in SLOTS if s.key in ("power_law", "inferencex")
    )
    assert [s.key for s in pending] == ["power_law", "inferencex"]
    context = ValidationContext(())
    before = render_validation(build_sections(context, pending), command_line())
    assert before.count("Not yet measured:") == 2
    slots = with_section(pending, "power_law", _made_up)
    sections = build_sections(context, slots)
    assert [s.status for s in sections] == ["measured", "pending"]
    assert sections[0].title == pending[0].title  # the slot's title, whatever the function says
    text = render_validation(sections, command_line())
    assert text.count("Not yet measured:") == 1
    assert "### Error per GPU" in text and "| H100 | 6.1% |" in text and "6.1% on H100" in text
    with pytest.raises(KeyError, match="no validation section 'nonsense'"):
        with_section(pending, "nonsense", _made_up)


runner = CliRunner()


@pytest.fixture
def tiny_cli(monkeypatch, tmp_path):
    """The command on the tiny scenario only, with a data folder that has no inferencex/ (seconds, not minutes)."""
    import rackcost.scenario.loading as loading

    monkeypatch.setattr(loading, "bundled_scenarios", lambda: [TWO_SYSTEMS])
    data = tmp_path / "data"
    data.mkdir()
    return data


def test_the_command_writes_the_file_atomically_and_refuses_to_replace_it_without_force(
    tiny_cli, tmp_path, monkeypatch
) -> None:
    out = tmp_path / "validation.md"
    out.write_text("old\n", encoding="utf-8")
    refused = runner.invoke(app, ["validation", "--quick", "--data", str(tiny_cli), "--output", str(out)])
    assert refused.exit_code == 1 and "--force" in refused.stderr
    assert out.read_text(encoding="utf-8") == "old\n"
    written = []
    real = files.write_atomically

    def spy(path, text, *args, **kwargs):
        written.append(Path(path))
        return real(path, text, *args, **kwargs)

    monkeypatch.setattr(files, "write_atomically", spy)
    result = runner.invoke(app, ["validation", "--quick", "--data", str(tiny_cli), "--output", str(out), "--force"])
    assert result.exit_code == 0, (result.output, result.exception)
    assert written == [out]
    text = out.read_text(encoding="utf-8")
    assert text.startswith(f"# {TITLE}\n")
    assert f"`{command_line(quick=True, data=str(tiny_cli), output=str(out))}`" in text
    assert "the data folder has no `inferencex/`" in text
    inferencex = next(s for s in SLOTS if s.key == "inferencex")
    assert f"| {md_escape(inferencex.title)} | skipped | skipped: the data folder has no JSON files in" in text
    stdout = runner.invoke(app, ["validation", "--quick", "--data", str(tiny_cli)])
    assert stdout.exit_code == 0 and stdout.stdout == text.replace(f" --output {out}", "")


def test_the_command_refuses_a_data_folder_that_is_not_one(tmp_path) -> None:
    result = runner.invoke(app, ["validation", "--quick", "--data", str(tmp_path / "missing")])
    assert result.exit_code == 1 and "not a folder" in result.stderr


AWAITING_REGENERATION: set[str] = set()
"""Slots given their function after the committed docs/validation.md was written, which still shows them pending;
empty it when the file is regenerated (``rackcost validation --output docs/validation.md --force``)."""


def test_the_committed_file_is_what_the_command_writes() -> None:
    # without re-running the full budget: the title, the command line and every section heading and status
    text = (ROOT / DEFAULT_OUTPUT).read_text(encoding="utf-8")
    lines = text.splitlines()
    assert lines[0] == f"# {TITLE}"
    header = render_validation([], command_line(), run_line(FULL_BUDGET, 0, DEFAULT_LABEL)).splitlines()[2]
    assert lines[2] == header and f"Written by `{command_line()}`" in header
    assert re.findall(r"^## (.*)$", text, re.M) == ["Summary", *(s.title for s in SLOTS)]
    statuses = re.findall(r"^\| (.*?) \| (measured|pending|skipped) \|", text, re.M)
    assert [title for title, _ in statuses] == [md_escape(s.title) for s in SLOTS]
    for slot, (_, status) in zip(SLOTS, statuses, strict=True):
        if slot.build is None or slot.key in AWAITING_REGENERATION:
            assert status == "pending", f"{slot.key} is {status} in the file: take it out of AWAITING_REGENERATION"
        else:
            assert status == "measured", slot.key
    captions = set(re.findall(r"^### (.*)$", text, re.M))
    assert {"By router, over every scenario and system", "Each curve of the bundled scenarios"} <= captions


def test_the_power_law_section_reports_the_packaged_and_held_out_errors() -> None:
    # curves exactly on the H100 fit: the packaged law has no error; the refit finds the same exponent; the linear
    # law's error is the closed form at each point
    import numpy as np

    from rackcost.analysis.validation.power import power_law_section
    from rackcost.model.energy.power_law import FITTED, PowerCurve

    alpha = FITTED["H100"].exponent
    n = np.array([8.0, 32.0, 128.0, 256.0])
    measured = 75.0 + 625.0 * (n / 256.0) ** alpha
    curves = tuple(
        PowerCurve((m, "chat", "H100", "1"), "H100", "H100", n, measured, 75.0) for m in ("a", "b", "c", "d")
    )
    section = power_law_section(ValidationContext((), power_curves=curves))
    assert section.status == "measured"
    (row,) = section.tables[0].frame.to_dict("records")
    assert row["mape"] == pytest.approx(0.0, abs=1e-12) and row["held_out_mape"] < 1e-5
    assert row["refit_exponent"] == pytest.approx(alpha, abs=1e-4)
    # the linear law's anchor is the top point here: the tops the points imply, 75 + 625 u^(alpha - 1), are least at
    # the top, whose weight 1 / 700 is more than half of sum(u_i / P_i)
    linear = 75.0 + 625.0 * n / 256.0
    weights = (n / 256.0) / measured
    assert 1 / 700.0 > 0.5 * weights.sum()
    assert row["top_anchored_mape"] == pytest.approx(0.0, abs=1e-12)
    assert row["linear_mape"] == pytest.approx(float(np.mean(np.abs(linear - measured) / measured)), rel=1e-12)
    assert "H100: met" in section.text
    skipped = power_law_section(ValidationContext(()))
    assert skipped.status == "skipped" and "were not found" in skipped.text


# ----------------------------------------------------------------------------------------- InferenceX reproduction


def _write_json(path: Path, obj) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(obj), encoding="utf-8")


@pytest.fixture
def invented_inferencex(tmp_path) -> Path:
    """A data folder whose inferencex/ holds invented files with round numbers: a stage-B aggregate (1,000 total and
    400 output tokens/s per GPU), a stage-C array of two rows of one curve (the second without output_tput_per_gpu,
    neither with lengths), a disaggregated row (2,000 per GPU over 12; 300 output per decode GPU), a file that is
    not JSON and one of another schema."""
    data = tmp_path / "data"
    folder = data / "inferencex"
    agg = json.loads(AGG_8.read_text(encoding="utf-8"))
    _write_json(
        folder / "agg_round_tp8.json",
        agg | {"tput_per_gpu": 1000.0, "output_tput_per_gpu": 400.0, "input_tput_per_gpu": 600.0},
    )
    row = {k: v for k, v in agg.items() if k not in ("isl", "osl", "output_tput_per_gpu", "input_tput_per_gpu")}
    old = [
        row | {"hw": "mi300x", "tp": 2, "conc": 4, "tput_per_gpu": 500.0, "output_tput_per_gpu": 250.0},
        row | {"hw": "mi300x", "tp": 2, "conc": 16, "tput_per_gpu": 1250.0, "p99_ttft": 0.9},
    ]
    _write_json(folder / "older-results.json", old)
    _write_json(folder / "newer" / DISAGG.name, json.loads(DISAGG.read_text(encoding="utf-8")))
    (folder / "broken.json").write_text("{not json", encoding="utf-8")
    _write_json(folder / "other.json", {"a": 1})
    return data


def test_the_inferencex_section_gives_the_closed_form_figures_on_invented_files(invented_inferencex) -> None:
    files = read_inferencex_files(invented_inferencex)
    assert [f.name for f in files] == [
        "agg_round_tp8.json",
        "broken.json",
        "newer/" + DISAGG.name,
        "older-results.json",
        "other.json",
    ]
    context = ValidationContext((), inferencex_files=tuple(files), data_folder=invented_inferencex, data_label="x")
    section = inferencex_section(context)
    assert section.status == "measured"
    by_file, by_point = (t.frame for t in section.tables)
    points = {(r["file"], r["concurrency"]): r for r in by_point.to_dict("records")}
    assert len(points) == 4
    hour = 3600 / 1e6  # tokens/s per GPU to M tokens per GPU-hour
    expected = {  # $/M output, $/M total at $2/GPU-hour
        ("agg_round_tp8.json", 8.0): (2 / (400 * hour), 2 / (1000 * hour)),  # 1.3889, 0.5556
        ("newer/" + DISAGG.name, 64.0): (2 / (300 * hour), 2 / (2000 * hour)),  # output over the 8 decode GPUs
        ("older-results.json", 4.0): (2 / (250 * hour), 2 / (500 * hour)),
        ("older-results.json", 16.0): (None, 2 / (1250 * hour)),
    }
    assert expected[("agg_round_tp8.json", 8.0)] == (
        pytest.approx(1.388889, rel=1e-6),
        pytest.approx(0.555556, rel=1e-6),
    )
    for key, (output, total) in expected.items():
        row = points[key]
        assert row["inferencex_total"] == pytest.approx(total, rel=1e-12)
        assert row["rackcost_total"] == pytest.approx(total, rel=1e-12)
        assert abs(row["total_difference"]) < 1e-12
        if output is None:
            assert math.isnan(row["inferencex_output"]) and math.isnan(row["output_difference"])
            assert "no output_tput_per_gpu" in row["note"]
        else:
            assert row["inferencex_output"] == pytest.approx(output, rel=1e-12)
            assert row["rackcost_output"] == pytest.approx(output, rel=1e-12)
            assert abs(row["output_difference"]) < 1e-12 and row["note"] == ""
    assert by_file["points"].tolist() == [1, 0, 1, 2, 0] and by_file["output_points"].tolist() == [1, 0, 1, 1, 0]
    assert (by_file["worst_total"].dropna() < 1e-12).all()
    assert "over 3 points, $/M total tokens" in section.headline
    assert section.headline.endswith("over 4 (goal 1e-04 on every point: not shown: 2 not compared)")
    assert "1 in older-results.json: no output_tput_per_gpu in the row" in section.text
    assert "per decode GPU" in section.text
    assert "broken.json:" in section.text and "other.json:" in section.text  # not compared, and why
    assert "\\$2.00/GPU-hour" in section.text  # no $ opens a formula in the Markdown


def test_a_pricer_off_by_one_percent_shows_in_the_difference(invented_inferencex) -> None:
    (agg,) = (f for f in read_inferencex_files(invented_inferencex) if f.name == "agg_round_tp8.json")

    def off(scenario, concurrency, price):
        right = reconcile_figures(scenario, concurrency, price)
        return right._replace(usd_per_million_output_tokens=1.01 * right.usd_per_million_output_tokens)

    (point,) = compare_file(agg, 2.0, off).points
    assert point.output_difference == pytest.approx(0.01, rel=1e-9) and abs(point.total_difference) < 1e-12
    assert worst([point.output_difference, -0.02, math.nan]) == 0.02


def test_the_inferencex_section_is_skipped_with_the_reason_without_the_files(tmp_path) -> None:
    assert dict((s.key, s.build) for s in SLOTS)["inferencex"] is inferencex_section
    absent = inferencex_section(ValidationContext(()))
    assert absent.status == "skipped" and "no shared data folder" in absent.text and not absent.tables
    assert read_inferencex_files(tmp_path) == [] and read_inferencex_files(None) == []
    empty = inferencex_section(ValidationContext((), data_folder=tmp_path))
    assert empty.status == "skipped" and "no JSON files in `inferencex/`" in empty.text


@pytest.mark.data
def test_the_inferencex_section_on_the_real_files_is_within_the_goal(real_inferencex) -> None:
    files = read_inferencex_files(real_inferencex.parent)
    section = inferencex_section(ValidationContext((), inferencex_files=tuple(files), data_label="shared"))
    assert section.status == "measured" and "Not compared" not in section.text
    by_file, by_point = (t.frame for t in section.tables)
    assert by_file["worst_output"].max() < 1e-4 and by_file["worst_total"].max() < 1e-4
    assert (by_point["output_difference"].notna().sum(), len(by_point)) == (32, 62)
    assert section.headline.endswith("over 62 (goal 1e-04 on every point: met)")
