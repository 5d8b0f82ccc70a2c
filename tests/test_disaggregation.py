"""Disaggregated prefill/decode serving (issue 23, item 5): closed forms, properties and bad inputs.

Sources of the closed forms: Erlang C by the Erlang B recursion ``B(k) = a B(k-1) / (k + a B(k-1))`` and
``C = k B / (k - a (1 - B))`` (Kleinrock 1975, *Queueing Systems* Vol. 1, Eqs. 3.40 and 3.46); the M/M/k wait tail
``P(W > t) = C exp(-(k / S - lambda) t)`` (ibid., Eq. 3.47 for the waiting time); the transfer time bytes /
bandwidth. Both are written out here by hand, not with the library's functions.
"""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import rackcost
from rackcost.analysis.montecarlo import evaluate_samples
from rackcost.cli import app
from rackcost.evaluation.chain import evaluate_systems
from rackcost.importers import read_inferencex, read_inferencex_paths
from rackcost.model.fleets.disaggregation import (
    joint_accepted_rps,
    kv_transfer_ms,
    pool_replicas,
    prefill_budget_s,
    split_miss_target,
)
from rackcost.model.fleets.pool_fleet import pool_slo
from rackcost.model.queues import routing
from rackcost.scenario.loading import scenario_from_dict
from rackcost.scenario.unpack import slo_inputs
from rackcost.scenario.unpack_pools import transfer_bytes_per_request

DATA = Path(__file__).resolve().parent / "data"
SCENARIO = DATA / "disaggregated.yaml"
BASE: dict[str, Any] = yaml.safe_load(SCENARIO.read_text(encoding="utf-8"))
runner = CliRunner()


def erlang_c(k: int, a: float) -> float:
    """Erlang C of ``k`` servers at ``a`` erlangs by the Erlang B recursion (Kleinrock 1975, Eq. 3.46)."""
    b = 1.0
    for j in range(1, k + 1):
        b = a * b / (j + a * b)
    return k * b / (k - a * (1.0 - b))


def wait_tail(k: int, arrival_rps: float, service_s: float, budget_s: float) -> float:
    """``P(W > t)`` of M/M/k: ``C exp(-(k / S - lambda) t)``."""
    return erlang_c(k, arrival_rps * service_s) * math.exp(-(k / service_s - arrival_rps) * budget_s)


def fewest(meets, start: int) -> int:
    """The smallest integer from ``start`` for which ``meets`` holds (a count by hand, one by one)."""
    n = start
    while not meets(n):
        n += 1
    return n


def scenario(edit=None) -> rackcost.Scenario:
    data = copy.deepcopy(BASE)
    if edit is not None:
        edit(data)
    return scenario_from_dict(data)


def disaggregated_only(data: dict) -> None:
    """The disaggregated system alone (faster to evaluate many times)."""
    data["systems"] = [data["systems"][1]]


def single_point_pools(data: dict, bandwidth: float = 50.0, kv_bytes: float = 0.0) -> None:
    """One point per pool: a prefill of 500 ms alone, a batch of 10 decoding at 20 ms per token."""
    disaggregated_only(data)
    pools = data["systems"][0]["pools"]
    pools["prefill"]["points"] = [{"concurrency": 1, "prefill_ms": 500}]
    pools["decode"]["points"] = [{"concurrency": 10, "tpot_ms": 20}]
    pools["kv_transfer"] = {"bandwidth_gb_per_s": bandwidth, "kv_bytes_per_token": kv_bytes}


# ---- closed forms ------------------------------------------------------------------------------------------------


def test_transfer_time_is_the_input_kv_bytes_over_the_bandwidth() -> None:
    # 1,000 input tokens x 327,680 B (Llama 3.3 70B at BF16) = 327.68 MB over 50 GB/s = 6.5536 ms
    assert float(kv_transfer_ms(1000 * 327680, 50.0)) == pytest.approx(327.68e6 / 50e9 * 1e3, rel=1e-12)
    result = rackcost.evaluate(scenario(disaggregated_only))
    (system,) = result.records["systems"]
    prefill = [r for r in result.records["pools"] if r["pool"] == "prefill"]
    assert prefill[0]["transfer_ms"] == pytest.approx(6.5536, rel=1e-12)
    # the system's TTFT at its point is the prefill pool's prefill time plus the transfer
    assert system["ttft_ms"] == pytest.approx(prefill[0]["prefill_ms"] + 6.5536, rel=1e-12)


