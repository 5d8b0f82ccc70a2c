"""``rackcost new`` (rackcost.importers.new_scenario, rackcost.cli.new): catalogue systems and benchmark curves in, a
scenario out that validates, evaluates and carries a source for every figure; refused where it cannot be built."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

import rackcost
from rackcost.cli.entry import app
from rackcost.importers.new_scenario import (
    CURVE_READERS,
    DemandSpec,
    NewScenarioError,
    NewScenarioSpec,
    build_scenario,
    file_kind,
    model_matches,
    read_curve_files,
    read_curve_paths,
)
from rackcost.scenario.catalog import catalog_entry
from scenario_leaves import numeric_leaves

FIXTURES = Path(__file__).resolve().parent / "data" / "inferencex_fixtures" / "newer"
B200_RUN = FIXTURES / "b200_runner_moe1t_fp4_1k1k"  # example/moe-1t-a32b on b200, with measured power
MODEL = "example/moe-1t-a32b"
MLPERF = Path(__file__).resolve().parent / "data" / "mlperf"  # an invented submission in MLCommons' layout
DEMAND = ["--demand", "quiet=2@8", "--demand", "normal=5.6@10", "--demand", "peak=8@6"]


def _args(out: Path, *extra: str, ttft: str = "3000") -> list[str]:
    return [
        "new",
        "--model",
        MODEL,
        "--input-tokens",
        "1024",
        "--output-tokens",
        "1024",
        "--ttft-ms",
        ttft,
        "--tpot-ms",
        "80",
        *DEMAND,
        "--output",
        str(out),
        *extra,
    ]


def _assert_every_figure_sourced(data: dict) -> None:
    figures = data["figures"]
    body = {k: v for k, v in data.items() if k != "figures"}
    uncovered = [
        leaf
        for leaf in numeric_leaves(body)
        if not any(leaf == key or leaf.startswith((key + ".", key + "[")) for key in figures)
    ]
    assert uncovered == [], f"figures without a source: {uncovered}"
    for key, figure in figures.items():
        assert figure["provenance"] in {"vendor", "collaborative", "independent", "assumption"}, key
        assert figure["source"].strip(), key
        if figure["provenance"] == "assumption":
            assert figure.get("why"), key


def _written(out: Path) -> dict:
    text = out.read_text(encoding="utf-8")
    assert text.startswith("# Written by rackcost new")
    return yaml.safe_load(text)


# ---- the always-run case: two catalogue systems and small InferenceX fixtures ------------------------------------


@pytest.mark.unit
def test_two_catalogue_systems_and_fixture_curves_make_a_scenario_that_validates_evaluates_and_is_sourced(tmp_path):
    out = tmp_path / "new.yaml"
    args = _args(
        out, "--system", "b200", "--system", "gb200-nvl72", "--curves", str(B200_RUN), "--curves", str(FIXTURES)
    )
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    data = _written(out)
    _assert_every_figure_sourced(data)
    header = out.read_text(encoding="utf-8").splitlines()[0]
    assert header.startswith("# Written by rackcost new --model example/moe-1t-a32b --input-tokens 1024")
    assert "--system b200 --system gb200-nvl72" in header  # the command as given, to run again
    scenario = rackcost.load_scenario(out)
    assert [s.catalog for s in scenario.systems] == ["b200", "gb200-nvl72"]
    evaluated = rackcost.evaluate(scenario)
    assert {row["system"] for row in evaluated.records["systems"]} == {s.name for s in scenario.systems}
    b200, gb200 = scenario.systems
    # the catalogue's figures, the curve's GPUs per replica and its measured busy power (fixture conc8/conc32: 400
    # and 550 W per GPU), InferenceX's hyperscaler-owned tier (SemiAnalysis InferenceX-app, 2026-04: B200 $1.95)
    assert b200.hardware.accelerator_rated_w == catalog_entry("b200").figures["hardware.accelerator_rated_w"].value
    assert b200.hardware.accelerators_per_replica == 8 and b200.hardware.accelerator_busy_w == 550
    assert b200.rent is not None and b200.rent.usd_per_accelerator_hour == 1.95
    assert gb200.hardware.accelerators_per_replica == 12 and gb200.hardware.nodes_per_rack == 18
    assert gb200.facility is not None and gb200.facility.rack_power_limit_kw == 140
    assert "left out" in result.stderr  # the fixture curve that names no hardware


@pytest.mark.unit
def test_an_existing_output_is_refused_without_force_and_replaced_with_it(tmp_path):
    out = tmp_path / "new.yaml"
    out.write_text("keep me", encoding="utf-8")
    args = _args(out, "--system", "b200", "--curves", str(B200_RUN))
    refused = CliRunner().invoke(app, args)
    assert refused.exit_code == 1 and "--force" in refused.stderr
    assert out.read_text(encoding="utf-8") == "keep me"
    assert CliRunner().invoke(app, [*args, "--force"]).exit_code == 0
    assert _written(out)["systems"][0]["catalog"] == "b200"


@pytest.mark.unit
@pytest.mark.parametrize(
    ("extra", "said"),
    [
        (["--system", "b20", "--curves", str(B200_RUN)], "did you mean `b200`?"),
        (["--system", "h100", "--curves", str(B200_RUN)], "--system h100: no curve of example/moe-1t-a32b"),
        (["--system", "gaudi3", "--curves", f"gaudi3={B200_RUN}"], "published figures disagree"),
        (["--system", "b200", "--curves", str(B200_RUN), "--tier", "spot"], "no InferenceX price tier 'spot'"),
        (["--system", "b200", "--curves", str(B200_RUN), "--demand", "late=1"], "expected NAME=RPS@HOURS"),
        (["--system", "b200", "--curves", str(B200_RUN), "--demand", "late=1@2"], "hours_per_day must add up to 24"),
        (["--system", "b200", "--curves", "b200=nowhere/at/all"], "no such file or folder"),
        (["--system", "b200", "--curves", f"h200={B200_RUN}"], "h200 is not one of the systems asked for (b200)"),
    ],
    ids=[
        "unknown-entry",
        "no-curve",
        "entry-lacks-figures",
        "no-tier",
        "bad-demand",
        "day-not-24h",
        "no-file",
        "curves-for-no-system",
    ],
)
def test_what_cannot_be_built_is_refused_with_one_line_per_problem_and_nothing_written(tmp_path, extra, said):
    out = tmp_path / "new.yaml"
    result = CliRunner().invoke(app, _args(out, *extra))
    assert result.exit_code == 1
    assert said in result.stderr
    assert "Traceback" not in result.output
    assert not out.exists()


@pytest.mark.unit
def test_the_buyers_own_figures_complete_an_entry_that_leaves_figures_out(tmp_path):
    """Gaudi 3's rated and idle power and price are not in the catalogue (published figures disagree; InferenceX has
    no Gaudi 3 tier): given with --figure, each is labelled the buyer's assumption, naming why the entry lacks it."""
    out = tmp_path / "gaudi.yaml"
    own = ["gaudi3:hardware.accelerator_rated_w=900", "gaudi3:hardware.accelerator_idle_w=100"]
    own.append("gaudi3:rent.usd_per_accelerator_hour=1.5")
    given = ["--system", "gaudi3", "--curves", f"gaudi3={B200_RUN}"]
    args = _args(out, *given, *(a for f in own for a in ("--figure", f)))
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    data = _written(out)
    _assert_every_figure_sourced(data)
    rated = data["figures"]["systems[0].hardware.accelerator_rated_w"]
    assert rated["provenance"] == "assumption" and "published figures disagree" in rated["why"]
    scenario = rackcost.load_scenario(out)
    assert scenario.systems[0].hardware.accelerator_rated_w == 900
    assert scenario.systems[0].rent.usd_per_accelerator_hour == 1.5
    assert scenario.systems[0].memory is None  # the catalogue's HBM never adds a memory block
    typo = ["--figure", "gaudi3:hardware.acelerator_rated_w=9"]
    wrong = CliRunner().invoke(app, _args(tmp_path / "x.yaml", *given, *typo))
    assert wrong.exit_code == 1 and "did you mean `hardware.accelerator_rated_w`?" in wrong.stderr


