"""A disaggregated system simulated as a tandem of two fleets: the prefill pool, the KV transfer, the decode pool
(the analytic side is :mod:`rackcost.model.fleets.disaggregation`).

Each request arrives at the prefill pool, queues FIFO for a slot of its router's replica and holds it for its
prefill (the prefill pool's curve at the replica's occupancy, :func:`rackcost.model.sim.simulation.run_fleet_once`);
its KV cache then takes the transfer time ``T_kv`` (no slot of either pool), and it joins the decode pool, whose
replicas serve it with their own curve and batch. ``TTFT = W_p + T_p(n) + T_kv`` (the prefill curve's TTFT at the
occupancy the request starts at holds the transfer), and TPOT is the decode batch's at the occupancy it starts at.

**Why two passes are exact.** Both pools are FIFO and a request's fate in the prefill pool does not depend on the
decode pool (the model holds no prefill slot while a request waits for decode; a wait there is a miss of the TPOT
part, :func:`rackcost.model.fleets.disaggregation.joint_accepted_rps`). So the prefill pool is run once on the arrivals,
its completion times plus ``T_kv`` sorted are the decode pool's arrival stream, and the decode pool is run on that
stream: the same sample path a joint event loop would give.

**Warm-up.** Each stage follows :func:`rackcost.model.sim.simulation.warmup_requests` with its own start and relaxation
time; a request is measured when it is past the prefill stage's warm-up and, where it reached decode, past the
decode stage's (:func:`tandem_statistics`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from rackcost.model.sim.sim_arrivals import RenewalArrivals, TraceArrivals
from rackcost.model.sim.sim_engines import RequestWork, RunControls, SimFleet
from rackcost.model.sim.sim_rare import miss_units
from rackcost.model.sim.simulation import Run, run_fleet_once, run_statistics

__all__ = [
    "DECODE_WAIT_TOLERANCE_S",
    "TandemRun",
    "TandemWork",
    "run_tandem_once",
    "tandem_miss_units",
    "tandem_statistics",
]

Array = NDArray[np.float64]

DECODE_WAIT_TOLERANCE_S = 1e-9
"""A decode wait at most this long is no wait (the decode pool's budget is 0; the engines start a request that
finds a free slot at its arrival time exactly, this absorbs the rounding of ``finish + T_kv``) [s]."""


@dataclass(frozen=True)
class TandemRun:
    """One sample path of a disaggregated system.

    Attributes
    ----------
    prefill
        The prefill stage, in arrival order.
    decode
        The decode stage, in order of arrival at the decode pool.
    decode_position
        For each request (arrival order), its index in :attr:`decode`, -1 where the prefill stage dropped it.
    """

    prefill: Run
    decode: Run
    decode_position: NDArray[np.int64]


@dataclass(frozen=True, eq=False)
class TandemWork:
    """What each request brings to the two pools.

    Attributes
    ----------
    decode_work, output_tokens
        Each request's decode work (mean 1) and output tokens, in arrival order [-, tokens].
    decode_cv_fraction
        Coefficient of variation of the decode work, for the decode stage's warm-start residual work [-].
    prefill_cv_fraction
        Coefficient of variation of the prefill work (gamma, mean 1; 1 exponential, 0 every prefill the same) [-].
    prefill_work
        Each request's prefill work (its uncached input over the workload's mean), which is also its prefill TTFT's
        share of the curve's (:mod:`rackcost.model.sim.sim_trace`), in place of gamma draws [-].
    """

    decode_work: ArrayLike
    output_tokens: ArrayLike
    decode_cv_fraction: float
    prefill_cv_fraction: float = 1.0
    prefill_work: ArrayLike | None = None

    def prefill(self) -> RequestWork:
        """The prefill stage's work (its TTFT share the same as its work where given)."""
        return RequestWork(self.prefill_cv_fraction, work=self.prefill_work, ttft_ratio=self.prefill_work)

    def decode(self, who: NDArray[np.int64]) -> RequestWork:
        """The decode stage's work of the requests ``who`` (in order of arrival at the decode pool)."""
        work = np.asarray(self.decode_work, dtype=float)[who]
        tokens = np.asarray(self.output_tokens, dtype=float)[who]
        return RequestWork(self.decode_cv_fraction, work=work, request_output_tokens=tokens)


