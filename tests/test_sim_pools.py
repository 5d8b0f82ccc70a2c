"""The simulator on disaggregated systems (``systems[i].pools``; issue 23, item 6): the prefill pool, the KV
transfer and the decode pool simulated as a tandem (:mod:`rackcost.model.sim.sim_tandem`), refereeing the analytic
pools (:mod:`rackcost.model.fleets.disaggregation`)."""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rackcost
from rackcost.analysis.referee import capacity_check
from rackcost.model.sim.sim_arrivals import RenewalArrivals
from rackcost.model.sim.sim_classes import LengthLaw
from rackcost.model.sim.sim_engines import SimFleet, fixed_model
from rackcost.model.sim.sim_tandem import TandemWork, run_tandem_once, tandem_statistics

DATA = Path(__file__).parent / "data"
AGREEMENT = DATA / "disaggregated_agreement.yaml"
BIMODAL = LengthLaw(
    "cdf",
    300.0,
    table_tokens=np.array([40.0, 80.0, 580.0, 740.0]),
    table_cumulative_fraction=np.array([0.0, 0.6, 0.6, 1.0]),
)
"""60% of outputs uniform on 40 to 80 tokens, 40% on 580 to 740: mean 0.6 x 60 + 0.4 x 660 = 300."""
LAWS = {
    "light": LengthLaw("gamma", 300.0, 0.5),
    "heavy": LengthLaw("lognormal", 300.0, 1.0),
    "bimodal": BIMODAL,
}
"""The three output-length families the issue's done-when names."""
REQUESTS = 150_000
"""Per law and demand point, in 5 replications: about 3 s a law on the 2-core machine."""


def _scenario(cv: float) -> Any:
    text = AGREEMENT.read_text().replace("output_tokens_cv_fraction: 0.5", f"output_tokens_cv_fraction: {cv!r}")
    return rackcost.scenario_from_yaml(text, "disaggregated_agreement.yaml")


@pytest.fixture(scope="module")
def agreement_rows() -> dict[str, list[dict[str, Any]]]:
    from rackcost.analysis.referee_pools import law_cv

    return {
        name: rackcost.simulate(_scenario(law_cv(law)), requests=REQUESTS, replications=5, seed=0, output_lengths=law)
        for name, law in LAWS.items()
    }


@pytest.mark.parametrize("law", list(LAWS))
def test_analytic_pools_agree_with_the_tandem_simulation_up_to_ninety_percent(
    agreement_rows: dict[str, list[dict[str, Any]]], law: str
) -> None:
    # The done-when of issue 23: the analytic p99 TTFT within 10% of the simulated one and the accepted share
    # within 1 percentage point, at every point up to 90% utilisation. benchmarks/pool_agreement.py measures it with
    # 10^6 requests (docs/model.md quotes it: -2.3%, -3.0%, +3.5%; the accepted share within 0.3 of a point). Here,
    # with 150,000 requests, the simulated p99 is uncertain by its 95% half-width, 1-3% of it at 46% and 67%, 10 to
    # 36% at 89% from seed to seed (a 5-replication Student t interval of an autocorrelated tail, itself uncertain):
    # the check allows 10% plus twice it, which held the 10^6-request value for every seed 0 to 7. The accepted
    # share's half-width is under 0.1 of a point.
    rows = agreement_rows[law]
    assert [r["demand_point"] for r in rows] == ["half", "seventy", "ninety"]
    for r in rows:
        assert max(r["analytic_prefill_utilization_fraction"], r["analytic_decode_utilization_fraction"]) <= 0.9
        sim, half = r["simulated_ttft_p99_ms"], r["simulated_ttft_p99_ms_ci95_halfwidth"]
        assert abs(r["analytic_ttft_p99_ms"] - sim) <= 0.10 * sim + 2.0 * half, (law, r["demand_point"])
        assert abs(r["analytic_accepted_fraction"] - r["simulated_accepted_fraction"]) <= 0.01, (law, r["demand_point"])
        assert abs(r["analytic_tpot_p99_ms"] / r["simulated_tpot_p99_ms"] - 1.0) <= 0.05


