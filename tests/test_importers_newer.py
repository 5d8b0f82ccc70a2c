"""InferenceX's newer schemas (issue 20, items 1, 2 and 5): D (nested ``metrics``/``gpu`` blocks with measured power),
E (raw client, latencies in s without ``_ms``), F (agentic aggregates with mean/p75/p90/p95 only), a disaggregated
stage-B row, and reconcile reproducing InferenceX's $/M output tokens from the command line alone.

The fixtures (tests/data/inferencex_fixtures/newer/, described in the folder's README) are invented; the tests marked
``data`` read the real files from the shared data folder beside the repository.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

import rackcost
from inferencex_files import AGG_8, RAW_8
from rackcost.analysis.reconcile import reconcile
from rackcost.analysis.validation.inferencex import (
    PASTED_SYSTEM,
    RackcostFigures,
    compare_file,
    pasted_scenario,
    worst,
)
from rackcost.analysis.validation.shared_files import InferenceXCurve, InferenceXFile
from rackcost.cli import app
from rackcost.cli.validation import reproduction_options
from rackcost.errors import ScenarioError
from rackcost.importers import read_inferencex, read_inferencex_paths
from rackcost.importers.yaml_out import curves_to_yaml
from rackcost.scenario.loading import bundled_scenario_path, scenario_from_dict, scenario_to_data

runner = CliRunner()
NEWER = Path(__file__).resolve().parent / "data" / "inferencex_fixtures" / "newer"
D_DIR = NEWER / "b200_runner_moe1t_fp4_1k1k"
E_FILE = NEWER / "dense70b_fp8_vllm_tp4_isl2048_osl256_conc8.json"
F_FILE = NEWER / "agentic_moe1t_fp4_mi355x_agg_bmk.json"
DISAGG = NEWER / "agg_moe1t_8k1k_fp4_dynamo-sglang_disagg-true_spec-none_conc64_gb200-fx01.json"
RTOL = 1e-12  # one product or quotient of the file's numbers
IX_RTOL = 1e-4  # the goal of issue 20, item 5 (the YAML keeps six significant digits: <= 5e-6)
SCENARIO = "deepseek-r1-b200-vs-gb200-inferencex"


def _json(path: Path):
    return json.loads(path.read_text(encoding="utf-8"))


def _bytes(name: str, obj) -> tuple[str, bytes]:
    return (name, json.dumps(obj).encode())


# ---- D: nested metrics/gpu blocks, measured power ----------------------------------------------------------------


def test_stage_d_fixture_numbers_by_hand():
    (curve,) = read_inferencex_paths([D_DIR]).curves
    assert curve.stages == ["D"] and curve.key.gpus_per_replica == 8 and curve.key.hardware == "b200"
    for point, name in zip(curve.points, ("conc8.json", "conc32.json"), strict=True):
        raw = _json(D_DIR / name)
        m, g = raw["metrics"], raw["gpu"]
        assert point["concurrency"] == raw["conc"]
        assert point["throughput_tokens_per_s"] == m["total_token_throughput"]  # deployment-wide: one replica of 8
        assert point["ttft_ms"] == m["p99_ttft_ms"] and point["tpot_ms"] == m["p99_tpot_ms"]
        assert point["output_throughput_tokens_per_s"] == m["output_token_throughput"]
        assert point["power_w_per_accelerator"] == g["mean_power_per_gpu_w"]  # per GPU, as given
        assert point["peak_power_w_per_accelerator"] == g["peak_power_per_gpu_w"]
        assert point["energy_j_per_output_token"] == pytest.approx(1000 / g["tokens_per_kw"], rel=RTOL)
    # 80 requests at 0.8/s, 720 output tokens/s: 900 output and (1440 - 720) / 0.8 = 900 input tokens per request
    assert (
        curve.performance["benchmark_input_tokens"] == 900.0 and curve.performance["benchmark_output_tokens"] == 900.0
    )
    assert curve.provenance["date"] == "2026-03-02"
    assert "measured board power" in curve.provenance["notes"]
    assert "MEASURED GPU BOARD POWER" in curves_to_yaml([curve])


def test_stage_d_at_the_median():
    (curve,) = read_inferencex_paths([D_DIR], percentile="median").curves
    assert [p["ttft_ms"] for p in curve.points] == [200.0, 400.0]
    assert [p["tpot_ms"] for p in curve.points] == [10.0, 13.0]


def test_a_peak_below_the_mean_is_skipped_naming_the_file_and_the_field():
    raw = _json(D_DIR / "conc8.json")
    raw["gpu"]["peak_power_per_gpu_w"] = 350.0  # below the 400 W mean
    result = read_inferencex([_bytes("bad_peak.json", raw)])
    assert not result.curves
    (skipped,) = result.skipped
    assert skipped.file == "bad_peak.json" and skipped.field == "gpu.peak_power_per_gpu_w"
    assert "below the mean gpu.mean_power_per_gpu_w 400 W" in skipped.reason


def test_a_scenario_point_whose_peak_is_below_its_mean_is_refused_naming_the_field():
    data = scenario_to_data(rackcost.load_scenario(bundled_scenario_path(SCENARIO)))
    point = data["systems"][0]["performance"]["points"][0]
    point.update(power_w_per_accelerator=700.0, peak_power_w_per_accelerator=600.0)
    with pytest.raises(ScenarioError) as exc:
        scenario_from_dict(data, "peak.yaml")
    text = str(exc.value)
    assert "peak.yaml" in text and "systems[0].performance.points[0]" in text
    assert "peak_power_w_per_accelerator (600 W) must be at least power_w_per_accelerator (700 W)" in text


def test_measured_power_above_the_rated_power_is_a_warning_naming_both():
    data = scenario_to_data(rackcost.load_scenario(bundled_scenario_path(SCENARIO)))
    system = data["systems"][0]
    rated = system["hardware"]["accelerator_rated_w"]
    system["performance"]["points"][1]["power_w_per_accelerator"] = rated + 150.0
    result = rackcost.evaluate(scenario_from_dict(data, "hot.yaml"))
    (warning,) = [w for w in result.warnings if "above the accelerator's rated power" in w]
    assert f"{rated + 150:g} W per accelerator" in warning and f"rated power {rated:g} W" in warning
    assert "hardware.accelerator_rated_w" in warning and system["name"] in warning
    data["systems"][0]["performance"]["points"][1]["power_w_per_accelerator"] = rated  # at the rating: no warning
    quiet = rackcost.evaluate(scenario_from_dict(data, "ok.yaml"))
    assert not [w for w in quiet.warnings if "above the accelerator's rated power" in w]


# ---- E: raw client in seconds --------------------------------------------------------------------------------------


def test_stage_e_fixture_numbers_by_hand():
    raw = _json(E_FILE)
    (curve,) = read_inferencex_paths([E_FILE]).curves
    (point,) = curve.points
    assert curve.stages == ["E"] and curve.key.gpus_per_replica == 4  # tp4 in the file name
    assert (curve.key.input_tokens, curve.key.output_tokens) == (2048, 256)  # isl2048_osl256 in the file name
    assert point["throughput_tokens_per_s"] == raw["input_throughput"] + raw["output_throughput"]  # E has no total
    assert point["ttft_ms"] == pytest.approx(1000 * raw["p99_ttft"], rel=RTOL)  # seconds, no _ms suffix
    assert point["tpot_ms"] == pytest.approx(1000 * raw["p99_tpot"], rel=RTOL)
    assert point["output_throughput_tokens_per_s"] == raw["output_throughput"]
    assert curve.performance["benchmark_input_tokens"] == 2048.0  # 163840 tokens / 80 requests
    assert curve.provenance["date"] == "2026-03-01"


@pytest.mark.parametrize("counts", [True, False], ids=["with-token-counts", "rates-only"])
def test_a_stage_e_file_whose_throughput_disagrees_with_its_counts_is_read_and_says_so(tmp_path: Path, counts: bool):
    """input_throughput 100 in place of 4096: the request rate the file measured (2.0/s) no longer matches its
    throughput over its mean length. Stage E has no total field (its total is input + output), so the note names
    the sum, as stage A's names total_token_throughput; it never raised KeyError from the import or from
    ``validation --data`` (issue 33, item 10)."""
    from rackcost.cli.validation import read_inferencex_files

    raw = _json(E_FILE) | {"input_throughput": 100.0}
    if not counts:  # lengths from the rates: (100 + 512 - 512) / 2.0 input tokens, 512 / 2.0 output tokens
        raw |= {"completed": None, "total_input_tokens": None, "total_output_tokens": None}
    folder = tmp_path / "data" / "inferencex"
    folder.mkdir(parents=True)
    path = folder / E_FILE.name
    path.write_text(json.dumps(raw), encoding="utf-8")
    (curve,) = read_inferencex_paths([path]).curves
    assert curve.points[0]["throughput_tokens_per_s"] == 612.0  # 100 + 512
    if counts:  # 612 / (2048 + 256) = 0.265625 requests/s against the file's 2/s: the counts are kept
        assert curve.performance["benchmark_input_tokens"] == 2048.0
        assert (
            "request_throughput 2/s differs from input_throughput + output_throughput / measured mean length = "
            "0.265625/s" in curve.provenance["notes"]
        )
    else:
        assert curve.performance["benchmark_input_tokens"] == pytest.approx(50.0, rel=RTOL)  # 100 / 2.0
        assert (
            "input_throughput + output_throughput and output_throughput / request_throughput"
            in (curve.provenance["notes"])
        )
    result = runner.invoke(app, ["import", "inferencex", str(path), "-o", str(tmp_path / "out.yaml")])
    assert result.exit_code == 0 and "Traceback" not in result.output, result.output
    (read,) = read_inferencex_files(tmp_path / "data")  # what `validation --data` reads
    assert read.skipped == () and len(read.curves) == 1


# ---- F: agentic aggregates, only at a named percentile -------------------------------------------------------------


def test_stage_f_is_refused_without_a_named_stand_in_percentile():
    for percentile in ("p99", "median"):
        result = read_inferencex_paths([F_FILE], percentile=percentile)
        assert not result.curves
        (skipped,) = result.skipped
        assert "--percentile p95" in skipped.reason and f"never reads p95 as {percentile}" in skipped.reason


def test_stage_f_at_p95_says_so_and_reads_tpot_not_interactivity():
    rows = _json(F_FILE)
    result = read_inferencex_paths([F_FILE], percentile="p95")
    assert [c.key.offloading for c in result.curves] == ["lmcache", "none"]  # offloading is part of the key
    assert len(result.warnings) == 2 and all("p95 STAND IN for the SLO's percentile" in w for w in result.warnings)
    for curve in result.curves:
        assert "STAND IN" in curve.provenance["notes"] and curve.stages == ["F"]
        mine = sorted((r for r in rows if r["offloading"] == curve.key.offloading), key=lambda r: r["conc"])
        for point, row in zip(curve.points, mine, strict=True):
            assert point["tpot_ms"] == pytest.approx(1000 * row["p95_tpot"], rel=RTOL)
            assert point["tpot_ms"] != pytest.approx(1000 / row["p95_intvty"], rel=1e-3)  # a percentile of its own
            assert point["ttft_ms"] == pytest.approx(1000 * row["p95_ttft"], rel=RTOL)
            assert point["throughput_tokens_per_s"] == pytest.approx(row["tput_per_gpu"] * 4, rel=RTOL)
            assert point["output_throughput_tokens_per_s"] == pytest.approx(row["output_tput_per_gpu"] * 4, rel=RTOL)
        assert curve.performance["benchmark_input_tokens"] == 50000.0  # the client's means, no nominal ISL here
        assert curve.key.input_tokens is None
    assert "# WARNING: TTFT and TPOT at p95 STAND IN" in curves_to_yaml(result.curves)


def test_the_cli_refuses_f_without_percentile_and_warns_with_it(tmp_path: Path):
    refused = runner.invoke(app, ["import", "inferencex", str(F_FILE)])
    assert refused.exit_code == 1 and "--percentile p95" in refused.output and "Traceback" not in refused.output
    out = tmp_path / "f.yaml"
    ok = runner.invoke(app, ["import", "inferencex", str(F_FILE), "--percentile", "p95", "-o", str(out)])
    assert ok.exit_code == 0, ok.output
    assert "warning:" in ok.output and "STAND IN" in ok.output
    assert "STAND IN" in out.read_text(encoding="utf-8")


# ---- disaggregated rows, pcp_size, power_valid 0, ep 0, the raw twin's date -----------------------------------------


def test_a_disaggregated_row_keeps_its_decode_gpus_and_its_output_per_decode_gpu():
    raw = _json(DISAGG)
    (curve,) = read_inferencex_paths([DISAGG]).curves
    (point,) = curve.points
    assert curve.key.gpus_per_replica == 12 and curve.performance["decode_accelerators_per_replica"] == 8
    assert point["throughput_tokens_per_s"] == pytest.approx(raw["tput_per_gpu"] * 12, rel=RTOL)
    # InferenceX's output_tput_per_gpu is the output over the 8 decode GPUs: x 8, not x 12
    assert point["output_throughput_tokens_per_s"] == pytest.approx(raw["output_tput_per_gpu"] * 8, rel=RTOL)


def _paste(curve, gpus: int) -> rackcost.Scenario:
    return pasted_scenario(InferenceXCurve(curve.label, curve.performance, curve.provenance, gpus))


def test_reconcile_charges_a_disaggregated_rows_output_tokens_to_its_decode_gpus():
    raw = _json(DISAGG)
    (curve,) = read_inferencex_paths([DISAGG]).curves
    r = reconcile(_paste(curve, 12), "imported", 2.0)
    assert r.total_tokens_per_s_per_gpu == pytest.approx(raw["tput_per_gpu"], rel=RTOL)  # 24000 / 12
    assert r.output_tokens_per_s_per_gpu == pytest.approx(raw["output_tput_per_gpu"], rel=RTOL)  # 2400 / 8
    assert r.inferencex_usd_per_million_output_tokens == pytest.approx(2.0 / (300.0 * 3600 / 1e6), rel=RTOL)
    assert "decode GPU" in r.output_basis
    product = r.rows_at("peak")[0].usd_per_million_output_tokens
    for row in r.rows_at("peak")[1:]:
        product *= row.multiplier
    assert product == pytest.approx(r.rackcost_usd_per_million_accepted_output_tokens["peak"], rel=1e-9)


def test_reconcile_takes_the_measured_output_from_the_command_line_over_the_imported_one(tmp_path: Path):
    (curve,) = read_inferencex_paths([DISAGG]).curves
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(scenario_to_data(_paste(curve, 12))), encoding="utf-8")
    args = ["reconcile", str(path), "--system", "imported", "--usd-per-gpu-hour", "2", "--format", "json"]
    imported = json.loads(runner.invoke(app, args).stdout)
    given = json.loads(runner.invoke(app, [*args, "--output-tokens-per-s-per-gpu", "150"]).stdout)
    assert imported["output_tokens_per_s_per_gpu"] == pytest.approx(300.0, rel=RTOL)
    assert given["output_tokens_per_s_per_gpu"] == 150.0 and given["output_basis"] == "measured (given)"


def test_pcp_size_multiplies_the_replica_like_pcp():
    agg = _json(AGG_8)
    for name in ("pcp_size", "pcp"):
        (curve,) = read_inferencex([_bytes("x_tp8.json", {**agg, name: 2})]).curves
        assert curve.key.gpus_per_replica == 16, name


@pytest.mark.parametrize("flag", [0, False, "false", "0"])
def test_power_marked_invalid_by_0_or_false_is_dropped(flag):
    agg = {**_json(AGG_8), "avg_power_w": 600.0, "power_valid": flag}
    result = read_inferencex([_bytes("x_tp8.json", agg)])
    assert "power_w_per_accelerator" not in result.curves[0].points[0]
    assert any("avg_power_w ignored" in n for n in result.notes)


def test_power_marked_valid_by_1_is_kept():
    agg = {**_json(AGG_8), "avg_power_w": 600.0, "power_valid": 1}
    assert read_inferencex([_bytes("x_tp8.json", agg)]).curves[0].points[0]["power_w_per_accelerator"] == 600.0


def test_ep_0_is_read_as_no_expert_parallelism():
    agg = {**_json(AGG_8), "ep": 0}
    result = read_inferencex([_bytes("x_tp8.json", agg)])
    assert result.curves[0].key.expert_parallel == 1
    assert "ep 0 read as no expert parallelism" in result.curves[0].provenance["notes"]


def test_the_aggregate_imported_with_its_raw_twin_keeps_the_run_date():
    alone = read_inferencex_paths([AGG_8]).curves[0].provenance["date"]
    together = read_inferencex_paths([RAW_8, AGG_8]).curves[0].provenance["date"]
    assert alone.startswith("unstated") and together == "2025-11-04"


def test_output_tput_per_gpu_is_read():
    agg = _json(AGG_8)
    point = read_inferencex_paths([AGG_8]).curves[0].points[0]
    assert point["output_throughput_tokens_per_s"] == pytest.approx(agg["output_tput_per_gpu"] * 8, rel=RTOL)


# ---- unknown schema ------------------------------------------------------------------------------------------------


def test_an_unknown_schema_says_what_was_found_and_what_was_expected_without_values():
    secret = "hunter2-do-not-print"
    obj = {"user": secret, "password": secret, "a": 1, "b": 2, "c": 3, "d": 4, "e\n<script>": 5}
    (skipped,) = read_inferencex([_bytes("other.json", obj)]).skipped
    assert "found a JSON object with keys user, password, a, b, c and 2 more" in skipped.reason
    assert "expected an InferenceX result: stage A" in skipped.reason and "F of agentic aggregates" in skipped.reason
    assert secret not in skipped.reason and "<script>" not in skipped.reason and "\n" not in skipped.reason
    (array,) = read_inferencex([_bytes("rows.json", [1, {"x": 1}])]).skipped
    assert "a JSON array of 2 item(s), the first object with keys x" in array.reason


# ---- the real files (data tier) --------------------------------------------------------------------------------


@pytest.mark.data
def test_the_real_b200_baseline_files_by_hand(real_inferencex: Path):
    folder = real_inferencex / "b200_together_runner" / "sglang_dsr1-fp4_1k1k_tuned"
    (curve,) = read_inferencex_paths([folder]).curves
    assert [p["concurrency"] for p in curve.points] == [16, 64, 128, 256]
    for point in curve.points:
        raw = _json(folder / f"conc{point['concurrency']}.json")
        assert point["power_w_per_accelerator"] == raw["gpu"]["mean_power_per_gpu_w"]
        assert point["peak_power_w_per_accelerator"] == raw["gpu"]["peak_power_per_gpu_w"]
        assert point["throughput_tokens_per_s"] == raw["metrics"]["total_token_throughput"]
        assert point["ttft_ms"] == raw["metrics"]["p99_ttft_ms"] and point["tpot_ms"] == raw["metrics"]["p99_tpot_ms"]
    # the figures: 430 / 497 / 572 / 567 W mean, peaks 626 to 863 W
    assert [round(p["power_w_per_accelerator"]) for p in curve.points] == [430, 497, 572, 567]
    peaks = [p["peak_power_w_per_accelerator"] for p in curve.points]
    assert round(min(peaks)) == 626 and round(max(peaks)) == 863
    assert curve.points[0]["energy_j_per_output_token"] == pytest.approx(1000 / 326.3, rel=RTOL)


@pytest.mark.data
def test_the_real_h200_raw_files_by_hand(real_inferencex: Path):
    folder = real_inferencex / "h200_token_position_decode_slo"
    curves = read_inferencex_paths([folder]).curves
    points = {(c.key.input_tokens, p["concurrency"]): p for c in curves for p in c.points}
    assert len(points) == 3 and all(c.key.gpus_per_replica == 8 for c in curves)
    for path in sorted(folder.glob("*.json")):
        raw = _json(path)
        isl = int(re.search(r"isl(\d+)", path.name).group(1))
        p = points[(isl, raw["max_concurrency"])]
        assert p["throughput_tokens_per_s"] == pytest.approx(
            raw["input_throughput"] + raw["output_throughput"], rel=RTOL
        )
        assert p["ttft_ms"] == pytest.approx(1000 * raw["p99_ttft"], rel=RTOL)
        assert p["tpot_ms"] == pytest.approx(1000 * raw["p99_tpot"], rel=RTOL)


@pytest.mark.data
def test_the_real_agentic_file_by_hand(real_inferencex: Path):
    path = real_inferencex / "agentic_lmcache_mi355x" / "agg_bmk.json"
    rows = _json(path)
    curves = {c.key.offloading: c for c in read_inferencex_paths([path], percentile="p95").curves}
    assert set(curves) == {"none", "lmcache"} and all(len(c.points) == 10 for c in curves.values())
    for row in rows[:6]:
        (p,) = [p for p in curves[row["offloading"]].points if p["concurrency"] == row["conc"]]
        assert p["ttft_ms"] == pytest.approx(1000 * row["p95_ttft"], rel=RTOL)
        assert p["tpot_ms"] == pytest.approx(1000 * row["p95_tpot"], rel=RTOL)
        assert p["throughput_tokens_per_s"] == pytest.approx(row["tput_per_gpu"] * row["tp"], rel=RTOL)


def _imported_from_the_cli(path: Path, real: Path, tmp_path: Path) -> InferenceXFile:
    """A real file imported alone by ``rackcost import inferencex`` (with the options rackcost validation gives it),
    as the comparison reads it: the YAML's curves, with the GPUs per replica their provenance states."""
    raw = _json(path)
    options = reproduction_options(raw)
    out = tmp_path / f"{path.stem}.yaml"
    flags = ["--percentile", options["percentile"], "--isl", str(options["isl"]), "--osl", str(options["osl"])]
    imported = runner.invoke(app, ["import", "inferencex", str(path), *flags, "-o", str(out), "--force"])
    assert imported.exit_code == 0, imported.output
    curves = []
    for label, entry in yaml.safe_load(out.read_text(encoding="utf-8")).items():
        gpus = int(re.search(r"Throughput per replica of (\d+) GPUs", entry["provenance"]["notes"]).group(1))
        curves.append(InferenceXCurve(label, entry["performance"], entry["provenance"], gpus))
    return InferenceXFile(path.relative_to(real).as_posix(), raw, tuple(curves), percentile=options["percentile"])


