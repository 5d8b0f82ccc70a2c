"""A trace's requests in the simulator: each request's own input and output lengths as its TTFT and its work, and,
with request classes, the class each request is judged in. Pure numpy; the engines are
:mod:`rackcost.model.sim.simulation`'s.

**Which lengths** (``trace_lengths``, :data:`TRACE_LENGTHS`):

- ``relative`` (the default): each request's length over the trace's mean, times the workload's mean,
  ``In'_i = In_i x ISL / mean(In)`` and likewise for the output. The scenario's mean request is kept (the mean work
  is 1, the load the analytic side sizes for), and the trace brings the spread of its lengths, the correlation of a
  request's input with its output and of both with the time it arrives. The default because ``rackcost simulate``
  sets the analytic figures of the scenario's workload beside the simulated ones: a trace recorded on another model
  (Azure's conversations, about 1,000 tokens in and 250 out) replayed through a fleet sized for 8,000 in and 1,000
  out at its own lengths would load it about a sixth as much, and the comparison would be of two workloads.
- ``own``: the lengths as recorded, through the curve measured at the workload's shape: what this fleet does with
  these very requests; the analytic figures are then of another mean request (the row says by how much).
- ``none``: the arrival times only; every request's work drawn as without a trace (gamma at the workload's output
  cv; with classes, each request's class by share and its lengths from the class's laws).

**One shape** (no classes). The curve was measured at the workload's ``ISL`` and ``OSL``; a request is scaled from
the workload's mean request as the analytic model scales a class (:mod:`rackcost.model.workload.classes`), its own
lengths in place of a class's means (:func:`shape_requests`):

    rho_i  = In_i / ISL                                 its prefill over the mean request's
    TTFT_i = rho_i x TTFT(n)                            TTFT before queueing, at the occupancy n it starts at
    e_i    = rho_i x TTFT(c) + (Out_i - 1) x TPOT(c)    latency without queueing, at the point's load c
    work_i = e_i / e_mean,   e_mean = TTFT(c) + (OSL - 1) x TPOT(c)

so a request of the workload's mean lengths holds a slot for exactly the curve's ``S(n)``, and a trace of such
requests replays identically under ``own`` and ``relative``.

**Classes** (:func:`nearest_class`). A trace records no class; each request is judged in the class whose mean input
and output are nearest its own in log space (``(ln In - ln In_k)^2 + (ln Out - ln Out_k)^2``, the lengths as
replayed: under ``relative`` scaled to the mix's means first). **Choice: by shape, not by share at random**: the
class decides a request's budget and SLO, and a drawn class would judge a 50,000-token agentic prompt by a chat
budget as often as by its own; log space because lengths spread by factors (a 500-token miss of a 1,000-token class
is a large one, of a 30,000-token class a small one). The trace's class shares then follow its lengths, not the
scenario's ``share_fraction`` (each class row gives the trace's count). Under ``none`` each request draws its class by
share, as the class simulation does.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from rackcost.model.workload.classes import ClassMix

__all__ = [
    "DEFAULT_TRACE_LENGTHS",
    "TRACE_LENGTHS",
    "TraceReplay",
    "check_trace_lengths",
    "nearest_class",
    "replayed_lengths",
    "shape_requests",
]

Array = NDArray[np.float64]

MEAN_TOLERANCE_FRACTION = 0.01
"""Under ``own``, a trace whose mean input or output is further than this from the workload's gets a note [-]."""
TRACE_LENGTHS = ("relative", "own", "none")
"""How a trace's lengths are replayed (module docstring)."""
DEFAULT_TRACE_LENGTHS = "relative"
"""The default: the scenario's mean request kept, the trace's spread and correlations brought (module docstring)."""


def check_trace_lengths(trace_lengths: object) -> str:
    """``trace_lengths`` if it is one of :data:`TRACE_LENGTHS`.

    Raises
    ------
    ValueError
        Naming the choices.

    Examples
    --------
    >>> check_trace_lengths("own")
    'own'
    """
    if not isinstance(trace_lengths, str) or trace_lengths not in TRACE_LENGTHS:
        raise ValueError(f"trace_lengths must be one of {', '.join(TRACE_LENGTHS)}; got {trace_lengths!r}")
    return trace_lengths


def replayed_lengths(
    input_tokens: ArrayLike, output_tokens: ArrayLike, trace_lengths: str, mean_input: float, mean_output: float
) -> tuple[Array, Array]:
    """The lengths a trace's requests are replayed at [tokens]: as recorded (``own``), or over the trace's mean
    times ``mean_input`` / ``mean_output`` (``relative``); output at least 1 token (a request decodes its first).

    Examples
    --------
    >>> i, o = replayed_lengths([500.0, 1500.0], [100.0, 300.0], "relative", 8000.0, 1000.0)
    >>> i.tolist(), o.tolist()
    ([4000.0, 12000.0], [500.0, 1500.0])
    """
    i = np.asarray(input_tokens, dtype=float)
    o = np.asarray(output_tokens, dtype=float)
    if check_trace_lengths(trace_lengths) == "relative":
        i = i * (mean_input / float(i.mean()))
        o = o * (mean_output / float(o.mean()))
    return i, np.maximum(o, 1.0)


