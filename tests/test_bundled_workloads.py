"""The two bundled scenarios of issue 23, item 7: a request-class mix and aggregated vs disaggregated serving.

scenarios/deepseek-r1-b200-vs-gb200-request-classes.yaml serves chat, reasoning and agentic requests on the InferenceX
DeepSeek R1 curves; scenarios/deepseek-r1-b200-aggregated-vs-disaggregated.yaml serves the InferenceX B200 runs of
2026-06-12 aggregated and as a prefill pool and a decode pool. The tests every bundled file passes (golden results,
sources, realistic demand, costs in the published band, every app page, the report) run on them in
test_scenarios.py and the others; these check what each file is there to show, and (``data``) that its figures are
the published ones.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

import rackcost
from rackcost.scenario.loading import bundled_scenario_path

CLASSES = "deepseek-r1-b200-vs-gb200-request-classes"
DISAGG = "deepseek-r1-b200-aggregated-vs-disaggregated"
MAX_UTILIZATION_FRACTION = 0.9
"""The busiest a demand point may be: issue 23 checks the analytic queue against the simulator up to 90% [-]."""

# docs/model.md, "Request classes" and "Disaggregated prefill and decode": the warnings these files are expected
# to give, each explained in scenarios' figures or README.md; anything else is new and must be read.
EXPECTED_WARNINGS = (
    "curve measured at ISL/OSL 8192/1024, the request classes' mean is",  # classes scale the 8K/1K curve
    "the rack power limit (40 kW) allows only 2 of 4 node slots",  # DGX B200 in a 40 kW air-cooled rack
    "the load puts fewer requests in service per replica than the lowest measured concurrency",  # quiet
    "concurrency not given; derived by Little's law",  # the InferenceX 8K/1K curves give no concurrency
    "different provenance class (assumption vs independent)",  # the pools are a modelled configuration
    "the comparison is of the two ways to serve the model",  # aggregated against disaggregated
    "is within 1% of the limit (2000 ms)",  # the aggregated TTFT reaches the limit by interpolation
    "its replicas, racks, power and costs are both pools' together",  # the disaggregated system's rows
)


def _evaluate(name: str):
    return rackcost.evaluate(rackcost.load_scenario(bundled_scenario_path(name)))


@pytest.fixture(scope="module")
def classes_result():
    return _evaluate(CLASSES)


@pytest.fixture(scope="module")
def disagg_result():
    return _evaluate(DISAGG)


@pytest.mark.parametrize("name", [CLASSES, DISAGG])
def test_every_system_is_served_below_ninety_percent_with_only_the_explained_warnings(name: str) -> None:
    result = _evaluate(name)
    assert result.unserved == []
    points = result.records["points"]
    assert {p["status"] for p in points} == {"ok"}, {p["status"] for p in points}
    assert max(p["utilization_fraction"] for p in points) <= MAX_UTILIZATION_FRACTION
    for pool in result.records.get("pools", []):
        assert pool["utilization_fraction"] <= MAX_UTILIZATION_FRACTION, pool
    unexplained = [w for w in result.warnings if not any(known in w for known in EXPECTED_WARNINGS)]
    assert unexplained == []


def test_the_mix_is_three_sourced_classes_whose_means_make_the_workloads(classes_result) -> None:
    scenario = rackcost.load_scenario(bundled_scenario_path(CLASSES))
    classes = scenario.workload.classes
    assert [c.name for c in classes] == ["chat", "reasoning", "agentic"]
    # the share-weighted means: 0.6 x 167.8 + 0.25 x 921.6 + 0.15 x 81,082 input; 0.6 x 517.9 + 0.25 x 7,372.8 +
    # 0.15 x 761 output (the chat input is the LMSYS CDF x 69.5 / 284, whose mean is 685.7 x 0.2447 = 167.8)
    assert scenario.workload.input_tokens_per_request == pytest.approx(12_493.4, abs=0.1)
    assert scenario.workload.output_tokens_per_request == pytest.approx(2_268.1, abs=0.1)
    assert classes[2].slo is not None and classes[2].slo.ttft_limit_ms == 6000  # MLPerf Llama-3.1-405B server


def test_every_class_is_accepted_and_reasoning_holds_most_of_the_slot_time(classes_result) -> None:
    rows = classes_result.records["classes"]
    assert {(r["system"], r["demand_point"], r["class"]) for r in rows} == {
        (s, p, c)
        for s in ("DGX B200", "GB200 NVL72")
        for p in ("quiet", "normal", "peak")
        for c in ("chat", "reasoning", "agentic")
    }
    assert min(r["accepted_rps"] / r["offered_rps"] for r in rows) >= 0.99
    for row in rows:
        if row["class"] == "reasoning":  # 25% of requests, 7,373 output tokens each
            assert row["slot_time_fraction"] > 0.75
    # the mix's cost per request is the classes' accepted-weighted costs (docs/model.md: cost shared by slot time)
    points = {(p["system"], p["demand_point"]): p for p in classes_result.records["points"]}
    for (system, point), p in points.items():
        mine = [r for r in rows if r["system"] == system and r["demand_point"] == point]
        assert sum(r["total_usd_per_hour"] for r in mine) == pytest.approx(p["total_usd_per_hour"], rel=1e-9)


def test_disaggregation_frees_the_decode_batch_from_the_ttft_limit(disagg_result) -> None:
    systems = {s["system"]: s for s in disagg_result.records["systems"]}
    aggregated, disaggregated = systems["DGX B200 aggregated"], systems["DGX B200 disaggregated"]
    # aggregated: the measured TTFT (1,667 ms at 128, 2,403 at 256) caps the batch below 256 under the 2,000 ms limit
    assert 128 < aggregated["concurrency"] < 256
    assert aggregated["ttft_ms"] <= 2000
    # disaggregated: the decode pool runs the measured curve's largest batch (TPOT 65.8 ms <= 80 ms)
    assert disaggregated["concurrency"] == 256
    assert disaggregated["blended_usd_per_accepted_request"] < aggregated["blended_usd_per_accepted_request"]


def test_the_kv_transfer_is_the_mla_cache_over_one_nic(disagg_result) -> None:
    # docs/model.md: T_kv = ISL x B_token / bandwidth; DeepSeek R1's MLA latent is (512 + 64) values per token and
    # layer (DeepSeek-V3 report), 61 layers, 2 bytes each: 70,272 bytes per token; ISL 512.217 (the runs' mean)
    bytes_per_token = 61 * (512 + 64) * 2
    expected_ms = 512.217 * bytes_per_token / 50e9 * 1e3
    prefill = [p for p in disagg_result.records["pools"] if p["pool"] == "prefill"]
    assert prefill and all(p["transfer_ms"] == pytest.approx(expected_ms, rel=1e-9) for p in prefill)
    assert expected_ms == pytest.approx(0.7199, abs=1e-4)


def test_the_pools_add_up_to_the_disaggregated_system(disagg_result) -> None:
    points = {p["demand_point"]: p for p in disagg_result.records["points"] if p["system"] == "DGX B200 disaggregated"}
    for name, point in points.items():
        pools = [p for p in disagg_result.records["pools"] if p["demand_point"] == name]
        assert {p["pool"] for p in pools} == {"prefill", "decode"}
        assert sum(p["total_usd_per_hour"] for p in pools) == pytest.approx(point["total_usd_per_hour"], rel=1e-9)
        assert sum(p["cost_share_fraction"] for p in pools) == pytest.approx(1.0, rel=1e-12)


# ---- the figures are the published ones (real data) --------------------------------------------------------------


def _yaml(name: str) -> dict:
    return yaml.safe_load(bundled_scenario_path(name).read_text(encoding="utf-8"))


@pytest.mark.data
def test_the_chat_input_is_the_published_lmsys_cdf_split_by_the_dataset_papers_means(shared_data: Path) -> None:
    path = shared_data / "workloads" / "lmsys_cdf.json"
    if not path.is_file():
        pytest.skip(f"needs {path.name} in the shared data folder's workloads/")
    published = json.loads(path.read_text(encoding="utf-8"))
    chat = _yaml(CLASSES)["workload"]["classes"][0]
    table = chat["input_tokens"]["table"]
    share = 69.5 / (69.5 + 214.5)  # Zheng et al., LMSYS-Chat-1M (arXiv 2309.11998), table 1
    assert len(table) == len(published)
    for (tokens, fraction), (total, cumulative) in zip(table, published, strict=True):
        assert tokens == pytest.approx(total * share, abs=0.05)  # written to 0.1 token
        assert fraction == pytest.approx(cumulative, abs=5e-7)  # written to 6 decimals


@pytest.mark.data
def test_the_agentic_class_is_the_measured_inferencex_agentic_run(real_inferencex: Path) -> None:
    path = real_inferencex / "agentic_lmcache_mi355x" / "agg_bmk.json"
    if not path.is_file():
        pytest.skip(f"needs agentic_lmcache_mi355x/{path.name} in the shared data folder's inferencex/")
    rows = json.loads(path.read_text(encoding="utf-8"))
    (run,) = [r for r in rows if r["conc"] == 32 and r["offloading"] == "none"]
    agentic = _yaml(CLASSES)["workload"]["classes"][2]
    assert agentic["input_tokens"]["mean"] == round(run["mean_input_tokens"])
    assert agentic["input_tokens"]["cv"] == round(run["std_input_tokens"] / run["mean_input_tokens"], 3)
    output_mean = run["mean_output_tokens_actual"]
    assert agentic["output_tokens"]["mean"] == round(output_mean)
    assert agentic["output_tokens"]["cv"] == round(run["std_output_tokens_actual"] / output_mean, 3)
    assert agentic["prefix_hit_fraction"] == round(run["server_gpu_cache_hit_rate"], 3)


@pytest.mark.data
def test_the_decode_pool_is_the_measured_b200_runs(real_inferencex: Path) -> None:
    folder = real_inferencex / "b200_together_runner" / "sglang_dsr1-fp4_1k1k_tuned"
    if not folder.is_dir():
        pytest.skip("needs b200_together_runner/sglang_dsr1-fp4_1k1k_tuned/ in the shared data folder's inferencex/")
    decode = _yaml(DISAGG)["systems"][1]["pools"]["decode"]["points"]
    for point in decode:
        metrics = json.loads((folder / f"conc{point['concurrency']}.json").read_text(encoding="utf-8"))["metrics"]
        assert point["tpot_ms"] == pytest.approx(metrics["p99_tpot_ms"], rel=1e-4)
        assert point["output_tokens_per_s"] == pytest.approx(metrics["output_token_throughput"], rel=1e-5)


@pytest.mark.parametrize("name", [CLASSES, DISAGG])
def test_the_simulator_agrees_with_every_class_and_the_mix_at_every_point(name: str) -> None:
    """Issue 23's "done when" on the bundled scenarios: every class's (and the mix's) analytic p99 TTFT within 10% of
    the simulator's and its accepted share within 1 point, at every demand point up to 90% utilisation (all of
    them here). 4 x 100,000 requests a point: the simulated p99's 95% half-width is about 1-3% of it, so each bound
    is the issue's plus that half-width (measured with 8 x 400,000: every class within 1.8%, the mix within 1.2%;
    docs/model.md)."""
    scenario = rackcost.load_scenario(bundled_scenario_path(name))
    rows = rackcost.simulate(scenario, requests=100_000, replications=4, seed=3)
    assert rows and {r["demand_point"] for r in rows} == {d.name for d in scenario.demand}
    for row in rows:
        utilization = row.get("analytic_utilization_fraction", row.get("analytic_decode_utilization_fraction"))
        if utilization is not None and utilization > MAX_UTILIZATION_FRACTION:
            continue
        simulated = row["simulated_ttft_p99_ms"]
        bound = 0.10 * simulated + row["simulated_ttft_p99_ms_ci95_halfwidth"]
        assert abs(row["analytic_ttft_p99_ms"] - simulated) <= bound, row
        accepted_bound = 0.01 + row["simulated_accepted_fraction_ci95_halfwidth"]
        assert abs(row["analytic_accepted_fraction"] - row["simulated_accepted_fraction"]) <= accepted_bound, row
