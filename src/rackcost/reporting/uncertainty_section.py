"""The report's uncertainty section: the uncertain inputs, the probability of being cheaper, the distribution of cost,
the tornado and the break-even values, from one Monte Carlo run (and the tornado and break-even of
:mod:`rackcost.analysis.sensitivity`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rackcost import display
from rackcost.analysis.explore import cost_histograms, path_in, with_systems
from rackcost.evaluation.columns import BLENDED
from rackcost.reporting import charts
from rackcost.reporting.blocks import (
    NOT_APPLICABLE,
    REPORT_CHART_PX,
    Block,
    Chart,
    Paragraph,
    Section,
    Subheading,
    Table,
    section,
    width,
)
from rackcost.reporting.charts import MAX_CHART_POINTS, MAX_TORNADO_INPUTS, ChartSubset
from rackcost.reporting.input_sections import distribution_words
from rackcost.scenario.labels import input_label
from rackcost.scenario.loading import scenario_to_data
from rackcost.scenario.schema import Scenario
from rackcost.scenario.yaml_paths import MISSING, lookup

__all__ = ["input_name", "uncertainty_section"]


def input_name(path: str, systems: list[str], demand: list[str]) -> str:
    """A plain name of an input's YAML path, its system or demand point named: the label registry's
    (:func:`rackcost.scenario.labels.input_label`, the dashboard's and the CLI's), so the report before its appendix
    names no YAML path.

    Examples
    --------
    >>> input_name("systems[1].costs.capex_usd_per_accelerator", ["GB300", "Jalapeño"], ["peak"])
    'Jalapeño: capex per accelerator [USD]'
    >>> input_name("demand[0].arrival_rps", [], ["quiet"]), input_name("facility.pue", [], [])
    ('quiet demand: arrival [requests/s]', 'PUE')
    """
    return input_label(path, systems, demand)


def uncertainty_section(
    scenario: Scenario,
    result: Any,
    mc: Any,
    systems: list[str],
    demand: list[str],
    subset: ChartSubset,
    samples_note: str = "",
    ranked: list[dict[str, Any]] | None = None,
) -> Section:
    """The Monte Carlo's answer, the tornado and the break-even values.

    The tables give every system and demand point; the charts those of ``subset``, the tornado's columns (one pair
    per system) and the break-even values the systems of ``subset`` (each break-even is computed on its pair alone,
    :func:`rackcost.analysis.explore.with_systems`: the same value, for the work of two systems). ``samples_note``
    says why there are fewer samples than asked for, if there are; ``ranked`` is the tornado
    (:func:`rackcost.analysis.sensitivity.tornado`), found here when not given.
    """
    if mc is None:
        return section(
            "uncertainty",
            [
                Paragraph(
                    "This scenario has no distributions: every input is a single number, so there is no spread to "
                    "sample, no probability to state and no tornado. The figures above are its only outcome."
                )
            ],
        )

    def name(path: str) -> str:
        return input_name(path, systems, demand)

    drawn = [s for s in systems if s in set(subset.systems)]
    others = [s for s in systems if s != scenario.baseline_name]
    return section(
        "uncertainty",
        _inputs_blocks(scenario, mc, name, samples_note)
        + _cheaper_blocks(scenario.baseline_name, mc.probability_cheaper, demand)
        + _distribution_blocks(mc, systems, demand, drawn, subset)
        + _tornado_blocks(scenario, result, systems, drawn, others, subset, name, ranked)
        + _breakeven_blocks(scenario, drawn, others, name),
    )


def _inputs_blocks(scenario: Scenario, mc: Any, name: Callable[[str], str], samples_note: str) -> list[Block]:
    """How the samples were drawn, and the uncertain inputs with their central values and P5-P95."""
    return [
        Paragraph(
            f"{mc.n:,} samples (seed {mc.seed}) of every input given as a distribution, drawn independently; the "
            "operating point is chosen on central values and the fleet is sized again for each sample."
            + (f" {samples_note}" if samples_note else "")
        ),
        Subheading("Uncertain inputs"),
        Table(
            "uncertain-inputs",
            [
                ("input", "input"),
                ("distribution", "distribution"),
                ("central", "central value [unit of the input]"),
                ("p5", "P5 [unit of the input]"),
                ("p95", "P95 [unit of the input]"),
            ],
            [
                [
                    name(path),
                    distribution_words(dist),
                    display.input_value(float(dist.central), path),
                    display.input_value(float(dist.ppf(0.05)), path),
                    display.input_value(float(dist.ppf(0.95)), path),
                ]
                for path, dist in sorted(scenario.distributions.items())
            ],
        ),
    ]


def _cheaper_blocks(baseline: str, cheaper: list[dict[str, Any]], demand: list[str]) -> list[Block]:
    """The probability of each system being cheaper than the baseline: a column per demand point, or a row per
    system and point where there are more points than a chart draws."""
    if not cheaper:
        return []
    if len(demand) > MAX_CHART_POINTS:  # one row per system and point, not a column per point
        return [
            Subheading(f"Probability of being cheaper than {baseline}"),
            Table(
                "probability-cheaper",
                [
                    ("system", "system"),
                    ("demand_point", "demand point"),
                    ("probability_fraction", "cheaper [% of samples]"),
                ],
                [
                    [r["system"], "blended over the day" if r["demand_point"] == BLENDED else r["demand_point"]]
                    + [display.pct(r["probability_fraction"])]
                    for r in cheaper
                ],
            ),
        ]
    return [
        Subheading(f"Probability of being cheaper than {baseline}"),
        Table(
            "probability-cheaper",
            [("system", "system")]
            + [(f"probability_fraction:{p}", f"at {p} demand [% of samples]") for p in demand]
            + [("probability_fraction:blended", "blended over the day [% of samples]")],
            [
                [system]
                + [
                    display.pct(r["probability_fraction"])
                    for p in [*demand, BLENDED]
                    for r in cheaper
                    if r["system"] == system and r["demand_point"] == p
                ]
                for system in dict.fromkeys(r["system"] for r in cheaper)
            ],
        ),
    ]


def _distribution_blocks(
    mc: Any, systems: list[str], demand: list[str], drawn: list[str], subset: ChartSubset
) -> list[Block]:
    """The histogram of the blended cost per accepted request with its P5, P50 and P95, and every percentile."""
    by = {(r["system"], r["demand_point"], r["column"]): r for r in mc.percentiles}
    marks = [
        {"system": s, "percentile": q.upper(), "usd": by[(s, "system", "blended_usd_per_accepted_request")][q]}
        for s in drawn
        for q in ("p5", "p50", "p95")
    ]
    # the blended cost only (no demand point): one chart, each point's percentiles are in the table
    histogram = cost_histograms(mc.samples, drawn, [])
    return [
        Subheading("Distribution of cost per accepted request"),
        Chart(
            "cost-distribution",
            width(charts.cost_distribution_chart(histogram, marks, drawn)),
            _described(
                "Histogram of the sampled blended cost per accepted request of each system, with P5, P50 and P95.",
                subset,
            ),
        ),
        Paragraph(
            f"Blended over the day: histogram of {mc.n:,} samples (central 99% shown); solid line the median (P50), "
            "dashed lines P5 and P95."
        ),
        Table(
            "percentiles",
            [
                ("system", "system"),
                ("demand_point", "demand point"),
                ("p5", f"P5 [{display.PER_1K_ACCEPTED}]"),
                ("p50", f"P50 [{display.PER_1K_ACCEPTED}]"),
                ("p95", f"P95 [{display.PER_1K_ACCEPTED}]"),
            ],
            [
                [s, p]
                + [display.usd_per_1k_requests(by[(s, p, "usd_per_accepted_request")][q]) for q in ("p5", "p50", "p95")]
                for s in systems
                for p in demand
            ]
            + [
                [s, "blended over the day"]
                + [
                    display.usd_per_1k_requests(by[(s, "system", "blended_usd_per_accepted_request")][q])
                    for q in ("p5", "p50", "p95")
                ]
                for s in systems
            ],
        ),
    ]


def _tornado_blocks(
    scenario: Scenario,
    result: Any,
    systems: list[str],
    drawn: list[str],
    others: list[str],
    subset: ChartSubset,
    name: Callable[[str], str],
    ranked: list[dict[str, Any]] | None = None,
) -> list[Block]:
    """The tornado: each uncertain input at its P5 and P95, every other at its central value (none without one)."""
    from rackcost.analysis.sensitivity import tornado

    ranked = tornado(scenario) if ranked is None else ranked
    if not ranked:
        return []
    baseline = scenario.baseline_name
    central = {r["system"]: r["blended_usd_per_accepted_request"] for r in result.records["systems"]}
    columns = [
        ("input", "input"),
        ("low_value", "input at its P5 [unit of the input]"),
        ("high_value", "input at its P95 [unit of the input]"),
    ]
    for s in drawn:  # a pair of columns per system: those the charts draw
        columns += [
            (f"{s}@low", f"{s}: blended cost at P5 [{display.PER_1K_ACCEPTED}]"),
            (f"{s}@high", f"{s}: blended cost at P95 [{display.PER_1K_ACCEPTED}]"),
        ]
    if others:
        columns += [
            ("advantage_low", f"advantage of {others[0]} over {baseline} at P5 [x]"),
            ("advantage_high", f"advantage of {others[0]} over {baseline} at P95 [x]"),
        ]
    columns.append(("relative_swing", "largest swing [% of central cost]"))
    rows = []
    for r in ranked:
        row = [
            name(r["input"]),
            display.input_value(r["low_value"], r["input"]),
            display.input_value(r["high_value"], r["input"]),
        ]
        for s in drawn:
            row += [display.usd_per_1k_requests(r[f"{s}@low"]), display.usd_per_1k_requests(r[f"{s}@high"])]
        if others:
            row += [display.ratio(r["advantage_low"]), display.ratio(r["advantage_high"])]
        row.append(display.pct(r["relative_swing"]))
        rows.append(row)
    tornado_chart = charts.tornado_charts(ranked, drawn, central, name)
    import altair as alt

    inputs_note = (
        f" It draws the {MAX_TORNADO_INPUTS} inputs of largest swing of the {len(ranked):,}; the table gives "
        "every input."
        if len(ranked) > MAX_TORNADO_INPUTS
        else ""
    )
    blocks: list[Block] = [Subheading("Which inputs decide it: tornado")]
    if subset.systems_note:
        blocks.append(
            Paragraph(
                f"The table gives the blended cost of the {len(drawn)} systems the charts draw (the baseline "
                f"and the cheapest) at each end; the ranking and the largest swing are over all "
                f"{len(systems):,} systems."
            )
        )
    return blocks + [
        Table("tornado", columns, rows),
        Chart(
            "tornado",
            alt.vconcat(*(c.properties(width=REPORT_CHART_PX - 160) for c in tornado_chart)).configure_legend(
                orient="bottom"
            ),
            _described("Each system's blended cost with each uncertain input at its P5 and at its P95.", subset)
            + inputs_note,
        ),
        Paragraph(
            "Each input at its P5 and at its P95 with every other input at its central value; the black line is "
            "the central cost. Ranked by the largest swing of any system's blended cost."
        ),
    ]


def _breakeven_blocks(
    scenario: Scenario, drawn: list[str], others: list[str], name: Callable[[str], str]
) -> list[Block]:
    """The break-even values of the systems the charts draw against the baseline (none where only it is drawn)."""
    from rackcost.analysis.sensitivity import breakeven

    shown_others = [s for s in others if s in set(drawn)]
    if not shown_others:
        return []
    blocks: list[Block] = [Subheading("Break-even values")]
    if len(shown_others) < len(others):
        blocks.append(
            Paragraph(
                f"For the {len(shown_others)} cheapest systems against the baseline (the systems the charts "
                "draw); rackcost breakeven gives the value for any of the other "
                f"{len(others) - len(shown_others):,}."
            )
        )
    blocks.append(breakeven_table(scenario, shown_others, breakeven, name))
    return blocks


def _described(description: str, subset: ChartSubset) -> str:
    note = subset.systems_note
    return f"{description} {note}" if note else description


def own_price_path(scenario: Scenario, system: str) -> str:
    """The YAML path of a system's own price: when owned, the capex figure that is most of a rack's purchase price
    (per accelerator, per node or per rack), the rental price when rented, an API's output price."""
    index = next(i for i, s in enumerate(scenario.systems) if s.name == system)
    spec = scenario.systems[index]
    if spec.api is not None:
        return f"systems[{index}].api.usd_per_million_output_tokens"
    if spec.rent is not None:
        return f"systems[{index}].rent.usd_per_accelerator_hour"
    costs, hardware = spec.costs, spec.hardware
    if costs is None or hardware is None:
        return f"systems[{index}].costs.capex_usd_per_accelerator"
    # the purchase price that is most of a rack's: a rack-scale system is often priced per rack, with $0 per
    # accelerator, and a break-even "rising from $0 per accelerator" tells a reader nothing
    per_rack = {
        "capex_usd_per_accelerator": costs.capex_usd_per_accelerator
        * hardware.accelerators_per_node
        * hardware.nodes_per_rack,
        "capex_usd_per_node": costs.capex_usd_per_node * hardware.nodes_per_rack,
        "capex_usd_per_rack": costs.capex_usd_per_rack,
    }
    largest = max(per_rack, key=lambda name: per_rack[name])  # ties: the first, per accelerator
    return f"systems[{index}].costs.{largest}"


