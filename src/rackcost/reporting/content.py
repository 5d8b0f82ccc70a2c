"""What a decision report says: the model run once, and its sections in order, before any format.

:func:`build_report` runs the model (:func:`rackcost.evaluation.chain.evaluation`, the one evaluation every face reads,
unless it is given one; and the Monte Carlo, tornado and break-even of :mod:`rackcost.analysis.montecarlo` and
:mod:`rackcost.analysis.sensitivity` when the scenario has distributions or samples are asked for) once, the buying plan
of a scenario with a ``plan`` block (kept with the evaluation: :func:`rackcost.evaluation.planning.plan_of`), leads with
the decision every face leads with (:func:`rackcost.reporting.decision.decision`), and puts the sections in order:
:mod:`rackcost.reporting.result_sections`, :mod:`rackcost.reporting.input_sections` and
:mod:`rackcost.reporting.uncertainty_section` word the result in the blocks of :mod:`rackcost.reporting.blocks`;
:mod:`rackcost.reporting.html` and :mod:`rackcost.reporting.markdown` turn them into a file. Every number is formatted
by :mod:`rackcost.display`, every header carries its unit, and every chart is a specification of
:mod:`rackcost.reporting.charts` or :mod:`rackcost.reporting.plan_charts` (the dashboard's).

**Size.** The work grows in proportion to the systems and demand points: the charts draw at most
:data:`~rackcost.reporting.charts.MAX_CHART_SYSTEMS` systems and :data:`~rackcost.reporting.charts.MAX_CHART_POINTS`
demand points (:func:`~rackcost.reporting.charts.chart_subset`, said in each chart's caption), the break-even values
are those of the charted systems, each computed on its pair alone, and the default Monte Carlo draws at most
:data:`~rackcost.analysis.montecarlo.MAX_CELLS` cells (:func:`report_samples`). The tables give every system and
demand point.
"""

from __future__ import annotations

import datetime as dt

from rackcost.evaluation.chain import Evaluation, evaluation
from rackcost.reporting.blocks import EVALUATING, SAMPLING, Report, ReportProgress, Section
from rackcost.reporting.breakdowns import classes_section, kv_limit_notes, pools_section
from rackcost.reporting.charts import chart_subset
from rackcost.reporting.decision import decision
from rackcost.reporting.input_sections import appendix_section, provenance_section, scenario_section
from rackcost.reporting.lead import lead_section
from rackcost.reporting.mix_section import mix_report_section
from rackcost.reporting.plan_section import plan_section
from rackcost.reporting.result_sections import (
    claim_section,
    cliff_section,
    cost_section,
    systems_section,
    warnings_section,
    years_section,
)
from rackcost.reporting.uncertainty_section import uncertainty_section
from rackcost.scenario.schema import Scenario

__all__ = ["DEFAULT_SAMPLES", "build_report", "report_samples"]

DEFAULT_SAMPLES = 10_000
"""Monte Carlo samples of a report when the scenario has distributions and no number is asked for (the dashboard's
default too) [-]."""


