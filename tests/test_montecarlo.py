"""Monte Carlo, tornado and break-even (rackcost.analysis.montecarlo) against closed forms and the deterministic
model."""

from __future__ import annotations

import copy
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rackcost
from rackcost.analysis.montecarlo import POINT_COLUMNS, SYSTEM_COLUMNS, evaluate_samples
from two_systems import BASE
from two_systems import two_systems_scenario as scenario

PRICE = "facility.electricity_usd_per_kwh"


def rows_by_key(result) -> dict[tuple[str, str, str], dict]:
    return {(r["system"], r["demand_point"], r["column"]): r for r in result.percentiles}


def many_inputs(data: dict) -> None:
    """Several uncertain inputs of every kind, on both systems (used by several tests)."""
    data["facility"]["electricity_usd_per_kwh"] = {"dist": "triangular", "low": 0.06, "mode": 0.081, "high": 0.17}
    data["facility"]["pue"] = {"dist": "uniform", "low": 1.1, "high": 1.3}
    data["demand"][2]["arrival_rps"] = {"dist": "normal", "mean": 20, "sd": 2, "truncate_at_zero": True}
    data["systems"][0]["performance"]["points"][1]["throughput_tokens_per_s"] = {
        "dist": "choice",
        "values": [8000, 9000, 10000],
        "weights": [1, 2, 1],
    }
    data["systems"][0]["hardware"]["accelerator_busy_w"] = {"dist": "triangular", "low": 500, "mode": 600, "high": 700}
    data["systems"][1]["costs"]["capex_usd_per_accelerator"] = {"dist": "lognormal", "median": 45000, "sigma": 0.4}
    data["uncertainty"] = {"throughput_derate": {"vendor": {"dist": "triangular", "low": 0.7, "mode": 0.9, "high": 1}}}


# ------------------------------------------------------------------------------------------- (a) linear input


def test_linear_input_gives_the_analytic_percentiles_and_mean() -> None:
    """Electricity price ~ U(low, high) is the only uncertain input.

    Energy cost per hour at a demand point is facility kW x price, and the facility power does not depend on the
    price, so energy cost ~ U(kW low, kW high): its q-quantile is kW (low + q (high - low)) and its mean
    kW (low + high) / 2. Tolerance: the sample q-quantile of a uniform has standard error
    (high - low) sqrt(q (1 - q) / n) (asymptotic variance q(1-q) / (n f^2), f = 1/(high - low)), and the sample
    mean (high - low) / sqrt(12 n); we allow 4 standard errors (the draw is seeded, so this never flakes).
    """
    low, high, n = 0.05, 0.25, 20_000
    sc = scenario(lambda d: d["facility"].update(electricity_usd_per_kwh={"dist": "uniform", "low": low, "high": high}))
    det = rackcost.evaluate(sc).records["points"]
    result = rackcost.uncertainty(sc, n, seed=3)
    rows = rows_by_key(result)
    width = high - low
    for r in det:
        kw = r["facility_power_kw"]
        row = rows[(r["system"], r["demand_point"], "energy_usd_per_hour")]
        for q, key in ((0.05, "p5"), (0.5, "p50"), (0.95, "p95")):
            se = kw * width * math.sqrt(q * (1 - q) / n)
            assert abs(row[key] - kw * (low + q * width)) <= 4 * se, (r["system"], r["demand_point"], key)
        se_mean = kw * width / math.sqrt(12 * n)
        assert abs(row["mean"] - kw * (low + high) / 2) <= 4 * se_mean
        # the facility power itself is not uncertain: every percentile is the deterministic value
        power = rows[(r["system"], r["demand_point"], "facility_power_kw")]
        for key in ("p5", "p50", "p95", "mean"):
            assert power[key] == pytest.approx(kw, rel=1e-9)
    # and sample by sample, energy = kW x price (the linearity itself)
    price = result.samples["inputs"][PRICE]
    for system in ("A", "B"):
        kw = np.array([r["facility_power_kw"] for r in det if r["system"] == system])
        np.testing.assert_allclose(result.samples[system]["energy_usd_per_hour"], price[:, None] * kw, rtol=1e-9)


