"""SLO-feasible operating point of a replica (docs/model.md, 3. SLO-feasible operating point).

Feasible points have TPOT <= the TPOT limit, TTFT < the TTFT limit and, when an end-to-end limit is set,
an end-to-end latency below it. What is left of the TTFT (and end-to-end) limit is the budget a request may
wait in the fleet's queue. Among feasible points the chosen one needs the fewest replicas for the sizing demand;
ties go to the lower power at the sizing demand, then to the higher concurrency. Where a system gives its
accelerator memory, a point whose requests' KV caches do not fit the replica's free memory is not feasible either
(:mod:`rackcost.model.replica.memory`).

**The rule: the chosen concurrency is an integer.** It is the serving engine's limit on requests in flight per
replica (vLLM's ``max_num_seqs``, TensorRT-LLM's ``max_batch_size``, TGI's ``max_concurrent_requests``), an
integer, for every system and every curve. The candidates (:func:`search_concurrencies`) are every integer inside
a curve's measured range, whether its measured concurrencies are integers or not (Little's law derives
non-integer ones, e.g. 17.448); the curve is evaluated at each of them, so feasibility there is exact. Two
exceptions, where no integer can be searched: a single-point curve (a vendor claim) cannot move, so its one point
is used as it is, and a multi-point curve whose range holds no integer (e.g. 2.3 to 2.9 requests) uses its
measured points.

**The search is exact** (:func:`search_operating_point`): among all feasible candidates, the fewest replicas,
found by branch and bound on a closed-form lower bound of each candidate's count, so that the exact count (an
integer bisection, :func:`rackcost.model.queues.queueing.replicas_needed`) is computed only for candidates that could
still beat the best so far. The tests check it against the same choice computed exhaustively.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from rackcost.model.fleets.sizing import sized_replicas
from rackcost.model.inputs import SloInputs, SystemInputs
from rackcost.model.outcomes import ChosenPoint
from rackcost.model.queues import stretch_rule
from rackcost.model.queues.burstiness import wait_stretch as stretch_of
from rackcost.model.replica.performance import Curve, interpolate_curve
from rackcost.model.strategies import DEFAULT_ROUTING
from rackcost.model.workload.classes import class_budgets_s, class_feasible, mix_service_scv, slo_groups
from rackcost.units import MS_PER_S

__all__ = [
    "SearchRule",
    "FIRST_BATCH_CANDIDATES",
    "MAX_INTEGER_CANDIDATES",
    "candidate_curve",
    "choose_point",
    "e2e_ms",
    "feasible",
    "queueing_budget_s",
    "replicas_lower_bound",
    "search_concurrencies",
    "search_operating_point",
    "slo_budgets_s",
    "slo_feasible",
    "undominated",
]

MAX_INTEGER_CANDIDATES = 100_000
"""Integer concurrencies searched one by one at most [-]. Measured curves span a few thousand integers at most
(InferenceX measures up to 1,024 requests in flight; Little's law gives a few thousand for large NVL racks), and
evaluating the curve at 10^5 integers takes a few ms. A wider range is searched on this many log-spaced integers
instead (consecutive where the spacing is below one, 0.01% apart and more at the top of a range of 10^6): the
result is then the best of those, not proven the fewest."""
FIRST_BATCH_CANDIDATES = 16
"""Candidates whose replica count the branch and bound computes exactly in its first vectorised call [-]; each
further call takes twice as many. One call of :func:`rackcost.model.queues.queueing.replicas_needed` costs about 0.14 ms
for one candidate, 0.26 ms for 8, 0.28 ms for 64 and 2 ms for 4,096 (measured on this 2-core machine): a batch of a
few dozen costs little more than one, and the lower bound usually settles the search within the first batch."""


def e2e_ms(ttft_ms: ArrayLike, tpot_ms: ArrayLike, output_tokens: ArrayLike) -> NDArray[np.float64]:
    """End-to-end latency of one request without queueing: TTFT + (OSL - 1) * TPOT [ms]."""
    return np.asarray(ttft_ms, float) + (np.asarray(output_tokens, float) - 1.0) * np.asarray(tpot_ms, float)


def feasible(
    ttft_ms: ArrayLike,
    tpot_ms: ArrayLike,
    output_tokens: float,
    ttft_limit_ms: float,
    tpot_limit_ms: float,
    e2e_limit_ms: float | None = None,
) -> NDArray[np.bool_]:
    """Whether each point meets the SLO before any queueing.

    Parameters
    ----------
    ttft_ms, tpot_ms
        Latencies at each point [ms].
    output_tokens
        OSL [tokens].
    ttft_limit_ms, tpot_limit_ms, e2e_limit_ms
        SLO limits [ms]; ``e2e_limit_ms`` None means no end-to-end limit.

    Returns
    -------
    ndarray of bool
        True where TPOT <= limit, TTFT < limit and end-to-end < limit.
    """
    ok = (np.asarray(tpot_ms) <= tpot_limit_ms) & (np.asarray(ttft_ms) < ttft_limit_ms)
    if e2e_limit_ms is not None:
        ok &= e2e_ms(ttft_ms, tpot_ms, output_tokens) < e2e_limit_ms
    return ok


def queueing_budget_s(
    ttft_ms: ArrayLike,
    tpot_ms: ArrayLike,
    output_tokens: float,
    ttft_limit_ms: float,
    e2e_limit_ms: float | None = None,
) -> NDArray[np.float64]:
    """Time a request may wait in the fleet's queue and still be accepted [s].

    ``budget = TTFT limit - TTFT at the point``, or the end-to-end slack when that is smaller. Negative where the
    point is infeasible.
    """
    budget_ms = ttft_limit_ms - np.asarray(ttft_ms, dtype=float)
    if e2e_limit_ms is not None:
        budget_ms = np.minimum(budget_ms, e2e_limit_ms - e2e_ms(ttft_ms, tpot_ms, output_tokens))
    return budget_ms / MS_PER_S


def slo_feasible(slo: SloInputs, ttft_ms: ArrayLike, tpot_ms: ArrayLike) -> NDArray[np.bool_]:
    """Whether each point meets the SLO before any queueing: :func:`feasible` for the workload's one shape, or
    every class's own SLO with request classes (:func:`rackcost.model.workload.classes.class_feasible`)."""
    if slo.classes is None:
        return feasible(ttft_ms, tpot_ms, slo.output_tokens, slo.ttft_limit_ms, slo.tpot_limit_ms, slo.e2e_limit_ms)
    return np.asarray(class_feasible(slo.classes, ttft_ms, tpot_ms).all(axis=-1))


def slo_budgets_s(slo: SloInputs, ttft_ms: ArrayLike, tpot_ms: ArrayLike) -> list[tuple[NDArray[np.float64], float]]:
    """The queueing budgets the queue must keep at each point, each with its allowed share of misses: [(budget [s],
    miss target [-]), ...].

    One pair for the workload's one shape (:func:`queueing_budget_s`, ``1 - attainment``). With request classes,
    one pair per attainment target (:func:`rackcost.model.workload.classes.slo_groups`), the smallest budget of its
    classes, the strictest target first (``slo.attainment_fraction``'s): the queue meets every class's attainment when
    it meets each pair."""
    if slo.classes is None:
        budget = queueing_budget_s(ttft_ms, tpot_ms, slo.output_tokens, slo.ttft_limit_ms, slo.e2e_limit_ms)
        return [(budget, slo.miss_target_fraction)]
    budgets = class_budgets_s(slo.classes, ttft_ms, tpot_ms)
    pairs = [
        (np.asarray(budgets[..., list(g.classes)].min(axis=-1), dtype=float), g.miss_fraction)
        for g in slo_groups(slo.classes)
    ]
    return undominated(pairs)


def undominated(pairs: list[tuple[NDArray[np.float64], float]]) -> list[tuple[NDArray[np.float64], float]]:
    """The (budget, miss target) pairs that can bind, in order (the strictest target first, kept): a pair whose
    target is no stricter than a kept pair's and whose budget is nowhere shorter is met whenever that one is, since
    ``P(W > b)`` falls as ``b`` grows.

    Examples
    --------
    A 95% target with a longer budget than the 99% one's never binds; with a shorter one it may:

    >>> [m for _, m in undominated([(np.array([1.0]), 0.01), (np.array([2.0]), 0.05), (np.array([0.5]), 0.05)])]
    [0.01, 0.05]
    """
    kept: list[tuple[NDArray[np.float64], float]] = []
    for budget, miss in pairs:
        if not any(m <= miss and bool(np.all(b <= budget)) for b, m in kept):
            kept.append((budget, miss))
    return kept


def _fleet_power_w(
    replicas: NDArray[np.int64],
    concurrency: NDArray[np.float64],
    service_s: NDArray[np.float64],
    power_w_per_replica_busy: NDArray[np.float64],
    power_w_per_replica_idle: float,
    sizing_rps: float,
) -> NDArray[np.float64]:
    """Power of ``replicas`` replicas at the sizing demand, the tie-break between equal counts [W].

    ``N (P_idle + (P_busy - P_idle) u)`` with slot utilisation ``u = lambda S / (N c)``. The one expression both
    searches use, so that their keys compare bit for bit.
    """
    utilization = sizing_rps * service_s / (replicas * concurrency)
    return replicas * (power_w_per_replica_idle + (power_w_per_replica_busy - power_w_per_replica_idle) * utilization)


def _exact_replicas(
    concurrency: NDArray[np.float64],
    service_s: NDArray[np.float64],
    budget_s: NDArray[np.float64],
    sizing_rps: float,
    attainment_fraction: float,
    max_utilization_fraction: float,
    routing: str = DEFAULT_ROUTING,
    stretch: ArrayLike = 1.0,
    variability: float = 1.0,
) -> NDArray[np.int64]:
    """Replicas the wait SLO and the utilisation ceiling need at each candidate, under a routing, each budget judged
    at the stretch of the candidate fleet's own load (:func:`rackcost.model.queues.stretch_rule.replicas_needed`)
    [-]."""
    ceiling = sized_replicas(1, sizing_rps, service_s, concurrency, max_utilization_fraction)
    n = stretch_rule.replicas_needed(
        routing, sizing_rps, service_s, concurrency, budget_s, 1.0 - attainment_fraction, stretch, variability, ceiling
    )
    return sized_replicas(n, sizing_rps, service_s, concurrency, max_utilization_fraction)


def replicas_lower_bound(
    concurrency: ArrayLike, service_s: ArrayLike, sizing_rps: float, max_utilization_fraction: float
) -> NDArray[np.int64]:
    """A lower bound, in closed form, on the replicas a candidate needs (at every candidate) [-].

    ``max(floor(a / c) + 1, ceil(a / (c u_max)))`` with the offered load ``a = lambda S``: the queue is stable only
    with more slots than erlangs (``N c > a``), and the utilisation ceiling asks ``N >= a / (c u_max)``. Computed
    with the same floating-point operations as :func:`rackcost.model.queues.queueing.replicas_needed` (whose bisection
    starts above ``floor(a / c)``) and :func:`rackcost.model.fleets.sizing.sized_replicas`, so the bound holds for the
    counts they return, not only for the exact numbers.

    Examples
    --------
    10 requests/s holding a slot 4 s on 8-slot replicas: 40 erlangs need more than 40 / 8 = 5 replicas for a
    stable queue, so 6; a 0.8 utilisation ceiling asks for 40 / (8 x 0.8) = 6.25, so 7:

    >>> replicas_lower_bound(8.0, 4.0, 10.0, 1.0).tolist(), replicas_lower_bound(8.0, 4.0, 10.0, 0.8).tolist()
    (6, 7)
    """
    c = np.asarray(concurrency, dtype=float)
    load = sizing_rps * np.asarray(service_s, dtype=float)
    stable = np.floor(load / c).astype(np.int64) + 1
    return np.maximum(stable, sized_replicas(1, sizing_rps, service_s, c, max_utilization_fraction))


@dataclass(frozen=True)
class SearchRule:
    """How the operating-point search judges each candidate's queue.

    Attributes
    ----------
    routing
        How requests are spread over the replicas (:mod:`rackcost.model.queues.routing`).
    stretch
        Kingman's stretch of the conditional wait (a float, or one per candidate): each candidate's budget is judged
        at the stretch of its fleet's own load, as acceptance judges it (:mod:`rackcost.model.queues.stretch_rule`); it
        is never below Kingman's, so the search's lower bound still holds [-].
    variability
        The arrivals' variability; the candidates' concurrency and the sizing rate are already divided by it [-].
    """

    routing: str = DEFAULT_ROUTING
    stretch: float | NDArray[np.float64] = 1.0
    variability: float = 1.0


DEFAULT_RULE = SearchRule()
"""The default routing, exponential service, Poisson arrivals."""


def _lex_less(n: NDArray, power: NDArray, concurrency: NDArray, best: tuple[int, float, float]) -> NDArray[np.bool_]:
    """Whether each key (replicas, power, -concurrency) sorts before ``best`` (given as (n, power, concurrency))."""
    bn, bp, bc = best
    return (n < bn) | ((n == bn) & ((power < bp) | ((power == bp) & (concurrency > bc))))


def search_operating_point(
    concurrency: NDArray[np.float64],
    service_s: NDArray[np.float64],
    budget_s: NDArray[np.float64],
    is_feasible: NDArray[np.bool_],
    power_w_per_replica_busy: NDArray[np.float64],
    power_w_per_replica_idle: float,
    sizing_rps: float,
    attainment_fraction: float,
    max_utilization_fraction: float = 1.0,
    judged: SearchRule = DEFAULT_RULE,
    more_constraints: Sequence[tuple[NDArray[np.float64], float]] = (),
) -> tuple[int, int]:
    """The feasible candidate that needs the fewest replicas for the sizing demand, by branch and bound.

    Each feasible candidate's key, (replicas, power at the sizing demand, -concurrency), is bounded below by the
    key at :func:`replicas_lower_bound`: where the exact count equals the bound the keys are the same, computed
    the same way, and where it is larger the key already sorts later. Candidates are taken in the order of their
    bound keys, in vectorised batches of :data:`FIRST_BATCH_CANDIDATES`, then twice as many each time, and their
    exact counts computed; the search stops at the first candidate whose bound key does not sort before the best
    key found, since neither it nor any later one can beat it. The result is the exhaustive choice, exactly, ties
    included.

    Parameters
    ----------
    concurrency, service_s, budget_s
        Per candidate: slots per replica [requests], slot holding time [s], queueing budget [s].
    is_feasible
        Per candidate: whether it meets the SLO before queueing.
    power_w_per_replica_busy, power_w_per_replica_idle
        Replica power with every slot busy (per candidate) and idle [W], for the tie-break: fewest replicas, then
        the lower power at the sizing demand, then the higher concurrency.
    sizing_rps
        Demand the fleet is sized for [requests/s].
    attainment_fraction
        Share of requests that must wait no longer than the budget [-].
    max_utilization_fraction
        Ceiling on slot utilisation at the sizing demand [-].
    judged
        How each candidate's queue is judged (:class:`SearchRule`): the routing, the wait's stretch and the
        arrivals' variability.
    more_constraints
        Further (budget per candidate [s], attainment [-]) pairs the fleet must meet too (request classes with
        other attainment targets, :func:`slo_budgets_s`): a candidate's count is the largest over all pairs. The
        lower bound holds for every pair, so the search stays exact.

    Returns
    -------
    index : int
        Index of the chosen candidate.
    replicas : int
        Replicas it needs [-].

    Raises
    ------
    ValueError
        If no candidate is feasible.
    """
    idx = np.flatnonzero(is_feasible)
    if idx.size == 0:
        raise ValueError("no operating point meets the SLO")
    if idx.size == concurrency.size:  # every candidate feasible (the usual case): the arrays as they are, uncopied
        c, s, busy = concurrency, service_s, power_w_per_replica_busy
    else:
        c, s, busy = concurrency[idx], service_s[idx], power_w_per_replica_busy[idx]
    bound = replicas_lower_bound(c, s, sizing_rps, max_utilization_fraction)
    bound_power = _fleet_power_w(bound, c, s, busy, power_w_per_replica_idle, sizing_rps)
    order = np.lexsort((-c, bound_power, bound))
    best: tuple[int, float, float] | None = None
    best_index = -1
    start, batch = 0, FIRST_BATCH_CANDIDATES
    while start < order.size:
        take = order[start : start + batch]
        if best is not None:  # keys sort as their bounds do: those that may beat the best are a prefix
            take = take[: np.count_nonzero(_lex_less(bound[take], bound_power[take], c[take], best))]
            if take.size == 0:
                break
        st = judged.stretch if np.ndim(judged.stretch) == 0 else np.asarray(judged.stretch)[idx[take]]
        rule = (judged.routing, st, judged.variability)
        n = _exact_replicas(
            c[take], s[take], budget_s[idx[take]], sizing_rps, attainment_fraction, max_utilization_fraction, *rule
        )
        for more_budget, more_attainment in more_constraints:
            more = _exact_replicas(
                c[take], s[take], more_budget[idx[take]], sizing_rps, more_attainment, max_utilization_fraction, *rule
            )
            n = np.maximum(n, more)
        power = _fleet_power_w(n, c[take], s[take], busy[take], power_w_per_replica_idle, sizing_rps)
        i = int(np.lexsort((-c[take], power, n))[0])
        if best is None or bool(_lex_less(n[i : i + 1], power[i : i + 1], c[take][i : i + 1], best)[0]):
            best, best_index = (int(n[i]), float(power[i]), float(c[take][i])), int(idx[take[i]])
        start += batch
        batch *= 2
    assert best is not None
    return best_index, best[0]


def search_concurrencies(curve: Curve) -> NDArray[np.float64]:
    """The concurrencies at which the operating-point search evaluates a curve [requests].

    Every integer in the measured range ``[c_min, c_max]`` (the serving engine's limit is an integer), including
    the measured points that are integers and none that are not. A curve of one point (a vendor claim) keeps it as
    it is: it cannot move, integer or not. A curve whose range holds no integer keeps its measured points: an
    integer outside the range would extrapolate. Beyond :data:`MAX_INTEGER_CANDIDATES` integers, that many
    log-spaced integers over the range.

    Examples
    --------
    >>> from rackcost.model.replica.performance import build_curve
    >>> def curve(*conc):
    ...     n = len(conc)
    ...     return build_curve(conc, [100.0 * (i + 1) for i in range(n)], "output", [20.0] * n, [200.0] * n, 1, 1)
    >>> search_concurrencies(curve(3.7, 8.2)).tolist()
    [4.0, 5.0, 6.0, 7.0, 8.0]
    >>> search_concurrencies(curve(17.448)).tolist(), search_concurrencies(curve(2.3, 2.9)).tolist()
    ([17.448], [2.3, 2.9])
    """
    measured = curve.concurrency
    low, high = np.ceil(measured[0]), np.floor(measured[-1])
    if len(measured) == 1 or high < low:
        return measured.copy()
    if high - low + 1 <= MAX_INTEGER_CANDIDATES:
        return np.arange(low, high + 1.0)
    return np.unique(np.round(np.exp(np.linspace(np.log(low), np.log(high), MAX_INTEGER_CANDIDATES))))


def candidate_curve(curve: Curve) -> Curve:
    """The curve at the concurrencies of the search (:func:`search_concurrencies`).

    Parameters
    ----------
    curve
        Measured points, sorted by concurrency.
    """
    return interpolate_curve(curve, search_concurrencies(curve))


def choose_point(
    inp: SystemInputs,
    slo: SloInputs,
    sizing_rps: float,
    max_utilization_fraction: float,
    routing: str = DEFAULT_ROUTING,
    arrival_variability: float = 1.0,
    wait_stretch: float = 1.0,
    arrival_scv: float = 1.0,
) -> ChosenPoint:
    """The SLO-feasible point of a system's curve that needs the fewest replicas for the sizing demand.

    A point is a candidate when it meets the SLO before queueing (:func:`feasible`) and, where the system gives its
    memory (``inp.kv_memory``), when the KV caches of its concurrency's requests fit the replica's free memory
    (:meth:`rackcost.model.replica.memory.KvMemory.fits`). Searches ``inp.coarse``, the curve at every integer
    concurrency of its measured range (:func:`candidate_curve`, computed once by
    :func:`rackcost.scenario.unpack.system_inputs`), exactly (:func:`search_operating_point`).

    Parameters
    ----------
    inp
        The system's central inputs.
    slo
        The SLO.
    sizing_rps
        Demand the fleet is sized for [requests/s].
    max_utilization_fraction
        Utilisation ceiling at the sizing demand [-].
    routing
        How requests are spread over the replicas (:mod:`rackcost.model.queues.routing`).
    arrival_variability
        The sizing point's G/G/c variability (:func:`rackcost.model.queues.burstiness.arrival_variability`; 1 for
        Poisson): the search solves M/M/c with each candidate's slots and the sizing rate divided by it [-].
    wait_stretch
        The sizing point's stretch of the conditional wait by the service's spread
        (:func:`rackcost.model.queues.burstiness.wait_stretch`; 1 for exponential service): each candidate's budget is
        judged as ``budget / stretch`` [-].
    arrival_scv
        The sizing point's arrival SCV [-]. With request classes (``slo.classes``) each candidate's wait stretch is
        computed from it and the mix's service SCV at that candidate
        (:func:`rackcost.model.workload.classes.mix_service_scv`), in place of ``wait_stretch``; every class's SLO is
        met (:func:`slo_feasible`), and every attainment target (:func:`slo_budgets_s`).

    Raises
    ------
    ValueError
        If no candidate meets the SLO and fits the KV-cache memory (``inp.kv_memory``; the evaluation reports such a
        system as unserved first, :func:`rackcost.scenario.feasibility.unserved_systems`).
    """
    cand = inp.coarse
    apr = inp.accelerators_per_replica
    host_share_w = inp.host_w_per_replica
    if cand.power_w_per_accelerator is not None:
        busy = cand.power_w_per_accelerator
    else:
        busy = np.full(cand.concurrency.shape, inp.busy_w)
    ok = slo_feasible(slo, cand.ttft_ms, cand.tpot_ms)
    if inp.kv_memory is not None:  # a point whose requests' KV caches do not fit the replica's memory cannot run
        ok &= inp.kv_memory.fits(cand.concurrency)
    (budget, _), *more = slo_budgets_s(slo, cand.ttft_ms, cand.tpot_ms)
    stretch: float | NDArray[np.float64] = wait_stretch
    scv = None
    if slo.classes is not None:  # the mix's service SCV at each candidate (rackcost.model.workload.classes)
        scv = mix_service_scv(slo.classes, cand.ttft_ms, cand.tpot_ms)
        stretch = stretch_of(arrival_scv, scv)

    def judged(b: NDArray[np.float64]) -> NDArray[np.float64]:  # (the search judges it at the stretch of its load)
        return np.where(ok, b, 0.0)

    v = arrival_variability  # bursty arrivals: M/M/c with slots and rates / v (rackcost.model.queues.burstiness)
    best, n = search_operating_point(
        cand.concurrency if v == 1.0 else cand.concurrency / v,
        cand.service_s,
        judged(budget),
        ok,
        apr * busy + host_share_w,
        apr * inp.idle_w + host_share_w,
        sizing_rps if v == 1.0 else sizing_rps / v,
        slo.attainment_fraction,
        max_utilization_fraction,
        SearchRule(routing, stretch, v),
        [(judged(b), 1.0 - m) for b, m in more],
    )
    return ChosenPoint(
        cand.take(np.array([best])),
        float(busy[best]),
        float(budget[best]),
        n,
        more_constraints=tuple(  # those that can bind at the chosen point (the first, budget_s, always can)
            (float(b[0]), m)
            for b, m in undominated(
                [(budget[best : best + 1], slo.miss_target_fraction)] + [(b[best : best + 1], m) for b, m in more]
            )[1:]
        ),
        service_scv=None if scv is None else float(scv[best]),
    )
