"""Request classes: a workload that mixes request shapes, their service times and the queue they share (docs/model.md,
Request classes). Pure numpy: the scenario layer fills :class:`ClassMix`.

A workload may serve several classes of requests (chat, reasoning, agentic), each with its share of the arrivals,
its input and output length (a number, or a per-request length distribution), a share of its input served from the
prefix cache, and optionally its own SLO. Every replica runs one curve, measured at the workload's nominal shape
(ISL, OSL: ``performance.benchmark_input_tokens`` and ``benchmark_output_tokens``, default the mix's mean lengths).
A class's request is scaled from the benchmark's:

    r_k        = (1 - h_k) x In_k / ISL                    prefill work of its uncached input, relative to ISL
    TTFT_k(c)  = r_k x TTFT(c)
    e_k(c)     = TTFT_k(c) + (Out_k - 1) x TPOT(c)         its latency without queueing (prefill, then decode)
    S_k(c)     = S(c) x e_k(c) / e(c),  e(c) = TTFT(c) + (OSL - 1) x TPOT(c)

with ``S(c) = c / mu(c)`` the measured slot holding time (Little's law on the benchmark run), so that a class of
the benchmark's shape holds a slot exactly ``S(c)``. The classes share one FIFO queue whose service time is the
mixture: ``E[S] = sum_k p_k S_k``, and its squared coefficient of variation, by the law of total variance,

    SCV = sum_k p_k (S_k / E[S])^2 (1 + w_k) - 1

``w_k`` the within-class SCV of ``S_k``: from the class's length distributions, ``w_k = ((TTFT_k cv_in)^2 +
(TPOT sd_out)^2) / e_k^2`` (input and output lengths independent), or, for a class whose lengths are plain numbers,
the model's default (exponential service, ``w = 1``: what M/M/k has always assumed). The mix's SCV stretches the
conditional wait (:func:`rackcost.model.queues.burstiness.wait_stretch`).

Each class has its own queueing budget (its SLO's TTFT limit less its own TTFT, or its end-to-end slack), and its
requests are accepted when their wait is within it. Sizing meets every class's attainment target: classes that share
a target are bound by the smallest budget among them (a shorter budget is harder to meet in the same queue), and
classes with different targets each ask for their own replica count, the fleet the largest (:func:`slo_groups`).

Every function takes the latencies of the *mix's* curve: ``TTFT_mix(c) = r_mean x TTFT(c)`` with ``r_mean = sum_k
p_k r_k``, so a class's TTFT is ``rho_k x TTFT_mix`` with ``rho_k = r_k / r_mean`` (:attr:`ClassMix.ttft_ratio`),
which does not depend on the benchmark's ISL. :func:`mix_curve_factors` turns a measured curve into the mix's.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from rackcost.model.queues.class_ttft import StratifiedLaw
from rackcost.model.queues.erlang import broadcast_to_few
from rackcost.units import MS_PER_S

__all__ = [
    "ClassMix",
    "SloGroup",
    "cdf_moments",
    "class_budgets_s",
    "class_feasible",
    "class_ttft_ms",
    "cost_share_fraction",
    "latency_ms",
    "mix_curve_factors",
    "mix_service_scv",
    "service_split",
    "slo_groups",
]

Array = NDArray[np.float64]


def cdf_moments(tokens: ArrayLike, cumulative_fraction: ArrayLike) -> tuple[float, float]:
    """Mean and variance of a length given by an empirical CDF table ``[[tokens, cumulative_fraction], ...]``
    [tokens, tokens^2].

    The first row's share lies at its length (requests of at most that many tokens, counted at it: the
    conservative reading), and each later row's increment is spread uniformly over the lengths since the row
    before, ``(t_{i-1}, t_i]``: ``E[X] = F_0 t_0 + sum_i dF_i (t_{i-1} + t_i) / 2`` and ``E[X^2] = F_0 t_0^2 + sum_i
    dF_i (t_{i-1}^2 + t_{i-1} t_i + t_i^2) / 3``. The table must rise in tokens and end at 1 (the schema checks it).

    Examples
    --------
    Half the requests at 100 tokens, the other half spread evenly over 100 to 300: mean 0.5 x 100 + 0.5 x 200 =
    150, second moment 0.5 x 10^4 + 0.5 x (10^4 + 3 x 10^4 + 9 x 10^4) / 3 = 26,666.7, variance 4,166.7:

    >>> mean, var = cdf_moments([100, 300], [0.5, 1.0])
    >>> round(mean, 6), round(var, 4)
    (150.0, 4166.6667)
    """
    t = np.asarray(tokens, dtype=float)
    f = np.asarray(cumulative_fraction, dtype=float)
    mass = np.diff(f, prepend=0.0)
    lo = np.concatenate([t[:1], t[:-1]])  # the first row is a point mass at its length
    mean = float(np.sum(mass * (lo + t) / 2.0))
    second = float(np.sum(mass * (lo * lo + lo * t + t * t) / 3.0))
    return mean, max(second - mean * mean, 0.0)


@dataclass(frozen=True)
class SloGroup:
    """Classes that share an attainment target: the queue must keep ``P(W > min budget) <= miss_fraction``.

    Attributes
    ----------
    classes
        Indices of the classes in the group [-].
    miss_fraction
        Share of their requests allowed to miss the SLO at the sizing demand, ``1 - attainment`` [-].
    """

    classes: tuple[int, ...]
    miss_fraction: float


@dataclass(frozen=True)
class ClassMix:
    """The request classes of a workload, one entry per class in every array (shape ``(K,)``).

    Attributes
    ----------
    names
        Class names, in the scenario's order.
    share_fraction
        Share of the arrivals of each class; they add up to 1 [-].
    input_tokens, output_tokens
        Mean input (prompt, cached part included) and output tokens per request [tokens].
    prefix_hit_fraction
        Share of each request's input served from the prefix cache: no prefill work for it [-].
    input_tokens_cv, output_tokens_cv
        Coefficient of variation of the class's per-request input and output lengths; 0 for a fixed count and for a
        plain number in a class that gives a distribution [-].
    spread_stated
        Whether the class gives a length distribution for its input or output; a class that gives only plain
        numbers keeps the model's default service, of SCV ``default_service_scv``.
    ttft_limit_ms, tpot_limit_ms, e2e_limit_ms
        Each class's SLO limits (its own, else the workload's); ``inf`` where there is no end-to-end limit [ms].
    attainment_fraction
        Each class's attainment target at the sizing demand [-].
    default_service_scv
        Within-class SCV of the service time of a class whose lengths are plain numbers: 1, exponential [-].
    input_law
        Each class's uncached input over its mean as a stratified law, shape ``(K, M + 1)``
        (:class:`rackcost.model.queues.class_ttft.StratifiedLaw`), for the p99 TTFT of a class whose inputs spread; None
        where every class has one input length.
    """

    names: tuple[str, ...]
    share_fraction: Array
    input_tokens: Array
    output_tokens: Array
    prefix_hit_fraction: Array
    input_tokens_cv: Array
    output_tokens_cv: Array
    spread_stated: NDArray[np.bool_]
    ttft_limit_ms: Array
    tpot_limit_ms: Array
    e2e_limit_ms: Array
    attainment_fraction: Array
    default_service_scv: float = 1.0
    input_law: StratifiedLaw | None = None

    def __len__(self) -> int:
        return len(self.names)

    @functools.cached_property
    def uncached_input_tokens(self) -> Array:
        """Input tokens per request that the replica prefills: ``(1 - h) x In`` [tokens] (computed once: read only)."""
        return _read_only((1.0 - self.prefix_hit_fraction) * self.input_tokens)

    @functools.cached_property
    def ttft_ratio(self) -> Array:
        """Each class's TTFT over the mix's mean TTFT at any concurrency, ``rho_k = u_k / sum_j p_j u_j`` with ``u``
        the uncached input [-]; their share-weighted mean is 1 (computed once: read only)."""
        u = self.uncached_input_tokens
        return _read_only(u / np.sum(self.share_fraction * u))

    @property
    def mean_input_tokens(self) -> float:
        """The mix's mean input tokens per request, cached part included [tokens]."""
        return float(np.sum(self.share_fraction * self.input_tokens))

    @property
    def mean_output_tokens(self) -> float:
        """The mix's mean output tokens per request [tokens]."""
        return float(np.sum(self.share_fraction * self.output_tokens))

    @property
    def cached_input_fraction(self) -> float:
        """Share of the mix's input tokens served from the prefix cache [-]."""
        return float(np.sum(self.share_fraction * self.prefix_hit_fraction * self.input_tokens)) / (
            self.mean_input_tokens
        )

    @property
    def miss_fraction(self) -> Array:
        """Each class's allowed share of SLO misses at the sizing demand, ``1 - attainment`` [-]."""
        return np.asarray(1.0 - self.attainment_fraction, dtype=float)