def test_the_transfer_sends_the_mla_latent_of_workload_architecture() -> None:
    def mla(data: dict) -> None:
        data["workload"]["architecture"] = {"layers": 61, "kv_lora_rank": 512, "qk_rope_head_dim": 64}
        data["systems"][1]["pools"]["kv_transfer"] = {"bandwidth_gb_per_s": 25.0}

    sc = scenario(mla)
    # DeepSeek-V3 report (arXiv 2412.19437), MLA: 61 x (512 + 64) x 2 bytes = 70,272 B per token at BF16
    assert transfer_bytes_per_request(sc, sc.systems[1]) == 1000 * 61 * (512 + 64) * 2


def test_pool_replicas_by_erlang_c_for_a_tiny_case() -> None:
    # one-slot replicas, 1 request/s held 1 s, at most 10% may miss
    assert erlang_c(2, 1.0) == pytest.approx(1 / 3) and erlang_c(3, 1.0) == pytest.approx(1 / 11)
    # decode pool, no wait budget: C(2, 1) = 1/3 > 0.1, C(3, 1) = 1/11 <= 0.1
    assert int(pool_replicas(1.0, 1.0, 1.0, 0.0, 0.1)) == 3
    # prefill pool with a 1 s budget: (1/3) e^-1 = 0.123 > 0.1, (1/11) e^-2 <= 0.1: 3; with 2 s, (1/3) e^-2 = 0.045
    assert wait_tail(2, 1.0, 1.0, 1.0) > 0.1 >= wait_tail(3, 1.0, 1.0, 1.0)
    assert int(pool_replicas(1.0, 1.0, 1.0, 1.0, 0.1)) == 3
    assert wait_tail(2, 1.0, 1.0, 2.0) <= 0.1 and int(pool_replicas(1.0, 1.0, 1.0, 2.0, 0.1)) == 2


def test_same_hardware_and_no_transfer_reduce_to_the_figures_by_hand() -> None:
    """Two single-point pools on system A's hardware, no transfer: each pool's replicas, the system's TTFT, capex
    and accepted requests at peak, from Erlang C by hand."""
    result = rackcost.evaluate(scenario(single_point_pools))
    lam, osl = 20.0, 500  # peak; the workload's output tokens
    miss_p, miss_d = split_miss_target(0.01)  # half the 1% each
    s_p, budget_p = 0.5, 2.0 - 0.5  # the 500 ms prefill holds its slot; TTFT limit 2 s less prefill, no transfer
    s_d = osl * 20 / 1000  # OSL x TPOT = 10 s on a slot of a 10-slot decode replica
    n_p = fewest(lambda n: n > lam * s_p and wait_tail(n, lam, s_p, budget_p) <= miss_p, 1)
    n_d = fewest(lambda n: 10 * n > lam * s_d and erlang_c(10 * n, lam * s_d) <= miss_d, 1)
    assert (n_p, n_d) == (12, 24)  # by hand: C(11, 10) e^-3 = 0.034, C(12, 10) e^-6 = 0.0011; C(240, 200) < 0.5%
    (system,) = result.records["systems"]
    assert system["slo_replicas"] == system["provisioned_replicas"] == n_p + n_d
    assert system["accelerators"] == 8 * (n_p + n_d)
    assert system["ttft_ms"] == 500.0 and system["tpot_ms"] == 20.0
    assert system["capex_usd"] == pytest.approx((n_p + n_d) * (8 * 30_000 + 60_000), rel=1e-12)
    peak = next(p for p in result.records["points"] if p["demand_point"] == "peak")
    accepted = lam * (1 - wait_tail(n_p, lam, s_p, budget_p)) * (1 - erlang_c(10 * n_d, lam * s_d))
    assert peak["accepted_rps"] == pytest.approx(accepted, rel=1e-9)
    pools = {(r["pool"], r["demand_point"]): r for r in result.records["pools"]}
    assert pools["prefill", "peak"]["provisioned_replicas"] == n_p and pools["decode", "peak"]["slo_replicas"] == n_d
    assert pools["prefill", "peak"]["queueing_budget_ms"] == pytest.approx(1500.0)
    assert pools["decode", "peak"]["queueing_budget_ms"] == 0.0
    # the pools' cost lines add up to the system's
    point = {p["demand_point"]: p for p in result.records["points"]}
    for name in ("quiet", "normal", "peak"):
        both = pools["prefill", name]["total_usd_per_hour"] + pools["decode", name]["total_usd_per_hour"]
        assert both == pytest.approx(point[name]["total_usd_per_hour"], rel=1e-12)
        shares = pools["prefill", name]["cost_share_fraction"] + pools["decode", name]["cost_share_fraction"]
        assert shares == pytest.approx(1.0, rel=1e-12)


