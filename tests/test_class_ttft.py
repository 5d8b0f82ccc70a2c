"""The p99 TTFT of a class whose inputs spread (rackcost.model.queues.class_ttft, issue 23 "Real workloads" item 2) and
the wait's stretch at a demand point's own load (rackcost.model.queues.burstiness.point_wait_stretch), against closed
forms."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import brentq

import rackcost
from rackcost.model.queues.burstiness import point_wait_stretch, wait_stretch
from rackcost.model.queues.class_ttft import (
    NO_WAIT_LEVELS,
    NO_WAIT_WEIGHTS,
    QUANTILE_LEVELS,
    cdf_law,
    fixed_law,
    gamma_law,
    lognormal_law,
    mixture_quantile_ms,
    stack_laws,
    sum_quantile_ms,
)
from rackcost.model.workload.classes import cdf_moments
from rackcost.scenario import unpack
from reference import DATA

J = NO_WAIT_LEVELS.size
GRID_TOLERANCE_FRACTION = 0.005
"""How far the grid's quantile (linear between :data:`QUANTILE_LEVELS`) may put a sum's p99 from the closed form: the
chord of a convex quantile function over the tail's steps of 10^0.2 in ``1 - p`` lies at most a few tenths of a
percent above it (0.2% for the exponential)."""


def _p99(law, x_ms: float, waiting: float, mean_wait_ms: float) -> float:
    """The p99 of ``Y x + W`` for one class with every no-wait level at ``x`` [ms]."""
    out = sum_quantile_ms(
        stack_laws([law]), np.full((1, J), x_ms), np.array([x_ms]), np.array([waiting]), np.array([1 / mean_wait_ms])
    )
    return float(out[0])


def test_the_no_wait_strata_add_up_and_put_the_top_at_the_99th_percentile() -> None:
    assert NO_WAIT_WEIGHTS.sum() == pytest.approx(1.0, abs=1e-15)
    bounds = np.concatenate([[0.0], np.cumsum(NO_WAIT_WEIGHTS)])
    np.testing.assert_allclose(NO_WAIT_LEVELS, (bounds[:-1] + bounds[1:]) / 2, atol=1e-15)
    assert NO_WAIT_LEVELS[-1] == 0.99 and 0.99 in QUANTILE_LEVELS


@pytest.mark.parametrize("waiting", [0.0, 0.3, 1.0])
def test_exponential_input_plus_an_exponential_wait_with_an_atom_is_the_closed_form(waiting: float) -> None:
    # X ~ Exp(mean m), W = 0 w.p. 1 - C, else Exp(rate b): P(X + W > t) = (1 - C) e^{-a t} + C (b e^{-a t} - a e^{-b t})
    # / (b - a), a = 1 / m (the convolution of two exponentials; e.g. Ross, Introduction to Probability Models,
    # Sec. 5.2.4, the hypoexponential)
    m, mean_wait = 100.0, 40.0
    a, b = 1 / m, 1 / mean_wait

    def tail(t: float) -> float:
        return (
            (1 - waiting) * math.exp(-a * t) + waiting * (b * math.exp(-a * t) - a * math.exp(-b * t)) / (b - a) - 0.01
        )

    exact = brentq(tail, 1.0, 1e5)
    assert _p99(gamma_law(1.0), m, waiting, mean_wait) == pytest.approx(exact, rel=GRID_TOLERANCE_FRACTION)


def test_exponential_input_and_wait_of_the_same_mean_is_a_gamma_of_shape_two() -> None:
    # every request waits: the sum of two exponentials of mean 100 ms, P = (1 + t / 100) e^{-t / 100}
    exact = 100 * brentq(lambda u: (1 + u) * math.exp(-u) - 0.01, 1.0, 50.0)
    assert _p99(gamma_law(1.0), 100.0, 1.0, 100.0) == pytest.approx(exact, rel=GRID_TOLERANCE_FRACTION)


@pytest.mark.parametrize(
    ("law", "p99"),
    [
        (lognormal_law(1.0), None),
        (gamma_law(0.5), None),
        (cdf_law([2000, 4000, 8000, 16000], [0.1, 0.5, 0.9, 1.0]), 15200 / 5000),
    ],
)
def test_without_a_wait_the_p99_is_the_input_quantile(law, p99) -> None:
    if p99 is None:  # a parametric law's nodes are its exact quantiles, and 0.99 is a node
        p99 = float(law.value[list(QUANTILE_LEVELS).index(0.99)])
    assert _p99(law, 200.0, 0.0, 50.0) == pytest.approx(200.0 * p99, rel=1e-9)


def test_the_lognormal_p99_node_is_the_closed_form() -> None:
    sigma = math.sqrt(math.log(2.0))  # cv 1
    exact = math.exp(-(sigma**2) / 2 + sigma * 2.3263478740408408)
    assert float(lognormal_law(1.0).value[list(QUANTILE_LEVELS).index(0.99)]) == pytest.approx(exact, rel=1e-12)


def test_a_cdf_law_has_the_mean_cdf_moments_reads() -> None:
    tokens, cumulative = [20, 60, 1200, 1600], [0.0, 0.6, 0.6, 1.0]
    law = cdf_law(tokens, cumulative)
    mean, _ = cdf_moments(tokens, cumulative)
    strata = np.diff(law.level_fraction) * (law.value[:-1] + law.value[1:]) / 2
    assert float(strata.sum()) == pytest.approx(1.0, rel=1e-12)
    assert float(law.value[-1]) * mean == pytest.approx(1600.0, rel=1e-12)


def test_a_fixed_input_gives_the_prefill_plus_the_wait_quantile() -> None:
    # Y = 1: p99 = x + ln(C / 0.01) / theta where C > 1% (today's closed form), x where C <= 1%
    x, mean_wait = 300.0, 80.0
    for waiting in (0.2, 0.05):
        assert _p99(fixed_law(), x, waiting, mean_wait) == pytest.approx(x + mean_wait * math.log(waiting / 0.01))
    assert _p99(fixed_law(), x, 0.004, mean_wait) == pytest.approx(x, rel=1e-9)


def test_a_waiting_request_starts_at_the_full_replicas_ttft() -> None:
    # no-wait requests at 100 ms, waiting ones at 300 ms with no wait to speak of: the top 1% are those that wait
    law = stack_laws([fixed_law()])
    out = sum_quantile_ms(law, np.full((1, J), 100.0), np.array([300.0]), np.array([0.02]), np.array([1e6]))
    assert float(out[0]) == pytest.approx(300.0, rel=1e-6)


@settings(max_examples=40, deadline=None)
@given(
    cv=st.floats(0.1, 2.5),
    x=st.floats(10.0, 5000.0),
    waiting=st.floats(0.0, 1.0),
    mean_wait=st.floats(1.0, 5000.0),
)
def test_the_sum_quantile_is_bracketed_by_its_parts(cv: float, x: float, waiting: float, mean_wait: float) -> None:
    # X + W >= X and >= W, so its p99 is at least each part's; P(X + W > a + b) <= P(X > a) + P(W > b), so it is at
    # most the sum of their 99.5th percentiles
    law = lognormal_law(cv)
    t = _p99(law, x, waiting, mean_wait)
    x99, x995 = (x * float(np.interp(q, law.level_fraction, law.value)) for q in (0.99, 0.995))
    w99, w995 = (mean_wait * math.log(waiting / tail) if waiting > tail else 0.0 for tail in (0.01, 0.005))
    assert max(x99, w99) * (1 - 1e-9) <= t <= (x995 + w995) * (1 + 1e-9) + 1e-9
    more = _p99(law, x, min(1.0, waiting + 0.1), mean_wait)
    assert more >= t * (1 - 1e-9)  # more waiting never shortens the tail


def test_a_class_of_one_input_length_keeps_todays_p99_ttft_bit_for_bit(monkeypatch: pytest.MonkeyPatch) -> None:
    """The three-class scenario's reasoning class (plain numbers) beside two whose inputs spread: its p99 TTFT is
    today's closed form (rho_k TTFT(L) plus the queue's p99 wait), exactly as without the spread path; the spread
    classes' p99 is longer than their mean request's."""
    scenario = rackcost.load_scenario(DATA / "three_classes.yaml")
    spread = rackcost.evaluate(scenario).records["classes"]
    monkeypatch.setattr(unpack, "input_law", lambda classes: None)
    today = rackcost.evaluate(scenario).records["classes"]
    assert len(spread) == len(today) == 18
    for new, old in zip(spread, today, strict=True):
        if new["class"] == "reasoning":
            assert new["ttft_p99_ms"] == old["ttft_p99_ms"]
        else:
            assert new["ttft_p99_ms"] > old["ttft_p99_ms"]
        assert new["accepted_rps"] == old["accepted_rps"]  # acceptance judges the class's mean request (docs)


def test_point_stretch_is_kingman_on_one_server_and_exactly_one_for_exponential_service() -> None:
    for scv in (0.0, 0.25, 4.0):
        kingman = float(wait_stretch(1.0, scv))
        assert float(point_wait_stretch(kingman, 1.0, 0.6, 1)) == pytest.approx(kingman, rel=1e-12)
    assert float(point_wait_stretch(1.0, 1.0, 0.3, 500)) == 1.0
    assert float(point_wait_stretch(1.0, 2.5, 0.9, 64)) == 1.0  # bursty arrivals, exponential service


def test_point_stretch_is_kimuras_interpolation_with_cosmetatos_below_scv_one() -> None:
    # Cosmetatos (1976): W(M/D/s) / W(M/M/s) = (1 + (1 - rho)(s - 1)(sqrt(4 + 5 s) - 2) / (16 rho s)) / 2; Kimura
    # (1994): W(M/G/s) = (1 + c^2) / (2 c^2 / W_M + (1 - c^2) / W_D). Deterministic service: the ratio itself
    s, rho = 40, 0.75
    r = (1 + (1 - rho) * (s - 1) * (math.sqrt(4 + 5 * s) - 2) / (16 * rho * s)) / 2
    assert float(point_wait_stretch(float(wait_stretch(1.0, 0.0)), 1.0, rho, s)) == pytest.approx(r, rel=1e-12)
    c2 = 0.25
    kimura = (1 + c2) / (2 * c2 + (1 - c2) / r)
    assert float(point_wait_stretch(float(wait_stretch(1.0, c2)), 1.0, rho, s)) == pytest.approx(kimura, rel=1e-12)
    # in heavy traffic Cosmetatos's ratio is 1/2 and Kimura's interpolation is Kingman's
    assert float(point_wait_stretch(float(wait_stretch(1.0, c2)), 1.0, 1.0, s)) == pytest.approx(0.625, rel=1e-12)


@settings(max_examples=60, deadline=None)
@given(scv=st.floats(0.0, 8.0), ca=st.floats(0.0, 6.0), rho=st.floats(0.01, 1.0), servers=st.integers(1, 5000))
def test_point_stretch_is_never_below_kingmans(scv: float, ca: float, rho: float, servers: int) -> None:
    kingman = float(wait_stretch(ca, scv))
    v = (ca + 1) / 2
    out = float(point_wait_stretch(kingman, v, rho, servers))
    assert math.isfinite(out) and out >= kingman * (1 - 1e-12)
    if scv >= 1.0:
        assert out == pytest.approx(kingman, rel=1e-9)


# --------------------------------------------------------------------------- the mix's p99: a request drawn from it


def test_the_mix_of_two_exponential_inputs_without_a_wait_is_the_closed_form_mixture() -> None:
    """Two classes of exponential inputs (gamma cv 1) of means 100 and 1,000 ms in shares 0.7 / 0.3, nothing waiting:
    ``P(T > t) = 0.7 exp(-t/100) + 0.3 exp(-t/1000)``, whose 0.01 root brentq gives. The mix reads the second
    class's law near its level 1 - 0.01 / 0.3 = 0.967, between the grid's nodes 0.960 and 0.975, where the chord of the
    exponential's quantile lies 0.75% above it: within 1%, the grid's error, not the mixture's."""
    law = stack_laws([gamma_law(1.0), gamma_law(1.0)])
    x = np.array([[100.0] * J, [1000.0] * J])
    t = mixture_quantile_ms(law, x, np.array([100.0, 1000.0]), np.array([0.0]), np.array([1.0]), np.array([0.7, 0.3]))
    exact = brentq(lambda s: 0.7 * math.exp(-s / 100) + 0.3 * math.exp(-s / 1000) - 0.01, 0.0, 1e5)
    assert float(t) == pytest.approx(exact, rel=0.01)
    assert float(t) >= exact  # the chord of a convex quantile function: conservative


