"""How much of a fleet's margin burstier arrivals take: each fleet served again at arrival SCVs 2 and 4 and at the
burstiness of a public production trace, as columns of the points table and warnings beside the answer."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from rackcost.model.outcomes import SystemOutcome
from rackcost.model.queues.burstiness import FRAGILITY_DROP_FRACTION
from rackcost.scenario.schema import Scenario

__all__ = ["at_real_traffic", "at_scv", "fragility_warnings", "margin_warnings"]


def at_scv(o: SystemOutcome, scv: float, n: int) -> NDArray[np.float64]:
    """The accepted share at each point had its arrivals this SCV (NaN where it was not computed)."""
    served = o.fleet.served_at_scv.get(scv)
    if served is None:
        return np.full(n, np.nan)
    return np.asarray(served.accepted_rps[0] / served.offered_rps[0], dtype=float)


def at_real_traffic(scenario: Scenario, o: SystemOutcome, n: int) -> NDArray[np.float64]:
    """The accepted share at each point had its arrivals the burstiness of a public production trace at this
    fleet's service time (``ChosenPoint.real_traffic_scv``); NaN at a point with its own measured dispersion (its
    answer has it already) or where it was not computed."""
    share = at_scv(o, o.chosen.real_traffic_scv, n)
    measured = np.array([d.arrival_dispersion is not None for d in scenario.demand])
    return np.where(measured, np.nan, share)


def fragility_warnings(scenario: Scenario, o: SystemOutcome, share: NDArray[np.float64]) -> list[str]:
    """Where arrivals at SCV 2 or 4 (burstier than the point's own) would cost a point more than
    :data:`FRAGILITY_DROP_FRACTION` of its accepted share: one sentence each, with the figures."""
    own_scv = o.chosen.arrival_scv or tuple(d.arrival_scv for d in scenario.demand)
    out = []
    for i, d in enumerate(scenario.demand):
        bursty = {
            scv: float(v.accepted_rps[0, i] / v.offered_rps[0, i])
            for scv, v in o.fleet.served_at_scv.items()
            if scv > own_scv[i] and scv != o.chosen.real_traffic_scv  # that one has its own warning
        }
        if bursty and share[i] - min(bursty.values()) > FRAGILITY_DROP_FRACTION:
            figures = ", ".join(f"{100 * v:.1f}% at SCV {scv:g}" for scv, v in sorted(bursty.items()))
            out.append(
                f"{o.inputs.name} at {d.name}: fragile to bursty arrivals: {100 * share[i]:.1f}% of requests accepted "
                f"at arrival SCV {own_scv[i]:.3g}, {figures} (the same fleet, at "
                f"{100 * o.demand.utilization_fraction[i]:.0f}% of its slots; demand[{i}]."
                f"{'arrival_scv' if d.arrival_dispersion is None else 'arrival_dispersion'} sets it)"
            )
    return out


def margin_warnings(scenario: Scenario, o: SystemOutcome, share: NDArray[np.float64]) -> list[str]:
    """Where the burstiness of real traffic would cost a point without a measured dispersion more than
    :data:`FRAGILITY_DROP_FRACTION` of its accepted share: one sentence each, with the figures."""
    real = at_real_traffic(scenario, o, len(scenario.demand))
    scv = o.chosen.real_traffic_scv
    service_s = float(o.chosen.point.service_s[0])
    return [
        f"{o.inputs.name} at {d.name}: real traffic takes more than the margin: {100 * share[i]:.1f}% of requests "
        f"accepted with the point's arrivals, {100 * real[i]:.1f}% with the burstiness of a public production "
        f"trace (the Azure LLM inference trace 2023, conversation hour: arrival SCV {scv:.3g} at this fleet's "
        f"{service_s:.3g} s service time; the same fleet, at {100 * o.demand.utilization_fraction[i]:.0f}% of its "
        f"slots); measure your own traffic with rackcost trace --into"
        for i, d in enumerate(scenario.demand)
        if np.isfinite(real[i]) and share[i] - real[i] > FRAGILITY_DROP_FRACTION
    ]
