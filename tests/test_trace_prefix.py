"""The prefix reuse of ``rackcost trace`` (rackcost.cli.trace_prefix): the rows measured from a trace with block
hashes, the fleets read from a scenario, and the measured share written into a scenario with its source.

``tests/data/prefix_trace.jsonl`` is a small trace in Mooncake's format (``timestamp`` [ms], ``input_length``,
``output_length``, ``hash_ids``: one id per 512-token block), written for these tests: three conversations whose
turns extend their context, and one-off prompts sharing a first block.
"""

from __future__ import annotations

import json
import types
from pathlib import Path

import numpy as np
import pytest
import yaml

import rackcost
from fuzzing_prefix import brute_force_hit_tokens
from rackcost.cli import trace_prefix as tp
from rackcost.model.workload import prefix_cache as pc
from rackcost.scenario.loading import bundled_scenario_path, scenario_from_dict

FIXTURE = Path(__file__).parent / "data" / "prefix_trace.jsonl"


def fixture_trace() -> types.SimpleNamespace:
    """The fixture as a trace object with the fields the trace readers give (``hash_ids``, ``block_tokens``)."""
    rows = [json.loads(line) for line in FIXTURE.read_text().splitlines()]
    return types.SimpleNamespace(
        arrival_s=np.array([r["timestamp"] / 1000.0 for r in rows]),
        input_tokens=np.array([float(r["input_length"]) for r in rows]),
        output_tokens=np.array([float(r["output_length"]) for r in rows]),
        hash_ids=tuple(np.array(r["hash_ids"]) for r in rows),
        block_tokens=512,
    )


def brute_share(requests: pc.PrefixRequests, capacity: float | None, replica_of: list[int] | None = None) -> float:
    """The share by the list re-scanned at every access (tests/fuzzing_prefix.py), per replica where routed."""
    where = replica_of or [0] * requests.requests
    hits = 0
    for r in set(where):
        mine = [i for i, q in enumerate(where) if q == r]
        ids = [list(requests.block_ids[i]) for i in mine]
        tokens = [list(requests.block_tokens[i]) for i in mine]
        hits += sum(brute_force_hit_tokens(ids, tokens, capacity, False))
    return hits / float(requests.input_tokens.sum())


def test_the_rows_are_the_brute_force_shares_for_each_cache_router_and_fleet() -> None:
    requests, arrival = tp.prefix_requests_of(fixture_trace())
    assert arrival is not None and requests.block_references == 306
    rows = tp.prefix_rows(requests, [None, 2048], [1, 3], ["round_robin", "least_outstanding"], arrival, 5.0, 2)
    assert [tuple(r) for r in rows] == [tp.PREFIX_COLUMNS] * len(rows)
    assert len(rows) == 2 * (1 + 2 * 2)
    for row in rows:
        capacity = row["cache_tokens"]
        if row["cache"] == "shared":
            want = brute_share(requests, capacity)
        else:
            where = pc.route_requests(row["routing"], row["replicas"], requests.requests, arrival, 5.0, 2)
            want = brute_share(requests, capacity, where.tolist())
        assert row["hit_fraction"] == pytest.approx(want, rel=1e-12), row
    unbounded = rows[0]["hit_fraction"]
    assert 0.3 < unbounded < 0.9  # the conversations reuse their context
    one = next(r for r in rows if r["replicas"] == 1 and r["routing"] == "round_robin" and r["cache_tokens"] is None)
    assert one["hit_fraction"] == unbounded  # one replica is the shared cache


def test_a_trace_without_block_hashes_is_refused_naming_what_it_lacks() -> None:
    plain = types.SimpleNamespace(arrival_s=np.zeros(3), input_tokens=np.ones(3), output_tokens=np.ones(3))
    with pytest.raises(ValueError, match="no prefix block hashes"):
        tp.prefix_requests_of(plain)


def test_a_timed_router_without_a_service_time_is_refused() -> None:
    requests, arrival = tp.prefix_requests_of(fixture_trace())
    with pytest.raises(ValueError, match="needs arrival times and a service time"):
        tp.prefix_rows(requests, [None], [2], ["least_outstanding"], arrival)


def test_a_scenario_s_fleets_give_each_replica_the_cache_its_free_kv_memory_holds() -> None:
    # the bundled InferenceX scenario's memory blocks: a DGX B200 keeps 8 copies of DeepSeek R1's 70,272-byte MLA
    # tokens in 8 x 180 GiB less 10% and the NVFP4 weights (671e9 x 0.5625 bytes); a GB200 NVL72 rack one copy in
    # 72 x 186 GiB (model.prefix_cache.cache_tokens_from_memory's examples)
    scenario = rackcost.load_scenario(bundled_scenario_path("deepseek-r1-b200-vs-gb200-inferencex"))
    fleets = {f.system: f for f in tp.scenario_fleets(scenario)}
    b200, nvl72 = fleets["DGX B200"], fleets["GB200 NVL72"]
    assert b200.cache_tokens == pc.cache_tokens_from_memory(8 * 180 * 2**30 * 0.9 - 671e9 * 0.5625, 70272.0, 8)
    assert nvl72.cache_tokens == pc.cache_tokens_from_memory(72 * 186 * 2**30 * 0.9 - 671e9 * 0.5625, 70272.0)
    systems = rackcost.evaluate(scenario).systems.set_index("system")
    for fleet in (b200, nvl72):
        assert fleet.routing == scenario.fleet.routing
        assert fleet.replicas == systems.loc[fleet.system, "serving_replicas"]
        assert fleet.slots_per_replica == systems.loc[fleet.system, "concurrency"]
        assert fleet.service_s == systems.loc[fleet.system, "service_s"]
    requests, arrival = tp.prefix_requests_of(fixture_trace())
    rows = [r for r in tp.prefix_rows(requests, [None], arrival_s=arrival, fleets=[nvl72]) if r["system"]]
    assert [(r["cache_tokens"], r["cache"]) for r in rows] == [
        (nvl72.cache_tokens * nvl72.replicas, "shared"),
        (nvl72.cache_tokens, "per replica"),
        (None, "shared"),
        (None, "per replica"),
    ]


