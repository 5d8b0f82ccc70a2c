"""A simulated ramp through a fleet that scales with a delay: the referee of autoscaling (docs/model.md,
"Autoscaling with a delay").

The analytic side is every hour of the scenario's profile (:func:`rackcost.evaluation.horizon.hourly_figures`) with
``fleet.scaling``: ``park``'s figures less the arrivals the delay loses. This side draws the hours of the ramp
through :func:`rackcost.model.sim.sim_autoscale.simulate_ramp`, once with the replicas the policy has serving at
each step (delayed) and once with the replicas ``park`` would have (instant), and counts the share of arrivals
accepted over those hours in each. Both sides take the policy's replica counts from the same steps; what the
simulator checks is how much the fleet serves with them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rackcost.errors import Problem, ScenarioError
from rackcost.evaluation.horizon import MIN_HOURLY_RPS, hourly_figures
from rackcost.evaluation.scaling import ScaledFleet
from rackcost.model.sim.sim_autoscale import simulate_ramp
from rackcost.scenario.schema import Scenario
from rackcost.units import SECONDS_PER_HOUR

__all__ = ["RampCheck", "ramp_check"]


@dataclass(frozen=True)
class RampCheck:
    """One system's accepted share over the ramp's hours, model beside simulator, delayed and instant [-].

    Attributes
    ----------
    system
        The system's name.
    model_delayed_fraction, model_instant_fraction
        The evaluation's accepted share with the scaling delay and with ``park``'s instant scaling [-].
    sim_delayed_fraction, sim_instant_fraction
        The simulator's, with the same replica counts, arrivals thinned to their capacity at SLO as the model
        admits them [-].
    sim_budget_delayed_fraction
        The simulator's with the delay where the stack turns away only what it cannot start within the budget
        (it serves an overloaded step at its full throughput, not its capacity at SLO) [-].
    """

    system: str
    model_delayed_fraction: float
    model_instant_fraction: float
    sim_delayed_fraction: float
    sim_instant_fraction: float
    sim_budget_delayed_fraction: float


def ramp_check(scenario: Scenario, first_hour: int, hours: int = 1, seed: int = 0) -> list[RampCheck]:
    """Model and simulator over hours ``first_hour .. first_hour + hours - 1`` of the scenario's profile, for every
    system whose fleet scales (``fleet.scaling`` and replicas that park).

    Raises
    ------
    ScenarioError
        If the scenario has no profile or no ``fleet.scaling``, or the hours are outside the profile.
    """
    profile = scenario.demand_profile
    if profile is None or scenario.fleet.scaling is None:
        raise ScenarioError([Problem("fleet.scaling", "the ramp check needs demand.profile and fleet.scaling")])
    rates = np.maximum(profile.hourly_rates_rps(), MIN_HOURLY_RPS)
    if not (0 <= first_hour and hours >= 1 and first_hour + hours <= rates.size):
        raise ScenarioError([Problem("first_hour", f"expected an hour of the profile, 0 to {rates.size - 1:,}")])
    scaled: dict[str, ScaledFleet] = {}
    names, figures, _ = hourly_figures(scenario, rates, profile.hourly_window_ratios(), scaled_out=scaled)
    span = slice(first_hour, first_hour + hours)
    checks = []
    for row, name in enumerate(names):
        if name not in scaled:
            continue
        offered = float(figures["offered_rps"][row, span].sum())
        accepted = float(figures["accepted_rps"][row, span].sum())
        lost = float(figures["ramp_lost_rps"][row, span].sum())
        fleet = scaled[name]
        per_hour = round(SECONDS_PER_HOUR / fleet.step_s)
        steps = slice(first_hour * per_hour, (first_hour + hours) * per_hour)
        rate, slots = fleet.step_rps[steps], max(1, round(fleet.slots))
        runs = [
            simulate_ramp(
                rate,
                counts[steps],
                fleet.step_s,
                slots,
                fleet.service_s,
                fleet.budget_s,
                seed,
                None if by_budget else np.minimum(rate, fleet.capacity_rps[counts[steps]]),
            ).accepted_fraction
            for counts, by_budget in (
                (fleet.replicas.available, False),
                (fleet.replicas.needed, False),
                (fleet.replicas.available, True),
            )
        ]
        checks.append(RampCheck(name, accepted / offered, (accepted + lost) / offered, *runs))
    return checks
