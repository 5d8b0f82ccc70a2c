"""Token accounting and the performance curve of one serving replica (DESIGN.md steps 1 and 2).

Pure functions over numpy arrays. A replica's measured operating points form a throughput-vs-interactivity
curve; between measured points every quantity is interpolated linearly in log(concurrency), and nothing is
extrapolated past the outermost point.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "Curve",
    "candidate_concurrencies",
    "interpolate_curve",
    "littles_law_concurrency",
    "log_segment",
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
    ) / 1000.0
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

    def take(self, index: ArrayLike) -> Curve:
        """The points at ``index``."""
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
    """Evaluate the curve at other concurrencies, linearly in log(concurrency), never extrapolating.

    Parameters
    ----------
    curve
        Measured points, sorted by concurrency.
    concurrency
        Where to evaluate [requests]; must lie within the measured range.

    Returns
    -------
    Curve
        The interpolated points. Throughput and latencies are interpolated; request rate follows from the
        interpolated total throughput so that token accounting stays consistent.

    Raises
    ------
    ValueError
        If a requested concurrency lies outside the measured range.
    """
    c = np.asarray(concurrency, dtype=float)
    lo, hi = curve.concurrency[0], curve.concurrency[-1]
    if np.any(c < lo * (1 - 1e-12)) or np.any(c > hi * (1 + 1e-12)):
        raise ValueError(f"concurrency outside the measured range [{lo:g}, {hi:g}]: no extrapolation")
    x = np.log(curve.concurrency)
    xq = np.log(np.clip(c, lo, hi))

    def at(values: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.interp(xq, x, values) if values.size > 1 else np.full(xq.shape, values[0])

    rps = at(curve.request_rps)
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


def log_segment(concurrency: NDArray[np.float64], at: float) -> tuple[int, int, float]:
    """The measured points either side of a concurrency and its weight on the upper one, in log(concurrency).

    The same weights as :func:`interpolate_curve`, so that a quantity scaled point by point (a sampled throughput)
    moves the interpolated value linearly.

    Parameters
    ----------
    concurrency
        Measured concurrencies, sorted [requests].
    at
        A concurrency within their range [requests].

    Returns
    -------
    lower, upper : int
        Indices of the neighbouring points (both 0 for a single point).
    weight : float
        Weight of the upper point, in [0, 1] [-].

    Examples
    --------
    >>> lower, upper, weight = log_segment(np.array([4.0, 16.0, 64.0]), 8.0)
    >>> lower, upper, round(weight, 12)
    (0, 1, 0.5)
    """
    c = concurrency
    if len(c) == 1:
        return 0, 0, 0.0
    hi = int(np.clip(np.searchsorted(c, at), 1, len(c) - 1))
    lo = hi - 1
    w = float((np.log(at) - np.log(c[lo])) / (np.log(c[hi]) - np.log(c[lo])))
    return lo, hi, float(np.clip(w, 0.0, 1.0))
