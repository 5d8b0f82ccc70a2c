"""Token accounting and the performance curve of one serving replica (docs/model.md, steps 1 and 2).

Pure functions over numpy arrays. A replica's measured operating points form a throughput-vs-interactivity
curve; between measured points the service time and the latencies are interpolated linearly in concurrency,
throughput follows as ``c / S(c)``, and nothing is extrapolated past the outermost point. :class:`LoadCurve` is the
same curve as the demand points read it, with a sample axis, and :func:`in_service_concurrency` the batch a replica
serves at a load.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import ArrayLike, NDArray

from rackcost.units import MS_PER_S

__all__ = [
    "Curve",
    "candidate_concurrencies",
    "LoadCurve",
    "in_service_concurrency",
    "interpolate_curve",
    "littles_law_concurrency",
    "piecewise_linear",
    "piecewise_linear_many",
    "requests_per_s",
    "service_time_s",
]


def requests_per_s(
    throughput_tokens_per_s: ArrayLike, token_basis: str, input_tokens: ArrayLike, output_tokens: ArrayLike
) -> NDArray[np.float64]:
    """Request rate from a token throughput.

    requests/s = total tokens/s / (ISL + OSL) = output tokens/s / OSL.

    Parameters
    ----------
    throughput_tokens_per_s
        Throughput [tokens/s] counting the tokens named by ``token_basis``.
    token_basis
        ``"total"`` (input + output tokens) or ``"output"``.
    input_tokens, output_tokens
        Tokens per request, ISL and OSL [tokens].

    Returns
    -------
    ndarray
        Request rate [requests/s].

    Examples
    --------
    >>> float(requests_per_s(9216.0, "total", 8192, 1024))
    1.0
    >>> float(requests_per_s(1024.0, "output", 8192, 1024))
    1.0
    """
    tps = np.asarray(throughput_tokens_per_s, dtype=float)
    if token_basis == "total":
        return tps / (np.asarray(input_tokens, dtype=float) + np.asarray(output_tokens, dtype=float))
    if token_basis == "output":
        return tps / np.asarray(output_tokens, dtype=float)
    raise ValueError(f"token_basis must be 'total' or 'output', got {token_basis!r}")


def littles_law_concurrency(
    request_rps: ArrayLike, ttft_ms: ArrayLike, tpot_ms: ArrayLike, output_tokens: ArrayLike
) -> NDArray[np.float64]:
    """Requests in flight per replica by Little's law, L = lambda * W.

    The time a request holds a slot is its TTFT plus (OSL - 1) further tokens at TPOT.

    Parameters
    ----------
    request_rps
        Completed requests per replica [requests/s].
    ttft_ms, tpot_ms
        Time to first token and time per output token at the point [ms].
    output_tokens
        Output tokens per request, OSL [tokens].

    Returns
    -------
    ndarray
        Concurrency [requests].

    References
    ----------
    J. D. C. Little, "A proof for the queuing formula L = lambda W", Operations Research 9(3), 1961.
    """
    hold_s = (
        np.asarray(ttft_ms, dtype=float)
        + (np.asarray(output_tokens, dtype=float) - 1.0) * np.asarray(tpot_ms, dtype=float)
    ) / MS_PER_S
    return np.asarray(request_rps, dtype=float) * hold_s


def service_time_s(concurrency: ArrayLike, request_rps: ArrayLike) -> NDArray[np.float64]:
    """Slot holding time S = c / mu by Little's law [s]."""
    return np.asarray(concurrency, dtype=float) / np.asarray(request_rps, dtype=float)