def test_the_end_to_end_limit_narrows_the_prefill_budget() -> None:
    # 2 s TTFT limit, 300 ms prefill, 12 ms transfer: 1.688 s; 500 tokens at 20 ms take 9.98 s more, so a 12 s
    # end-to-end limit leaves 12 - 0.312 - 9.98 = 1.708 s (the TTFT limit binds) and an 11.5 s one 1.208 s
    assert float(prefill_budget_s(2000.0, 300.0, 12.0, 20.0, 500)) == pytest.approx(1.688)
    assert float(prefill_budget_s(2000.0, 300.0, 12.0, 20.0, 500, 12_000.0)) == pytest.approx(1.688)
    assert float(prefill_budget_s(2000.0, 300.0, 12.0, 20.0, 500, 11_500.0)) == pytest.approx(1.208)


def test_aggregated_scenarios_have_no_pools_table() -> None:
    result = rackcost.evaluate(rackcost.load_scenario(DATA / "two_systems.yaml"))
    assert "pools" not in result.to_dict() and result.pools.empty
    assert result.to_csv("pools").startswith("system,pool,demand_point")


def test_the_claim_table_compares_aggregated_and_disaggregated_serving_of_the_same_model() -> None:
    result = rackcost.evaluate(rackcost.load_scenario(SCENARIO))
    rows = result.records["comparison"]
    assert {r["system"] for r in rows} == {"A disaggregated"} and {r["baseline"] for r in rows} == {"A"}
    by_metric = {r["metric"]: r for r in rows}
    blended = by_metric["blended cost per accepted request over the day"]
    systems = {s["system"]: s for s in result.records["systems"]}
    assert blended["system_value"] == systems["A disaggregated"]["blended_usd_per_accepted_request"]
    assert any("serves disaggregated" in w and "A aggregated" in w for w in result.warnings)
    assert not any("different model" in w for w in result.warnings)


def test_a_degenerate_sample_axis_gives_the_deterministic_figures() -> None:
    sc = rackcost.load_scenario(SCENARIO)
    result = rackcost.evaluate(sc)
    samples = evaluate_samples(sc, {}, 3)["A disaggregated"]
    expected = [p["usd_per_accepted_request"] for p in result.records["points"] if p["system"] == "A disaggregated"]
    assert np.array_equal(samples["usd_per_accepted_request"], np.tile(expected, (3, 1)))


def test_a_sampled_capex_moves_both_pools_that_take_the_systems_costs() -> None:
    sc = rackcost.load_scenario(SCENARIO)
    base = evaluate_samples(sc, {}, 1)["A disaggregated"]["capex_usd@system"][0]
    doubled = evaluate_samples(sc, {"systems[1].costs.capex_usd_per_accelerator": np.array([60_000.0])}, 1)
    replicas = rackcost.evaluate(sc).records["systems"][1]["provisioned_replicas"]
    assert doubled["A disaggregated"]["capex_usd@system"][0] == pytest.approx(base + replicas * 8 * 30_000)


