"""Request classes in the simulator (docs/model.md, Simulation): each simulated request draws its class, its lengths and
so its own TTFT and holding time, and is judged within its class's budget. Pure numpy; the engines are
:mod:`rackcost.model.sim.simulation`'s.

Each request ``i`` draws its class ``k`` by share, then its input ``In_i`` and output ``Out_i`` from the class's
length distributions (:class:`LengthLaw`: fixed, lognormal, gamma, or an empirical CDF table sampled as
:func:`rackcost.model.workload.classes.cdf_moments` reads it). The replica's curve is the mix's
(:func:`rackcost.scenario.unpack.mix_curve`: mean slot holding time ``E[S](n)``, the mix's mean TTFT ``TTFT(n)``
and the batch's ``TPOT(n)`` at occupancy ``n``), and the request is scaled from the mix's mean request as the
analytic model scales a class (:mod:`rackcost.model.workload.classes`), with its own lengths in place of the class's
means:

    rho_i     = (1 - h_k) In_i / sum_j p_j (1 - h_j) In_j      its prefill relative to the mix's mean request
    TTFT_i(n) = rho_i x TTFT(n)                                  TTFT before queueing, at the start occupancy n
    e_i       = rho_i x TTFT(c) + (Out_i - 1) x TPOT(c)          latency without queueing, at the point's load c
    work_i    = e_i / e_mean,  e_mean = TTFT(c) + (mean Out - 1) x TPOT(c)
    holding   = work_i x E[S](n(t)),  advancing at the replica's current occupancy (the event engine)

(``rho_i`` times the benchmark's ``TTFT`` over ``r_mean`` is the analytic ``r_i = (1 - h_k) In_i / ISL``: the same
ratio.) So a request of its class's mean lengths holds a slot for the analytic ``S_k = E[S] e_k / e_mean``, the
mean work is 1 when the lengths are drawn at their means, and the spread of the work is the analytic within-class
and between-class spread (:func:`rackcost.model.workload.classes.mix_service_scv`), drawn rather than summarised. A
class whose lengths are plain numbers has no stated spread: its requests are of its mean lengths, and its work is that
times an exponential draw of mean 1, the analytic default (within-class SCV 1). The prefix hit is a share of every
request's input, as in the analytic model, not a chance that a request hits. The TPOT of a request is the batch's
at the occupancy it starts at.

**What differs from the analytic model.**

- A request's TTFT here is its own ``rho_i TTFT(n)``; the analytic p99 TTFT of a class whose inputs spread reads
  the same thing from its input law (:mod:`rackcost.model.queues.class_ttft`), and the two are what the agreement test
  compares. The analytic model judges *acceptance* at a class's mean request, its budget ``limit - rho_k TTFT``
  (:func:`rackcost.model.workload.classes.class_budgets_s`), and so does the simulator's primary accepted share (so that
  the queue is what is refereed); :func:`class_statistics` also gives the share accepted when each request is
  judged at its own length.
- The split ``e_i / e_mean`` is read at the point's load ``c`` and held at every occupancy, as the analytic model
  holds the chosen point's service SCV; the mean holding time itself follows the occupancy.
- Output lengths are at least 1 token (a request decodes its first); lengths are not rounded to whole tokens, so
  the drawn means are the distributions' means.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from rackcost.model.workload.classes import ClassMix
from rackcost.units import MS_PER_S

__all__ = [
    "ClassLaws",
    "ClassRequests",
    "LengthLaw",
    "class_requests",
    "class_statistics",
    "draw_class_requests",
    "draw_lengths",
]

Array = NDArray[np.float64]


@dataclass(frozen=True)
class LengthLaw:
    """How one class's input or output length varies from request to request.

    Attributes
    ----------
    kind
        ``fixed`` (also a plain number), ``lognormal``, ``gamma`` or ``cdf``.
    mean_tokens
        Mean length [tokens].
    cv_fraction
        Coefficient of variation, lognormal and gamma [-].
    table_tokens, table_cumulative_fraction
        The CDF table's rows, ``cdf`` only [tokens, -].
    """

    kind: str
    mean_tokens: float
    cv_fraction: float = 0.0
    table_tokens: Array | None = None
    table_cumulative_fraction: Array | None = None


def draw_lengths(rng: np.random.Generator, law: LengthLaw, size: int) -> Array:
    """``size`` lengths drawn from ``law`` [tokens].

    A CDF table is sampled as :func:`rackcost.model.workload.classes.cdf_moments` reads it: the first row's mass at its
    length, each later row's increment uniform over ``(t_{i-1}, t_i]`` (inverse transform: a uniform ``u`` at or
    below the first fraction is the first length, else it is interpolated linearly within its row).

    Examples
    --------
    Half at 100 tokens and half uniform on 100 to 300: mean 150 (:func:`rackcost.model.workload.classes.cdf_moments`).

    >>> law = LengthLaw("cdf", 150.0, table_tokens=np.array([100.0, 300.0]),
    ...                 table_cumulative_fraction=np.array([0.5, 1.0]))
    >>> x = draw_lengths(np.random.default_rng(0), law, 400_000)
    >>> round(float(x.mean()), 0), round(float(np.mean(x == 100.0)), 2)
    (150.0, 0.5)
    >>> x = draw_lengths(np.random.default_rng(0), LengthLaw("lognormal", 800.0, 1.0), 400_000)
    >>> round(float(x.mean()) / 800, 2), round(float(x.std() / x.mean()), 1)
    (1.0, 1.0)
    """
    if law.kind == "fixed":
        return np.full(size, float(law.mean_tokens))
    if law.kind == "gamma":
        shape = 1.0 / law.cv_fraction**2
        return rng.gamma(shape, law.mean_tokens / shape, size)
    if law.kind == "lognormal":
        sigma2 = math.log1p(law.cv_fraction**2)
        return rng.lognormal(math.log(law.mean_tokens) - sigma2 / 2.0, math.sqrt(sigma2), size)
    if law.kind == "cdf":
        assert law.table_tokens is not None and law.table_cumulative_fraction is not None
        t, f = law.table_tokens, law.table_cumulative_fraction / law.table_cumulative_fraction[-1]
        if t.size == 1:
            return np.full(size, float(t[0]))
        u = rng.random(size)
        i = np.clip(np.searchsorted(f, u, side="left"), 1, t.size - 1)
        lo_f, hi_f = f[i - 1], f[i]
        within = np.where(hi_f > lo_f, (u - lo_f) / np.where(hi_f > lo_f, hi_f - lo_f, 1.0), 1.0)
        x = t[i - 1] + np.clip(within, 0.0, 1.0) * (t[i] - t[i - 1])
        return np.where(u <= f[0], t[0], x)
    raise ValueError(f"unknown length distribution {law.kind!r}: fixed, lognormal, gamma or cdf")


@dataclass(frozen=True)
class ClassLaws:
    """The classes of a workload with the per-request laws of their lengths.

    Attributes
    ----------
    mix
        The classes' shares, means, prefix hits and SLOs (:class:`rackcost.model.workload.classes.ClassMix`).
    input_laws, output_laws
        Each class's input and output :class:`LengthLaw`, in the mix's order.
    """

    mix: ClassMix
    input_laws: tuple[LengthLaw, ...]
    output_laws: tuple[LengthLaw, ...]


@dataclass(frozen=True)
class ClassRequests:
    """Simulated requests with their classes and lengths, one entry per request.

    Attributes
    ----------
    klass
        Each request's class index [-].
    ttft_ratio
        ``rho_i``: its TTFT before queueing over the mix's mean request's [-].
    input_tokens, output_tokens
        Its lengths [tokens].
    work
        Its holding time over the mix's mean holding time at the same occupancy (mean 1) [-].
    latency_ratio
        ``e_i / e_mean``, its latency without queueing over the mix's mean request's, at the point's load [-].
    """

    klass: NDArray[np.int64]
    ttft_ratio: Array
    input_tokens: Array
    output_tokens: Array
    work: Array
    latency_ratio: Array


def draw_class_requests(
    rng: np.random.Generator, laws: ClassLaws, size: int, ttft_ms: float, tpot_ms: float
) -> ClassRequests:
    """``size`` requests of the mix, their work from the mix's latencies at the point's load.

    Parameters
    ----------
    rng
        Random generator.
    laws
        The classes and their length laws.
    size
        Requests [-].
    ttft_ms, tpot_ms
        The mix's mean TTFT and the TPOT at the point's in-service concurrency, where the split between requests
        is read [ms].

    Examples
    --------
    Two fixed classes of 1,000 and 3,000 input tokens, 100 output each: at a mix TTFT of 200 ms and TPOT of 10 ms
    their latencies are 1,090 and 1,290 ms, so their work 1,090 / 1,190 and 1,290 / 1,190 of the mean:

    >>> from rackcost.model.workload.classes import _example_mix
    >>> mix = _example_mix()
    >>> inputs = (LengthLaw("fixed", 1000.0), LengthLaw("fixed", 3000.0))
    >>> laws = ClassLaws(mix, inputs, (LengthLaw("fixed", 100.0),) * 2)
    >>> r = draw_class_requests(np.random.default_rng(0), laws, 4, 200.0, 10.0)
    >>> sorted(set(np.round(r.work, 6).tolist())), sorted(set(r.ttft_ratio.tolist()))
    ([0.915966, 1.084034], [0.5, 1.5])
    """
    mix = laws.mix
    klass = rng.choice(len(mix), size=size, p=mix.share_fraction / mix.share_fraction.sum())
    inputs = np.empty(size)
    outputs = np.empty(size)
    for k in range(len(mix)):
        members = klass == k
        m = int(members.sum())
        inputs[members] = draw_lengths(rng, laws.input_laws[k], m)
        outputs[members] = np.maximum(draw_lengths(rng, laws.output_laws[k], m), 1.0)
    # a class of plain numbers: exponential service about its mean, the analytic default (within-class SCV 1)
    spread = np.where(~mix.spread_stated[klass], rng.exponential(1.0, size), 1.0)
    return class_requests(mix, klass, inputs, outputs, ttft_ms, tpot_ms, spread)


def class_requests(
    mix: ClassMix,
    klass: ArrayLike,
    input_tokens: ArrayLike,
    output_tokens: ArrayLike,
    ttft_ms: float,
    tpot_ms: float,
    spread: ArrayLike | None = None,
) -> ClassRequests:
    """Requests of given classes and lengths (drawn, or a trace's), their TTFT ratio and work from the mix's
    latencies at the point's load (module docstring).

    Parameters
    ----------
    mix
        The classes.
    klass, input_tokens, output_tokens
        Each request's class index and lengths [-, tokens, tokens].
    ttft_ms, tpot_ms
        As :func:`draw_class_requests` [ms].
    spread
        A factor on each request's work (an exponential draw of mean 1 for a class of plain numbers); None: 1.
    """
    k = np.asarray(klass, dtype=np.int64)
    inputs = np.asarray(input_tokens, dtype=float)
    outputs = np.asarray(output_tokens, dtype=float)
    uncached = (1.0 - mix.prefix_hit_fraction[k]) * inputs
    rho = uncached / float(np.sum(mix.share_fraction * mix.uncached_input_tokens))
    e = rho * ttft_ms + (outputs - 1.0) * tpot_ms
    e_mean = ttft_ms + (mix.mean_output_tokens - 1.0) * tpot_ms
    ratio = e / e_mean
    work = ratio if spread is None else ratio * np.asarray(spread, dtype=float)
    return ClassRequests(k, rho, inputs, outputs, work, ratio)


def class_statistics(
    requests: ClassRequests,
    mix: ClassMix,
    wait_s: Array,
    ttft_at_start_s: Array,
    tpot_at_start_s: Array,
    dropped: NDArray[np.bool_],
    budgets_s: Array,
    lo: int,
    hi: int | None = None,
) -> dict[str, float]:
    """Per-class estimates from one sample path, over its requests from ``lo``.

    Keys ``<k>:<figure>`` for class index ``k`` and ``all:<figure>`` for the mix: ``accepted_fraction`` (of the
    class's arrivals: not dropped and waiting at most its budget), ``accepted_own_length_fraction`` (waiting at
    most its TTFT limit less its own TTFT, and its end-to-end limit less its own latency: each request judged at its
    own length), ``ttft_p50_s``, ``ttft_p99_s`` and ``tpot_p99_s`` of its admitted requests [-, s].

    Parameters
    ----------
    requests
        The requests of the path (their classes and ratios).
    mix
        The classes (their SLO limits).
    wait_s
        Each request's queueing wait [s].
    ttft_at_start_s
        The mix's mean TTFT before queueing at the occupancy each request started at [s].
    tpot_at_start_s
        The TPOT at that occupancy [s].
    dropped
        Requests a full queue dropped.
    budgets_s
        Each class's queueing budget at the point, shape ``(K,)`` [s].
    lo
        First measured request (after the warm-up) [-].
    hi
        One past the last measured request (a batch of a trace's batch means); None: every request from ``lo``.
    """
    sl = slice(lo, hi)
    k_of = requests.klass[sl]
    admitted = ~dropped[sl]
    wait = np.where(admitted, wait_s[sl], np.inf)
    own_ttft_s = requests.ttft_ratio[sl] * ttft_at_start_s[sl]
    ttft = wait + own_ttft_s
    tpot = tpot_at_start_s[sl]
    accepted = wait <= budgets_s[k_of]
    latency_s = own_ttft_s + (requests.output_tokens[sl] - 1.0) * tpot
    own_ok = (ttft * MS_PER_S <= mix.ttft_limit_ms[k_of]) & ((wait + latency_s) * MS_PER_S <= mix.e2e_limit_ms[k_of])
    out: dict[str, float] = {}
    groups = [(str(k), k_of == k) for k in range(len(mix))] + [("all", np.ones(k_of.size, dtype=bool))]
    for key, members in groups:
        served = members & admitted
        out[f"{key}:accepted_fraction"] = float(accepted[members].mean()) if members.any() else math.nan
        out[f"{key}:accepted_own_length_fraction"] = float(own_ok[members].mean()) if members.any() else math.nan
        for name, values, q in (("ttft_p50_s", ttft, 0.5), ("ttft_p99_s", ttft, 0.99), ("tpot_p99_s", tpot, 0.99)):
            out[f"{key}:{name}"] = float(np.quantile(values[served], q)) if served.any() else math.nan
    return out