@pytest.mark.unit
def test_a_curve_of_another_model_is_left_out_unless_any_model_keeps_it():
    curves = read_curve_paths([B200_RUN]).curves
    spec = NewScenarioSpec(
        model="example/other-model",
        input_tokens=1024,
        output_tokens=1024,
        ttft_limit_ms=3000,
        tpot_limit_ms=80,
        demand=(DemandSpec("day", 1.0, 24.0),),
        systems=("B200",),
    )
    with pytest.raises(NewScenarioError, match="no curve of example/other-model"):
        build_scenario(spec, {None: curves})
    from dataclasses import replace

    data, notes = build_scenario(replace(spec, any_model=True), {None: curves})
    assert data["systems"][0]["performance"]["benchmark_model"] == MODEL
    assert any("kept (--any-model)" in n for n in notes)
    assert model_matches("nvidia/DeepSeek-R1-0528-FP4", "deepseek-ai/DeepSeek-R1")
    assert not model_matches("zai-org/GLM-5-FP8", "deepseek-ai/DeepSeek-R1")


@pytest.mark.unit
def test_result_files_are_read_by_kind_and_an_unknown_kind_is_left_out_with_why():
    assert CURVE_READERS["mlperf"] is not None
    assert file_kind("results/mlperf_log_summary.txt") == "mlperf" and file_kind("summary_results.json") == "mlperf"
    assert file_kind("conc16.json") == "inferencex" and file_kind("points.csv") == "csv"
    result = read_curve_files([("mlperf_log_summary.txt", b"Scheduled samples per second : 1.0\n"), ("a.md", b"")])
    assert result.curves == []
    assert sorted(s.reason for s in result.skipped) == [
        "no 'MLPerf Results Summary' header; expected LoadGen's mlperf_log_summary.txt",
        "not a result file rackcost reads (InferenceX JSON, CSV, MLPerf)",
    ]