def _reconcile_from_the_cli(tmp_path: Path):
    """The comparison's pricer through ``rackcost reconcile --format json`` on the pasted scenario's YAML."""

    def price(scenario: rackcost.Scenario, concurrency: float, usd_per_gpu_hour: float) -> RackcostFigures:
        path = tmp_path / "pasted.yaml"
        path.write_text(yaml.safe_dump(scenario_to_data(scenario)), encoding="utf-8")
        args = ["reconcile", str(path), "--system", PASTED_SYSTEM, "--usd-per-gpu-hour", str(usd_per_gpu_hour)]
        result = runner.invoke(app, [*args, "--concurrency", str(concurrency), "--format", "json"])
        assert result.exit_code == 0, result.output
        r = json.loads(result.stdout)
        output, total = r["inferencex_usd_per_million_output_tokens"], r["inferencex_usd_per_million_total_tokens"]
        return RackcostFigures(output, total, r["output_basis"])

    return price


@pytest.mark.data
def test_reconcile_reproduces_inferencex_on_every_point_of_every_real_file_from_the_cli(
    real_inferencex: Path, tmp_path: Path
):
    # docs/validation.md's InferenceX comparison (rackcost.analysis.validation.inferencex), with the import and the
    # pricing both through the command line: InferenceX's formula from the raw fields against reconcile's figures
    price = _reconcile_from_the_cli(tmp_path)
    files = [_imported_from_the_cli(p, real_inferencex, tmp_path) for p in sorted(real_inferencex.rglob("*.json"))]
    comparisons = [compare_file(f, 2.0, price) for f in files]
    assert [line for c in comparisons for line in c.problems] == []
    points = [p for c in comparisons for p in c.points]
    output, total = worst([p.output_difference for p in points]), worst([p.total_difference for p in points])
    print(f"InferenceX $/M tokens reproduced from the CLI: max relative error {max(output, total):.2e}")
    assert max(output, total) <= IX_RTOL, (output, total)
    # $/M output: 2 + 2 raw/aggregate Kimi points, 4 B200, 3 H200, 20 agentic, the Gaudi array's one row with
    # output_tput_per_gpu; the Gaudi array's other 30 rows give none (their $/M total is compared)
    without_output = [p for p in points if p.inferencex_output is None]
    assert (len(points) - len(without_output), len(without_output)) == (32, 30)
    assert {p.file for p in without_output} == {"gaudi25-h100-llama33-70b-results.json"}


