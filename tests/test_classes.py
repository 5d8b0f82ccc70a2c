"""Request classes (issue 23, items 1 to 3): closed forms worked by hand, the single shape unchanged, and properties.

The hand figures use system B of ``tests/data/two_systems.yaml``: a one-point vendor claim (8,000 total tokens/s
per replica, concurrency 16, TTFT 400 ms, TPOT 10 ms), so its service time and latencies hold at every load and
every figure below follows from the formulas of docs/model.md, "Request classes":

    r_k = (1 - h_k) In_k / ISL,  e_k = r_k TTFT + (Out_k - 1) TPOT,  e = TTFT + (OSL - 1) TPOT,
    S_k = S e_k / e,  E[S] = sum p_k S_k,  SCV = sum p_k (S_k / E[S])^2 (1 + w_k) - 1

(the mixture's second moment by the law of total variance; W. Feller, *An Introduction to Probability Theory and
Its Applications*, vol. 2, 1971, V.9), and the wait tail ``P(W > t) = C(k, a) exp(-(k/S - lambda) t / r)``, ``r =
(c_a^2 + c_s^2) / (c_a^2 + 1)`` (Kingman's heavy-traffic stretch of the M/M/k wait, docs/model.md "Service-time
spread"), with the textbook Erlang C of ``tests/reference.py``.
"""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path

import numpy as np
import pytest
import yaml
from hypothesis import example, given, settings
from hypothesis import strategies as st

import rackcost
from rackcost.evaluation.chain import evaluate_systems
from rackcost.model.queues.burstiness import point_wait_stretch
from rackcost.model.workload import classes as mc
from rackcost.scenario.loading import bundled_scenario_path, scenario_from_dict
from reference import DATA, TWO_SYSTEMS, smallest_replicas, wait_exceedance

THREE_CLASSES = DATA / "three_classes.yaml"


def _data(path: Path = TWO_SYSTEMS) -> dict:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def _with_classes(classes: list[dict], data: dict | None = None, only: str | None = None) -> dict:
    """The scenario's data with ``workload.classes`` in place of its one shape (and only system ``only``)."""
    data = copy.deepcopy(data if data is not None else _data())
    workload = data["workload"]
    for name in ("input_tokens_per_request", "output_tokens_per_request"):
        workload.pop(name, None)
        data.get("figures", {}).pop(f"workload.{name}", None)
    workload["classes"] = classes
    if only is not None:
        data["systems"] = [s for s in data["systems"] if s["name"] == only]
        data.pop("baseline_system", None)
    return data


def _evaluate(data: dict) -> rackcost.Result:
    return rackcost.evaluate(scenario_from_dict(data))


def _evaluate_servable(data: dict) -> rackcost.Result:
    """:func:`_evaluate` of a drawn mix that at least one system can serve: a mix whose every class some system's
    SLO rules out has no answer to compare (evaluate says so with each reason), so hypothesis draws another."""
    from hypothesis import assume

    from rackcost.scenario.feasibility import unserved_systems

    scenario = scenario_from_dict(data)
    assume(len(unserved_systems(scenario)) < len(scenario.hardware_indices))
    return rackcost.evaluate(scenario)


def _fixed(tokens: float) -> dict:
    return {"lengths": "fixed", "tokens": tokens}


TWO_FIXED = [
    {"name": "short", "share_fraction": 0.5, "input_tokens": _fixed(1000), "output_tokens": _fixed(100)},
    {"name": "long", "share_fraction": 0.5, "input_tokens": _fixed(3000), "output_tokens": _fixed(900)},
]
"""Two classes of fixed lengths: the mix's mean shape is 2,000 / 500 tokens, the benchmark's by default."""


def _by_hand_two_fixed() -> dict[str, object]:
    """System B serving TWO_FIXED, by hand."""
    isl, osl, ttft, tpot = 2000.0, 500.0, 400.0, 10.0
    service = 16 / (8000.0 / (isl + osl))  # 16 in flight at 3.2 requests/s: 5 s
    e = ttft + (osl - 1) * tpot  # 5,390 ms
    e_k = [1000 / isl * ttft + 99 * tpot, 3000 / isl * ttft + 899 * tpot]  # 1,190 and 9,590 ms
    mean_e = 0.5 * e_k[0] + 0.5 * e_k[1]  # 5,390 ms: the benchmark's, so E[S] = S
    s_k = [service * x / e for x in e_k]
    scv = 0.5 * (e_k[0] / mean_e) ** 2 + 0.5 * (e_k[1] / mean_e) ** 2 - 1.0  # fixed lengths: w_k = 0
    return {"service_s": service, "class_service_s": s_k, "scv": scv, "ttft_ms": [200.0, 600.0]}