@pytest.mark.unit
def test_mlperf_server_and_interactive_runs_make_one_curve_of_the_whole_system():
    """The fixture system (8 B200s): Interactive at 20,000 tokens/s with mean TPOT 30 ms holds 600 requests decoding
    (Little's law: 20,000 x 0.030), Server at 36,000 tokens/s and 120 ms holds 4,320; each point at its p99 TTFT and
    TPOT; the Offline row of the other system has no latencies and makes no point."""
    result = read_curve_paths([MLPERF])
    (curve,) = result.curves
    assert curve.key.hardware == "b200" and curve.key.gpus_per_replica == 8
    assert curve.performance["token_basis"] == "output"
    points = curve.performance["points"]
    assert [p["concurrency"] for p in points] == pytest.approx([600.0, 4320.0])
    assert [p["throughput_tokens_per_s"] for p in points] == [20000.0, 36000.0]
    assert [(p["ttft_ms"], p["tpot_ms"]) for p in points] == [(400.0, 36.0), (800.0, 160.0)]
    assert any("Offline runs make no operating point" in s.reason for s in result.skipped)


@pytest.mark.unit
def test_rackcost_new_with_an_mlperf_submission_writes_a_scenario_that_evaluates(tmp_path):
    out = tmp_path / "mlperf.yaml"
    args = [
        "new", "--model", "llama2-70b-99", "--input-tokens", "1024", "--output-tokens", "287", "--ttft-ms", "2000",
        "--tpot-ms", "200", *DEMAND, "--system", "b200", "--curves", str(MLPERF), "--output", str(out),
    ]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    data = _written(out)
    _assert_every_figure_sourced(data)
    (system,) = data["systems"]
    assert system["provenance"]["class"] == "vendor" and "MLPerf Inference" in system["provenance"]["source"]
    evaluated = rackcost.evaluate(rackcost.load_scenario(out))
    (row,) = evaluated.records["systems"]
    assert row["blended_usd_per_accepted_request"] > 0


# ---- the shared InferenceX files ---------------------------------------------------------------------------------


@pytest.mark.data
def test_two_catalogue_systems_and_the_shared_inferencex_files_make_a_sourced_scenario_that_evaluates(
    real_inferencex, tmp_path
):
    """The B200 DeepSeek-R1 FP4 runs (SemiAnalysis InferenceX together_runner baselines, 2026-06-12) and the H200
    GLM-5 FP8 runs (which name no hardware, so given to h200): no two catalogue systems of the shared files ran the
    same model, hence --any-model; each system says its own model."""
    out = tmp_path / "shared.yaml"
    args = _args(
        out,
        "--system",
        "b200",
        "--system",
        "h200",
        "--curves",
        str(real_inferencex / "b200_together_runner" / "sglang_dsr1-fp4_1k1k_tuned"),
        "--curves",
        f"h200={real_inferencex / 'h200_token_position_decode_slo'}",
        "--any-model",
    )
    args[args.index("--model") + 1] = "deepseek-ai/DeepSeek-R1-0528"
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    data = _written(out)
    _assert_every_figure_sourced(data)
    scenario = rackcost.load_scenario(out)
    assert {s.catalog for s in scenario.systems} == {"b200", "h200"}
    evaluated = rackcost.evaluate(scenario)
    assert {row["system"].split()[0] for row in evaluated.records["systems"]} == {"b200", "h200"}
    # the B200 runs' measured mean board power, 567-572 W per GPU at concurrency 128-256, is the busy power
    assert scenario.systems[0].hardware.accelerator_busy_w == pytest.approx(571.7, abs=0.5)
