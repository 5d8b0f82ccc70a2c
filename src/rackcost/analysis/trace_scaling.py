"""A trace cut to a window and scaled to a target rate by superposition, and written as rackcost's CSV.

**Superposition, never time compression.** A trace recorded at a few requests per second is brought to a fleet's
rate by merging ``n = ceil(target / rate)`` copies of it, each shifted cyclically by its own uniform random offset
over the trace's period, then thinning the merged stream at random to the target rate exactly. Every copy keeps
the trace's own gaps, bursts and silences at every time scale; thinning is an independent coin per request, which
keeps every time scale too (it moves the index of dispersion of counts ``I(w)`` toward 1 by the kept share ``p``:
``I' = 1 + p (I - 1)``). Superposing ``n`` independent copies keeps ``I(w)`` (the variance and the mean of the
counts both grow ``n``-fold). Compressing the timestamps by ``n`` instead squeezes every time scale: an hour's
climb becomes a minute's, and the burstiness a fleet sees at the 10-40 s its requests hold a slot is what the
trace had at ``n`` times that, which is not real traffic. (The superposition of independent streams is the
classical model of the traffic of many independent sources: Cox and Smith, "On the superposition of renewal
processes", *Biometrika* 41, 1954.)

The copies are independent users: a Mooncake trace's prompt block hashes are renumbered per copy (copy ``j``'s
ids are the trace's plus ``j (max id + 1)``), so that a copy never hits another's prefix cache.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from rackcost.analysis.trace_files import MIN_REQUESTS, Trace
from rackcost.scenario.fields import RPS_RANGE

__all__ = ["MAX_SUPERPOSED_REQUESTS", "Superposed", "cut_window", "superpose", "trace_csv_text"]

MAX_SUPERPOSED_REQUESTS = 100_000_000
"""Most requests a superposed trace may hold [-]: the simulator's own bound on a run (8 bytes each, several
arrays: a few GB at most)."""


def cut_window(trace: Trace, start_s: float = 0.0, duration_s: float | None = None) -> Trace:
    """The requests arriving from ``start_s`` to ``start_s + duration_s`` (half-open) seconds after the trace's first
    arrival; ``duration_s`` None is to the end.

    Raises
    ------
    ValueError
        ``start_s`` is negative or not finite, ``duration_s`` is not positive and finite, or the window holds fewer
        than 20 requests or no span of time.

    Examples
    --------
    >>> from rackcost.analysis.trace_files import Trace
    >>> t = Trace(np.arange(100.0) + 5.0, np.ones(100), np.ones(100))
    >>> cut = cut_window(t, 10.0, 30.0)
    >>> float(cut.arrival_s[0]), float(cut.arrival_s[-1]), cut.arrival_s.size
    (15.0, 44.0, 30)
    """
    if not (math.isfinite(start_s) and start_s >= 0):
        raise ValueError(f"the window's start must be a finite number of seconds >= 0, not {start_s:g}")
    if duration_s is not None and not (math.isfinite(duration_s) and duration_s > 0):
        raise ValueError(f"the window's duration must be a finite number of seconds > 0, not {duration_s:g}")
    relative = trace.arrival_s - trace.arrival_s[0]
    keep = relative >= start_s
    if duration_s is not None:
        keep &= relative < start_s + duration_s
    count = int(keep.sum())
    end = "the end" if duration_s is None else f"{start_s + duration_s:g} s"
    if count < MIN_REQUESTS:
        raise ValueError(
            f"the window from {start_s:g} s to {end} of the trace's {trace.span_s:.4g} s holds {count} requests; "
            f"a trace needs at least {MIN_REQUESTS}"
        )
    kept = trace.arrival_s[keep]
    if kept[-1] <= kept[0]:
        raise ValueError(f"every request in the window from {start_s:g} s to {end} arrives at one instant")
    return _subset(trace, np.flatnonzero(keep))


def _subset(trace: Trace, index: np.ndarray, arrival_s: np.ndarray | None = None) -> Trace:
    """The requests at ``index`` (in that order), with new arrival times if given."""
    return replace(
        trace,
        arrival_s=trace.arrival_s[index] if arrival_s is None else arrival_s,
        input_tokens=trace.input_tokens[index] if trace.has_tokens else trace.input_tokens,
        output_tokens=trace.output_tokens[index] if trace.has_tokens else trace.output_tokens,
        hash_ids=None if trace.hash_ids is None else tuple(trace.hash_ids[i] for i in index),
    )


@dataclass(frozen=True)
class Superposed:
    """A trace superposed to a target rate (:func:`superpose`).

    Attributes
    ----------
    trace
        The merged, thinned requests, sorted by arrival (times from 0 to ``period_s``).
    copies
        Copies of the trace merged, ``ceil(target / rate)`` [-].
    period_s
        The period each copy is shifted cyclically over: the trace's span plus one mean gap, so that its first and
        last requests do not land at one instant [s].
    offsets_s
        Each copy's shift [s].
    copy_of
        The copy each request of :attr:`trace` came from [-].
    kept_fraction
        The share of the merged requests the thinning kept [-].
    """

    trace: Trace
    copies: int
    period_s: float
    offsets_s: np.ndarray
    copy_of: np.ndarray
    kept_fraction: float


def superpose(trace: Trace, target_rps: float, seed: int = 0) -> Superposed:
    """Scale a trace to ``target_rps`` by superposing randomly shifted copies and thinning (module docstring).

    Each copy ``j`` is the trace's arrivals (from its first, at 0) shifted by ``u_j ~ U[0, P)`` modulo the period
    ``P = span + span / (N - 1)`` (``N`` requests): one copy over ``P`` has exactly the trace's mean rate. Of the
    ``n N`` merged requests, ``round(target P)`` are kept, chosen uniformly at random without replacement, so that
    the rate over the period is the target's. Deterministic per ``seed``.

    Raises
    ------
    ValueError
        The target is not a rate a demand point takes (:data:`RPS_RANGE`), or the result would hold more than
        :data:`MAX_SUPERPOSED_REQUESTS` or fewer than 20 requests.
    """
    lo, hi = RPS_RANGE
    if not (math.isfinite(target_rps) and lo <= target_rps <= hi):
        raise ValueError(f"the target rate must be from {lo:g} to {hi:g} requests/s, not {target_rps:g}")
    n = trace.arrival_s.size
    relative = trace.arrival_s - trace.arrival_s[0]
    period = float(relative[-1]) * n / (n - 1)
    copies = max(1, math.ceil(target_rps / trace.arrival_rps - 1e-12))
    keep_count = round(target_rps * period)
    if keep_count > MAX_SUPERPOSED_REQUESTS or copies * n > 4 * MAX_SUPERPOSED_REQUESTS:
        raise ValueError(
            f"{target_rps:g} requests/s over the trace's {period:.4g} s are {keep_count:,} requests, more than the "
            f"{MAX_SUPERPOSED_REQUESTS:,} a superposed trace may hold: cut a shorter window (--duration)"
        )
    if keep_count < MIN_REQUESTS:
        raise ValueError(
            f"{target_rps:g} requests/s over the trace's {period:.4g} s are {keep_count} requests; a trace needs at "
            f"least {MIN_REQUESTS}"
        )
    rng = np.random.default_rng(seed)
    offsets = rng.uniform(0.0, period, copies)
    shifted = np.mod(relative[None, :] + offsets[:, None], period).ravel()
    source = np.tile(np.arange(n), copies)
    copy_of = np.repeat(np.arange(copies), n)
    kept = np.sort(rng.choice(shifted.size, size=min(keep_count, shifted.size), replace=False))
    order = kept[np.argsort(shifted[kept], kind="stable")]
    merged = _subset(trace, source[order], shifted[order])
    if trace.hash_ids is not None and copies > 1:  # each copy its own users: ids renumbered per copy
        stride = 1 + max((int(ids.max()) for ids in trace.hash_ids if ids.size), default=0)
        merged = replace(
            merged,
            hash_ids=tuple(ids + stride * int(j) for ids, j in zip(merged.hash_ids or (), copy_of[order], strict=True)),
        )
    return Superposed(
        trace=merged,
        copies=copies,
        period_s=period,
        offsets_s=offsets,
        copy_of=copy_of[order],
        kept_fraction=order.size / shifted.size,
    )


def trace_csv_text(trace: Trace) -> str:
    """The trace as rackcost's CSV, ``arrival_s,input_tokens,output_tokens`` (``repr`` of each time: read back
    exactly), what ``rackcost simulate --trace`` reads.

    Written by formatting each row directly, :data:`CSV_CHUNK_ROWS` at a time, not through :mod:`csv` with a
    record per row: every cell is a number (nothing to quote or neutralise), and a superposed trace of 5e7
    requests took 11 GB that way (the fuzzer found it); this way the text and one chunk's rows are held, about
    35 bytes a request.

    Raises
    ------
    ValueError
        The trace carries arrival times only (no token counts to write).

    Examples
    --------
    >>> print(trace_csv_text(Trace(np.array([0.0, 0.25]), np.array([12.0, 3.5]), np.array([7.0, 1.0]))), end="")
    arrival_s,input_tokens,output_tokens
    0.0,12,7
    0.25,3.5,1
    """
    if not trace.has_tokens:
        raise ValueError(
            "the trace carries arrival times only; a trace to replay needs each request's input_tokens and "
            "output_tokens"
        )
    parts = ["arrival_s,input_tokens,output_tokens\n"]
    for start in range(0, trace.arrival_s.size, CSV_CHUNK_ROWS):
        rows = slice(start, start + CSV_CHUNK_ROWS)
        parts.append(
            "".join(
                f"{t!r},{_count_text(i)},{_count_text(o)}\n"
                for t, i, o in zip(
                    trace.arrival_s[rows].astype(float).tolist(),
                    trace.input_tokens[rows].astype(float).tolist(),
                    trace.output_tokens[rows].astype(float).tolist(),
                    strict=True,
                )
            )
        )
    return "".join(parts)


CSV_CHUNK_ROWS = 100_000
"""Rows :func:`trace_csv_text` formats at a time [-]."""


def _count_text(x: float) -> str:
    """A token count as the CSV writes it: an integer without its ``.0``, else the float's ``repr``."""
    return str(int(x)) if x.is_integer() else repr(x)