# ------------------------------------------------------------------------------------------- (b) degenerate


def test_degenerate_distributions_give_exactly_the_deterministic_result() -> None:
    """Single-value choices everywhere: every sample is the deterministic scenario.

    rel 1e-9 rather than equality: the Monte Carlo path rescales throughput and power by sampled/central ratios
    and sums in a different order than evaluate, so the last few bits may differ; anything beyond rounding would
    be a modelling difference between the two paths.
    """

    def one(value):
        return {"dist": "choice", "values": [value]}

    def mutate(d):
        d["facility"]["electricity_usd_per_kwh"] = one(0.13)
        d["facility"]["pue"] = one(1.25)
        d["demand"][1]["arrival_rps"] = one(11)
        d["systems"][0]["performance"]["points"][1]["throughput_tokens_per_s"] = one(9500)
        d["systems"][0]["hardware"]["accelerator_idle_w"] = one(90)
        d["systems"][1]["costs"]["capex_usd_per_accelerator"] = one(25000)
        d["uncertainty"] = {"throughput_derate": {"vendor": one(0.85)}}

    sc = scenario(mutate)
    assert len(sc.distributions) == 7
    det = rackcost.evaluate(sc).records
    result = rackcost.uncertainty(sc, 64, seed=0)
    rows = rows_by_key(result)
    for r in det["points"]:
        for column in POINT_COLUMNS:
            row = rows[(r["system"], r["demand_point"], column)]
            for key in ("p5", "p50", "p95", "mean"):
                assert row[key] == pytest.approx(r[column], rel=1e-9, abs=1e-12), (r["system"], column, key)
    for r in det["systems"]:
        for column in SYSTEM_COLUMNS:
            row = rows[(r["system"], "system", column)]
            for key in ("p5", "p50", "p95", "mean"):
                assert row[key] == pytest.approx(r[column], rel=1e-9, abs=1e-12), (r["system"], column, key)
    # the probability of being cheaper is then 0 or 1, as the deterministic comparison says
    blended = {r["system"]: r["blended_usd_per_accepted_request"] for r in det["systems"]}
    (p,) = [r["probability_fraction"] for r in result.probability_cheaper if r["demand_point"] == "blended"]
    assert p == float(blended["B"] < blended["A"])


def test_the_same_degenerate_input_as_a_plain_number_gives_the_same_result() -> None:
    plain = rackcost.evaluate(scenario(lambda d: d["facility"].update(electricity_usd_per_kwh=0.13))).records
    dist = rackcost.evaluate(
        scenario(lambda d: d["facility"].update(electricity_usd_per_kwh={"dist": "choice", "values": [0.13]}))
    ).records
    assert plain == dist


# ------------------------------------------------------------------------------------------- (c) seeds


def test_same_seed_same_output_different_seed_different_output() -> None:
    sc = scenario(many_inputs)
    a, b, c = (rackcost.uncertainty(sc, 300, seed=s) for s in (7, 7, 8))
    assert a.percentiles == b.percentiles
    assert a.probability_cheaper == b.probability_cheaper
    assert a.samples.keys() == b.samples.keys()
    for system in a.samples:
        assert a.samples[system].keys() == b.samples[system].keys()
        for name in a.samples[system]:
            assert np.array_equal(a.samples[system][name], b.samples[system][name]), (system, name)
    assert a.percentiles != c.percentiles
    for path in sc.distributions:
        assert not np.array_equal(a.samples["inputs"][path], c.samples["inputs"][path]), path


def _assert_identical(a, b) -> None:
    assert a.percentiles == b.percentiles
    assert a.probability_cheaper == b.probability_cheaper
    for system in a.samples:
        for name in a.samples[system]:
            assert np.array_equal(a.samples[system][name], b.samples[system][name]), (system, name)