def test_cdf_moments_by_hand() -> None:
    """A point mass of 0.2 at 100 tokens, 0.3 uniform on (100, 200], 0.5 uniform on (200, 600]: the mean is
    0.2 x 100 + 0.3 x 150 + 0.5 x 400 = 265, the second moment 0.2 x 1e4 + 0.3 x (1e4 + 2e4 + 4e4) / 3 + 0.5 x
    (4e4 + 12e4 + 36e4) / 3 = 2,000 + 7,000 + 86,666.7 (uniform on (a, b]: (a^2 + ab + b^2) / 3)."""
    mean, variance = mc.cdf_moments([100, 200, 600], [0.2, 0.5, 1.0])
    assert mean == pytest.approx(265.0, rel=1e-15)
    assert variance == pytest.approx(2_000 + 7_000 + 520_000 / 6 - 265.0**2, rel=1e-12)


def test_two_fixed_classes_mean_and_scv_of_service_by_hand() -> None:
    hand = _by_hand_two_fixed()
    scenario = scenario_from_dict(_with_classes(TWO_FIXED, only="B"))
    (outcome,) = evaluate_systems(scenario)
    assert float(outcome.fleet.service_s[0, 0]) == pytest.approx(hand["service_s"], rel=1e-12)
    assert outcome.chosen.service_scv == pytest.approx(hand["scv"], rel=1e-12)
    assert hand["scv"] == pytest.approx(0.607186, abs=1e-6)  # the spread between the classes alone
    rows = rackcost.evaluate(scenario).records["classes"]
    for row in rows:
        k = 0 if row["class"] == "short" else 1
        assert row["service_s"] == pytest.approx(hand["class_service_s"][k], rel=1e-12)
        assert row["ttft_ms"] == pytest.approx(hand["ttft_ms"][k], rel=1e-12)
        assert row["slot_time_fraction"] == pytest.approx(0.5 * hand["class_service_s"][k] / hand["service_s"])


def test_each_class_is_accepted_within_its_own_budget_and_sizing_meets_the_binding_one() -> None:
    """Budgets 2,000 - 200 and 2,000 - 600 ms; the shorter binds the sizing of the peak (20 requests/s, 99%).
    Sizing reads Kingman's stretch; each point's acceptance the larger of it and Kimura's at the point's load
    (rackcost.model.queues.burstiness.point_wait_stretch: the service SCV is below 1 here, so Kimura's)."""
    hand = _by_hand_two_fixed()
    stretch = (1.0 + hand["scv"]) / 2.0  # Poisson arrivals: (c_a^2 + c_s^2) / (c_a^2 + 1)
    result = _evaluate(_with_classes(TWO_FIXED, only="B"))
    (system,) = result.records["systems"]
    assert system["slo_replicas"] == smallest_replicas(20.0, hand["service_s"], 16, 1.4 / stretch, 0.01)
    slots = system["serving_replicas"] * 16
    for row in result.records["classes"]:
        lam = {"quiet": 5.0, "normal": 12.0, "peak": 20.0}[row["demand_point"]]
        budget_s = 1.8 if row["class"] == "short" else 1.4
        point = float(point_wait_stretch(stretch, 1.0, lam * hand["service_s"] / slots, slots))
        assert point > stretch
        miss = wait_exceedance(budget_s / point, slots, lam, hand["service_s"])
        assert row["accepted_rps"] == pytest.approx(0.5 * lam * (1.0 - miss), rel=1e-10)
        assert row["queueing_budget_ms"] == pytest.approx(budget_s * 1000.0, rel=1e-12)


def test_classes_of_other_attainment_targets_each_ask_for_their_own_fleet() -> None:
    """The short class at 99.99% with its 1.8 s budget, the long one at 90% with 1.4 s: the fleet is the larger of
    the two counts, and its capacity at SLO the smaller of the two rates."""
    hand = _by_hand_two_fixed()
    stretch = (1.0 + hand["scv"]) / 2.0
    classes = copy.deepcopy(TWO_FIXED)
    classes[0]["slo"] = {"attainment_fraction": 0.9999}
    classes[1]["slo"] = {"attainment_fraction": 0.9}
    (system,) = _evaluate(_with_classes(classes, only="B")).records["systems"]
    short = smallest_replicas(20.0, hand["service_s"], 16, 1.8 / stretch, 1e-4)
    long = smallest_replicas(20.0, hand["service_s"], 16, 1.4 / stretch, 0.1)
    assert system["slo_replicas"] == max(short, long) and short != long