# ---- properties --------------------------------------------------------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(
    st.floats(0.5, 200.0),
    st.floats(1.0, 20.0),
    st.floats(100_000.0, 2_000_000.0),
)
def test_a_faster_link_never_raises_ttft_or_cost(bandwidth: float, faster: float, kv_bytes: float) -> None:
    """TTFT before queueing and every cost fall or stay; the p99 TTFT with queueing may rise, as the prefill pool is
    sized to spend the budget the link frees on fewer replicas (docs/model.md)."""
    assume(1000 * kv_bytes / (bandwidth * 1e9) * 1e3 < 1400.0)  # the slow link leaves the 500 ms prefill a budget
    slow = rackcost.evaluate(scenario(lambda d: single_point_pools(d, bandwidth, kv_bytes)))
    fast = rackcost.evaluate(scenario(lambda d: single_point_pools(d, bandwidth * faster, kv_bytes)))
    (s,), (f,) = slow.records["systems"], fast.records["systems"]
    assert f["ttft_ms"] <= s["ttft_ms"]
    assert f["blended_usd_per_accepted_request"] <= s["blended_usd_per_accepted_request"] * (1 + 1e-12)
    for sp, fp in zip(slow.records["points"], fast.records["points"], strict=True):
        assert fp["ttft_ms"] <= sp["ttft_ms"]
        assert fp["total_usd_per_hour"] <= sp["total_usd_per_hour"] * (1 + 1e-12)


@settings(max_examples=40, deadline=None)
@given(
    st.floats(0.01, 1000.0),
    st.floats(1.0, 5.0),
    st.floats(0.05, 60.0),
    st.integers(1, 64),
    st.floats(1e-3, 3.0),  # a prefill budget (the decode pool's, 0, is taken beside it)
    st.floats(0.001, 0.2),
)
def test_more_demand_never_needs_fewer_replicas_in_either_pool(
    rps: float, more: float, service_s: float, slots: int, budget_s: float, miss: float
) -> None:
    # the decode pool (no budget) and the prefill pool (a budget) at the same rates
    for budget in (0.0, budget_s):
        low = int(pool_replicas(rps, service_s, slots, budget, miss))
        high = int(pool_replicas(rps * more, service_s, slots, budget, miss))
        assert high >= low


@settings(max_examples=15, deadline=None)
@given(st.floats(1.0, 4.0))
def test_more_demand_never_needs_fewer_replicas_in_either_pool_of_a_system(more: float) -> None:
    def scaled(data: dict) -> None:
        disaggregated_only(data)
        for d in data["demand"]:
            d["arrival_rps"] *= more

    base = {r["pool"]: r["slo_replicas"] for r in rackcost.evaluate(scenario(disaggregated_only)).records["pools"]}
    grown = {r["pool"]: r["slo_replicas"] for r in rackcost.evaluate(scenario(scaled)).records["pools"]}
    assert grown["prefill"] >= base["prefill"] and grown["decode"] >= base["decode"]


@settings(max_examples=25, deadline=None)
@given(st.lists(st.floats(0.5, 200.0), min_size=3, max_size=3), st.sampled_from(["quiet", "normal", "peak"]))
def test_accepted_never_exceeds_offered(rates: list[float], sizing: str) -> None:
    def edit(data: dict) -> None:
        disaggregated_only(data)
        for d, rate in zip(data["demand"], rates, strict=True):
            d["arrival_rps"] = rate
        data["fleet"]["sizing_demand_point"] = sizing  # the other points may be above capacity

    result = rackcost.evaluate(scenario(edit))
    for p in result.records["points"]:
        assert 0.0 <= p["accepted_rps"] <= p["admitted_rps"] * (1 + 1e-12) <= p["offered_rps"] * (1 + 1e-12)
    for r in result.records["pools"]:
        assert 0.0 <= r["met_fraction"] <= 1.0


def test_joint_acceptance_lies_between_the_union_bound_and_admitted() -> None:
    accepted = float(joint_accepted_rps(100.0, 0.004, 0.006))
    assert 100.0 * (1 - 0.004 - 0.006) <= accepted <= 100.0


# ---- bad inputs, through the command line ------------------------------------------------------------------------


def _write(tmp_path: Path, edit) -> Path:
    data = copy.deepcopy(BASE)
    edit(data)
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def _pools(data: dict) -> dict:
    return data["systems"][1]["pools"]