def _with_class_axis(x: ArrayLike) -> Array:
    """``x`` with a trailing axis of length 1, to broadcast against the per-class arrays."""
    return np.asarray(x, dtype=float)[..., None]


def class_ttft_ms(mix: ClassMix, ttft_ms: ArrayLike) -> Array:
    """Each class's TTFT before queueing, ``rho_k x TTFT_mix``, shape ``(..., K)`` [ms].

    Examples
    --------
    A class of 1,000 uncached input tokens and one of 3,000 in equal shares: the mix's mean is 2,000, so at a mix
    TTFT of 200 ms the classes wait 100 and 300 ms for their first token:

    >>> mix = _example_mix()
    >>> class_ttft_ms(mix, 200.0).tolist()
    [100.0, 300.0]
    """
    return _with_class_axis(ttft_ms) * mix.ttft_ratio


def latency_ms(mix: ClassMix, ttft_ms: ArrayLike, tpot_ms: ArrayLike) -> Array:
    """Each class's latency without queueing, ``e_k = TTFT_k + (Out_k - 1) x TPOT``, shape ``(..., K)`` [ms].

    Examples
    --------
    >>> latency_ms(_example_mix(), 200.0, 10.0).tolist()
    [1090.0, 1290.0]
    """
    return class_ttft_ms(mix, ttft_ms) + (mix.output_tokens - 1.0) * _with_class_axis(tpot_ms)