def test_spread_within_one_class_by_hand() -> None:
    """One class of lognormal input (cv 1) and gamma output (cv 0.5) at the benchmark's means (1,000 / 500):
    E[S] = S and ``SCV = w = ((TTFT cv_in)^2 + (TPOT cv_out Out)^2) / e^2`` with e = 400 + 499 x 10 = 5,390 ms."""
    one = [
        {
            "name": "chat",
            "share_fraction": 1.0,
            "input_tokens": {"lengths": "lognormal", "mean": 1000, "cv": 1.0},
            "output_tokens": {"lengths": "gamma", "mean": 500, "cv": 0.5},
        }
    ]
    (outcome,) = evaluate_systems(scenario_from_dict(_with_classes(one, only="B")))
    e = 400.0 + 499 * 10.0
    assert outcome.chosen.service_scv == pytest.approx(((400.0 * 1.0) ** 2 + (10.0 * 0.5 * 500) ** 2) / e**2)


def test_prefix_hits_cut_the_prefill_by_hand() -> None:
    """75% of a class's input from the prefix cache: its TTFT is a quarter of the benchmark's (measured at its own
    1,000 / 500 tokens, without hits) and its service time ``S (0.25 TTFT + 499 TPOT) / (TTFT + 499 TPOT)``."""
    one = [{"name": "rag", "share_fraction": 1.0, "input_tokens": 1000, "output_tokens": 500}]
    cold = _evaluate(_with_classes(one, only="B")).records["classes"][0]
    one[0]["prefix_hit_fraction"] = 0.75
    warm = _evaluate(_with_classes(one, only="B")).records["classes"][0]
    assert warm["ttft_ms"] == pytest.approx(0.25 * cold["ttft_ms"], rel=1e-12) and cold["ttft_ms"] == 400.0
    assert warm["service_s"] == pytest.approx(cold["service_s"] * (100 + 4990) / (400 + 4990), rel=1e-12)


def test_an_api_bills_each_class_its_tokens_and_its_prefix_hits_at_the_cached_price() -> None:
    """$1/M input, $0.25/M cached, $4/M output; the API's own 20% hit rate for the class that states none:
    chat 800 x (0.8 x 1 + 0.2 x 0.25) + 400 x 4 = 2,280 micro-dollars; agent 4,000 x (0.1 x 1 + 0.9 x 0.25) + 200 x 4
    = 2,100."""
    data = _data()
    data["systems"].append(
        {
            "name": "API",
            "provenance": {"class": "assumption", "source": "synthetic"},
            "api": {
                "usd_per_million_input_tokens": 1.0,
                "usd_per_million_cached_input_tokens": 0.25,
                "usd_per_million_output_tokens": 4.0,
                "cached_input_fraction": 0.2,
            },
        }
    )
    data["figures"] = {"systems[2].api": {"provenance": "assumption", "source": "synthetic", "why": "a test"}}
    classes = [
        {"name": "chat", "share_fraction": 0.7, "input_tokens": 800, "output_tokens": 400},
        {"name": "agent", "share_fraction": 0.3, "input_tokens": 4000, "output_tokens": 200},
    ]
    classes[1]["prefix_hit_fraction"] = 0.9
    result = _evaluate(_with_classes(classes, data))
    rows = [r for r in result.records["classes"] if r["system"] == "API"]
    for row in rows:
        price = 2280e-6 if row["class"] == "chat" else 2100e-6
        assert row["usd_per_accepted_request"] == pytest.approx(price, rel=1e-12)
    point = next(p for p in result.records["points"] if p["system"] == "API")
    assert point["usd_per_accepted_request"] == pytest.approx(0.7 * 2280e-6 + 0.3 * 2100e-6, rel=1e-12)


ONE_SHAPE_SCENARIOS = [
    TWO_SYSTEMS,
    bundled_scenario_path("deepseek-r1-own-vs-rent-vs-api"),  # API and rented systems, revenue
    bundled_scenario_path("deepseek-r1-b200-vs-gb200-inferencex"),  # KV-cache memory limits
]


