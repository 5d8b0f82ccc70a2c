"""The request-class and pool fuzzer: hypothesis strategies for workloads that mix request classes and for
disaggregated systems' prefill and decode pools, and the contract every evaluation of them keeps.

Used by ``tests/test_fuzz_classes.py`` (a small budget in CI), ``tests/test_stretch_rule.py`` (the sizing property)
and ``benchmarks/fuzz_classes.py`` (a large one, with counts). Strategies:

- :func:`class_mixes`: one to four classes with random shares, input and output lengths (plain numbers, fixed,
  lognormal and gamma of cv 0 to 3, CDF tables), prefix hit fractions and their own SLOs (TTFT, TPOT, end-to-end
  limits and attainment targets), on the two systems of ``tests/data/three_classes.yaml`` (a three-point curve and a
  one-point claim), at random demand, routing and idle policy;
- :func:`pool_scenarios`: the disaggregated system of ``tests/data/disaggregated.yaml`` with random prefill and
  decode curves (latencies that rise, fall or jump with the batch, prefill given as a time or a token rate), KV
  transfer and demand up to a thousand times the fixture's.

Contract (:func:`check_scenario`): the scenario is refused with problems (a ScenarioError, at load or because no
system can serve it), or it evaluates with no other exception; every number of every table is finite or an explicit
null (``None``), and its JSON and CSV hold no NaN or infinity; every point accepts no more than it admits and admits
no more than it is offered; and a fleet the model sized (no fixed replica count) meets each class's attainment
target at its sizing point, where it admits everything it is offered: ``accepted / offered >= attainment`` for
every class (docs/model.md, "Request classes": sizing, the capacity at SLO and acceptance use one rule).
"""

from __future__ import annotations

import copy
import math
from typing import Any

import yaml
from hypothesis import strategies as st

import rackcost
from rackcost import ScenarioError
from rackcost.scenario.loading import scenario_from_dict
from reference import DATA, find_non_finite

THREE_CLASSES = yaml.safe_load((DATA / "three_classes.yaml").read_text(encoding="utf-8"))
DISAGGREGATED = yaml.safe_load((DATA / "disaggregated.yaml").read_text(encoding="utf-8"))
SLACK_FRACTION = 1e-9
"""Rounding allowed between a share the model computes and the target it meets [-]."""


def _lengths(low: float, high: float) -> st.SearchStrategy[Any]:
    """A token count: a plain number, or a per-request length distribution of mean in ``[low, high]``."""
    mean = st.floats(low, high).map(lambda x: round(x, 1))
    cv = st.floats(0.0, 3.0).map(lambda x: round(x, 3))
    cdf = st.lists(st.floats(low, high), min_size=1, max_size=4, unique=True).map(
        lambda xs: {
            "lengths": "cdf",
            "table": [
                [round(t, 1), round((i + 1) / len(xs), 6)] for i, t in enumerate(sorted({round(x, 1) for x in xs}))
            ],
        }
    )
    return st.one_of(
        mean,
        st.builds(lambda m: {"lengths": "fixed", "tokens": m}, mean),
        st.builds(lambda m, c: {"lengths": "lognormal", "mean": m, "cv": max(c, 0.01)}, mean, cv),
        st.builds(lambda m, c: {"lengths": "gamma", "mean": m, "cv": max(c, 0.01)}, mean, cv),
        cdf,
    )


@st.composite
def _class(draw: st.DrawFn, index: int) -> dict[str, Any]:
    """One request class with its lengths, prefix hits and, at random, its own SLO."""
    out: dict[str, Any] = {
        "name": f"c{index}",
        "share_fraction": 1.0,
        "input_tokens": draw(_lengths(20.0, 8000.0)),
        "output_tokens": draw(_lengths(2.0, 2000.0)),
    }
    if draw(st.booleans()):
        out["prefix_hit_fraction"] = round(draw(st.floats(0.0, 0.95)), 3)
    if draw(st.booleans()):
        slo: dict[str, Any] = {}
        if draw(st.booleans()):
            slo["ttft_limit_ms"] = round(draw(st.floats(300.0, 20000.0)), 1)
        if draw(st.booleans()):
            slo["tpot_limit_ms"] = round(draw(st.floats(22.0, 200.0)), 1)
        if draw(st.booleans()):
            slo["e2e_limit_ms"] = round(draw(st.floats(5000.0, 600000.0)), 1)
        if draw(st.booleans()):
            slo["attainment_fraction"] = draw(st.sampled_from([0.5, 0.9, 0.95, 0.99, 0.999]))
        if slo:
            out["slo"] = slo
    return out