def class_budgets_s(mix: ClassMix, ttft_ms: ArrayLike, tpot_ms: ArrayLike) -> Array:
    """Each class's queueing budget: its TTFT limit less its TTFT, or its end-to-end slack when smaller, shape
    ``(..., K)`` [s]; negative where the class misses its SLO before any queueing.

    Examples
    --------
    TTFT limit 1 s for both classes, end-to-end 1.2 s: the first may wait 0.11 s (its end-to-end slack), the
    second's 1.29 s without queueing is already over its end-to-end limit:

    >>> class_budgets_s(_example_mix(), 200.0, 10.0).round(6).tolist()
    [0.11, -0.09]
    """
    ttft = class_ttft_ms(mix, ttft_ms)
    budget = mix.ttft_limit_ms - ttft
    if np.isfinite(mix.e2e_limit_ms).any():  # an end-to-end limit of no class leaves every budget as it is
        budget = np.minimum(budget, mix.e2e_limit_ms - (ttft + (mix.output_tokens - 1.0) * _with_class_axis(tpot_ms)))
    return np.asarray(budget / MS_PER_S, dtype=float)


def class_feasible(mix: ClassMix, ttft_ms: ArrayLike, tpot_ms: ArrayLike) -> NDArray[np.bool_]:
    """Whether each class meets its SLO before queueing: TPOT <= its limit, its TTFT < its limit and its latency
    < its end-to-end limit, shape ``(..., K)``.

    Examples
    --------
    >>> class_feasible(_example_mix(), 200.0, 10.0).tolist()
    [True, False]
    """
    tpot = _with_class_axis(tpot_ms)
    ttft = class_ttft_ms(mix, ttft_ms)
    ok = ttft < mix.ttft_limit_ms
    # a limit no class has is not compared (the curve's every point, for nothing); latency_ms's sum, read once
    if np.isfinite(mix.tpot_limit_ms).any():
        ok &= tpot <= mix.tpot_limit_ms
    if np.isfinite(mix.e2e_limit_ms).any():
        ok &= ttft + (mix.output_tokens - 1.0) * tpot < mix.e2e_limit_ms
    return np.asarray(broadcast_to_few(ok, np.broadcast(ttft, tpot).shape))