@dataclass(frozen=True)
class Curve:
    """Operating points of one replica, sorted by concurrency; every array has one entry per point.

    Attributes
    ----------
    concurrency
        Requests in flight per replica [requests].
    request_rps
        Requests completed per second per replica [requests/s].
    total_tokens_per_s
        Input + output tokens per second per replica [tokens/s].
    output_tokens_per_s
        Output tokens per second per replica [tokens/s].
    tpot_ms
        Time per output token [ms].
    ttft_ms
        Time to first token without fleet queueing [ms].
    power_w_per_accelerator
        Measured accelerator power, or None when not every point has one [W].
    source_index
        For measured points, each point's position in the input before sorting; None for interpolated points.
    """

    concurrency: NDArray[np.float64]
    request_rps: NDArray[np.float64]
    total_tokens_per_s: NDArray[np.float64]
    output_tokens_per_s: NDArray[np.float64]
    tpot_ms: NDArray[np.float64]
    ttft_ms: NDArray[np.float64]
    power_w_per_accelerator: NDArray[np.float64] | None = None
    source_index: NDArray[np.int64] | None = None

    @property
    def service_s(self) -> NDArray[np.float64]:
        """Slot holding time S = c / mu [s]."""
        return service_time_s(self.concurrency, self.request_rps)

    def __len__(self) -> int:
        return int(self.concurrency.size)

    def take(self, index: NDArray[np.intp]) -> Curve:
        """The points at the positions ``index``."""
        power = None if self.power_w_per_accelerator is None else self.power_w_per_accelerator[index]
        source = None if self.source_index is None else self.source_index[index]
        return replace(
            self,
            concurrency=self.concurrency[index],
            request_rps=self.request_rps[index],
            total_tokens_per_s=self.total_tokens_per_s[index],
            output_tokens_per_s=self.output_tokens_per_s[index],
            tpot_ms=self.tpot_ms[index],
            ttft_ms=self.ttft_ms[index],
            power_w_per_accelerator=power,
            source_index=source,
        )


def build_curve(
    concurrency: ArrayLike | None,
    throughput_tokens_per_s: ArrayLike,
    token_basis: str,
    tpot_ms: ArrayLike,
    ttft_ms: ArrayLike,
    input_tokens: float,
    output_tokens: float,
    power_w_per_accelerator: ArrayLike | None = None,
) -> Curve:
    """Build a replica curve from measured points, deriving concurrency by Little's law where it is missing.

    Parameters
    ----------
    concurrency
        Per-replica concurrency of each point, or None to derive it [requests].
    throughput_tokens_per_s
        Per-replica throughput on ``token_basis`` [tokens/s].
    token_basis
        ``"total"`` or ``"output"``.
    tpot_ms, ttft_ms
        Latencies at each point [ms].
    input_tokens, output_tokens
        ISL and OSL the points were measured at [tokens].
    power_w_per_accelerator
        Measured accelerator power at each point, optional [W].

    Returns
    -------
    Curve
        Points sorted by concurrency.
    """
    tps = np.atleast_1d(np.asarray(throughput_tokens_per_s, dtype=float))
    rps = requests_per_s(tps, token_basis, input_tokens, output_tokens)
    tpot = np.atleast_1d(np.asarray(tpot_ms, dtype=float))
    ttft = np.atleast_1d(np.asarray(ttft_ms, dtype=float))
    if concurrency is None:
        conc = littles_law_concurrency(rps, ttft, tpot, output_tokens)
    else:
        conc = np.atleast_1d(np.asarray(concurrency, dtype=float))
    order = np.argsort(conc, kind="stable")
    power = None if power_w_per_accelerator is None else np.atleast_1d(np.asarray(power_w_per_accelerator, float))
    curve = Curve(
        concurrency=conc,
        request_rps=rps,
        total_tokens_per_s=rps * (input_tokens + output_tokens),
        output_tokens_per_s=rps * output_tokens,
        tpot_ms=tpot,
        ttft_ms=ttft,
        power_w_per_accelerator=power,
        source_index=np.arange(conc.size),
    )
    return curve.take(order)