def test_the_ninety_percent_point_sheds_and_misses_as_the_model_says(
    agreement_rows: dict[str, list[dict[str, Any]]],
) -> None:
    # at 54 rps against a capacity at SLO of about 49.2 the model admits the capacity and accepts about 91%
    r = agreement_rows["light"][-1]
    assert 0.90 < r["analytic_accepted_fraction"] < 0.92
    assert r["simulated_prefill_met_fraction"] >= 0.99 and r["simulated_decode_met_fraction"] >= 0.99
    assert "admission control drops" in r["note"]


def test_a_disaggregated_row_has_the_aggregated_rows_figures_and_each_pools() -> None:
    scenario = rackcost.load_scenario(DATA / "disaggregated.yaml")
    rows = rackcost.simulate(scenario, demand_point="peak", requests=2_000, replications=2)
    aggregated, pooled = rows
    assert pooled["layout"] == "disaggregated" and "layout" not in aggregated
    assert "analytic_tpot_p99_ms" in pooled
    for stem in ("accepted_fraction", "ttft_p99_ms"):
        for key in (f"analytic_{stem}", f"simulated_{stem}", f"simulated_{stem}_ci95_halfwidth"):
            assert key in aggregated and key in pooled
    pools = [r for r in rackcost.evaluate(scenario).records["pools"] if r["demand_point"] == "peak"]
    by_role = {r["pool"]: r for r in pools}
    assert pooled["prefill_replicas_serving"] == by_role["prefill"]["active_replicas"]
    assert pooled["decode_replicas_serving"] == by_role["decode"]["active_replicas"]
    assert pooled["analytic_prefill_utilization_fraction"] == pytest.approx(by_role["prefill"]["utilization_fraction"])
    assert pooled["transfer_ms"] == pytest.approx(by_role["prefill"]["transfer_ms"])
    assert all(r["warnings"] == "" for r in rows)
    # no miss in so short a run: the accepted share's interval is the rare-miss bound's, not a zero
    assert pooled["miss_units_with_miss"] == 0 and pooled["simulated_miss_upper_bound_fraction"] > 0
    assert pooled["simulated_accepted_fraction_ci95_halfwidth"] >= pooled["simulated_miss_upper_bound_fraction"] * 0.5
    assert "rare-miss bound" in pooled["ci_method"]