def report_samples(scenario: Scenario) -> tuple[int, str]:
    """The Monte Carlo samples of a report whose samples were not asked for, and why, when fewer than the default.

    :data:`DEFAULT_SAMPLES`, unless that many samples of every system at every demand point would be more than
    :data:`~rackcost.analysis.montecarlo.MAX_CELLS` (the Monte Carlo's bound on samples x demand points x systems):
    then as many as fit (at least one).

    Examples
    --------
    >>> import rackcost
    >>> report_samples(rackcost.load_scenario(rackcost.bundled_scenario_path()))
    (10000, '')
    """
    from rackcost.analysis.montecarlo import MAX_CELLS, cells

    per_sample = cells(scenario, 1)
    if DEFAULT_SAMPLES * per_sample <= MAX_CELLS:
        return DEFAULT_SAMPLES, ""
    n = max(1, MAX_CELLS // per_sample)
    return n, (
        f"{n:,} samples rather than the default {DEFAULT_SAMPLES:,}: a report draws at most {MAX_CELLS:,} cells "
        f"(samples x systems x demand points, the Monte Carlo's bound), and each sample here is {per_sample:,}; "
        "rackcost uncertainty draws more (--samples, --max-cells)."
    )


def build_report(
    scenario: Scenario | Evaluation,
    samples: int | None = None,
    seed: int = 0,
    date: str | None = None,
    progress: ReportProgress | None = None,
) -> Report:
    """Evaluate a scenario and word the result as a :class:`Report`.

    Parameters
    ----------
    scenario
        A validated scenario, or its :func:`rackcost.evaluation.chain.evaluation` (the dashboard's, evaluated
        already): every figure of the report is of that one evaluation.
    samples
        Monte Carlo samples [-]; default :func:`report_samples` (:data:`DEFAULT_SAMPLES`, fewer for a scenario
        too large for them) when the scenario has distributions, none when it has not (the uncertainty section
        then says so, if samples were asked for).
    seed
        Seed of the Monte Carlo (same seed, same report).
    date
        The report's date (ISO 8601); default today. Give it to make the same bytes on another day.
    progress
        Called as the work goes (:data:`~rackcost.reporting.blocks.ReportProgress`): ``"evaluating"`` begun and
        finished, then, with a Monte Carlo, ``"uncertainty samples"`` with the samples done (and finished once the
        tornado and break-even values are found).

    Returns
    -------
    Report

    Raises
    ------
    rackcost.ScenarioError
        When no system can be evaluated (each one's reason); a system no operating point of which meets the SLO
        is left out and marked first in the summary (``Result.unserved``) while the others are reported.
    """
    from rackcost import __version__

    say = progress or (lambda stage, done, total: None)
    say(EVALUATING, 0, 1)
    evaluated = scenario if isinstance(scenario, Evaluation) else evaluation(scenario)
    # the inputs sections show the scenario as given; the rest what it can serve with
    given, scenario, result = evaluated.given, evaluated.scenario, evaluated.result
    outcomes = list(evaluated.outcomes)
    systems = [s.name for s in scenario.systems]
    demand = [d.name for d in scenario.demand]
    subset = chart_subset(
        result.records["systems"],
        scenario.baseline_name,
        [{"name": d.name, "arrival_rps": d.arrival_rps} for d in scenario.demand],
        scenario.sizing_point.name,
    )
    uncertain = bool(scenario.distributions)
    asked, samples_note = (samples, "") if samples is not None else report_samples(scenario)
    n = asked if uncertain else None
    # the sections of the model's result first, the lead (which needs the Monte Carlo) put before them after;
    # the pools and classes sections only where the scenario has them (None otherwise)
    lead = decision(evaluated)  # the plan's where the scenario has a plan block (found once, kept with evaluated)
    plan = lead.problem if lead.problem is not None else lead.plan
    optional = [
        scenario_section(given),
        systems_section(scenario, result, outcomes, subset, kv_limit_notes(scenario, outcomes)),
        pools_section(scenario, result),
        cost_section(scenario, result, subset),
        years_section(scenario, result, subset),
        classes_section(scenario, result),
        mix_report_section(scenario),
        cliff_section(scenario, result, outcomes, subset),
        claim_section(result, subset),
        plan_section(given, plan),
    ]
    results: list[Section] = [s for s in optional if s is not None]
    say(EVALUATING, 1, 1)
    mc = ranked = None
    if n is not None:
        from rackcost.analysis.montecarlo import uncertainty
        from rackcost.analysis.sensitivity import tornado

        say(SAMPLING, 0, n)
        mc = uncertainty(scenario, n, seed, progress=None if progress is None else lambda done: say(SAMPLING, done, n))
        ranked = tornado(scenario)  # once, for the lead and the Uncertainty section
    # the lead: the decision, cost per year and over the years, racks and kW per rack, how sure, what would change it
    sections = [lead_section(scenario, result, lead, mc, ranked, subset), *results]
    if uncertain or samples is not None:
        sections.append(uncertainty_section(scenario, result, mc, systems, demand, subset, samples_note, ranked))
    if n is not None:
        say(SAMPLING, n, n)  # the tornado and break-even values too
    # the appendix (blocks.APPENDIX): for whoever checks the model, with the YAML paths
    sections += [warnings_section(result), provenance_section(given), appendix_section(given)]
    return Report(
        title=scenario.name,
        subtitle="What each system costs per accepted request, at each demand point and over the day",
        sections=sections,
        version=__version__,
        date=date or dt.date.today().isoformat(),
    )
