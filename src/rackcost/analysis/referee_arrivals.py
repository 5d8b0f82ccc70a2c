"""What arrivals the referee draws for a simulated row: their SCV (the point's own, or what its measured dispersion
reads at the system's service time), whether admission control sheds, the rate swing and the model's router; or
a trace, as the simulator replays it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from rackcost.analysis.trace_files import Trace
from rackcost.model.sim.sim_arrivals import ARRIVAL_SCV_RANGE
from rackcost.model.sim.sim_trace import TraceReplay
from rackcost.model.strategies import DEFAULT_ROUTING

__all__ = ["Arrivals", "RefereeRow", "RefereeRun", "capacity_scvs", "point_arrivals", "trace_replay"]


@dataclass(frozen=True)
class Arrivals:
    """How one row's arrivals are generated: their SCV, the scenario's, and whether admission control sheds."""

    scv: float
    scenario_scv: float
    admission: bool
    swing: tuple[float, float] | None = None
    model_routing: str = DEFAULT_ROUTING.value


@dataclass(frozen=True)
class RefereeRun:
    """What every row of one :func:`rackcost.analysis.referee.simulate` call shares: the router, the service model
    (``load_dependent`` or ``fixed``), the requests over all replications, the seed, the replications and the queue
    cap (None: unbounded)."""

    route: str
    service: str
    requests: int
    seed: int
    replications: int
    queue_cap: int | None = None


@dataclass(frozen=True, eq=False)
class RefereeRow:
    """One simulated row's job: the system's outcome, its points-table row at demand point ``j`` (at the simulated
    SCV or swing), the point's arrivals, the trace replayed in their place (or None) and the progress callback (called
    with the replications done, or None)."""

    o: Any
    row: dict[str, Any]
    j: int
    arrivals: Arrivals
    replay: TraceReplay | None = None
    report: Callable[[int], None] | None = None


def point_arrivals(
    scenario: Any, o: Any, j: int, arrival_scv: float | None, admission: bool, swing: tuple[float, float] | None
) -> Arrivals:
    """The arrivals of point ``j`` for system outcome ``o``: at ``arrival_scv`` where given, else the SCV the model
    uses there. A measured dispersion reads a system's own SCV (``ChosenPoint.arrival_scv``); renewal arrivals are
    drawn at SCVs of 0.05 to 100 (:data:`ARRIVAL_SCV_RANGE`), so a burstier reading is simulated at 100 and the
    analytic side is then the same fleet's at that SCV."""
    own = getattr(scenario.demand[j], "arrival_scv", None)
    own = 1.0 if own is None else float(own)
    if o.chosen.arrival_scv is not None:
        own = float(o.chosen.arrival_scv[j])
    drawn = float(np.clip(own, *ARRIVAL_SCV_RANGE)) if arrival_scv is None else float(arrival_scv)
    return Arrivals(drawn, own, admission, swing, scenario.fleet.routing)


def capacity_scvs(scenario: Any, arrival_scv: float | None) -> tuple[float, float]:
    """The sizing point's arrival SCV and the one the capacity check draws (``arrival_scv`` where given).

    Raises
    ------
    ValueError
        If the sizing point gives a measured dispersion and no ``arrival_scv`` is given: each system reads its own
        SCV from it, and the check draws one.
    """
    sizing = scenario.sizing_point
    if getattr(sizing, "arrival_dispersion", None) is not None and arrival_scv is None:
        raise ValueError(
            f"demand point {sizing.name!r} gives a measured arrival_dispersion, which each system reads at its own "
            "service time; the capacity check draws renewal arrivals of one SCV: give --arrival-scv"
        )
    own = getattr(sizing, "arrival_scv", None)
    own = 1.0 if own is None else float(own)
    return own, own if arrival_scv is None else float(arrival_scv)


def trace_replay(trace: Trace, lengths: str, scenario: Any) -> TraceReplay:
    """A trace as the simulator replays it against the scenario's workload (:mod:`rackcost.model.sim.sim_trace`)."""
    workload = scenario.workload
    # from its first arrival: a trace whose clock reads 1e20 s would round every service time away (a double
    # resolves 16,384 s there); the span, at most 2e13 s (20 million arrivals at 1e-6 rps), resolves 4 ms
    return TraceReplay(
        trace.arrival_s - trace.arrival_s[0],
        np.asarray(trace.input_tokens, dtype=float),
        np.asarray(trace.output_tokens, dtype=float),
        lengths,
        float(workload.input_tokens_per_request),
        float(workload.output_tokens_per_request),
    )