def _one_class(data: dict) -> list[dict]:
    w = data["workload"]
    return [
        {
            "name": "all",
            "share_fraction": 1.0,
            "input_tokens": w["input_tokens_per_request"],
            "output_tokens": w["output_tokens_per_request"],
        }
    ]


@pytest.mark.parametrize("path", ONE_SHAPE_SCENARIOS, ids=lambda p: p.stem)
def test_a_single_class_gives_exactly_the_one_shape_records(path: Path) -> None:
    data = _data(path)
    before = _evaluate(data)
    after = _evaluate(_with_classes(_one_class(data), data))
    for table in ("points", "systems", "comparison"):
        assert after.records[table] == before.records[table], table  # bit for bit
    assert after.warnings == before.warnings
    assert "classes" not in before.records and len(after.records["classes"]) == len(before.records["points"])


def test_two_identical_classes_give_the_single_class_numbers() -> None:
    data = _data()
    one = _evaluate(_with_classes(_one_class(data), data))
    halves = [dict(_one_class(data)[0], name=name, share_fraction=0.5) for name in ("a", "b")]
    two = _evaluate(_with_classes(halves, data))
    for table in ("points", "systems"):
        for a, b in zip(one.records[table], two.records[table], strict=True):
            for key, value in a.items():
                if isinstance(value, float):
                    # the mix's p99 TTFT of two classes is the root of the mixture's tail, found to 1e-10
                    rel = 1e-9 if key == "ttft_p99_ms" else 1e-12
                    assert b[key] == pytest.approx(value, rel=rel, abs=1e-15), (table, key)
                else:
                    assert b[key] == value, (table, key)
    for a, b in zip(one.records["classes"], two.records["classes"][::2], strict=True):
        assert b["accepted_rps"] == pytest.approx(a["accepted_rps"] / 2, rel=1e-12)
        assert b["usd_per_accepted_request"] == pytest.approx(a["usd_per_accepted_request"], rel=1e-12)


def test_the_table_is_in_the_json_and_the_dataframe_only_with_classes() -> None:
    plain = rackcost.evaluate(rackcost.load_scenario(TWO_SYSTEMS))
    assert "classes" not in json.loads(plain.to_json()) and plain.classes.empty
    mixed = rackcost.evaluate(rackcost.load_scenario(THREE_CLASSES))
    frame = mixed.classes
    assert list(frame.columns[:3]) == ["system", "demand_point", "class"]
    assert len(frame) == 2 * 3 * 3
    assert json.loads(mixed.to_json())["classes"] == mixed.records["classes"]
    assert mixed.to_csv("classes").splitlines()[0].startswith("system,demand_point,class,")
    with pytest.raises(ValueError, match="no workload.classes"):
        plain.to_csv("classes")


def test_the_kv_cache_reads_the_share_weighted_mean_bytes_of_the_classes() -> None:
    """Two classes of 1,000 + 100 and 7,000 + 900 tokens in shares 0.75 / 0.25 on a 1,000-byte-per-token cache:
    0.75 x 1.1e6 + 0.25 x 7.9e6 = 2.8e6 bytes per request."""
    data = _with_classes(
        [
            {"name": "a", "share_fraction": 0.75, "input_tokens": 1000, "output_tokens": 100},
            {"name": "b", "share_fraction": 0.25, "input_tokens": 7000, "output_tokens": 900},
        ]
    )
    data["systems"][0]["memory"] = {"hbm_gib_per_accelerator": 80, "weights_gib": 100, "kv_bytes_per_token": 1000}
    (outcome, _) = evaluate_systems(scenario_from_dict(data))
    memory = outcome.inputs.kv_memory
    assert memory is not None
    assert memory.kv_bytes_per_request == pytest.approx(2.8e6, rel=1e-12)
    assert memory.context_tokens == pytest.approx(0.75 * 1100 + 0.25 * 7900, rel=1e-12)


# ---- properties --------------------------------------------------------------------------------------------------

_SHARES = st.lists(st.floats(0.05, 1.0), min_size=2, max_size=3)
_TOKENS = st.floats(50.0, 4000.0)


