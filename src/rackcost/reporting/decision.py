"""The decision a scenario's faces lead with, worded once: ``rackcost evaluate``'s summary, the report's summary and
the dashboard's Answer page all call :func:`decision` on the scenario's one evaluation, so none of them can name
another decision or another horizon than the others. The module imports no chart library: ``rackcost evaluate``
words the decision without loading Altair or pandas.

- A scenario with a ``plan`` block is decided by its buying plan (:func:`rackcost.evaluation.planning.plan_of`, the
  plan of ``rackcost plan``): the cheapest mix of its sources over the demand profile's horizon, in the words of
  :func:`plan_sentence`. Where no mix carries the demand, the decision says so.
- Any other scenario is decided by the cheapest system over the demand day
  (:func:`answer_sentence`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rackcost import display
from rackcost.errors import ScenarioError
from rackcost.units import SECONDS_PER_HOUR

if TYPE_CHECKING:
    from rackcost.evaluation.chain import Evaluation
    from rackcost.evaluation.planning import PlanResult

__all__ = ["Decision", "answer_sentence", "decision", "plan_sentence", "unused_sources"]


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


def answer_sentence(systems: list[dict[str, Any]], drawn: set[str] | None = None) -> str:
    """The answer in one sentence: the cheapest system over the day, how much less it costs than the next cheapest
    (one minus the ratio of their costs) and what the others cost (the report's first line).

    Parameters
    ----------
    systems
        Rows of the ``systems`` table (``Result.records["systems"]``).
    drawn
        The systems to name (those the charts draw); the others are summed up as "N more systems, each at X or more".
        None names every system.

    Examples
    --------
    >>> print(answer_sentence([
    ...     {"system": "A", "blended_usd_per_accepted_request": 0.0008},
    ...     {"system": "B", "blended_usd_per_accepted_request": 0.00045},
    ... ]))  # doctest: +NORMALIZE_WHITESPACE
    Over the demand day, B is the cheapest per accepted request: $0.450 per 1,000 accepted requests,
    44% less than A ($0.800).
    """
    drawn = {r["system"] for r in systems} if drawn is None else drawn
    by_cost = sorted(
        (r for r in systems if r["system"] in drawn),
        key=lambda r: display.cost_order(r["blended_usd_per_accepted_request"]),
    )
    cheapest = by_cost[0]
    least = cheapest["blended_usd_per_accepted_request"]
    if len(by_cost) == 1:
        return (
            f"{cheapest['system']} costs {display.usd_per_1k_requests(least)} "
            "per 1,000 accepted requests, blended over the demand day."
        )
    following = by_cost[1]
    after = following["blended_usd_per_accepted_request"]
    if least is not None and after is not None and after > least:  # the answer: how much less than the next
        saving = display.pct(1 - least / after, 0)
        others = f"{saving} less than {following['system']} ({display.usd_per_1k_requests(after)})"
        rest = by_cost[2:]
    else:  # (a tie, or nothing accepted anywhere: no saving to give)
        others, rest = "", by_cost[1:]
    listed = [f"{display.usd_per_1k_requests(r['blended_usd_per_accepted_request'])} for {r['system']}" for r in rest]
    left_out = [r["blended_usd_per_accepted_request"] for r in systems if r["system"] not in drawn]
    if left_out := [cost for cost in left_out if cost is not None]:  # (an undefined cost is no bound)
        listed.append(
            f"{len(left_out):,} more systems, each at {display.usd_per_1k_requests(min(left_out))} or "
            "more (the Systems section gives each)"
        )
    if listed:
        others += (", against " if others else "against ") + _listed(listed)
    return (
        f"Over the demand day, {cheapest['system']} is the cheapest per accepted request: "
        f"{display.usd_per_1k_requests(least)} per 1,000 accepted requests, {others}."
    )


def unused_sources(plan: PlanResult) -> list[str]:
    """The sources that hold (or, the API, carry) nothing in any hour of the plan, in the scenario's order."""
    r = plan.realised
    return [f.source.name for i, f in enumerate(plan.sources) if not (r.units[i] > 0).any()]


def _horizon_years(plan: PlanResult) -> int:
    return int(plan.years["year"].max())


def _per_request(plan: PlanResult) -> float | None:
    accepted = float(plan.realised.accepted_rps.sum()) * SECONDS_PER_HOUR
    return float(plan.realised.cost_usd.sum()) / accepted if accepted > 0 else None


def _listed(names: list[str]) -> str:
    """Names in a list a reader reads aloud: ``a``, ``a and b``, ``a, b and c``."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def plan_sentence(plan: PlanResult) -> str:
    """The answer in one sentence: which sources the plan uses and leaves unused over the horizon, what it costs and
    what it saves against the best single source (or that no single source carries the demand alone)."""
    years = _horizon_years(plan)
    rate = plan.discount_fraction_per_year
    value = f"at present value ({display.pct(rate)} a year)" if rate > 0 else "as paid (no discount rate)"
    unused = unused_sources(plan)
    used = [f.source.name for f in plan.sources if f.source.name not in unused]
    if plan.from_single_source is not None:
        uses = f"{plan.from_single_source} alone, as no mix of the sources the solver found costs less"
    else:  # (a plan holds something in some hour: no demand is carried by nothing)
        uses = _listed(used) + (f", leaving {_listed(unused)} unused" if unused else "")
    horizon = f"the {years}-year horizon" if years > 1 else "the one-year horizon"
    text = f"Over {horizon} the cheapest plan uses {uses}: it costs {display.money(plan.total_cost_usd)} {value}"
    single, saving = plan.best_single_source_cost_usd, plan.saving_fraction
    # a plan of one source is its own best single source: nothing to compare it with
    if plan.from_single_source is None:
        if plan.best_single_source is None or single is None or saving is None:
            text += ", and no single source can carry the demand alone to compare it with"
        else:
            more = f"{display.pct(saving)} less than" if saving >= 0 else f"{display.pct(-saving)} more than"
            text += f", {more} the best single source, {plan.best_single_source} alone ({display.money(single)})"
    if (per := _per_request(plan)) is not None:
        text += f"; {display.usd_per_1k_requests(per)} per 1,000 accepted requests"
    return text + "."