def test_one_slot_pools_in_tandem_reproduce_m_m_1_and_the_transfer() -> None:
    # M/M/1 (L. Kleinrock, Queueing Systems I, 1975, eq. 3.26 with FIFO): P(W > t) = rho exp(-mu (1 - rho) t).
    # The prefill pool is one slot of 1 s exponential prefills at 0.6 rps, the budget 1 s; the decode pool 1000
    # slots, so no request waits there; every request reaches decode exactly T_kv after its prefill.
    lam, budget, transfer = 0.6, 1.0, 0.25
    n = 60_000
    rng = np.random.default_rng(11)
    run = run_tandem_once(
        rng,
        SimFleet(1, fixed_model(1, 1.0, 1.0 + transfer), "pooled"),
        SimFleet(1, fixed_model(1000, 5.0, 0.0), "pooled"),
        RenewalArrivals(lam, n),
        transfer,
        TandemWork(np.ones(n), np.full(n, 100.0), 0.0),
    )
    stats = tandem_statistics(run, budget, n // 10, n // 10, np.full(1001, 0.02))
    exact = 1.0 - lam * math.exp(-(1.0 - lam) * budget)
    # standard error of a share over ~54,000 correlated requests at 60% load: about 0.004; 4 of them
    assert stats["accepted_fraction"] == pytest.approx(exact, abs=0.016)
    assert stats["decode_met_fraction"] == 1.0
    p, d = run.prefill, run.decode
    assert np.allclose(np.sort(d.arrival_s), np.sort(p.finish_s) + transfer)
    assert np.all(d.wait_s == 0.0)
    assert stats["tpot_p99_s"] == pytest.approx(0.02)


def test_the_capacity_check_brackets_the_pool_that_limits_against_its_share() -> None:
    # the fixture's prefill pool limits (49.2 rps at SLO against the decode pool's 50.5): within its 0.5% share at
    # 0.95x, beyond it at 1.05x (measured 0.0% and 4.9% with 100,000 requests); the decode pool, 2.6% above, meets
    # its share at both
    rows = capacity_check(rackcost.load_scenario(AGREEMENT), requests=60_000, replications=3, seed=2)
    (r,) = rows
    assert r["limiting_pool"] == "prefill" and r["layout"] == "disaggregated"
    assert r["analytic_capacity_at_slo_rps"] == pytest.approx(r["analytic_prefill_capacity_at_slo_rps"])
    assert r["analytic_prefill_capacity_at_slo_rps"] < r["analytic_decode_capacity_at_slo_rps"]
    assert r["miss_target_fraction"] == pytest.approx(0.005)
    assert r["capacity_within_bracket"], r["verdict"]
    assert r["verdict"].startswith("prefill pool: ")


@settings(max_examples=20, deadline=None)
@given(
    p_replicas=st.integers(1, 3),
    p_slots=st.integers(1, 4),
    d_replicas=st.integers(1, 3),
    d_slots=st.integers(1, 6),
    load=st.floats(0.2, 1.3),
    transfer_s=st.floats(0.0, 0.5),
    routing=st.sampled_from(["pooled", "least_outstanding", "random", "round_robin"]),
    seed=st.integers(0, 2**16),
)
def test_the_tandem_keeps_its_stages_in_order_and_accepts_only_what_both_pools_pass(
    p_replicas: int,
    p_slots: int,
    d_replicas: int,
    d_slots: int,
    load: float,
    transfer_s: float,
    routing: str,
    seed: int,
) -> None:
    # invariants of any sample path: a request reaches decode exactly T_kv after its prefill ends, starts decoding
    # no earlier, and is accepted only when it met both pools' parts; shares lie in [0, 1]
    n = 400
    rate = load * p_replicas * p_slots / 0.5
    rng = np.random.default_rng(seed)
    work = rng.exponential(1.0, n)
    run = run_tandem_once(
        rng,
        SimFleet(p_replicas, fixed_model(p_slots, 0.5, 0.5 + transfer_s), routing),
        SimFleet(d_replicas, fixed_model(d_slots, 1.0, 0.0), routing),
        RenewalArrivals(rate, n),
        transfer_s,
        TandemWork(work, work * 100.0, 1.0),
    )
    p, d, pos = run.prefill, run.decode, run.decode_position
    reached = pos >= 0
    assert np.all(reached == ~p.dropped)
    assert np.allclose(d.arrival_s[pos[reached]], p.finish_s[reached] + transfer_s)
    assert np.all(d.start_s >= d.arrival_s - 1e-12)
    assert np.all(np.diff(d.arrival_s) >= 0)
    stats = tandem_statistics(run, 0.25, n // 10, n // 10, np.full(d_slots + 1, 0.02))
    for key in ("accepted_fraction", "prefill_met_fraction", "decode_met_fraction", "prefill_utilization_fraction"):
        assert 0.0 <= stats[key] <= 1.0
    assert stats["accepted_fraction"] <= min(stats["prefill_met_fraction"], stats["decode_met_fraction"]) + 1e-12
    assert stats["ttft_p99_s"] >= 0.5 + transfer_s - 1e-12


def test_refusals_name_the_pools_and_what_to_do() -> None:
    scenario = rackcost.load_scenario(DATA / "disaggregated.yaml")
    with pytest.raises(ValueError, match=r"systems\[1\]\.pools.*--rate-swing"):
        rackcost.simulate(scenario, requests=200, replications=2, rate_swing=(0.2, 60.0))
    with pytest.raises(ValueError, match=r"output_lengths.*mean.*workload.output_tokens_per_request"):
        rackcost.simulate(scenario, requests=200, replications=2, output_lengths=LengthLaw("gamma", 400.0, 1.0))
    with pytest.raises(ValueError, match=r"output_lengths.*cv.*output_tokens_cv_fraction"):
        rackcost.simulate(scenario, requests=200, replications=2, output_lengths=LengthLaw("gamma", 500.0, 0.5))
    with pytest.raises(ValueError, match=r"output_lengths applies to disaggregated systems"):
        rackcost.simulate(scenario, system="A", requests=200, replications=2, output_lengths=LengthLaw("fixed", 500.0))


def test_the_command_line_prints_both_pools_and_a_csv_with_their_columns() -> None:
    from typer.testing import CliRunner

    from rackcost.cli import app

    runner = CliRunner()
    env = {"COLUMNS": "200", "NO_COLOR": "1"}
    path = str(DATA / "disaggregated.yaml")
    table = runner.invoke(app, ["simulate", path, "--point", "quiet", "--requests", "400"], env=env)
    assert table.exit_code == 0, table.output
    assert "2 prefill replicas x 8 slots, 4 decode replicas x 128 slots" in table.output
    assert "decode pool: share finding a free slot" in table.output
    out = runner.invoke(app, ["simulate", path, "--point", "quiet", "--requests", "400", "--format", "csv"], env=env)
    assert out.exit_code == 0, out.output
    rows = list(csv.DictReader(io.StringIO(out.stdout)))
    assert [r["system"] for r in rows] == ["A", "A disaggregated"]
    assert rows[0]["prefill_replicas_serving"] == "" and rows[1]["prefill_replicas_serving"] == "2"
    assert rows[1]["layout"] == "disaggregated" and rows[1]["analytic_decode_met_fraction"] != ""


def test_a_fleet_whose_warm_start_dwarfs_the_requests_is_refused_with_the_estimate(tmp_path: Path) -> None:
    """``disaggregated.yaml`` at 20,000 requests/s under random routing with 3,000 requests: 1 min 42 s, nearly all
    of it the warm start of the decode pool's replicas (each replica's steady occupancy, in each replication), never
    measured. The work is estimated from the replicas and slots before a request is drawn, and refused with it."""
    from typer.testing import CliRunner

    from rackcost.cli import app
    from rackcost.model.sim.sim_work import START_WORK_FLOOR, SimulationTooLarge

    text = (DATA / "disaggregated.yaml").read_text(encoding="utf-8")
    text = text.replace("arrival_rps: 20,", "arrival_rps: 20000,").replace(
        "idle_policy: powered", "idle_policy: powered\n  routing: random"
    )
    sc = rackcost.scenario_from_yaml(text, "disaggregated.yaml")
    with pytest.raises(SimulationTooLarge) as refused:
        rackcost.simulate(sc, system="A disaggregated", demand_point="peak", requests=3000)
    message = str(refused.value)
    assert message.startswith("A disaggregated at peak: about ") and "the 3,000 asked" in message, message
    assert "decode replicas x 128 slots" in message and "in each of 5 replications" in message, message
    # each of about 4,500 decode replicas holds about 70 requests (55% of 128 slots), in each of 5 replications
    fleet = int(message.split("ask for at least ")[1].split(" ")[0].replace(",", ""))
    assert 1_000_000 < fleet < 3_000_000 and fleet > START_WORK_FLOOR, message
    path = tmp_path / "busy.yaml"
    path.write_text(text, encoding="utf-8")
    result = CliRunner().invoke(app, ["simulate", str(path), "--point", "peak", "--requests", "3000"])  # A too
    assert result.exit_code == 1 and "ask for at least" in result.output, result.output
    assert "Traceback" not in result.output and len(result.output.strip().splitlines()) == 1, result.output