@st.composite
def _mixes(draw: st.DrawFn) -> list[dict]:
    weights = draw(_SHARES)
    total = math.fsum(weights)
    shares = [w / total for w in weights]
    shares[-1] = 1.0 - math.fsum(shares[:-1])
    return [
        {
            "name": f"c{i}",
            "share_fraction": share,
            "input_tokens": draw(_TOKENS),
            "output_tokens": {"lengths": "gamma", "mean": draw(st.floats(20.0, 600.0)), "cv": draw(st.floats(0.1, 2))},
            "prefix_hit_fraction": draw(st.floats(0.0, 0.95)),
        }
        for i, share in enumerate(shares)
    ]


@settings(max_examples=60)
@given(mix=_mixes(), which=st.integers(0, 2), more=st.floats(0.0, 1.0), ttft=st.floats(10, 5000), tpot=st.floats(1, 80))
def test_a_higher_prefix_hit_never_raises_a_service_time(
    mix: list[dict], which: int, more: float, ttft: float, tpot: float
) -> None:
    """Each class's latency ``e_k`` (so its service ``S e_k / e``), and the mix's mean service ``E[S] / S``, never
    rise when one class's prefix hits do (the benchmark's ISL and OSL held)."""
    which %= len(mix)

    def factors(hits: list[float]) -> tuple[np.ndarray, float]:
        shares = np.array([c["share_fraction"] for c in mix])
        n = len(mix)
        classes = mc.ClassMix(
            names=tuple(c["name"] for c in mix),
            share_fraction=shares,
            input_tokens=np.array([c["input_tokens"] for c in mix]),
            output_tokens=np.array([c["output_tokens"]["mean"] for c in mix]),
            prefix_hit_fraction=np.array(hits),
            input_tokens_cv=np.zeros(n),
            output_tokens_cv=np.zeros(n),
            spread_stated=np.zeros(n, dtype=bool),
            ttft_limit_ms=np.full(n, 1e6),
            tpot_limit_ms=np.full(n, 1e6),
            e2e_limit_ms=np.full(n, np.inf),
            attainment_fraction=np.full(n, 0.99),
        )
        factor, r_mean = mc.mix_curve_factors(classes, [ttft], [tpot], 2000.0, 300.0)
        e_k = ttft * classes.uncached_input_tokens / 2000.0 + (classes.output_tokens - 1) * tpot
        return e_k, float(factor[0])

    hits = [c["prefix_hit_fraction"] for c in mix]
    higher = list(hits)
    higher[which] = hits[which] + (0.999 - hits[which]) * more
    (e_low, mean_low), (e_high, mean_high) = factors(hits), factors(higher)
    assert np.all(e_high <= e_low * (1 + 1e-12)) and mean_high <= mean_low * (1 + 1e-12)


@settings(max_examples=12)
@given(low=st.floats(0.0, 0.9), more=st.floats(0.0, 1.0), scale=st.floats(0.5, 3.0))
@example(low=0.4026367415259468, more=1.0, scale=1.0)  # found locally: the higher fraction rounded past 0.999
def test_a_higher_prefix_hit_never_raises_the_cost(low: float, more: float, scale: float) -> None:
    """On a one-point curve (system B) serving one class the cost per accepted request never rises with the prefix
    hits: the fleet for a shorter service and a longer budget is no larger, draws no more power and accepts no
    less. (With two classes of plain lengths the mix's SCV can rise as one class's service falls, and with it the
    wait's stretch: docs/model.md, "Request classes", says where.)"""
    high = min(low + (0.999 - low) * more, 0.999)  # the sum can round past the field's bound

    def blended(hit: float) -> float:
        one = [{"name": "rag", "share_fraction": 1.0, "input_tokens": 3000, "output_tokens": 300}]
        one[0]["prefix_hit_fraction"] = hit
        data = _with_classes(one, only="B")
        for d in data["demand"]:
            d["arrival_rps"] *= scale
        return _evaluate(data).records["systems"][0]["blended_usd_per_accepted_request"]

    assert blended(high) <= blended(low) * (1 + 1e-12)


@settings(max_examples=15)
@given(mix=_mixes(), scale=st.floats(0.3, 4.0))
def test_every_class_accepts_at_most_its_offered_load_and_the_classes_add_up_to_the_mix(
    mix: list[dict], scale: float
) -> None:
    data = _with_classes(mix)
    for d in data["demand"]:
        d["arrival_rps"] *= scale
    result = _evaluate_servable(data)
    mixed = {(p["system"], p["demand_point"]): p for p in result.records["points"]}
    totals: dict[tuple[str, str], float] = {}
    for row in result.records["classes"]:
        assert 0.0 <= row["accepted_rps"] <= row["offered_rps"] * (1 + 1e-12)
        key = (row["system"], row["demand_point"])
        totals[key] = totals.get(key, 0.0) + row["accepted_rps"]
    for key, accepted in totals.items():
        assert accepted == pytest.approx(mixed[key]["accepted_rps"], rel=1e-12)