def breakeven_table(scenario: Scenario, others: list[str], breakeven: Any, name: Callable[[str], str]) -> Table:
    """Each other system's own price, and the electricity price, at which it costs what the baseline does.

    Each value is found on the scenario of the system and the baseline alone (the cost of either depends on the
    shared inputs and its own only, so the value is the same, and the work is that of two systems, not of all).
    """
    from rackcost.errors import ScenarioError

    data = scenario_to_data(scenario)
    rows = []
    for system in others:
        pair, index = with_systems(scenario, [scenario.baseline_name, system])
        for path in (own_price_path(scenario, system), "facility.electricity_usd_per_kwh"):
            central = display.input_value(central_value(scenario, path, lookup(data, path)), path)
            there = own_price_path(pair, system) if path != "facility.electricity_usd_per_kwh" else path
            assert path_in(there, index) == path
            try:
                found = breakeven(pair, there, system, BLENDED)
            except (ScenarioError, ValueError, ArithmeticError) as exc:  # e.g. a zero price: no range to search
                rows.append(
                    [
                        system,
                        name(path),
                        central,
                        NOT_APPLICABLE,
                        NOT_APPLICABLE,
                        _in_whole(str(exc), there, name(path)),
                    ]
                )
                continue
            rows.append(
                [
                    system,
                    name(path),
                    central,
                    NOT_APPLICABLE if found.value is None else display.input_value(found.value, path),
                    f"{display.input_value(found.low, path)} to {display.input_value(found.high, path)}",
                    _in_whole(found.message, there, name(path))
                    if found.value is None
                    else "the two cost the same at this value",
                ]
            )
    return Table(
        "breakeven",
        [
            ("system", f"system (against {scenario.baseline_name})"),
            ("input", "input"),
            ("central_value", "value in the scenario [unit of the input]"),
            ("value", "break-even value [unit of the input]"),
            ("range", "range searched [unit of the input]"),
            ("message", "result"),
        ],
        rows,
    )


def _in_whole(message: str, there: str, plain: str) -> str:
    """A message about an input of a narrower scenario, naming the input by its plain name (``plain``) instead of its
    path (``there``) in the scenario the message was made of."""
    return message.replace(there, plain)


def central_value(scenario: Scenario, path: str, found: Any) -> float:
    """The value of an input as the model uses it: a distribution's central value, else the number in the file."""
    dist = scenario.distributions.get(path)
    if dist is not None:
        return float(dist.central)
    if found is MISSING or isinstance(found, dict):
        raise KeyError(f"{path} is not a number of the scenario")
    return float(found)