def candidate_concurrencies(low: float, high: float, count: int = 33) -> NDArray[np.float64]:
    """Concurrencies at which the curve is evaluated when choosing an operating point.

    Every integer in [low, high] when there are at most ``count`` of them (a serving engine's concurrency cap is
    an integer), else ``count`` log-spaced values rounded to integers where the spacing allows; the ends are always
    included and nothing lies outside them.

    Parameters
    ----------
    low, high
        Range of concurrency [requests].
    count
        Number of candidates wanted [-].

    Returns
    -------
    ndarray
        Sorted, unique candidate concurrencies [requests].

    Examples
    --------
    >>> candidate_concurrencies(4.0, 8.0).tolist()
    [4.0, 5.0, 6.0, 7.0, 8.0]
    """
    if high - low <= count:
        inner = np.arange(np.ceil(low), np.floor(high) + 1.0)
    else:
        inner = np.exp(np.linspace(np.log(low), np.log(high), count))  # log-spaced (np.geomspace is slower)
        inner = np.where(np.diff(inner, prepend=0.0) > 2.0, np.round(inner), inner)
    grid = np.unique(np.concatenate([[low, high], inner]))
    return grid[(grid >= low) & (grid <= high)]


def interpolate_curve(curve: Curve, concurrency: ArrayLike) -> Curve:
    """Evaluate the curve at other concurrencies, never extrapolating (docs/model.md, 2. Performance curve).

    Between measured points the slot holding time ``S = c / mu`` (Little's law on each measured run) and the
    latencies are interpolated linearly in concurrency (a continuously batching server's decode time grows about
    linearly with its batch), and throughput is derived as ``c / S(c)``. Interpolating throughput on its own would
    make the implied service time fall as concurrency rises between sparse points, which no server does.

    Parameters
    ----------
    curve
        Measured points, sorted by concurrency.
    concurrency
        Where to evaluate [requests]; must lie within the measured range.

    Returns
    -------
    Curve
        The interpolated points; token throughputs follow from the request rate so that token accounting stays
        consistent.

    Raises
    ------
    ValueError
        If a requested concurrency lies outside the measured range.

    Examples
    --------
    Service time 1 s at 4 requests and 3 s at 12: at 8 requests it is 2 s, so 4 requests/s.

    >>> c = build_curve([4.0, 12.0], [4000.0, 4000.0], "total", [10.0, 30.0], [100.0, 300.0], 900, 100)
    >>> mid = interpolate_curve(c, [8.0])
    >>> float(mid.service_s[0]), float(mid.request_rps[0]), float(mid.tpot_ms[0])
    (2.0, 4.0, 20.0)
    """
    c = np.asarray(concurrency, dtype=float)
    lo, hi = curve.concurrency[0], curve.concurrency[-1]
    if (c < lo * (1 - 1e-12)).any() or (c > hi * (1 + 1e-12)).any():
        raise ValueError(f"concurrency outside the measured range [{lo:g}, {hi:g}]: no extrapolation")
    cq = np.clip(c, lo, hi)

    def at(values: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.interp(cq, curve.concurrency, values) if values.size > 1 else np.full(cq.shape, values[0])

    rps = c / at(curve.service_s)
    ratio_total = curve.total_tokens_per_s[0] / curve.request_rps[0]
    ratio_output = curve.output_tokens_per_s[0] / curve.request_rps[0]
    power = None if curve.power_w_per_accelerator is None else at(curve.power_w_per_accelerator)
    return Curve(
        concurrency=c,
        request_rps=rps,
        total_tokens_per_s=rps * ratio_total,
        output_tokens_per_s=rps * ratio_output,
        tpot_ms=at(curve.tpot_ms),
        ttft_ms=at(curve.ttft_ms),
        power_w_per_accelerator=power,
    )


def piecewise_linear(knots: NDArray[np.float64], values: ArrayLike, at: ArrayLike) -> NDArray[np.float64]:
    """Linear interpolation with values that may differ per sample, held constant beyond the end knots.

    Parameters
    ----------
    knots
        Sorted abscissae, shape ``(K,)``.
    values
        Ordinates at the knots, shape ``(K,)`` or ``(n, K)`` (one row per sample).
    at
        Where to evaluate, shape ``(n, P)`` (or anything that broadcasts to it with a sample axis first).

    Returns
    -------
    ndarray
        Interpolated values, shape of ``at`` broadcast with the sample axis of ``values``.

    Examples
    --------
    >>> piecewise_linear(np.array([1.0, 3.0]), np.array([[10.0, 30.0], [20.0, 60.0]]), np.array([[2.0], [0.5]]))
    array([[20.],
           [20.]])
    """
    return piecewise_linear_many(knots, (values,), at)[0]


def piecewise_linear_many(
    knots: NDArray[np.float64], values: tuple[ArrayLike, ...], at: ArrayLike
) -> tuple[NDArray[np.float64], ...]:
    """:func:`piecewise_linear` of several ordinates on the same knots at the same points, the segments found once.

    Each result is the one :func:`piecewise_linear` gives, bit for bit (the same arithmetic per element).

    Examples
    --------
    >>> a, b = piecewise_linear_many(np.array([1.0, 3.0]), (np.array([10.0, 30.0]), np.array([0.0, 1.0])), 2.0)
    >>> a.tolist(), b.tolist()
    ([[20.0]], [[0.5]])
    """
    x = np.asarray(knots, dtype=float)
    q = np.asarray(at, dtype=float)
    if q.ndim < 2:
        q = q.reshape(1, -1) if q.ndim == 1 else q.reshape(1, 1)
    ys = [np.atleast_2d(np.asarray(v, dtype=float)) for v in values]
    if x.size == 1:
        return tuple(np.broadcast_to(y[:, :1], np.broadcast_shapes(q.shape, (y.shape[0], 1))).copy() for y in ys)
    # the segment of each point and its weight, held at the end knots (ndarray.clip is np.clip without its wrapper)
    if x.size <= _FEW_KNOTS:
        # searchsorted(x, q) clipped to 1..K-1 is 1 plus the inner knots below q (the knots are sorted): a few
        # comparisons cost a fraction of the search (a NaN point gives another segment, and NaN either way)
        hi = np.ones(q.shape, dtype=np.intp)
        for knot in x[1:-1]:
            hi += q > knot
    else:
        hi = np.searchsorted(x, q).clip(1, x.size - 1)
    lo = hi - 1
    # every index is in range by construction, so ``take(..., mode="clip")`` gathers the same values as indexing,
    # without its bounds check: 0.12 against 0.22 ms for 150,000 points on a curve of 6 knots, 0.27 against 0.49 ms
    # from 150,000 per-sample ordinates (measured on this machine; a Monte Carlo block gathers about 20 such arrays)
    # x[hi] - x[lo] is the segment's width, the same subtraction done once per segment rather than per point
    # (x[1:] - x[:-1] is np.diff(x) without its wrapper; 1 - w is the same for every row of ordinates, so once)
    w = ((q - x.take(lo, mode="clip")) / (x[1:] - x[:-1]).take(lo, mode="clip")).clip(0.0, 1.0)
    w_lo = 1.0 - w
    out = []
    flat_lo = None
    for y in ys:
        if y.shape[0] == 1:  # one row of ordinates: the point's shape is the result's
            row = y[0]
            out.append(w_lo * row.take(lo, mode="clip") + w * row.take(hi, mode="clip"))
            continue
        shape = np.broadcast_shapes(q.shape, (y.shape[0], 1))
        w_b = np.broadcast_to(w, shape)
        # each point's row and segment as one index into the rows laid end to end: the same values as indexing by
        # (row, segment), at a third of its cost
        if flat_lo is None or flat_lo.shape != shape:
            flat_lo = lo + (np.arange(y.shape[0]) * x.size)[:, None]
        flat = np.ascontiguousarray(y).reshape(-1)
        out.append((1.0 - w_b) * flat.take(flat_lo, mode="clip") + w_b * flat.take(flat_lo + 1, mode="clip"))
    return tuple(out)


_FEW_KNOTS = 16
"""Knots up to which :func:`piecewise_linear_many` finds each point's segment by comparisons rather than by a
search [-]."""
_STACKED_ROOTS = 4096
"""Points times segments up to which :func:`in_service_concurrency` solves every segment in one stack of arrays
rather than one segment at a time [-]: 45 against 71 us for 12 points on a curve of 4 measured points (measured on
this 2-core machine), the same figures; a Monte Carlo's arrays take the loop, which allocates no stack."""


def _segment_roots(
    knots: NDArray[np.float64], s: NDArray[np.float64], x: NDArray[np.float64], best: NDArray[np.float64]
) -> NDArray[np.float64]:
    """``best`` and each segment's fixed point where it lies inside its segment (else inf), stacked on a first axis
    ``(K, n, P)`` (:func:`in_service_concurrency`): each element the same arithmetic as the segment loop, so that
    ``np.minimum.reduce`` over the first axis (in the loop's order) gives its figures bit for bit."""
    s_t = s.T[:, :, None]  # (K, n, 1)
    lo, hi = knots[:-1, None, None], knots[1:, None, None]
    slope = (s_t[1:] - s_t[:-1]) / (hi - lo)  # (K-1, n, 1)
    intercept = s_t[:-1] - slope * lo
    denominator = 1.0 - x * slope
    root = x * intercept / denominator
    inside = (denominator > 0) & (root >= lo) & (root <= hi)
    return np.concatenate([best[None], np.where(inside, root, np.inf)])


@dataclass(frozen=True)
class LoadCurve:
    """A replica's curve as the demand points read it: per-sample service time (and power) at each measured point.

    Attributes
    ----------
    concurrency
        Measured concurrencies, sorted, shape ``(K,)`` [requests].
    service_s
        Slot holding time at each measured point, per sample, shape ``(n, K)`` [s].
    ttft_ms, tpot_ms
        Latencies at each measured point, shape ``(K,)`` [ms].
    power_w_per_accelerator
        Measured accelerator power at each point, per sample, shape ``(n, K)``, or None [W].
    limit
        The scheduler's concurrency limit: the chosen operating point's concurrency [requests].
    """

    concurrency: NDArray[np.float64]
    service_s: NDArray[np.float64]
    ttft_ms: NDArray[np.float64]
    tpot_ms: NDArray[np.float64]
    power_w_per_accelerator: NDArray[np.float64] | None
    limit: float

    def service_at(self, concurrency: ArrayLike) -> NDArray[np.float64]:
        """Slot holding time at a concurrency, per sample [s] (held below the lowest measured point)."""
        return piecewise_linear(self.concurrency, self.service_s, concurrency)

    def ttft_at(self, concurrency: ArrayLike) -> NDArray[np.float64]:
        """TTFT before fleet queueing at a concurrency [ms] (held below the lowest measured point)."""
        return piecewise_linear(self.concurrency, self.ttft_ms, concurrency)

    def tpot_at(self, concurrency: ArrayLike) -> NDArray[np.float64]:
        """TPOT at a concurrency [ms] (held below the lowest measured point)."""
        return piecewise_linear(self.concurrency, self.tpot_ms, concurrency)

    def figures_at(
        self, concurrency: ArrayLike
    ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
        """Slot holding time [s], TTFT [ms] and TPOT [ms] at a concurrency: :meth:`service_at`, :meth:`ttft_at` and
        :meth:`tpot_at` in one search of the curve's segments (the same figures, bit for bit)."""
        service, ttft, tpot = piecewise_linear_many(
            self.concurrency, (self.service_s, self.ttft_ms, self.tpot_ms), concurrency
        )
        return service, ttft, tpot

    def latencies_at(self, concurrency: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """TTFT and TPOT at a concurrency [ms, ms]: :meth:`ttft_at` and :meth:`tpot_at` in one search."""
        ttft, tpot = piecewise_linear_many(self.concurrency, (self.ttft_ms, self.tpot_ms), concurrency)
        return ttft, tpot


def in_service_concurrency(curve: LoadCurve, per_replica_rps: ArrayLike) -> NDArray[np.float64]:
    """Requests in service per replica at a load: the fixed point ``c = (lambda / N) * S(c)``, at most the limit.

    A continuously batching replica serves a smaller batch at a lower load, and a smaller batch is served faster,
    so the concurrency in service is where Little's law on the replica, ``c = x S(c)`` with ``x`` its arrival rate,
    holds. ``S`` is piecewise linear in ``c`` (held below the lowest measured point), so each segment's fixed point is
    closed form: ``c = x a / (1 - x b)`` for ``S = a + b c``; the lowest one inside its segment is the answer (the
    least fixed point, which the monotone iteration ``c <- x S(c)`` from zero converges to). When there is none below
    the limit, the replica is saturated and serves the limit.

    Parameters
    ----------
    curve
        The replica's load curve (one row of service times per sample).
    per_replica_rps
        Arrival rate each serving replica admits, shape ``(n, P)`` [requests/s].

    Returns
    -------
    ndarray
        Concurrency in service, shape ``(n, P)``, in ``[0, limit]`` [requests].

    Examples
    --------
    Service time 1 s up to 4 requests, rising to 2 s at 12: at 2 requests/s the replica holds 2 in service; at
    5 requests/s, ``c = 5 (0.5 + c / 8)`` gives 20/3; at 8 requests/s it is saturated at the limit.

    >>> curve = LoadCurve(np.array([4.0, 12.0]), np.array([[1.0, 2.0]]), np.array([100.0, 300.0]),
    ...                   np.array([10.0, 30.0]), None, 12.0)
    >>> in_service_concurrency(curve, np.array([[2.0, 5.0, 8.0]])).round(4)
    array([[ 2.    ,  6.6667, 12.    ]])
    """
    x = np.asarray(per_replica_rps, dtype=float)
    if x.ndim < 2:
        x = x.reshape(1, -1) if x.ndim == 1 else x.reshape(1, 1)
    knots = curve.concurrency
    s = np.atleast_2d(curve.service_s)
    n = max(x.shape[0], s.shape[0])
    if x.shape[0] != n or s.shape[0] != n:
        x = np.broadcast_to(x, (n, x.shape[1]))  # (n, P)
        s = np.broadcast_to(s, (n, s.shape[1]))  # (n, K)
    # region below the lowest point: S held at S_0, so c = x S_0 where that is at most c_0
    below = x * s[:, :1]
    best = np.where(below <= knots[0], below, np.inf)
    with np.errstate(divide="ignore", invalid="ignore"):
        if x.size * (knots.size - 1) <= _STACKED_ROOTS:
            return np.minimum(np.minimum.reduce(_segment_roots(knots, s, x, best), axis=0), curve.limit)
        # one segment at a time, on (n, P) arrays: the same arithmetic per element as on an (n, P, K-1) stack, and
        # the least root by np.minimum (exact, in any order), without the stack's short inner axis (2x faster on 3
        # points) nor a stack of a Monte Carlo's size
        for j in range(knots.size - 1):
            slope = (s[:, j + 1 : j + 2] - s[:, j : j + 1]) / (knots[j + 1] - knots[j])  # (n, 1)
            intercept = s[:, j : j + 1] - slope * knots[j]
            denominator = 1.0 - x * slope
            root = x * intercept / denominator
            inside = (denominator > 0) & (root >= knots[j]) & (root <= knots[j + 1])
            best = np.minimum(best, np.where(inside, root, np.inf))
    return np.minimum(best, curve.limit)