@settings(max_examples=15)
@given(mix=_mixes(), scale=st.floats(0.3, 3.0), factor=st.floats(1.0, 3.0))
def test_more_demand_never_needs_fewer_replicas(mix: list[dict], scale: float, factor: float) -> None:
    def replicas(s: float) -> list[int]:
        data = _with_classes(mix)
        for d in data["demand"]:
            d["arrival_rps"] *= s
        return [row["provisioned_replicas"] for row in _evaluate_servable(data).records["systems"]]

    assert all(more >= fewer for more, fewer in zip(replicas(scale * factor), replicas(scale), strict=True))


# ---- the published length distributions (real data) -------------------------------------------------------------


@pytest.mark.data
@pytest.mark.parametrize("name", ["azure_cdf", "lmsys_cdf", "lmsys_multiturn_cdf", "agent_heavy_cdf"])
def test_the_published_length_cdfs_are_length_distributions(shared_data: Path, name: str) -> None:
    """The four published tables (totals per request; used here as a class's whole input) load as ``{lengths:
    cdf}``, and their mean is the one a fine numerical integral of the same piecewise-linear CDF gives."""
    path = shared_data / "workloads" / f"{name}.json"
    if not path.is_file():
        pytest.skip(f"needs {path.name} in the shared data folder's workloads/")
    raw = json.loads(path.read_text(encoding="utf-8"))
    table = raw["cdf"] if isinstance(raw, dict) else raw
    lengths = {"lengths": "cdf", "table": table}
    one = [{"name": name, "share_fraction": 1.0, "input_tokens": lengths, "output_tokens": 1}]
    scenario = scenario_from_dict(_with_classes(one, only="A"))
    tokens, fractions = np.array([t for t, _ in table], float), np.array([f for _, f in table], float)
    grid = np.linspace(tokens[0], tokens[-1], 400_001)
    survival = 1.0 - np.interp(grid, tokens, fractions)  # E[X] = t_0 + integral of P(X > x) above t_0
    integral = tokens[0] + float(np.sum((survival[1:] + survival[:-1]) / 2 * np.diff(grid)))
    assert scenario.workload.input_tokens_per_request == pytest.approx(integral, rel=1e-6)


def test_the_mix_service_scv_of_identical_fixed_classes_is_never_below_zero() -> None:
    # two classes of the same fixed lengths (a one-row CDF table of 2 output tokens, 20 input tokens) in shares of
    # 1/3 and 2/3: the mixture's SCV is exactly 0 (every S_k = E[S], w_k = 0), but the sum
    # sum_k p_k (S_k / E[S])^2 - 1 rounded to -3.3e-16 at 38 of these 1,000 points, and wait_stretch refused it
    # ("arrival_scv and service_scv must be finite and >= 0"; found by tests/fuzzing_classes.py)
    two = np.ones(2)
    mix = mc.ClassMix(
        names=("a", "b"),
        share_fraction=np.array([0.333333, 0.666667]),
        input_tokens=20 * two,
        output_tokens=2 * two,
        prefix_hit_fraction=0 * two,
        input_tokens_cv=0 * two,
        output_tokens_cv=0 * two,
        spread_stated=np.array([True, True]),
        ttft_limit_ms=2000 * two,
        tpot_limit_ms=50 * two,
        e2e_limit_ms=np.inf * two,
        attainment_fraction=0.5 * two,
    )
    scv = mc.mix_service_scv(mix, np.linspace(300, 1500, 1000), np.linspace(20, 60, 1000))
    assert scv.min() >= 0.0 and scv.max() < 1e-15