def test_the_mix_of_one_class_is_that_class() -> None:
    law = stack_laws([lognormal_law(1.0)])
    args = (np.full((1, J), 80.0), np.array([120.0]), np.array([0.4]), np.array([1 / 200.0]))
    mixed = mixture_quantile_ms(law, *args, np.array([1.0]))
    alone = sum_quantile_ms(law, *args)
    assert float(mixed) == pytest.approx(float(alone[0]), rel=1e-9)


@settings(max_examples=40, deadline=None)
@given(
    share=st.floats(0.05, 0.95),
    x0=st.floats(10.0, 2000.0),
    x1=st.floats(10.0, 2000.0),
    waiting=st.floats(0.0, 1.0),
    mean_wait=st.floats(1.0, 2000.0),
)
def test_the_mix_p99_lies_between_its_classes_quantiles(share, x0, x1, waiting, mean_wait) -> None:
    """A mixture's q-quantile is at least the smallest and at most the largest of its parts' q-quantiles (each
    part's tail at the mixture's quantile is at most, resp. at least, 1 - q for one of them)."""
    law = stack_laws([lognormal_law(1.0), cdf_law([500, 1500], [0.2, 1.0])])
    x = np.array([[x0] * J, [x1] * J])
    args = (law, x, np.array([x0, x1]), np.array([waiting]), np.array([1.0 / mean_wait]))
    parts = sum_quantile_ms(*args)
    mixed = float(mixture_quantile_ms(*args, np.array([share, 1.0 - share])))
    assert float(parts.min()) * (1 - 1e-9) <= mixed <= float(parts.max()) * (1 + 1e-9)