def slo_groups(mix: ClassMix) -> tuple[SloGroup, ...]:
    """The classes grouped by attainment target, the strictest target first.

    In one FIFO queue every class waits the same wait ``W``; class ``k`` needs ``P(W > b_k) <= m_k``. Among classes
    with the same target ``m`` the one with the smallest budget binds, since ``P(W > b)`` falls as ``b`` grows; a
    class with another target is a constraint of its own, so sizing takes the largest replica count over the
    groups and the capacity at SLO the smallest rate.

    Examples
    --------
    >>> [(g.classes, round(g.miss_fraction, 6)) for g in slo_groups(_example_mix())]
    [((0, 1), 0.01)]
    """
    miss = mix.miss_fraction
    targets = sorted(set(miss.tolist()))
    return tuple(SloGroup(tuple(int(i) for i in np.flatnonzero(miss == m)), float(m)) for m in targets)


def service_split(mix: ClassMix, ttft_ms: ArrayLike, tpot_ms: ArrayLike) -> Array:
    """Each class's service time over the mix's mean, ``S_k / E[S] = e_k / sum_j p_j e_j``, shape ``(..., K)`` [-].

    Examples
    --------
    Latencies 1,090 and 1,290 ms in equal shares: the mean is 1,190 ms.

    >>> service_split(_example_mix(), 200.0, 10.0).round(6).tolist()
    [0.915966, 1.084034]
    """
    e = latency_ms(mix, ttft_ms, tpot_ms)
    return np.asarray(e / np.sum(mix.share_fraction * e, axis=-1, keepdims=True), dtype=float)


def mix_service_scv(mix: ClassMix, ttft_ms: ArrayLike, tpot_ms: ArrayLike) -> Array:
    """The squared coefficient of variation of the mix's service time, shape ``(...)`` [-].

    ``sum_k p_k (S_k / E[S])^2 (1 + w_k) - 1`` (the law of total variance), ``w_k`` each class's own SCV: from its
    length distributions, ``((TTFT_k cv_in)^2 + (TPOT cv_out Out_k)^2) / e_k^2``, or the default (1) for a class of
    plain numbers.

    Examples
    --------
    Two classes of fixed lengths (``w = 0``) whose services are 1,090 / 1,190 and 1,290 / 1,190 of the mean: the
    SCV is only the spread between them, ``0.5 x 0.916^2 + 0.5 x 1.084^2 - 1 = 0.00706``; exponential service
    within each (``w = 1``) would make it ``2 x 1.00706 - 1 = 1.0141``:

    >>> round(float(mix_service_scv(_example_mix(), 200.0, 10.0)), 6)
    0.007062
    """
    # latency_ms and service_split, each class's TTFT read once
    ttft, tpot = class_ttft_ms(mix, ttft_ms), _with_class_axis(tpot_ms)
    e = ttft + (mix.output_tokens - 1.0) * tpot
    split = e / np.sum(mix.share_fraction * e, axis=-1, keepdims=True)
    stated = ((ttft * mix.input_tokens_cv) ** 2) + (tpot * mix.output_tokens_cv * mix.output_tokens) ** 2
    within = np.where(mix.spread_stated, stated / (e * e), mix.default_service_scv)
    # a variance over a squared mean is never negative; classes of the same fixed service sum to 1 - 3e-16
    scv = np.sum(mix.share_fraction * split * split * (1.0 + within), axis=-1) - 1.0
    return np.asarray(np.maximum(scv, 0.0), dtype=float)