def test_chunks_and_threads_give_bit_for_bit_the_same_result(monkeypatch) -> None:
    # every step is elementwise along the sample axis, so blocks of samples evaluated apart (for progress, or on
    # several threads) and joined must reproduce the single pass exactly, not merely closely
    from rackcost.analysis import montecarlo

    sc = scenario(many_inputs)
    whole = rackcost.uncertainty(sc, 250, seed=1, workers=1)
    monkeypatch.setattr(montecarlo, "CHUNK_SAMPLES", 60)
    monkeypatch.setattr(montecarlo, "MIN_SAMPLES_PER_WORKER", 1)
    seen: list[int] = []
    _assert_identical(whole, rackcost.uncertainty(sc, 250, seed=1, progress=seen.append, workers=1))
    assert seen == [60, 120, 180, 240, 250]
    for workers in (2, 3, 7):
        _assert_identical(whole, rackcost.uncertainty(sc, 250, seed=1, workers=workers))
    seen.clear()
    _assert_identical(whole, rackcost.uncertainty(sc, 250, seed=1, progress=seen.append, workers=3))
    assert seen == [60, 120, 180, 240, 250]


def test_large_runs_are_always_evaluated_in_blocks_bit_for_bit(monkeypatch) -> None:
    """Issue 11: memory bounded by chunking whether or not progress is reported; the result does not change."""
    from rackcost.analysis import montecarlo

    sc = scenario(many_inputs)
    whole = rackcost.uncertainty(sc, 250, seed=1, workers=1)
    per_sample = montecarlo.cells(sc, 1)
    assert per_sample == len(sc.demand) * len(sc.systems)
    monkeypatch.setattr(montecarlo, "CHUNK_CELLS", 40 * per_sample)
    calls: list[int] = []
    evaluate = montecarlo.evaluate_samples

    def counting(scenario, values, n, planned=None):
        calls.append(n)
        return evaluate(scenario, values, n, planned)

    monkeypatch.setattr(montecarlo, "evaluate_samples", counting)
    for workers in (1, 2):
        calls.clear()
        _assert_identical(whole, rackcost.uncertainty(sc, 250, seed=1, workers=workers))
        # blocks of at most CHUNK_CELLS cells, without progress too; then the central values, one sample
        assert calls == [40] * 6 + [10] + [1], calls


def test_block_size() -> None:
    from rackcost.analysis.montecarlo import CHUNK_CELLS, CHUNK_SAMPLES, _block_size

    assert _block_size(10_000, 6, 1, None) == 10_000
    assert _block_size(10_000, 6, 2, None) == 5_000
    assert _block_size(100_000, 6, 1, print) == CHUNK_SAMPLES
    assert _block_size(10_000, 2_000, 2, None) == CHUNK_CELLS // 2_000
    assert _block_size(10, 10 * CHUNK_CELLS, 1, None) == 1


def test_workers_must_be_positive() -> None:
    with pytest.raises(ValueError, match="workers"):
        rackcost.uncertainty(scenario(many_inputs), 10, seed=1, workers=0)


# ------------------------------------------------------------------------------------------- (d) break-even


def _blended(data: dict) -> dict[str, float]:
    res = rackcost.evaluate(rackcost.scenario_from_dict(data)).records
    return {r["system"]: r["blended_usd_per_accepted_request"] for r in res["systems"]}


def _per_point(data: dict, point: str) -> dict[str, float]:
    res = rackcost.evaluate(rackcost.scenario_from_dict(data)).records
    return {r["system"]: r["usd_per_accepted_request"] for r in res["points"] if r["demand_point"] == point}


def _pricier_b(d: dict) -> None:
    # B's chips at $47k make it dearer at cheap power and cheaper at dear power (it draws less energy per request)
    d["systems"][1]["costs"]["capex_usd_per_accelerator"] = 47000