# ---- D on a shared host: the GPUs that serve, not the host's ------------------------------------------------------

TP4_ON_8 = NEWER / "b200_runner_gptoss_tp4_1k1k"


def test_a_tp4_run_on_an_8_gpu_host_imports_4_gpus_per_replica_and_the_serving_gpus_power():
    """InferenceX prices the GPUs that serve (tp x pp); ``gpu.n_gpus`` is every GPU the host reports. Read as the
    replica, it halved tokens per GPU and spread the measured power over idle GPUs."""
    raw = _json(TP4_ON_8 / "conc16.json")
    result = read_inferencex_paths([TP4_ON_8])
    (curve,) = result.curves
    assert curve.key.gpus_per_replica == 4 == raw["tp"]
    (point,) = curve.points
    assert point["throughput_tokens_per_s"] == raw["metrics"]["total_token_throughput"]  # the deployment: one replica
    # the host's 2,400 W over the 4 GPUs that serve (its 300 W mean x 8 / 4)
    assert point["power_w_per_accelerator"] == pytest.approx(raw["gpu"]["total_avg_power_w"] / 4, rel=RTOL)
    assert point["peak_power_w_per_accelerator"] == raw["gpu"]["peak_power_per_gpu_w"]  # one GPU's: as given
    said = curve.provenance["notes"]
    assert "gpu.n_gpus 8" in said and "4 GPUs that serve" in said
    assert "vllm/vllm-openai:v0.22.0" in curve.provenance["software_stack"]
    assert "image unstated" not in curve.provenance["software_stack"]