def cost_share_fraction(mix: ClassMix, ttft_ms: ArrayLike, tpot_ms: ArrayLike) -> Array:
    """Each class's share of the fleet's cost: the share of the slot time it uses, ``p_k S_k / sum_j p_j S_j``,
    shape ``(..., K)`` [-]; they add up to 1.

    Admission control admits every class alike and late requests hold their slots too, so the slot time a class
    uses is its share of the arrivals times its service time.

    Examples
    --------
    >>> cost_share_fraction(_example_mix(), 200.0, 10.0).round(6).tolist()
    [0.457983, 0.542017]
    """
    return np.asarray(mix.share_fraction * service_split(mix, ttft_ms, tpot_ms), dtype=float)


def mix_curve_factors(
    mix: ClassMix,
    ttft_ms: ArrayLike,
    tpot_ms: ArrayLike,
    benchmark_input_tokens: float,
    benchmark_output_tokens: float,
) -> tuple[Array, float]:
    """How a curve measured at the benchmark's shape becomes the mix's: its service time and its TTFT factors.

    ``E[S](c) / S(c) = sum_k p_k e_k(c) / e(c)`` with the benchmark's ``e(c) = TTFT(c) + (OSL - 1) TPOT(c)`` and
    ``e_k(c) = r_k TTFT(c) + (Out_k - 1) TPOT(c)``, ``r_k = (1 - h_k) In_k / ISL``; the mix's TTFT is ``r_mean =
    sum_k p_k r_k`` times the benchmark's. A single class of the benchmark's shape gives exactly 1 and 1.

    Parameters
    ----------
    mix
        The classes.
    ttft_ms, tpot_ms
        The measured curve's latencies at each point [ms].
    benchmark_input_tokens, benchmark_output_tokens
        The ISL and OSL the curve was measured at [tokens].

    Returns
    -------
    service_factor : ndarray
        ``E[S] / S`` at each point [-].
    ttft_factor : float
        ``TTFT_mix / TTFT`` [-].

    Examples
    --------
    A benchmark at 2,000 / 100 tokens, the two classes of 1,000 and 3,000 uncached input tokens with 100 output
    tokens each: their mean is the benchmark's, so the factors are 1:

    >>> factors, r = mix_curve_factors(_example_mix(), [200.0], [10.0], 2000, 100)
    >>> factors.round(12).tolist(), r
    ([1.0], 1.0)
    """
    ttft = np.asarray(ttft_ms, dtype=float)
    tpot = np.asarray(tpot_ms, dtype=float)
    r = mix.uncached_input_tokens / benchmark_input_tokens
    e = ttft * 1.0 + (benchmark_output_tokens - 1.0) * tpot  # the benchmark's request: r = 1 (a class like it is 1)
    e_k = ttft[..., None] * r + (mix.output_tokens - 1.0) * tpot[..., None]
    mean_e = np.sum(mix.share_fraction * e_k, axis=-1)
    return np.asarray(mean_e / e, dtype=float), float(np.sum(mix.share_fraction * r))


def _example_mix() -> ClassMix:
    """Two classes of fixed lengths in equal shares, for the examples: 1,000 and 3,000 input tokens, 100 output
    tokens each; TTFT limit 1 s, TPOT 20 ms, end-to-end 1.2 s, 99% attainment."""
    two = np.ones(2)
    return ClassMix(
        names=("short", "long"),
        share_fraction=two / 2,
        input_tokens=np.array([1000.0, 3000.0]),
        output_tokens=100.0 * two,
        prefix_hit_fraction=0.0 * two,
        input_tokens_cv=0.0 * two,
        output_tokens_cv=0.0 * two,
        spread_stated=np.array([True, True]),
        ttft_limit_ms=1000.0 * two,
        tpot_limit_ms=20.0 * two,
        e2e_limit_ms=1200.0 * two,
        attainment_fraction=0.99 * two,
    )


def _read_only(a: ArrayLike) -> Array:
    """A float copy of ``a`` that cannot be written (a cached figure a caller must not change)."""
    out = np.array(a, dtype=float)
    out.flags.writeable = False
    return out