BAD = {
    "a prefill pool with no decode pool": (
        lambda d: _pools(d).pop("decode"),
        ["systems[1].pools.decode", "a prefill pool needs a decode pool"],
    ),
    "a decode pool with no prefill pool": (
        lambda d: _pools(d).pop("prefill"),
        ["systems[1].pools.prefill", "a decode pool needs a prefill pool"],
    ),
    "no KV transfer": (lambda d: _pools(d).pop("kv_transfer"), ["systems[1].pools.kv_transfer", "bandwidth_gb_per_s"]),
    "performance and pools": (
        lambda d: d["systems"][1].update(performance=d["systems"][0]["performance"]),
        ["systems[1].performance", "remove performance"],
    ),
    "no KV bytes per token anywhere": (
        lambda d: _pools(d)["kv_transfer"].pop("kv_bytes_per_token"),
        ["systems[1].pools.kv_transfer", "KV bytes per token"],
    ),
    "fleet.replicas with pools": (lambda d: d["fleet"].update(replicas=4), ["fleet.replicas", "disaggregated"]),
    "a prefill point with both forms": (
        lambda d: _pools(d)["prefill"]["points"][0].update(input_tokens_per_s=1000),
        ["systems[1].pools.prefill.points[0]", "exactly one of prefill_ms and input_tokens_per_s"],
    ),
    "a decode point without TPOT": (
        lambda d: _pools(d)["decode"]["points"][0].pop("tpot_ms"),
        ["systems[1].pools.decode.points[0]", "tpot_ms"],
    ),
    "a negative bandwidth": (
        lambda d: _pools(d)["kv_transfer"].update(bandwidth_gb_per_s=-5),
        ["systems[1].pools.kv_transfer.bandwidth_gb_per_s", "-5"],
    ),
    "roles that do not add up": (
        lambda d: d["systems"][0]["performance"].update(
            roles={"prefill": {"workers": 1, "accelerators": 4}, "decode": {"workers": 1, "accelerators": 8}}
        ),
        ["systems[0].performance.roles", "4 prefill + 8 decode", "is 8"],
    ),
}


@pytest.mark.parametrize("command", ["validate", "evaluate"])
@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_pools_exit_1_at_their_yaml_path_without_traceback(tmp_path: Path, command: str, case: str) -> None:
    edit, must_say = BAD[case]
    path = _write(tmp_path, edit)
    result = runner.invoke(app, [command, str(path)])
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output
    words = " ".join(result.stderr.split())
    for text in [str(path), *must_say]:
        assert text in words, (text, words)


