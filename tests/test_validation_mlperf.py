"""docs/validation.md's MLPerf section: MLPerf's Server rate beside its Offline one, rackcost's capacity at MLPerf's
SLO on a curve against the measured Server rate (the gap split into the curve, the SLO and the queue), and the
scenarios' wall power against MLPerf's measured system power."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import brentq

from rackcost.analysis.validation.mlperf import (
    MISS_FRACTION,
    MLPerfPoint,
    accelerator_family,
    capacity_on_curve,
    measured_rows,
    mlperf_section,
    model_rows,
    power_rows,
    same_model,
    verdict,
)
from rackcost.analysis.validation.registry import SLOTS
from rackcost.analysis.validation.sections import ValidationContext
from rackcost.cli.validation import read_mlperf_points
from rackcost.model.replica.performance import build_curve
from rackcost.scenario.loading import bundled_scenarios, load_scenario


@pytest.fixture(scope="module")
def published():
    points, note = read_mlperf_points()
    return points, note


@pytest.fixture(scope="module")
def scenarios():
    return tuple((p.name, load_scenario(p)) for p in bundled_scenarios())


def _point(scenario, tokens, **kw):
    base = dict(result_id="1", round="v9", submitter="S", platform="P", benchmark="deepseek-r1", model="DeepSeek-R1")
    return MLPerfPoint(
        **base, scenario=scenario, accelerator="NVIDIA B200-SXM-180GB", accelerators=8, tokens_per_s=tokens, **kw
    )


def test_one_slot_capacity_is_the_mm1_wait_tail_at_the_budget() -> None:
    # two points, the second over the TPOT limit: the capacity is one slot's, P(W > t) = rho exp(-(1 - rho) t / S)
    # = 1% with t = TTFT limit - TTFT (M/M/1, Kleinrock 1975, Sec. 3.5)
    osl = 100.0
    curve = build_curve([1.0, 2.0], [50.0, 80.0], "output", [20.0, 90.0], [300.0, 400.0], 1000.0, osl)
    cap = capacity_on_curve(curve, ttft_limit_ms=2000.0, tpot_limit_ms=80.0)
    service_s = 1.0 / (50.0 / osl)
    t = (2000.0 - 300.0) / 1000.0
    rho = brentq(lambda r: r * math.exp(-(1.0 - r) * t / service_s) - MISS_FRACTION, 1e-9, 1.0 - 1e-12)
    assert cap.concurrency == 1.0 and cap.capacity_rps == pytest.approx(rho / service_s, rel=1e-6)
    assert cap.top_rps == pytest.approx(0.8) and cap.point_rps == pytest.approx(0.5)
    assert cap.slo_share * cap.queue_share == pytest.approx(cap.capacity_rps / cap.top_rps, rel=1e-12)


def test_a_curve_without_a_feasible_point_has_no_capacity() -> None:
    curve = build_curve([1.0, 2.0], [50.0, 80.0], "output", [100.0, 120.0], [300.0, 400.0], 1000.0, 100.0)
    cap = capacity_on_curve(curve, 2000.0, 80.0)
    assert cap.capacity_rps == 0.0 and cap.queue_share == 0.0 and math.isnan(cap.concurrency)
    assert verdict(1.0, 0.0, 0.5, cap.slo_share, cap.queue_share) == "the SLO"


def test_names_match_the_accelerator_and_the_model() -> None:
    assert accelerator_family("NVIDIA B200-SXM-180GB") == "B200" and accelerator_family("NVIDIA GB300") == "GB300"
    assert accelerator_family("Jalapeño") is None and accelerator_family("Intel Gaudi 3") == "Gaudi 3"
    assert same_model("nvidia/DeepSeek-R1-0528-FP4", "DeepSeek-R1") and not same_model(None, "DeepSeek-R1")


def test_the_measured_table_gives_the_kept_share_and_the_binding_latency() -> None:
    points = (
        _point("Offline", 30000.0),
        _point("Server", 15000.0, ttft_p99_ms=1000.0, tpot_p99_ms=72.0, ttft_limit_ms=2000.0, tpot_limit_ms=80.0),
    )
    (row,) = measured_rows(points).to_dict("records")
    assert row["kept"] == 0.5 and row["ttft_of_limit"] == 0.5 and row["tpot_of_limit"] == pytest.approx(0.9)
    assert row["binds"] == "TPOT" and row["tokens_per_s_per_accelerator"] == 15000.0 / 8


def test_the_published_kept_shares(published) -> None:
    points, note = published
    assert "rackcost/data/mlperf_results.json" in note
    rows = measured_rows(points).set_index("result")
    # MLCommons, MLPerf Inference v5.1, 5.1-0024 (Dell XE9680L, 8 x B200, DeepSeek-R1): Server 13913.3, Offline
    # 30493.3 tokens/s
    assert rows.loc["v5.1 5.1-0024", "kept"] == pytest.approx(13913.3 / 30493.3, rel=1e-12)


def test_the_gap_splits_exactly_into_level_slo_and_queue(published, scenarios) -> None:
    points, _ = published
    rows = model_rows(points, scenarios)
    assert len(rows) > 0 and set(rows["verdict"]) <= {"the curve", "the SLO", "the queueing"}
    split = rows["level"] * rows["slo_share"] * rows["queue_share"] / rows["mlperf_kept"]
    assert np.allclose(1.0 + rows["gap"], split, rtol=1e-12)
    assert (rows["model_per_accelerator"] <= rows["curve_top_per_accelerator"]).all()


def test_the_wall_power_is_busy_plus_host_per_accelerator(published, scenarios) -> None:
    points, _ = published
    rows = power_rows(points, scenarios)
    dgx = rows[rows["scenario_systems"].str.contains("DGX B200 aggregated") & rows["result"].eq("v5.1 5.1-0061")]
    row = dgx[dgx["benchmark"].eq("llama2-70b-99 Offline")].iloc[0]
    # deepseek-r1-b200-measured-power.yaml: busy 571.7 W, host 2,500 W per 8-GPU node, 1,500 W per 4-node rack
    assert row["node_w_per_accelerator"] == pytest.approx(571.7 + 2500.0 / 8)
    assert row["with_rack_w_per_accelerator"] == pytest.approx(571.7 + 2500.0 / 8 + 1500.0 / 32)
    # MLCommons, MLPerf Inference v5.1, 5.1-0061: Power_Result 10400.9988793425 W over 8 B200
    assert row["measured_w_per_accelerator"] == pytest.approx(10400.9988793425 / 8, rel=1e-12)


def test_the_section_is_measured_with_results_and_skipped_without(published, scenarios) -> None:
    points, note = published
    assert "mlperf" in {s.key for s in SLOTS}
    section = mlperf_section(ValidationContext(scenarios, mlperf_results=points, mlperf_note=note))
    assert section.status == "measured" and len(section.tables) == 3
    assert "MLPerf's Server runs keep" in section.headline and "the curve" in section.text
    skipped = mlperf_section(ValidationContext(scenarios))
    assert skipped.status == "skipped" and "no MLPerf results" in skipped.text


def test_the_command_reads_other_results_with_mlperf(monkeypatch, tmp_path) -> None:
    # the tiny scenario only and a data folder without inferencex/ (seconds); the fixtures in MLCommons' formats
    from typer.testing import CliRunner

    import rackcost.scenario.loading as loading
    from rackcost.cli.entry import app

    root = Path(__file__).resolve().parents[1]
    monkeypatch.setattr(loading, "bundled_scenarios", lambda: [root / "tests" / "data" / "two_systems.yaml"])
    fixtures = root / "tests" / "data" / "mlperf"
    points, note = read_mlperf_points([fixtures])
    assert len(points) == 4 and str(fixtures) in note and "1 skipped" in note
    done = CliRunner().invoke(app, ["validation", "--quick", "--data", str(tmp_path), "--mlperf", str(fixtures)])
    assert done.exit_code == 0, done.output
    assert "| MLPerf Inference: capacity at SLO and wall power against measured | measured |" in done.stdout
    assert "MLPerf's Server runs keep 0.90 of Offline (median of 1, 0.90-0.90)" in done.stdout


def test_an_interactive_result_is_set_against_the_curves_at_its_own_slo(scenarios) -> None:
    # DeepSeek-R1's Interactive limits (1,500 ms / 15 ms, MLCommons, MLPerf Inference rules v5.1) on the bundled B200
    # curves: a curve whose every point's TPOT is over 15 ms has no feasible point, and the SLO makes its gap
    points = (
        _point("Offline", 30000.0),
        _point("Interactive", 6000.0, ttft_p99_ms=900.0, tpot_p99_ms=14.0, ttft_limit_ms=1500.0, tpot_limit_ms=15.0),
    )
    rows = model_rows(points, scenarios)
    assert len(rows) > 0 and set(rows["scenario"]) == {"Interactive"}
    none = rows[rows["model_per_accelerator"] == 0.0]
    assert len(none) > 0 and set(none["verdict"]) == {"the SLO"} and (none["slo_share"] == 0.0).all()
    assert (rows["mlperf_kept"] == 0.2).all() and (rows["model_kept"] <= 1.0).all()
