"""The bundled scenario on measured power (issue 20, item 7): DeepSeek-R1 FP4 on 8 x B200, owned and rented.

scenarios/deepseek-r1-b200-measured-power.yaml carries SemiAnalysis InferenceX's B200 baseline runs (repository
SemiAnalysisAI/InferenceX, together_runner/baselines/b200/ at commit 1aadd1e5, runs of 2026-06-12; docs/sources.md
§9) as `rackcost import inferencex` wrote them. The figures below are checked by hand from the runs' raw numbers
(written out here, so the always-run tests need no data file); the ``data`` test checks that the scenario's points
are what the importer makes of the real files.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

import rackcost
from rackcost.cli.entry import app

NAME = "deepseek-r1-b200-measured-power"
# The runs' raw numbers per concurrency (gpu.mean_power_per_gpu_w, gpu.peak_power_per_gpu_w [W per GPU];
# metrics.total_token_throughput [tokens/s per 8 GPUs]): the 430 / 497 / 572 / 567 W.
MEAN_W = {16: 429.7, 64: 497.0, 128: 571.7, 256: 566.9}
PEAK_W = {16: 626.4, 64: 741.0, 128: 770.9, 256: 862.7}
TOTAL_TOKENS_PER_S = {16: 2287.87, 64: 5683.76, 128: 9672.37, 256: 14748.7}
# The scenario's DGX B200 figures (docs/sources.md §2-4, as the B200 vs GB200 scenario) [W, -, USD/GPU-h]
IDLE_W, HOST_W, RACK_OVERHEAD_W, PUE = 110.0, 2500.0, 1500.0, 1.3
GPUS = 8
RENT_USD_PER_GPU_HOUR = 2.90  # InferenceX's B200 3-year rental tier (docs/sources.md §8)
# NVIDIA's "over 30,000 tokens per second" per DGX B200 (docs/sources.md §1) per GPU per kW of its 1.0 kW rating
VENDOR_HEADLINE = 30_000 / GPUS / 1.0
# Sums and products of a handful of values: a few ulps at most.
RTOL = 1e-12


def _measured_w(c: float) -> float:
    """The measured mean board power at concurrency ``c``, linear between the measured points [W]."""
    cs = sorted(MEAN_W)
    lo = max(x for x in cs if x <= c)
    hi = min(x for x in cs if x >= c)
    if lo == hi:
        return MEAN_W[lo]
    return MEAN_W[lo] + (MEAN_W[hi] - MEAN_W[lo]) * (c - lo) / (hi - lo)


@pytest.fixture(scope="module")
def result() -> rackcost.Result:
    return rackcost.evaluate(rackcost.load_scenario(NAME))


def _rows(result: rackcost.Result) -> tuple[dict, dict]:
    systems = {r["system"]: r for r in result.records["systems"]}
    return systems["DGX B200 owned"], systems["DGX B200 rented, 3-year"]


def test_the_scenario_carries_the_measured_curve_owned_and_rented() -> None:
    scenario = rackcost.load_scenario(NAME)
    owned, rented = scenario.systems
    assert owned.costs is not None and owned.rent is None and rented.rent is not None and rented.costs is None
    for system in scenario.systems:
        perf, hw = system.hardware_blocks()
        assert hw.accelerator == "B200" and hw.accelerators_per_replica == GPUS
        assert [p.concurrency for p in perf.points] == list(MEAN_W)
        assert [p.power_w_per_accelerator for p in perf.points] == list(MEAN_W.values())
        assert [p.peak_power_w_per_accelerator for p in perf.points] == list(PEAK_W.values())
        assert [p.throughput_tokens_per_s for p in perf.points] == list(TOTAL_TOKENS_PER_S.values())
        assert system.provenance.provenance_class.value == "independent"
        assert perf.claim is not None and perf.claim.tokens_per_s_per_kw == VENDOR_HEADLINE
    assert rented.rent.usd_per_accelerator_hour == RENT_USD_PER_GPU_HOUR


def test_busy_power_at_the_slo_point_is_the_measured_power_interpolated(result: rackcost.Result) -> None:
    owned, rented = _rows(result)
    # The MLPerf server TTFT limit (2,000 ms) falls between concurrency 128 (1,667 ms) and 256 (2,403 ms): the
    # fewest servers at concurrency 185, where the board draws 571.7 + (566.9 - 571.7) x 57/128 = 569.5625 W.
    assert owned["concurrency"] == 185
    assert _measured_w(185) == pytest.approx(569.5625, rel=RTOL)
    for row in (owned, rented):
        assert row["busy_power_w_per_accelerator"] == pytest.approx(_measured_w(row["concurrency"]), rel=RTOL)
        assert row["busy_power_w_per_accelerator"] != 571.7  # not the hardware block's accelerator_busy_w


def test_wall_power_at_each_demand_point_is_measured_power_plus_hosts_racks_and_pue(result: rackcost.Result) -> None:
    owned, _ = _rows(result)
    for p in result.records["points"]:
        active, provisioned = p["active_replicas"], p["provisioned_replicas"]
        serving_w = _measured_w(p["in_service_concurrency"])  # every demand point is above concurrency 16
        it_w = (
            active * GPUS * serving_w
            + (provisioned - active) * GPUS * IDLE_W  # powered standby replicas
            + owned["nodes"] * HOST_W
            + p["racks"] * RACK_OVERHEAD_W
        )
        assert p["it_power_kw"] == pytest.approx(it_w / 1000, rel=RTOL)
        assert p["facility_power_kw"] == pytest.approx(PUE * it_w / 1000, rel=RTOL)
    quiet = next(p for p in result.records["points"] if p["demand_point"] == "quiet")
    assert 16 < quiet["in_service_concurrency"] < 64  # quiet hours read the measured curve, not the power law


def test_peak_power_uses_the_mean_of_the_measured_peak_to_mean_ratios(result: rackcost.Result) -> None:
    ratio = sum(PEAK_W[c] / MEAN_W[c] for c in MEAN_W) / len(MEAN_W)
    assert round(ratio, 4) == 1.4547  # 1.4578, 1.4909, 1.3484, 1.5218
    for p in result.records["points"]:
        serving_w = _measured_w(p["in_service_concurrency"])
        assert serving_w * ratio < 1000  # below the 1,000 W rating: the peak is not held at the rating
        extra_w = p["active_replicas"] * GPUS * serving_w * (ratio - 1)  # only serving accelerators peak
        assert p["peak_it_power_kw"] - p["it_power_kw"] == pytest.approx(extra_w / 1000, rel=1e-9)


def test_the_claim_table_shows_tokens_per_kwh_from_measured_power_beside_the_vendor_headline(
    result: rackcost.Result,
) -> None:
    owned, _ = _rows(result)
    rows = {r["metric"]: r for r in result.records["comparison"]}
    headline = next(r for metric, r in rows.items() if metric.startswith("headline"))
    assert headline["kind"] == "claim" and headline["baseline_value"] == VENDOR_HEADLINE == 3750
    modelled = rows["tokens per facility kWh at the SLO operating point"]
    # one server flat out at concurrency 185: its total tokens an hour over its wall power (8 boards at the
    # measured 569.5625 W, its host, half a rack's overhead (2 servers per 40 kW rack), x PUE 1.3)
    replica_w = GPUS * _measured_w(185) + HOST_W + RACK_OVERHEAD_W / 2
    tokens_per_kwh = owned["total_tokens_per_s_per_replica"] * 3600 / (PUE * replica_w / 1000)
    assert modelled["baseline_value"] == pytest.approx(tokens_per_kwh, rel=RTOL)
    assert round(modelled["baseline_value"] / 1e6, 2) == 4.35
    # the same servers: owning and renting draw the same power
    assert modelled["system_value"] == modelled["baseline_value"] and modelled["advantage_ratio"] == 1


def test_the_claim_table_from_the_command_line() -> None:
    out = CliRunner().invoke(app, ["compare", NAME, "--format", "json"])
    assert out.exit_code == 0, out.output
    metrics = [r["metric"] for r in json.loads(out.stdout)["comparison"]]
    assert any(m.startswith("headline peak tokens/s per kW") for m in metrics)
    assert "tokens per facility kWh at the SLO operating point" in metrics


def test_owned_and_rented_costs_by_hand(result: rackcost.Result) -> None:
    owned, rented = _rows(result)
    assert rented["accelerators"] == owned["accelerators"] == 22 * GPUS  # 21 for the SLO + 3% availability
    for p in result.records["points"]:
        if p["system"] == rented["system"]:
            assert p["rent_usd_per_hour"] == pytest.approx(RENT_USD_PER_GPU_HOUR * 22 * GPUS, rel=RTOL)
            assert p["energy_usd_per_hour"] == 0  # the rental price covers power and facility
    per_gpu_hour = (owned["capital_usd_per_hour"] + owned["fixed_opex_usd_per_hour"]) / owned["accelerators"]
    assert 1.95 <= per_gpu_hour <= RENT_USD_PER_GPU_HOUR  # inside InferenceX's B200 tiers (docs/sources.md §8)
    assert owned["blended_usd_per_accepted_request"] < rented["blended_usd_per_accepted_request"]


@pytest.mark.data
def test_the_points_are_what_the_importer_makes_of_the_real_files(real_inferencex: Path, tmp_path: Path) -> None:
    folder = real_inferencex / "b200_together_runner" / "sglang_dsr1-fp4_1k1k_tuned"
    out = tmp_path / "curves.yaml"
    files = [str(folder / f"conc{c}.json") for c in MEAN_W]
    result = CliRunner().invoke(app, ["import", "inferencex", *files, "-o", str(out)])
    assert result.exit_code == 0, result.output
    (entry,) = yaml.safe_load(out.read_text(encoding="utf-8")).values()
    data = yaml.safe_load(rackcost.bundled_scenario_path(NAME).read_text(encoding="utf-8"))
    for system in data["systems"]:
        perf = system["performance"]
        for key, value in entry["performance"].items():
            assert perf[key] == value, key
    assert entry["provenance"]["class"] == "independent" and entry["provenance"]["date"] == "2026-06-12"