def run_tandem_once(
    rng: np.random.Generator,
    prefill: SimFleet,
    decode: SimFleet,
    arrivals: RenewalArrivals | TraceArrivals,
    transfer_s: float,
    work: TandemWork,
    decode_engine: str = "event",
) -> TandemRun:
    """Simulate one sample path of the prefill pool, the KV transfer and the decode pool.

    Parameters
    ----------
    rng
        Random generator (each stage its own child).
    prefill, decode
        Each pool (:class:`rackcost.model.sim.sim_engines.SimFleet`; the prefill pool's TTFT holds the transfer).
    arrivals
        The arrivals at the prefill pool: generated (:class:`rackcost.model.sim.sim_arrivals.RenewalArrivals`) or a
        trace's (:class:`rackcost.model.sim.sim_arrivals.TraceArrivals`).
    transfer_s
        KV transfer time of each request [s].
    work
        What each request brings to each pool (:class:`TandemWork`).
    decode_engine
        ``"event"`` (records each request's start occupancy, for its TPOT) or ``"auto"``.

    Examples
    --------
    One prefill slot of 1 s, one decode slot of 2 s, a 0.5 s transfer:

    >>> from rackcost.model.sim.sim_engines import fixed_model
    >>> p, d = SimFleet(1, fixed_model(1, 1.0, 1.5), "pooled"), SimFleet(1, fixed_model(1, 2.0, 0.0), "pooled")
    >>> w = TandemWork(np.ones(50), np.full(50, 100.0), 0.0)
    >>> t = run_tandem_once(np.random.default_rng(0), p, d, RenewalArrivals(0.1, 50), 0.5, w)
    >>> bool(np.allclose(t.decode.arrival_s, np.sort(t.prefill.finish_s) + 0.5))
    True
    """
    p_rng, d_rng = rng.spawn(2)
    first = run_fleet_once(p_rng, prefill, arrivals, work.prefill())
    reached = np.flatnonzero(~first.dropped)
    at_decode = first.finish_s[reached] + transfer_s
    order = np.argsort(at_decode, kind="stable")
    who = reached[order]
    controls = RunControls(engine=decode_engine, record_occupancy=True)
    second = run_fleet_once(d_rng, decode, TraceArrivals(at_decode[order]), work.decode(who), controls)
    position = np.full(first.arrival_s.size, -1, dtype=np.int64)
    position[who] = np.arange(who.size)
    return TandemRun(first, second, position)


def _masks(run: TandemRun, prefill_budget_s: float, lo_prefill: int, lo_decode: int) -> tuple[NDArray[np.bool_], ...]:
    """Per request (arrival order): measured, reached decode, dropped by the decode pool, met the prefill pool's
    part, met the decode pool's part (:func:`tandem_statistics`)."""
    p, d, pos = run.prefill, run.decode, run.decode_position
    n = p.arrival_s.size
    measured = np.arange(n) >= lo_prefill
    measured &= (pos < 0) | (pos >= lo_decode)
    reached = pos >= 0
    d_dropped = np.ones(n, dtype=bool)
    d_wait = np.full(n, np.inf)
    d_dropped[reached] = d.dropped[pos[reached]]
    d_wait[reached] = d.wait_s[pos[reached]]
    p_ok = ~p.dropped & (p.wait_s <= prefill_budget_s)
    d_ok = ~d_dropped & (d_wait <= DECODE_WAIT_TOLERANCE_S)
    return measured, reached, d_dropped, p_ok, d_ok


@dataclass(frozen=True)
class _Missed:
    """The measured requests as :func:`rackcost.model.sim.sim_rare.miss_units` reads a run: a miss as a drop."""

    arrival_s: Array
    dropped: NDArray[np.bool_]
    wait_s: Array
    replica: NDArray[np.int64] | None = None


