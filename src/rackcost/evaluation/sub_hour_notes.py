"""Warnings of a demand point's sub-hour windows (docs/model.md, "Sub-hour peaks in a profile")."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rackcost.model.burstiness import FRAGILITY_DROP_FRACTION
from rackcost.model.rate_swing import VALID_PERIOD_SERVICE_TIMES, swing_too_fast

if TYPE_CHECKING:
    from rackcost.model.outcomes import DemandOutcome, SystemOutcome
    from rackcost.scenario.schema import DemandPoint

__all__ = ["sub_hour_warnings"]


def sub_hour_warnings(o: SystemOutcome, i: int, d: DemandPoint, steady: DemandOutcome | None) -> list[str]:
    """Where a point's sub-hour windows move its accepted share by more than :data:`FRAGILITY_DROP_FRACTION` on the
    same fleet, and where a window is shorter than the pointwise stationary approximation needs."""
    assert d.sub_hour is not None  # noqa: S101 - the caller gives points with windows only
    out = []
    top = max(d.sub_hour.rate_ratios) / (sum(d.sub_hour.rate_ratios) / len(d.sub_hour.rate_ratios))
    words = f"sub-hour windows of {d.sub_hour.window_s:g} s (the busiest {top:.2f}x the hour's mean)"
    if steady is not None:
        with_windows = float(o.demand.accepted_rps[i] / o.demand.offered_rps[i])
        without = float(steady.accepted_rps[0, i] / steady.offered_rps[0, i])
        if abs(without - with_windows) > FRAGILITY_DROP_FRACTION:
            out.append(
                f"{o.inputs.name} at {d.name}: the {words} move the accepted share from {100 * without:.1f}% at a "
                f"constant rate to {100 * with_windows:.1f}% (the same fleet, {o.provisioned_replicas} replicas; "
                f"demand[{i}].sub_hour sets them)"
            )
    service_s = float(o.demand.service_s[i])
    if swing_too_fast(d.sub_hour.window_s, service_s):
        out.append(
            f"{o.inputs.name} at {d.name}: the {words} are shorter than {VALID_PERIOD_SERVICE_TIMES:g} mean service "
            f"times ({service_s:.3g} s): the busy slots cannot follow them, and the pointwise stationary approximation "
            "overstates their effect"
        )
    return out