def test_a_class_of_share_zero_is_evaluated_and_printed_without_a_warning_or_a_traceback(tmp_path) -> None:
    """A class given a share of 0 (a class kept in the file but switched off) offers and accepts nothing: its
    accepted share and cost per accepted request are undefined, null in the tables and "-" in the CLI, with no
    numpy warning and no division by zero."""
    import warnings

    import yaml
    from typer.testing import CliRunner

    from rackcost.cli import app

    data = yaml.safe_load(
        rackcost.bundled_scenario_path("deepseek-r1-b200-vs-gb200-request-classes.yaml").read_text(encoding="utf-8")
    )
    classes = data["workload"]["classes"]
    rest = sum(c["share_fraction"] for c in classes[1:])
    classes[0]["share_fraction"] = 0.0
    for c in classes[1:]:
        c["share_fraction"] = c["share_fraction"] / rest
    path = tmp_path / "share-zero.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = rackcost.evaluate(rackcost.load_scenario(path))
        out = CliRunner().invoke(app, ["evaluate", str(path)])
    zero = [r for r in result.records["classes"] if r["class"] == classes[0]["name"]]
    assert zero and all(r["offered_rps"] == 0 and r["usd_per_accepted_request"] is None for r in zero)
    assert all(r["rejected_fraction"] is None for r in zero)
    assert out.exit_code == 0, out.output
    assert f"{classes[0]['name']}: accepted" in out.output and "Traceback" not in out.output


@pytest.mark.parametrize("lengths", ["gamma", "lognormal"])
@pytest.mark.parametrize("cv", [5.35e-301, 1e-9])
def test_a_length_of_negligible_spread_is_one_length(lengths: str, cv: float) -> None:
    # a gamma of cv 5.35e-301 divided by zero (its shape 1 / cv^2; found by tests/fuzzing.py): below a cv of 1e-7
    # the spread of the longest length a scenario takes (1e7 tokens) is under a token, and the length is one length
    from rackcost.model.queues.class_ttft import MIN_SPREAD_CV_FRACTION, fixed_law, gamma_law, lognormal_law

    assert cv < MIN_SPREAD_CV_FRACTION
    law = (gamma_law if lengths == "gamma" else lognormal_law)(cv)
    assert law.value.tolist() == fixed_law().value.tolist() and not law.spread
    data = yaml.safe_load(bundled_scenario_path("deepseek-r1-b200-vs-gb200-request-classes.yaml").read_text())
    fixed = copy.deepcopy(data)
    data["workload"]["classes"][2]["input_tokens"] = {"lengths": lengths, "mean": 81082, "cv": cv}
    fixed["workload"]["classes"][2]["input_tokens"] = 81082
    narrow, one = (rackcost.evaluate(scenario_from_dict(d, "c.yaml")).to_dict() for d in (data, fixed))
    assert narrow["points"] == one["points"]


@pytest.mark.parametrize(
    ("where", "value", "said"),
    [
        ("cv", 1e308, "must be <= 10.0"),
        ("cv", float("inf"), "must be a finite number"),
        ("cv", True, "must be a number"),
        ("prefix", False, "must be a number"),
        ("prefix", 0.9995, "must be <= 0.999"),
    ],
)
def test_a_class_length_cv_and_prefix_share_keep_their_bounds(where: str, value: object, said: str) -> None:
    # the cv's type was Annotated[float, Field(gt=0), CvFraction]: pydantic read CvFraction (0 to 10, finite, not a
    # boolean) as a note, so a cv of 1e308 loaded and stopped the wait stretch with a ValueError (found by
    # benchmarks/fuzz_scenarios.py); the prefix share took `false` as 0
    data = yaml.safe_load(bundled_scenario_path("deepseek-r1-b200-vs-gb200-request-classes.yaml").read_text())
    first = data["workload"]["classes"][0]
    if where == "cv":
        first["output_tokens"]["cv"] = value
    else:
        first["prefix_hit_fraction"] = value
    with pytest.raises(rackcost.ScenarioError) as refused:
        scenario_from_dict(data, "c.yaml")
    (problem,) = refused.value.problems
    path = "output_tokens.cv" if where == "cv" else "prefix_hit_fraction"
    assert problem.path == f"workload.classes[0].{path}" and problem.message.startswith(said), problem


def test_no_field_type_of_the_schema_is_read_as_a_note() -> None:
    # Annotated[float, Field(...), Base] keeps none of Base's bounds: each type of the schema's modules narrows its
    # base as Annotated[Base, Field(...)]
    import importlib
    import pkgutil
    import typing

    import rackcost.scenario as package

    misread = []
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"rackcost.scenario.{info.name}")
        for name, value in vars(module).items():
            if typing.get_origin(value) is typing.Annotated:
                misread += [
                    f"{info.name}.{name}" for m in value.__metadata__ if typing.get_origin(m) is typing.Annotated
                ]
    assert misread == []