def test_breakeven_on_electricity_price_is_where_both_systems_cost_the_same() -> None:
    sc = scenario(_pricier_b)
    be = rackcost.breakeven(sc, PRICE, low=0.0, high=1.0)
    assert be.value is not None and 0.0 < be.value < 1.0
    assert (be.system, be.baseline, be.demand_point) == ("B", "A", "blended")
    data = copy.deepcopy(BASE)
    _pricier_b(data)
    data["facility"]["electricity_usd_per_kwh"] = be.value
    cost = _blended(data)
    assert cost["B"] == pytest.approx(cost["A"], rel=1e-6)
    # and the sign really changes across it: B dearer below, cheaper above
    data["facility"]["electricity_usd_per_kwh"] = 0.5 * be.value
    below = _blended(data)
    data["facility"]["electricity_usd_per_kwh"] = 1.5 * be.value
    above = _blended(data)
    assert below["B"] > below["A"] and above["B"] < above["A"]


def test_breakeven_at_one_demand_point() -> None:
    sc = scenario(_pricier_b)
    be = rackcost.breakeven(sc, PRICE, demand_point="peak", low=0.0, high=2.0)
    assert be.value is not None
    data = copy.deepcopy(BASE)
    _pricier_b(data)
    data["facility"]["electricity_usd_per_kwh"] = be.value
    cost = _per_point(data, "peak")
    assert cost["B"] == pytest.approx(cost["A"], rel=1e-6)


def test_breakeven_default_range_is_the_distributions_p1_to_p99() -> None:
    def mutate(d):
        _pricier_b(d)
        # the range is chosen so that the break-even ($0.031/kWh with the fitted power law) lies inside it
        d["facility"]["electricity_usd_per_kwh"] = {"dist": "uniform", "low": 0.01, "high": 0.45}

    sc = scenario(mutate)
    be = rackcost.breakeven(sc, PRICE)
    dist = sc.distributions[PRICE]
    assert (be.low, be.high) == (pytest.approx(float(dist.ppf(0.01))), pytest.approx(float(dist.ppf(0.99))))
    assert be.value is not None and be.low <= be.value <= be.high


def test_no_breakeven_in_range_says_so() -> None:
    sc = scenario()  # B is cheaper at any price (less capex, less energy per request)
    be = rackcost.breakeven(sc, PRICE, low=0.0, high=1.0)
    assert be.value is None
    assert "no value of facility.electricity_usd_per_kwh" in be.message
    assert "B is cheaper throughout" in be.message
    assert (be.low, be.high) == (0.0, 1.0)


def test_breakeven_rejects_inputs_it_cannot_vary() -> None:
    sc = scenario()
    with pytest.raises(rackcost.ScenarioError, match="slo.tpot_limit_ms"):
        rackcost.breakeven(sc, "slo.tpot_limit_ms")
    with pytest.raises(rackcost.ScenarioError, match="not a numeric input"):
        rackcost.breakeven(sc, "systems[5].costs.capex_usd_per_rack")
    with pytest.raises(rackcost.ScenarioError, match="other than the baseline"):
        rackcost.breakeven(sc, PRICE, system="A")
    with pytest.raises(rackcost.ScenarioError, match="demand point"):
        rackcost.breakeven(sc, PRICE, demand_point="nope")


# ------------------------------------------------------------------------------------------- (e) property


@st.composite
def uncertain_data(draw) -> dict:
    data = copy.deepcopy(BASE)
    lo = draw(st.floats(0.01, 0.2))
    span = draw(st.floats(0.001, 0.3))
    mode = lo + span * draw(st.floats(0, 1))
    data["facility"]["electricity_usd_per_kwh"] = {"dist": "triangular", "low": lo, "mode": mode, "high": lo + span}
    pue_lo = draw(st.floats(1.0, 1.5))
    data["facility"]["pue"] = {"dist": "uniform", "low": pue_lo, "high": pue_lo + draw(st.floats(0.01, 0.5))}
    data["systems"][1]["costs"]["capex_usd_per_accelerator"] = {
        "dist": "lognormal",
        "median": draw(st.floats(5e3, 1e5)),
        "sigma": draw(st.floats(0.05, 1.0)),
    }
    mean = draw(st.floats(15, 40))
    data["demand"][2]["arrival_rps"] = {  # sd < mean / 6: the support check wants it clear of zero
        "dist": "normal",
        "mean": mean,
        "sd": draw(st.floats(0.5, mean / 7)),
        "truncate_at_zero": True,
    }
    d_lo = draw(st.floats(0.5, 0.9))
    data["uncertainty"] = {
        "throughput_derate": {"vendor": {"dist": "triangular", "low": d_lo, "mode": d_lo, "high": 1.0}}
    }
    return data