def test_a_tp4_run_on_an_8_gpu_host_reproduces_inferencex_dollars_per_million_from_the_cli(tmp_path: Path):
    # InferenceX's convention: $ per million tokens = $ per GPU-hour / (tokens/s per GPU x 3,600 / 1e6), with tokens
    # per GPU over tp x pp GPUs: 8,000 / 4 = 2,000 total and 4,000 / 4 = 1,000 output tokens/s per GPU
    out = tmp_path / "imported.yaml"
    done = runner.invoke(app, ["import", "inferencex", str(TP4_ON_8), "--output", str(out)])
    assert done.exit_code == 0, done.output
    (point,) = reference_points_of(TP4_ON_8 / "conc16.json")
    assert point.total_tokens_per_s_per_gpu == 2000.0 and point.output_tokens_per_s_per_gpu == 1000.0
    assert "Throughput per replica of 4 GPUs (file: tp 4 x pp 1" in out.read_text(encoding="utf-8")
    (curve,) = read_inferencex_paths([TP4_ON_8]).curves
    r = reconcile(_paste(curve, curve.key.gpus_per_replica), "imported", 2.0)
    assert r.total_tokens_per_s_per_gpu == pytest.approx(2000.0, rel=IX_RTOL)
    assert r.inferencex_usd_per_million_output_tokens == pytest.approx(2.0 / (1000.0 * 3600 / 1e6), rel=IX_RTOL)


def reference_points_of(path: Path):
    from rackcost.analysis.validation.inferencex import reference_points

    return reference_points(path.name, _json(path))
