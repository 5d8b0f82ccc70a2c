"""The decision a scenario's faces lead with, worded once: ``rackcost evaluate``'s summary, the report's summary and
the dashboard's Answer page all call :func:`decision` on the scenario's one evaluation, so none of them can name
another decision or another horizon than the others.

- A scenario with a ``plan`` block is decided by its buying plan (:func:`rackcost.evaluation.planning.plan_of`, the
  plan of ``rackcost plan``): the cheapest mix of its sources over the demand profile's horizon, in the words of
  :func:`rackcost.reporting.plan_section.plan_sentence`. Where no mix carries the demand, the decision says so.
- Any other scenario is decided by the cheapest system over the demand day
  (:func:`rackcost.reporting.result_sections.answer_sentence`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rackcost import display
from rackcost.errors import ScenarioError
from rackcost.reporting.plan_charts import unused_sources
from rackcost.reporting.plan_section import plan_sentence
from rackcost.reporting.result_sections import answer_sentence

if TYPE_CHECKING:
    from rackcost.evaluation.chain import Evaluation
    from rackcost.evaluation.planning import PlanResult

__all__ = ["Decision", "decision"]


@dataclass(frozen=True)
class Decision:
    """What a scenario's faces lead with (:func:`decision`).

    Attributes
    ----------
    sentence
        The decision in one sentence.
    horizon_years
        The years it is over: the plan's horizon, else a demand profile's horizon, else None (a demand day) [years].
    chosen
        What is chosen: the sources the plan uses (in the scenario's order), the cheapest system over the day, or
        nothing where the scenario has a plan block no mix of its sources meets.
    plan
        The buying plan decided on, or None (no ``plan`` block, or no plan found).
    problem
        Why a scenario with a ``plan`` block has no plan, or None.
    """

    sentence: str
    horizon_years: float | None
    chosen: tuple[str, ...]
    plan: PlanResult | None = None
    problem: ScenarioError | None = None


def decision(evaluated: Evaluation) -> Decision:
    """The decision of a scenario's evaluation, in words (module docstring).

    Seconds to tens of seconds for a scenario with a ``plan`` block the first time (the plan is found, then kept with
    the evaluation); a scenario without one costs only its tables.
    """
    found = None
    if evaluated.given.plan is not None:
        from rackcost.evaluation.planning import plan_of  # the solver's modules: only for a scenario with a plan

        found = plan_of(evaluated)
    profile = evaluated.given.demand_profile
    if found is None:
        systems = evaluated.result.records["systems"]
        cheapest = min(systems, key=lambda r: display.cost_order(r["blended_usd_per_accepted_request"]))
        years = None if profile is None else float(profile.horizon_years)
        return Decision(answer_sentence(systems), years, (cheapest["system"],))
    if isinstance(found, ScenarioError):
        said = "; ".join(f"{p.path}: {p.message}" if p.path else p.message for p in found.problems)
        sentence = f"This scenario has a buying plan, but no plan of its sources meets it: {said}"
        years = None if profile is None else float(profile.horizon_years)
        return Decision(sentence if sentence.endswith(".") else sentence + ".", years, (), problem=found)
    unused = set(unused_sources(found))
    used = tuple(f.source.name for f in found.sources if f.source.name not in unused)
    return Decision(plan_sentence(found), float(found.years["year"].max()), used, plan=found)