@settings(max_examples=8, deadline=None)
@given(data=uncertain_data(), seed=st.integers(0, 2**32 - 1))
def test_percentiles_are_ordered_for_every_column(data: dict, seed: int) -> None:
    result = rackcost.uncertainty(rackcost.scenario_from_dict(data), 97, seed=seed)
    for r in result.percentiles:
        assert r["p5"] <= r["p50"] <= r["p95"], r


# ------------------------------------------------------------------------------------------- (f) probability


def test_probability_cheaper_is_a_fraction_matching_a_direct_count() -> None:
    def mutate(d):
        many_inputs(d)
        d["systems"][1]["costs"]["capex_usd_per_accelerator"] = {"dist": "uniform", "low": 30000, "high": 60000}

    sc = scenario(mutate)
    result = rackcost.uncertainty(sc, 2000, seed=5)
    points = [d.name for d in sc.demand]
    a, b = result.samples["A"], result.samples["B"]
    assert len(result.probability_cheaper) == len(points) + 1
    for r in result.probability_cheaper:
        assert (r["system"], r["baseline"]) == ("B", "A")
        assert 0.0 <= r["probability_fraction"] <= 1.0
        if r["demand_point"] == "blended":
            ours = a["blended_usd_per_accepted_request@system"]
            theirs = b["blended_usd_per_accepted_request@system"]
        else:
            j = points.index(r["demand_point"])
            ours, theirs = a["usd_per_accepted_request"][:, j], b["usd_per_accepted_request"][:, j]
        direct = sum(1 for x, y in zip(theirs, ours, strict=True) if x < y) / len(ours)
        assert r["probability_fraction"] == direct
    # the capex range straddles the break-even, so the answer is genuinely uncertain
    (blended,) = [r for r in result.probability_cheaper if r["demand_point"] == "blended"]
    assert 0.05 < blended["probability_fraction"] < 0.95


# ------------------------------------------------------------------------------------------- (g) tornado


def test_tornado_rows_are_ranked_and_use_the_p5_p95_of_each_input() -> None:
    sc = scenario(many_inputs)
    rows = rackcost.tornado(sc)
    dists = sc.distributions
    assert sorted(r["input"] for r in rows) == sorted(dists)
    # ranked by the largest swing of any system's blended cost relative to its central value (an input of one
    # system moves only that system: ranking by one system's swing would bury the other's inputs)
    central = rackcost.evaluate(sc)
    blended = {r["system"]: r["blended_usd_per_accepted_request"] for r in central.records["systems"]}
    relative = [max(r[f"{s}@swing"] / blended[s] for s in ("A", "B")) for r in rows]
    assert [r["relative_swing"] for r in rows] == pytest.approx(relative, rel=1e-9)
    assert relative == sorted(relative, reverse=True)
    for r in rows:
        d = dists[r["input"]]
        assert r["low_value"] == float(d.ppf(0.05))
        assert r["high_value"] == float(d.ppf(0.95))
        assert r["central_value"] == d.central
        for system in ("A", "B"):
            assert r[f"{system}@swing"] == pytest.approx(abs(r[f"{system}@high"] - r[f"{system}@low"]))
        # the advantage, as everywhere in rackcost: baseline / system (> 1: B is cheaper); issue 11
        assert r["advantage_low"] == pytest.approx(r["A@low"] / r["B@low"])
        assert r["advantage_high"] == pytest.approx(r["A@high"] / r["B@high"])
        assert "ratio_low" not in r