@settings(max_examples=60, deadline=None)
@given(
    shares=st.lists(st.floats(0.05, 1.0), min_size=2, max_size=4),
    prefill=st.lists(st.floats(10.0, 5000.0), min_size=4 * J, max_size=4 * J),
    q=st.sampled_from([0.5, 0.9, 0.99, 0.999]),
)
def test_a_mix_of_one_length_classes_without_a_wait_is_its_discrete_quantile(shares, prefill, q) -> None:
    """Nothing waits and every class has one input length: a request's TTFT is one of the atoms ``x_kj`` with
    probability ``p_k w_j``, and the mix's q-quantile is the least atom ``v`` with ``P(T > v) <= 1 - q``, exactly
    (the root find steps between the jumps; by brute force over the sorted atoms here)."""
    k = len(shares)
    share = np.array(shares) / sum(shares)
    x = np.sort(np.array(prefill[: k * J]).reshape(k, J), axis=1)  # start occupancies rise with the level
    law = stack_laws([fixed_law()] * k)
    got = float(mixture_quantile_ms(law, x, x[:, -1], np.array([0.0]), np.array([1.0]), share, q))
    atoms = x.ravel()
    mass = (share[:, None] * NO_WAIT_WEIGHTS[None, :]).ravel()
    order = np.argsort(atoms)
    survival = 1.0 - np.cumsum(mass[order])  # P(T > atom), atom by atom in rising order
    expected = float(atoms[order][np.argmax(survival <= (1.0 - q) * (1 + 1e-12))])
    assert got == pytest.approx(expected, rel=1e-9)
