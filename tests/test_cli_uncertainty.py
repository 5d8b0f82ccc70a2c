"""Tests for the uncertainty commands of the CLI: uncertainty, tornado, breakeven (DESIGN.md section 3)."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

import rackcost
from rackcost.cli import app
from reference import TWO_SYSTEMS

runner = CliRunner()


@pytest.fixture
def uncertain(tmp_path: Path) -> Path:
    """The two-system test scenario with a few distributions, written to a file."""
    data = yaml.safe_load(TWO_SYSTEMS.read_text(encoding="utf-8"))
    data["facility"]["electricity_usd_per_kwh"] = {"dist": "triangular", "low": 0.06, "mode": 0.081, "high": 0.17}
    data["facility"]["pue"] = {"dist": "uniform", "low": 1.1, "high": 1.3}
    data["systems"][1]["costs"]["capex_usd_per_accelerator"] = {"dist": "uniform", "low": 30000, "high": 60000}
    data["uncertainty"] = {"throughput_derate": {"vendor": {"dist": "triangular", "low": 0.7, "mode": 0.9, "high": 1}}}
    path = tmp_path / "uncertain.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


def assert_ok(result) -> None:
    assert result.exit_code == 0, result.output + (result.stderr or "")
    assert result.exception is None, repr(result.exception)


def assert_user_error(result, *must_say: str) -> None:
    """Exit 1 through typer.Exit (not an escaped exception), message on stderr, no traceback anywhere."""
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output
    assert result.stderr.strip(), "no message on stderr"
    for text in must_say:
        assert text in result.stderr, result.stderr


# ------------------------------------------------------------------------------------------- uncertainty


def test_uncertainty_table(uncertain: Path) -> None:
    result = invoke("uncertainty", uncertain, "-n", 300, "--seed", 4)
    assert_ok(result)
    out = result.stdout
    assert "300 samples, seed 4" in out
    for path in ("facility.electricity_usd_per_kwh", "facility.pue", "uncertainty.throughput_derate.vendor"):
        assert path in out
    assert "A: P5 / P50 / P95" in out and "B: P5 / P50 / P95" in out
    assert "$ per 1,000 accepted requests" in out  # issue 11: a per-request cost in an explicit, readable unit
    assert "Probability that the system" in out
    assert "B vs A" in out and "blended" in out and "%" in out
    assert not re.search(r"\de[+-]\d", out), out  # no scientific notation anywhere


def test_uncertainty_shows_capex_as_evaluate_does(uncertain: Path) -> None:
    """Issue 11: capex "$47.5M" in evaluate but "$41,909,657" in uncertainty."""
    from rackcost.display import money

    evaluated = invoke("evaluate", uncertain, "--format", "table").stdout
    sampled = invoke("uncertainty", uncertain, "-n", 50).stdout
    lib = rackcost.evaluate(rackcost.load_scenario(uncertain)).records["systems"]
    capex_a = next(r["capex_usd"] for r in lib if r["system"] == "A")  # A's capex is not uncertain
    assert f"capex [USD]: {money(capex_a)} / {money(capex_a)} / {money(capex_a)}" in sampled
    assert f" {money(capex_a)} " in evaluated
    assert money(41_909_657) == "$41.9M"


def test_uncertainty_json_matches_the_library(uncertain: Path) -> None:
    result = invoke("uncertainty", uncertain, "--samples", 300, "--seed", 4, "--format", "json")
    assert_ok(result)
    data = json.loads(result.stdout)
    assert (data["samples"], data["seed"]) == (300, 4)
    sc = rackcost.load_scenario(uncertain)
    assert data["uncertain_inputs"] == sorted(sc.distributions)
    lib = rackcost.uncertainty(sc, 300, seed=4)
    assert data["percentiles"] == lib.percentiles
    assert data["probability_cheaper"] == lib.probability_cheaper
    for r in data["probability_cheaper"]:
        assert 0 <= r["probability_fraction"] <= 1


def test_uncertainty_csv(uncertain: Path) -> None:
    result = invoke("uncertainty", uncertain, "-n", 200, "-f", "csv")
    assert_ok(result)
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert list(rows[0]) == ["system", "demand_point", "column", "p5", "p50", "p95", "mean"]
    assert {r["system"] for r in rows} == {"A", "B"}
    assert {r["demand_point"] for r in rows} == {"quiet", "normal", "peak", "system"}
    for r in rows:
        assert float(r["p5"]) <= float(r["p50"]) <= float(r["p95"]), r


def test_uncertainty_is_reproducible_from_the_command_line(uncertain: Path) -> None:
    a = invoke("uncertainty", uncertain, "-n", 200, "--seed", 9, "-f", "json")
    b = invoke("uncertainty", uncertain, "-n", 200, "--seed", 9, "-f", "json")
    c = invoke("uncertainty", uncertain, "-n", 200, "--seed", 10, "-f", "json")
    assert a.stdout == b.stdout
    assert a.stdout != c.stdout


def test_uncertainty_output_does_not_depend_on_workers(uncertain: Path, monkeypatch) -> None:
    from rackcost.analysis import montecarlo

    monkeypatch.setattr(montecarlo, "MIN_SAMPLES_PER_WORKER", 1)  # so that 200 samples really use the threads
    one = invoke("uncertainty", uncertain, "-n", 200, "--seed", 9, "-f", "json", "--workers", 1)
    three = invoke("uncertainty", uncertain, "-n", 200, "--seed", 9, "-f", "json", "--workers", 3)
    assert_ok(one)
    assert one.stdout == three.stdout
    assert invoke("uncertainty", uncertain, "-n", 200, "--workers", 0).exit_code == 2


BUNDLED_PLAIN = rackcost.bundled_scenario_path("deepseek-r1-b200-vs-gb200-inferencex.yaml")


def test_uncertainty_of_a_bundled_scenario_without_distributions_gives_a_spread_each_default_cited() -> None:
    """It said "nothing is uncertain"; now every figure it gives is drawn from its default spread (its provenance,
    the model's fitted errors), each listed with its source, and the answer comes first in words."""
    assert not rackcost.load_scenario(BUNDLED_PLAIN).distributions
    data = json.loads(invoke("uncertainty", BUNDLED_PLAIN, "-n", 400, "-f", "json").stdout)
    assert data["samples"] == 400 and data["uncertain_inputs"] == [] and "message" not in data
    assert len(data["default_spreads"]) > 20
    for row in data["default_spreads"]:
        assert row["source"] and row["basis"] and row["p5"] < row["value"] < row["p95"], row
        assert "docs/uncertainty.md" in row["source"] or "docs/validation.md" in row["source"], row
    bases = {row["basis"] for row in data["default_spreads"]}
    assert {"independent", "assumption", "independent + interpolation", "power law (B200)"} <= bases
    assert "independent + law residual" in bases  # DGX B200's busy power: the fitted law's anchor (no measured power)
    blended = {r["system"]: r for r in data["percentiles"] if r["column"] == "blended_usd_per_accepted_request"}
    assert all(r["p5"] < r["p50"] < r["p95"] for r in blended.values())
    assert data["how_sure"].startswith("GB200 NVL72 is cheaper per accepted request than DGX B200")
    table = invoke("uncertainty", BUNDLED_PLAIN, "-n", 400)
    assert_ok(table)
    out = " ".join(table.stdout.split())
    assert out.startswith(data["how_sure"])
    assert "Default spreads (docs/uncertainty.md, Default spreads)" in out and "nothing is uncertain" not in out


def test_uncertainty_pair_gives_that_pair_at_each_point() -> None:
    data = json.loads(
        invoke("uncertainty", BUNDLED_PLAIN, "-n", 300, "-f", "json", "--pair", "DGX B200", "GB200 NVL72").stdout
    )
    assert [(r["system"], r["other"], r["demand_point"]) for r in data["pairs"]] == [
        ("DGX B200", "GB200 NVL72", point) for point in ("quiet", "normal", "peak", "blended")
    ]
    assert data["how_sure"].startswith("DGX B200 is cheaper per accepted request than GB200 NVL72 over the demand day")
    every = json.loads(invoke("uncertainty", BUNDLED_PLAIN, "-n", 300, "-f", "json").stdout)["pairs"]
    assert {(r["system"], r["other"]) for r in every} == {("DGX B200", "GB200 NVL72"), ("GB200 NVL72", "DGX B200")}
    assert_user_error(
        invoke("uncertainty", BUNDLED_PLAIN, "-n", 300, "--pair", "DGX B300", "GB200 NVL72"),
        "--pair 'DGX B300'",
        "DGX B200, GB200 NVL72",
    )
    assert_user_error(invoke("uncertainty", BUNDLED_PLAIN, "--pair", "DGX B200", "DGX B200"), "two different")


def test_uncertainty_defaults_only_where_asked_in_a_scenario_with_distributions(uncertain: Path) -> None:
    """A scenario with distributions keeps drawing only them; --default-spreads adds the others' defaults."""
    kept = json.loads(invoke("uncertainty", uncertain, "-n", 200, "-f", "json").stdout)
    assert kept["default_spreads"] == [] and "facility.pue" in kept["uncertain_inputs"]
    both = json.loads(invoke("uncertainty", uncertain, "-n", 200, "-f", "json", "--default-spreads").stdout)
    drawn = {r["input"] for r in both["default_spreads"]}
    assert drawn and "facility.pue" not in drawn and both["uncertain_inputs"] == kept["uncertain_inputs"]


def test_uncertainty_without_distributions_says_so() -> None:
    """Issue 11: no 10,000 identical samples and "100.0%" tables; the sentence, and the evaluate figures (with the
    default spreads switched off: the behaviour before them)."""
    result = invoke("uncertainty", TWO_SYSTEMS, "--no-default-spreads")
    assert_ok(result)
    out = " ".join(result.stdout.split())
    assert "no distributions: nothing is uncertain" in out
    assert "rackcost evaluate" in out
    assert "100.0%" not in out and "P5 / P50 / P95" not in out and "10,000 samples" not in out
    assert "A: blended $" in out and "B: blended $" in out
    data = json.loads(invoke("uncertainty", TWO_SYSTEMS, "-f", "json", "--no-default-spreads").stdout)
    assert data["percentiles"] == [] and data["probability_cheaper"] == [] and data["samples"] == 0
    assert "nothing is uncertain" in data["message"]


def test_uncertainty_refuses_too_many_samples(uncertain: Path) -> None:
    """Issue 11: -n 10000000 was accepted (1,000,000 took 29 s and 1.8 GB)."""
    assert_user_error(invoke("uncertainty", uncertain, "-n", 10_000_000), "-n 10,000,000", "maximum of 1,000,000")


def test_uncertainty_caps_samples_times_points_times_systems(uncertain: Path) -> None:
    """Issue 11: 1,000 demand points x 10k samples ran 19 s and 2.7 GB without a word; the product is capped."""
    data = yaml.safe_load(uncertain.read_text(encoding="utf-8"))
    data["demand"] = [{"name": f"p{i}", "arrival_rps": 1 + i, "hours_per_day": 24 / 300} for i in range(300)]
    path = uncertain.with_name("many_points.yaml")
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    result = invoke("uncertainty", path)
    assert_user_error(result, "10,000 samples x 300 demand points x 2 systems = 6,000,000 cells", "--max-cells")
    assert_ok(invoke("uncertainty", path, "-n", 20, "-f", "json"))  # 12,000 cells
    assert invoke("uncertainty", path, "-n", 20, "--max-cells", 1000).exit_code == 1


@pytest.mark.parametrize("samples", ["0", "-5", "many"])
def test_uncertainty_bad_sample_count_is_a_usage_error(uncertain: Path, samples: str) -> None:
    result = invoke("uncertainty", uncertain, "-n", samples)
    assert result.exit_code == 2
    assert "Traceback" not in result.output


def test_uncertainty_invalid_scenario_is_a_user_error(tmp_path: Path) -> None:
    data = yaml.safe_load(TWO_SYSTEMS.read_text(encoding="utf-8"))
    data["slo"]["tpot_limit_ms"] = {"dist": "uniform", "low": 40, "high": 60}
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    assert_user_error(invoke("uncertainty", path, "-n", 10), "slo.tpot_limit_ms", "not allowed here")


# ------------------------------------------------------------------------------------------- tornado


def test_tornado_table_and_json(uncertain: Path) -> None:
    result = invoke("tornado", uncertain)
    assert_ok(result)
    assert "Tornado" in result.stdout
    assert "electricity price [USD/kWh]" in " ".join(result.stdout.split())  # the input in words, not its path
    assert "advantage vs baseline" in result.stdout  # baseline / system, as everywhere (issue 11)
    assert "cost ratio" not in result.stdout
    assert "e-0" not in result.stdout and "e+0" not in result.stdout
    assert "[USD/kWh]" in result.stdout  # the P5 / P95 values in the unit their label names
    result = invoke("tornado", uncertain, "-f", "json")
    assert_ok(result)
    rows = json.loads(result.stdout)["tornado"]
    lib = rackcost.tornado(rackcost.load_scenario(uncertain))
    assert [r["input"] for r in rows] == [r["input"] for r in lib]
    assert rows[0]["B@swing"] >= rows[-1]["B@swing"]


def test_tornado_csv(uncertain: Path) -> None:
    result = invoke("tornado", uncertain, "-f", "csv")
    assert_ok(result)
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert len(rows) == 4
    assert {"input", "low_value", "high_value", "A@low", "B@high", "advantage_low"} <= set(rows[0])


def test_tornado_without_distributions_says_so() -> None:
    result = invoke("tornado", TWO_SYSTEMS)
    assert_ok(result)
    assert "nothing to rank" in result.stdout


# ------------------------------------------------------------------------------------------- breakeven


def test_breakeven_finds_a_value(uncertain: Path) -> None:
    result = invoke("breakeven", uncertain, "--input", "systems[1].costs.capex_usd_per_accelerator")
    assert_ok(result)
    flat = " ".join(result.stdout.split())  # the input in words, then the path as typed
    assert (
        "equal cost per accepted request at B: capex per accelerator [USD] (systems[1].costs.capex_usd_per_accelerator)"
        in flat
    )
    # with its unit (issue 11: "= 44948")
    assert re.search(r"capex_usd_per_accelerator\) = \$[\d,.]+ per accelerator", flat), result.stdout
    result = invoke("breakeven", uncertain, "--input", "systems[1].costs.capex_usd_per_accelerator", "--format", "json")
    assert_ok(result)
    data = json.loads(result.stdout)
    lib = rackcost.breakeven(rackcost.load_scenario(uncertain), "systems[1].costs.capex_usd_per_accelerator")
    assert data["value"] == pytest.approx(lib.value, rel=1e-12)
    assert (data["system"], data["baseline"], data["demand_point"]) == ("B", "A", "blended")
    assert 30000 <= data["value"] <= 60000


def test_breakeven_without_a_crossing_says_so(uncertain: Path) -> None:
    result = invoke("breakeven", uncertain, "--input", "facility.electricity_usd_per_kwh", "--low", 0, "--high", 1)
    assert_ok(result)
    flat = " ".join(result.stdout.split())
    assert (
        "no value of electricity price [USD/kWh] (facility.electricity_usd_per_kwh) in [$0 per kWh, $1.00 per kWh]"
        in flat
    )


@pytest.mark.parametrize(
    ("path", "says"),
    [
        ("slo.tpot_limit_ms", "break-even needs an input where a distribution is allowed"),
        ("facility.no_such_thing", "break-even needs an input where a distribution is allowed"),
        ("systems[7].costs.capex_usd_per_rack", "not a numeric input of this scenario"),
        ("demand[9].arrival_rps", "not a numeric input of this scenario"),
    ],
)
def test_breakeven_bad_input_path_is_a_user_error(uncertain: Path, path: str, says: str) -> None:
    assert_user_error(invoke("breakeven", uncertain, "--input", path), path, says)


def test_breakeven_bad_system_and_point_are_user_errors(uncertain: Path) -> None:
    assert_user_error(invoke("breakeven", uncertain, "--system", "A"), "other than the baseline")
    assert_user_error(invoke("breakeven", uncertain, "--point", "midnight"), "demand point must be one of")


def test_missing_scenario_file_is_a_user_error(tmp_path: Path) -> None:
    for command in ("uncertainty", "tornado", "breakeven"):
        assert_user_error(invoke(command, tmp_path / "nope.yaml"), "no such file")


CAPEX_B = "systems[1].costs.capex_usd_per_accelerator"


def test_breakeven_csv_is_one_row_with_the_library_numbers(uncertain: Path) -> None:
    result = invoke("breakeven", uncertain, "--input", CAPEX_B, "--format", "csv")
    assert_ok(result)
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert len(rows) == 1
    row = rows[0]
    assert list(row) == [
        "input",
        "system",
        "baseline",
        "demand_point",
        "breakeven_capex_usd_per_accelerator",
        "search_low_capex_usd_per_accelerator",
        "search_high_capex_usd_per_accelerator",
        "message",
    ]
    lib = rackcost.breakeven(rackcost.load_scenario(uncertain), CAPEX_B)
    assert (row["input"], row["system"], row["baseline"], row["demand_point"]) == (CAPEX_B, "B", "A", "blended")
    assert float(row["breakeven_capex_usd_per_accelerator"]) == lib.value
    assert float(row["search_low_capex_usd_per_accelerator"]) == lib.low
    assert float(row["search_high_capex_usd_per_accelerator"]) == lib.high
    assert row["message"] == lib.message


def test_breakeven_csv_without_a_crossing_leaves_the_value_empty(uncertain: Path) -> None:
    result = invoke("breakeven", uncertain, "--input", "facility.pue", "--low", 1.0, "--high", 1.05, "-f", "csv")
    assert_ok(result)
    (row,) = csv.DictReader(io.StringIO(result.stdout))
    lib = rackcost.breakeven(rackcost.load_scenario(uncertain), "facility.pue", low=1.0, high=1.05)
    assert lib.value is None
    assert row["breakeven_facility_pue"] == ""
    assert (float(row["search_low_facility_pue"]), float(row["search_high_facility_pue"])) == (1.0, 1.05)


@pytest.mark.parametrize("fmt", ["table", "json", "csv"])
def test_breakeven_output_writes_the_file(uncertain: Path, tmp_path: Path, fmt: str) -> None:
    target = tmp_path / f"breakeven.{fmt}"
    written = invoke("breakeven", uncertain, "--input", CAPEX_B, "-f", fmt, "--output", target)
    assert_ok(written)
    assert written.stdout == ""
    assert f"wrote {target}" in written.stderr
    printed = invoke("breakeven", uncertain, "--input", CAPEX_B, "-f", fmt)
    assert target.read_text(encoding="utf-8") == printed.stdout


def test_breakeven_output_to_an_unwritable_place_is_a_one_line_error(uncertain: Path, tmp_path: Path) -> None:
    target = tmp_path / "no_such_folder" / "breakeven.csv"
    result = invoke("breakeven", uncertain, "--input", CAPEX_B, "-f", "csv", "-o", target)
    assert_user_error(result, str(target), "does not exist")
    assert len(result.stderr.strip().splitlines()) == 1
    assert not target.exists()


@pytest.mark.parametrize("command", [("tornado",), ("uncertainty", "-n", 50)])
def test_table_output_goes_to_the_file(uncertain: Path, tmp_path: Path, command: tuple) -> None:
    target = tmp_path / "table.txt"
    result = invoke(*command, uncertain, "-o", target)
    assert_ok(result)
    assert result.stdout == ""
    assert target.read_text(encoding="utf-8") == invoke(*command, uncertain).stdout


# ---- issue 20, item 8: an input of systems[i] compares system i (it compared systems[1], silently) ----

OWN_RENT_API = "deepseek-r1-own-vs-rent-vs-api"  # systems[0] owned (baseline), [1] reserved, [2] on demand, [3] API


def test_breakeven_on_an_input_of_systems_2_compares_system_2() -> None:
    from rackcost.scenario.loading import bundled_scenario_path

    path = bundled_scenario_path(OWN_RENT_API)
    result = invoke("breakeven", path, "--input", "systems[2].rent.usd_per_accelerator_hour", "--format", "json")
    assert_ok(result)
    names = [s.name for s in rackcost.load_scenario(path).systems]
    assert json.loads(result.stdout)["system"] == names[2] == "GB200 NVL72 rented, on demand"


def test_breakeven_on_an_input_of_the_baseline_with_several_others_asks_for_the_system() -> None:
    from rackcost.scenario.loading import bundled_scenario_path

    path = bundled_scenario_path(OWN_RENT_API)
    result = invoke("breakeven", path, "--input", "systems[0].costs.capex_usd_per_node")
    assert_user_error(result, "systems[0].costs.capex_usd_per_node", "say which with --system")


def test_breakeven_on_an_input_of_a_third_system_is_refused() -> None:
    from rackcost.scenario.loading import bundled_scenario_path

    path = bundled_scenario_path(OWN_RENT_API)
    args = ("--input", "systems[2].rent.usd_per_accelerator_hour", "--system", "GB200 NVL72 rented, reserved")
    assert_user_error(invoke("breakeven", path, *args), "cannot move their comparison")