def tandem_miss_units(
    run: TandemRun, prefill_budget_s: float, lo_prefill: int, lo_decode: int, relaxation_s: float
) -> tuple[int, int, float]:
    """The measured requests cut into independent units, and those holding a miss of either pool's part
    (:func:`rackcost.model.sim.sim_rare.miss_units`, stretches of at least two relaxation times of the slower stage,
    ``relaxation_s``): where misses are rare, the accepted share's bound (:mod:`rackcost.model.sim.sim_rare`).

    Returns
    -------
    (units, with_miss, crowding)
        As :func:`rackcost.model.sim.sim_rare.miss_units`.
    """
    measured, _, _, p_ok, d_ok = _masks(run, prefill_budget_s, lo_prefill, lo_decode)
    arrival = run.prefill.arrival_s[measured]
    view = _Missed(arrival, ~(p_ok & d_ok)[measured], np.zeros(arrival.size))
    return miss_units(view, 0.0, 0, arrival.size, relaxation_s)


def tandem_statistics(
    run: TandemRun,
    prefill_budget_s: float,
    lo_prefill: int,
    lo_decode: int,
    tpot_by_occupancy_s: Array,
    hi_prefill: int | None = None,
) -> dict[str, float]:
    """The estimates of one tandem sample path over its measured requests.

    A request is measured when its arrival index is at least ``lo_prefill`` and, where it reached the decode pool,
    its index there at least ``lo_decode``. It is accepted when neither pool dropped it, its prefill wait is within
    ``prefill_budget_s`` and it found a free decode slot (the decode pool's budget is 0). With ``hi_prefill`` (a
    batch of a trace's batch means) only arrivals before that index are measured, and the decode pool's utilisation
    over the span of the batch's requests there.

    Returns
    -------
    dict
        ``accepted_fraction``, ``prefill_met_fraction`` (of the measured requests the prefill pool admitted, those
        within the budget), ``decode_met_fraction`` (of those reaching decode, those not waiting), ``ttft_p50_s``
        and ``ttft_p99_s`` (over the prefill pool's admitted requests), ``tpot_p99_s`` (the decode batch's TPOT at
        the occupancy each request starts at), ``prefill_utilization_fraction``, ``decode_utilization_fraction``,
        ``dropped_fraction`` and ``accepted_rps``.
    """
    p, d, pos = run.prefill, run.decode, run.decode_position
    measured, reached, d_dropped, p_ok, d_ok = _masks(run, prefill_budget_s, lo_prefill, lo_decode)
    hi_decode = None
    if hi_prefill is not None:
        measured &= np.arange(measured.size) < hi_prefill
        there = pos[measured & reached]
        lo_decode, hi_decode = (int(there.min()), int(there.max()) + 1) if there.size >= 2 else (0, d.arrival_s.size)
    accepted = p_ok & d_ok
    m_admitted = measured & ~p.dropped
    ttft = p.ttft_s[m_admitted]
    in_decode = measured & reached & ~d_dropped
    occupancy = d.start_occupancy  # None where the recursion ran: the TPOT is then the same at every occupancy
    tpot = tpot_by_occupancy_s[1 if occupancy is None else occupancy[pos[in_decode]]]
    tpot = np.broadcast_to(tpot, (int(in_decode.sum()),))
    span = float(p.arrival_s[measured][-1] - p.arrival_s[measured][0])
    return {
        "accepted_fraction": float(accepted[measured].mean()),
        "prefill_met_fraction": float(p_ok[m_admitted].mean()) if m_admitted.any() else 1.0,
        "decode_met_fraction": float(d_ok[measured & reached].mean()) if (measured & reached).any() else 1.0,
        "ttft_p50_s": float(np.quantile(ttft, 0.5)) if ttft.size else 0.0,
        "ttft_p99_s": float(np.quantile(ttft, 0.99)) if ttft.size else 0.0,
        "tpot_p99_s": float(np.quantile(tpot, 0.99)) if tpot.size else 0.0,
        "prefill_utilization_fraction": run_statistics(p, 0.0, lo=lo_prefill, hi=hi_prefill)["utilization_fraction"],
        "decode_utilization_fraction": run_statistics(d, 0.0, lo=lo_decode, hi=hi_decode)["utilization_fraction"],
        "dropped_fraction": float((p.dropped | (reached & d_dropped))[measured].mean()),
        "accepted_rps": float(accepted[measured].sum() / span) if span > 0 else 0.0,
    }
