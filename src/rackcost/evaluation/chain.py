"""The evaluation chain: a validated scenario in, result tables out (docs/model.md, steps 1 to 10).

:func:`evaluate` is a short run of named steps, each writing a documented field of :class:`SystemOutcome`:

==================================  ============================================================  ====================
step                                function                                                      writes
==================================  ============================================================  ====================
1-2 inputs and performance curve    :func:`rackcost.scenario.unpack.system_inputs`                ``inputs``
3 SLO-feasible operating point      :func:`rackcost.model.replica.operating_point.choose_point`   ``chosen``
4-8 queueing, sizing, demand,       :func:`rackcost.model.fleets.fleet.run_fleet`                 ``fleet``
power and cost
8 cost per accepted request,        :func:`rackcost.model.costs.metrics.derive`                   ``metrics``
blended
9-10 claim vs decision, warnings    :func:`rackcost.evaluation.results.result_tables`             the :class:`Result`
==================================  ============================================================  ====================

API systems have no operating point and no fleet: :func:`evaluate_apis` runs their whole chain
(:func:`rackcost.evaluation.api_systems.run_api_samples`), once per evaluation.

Steps 1 to 3 are decided once on central values (:func:`choose_points`); the Monte Carlo reuses them and runs steps 4
to 8 on many samples at once (:func:`run_samples`), the same functions with a longer sample axis.

**One evaluation behind every face.** :func:`evaluation` is the only composition of the chain: it splits the
scenario into the systems it can serve with and those it cannot (:func:`unpack`, an :class:`Unpacked`), runs the
steps once, and returns an :class:`Evaluation` holding the outcomes and the :class:`Result` (with the horizon's
``years`` and ``horizon`` tables where the demand is a profile). :func:`evaluate` (the library and the CLI), the
dashboard and the report all read that object, so they cannot tell different answers from one scenario.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, TypeVar, cast

from rackcost.errors import check_argument
from rackcost.evaluation.api_systems import run_api_samples
from rackcost.evaluation.disaggregated import run_pooled
from rackcost.evaluation.results import Result, result_tables
from rackcost.evaluation.servable import check_served, servable, unserved_warning
from rackcost.evaluation.steps import ChosenPoints, choose_points
from rackcost.model.costs.metrics import derive
from rackcost.model.fleets.fleet import run_fleet
from rackcost.model.inputs import SystemInputs
from rackcost.model.outcomes import ApiSystemOutcome, FleetOutcome, Metrics, SystemOutcome
from rackcost.model.queues.burstiness import FRAGILITY_SCVS
from rackcost.model.strategies import IdlePolicy
from rackcost.scenario.feasibility import UnservedSystem
from rackcost.scenario.schema import Scenario
from rackcost.scenario.unpack import Samples, one_evaluation, sampled_inputs

T = TypeVar("T")

__all__ = [
    "SCENARIO_OR_EVALUATION",
    "ChosenPoints",
    "Evaluation",
    "Unpacked",
    "evaluate",
    "evaluate_apis",
    "evaluate_systems",
    "evaluation",
    "evaluation_for",
    "mark_unserved",
    "choose_points",
    "run_samples",
    "unpack",
]


SCENARIO_OR_EVALUATION = (
    "a Scenario (rackcost.load_scenario(path)) or its Evaluation (rackcost.evaluation.chain.evaluation)"
)
"""What an analysis that takes a scenario or its :class:`Evaluation` says it expected, when handed neither."""


def run_samples(
    scenario: Scenario,
    planned: ChosenPoints,
    values: Samples,
    n: int,
    resize: bool = True,
    serve_once: bool = False,
    fragility_scvs: tuple[float, ...] = (),
    swing_amplitudes: tuple[float, ...] = (),
    real_traffic: bool = False,
) -> list[tuple[FleetOutcome, Metrics]]:
    """Steps 4 to 8 and the derived figures of every system, for ``n`` samples of the inputs at once.

    Parameters
    ----------
    scenario, planned
        The scenario and its :func:`choose_points`.
    values
        Sampled inputs: YAML path -> array of ``n`` values; inputs not in it keep their central value.
    n
        Samples [-].
    resize
        Size the fleet per sample (the Monte Carlo); False keeps each chosen point's SLO replica count.
    serve_once
        The sampled inputs are prices only (a sweep's vector axes): size, pack and serve each fleet once, on the
        central values, and cost it per sample (``run_fleet``'s ``serve_with``). Needs ``resize=False``.
    fragility_scvs
        Arrival SCVs at which each fleet is served again for its accepted share (``run_fleet``).
    swing_amplitudes
        Rate-swing amplitudes at which each fleet is served again, every point swinging (``run_fleet``).
    real_traffic
        Serve each fleet again at the arrival SCV a public production trace reads at its service time
        (``ChosenPoint.real_traffic_scv``), for the margin check of points without a measured dispersion.
    """
    if serve_once and resize:
        raise ValueError("serve_once needs resize=False: a fleet sized per sample is not served once")
    out: list[tuple[FleetOutcome, Metrics]] = []
    per_day = (planned.hours_per_day, planned.input_tokens)
    for index, inp, chosen in zip(planned.indices, planned.systems, planned.chosen, strict=True):
        # a measured dispersion: every point's arrival SCV as this system's service time reads it (evaluation.steps)
        own = planned.policy if chosen.arrival_scv is None else replace(planned.policy, arrival_scv=chosen.arrival_scv)
        scvs = fragility_scvs + ((chosen.real_traffic_scv,) if real_traffic else ())
        if inp.pools is not None:  # disaggregated: each pool's fleet, then the system's (evaluation.disaggregated)
            pooled = (resize, serve_once, scvs, swing_amplitudes)
            pooled_fleet = run_pooled(scenario, index, inp, chosen, values, n, own, planned.slo, *pooled)
            out.append((pooled_fleet, derive(pooled_fleet, chosen.ttft_ms, planned.slo.output_tokens, *per_day)))
            continue
        sampled = sampled_inputs(scenario, index, inp, values, n)
        # rented on demand: the provider scales to what each point needs, so only those replicas run (and are billed)
        policy = replace(own, idle_policy=IdlePolicy.park) if inp.payment.active_only else own
        if chosen.service_scv is not None:  # request classes: the mix's service SCV at this system's chosen point
            policy = replace(policy, service_scv=chosen.service_scv)
        central = sampled_inputs(scenario, index, inp, {}, 1) if serve_once else None
        fleet = run_fleet(inp, chosen, sampled, policy, planned.slo, resize, central, scvs, swing_amplitudes)
        metrics = derive(
            fleet,
            chosen.ttft_ms,
            planned.slo.output_tokens,
            planned.hours_per_day,
            planned.input_tokens,
            planned.slo.classes,
        )
        out.append((fleet, metrics))
    return out


def evaluate_systems(
    scenario: Scenario,
    served_at_scvs: tuple[float, ...] = (),
    served_at_swings: tuple[float, ...] = (),
    inputs: tuple[SystemInputs, ...] | None = None,
) -> list[SystemOutcome]:
    """Run steps 1 to 8 for every system and return the numbers (no tables); :func:`evaluate` builds on it.

    Each fleet is also served at arrival SCVs 2 and 4 and at ``served_at_scvs`` (``FleetOutcome.served_at_scv``:
    the same fleet under burstier or smoother arrivals), and at every rate-swing amplitude of ``served_at_swings``
    (``FleetOutcome.served_at_swing``: every point swinging, the same fleet).

    Raises
    ------
    ScenarioError
        If the scenario cannot be evaluated (an SLO no operating point meets, a node over the rack limit).
    """
    check_argument("rackcost.evaluate", "scenario", scenario, Scenario, "a Scenario (rackcost.load_scenario(path))")
    return _central_outcomes(scenario, choose_points(scenario, inputs), served_at_scvs, served_at_swings)


def _central_outcomes(
    scenario: Scenario,
    planned: ChosenPoints,
    served_at_scvs: tuple[float, ...] = (),
    served_at_swings: tuple[float, ...] = (),
) -> list[SystemOutcome]:
    """Steps 4 to 8 of every system on central values, at the points chosen (:func:`evaluate_systems`)."""
    scvs = tuple(dict.fromkeys((*FRAGILITY_SCVS, *(float(v) for v in served_at_scvs))))
    swings = tuple(float(a) for a in served_at_swings)
    real = not all(d.arrival_dispersion is not None for d in scenario.demand)
    runs = run_samples(
        scenario, planned, {}, 1, resize=False, fragility_scvs=scvs, swing_amplitudes=swings, real_traffic=real
    )
    return [
        SystemOutcome(inp, chosen, fleet, metrics)
        for inp, chosen, (fleet, metrics) in zip(planned.systems, planned.chosen, runs, strict=True)
    ]


def evaluate_apis(scenario: Scenario) -> list[ApiSystemOutcome]:
    """Every API system of the scenario, once: what it serves and costs at each demand point (no plan, no fleet).

    An empty list when the scenario has none (and then the model's API module is not even imported).
    """
    if all(s.api is None for s in scenario.systems):
        return []
    return run_api_samples(scenario, {}, 1)


@dataclass(frozen=True)
class Unpacked:
    """A scenario split into what it can be evaluated with (:func:`unpack`): built once, read by :func:`evaluation`.

    Attributes
    ----------
    given
        The scenario as given.
    scenario
        The scenario of the systems it can serve with: ``given`` itself when it can serve with all of them, else a
        copy without the others (figures and the baseline follow them).
    unserved
        The systems left out, each with why (:class:`rackcost.scenario.feasibility.UnservedSystem`).
    inputs
        The hardware systems' inputs of ``scenario`` when the split unpacked them already (the chain need not
        again), else None.
    """

    given: Scenario
    scenario: Scenario
    unserved: tuple[UnservedSystem, ...]
    inputs: tuple[SystemInputs, ...] | None = None


def unpack(scenario: Scenario) -> Unpacked:
    """The scenario split into the systems it can serve with and those it cannot
    (:func:`rackcost.evaluation.servable.servable`).

    Raises
    ------
    ScenarioError
        When no system is left: each one's reason, at its YAML path.
    """
    check_argument("rackcost.evaluate", "scenario", scenario, Scenario, "a Scenario (rackcost.load_scenario(path))")
    served, unserved, inputs = servable(scenario)
    return Unpacked(scenario, served, unserved, inputs)


@dataclass(frozen=True)
class Evaluation:
    """One evaluation of a scenario (:func:`evaluation`): every face and analysis reads this object, none composes
    the chain.

    Built from the scenario split once (:class:`Unpacked`); each part is built the first time it is read and kept:
    the operating points (steps 1 to 3), the outcomes (steps 4 to 8), the API systems', the tables, and the buying
    plan (:func:`rackcost.evaluation.planning.plan_of`, which evaluates each source alone: above the chain). So an
    analysis that needs only the chosen points (the Monte Carlo) never runs the central fleet, and one that needs the
    outcomes (the charts, the site budget) never lays out the tables. Each part is computed within
    one memo of the scenario's request classes (:func:`rackcost.scenario.unpack.one_evaluation`), kept with it.

    Attributes
    ----------
    unpacked
        The scenario as given and as served (:class:`Unpacked`).
    memo
        The request classes unpacked for this evaluation (:func:`rackcost.scenario.unpack.one_evaluation`).
    parts
        The parts built by modules above the chain, by name (:meth:`kept`).
    """

    unpacked: Unpacked
    memo: dict[int, tuple[Any, Any]] = field(default_factory=dict, repr=False, compare=False)
    parts: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def given(self) -> Scenario:
        """The scenario as given."""
        return self.unpacked.given

    @property
    def origin_file(self) -> str:
        """The file the scenario was loaded from, or ``<scenario>`` (:attr:`Scenario.origin_file`)."""
        return self.unpacked.given.origin_file

    @property
    def scenario(self) -> Scenario:
        """The scenario of the systems served (the one the outcomes and tables are of)."""
        return self.unpacked.scenario

    @property
    def unserved(self) -> tuple[UnservedSystem, ...]:
        """The systems left out, with why."""
        return self.unpacked.unserved

    @cached_property
    def chosen(self) -> ChosenPoints:
        """Steps 1 to 3 of the hardware systems served, on central values (:func:`choose_points`)."""
        with one_evaluation(self.memo):
            return choose_points(self.scenario, self.unpacked.inputs)

    @cached_property
    def outcomes(self) -> tuple[SystemOutcome, ...]:
        """Steps 1 to 8 of each hardware system served (:func:`evaluate_systems`), in the order of its systems."""
        with one_evaluation(self.memo):
            return tuple(_central_outcomes(self.scenario, self.chosen))

    @cached_property
    def apis(self) -> tuple[ApiSystemOutcome, ...]:
        """Each API system's outcome (:func:`evaluate_apis`)."""
        with one_evaluation(self.memo):
            return tuple(evaluate_apis(self.scenario))

    @cached_property
    def result(self) -> Result:
        """The tables (:class:`Result`): ``unserved`` the systems left out, and the ``years`` and ``horizon`` tables
        of a scenario whose demand is a profile."""
        outcomes, apis = list(self.outcomes), list(self.apis)
        with one_evaluation(self.memo):
            served = self.scenario
            result = result_tables(served, outcomes, apis)
            if served.demand_profile is not None:  # every hour of the horizon, per year and over it
                from rackcost.evaluation.horizon import horizon_records

                result = replace(result, records={**result.records, **horizon_records(served)})
        return mark_unserved(result, self.unserved)

    def served_by(
        self, routing: str, served_at_scvs: tuple[float, ...] = (), served_at_swings: tuple[float, ...] = ()
    ) -> tuple[list[SystemOutcome], Result]:
        """The same fleets (each system's chosen point and replicas, as evaluated) served by another router, and
        their tables: what the model says those fleets do under it (the simulator's analytic side for ``rackcost
        simulate --routing``). The router must have an analytic form (:attr:`Router.analytic
        <rackcost.model.queues.routers.Router.analytic>`); ``served_at_scvs`` and ``served_at_swings`` as
        :func:`evaluate_systems`'s."""
        planned = replace(self.chosen, policy=replace(self.chosen.policy, routing=routing))
        with one_evaluation(self.memo):
            outcomes = _central_outcomes(self.scenario, planned, served_at_scvs, served_at_swings)
            return outcomes, result_tables(self.scenario, outcomes, list(self.apis))

    def kept(self, name: str, build: Callable[[], T]) -> T:
        """A part of the evaluation built by a module above the chain (the buying plan:
        :func:`rackcost.evaluation.planning.plan_of`), built the first time it is asked for and kept with it."""
        if name not in self.parts:
            self.parts[name] = build()
        return cast("T", self.parts[name])


def evaluation(scenario: Scenario | Unpacked | Evaluation) -> Evaluation:
    """Evaluate a scenario once, keeping what every face and analysis needs: the outcomes, the tables, the plan.

    Parameters
    ----------
    scenario
        A validated scenario, or one already split by :func:`unpack` (the dashboard splits each edit as it
        validates it), or an evaluation (returned as it is: an analysis handed one reads it).

    Returns
    -------
    Evaluation
        Its parts are built as they are read (:class:`Evaluation`).

    Raises
    ------
    ScenarioError
        If no system can be evaluated (each one's reason at its YAML path).
    """
    if isinstance(scenario, Evaluation):
        return scenario
    memo: dict[int, tuple[Any, Any]] = {}
    with one_evaluation(memo):
        return Evaluation(scenario if isinstance(scenario, Unpacked) else unpack(scenario), memo)


def evaluation_for(
    scenario: Scenario | Evaluation, analysis: str, needed: tuple[str | None, ...] = (), warn: bool = True
) -> Evaluation:
    """:func:`evaluation` for an analysis: a warning per system left out, and an error when the analysis is about
    one (:func:`rackcost.evaluation.servable.served_for`'s rules, on the evaluation's split).

    Parameters
    ----------
    scenario
        A validated scenario, or its evaluation.
    analysis
        The analysis's name, for the messages (``"site"``).
    needed
        Systems the analysis cannot run without; None entries are ignored.
    warn
        Whether to warn (:class:`rackcost.evaluation.servable.UnservedSystemWarning`) when the analysis splits the
        scenario itself; False where the analysis's result lists them itself.

    Raises
    ------
    ScenarioError
        When a needed system is left out (its reason, at its YAML path), or no system is left.
    """
    found = evaluation(scenario)
    # an evaluation handed over was split by its caller, who has its unserved systems: no warning again
    check_served(found.given, found.unserved, analysis, needed, warn and not isinstance(scenario, Evaluation))
    return found


def evaluate(scenario: Scenario) -> Result:
    """Evaluate a scenario: cost per accepted request of each system at each demand point.

    Parameters
    ----------
    scenario
        A validated scenario (:func:`rackcost.load_scenario`).

    Returns
    -------
    Result
        ``points`` (one row per system and demand point), ``systems`` (one row per system), ``comparison``
        (each system against the baseline), ``unserved`` (each system no operating point of which meets the SLO,
        none of whose SLO-feasible points fits its KV cache in the replica's memory, or whose node is over the rack
        limit: left out, with why, while the others are evaluated) and ``warnings``; the result of
        :func:`evaluation`.

    Raises
    ------
    ScenarioError
        If no system can be evaluated (each one's reason at its YAML path).
    """
    check_argument("rackcost.evaluate", "scenario", scenario, Scenario, "a Scenario (rackcost.load_scenario(path))")
    return evaluation(scenario).result


def mark_unserved(result: Result, unserved: tuple[UnservedSystem, ...]) -> Result:
    """The result of a scenario's servable systems (:func:`rackcost.evaluation.servable.servable`) with those left
    out listed (``Result.unserved``) and warned about, first."""
    if not unserved:
        return result
    return replace(
        result,
        unserved=[u.to_dict() for u in unserved],
        warnings=[unserved_warning(u) for u in unserved] + result.warnings,
    )