def test_a_pool_that_cannot_meet_its_part_of_the_slo_leaves_the_system_unserved(tmp_path: Path) -> None:
    # every prefill takes longer than the 2 s TTFT limit: the system is left out, the aggregated one evaluated
    path = _write(tmp_path, lambda d: _pools(d)["prefill"].update(points=[{"concurrency": 1, "prefill_ms": 2500}]))
    result = runner.invoke(app, ["evaluate", str(path), "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [(u["system"], u["path"]) for u in data["unserved"]] == [("A disaggregated", "systems[1].pools")]
    assert [s["system"] for s in data["systems"]] == ["A"]


def test_evaluate_writes_the_pools_table_as_csv_and_prints_it() -> None:
    result = runner.invoke(app, ["evaluate", str(SCENARIO), "--format", "csv", "--table", "pools"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith("system,pool,demand_point") and len(lines) == 1 + 2 * 3
    table = runner.invoke(app, ["evaluate", str(SCENARIO)], env={"COLUMNS": "200"})
    assert table.exit_code == 0 and "prefill and decode pools" in table.stdout


# ---- InferenceX's disaggregated rows, per role, and reconcile -----------------------------------------------------

NEWER = DATA / "inferencex_fixtures" / "newer"
DISAGG = NEWER / "agg_moe1t_8k1k_fp4_dynamo-sglang_disagg-true_spec-none_conc64_gb200-fx01.json"


def _pasted(performance: dict) -> rackcost.Scenario:
    from rackcost.analysis.validation.inferencex import pasted_scenario
    from rackcost.analysis.validation.shared_files import InferenceXCurve

    (curve,) = read_inferencex_paths([DISAGG]).curves
    return pasted_scenario(InferenceXCurve(curve.label, performance, curve.provenance, 12))


def test_a_disaggregated_row_imports_its_prefill_and_decode_workers_and_gpus() -> None:
    (curve,) = read_inferencex_paths([DISAGG]).curves
    # the fixture: prefill_num_workers 1 on num_prefill_gpu 4, decode_num_workers 1 on num_decode_gpu 8
    assert curve.performance["roles"] == {
        "prefill": {"workers": 1, "accelerators": 4},
        "decode": {"workers": 1, "accelerators": 8},
    }
    raw = json.loads(DISAGG.read_text(encoding="utf-8"))
    two = read_inferencex([("x.json", json.dumps({**raw, "decode_num_workers": 2}).encode())]).curves[0]
    assert two.performance["roles"]["decode"] == {"workers": 2, "accelerators": 8}
    uneven = read_inferencex([("x.json", json.dumps({**raw, "prefill_num_workers": 3}).encode())])
    assert not uneven.curves and uneven.skipped[0].field == "prefill_num_workers"
    # the imported curve loads: its roles add up to the 12 GPUs of the replica
    sc = _pasted(curve.performance)
    assert sc.systems[0].hardware_blocks()[0].roles is not None


def test_reconcile_charges_output_tokens_to_the_decode_gpus_of_the_roles() -> None:
    from rackcost.analysis.reconcile import reconcile

    (curve,) = read_inferencex_paths([DISAGG]).curves
    with_count = reconcile(_pasted(curve.performance), "imported", 2.0)
    roles_only = {k: v for k, v in curve.performance.items() if k != "decode_accelerators_per_replica"}
    from_roles = reconcile(_pasted(roles_only), "imported", 2.0)
    raw = json.loads(DISAGG.read_text(encoding="utf-8"))
    for r in (with_count, from_roles):
        assert r.output_tokens_per_s_per_gpu == pytest.approx(raw["output_tput_per_gpu"], rel=1e-12)  # 2400 / 8
        assert "decode GPU" in r.output_basis


def test_reconcile_refuses_a_modelled_disaggregated_system_and_says_why() -> None:
    result = runner.invoke(app, ["reconcile", str(SCENARIO), "--system", "A disaggregated", "--usd-per-gpu-hour", "2"])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "disaggregated (pools)" in " ".join(result.stderr.split())


def test_site_splits_the_budget_between_the_pools_for_the_most_capacity() -> None:
    scenario = rackcost.load_scenario(SCENARIO)
    rows = {r["system"]: r for r in rackcost.site_budget(scenario, 1000.0)}
    aggregated, pooled = rows["A"], rows["A disaggregated"]
    assert aggregated["prefill_replicas"] is None and aggregated["decode_replicas"] is None
    n_p, n_d = pooled["prefill_replicas"], pooled["decode_replicas"]
    assert n_p >= 1 and n_d >= 1 and n_p + n_d == pooled["max_replicas"]
    assert pooled["rated_it_kw"] <= 1000.0
    # the system's capacity is the smaller pool's, each pool at its own point, part of the SLO and service time
    outcome = next(o for o in evaluate_systems(scenario) if o.inputs.name == "A disaggregated")
    slo = slo_inputs(scenario)

    def capacity(role: str, n: int) -> float:
        point, fleet = getattr(outcome.chosen, role), outcome.fleet.pool(role)
        miss = pool_slo(slo, outcome.inputs.pools, role).miss_target_fraction
        return float(
            routing.capacity_at_slo("pooled", n, point.concurrency, fleet.service_s[0, 0], point.budget_s, miss)
        )

    both = min(capacity("prefill", n_p), capacity("decode", n_d))
    assert pooled["capacity_at_slo_rps"] == pytest.approx(both, rel=1e-12)
    # moving one replica between the pools (the same power here: both pools' replicas are alike) carries no more
    assert min(capacity("prefill", n_p + 1), capacity("decode", n_d - 1)) <= both
    assert min(capacity("prefill", n_p - 1), capacity("decode", n_d + 1)) <= both
    result = runner.invoke(app, ["site", str(SCENARIO), "--max-it-power-kw", "1000"])
    assert result.exit_code == 0, result.output
    assert f"{n_p} prefill + {n_d} decode" in " ".join(result.output.split())


def test_site_says_when_the_budget_holds_no_pair_of_pools() -> None:
    result = runner.invoke(app, ["site", str(SCENARIO), "--max-it-power-kw", "10"])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "holds no pair of a prefill and a decode replica of A disaggregated" in " ".join(result.stderr.split())