def _load(data: dict) -> rackcost.Scenario:
    return scenario_from_dict(data)


def test_the_share_goes_into_the_named_class_with_its_source() -> None:
    data = yaml.safe_load(bundled_scenario_path("deepseek-r1-b200-vs-gb200-request-classes").read_text())
    with pytest.raises(ValueError, match="name the one the trace measures"):
        tp.measured_prefix_hits(data, 0.3, "t.jsonl", 1e7, "shared", 1)
    with pytest.raises(ValueError, match="no request class named 'code'"):
        tp.measured_prefix_hits(data, 0.3, "t.jsonl", 1e7, "shared", 1, class_name="code")
    out = tp.measured_prefix_hits(data, 0.29359903, "mooncake.jsonl", 1e7, "least_outstanding", 111, "chat")
    assert out is not data and "figures" in out
    index = [c["name"] for c in out["workload"]["classes"]].index("chat")
    path = f"workload.classes[{index}].prefix_hit_fraction"
    assert out["workload"]["classes"][index]["prefix_hit_fraction"] == 0.2936
    figure = out["figures"][path]
    assert figure["provenance"] == "independent"
    assert "mooncake.jsonl" in figure["source"] and "10,000,000 tokens" in figure["source"]
    assert "111 replicas under least_outstanding routing" in figure["source"]
    loaded = _load(out)
    assert loaded.workload.classes is not None and loaded.workload.classes[index].prefix_hit_fraction == 0.2936
    assert data["workload"]["classes"][index].get("prefix_hit_fraction") != 0.2936  # the argument is untouched


def test_a_plain_workload_becomes_one_class_whose_numbers_move_only_by_the_hit() -> None:
    # one class gives the plain workload's numbers bit for bit (docs/model.md, "Request classes"): at a share of 0
    # every figure is the same; at 0.3 the prefill of 30% of the input is saved, so no system costs more
    path = bundled_scenario_path("deepseek-r1-b200-vs-gb200-inferencex")
    data = yaml.safe_load(path.read_text())
    before = rackcost.evaluate(_load(data)).systems
    zero = tp.measured_prefix_hits(data, 0.0, "t.jsonl", None, "shared", 1)
    assert zero["workload"]["classes"][0]["name"] == "all"
    assert "workload.classes[0].input_tokens" in zero["figures"]
    assert "workload.input_tokens_per_request" not in zero["figures"]
    same = rackcost.evaluate(_load(zero)).systems
    numbers = before.select_dtypes("number").columns
    assert same[numbers].equals(before[numbers])
    cheaper = rackcost.evaluate(_load(tp.measured_prefix_hits(data, 0.3, "t.jsonl", None, "shared", 1))).systems
    col = "blended_usd_per_accepted_request"
    assert (cheaper[col] <= before[col]).all() and (cheaper[col] < before[col]).any()


def test_a_share_is_capped_where_a_class_takes_it_and_refused_outside_0_to_1() -> None:
    data = yaml.safe_load(bundled_scenario_path("deepseek-r1-b200-vs-gb200-inferencex").read_text())
    out = tp.measured_prefix_hits(data, 1.0, "t.jsonl", None, "shared", 1)
    assert out["workload"]["classes"][0]["prefix_hit_fraction"] == tp.MAX_PREFIX_HIT_FRACTION
    assert "capped at 0.999" in out["figures"]["workload.classes[0].prefix_hit_fraction"]["source"]
    for bad in (-0.1, 1.5, float("nan")):
        with pytest.raises(ValueError, match="between 0 and 1"):
            tp.measured_prefix_hits(data, bad, "t.jsonl", None, "shared", 1)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d["workload"].update(output_tokens_cv_fraction=0.5), "output_tokens_cv_fraction"),
        (lambda d: d["systems"][0].update(pools={"prefill": {}}), "not modelled with classes"),
    ],
)
def test_a_plain_workload_that_cannot_be_one_class_is_refused_saying_why(edit, message) -> None:
    data = yaml.safe_load(bundled_scenario_path("deepseek-r1-b200-vs-gb200-inferencex").read_text())
    edit(data)
    with pytest.raises(ValueError, match=message):
        tp.measured_prefix_hits(data, 0.3, "t.jsonl", None, "shared", 1)