def shape_requests(
    input_tokens: ArrayLike,
    output_tokens: ArrayLike,
    isl: float,
    osl: float,
    ttft_ms: float,
    tpot_ms: float,
) -> tuple[Array, Array]:
    """Each request's TTFT over the mean request's, ``rho_i``, and its work, ``e_i / e_mean`` (module docstring)
    [-, -].

    Parameters
    ----------
    input_tokens, output_tokens
        The requests' lengths as replayed [tokens].
    isl, osl
        The workload's mean request, the curve's shape [tokens].
    ttft_ms, tpot_ms
        TTFT and TPOT at the point's in-service concurrency, where the split is read [ms].

    Examples
    --------
    At a TTFT of 200 ms and a TPOT of 10 ms, ISL 1,000 and OSL 100 (e_mean = 1,190 ms): the mean request works 1, one
    of twice the input 1,390 / 1,190 and one of twice the output 2,190 / 1,190 (200 + 199 x 10).

    >>> rho, work = shape_requests([1000.0, 2000.0, 1000.0], [100.0, 100.0, 200.0], 1000.0, 100.0, 200.0, 10.0)
    >>> rho.tolist(), np.round(work * 1190.0, 6).tolist()
    ([1.0, 2.0, 1.0], [1190.0, 1390.0, 2190.0])
    """
    rho = np.asarray(input_tokens, dtype=float) / float(isl)
    out = np.asarray(output_tokens, dtype=float)
    e = rho * ttft_ms + (out - 1.0) * tpot_ms
    e_mean = ttft_ms + (float(osl) - 1.0) * tpot_ms
    return rho, e / e_mean


def nearest_class(mix: ClassMix, input_tokens: ArrayLike, output_tokens: ArrayLike) -> NDArray[np.int64]:
    """The class of each request: the one whose mean input and output are nearest its own in log space (module
    docstring); a tie goes to the class listed first.

    Examples
    --------
    Classes of 1,000 and 3,000 input tokens, 100 output each: 1,700 tokens in is nearer 1,000 than 3,000 in log
    space (a factor 1.7 against 1.76), 1,800 nearer 3,000.

    >>> from rackcost.model.workload.classes import _example_mix
    >>> nearest_class(_example_mix(), [1700.0, 1800.0, 50.0], [100.0, 100.0, 5.0]).tolist()
    [0, 1, 0]
    """
    li = np.log(np.asarray(input_tokens, dtype=float))[:, None]
    lo = np.log(np.asarray(output_tokens, dtype=float))[:, None]
    d = (li - np.log(mix.input_tokens)[None, :]) ** 2 + (lo - np.log(mix.output_tokens)[None, :]) ** 2
    return np.argmin(d, axis=1).astype(np.int64)


@dataclass(frozen=True)
class TraceReplay:
    """A trace as the simulator replays it: its arrivals from its first, its recorded lengths, how they are replayed
    and the workload's mean request.

    Attributes
    ----------
    arrival_s
        Sorted arrival times from the first arrival [s].
    input_tokens, output_tokens
        Each request's recorded lengths [tokens].
    lengths
        ``relative``, ``own`` or ``none`` (:data:`TRACE_LENGTHS`).
    isl, osl
        The workload's mean input and output (the mix's with classes) [tokens].
    """

    arrival_s: Array
    input_tokens: Array
    output_tokens: Array
    lengths: str
    isl: float
    osl: float

    @property
    def requests(self) -> int:
        """Requests of the trace [-]."""
        return int(self.arrival_s.size)

    @property
    def arrival_rps(self) -> float:
        """Mean arrival rate over the trace [requests/s]."""
        span = float(self.arrival_s[-1] - self.arrival_s[0])
        return (self.arrival_s.size - 1) / span if span > 0 else math.inf

    def replayed(self) -> tuple[Array, Array]:
        """The lengths replayed (:func:`replayed_lengths`) [tokens]."""
        return replayed_lengths(self.input_tokens, self.output_tokens, self.lengths, self.isl, self.osl)

    def columns(self) -> dict[str, Any]:
        """A replayed row's columns: how the lengths were replayed and the trace's mean request."""
        return {
            "trace_lengths": self.lengths,
            "trace_mean_input_tokens": float(self.input_tokens.mean()),
            "trace_mean_output_tokens": float(self.output_tokens.mean()),
        }

    def notes(self, held: str | None) -> list[str]:
        """What a replayed row says of its lengths, ``held`` how long its requests hold a slot against the mean
        request's, in words (``a slot 0.21 times as long``; None under ``none``)."""
        i, o = float(self.input_tokens.mean()), float(self.output_tokens.mean())
        if self.lengths == "none":
            return ["trace lengths none: its arrival times only, each request's work drawn as without a trace"]
        out = []
        if self.lengths == "relative":
            out.append(
                f"trace lengths relative: each request's over the trace's mean ({i:.4g} in, {o:.4g} out) times the "
                f"workload's ({self.isl:.4g} in, {self.osl:.4g} out)"
            )
        else:
            out.append(f"trace lengths own: each request's as recorded (mean {i:.4g} in, {o:.4g} out)")
            far = max(abs(i / self.isl - 1.0), abs(o / self.osl - 1.0)) > MEAN_TOLERANCE_FRACTION
            if far and held is not None:
                out.append(
                    f"the trace's mean request is not the workload's ({self.isl:.4g} in, {self.osl:.4g} out): its "
                    f"requests hold {held} on average; the analytic figures are the workload's (--trace-lengths "
                    "relative keeps its mean request)"
                )
        out.append("each request's TTFT is its own prefill's; the analytic TTFT is the mean request's")
        return out