def test_tornado_end_equals_the_deterministic_model_with_that_input_set() -> None:
    sc = scenario(many_inputs)
    (row,) = [r for r in rackcost.tornado(sc) if r["input"] == PRICE]
    data = copy.deepcopy(BASE)
    many_inputs(data)
    for end in ("low", "high"):
        data["facility"]["electricity_usd_per_kwh"] = row[f"{end}_value"]
        cost = _blended(data)
        assert row[f"A@{end}"] == pytest.approx(cost["A"], rel=1e-9)
        assert row[f"B@{end}"] == pytest.approx(cost["B"], rel=1e-9)


def test_all_inputs_central_equals_the_deterministic_evaluate() -> None:
    sc = scenario(many_inputs)
    det = rackcost.evaluate(sc).records
    out = evaluate_samples(sc, {}, 1)
    names = [d.name for d in sc.demand]
    for r in det["points"]:
        j = names.index(r["demand_point"])
        for column in POINT_COLUMNS:
            got = float(out[r["system"]][column][0, j])
            assert got == pytest.approx(r[column], rel=1e-9, abs=1e-12), (r["system"], r["demand_point"], column)
    for r in det["systems"]:
        for column in SYSTEM_COLUMNS:
            got = float(out[r["system"]][column + "@system"][0])
            assert got == pytest.approx(r[column], rel=1e-9, abs=1e-12), (r["system"], column)


def test_tornado_without_distributions_is_empty() -> None:
    assert rackcost.tornado(scenario()) == []


# ------------------------------------------------------------------------------------------- (h) finite


def test_uncertainty_outputs_are_finite() -> None:
    sc = scenario(many_inputs)
    result = rackcost.uncertainty(sc, 500, seed=11)
    for r in result.percentiles:
        assert all(math.isfinite(r[k]) for k in ("p5", "p50", "p95", "mean")), r
    for system, cols in result.samples.items():
        for name, arr in cols.items():
            assert np.all(np.isfinite(arr)), (system, name)
    frame = result.samples_frame()
    assert np.isfinite(frame["value"]).all()
    assert set(frame["system"]) == {"A", "B"}


@pytest.mark.parametrize("name", [p.stem for p in rackcost.bundled_scenarios()])
def test_bundled_scenarios_sample_to_finite_numbers(name: str) -> None:
    result = rackcost.uncertainty(rackcost.load_scenario(name), 200, seed=0)
    for r in result.percentiles:
        assert all(math.isfinite(r[k]) for k in ("p5", "p50", "p95", "mean")), (name, r)
    for r in result.probability_cheaper:
        assert 0.0 <= r["probability_fraction"] <= 1.0


def test_zero_samples_is_refused() -> None:
    with pytest.raises(ValueError, match="samples"):
        rackcost.uncertainty(scenario(), 0)


# ------------------------------------------------------------------------------------------- (i) derate


def test_throughput_derate_scales_the_replica_throughput_of_its_class() -> None:
    plain = {r["system"]: r for r in rackcost.evaluate(scenario()).records["systems"]}
    derated_sc = scenario(
        lambda d: d.update(
            uncertainty={"throughput_derate": {"vendor": {"dist": "triangular", "low": 0.6, "mode": 0.8, "high": 1}}}
        )
    )
    derated = {r["system"]: r for r in rackcost.evaluate(derated_sc).records["systems"]}
    # B is class vendor: its replica serves 0.8x the requests at the same operating point; A (independent) is untouched
    assert derated["B"]["concurrency"] == plain["B"]["concurrency"]
    assert derated["B"]["requests_per_s_per_replica"] == pytest.approx(
        0.8 * plain["B"]["requests_per_s_per_replica"], rel=1e-12
    )
    assert derated["A"] == plain["A"]
    # a plain-number derate does the same
    fixed = scenario(lambda d: d.update(uncertainty={"throughput_derate": {"vendor": 0.8}}))
    assert rackcost.evaluate(fixed).records["systems"] == list(derated.values())