@st.composite
def class_mixes(draw: st.DrawFn) -> dict[str, Any]:
    """The three-class scenario's data with a random class mix, demand, routing and idle policy."""
    data = copy.deepcopy(THREE_CLASSES)
    k = draw(st.integers(1, 4))
    classes = [draw(_class(i)) for i in range(k)]
    weights = draw(st.lists(st.integers(1, 20), min_size=k, max_size=k))
    shares = [round(w / sum(weights), 6) for w in weights]
    shares[-1] = round(1.0 - sum(shares[:-1]), 6)
    for c, share in zip(classes, shares, strict=True):
        c["share_fraction"] = share
    if any(share <= 0 for share in shares):
        classes, shares = classes[:1], [1.0]
        classes[0]["share_fraction"] = 1.0
    data["workload"]["classes"] = classes
    peak = draw(st.floats(0.5, 500.0))
    data["demand"] = [
        {"name": "quiet", "arrival_rps": round(peak * draw(st.floats(0.05, 1.0)), 4), "hours_per_day": 8},
        {"name": "peak", "arrival_rps": round(peak, 4), "hours_per_day": 16},
    ]
    if draw(st.booleans()):
        data["demand"][1]["arrival_scv"] = round(draw(st.floats(0.1, 4.0)), 3)
    data["slo"]["attainment_fraction"] = draw(st.sampled_from([0.5, 0.9, 0.99, 0.999]))
    data["fleet"] = {
        "idle_policy": draw(st.sampled_from(["powered", "park"])),
        "routing": draw(st.sampled_from(["least_outstanding", "pooled", "random"])),
    }
    systems = draw(st.sampled_from([["A"], ["B"], ["A", "B"]]))
    data["systems"] = [s for s in data["systems"] if s["name"] in systems]
    return data


def _prefill_point(draw: st.DrawFn, concurrency: float) -> dict[str, Any]:
    if draw(st.booleans()):
        return {"concurrency": concurrency, "prefill_ms": round(draw(st.floats(1e-2, 1e7)), 3)}
    return {"concurrency": concurrency, "input_tokens_per_s": round(draw(st.floats(1.0, 1e7)), 3)}


@st.composite
def pool_scenarios(draw: st.DrawFn) -> dict[str, Any]:
    """The disaggregated scenario's data with random prefill and decode curves, KV transfer and demand."""
    data = copy.deepcopy(DISAGGREGATED)
    scale = draw(st.sampled_from([0.01, 1.0, 10.0, 1000.0]))
    for point in data["demand"]:
        point["arrival_rps"] = round(point["arrival_rps"] * scale, 6)
    pools = next(s for s in data["systems"] if "pools" in s)["pools"]
    concurrency = sorted(set(draw(st.lists(st.sampled_from([1, 2, 4, 8, 16, 64, 256, 1e6]), min_size=1, max_size=3))))
    pools["prefill"]["points"] = [_prefill_point(draw, float(c)) for c in concurrency]
    decode = sorted(set(draw(st.lists(st.sampled_from([1, 4, 16, 64, 128, 512, 4096]), min_size=1, max_size=3))))
    pools["decode"]["points"] = [
        {"concurrency": float(c), "tpot_ms": round(draw(st.floats(1.0, 60.0)), 3)} for c in decode
    ]
    if draw(st.booleans()):
        pools["kv_transfer"] = {
            "bandwidth_gb_per_s": round(draw(st.floats(0.1, 1000.0)), 3),
            "kv_bytes_per_token": draw(st.integers(1000, 2_000_000)),
        }
    data["fleet"] = {"idle_policy": draw(st.sampled_from(["powered", "park"]))}
    return data


def check_scenario(data: dict[str, Any]) -> str:
    """Load and evaluate ``data`` and check the contract (module docstring); ``"refused"`` or ``"evaluated"``."""
    try:
        scenario = scenario_from_dict(data)
        result = rackcost.evaluate(scenario)  # every system unserved: a ScenarioError naming each one's reason
    except ScenarioError:
        return "refused"
    records = result.to_dict()
    bad = find_non_finite(records)
    assert not bad, f"non-finite figures at {bad[:5]}"
    for row in result.records["points"]:
        offered, admitted, accepted = row["offered_rps"], row["admitted_rps"], row["accepted_rps"]
        assert accepted <= admitted * (1 + SLACK_FRACTION) and admitted <= offered * (1 + SLACK_FRACTION), row
        assert accepted >= 0.0, row
    _check_sized_fleets_meet_their_targets(scenario, result)
    for text in (result.to_json(), result.to_csv("points"), result.to_csv("systems")):
        assert "NaN" not in text and "Infinity" not in text and "inf," not in text
    return "evaluated"


def _check_sized_fleets_meet_their_targets(scenario: Any, result: rackcost.Result) -> None:
    """A fleet the model sized meets each class's attainment target (each class's own, else the workload's) at
    its sizing point (the busiest point: the fixtures name none), where nothing is rejected by admission."""
    if scenario.fleet.replicas is not None or result.classes is None or result.classes.empty:
        return
    sizing = max(scenario.demand, key=lambda p: p.arrival_rps).name
    default = scenario.slo.attainment_fraction
    target = {
        c.name: default if c.slo is None or c.slo.attainment_fraction is None else c.slo.attainment_fraction
        for c in scenario.workload.classes
    }
    served = {row["system"] for row in result.records["points"]}
    for row in result.records["classes"]:
        if row["demand_point"] != sizing or row["system"] not in served:
            continue
        share = row["accepted_rps"] / row["offered_rps"]
        assert math.isclose(row["admitted_rps"], row["offered_rps"], rel_tol=1e-9), row
        assert share >= target[row["class"]] * (1 - SLACK_FRACTION), (
            f"{row['system']} class {row['class']}: {share:.6%} accepted at its sizing point, target "
            f"{target[row['class']]:.3%}"
        )
