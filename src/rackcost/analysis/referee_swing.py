"""Rate swings in the referee (``rackcost simulate --rate-swing``): which swing a simulated row runs, the model's
figures of the same fleet under it, and the thinned arrivals' admission cap (:mod:`rackcost.model.queues.rate_swing`,
:func:`rackcost.model.sim.sim_arrivals.swing_arrival_s`)."""

from __future__ import annotations

import math
from typing import Any

from rackcost.model.queues import routing as routes
from rackcost.model.queues.rate_swing import VALID_PERIOD_SERVICE_TIMES, swing_too_fast
from rackcost.model.sim.sim_arrivals import SwingArrivals
from rackcost.scenario.schema import Scenario

__all__ = ["check_poisson", "parse_rate_swing", "row_at_swing", "row_swing", "swing_notes", "thinned_arrivals"]


def parse_rate_swing(text: str) -> tuple[float, float]:
    """``AMPLITUDE:PERIOD`` (e.g. ``0.2:60``, +/-20% over 60 s) as (amplitude [-], period [s]).

    Raises
    ------
    ValueError
        Saying what was expected.

    Examples
    --------
    >>> parse_rate_swing("0.2:60")
    (0.2, 60.0)
    """
    parts = str(text).split(":")
    try:
        amplitude, period = (float(p) for p in parts) if len(parts) == 2 else (math.nan, math.nan)
    except ValueError:
        amplitude = period = math.nan
    if not (math.isfinite(amplitude) and 0.0 <= amplitude <= 0.9 and math.isfinite(period) and period > 0):
        raise ValueError(
            f"--rate-swing must be AMPLITUDE:PERIOD, an amplitude from 0 to 0.9 (0.2: +/-20%) and a period in "
            f"seconds above 0, e.g. 0.2:60; got {text!r}"
        )
    return amplitude, period


def check_poisson(point: str, swing: tuple[float, float] | None, arrival_scv: float) -> None:
    """Refuse a swing of a bursty stream in the simulator, which draws a swing as a Poisson process only.

    Raises
    ------
    ValueError
        Naming the demand point, the SCV and what to pass instead.
    """
    if swing is not None and arrival_scv != 1.0:
        raise ValueError(
            f"demand point {point!r} would be simulated with a rate swing and arrival SCV {arrival_scv:g}: the "
            "simulator draws a swing as a Poisson process only; pass --arrival-scv 1 (the analytic figures are "
            "then the same fleet's at SCV 1)"
        )


def row_swing(scenario: Scenario, j: int, override: tuple[float, float] | None) -> tuple[float, float] | None:
    """The swing a row of demand point ``j`` runs: the override, else the point's ``rate_swing``, else None."""
    if override is not None:
        return override if override[0] > 0 else None
    swing = scenario.demand[j].rate_swing
    if swing is None or swing.amplitude_fraction == 0:
        return None
    return float(swing.amplitude_fraction), float(swing.period_s)


def row_at_swing(o: Any, row: dict[str, Any], j: int, amplitude: float) -> dict[str, Any]:
    """The model's row of point ``j`` for the same fleet with every point swinging at ``amplitude``
    (``served_at_swing``): the cycle averages of the admitted and accepted rates; the rest at the mean rate."""
    d = o.fleet.served_at_swing[amplitude].first_sample()
    accepted = float(d.accepted_rps[j])
    useful = float(row["useful_output_tokens_per_s"]) * (accepted / row["accepted_rps"] if row["accepted_rps"] else 1)
    return row | {
        "admitted_rps": float(d.admitted_rps[j]),
        "accepted_rps": accepted,
        "useful_output_tokens_per_s": useful,
        "capacity_at_slo_rps": float(d.capacity_at_slo_rps[j]),
    }


def thinned_arrivals(
    o: Any, j: int, swing: tuple[float, float], admission: bool, routing: str, attainment_fraction: float
) -> SwingArrivals:
    """The simulated swing of row ``j`` (Poisson): admission control caps the intensity at the stationary capacity
    at SLO of the active replicas at the chosen point (the model's admission at each phase, ``routing`` the model's
    router), or nothing is shed without it."""
    if not admission:
        return SwingArrivals(swing[0], swing[1])
    cap = float(
        routes.capacity_at_slo(
            routing,
            int(o.demand.active_replicas[j]),
            o.chosen.concurrency,
            float(o.point.service_s[0]),
            o.chosen.budget_s,
            1.0 - attainment_fraction,
        )
    )
    return SwingArrivals(swing[0], swing[1], cap)


def swing_notes(swing: tuple[float, float], service_s: float, replication_s: float) -> list[str]:
    """What a reader of a swinging row should know: how it was drawn and modelled, and when either is weak
    (``replication_s`` the span of one replication [s], whose first period is left out)."""
    a, period = swing
    measured_s = max(replication_s - max(0.1 * replication_s, period), 0.0)
    notes = [
        f"rate swing +/-{100 * a:.0f}% over {period:g} s: simulated as a non-homogeneous Poisson process (thinning, "
        "a random phase per replication, the first period left out); analytic: the pointwise stationary "
        "approximation"
    ]
    if swing_too_fast(period, service_s):
        notes.append(
            f"the swing's period is under {VALID_PERIOD_SERVICE_TIMES:g} mean service times ({service_s:.3g} s): the "
            "pointwise stationary approximation overstates its effect"
        )
    if measured_s < 2 * period:
        notes.append(
            f"each replication measures {measured_s:.3g} s, under two periods of the swing: raise the requests"
        )
    return notes