def test_sampled_derate_moves_the_fleet_of_its_class_only() -> None:
    sc = scenario(
        lambda d: d.update(uncertainty={"throughput_derate": {"vendor": {"dist": "uniform", "low": 0.5, "high": 1.0}}})
    )
    result = rackcost.uncertainty(sc, 400, seed=2)
    rows = rows_by_key(result)
    a = rows[("A", "system", "provisioned_replicas")]
    b = rows[("B", "system", "provisioned_replicas")]
    assert a["p5"] == a["p95"]
    assert b["p95"] > b["p5"]  # half the throughput needs more replicas


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        ({"input_path": "uncertainty.throughput_derate.collaborative", "low": -5.0, "high": 1.0}, "allowed values"),
        ({"input_path": "uncertainty.throughput_derate.vendor"}, "no system has provenance class"),
        ({"input_path": "facility.pue", "low": 2.0, "high": 1.0}, "low < high"),
    ],
)
def test_breakeven_refuses_a_range_it_cannot_search(kwargs: dict, expected: str) -> None:
    # a range outside the input's own bounds, a derate no system carries, or a reversed range: a named error
    scenario = rackcost.load_scenario("deepseek-r1-jalapeno-vs-gb300")
    with pytest.raises(rackcost.ScenarioError, match=expected):
        rackcost.breakeven(scenario, **kwargs)


def test_scenario_to_data_keeps_distributions_in_place() -> None:
    # the dashboard's cache key and export are built from this: a distribution must not collapse to its centre
    from rackcost.scenario.loading import scenario_to_data

    scenario = rackcost.load_scenario("deepseek-r1-jalapeno-vs-gb300")
    data = scenario_to_data(scenario)
    assert data["facility"]["electricity_usd_per_kwh"]["dist"] == "triangular"
    assert rackcost.scenario_from_dict(data) == scenario


def test_breakeven_widens_its_default_range_until_it_finds_the_root() -> None:
    # issue 22: on the bundled default the node price of systems[1] at which both cost the same lies outside 0.25x
    # to 4x of its value; the default search widens (BREAKEVEN_WIDENING) and finds it, and the costs meet there
    from rackcost.analysis.sensitivity import BREAKEVEN_DEFAULT_RANGE
    from rackcost.scenario.loading import scenario_to_data

    sc = rackcost.load_scenario("deepseek-r1-jalapeno-vs-gb300.yaml")
    path = "systems[1].costs.capex_usd_per_node"
    central = float(sc.systems[1].costs.capex_usd_per_node)
    be = rackcost.breakeven(sc, path)
    assert be.value is not None and "found after widening the search" in be.message
    lo, hi = BREAKEVEN_DEFAULT_RANGE
    assert not lo * central <= be.value <= hi * central  # the old default range would have said "no value"
    data = scenario_to_data(sc)
    data["systems"][1]["costs"]["capex_usd_per_node"] = be.value
    rows = rackcost.evaluate(rackcost.scenario_from_dict(data)).records["systems"]
    costs = [r["blended_usd_per_accepted_request"] for r in rows]
    assert costs[0] == pytest.approx(costs[1], rel=1e-6)


def test_breakeven_with_no_root_anywhere_says_it_searched_every_allowed_value() -> None:
    # a PUE of 1 to 5 (the schema's range) never makes GB300 as cheap as Jalapeño: the search says so, over every
    # value the input allows, instead of refusing a 0.25x range below PUE 1
    sc = rackcost.load_scenario("deepseek-r1-jalapeno-vs-gb300.yaml")
    be = rackcost.breakeven(sc, "facility.pue")
    assert be.value is None and (be.low, be.high) == (1.0, 5.0)
    assert "the scenario allows" in be.message and "cheaper throughout" in be.message


def test_breakeven_of_an_input_at_zero_searches_from_zero() -> None:
    # a value of 0 gave "low < high, got [0, 0]": the search starts at [0, 1] and widens its top
    from rackcost.scenario.loading import scenario_to_data

    sc = rackcost.load_scenario("deepseek-r1-jalapeno-vs-gb300.yaml")
    data = scenario_to_data(sc)
    data["facility"]["electricity_usd_per_kwh"] = 0.0
    be = rackcost.breakeven(rackcost.scenario_from_dict(data), "facility.electricity_usd_per_kwh")
    assert be.low == 0.0 and be.high > 0.0


