"""Warnings of a demand point's sub-hour windows (docs/model.md, "Sub-hour peaks in a profile")."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rackcost.model.queues.burstiness import FRAGILITY_DROP_FRACTION
from rackcost.model.queues.rate_swing import VALID_PERIOD_SERVICE_TIMES, swing_too_fast

if TYPE_CHECKING:
    from rackcost.model.outcomes import DemandOutcome, SystemOutcome
    from rackcost.scenario.schema import DemandPoint

__all__ = ["moved_share_warnings", "sub_hour_warnings"]


def moved_share_warnings(
    o: SystemOutcome,
    i: int,
    d: DemandPoint,
    steady: DemandOutcome | None,
    movement: tuple[str, str, float, bool],
    too_fast_tail: str = "",
) -> list[str]:
    """Where a movement of a point's rate within it (a rate swing, sub-hour windows) moves its accepted share by more
    than :data:`FRAGILITY_DROP_FRACTION` on the same fleet, and where it is too fast for the pointwise stationary
    approximation.

    Parameters
    ----------
    o, i, d
        The system's outcome, the point's index and the point.
    steady
        The same fleet at a constant rate (``FleetOutcome.demand_without_swing``), or None.
    movement
        Its words, the field that sets it, its period or window [s], and whether the words are plural.
    too_fast_tail
        Added to the too-fast warning.
    """
    words, field, period_s, plural = movement
    move, be, it = ("move", "are", "them") if plural else ("moves", "is", "it")
    out = []
    if steady is not None:
        moved = float(o.demand.accepted_rps[i] / o.demand.offered_rps[i])
        without = float(steady.accepted_rps[0, i] / steady.offered_rps[0, i])
        if abs(without - moved) > FRAGILITY_DROP_FRACTION:
            out.append(
                f"{o.inputs.name} at {d.name}: the {words} {move} the accepted share from {100 * without:.1f}% at a "
                f"constant rate to {100 * moved:.1f}% (the same fleet, {o.provisioned_replicas} replicas; "
                f"demand[{i}].{field} sets {it})"
            )
    service_s = float(o.demand.service_s[i])
    if swing_too_fast(period_s, service_s):
        out.append(
            f"{o.inputs.name} at {d.name}: the {words} {be} shorter than {VALID_PERIOD_SERVICE_TIMES:g} mean service "
            f"times ({service_s:.3g} s): the busy slots cannot follow {it}, and the pointwise stationary approximation "
            f"overstates {'their' if plural else 'its'} effect{too_fast_tail}"
        )
    return out


def sub_hour_warnings(o: SystemOutcome, i: int, d: DemandPoint, steady: DemandOutcome | None) -> list[str]:
    """:func:`moved_share_warnings` of a point's sub-hour windows."""
    assert d.sub_hour is not None  # noqa: S101 - the caller gives points with windows only
    top = max(d.sub_hour.rate_ratios) / (sum(d.sub_hour.rate_ratios) / len(d.sub_hour.rate_ratios))
    words = f"sub-hour windows of {d.sub_hour.window_s:g} s (the busiest {top:.2f}x the hour's mean)"
    return moved_share_warnings(o, i, d, steady, (words, "sub_hour", d.sub_hour.window_s, True))