# ---------------------------------------------------------------------- percentiles by partition (issue 24, item 5)
@settings(max_examples=200, deadline=None)
@given(
    values=st.lists(
        st.floats(min_value=-1e12, max_value=1e12, allow_nan=False, allow_infinity=False), min_size=1, max_size=400
    ),
    stride=st.integers(1, 3),
)
def test_percentiles_by_partition_equal_numpy_percentile(values: list[float], stride: int) -> None:
    """The P5, P50 and P95 of a column found by partition equal numpy.percentile's default (linear) method to
    1e-12 relative (both interpolate between the same two order statistics; only the last rounding of the lerp
    may differ), also on a strided column (a demand point of a samples x points array), and its mean is numpy's."""
    from rackcost.analysis.montecarlo import _summary

    col = np.repeat(np.asarray(values, dtype=float)[:, None], stride, axis=1)[:, 0]
    p5, p50, p95, mean = _summary(col)
    expected = np.percentile(col, [5.0, 50.0, 95.0])
    scale = np.maximum(np.abs(expected), np.max(np.abs(col)))  # the lerp's rounding is relative to its ends
    assert np.all(np.abs(np.array([p5, p50, p95]) - expected) <= 1e-12 * scale + 1e-300)
    assert p5 <= p50 <= p95
    if col.min() == col.max():
        assert p5 == p50 == p95 == mean == col[0]
    else:
        assert mean == float(col.mean())


def test_percentiles_by_partition_are_the_sorted_order_statistics() -> None:
    """On 100,001 draws with ties (so that the ranks fall on repeated values) each percentile is the lerp of the
    fully sorted column's two order statistics, bit for bit: the partition changes no result of a run."""
    from rackcost.analysis.montecarlo import _summary

    rng = np.random.default_rng(7)
    col = np.round(rng.lognormal(size=(100_001, 3))[:, 1], 2)
    ordered = np.sort(col)
    pos = np.array([5.0, 50.0, 95.0]) / 100.0 * (col.size - 1)
    below = np.floor(pos).astype(int)
    above = np.minimum(below + 1, col.size - 1)
    expected = ordered[below] + (pos - below) * (ordered[above] - ordered[below])
    assert list(_summary(col)[:3]) == expected.tolist()


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(16_384, 60_000),
    decimals=st.integers(0, 3),
    order=st.sampled_from(["drawn", "sorted", "reversed", "periodic"]),
)
def test_selected_order_statistics_are_the_sorted_ones(seed: int, n: int, decimals: int, order: str) -> None:
    """On columns long enough to be selected through a sample's brackets, with ties (rounded draws) and in orders
    that a strided sample sees badly (sorted, reversed, a pattern of the sample's period, where brackets miss and
    the fallback takes over), every percentile is the lerp of np.sort's two order statistics, bit for bit."""
    from rackcost.analysis.montecarlo import SELECT_SAMPLE, _summary

    rng = np.random.default_rng(seed)
    col = np.round(rng.lognormal(size=n), decimals)
    if order == "sorted":
        col = np.sort(col)
    elif order == "reversed":
        col = np.sort(col)[::-1].copy()
    elif order == "periodic":  # the positions the sample reads hold the smallest values: every bracket misses
        sampled = np.zeros(n, dtype=bool)
        sampled[:: n // SELECT_SAMPLE] = True
        ordered = np.sort(col)
        col = np.empty(n)
        col[sampled], col[~sampled] = ordered[: sampled.sum()], ordered[sampled.sum() :]
    ordered = np.sort(col)
    pos = np.array([5.0, 50.0, 95.0]) / 100.0 * (n - 1)
    below = np.floor(pos).astype(int)
    above = np.minimum(below + 1, n - 1)
    expected = ordered[below] + (pos - below) * (ordered[above] - ordered[below])
    assert list(_summary(col)[:3]) == expected.tolist()
