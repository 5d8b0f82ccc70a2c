"""Uncertainty page: Monte Carlo over the scenario's distributions, the tornado, and break-even values.

Every number comes from :func:`rackcost.uncertainty`, :func:`rackcost.tornado` and :func:`rackcost.breakeven`
(through the cached calls of :mod:`rackcost_app.compute`); this page only words and draws them.
"""

from __future__ import annotations

import streamlit as st

import rackcost
from rackcost import display
from rackcost.evaluation.columns import BLENDED
from rackcost.reporting import charts as chart_specs
from rackcost.scenario import labels
from rackcost_app import compute, state, tables
from rackcost_app.safe import md

DEFAULT_SAMPLES, MIN_SAMPLES, MAX_SAMPLES = 10_000, 1_000, 200_000
# persisted settings (plain keys: widget state is dropped when the user leaves the page)
SAMPLES, SEED, POINT, REQUEST = "uncertainty_samples", "uncertainty_seed", "uncertainty_point", "breakeven_request"

ss = st.session_state
ss.setdefault(SAMPLES, DEFAULT_SAMPLES)
ss.setdefault(SEED, 0)
valid = ss[state.VALID]
# canonical JSON of the last valid scenario, distributions included, without the systems it cannot serve with
key = compute.served_json(ss[state.VALID_JSON])
scenario = compute.scenario(key)
names = [s.name for s in scenario.systems]
baseline = scenario.baseline_name
others = [n for n in names if n != baseline]
points = [d.name for d in scenario.demand]
figures = valid.get("figures") or {}


def input_label(path: str) -> str:
    """A readable name of an input's YAML path: ``Jalapeño: capex per accelerator [USD]``
    (:func:`rackcost.scenario.labels.input_label`, the words the CLI prints too)."""
    return labels.input_label(path, names, points)


def describe(dist: str, parameters: dict) -> str:
    def fmt(v):
        return ", ".join(display.num(x) for x in v) if isinstance(v, list) else display.num(v)

    return f"{dist}: " + ", ".join(f"{k} {fmt(v)}" for k, v in parameters.items())


def in_words(share: float) -> str:
    """The probability in words, judged on the percentage as shown (0 decimals)."""
    share = round(100 * share) / 100
    if share >= 0.95:
        return "very likely"
    if share >= 0.75:
        return "likely"
    if share > 0.25:
        return "a toss-up"
    if share > 0.05:
        return "unlikely"
    return "very unlikely"


def show_problems(exc: rackcost.ScenarioError) -> None:
    for problem in exc.problems:
        where = f"{md(problem.path)}: " if problem.path else ""
        st.error(f"{where}{md(problem.message)}", icon=":material/error:")


st.title("Uncertainty")
st.caption(
    "How likely each system is to be cheaper per accepted request than the baseline, given the distributions in "
    "the scenario; which inputs decide it (tornado); and at what value of an input the answer flips (break-even). "
    "Inputs are independent; the operating point is chosen on central values and the fleet is sized per sample."
)
if ss[state.PROBLEMS]:
    st.warning(
        "Your latest edits have problems (see the Scenario page): this is the last valid scenario.",
        icon=":material/warning:",
    )

dists = compute.distributions(key)
st.header("Uncertain inputs")
if not dists:
    st.info(
        "**This scenario gives no distributions**, so each figure is drawn from its **default spread**: a width "
        "from its provenance (vendor, collaborative, independent, assumption) and the model's own measured errors "
        "(interpolation, the power law), each with its source in the table below (docs/uncertainty.md, Default "
        "spreads). Give an input a distribution in the Scenario page's YAML tab to use yours instead, e.g. "
        "`electricity_usd_per_kwh: {dist: triangular, low: 0.06, mode: 0.081, high: 0.17}`.",
        icon=":material/info:",
    )
else:
    rows = [
        {
            "input": input_label(d["input"]),
            "path": d["input"],
            "distribution": describe(d["dist"], d["parameters"]),
            "central": display.input_value(d["central"], d["input"]),
            "p5": display.input_value(d["p5"], d["input"]),
            "p95": display.input_value(d["p95"], d["input"]),
            "source": (figures.get(d["input"]) or {}).get("source", "") if isinstance(figures, dict) else "",
        }
        for d in dists
    ]
    tables.show(
        rows,
        {
            "input": ("input", "text"),
            "distribution": ("distribution", "text"),
            "central": ("central value (used by Results)", "text"),
            "p5": ("P5", "text"),
            "p95": ("P95", "text"),
            "path": ("YAML path", "text"),
            "source": ("source", "text"),
        },
    )

st.header("Monte Carlo")
c1, c2, _ = st.columns([1, 1, 2])
ss[SAMPLES] = c1.number_input(
    "samples [count]",
    min_value=MIN_SAMPLES,
    max_value=MAX_SAMPLES,
    value=int(ss[SAMPLES]),
    step=1_000,
    key="w_uncertainty_samples",
    help="Runs automatically when the scenario, the samples or the seed change (results are cached). "
    "10,000 samples take about a tenth of a second; 200,000 a few seconds.",
)
ss[SEED] = c2.number_input(
    "seed", min_value=0, value=int(ss[SEED]), step=1, key="w_uncertainty_seed", help="Same seed, same result."
)
summary = None
try:
    with st.spinner(f"Sampling {ss[SAMPLES]:,} futures..."):
        summary = compute.uncertainty_summary(key, int(ss[SAMPLES]), int(ss[SEED]))
except rackcost.ScenarioError as exc:
    show_problems(exc)

if summary is not None and not dists:
    tables.show(
        [
            {
                "input": input_label(d["input"]),
                "basis": d["basis"],
                "shape": d["shape"],
                "central": display.input_value(d["value"], d["input"]),
                "p5": display.input_value(d["p5"], d["input"]),
                "p95": display.input_value(d["p95"], d["input"]),
                "source": d["source"],
            }
            for d in summary["default_spreads"]
        ],
        {
            "input": ("input", "text"),
            "basis": ("spread from", "text"),
            "shape": ("shape", "text"),
            "central": ("central value (used by Results)", "text"),
            "p5": ("P5", "text"),
            "p95": ("P95", "text"),
            "source": ("source", "text"),
        },
    )

if summary is not None:
    n = summary["n"]
    st.markdown(f"**How sure:** {md(summary['how_sure'])}")
    cheaper = summary["probability_cheaper"]
    for system in others:
        mine = {r["demand_point"]: r["probability_fraction"] for r in cheaper if r["system"] == system}
        share = mine[BLENDED]
        st.subheader(
            f"{md(system)} is cheaper per accepted request than {md(baseline)} in {display.pct(share, 0)} of "
            f"{n:,} samples over the day: {in_words(share)}."
        )
        cols = st.columns(len(points) + 1)
        cols[0].metric("blended over the day", display.pct(share, 1))
        for col, point in zip(cols[1:], points, strict=True):
            col.metric(f"at {md(point)} demand", display.pct(mine[point], 1))
    st.caption(
        "Share of the samples in which the system's cost per accepted request is below the baseline's "
        f"({md(baseline)}), at each demand point and blended over the day (cost per day / accepted requests per "
        "day)."
    )

    if len(names) > 1:
        st.subheader("Any two systems")
        c1, c2 = st.columns(2)
        first = c1.selectbox("system", names, key="uncertainty_pair_a")
        second = c2.selectbox("against", [x for x in names if x != first], key="uncertainty_pair_b")
        pair = {
            r["demand_point"]: r["probability_fraction"]
            for r in summary["pairs"]
            if r["system"] == first and r["other"] == second
        }
        if BLENDED in pair:
            st.markdown(
                f"{md(first)} is cheaper per accepted request than {md(second)} in "
                f"{display.pct(pair[BLENDED], 1)} of {n:,} samples over the day: {in_words(pair[BLENDED])}."
            )
            cols = st.columns(len(points))
            for col, point in zip(cols, points, strict=True):
                if point in pair:
                    col.metric(f"{md(first)} cheaper at {md(point)} demand", display.pct(pair[point], 1))

    st.subheader("Distribution of cost per accepted request")
    choices = [BLENDED, *points]
    if ss.get(POINT) not in choices:
        ss[POINT] = BLENDED
    chosen = st.radio(
        "demand point",
        choices,
        index=choices.index(ss[POINT]),
        horizontal=True,
        key="w_uncertainty_point",
        format_func=lambda p: "blended over the day" if p == BLENDED else f"{md(p)} demand",
    )
    ss[POINT] = chosen
    hist = [r for r in summary["histogram"] if r["demand_point"] == chosen]
    pcts = summary["percentiles"]
    column, where = (
        ("blended_usd_per_accepted_request", "system") if chosen == BLENDED else ("usd_per_accepted_request", chosen)
    )
    marks = [
        {"system": r["system"], "percentile": q.upper(), "usd": r[q]}
        for r in pcts
        if r["column"] == column and r["demand_point"] == where
        for q in ("p5", "p50", "p95")
    ]
    st.altair_chart(chart_specs.cost_distribution_chart(hist, marks, names), width="stretch")
    st.caption(
        f"Histogram of {n:,} samples (central 99% shown, {compute.HISTOGRAM_BINS} bins per system); solid line "
        "the median (P50), dashed lines P5 and P95."
    )

    st.subheader("P5 / P50 / P95 of the key columns")
    by = {(r["system"], r["demand_point"], r["column"]): r for r in pcts}
    table_rows = []
    spec = {"system": ("system", "text"), "demand_point": ("demand point", "text")}
    headers = {
        "usd_per_accepted_request": ("cost per 1,000 accepted requests", "USD", "usd_per_1k"),
        "accepted_rps": ("accepted", "requests/s", "num"),
        "facility_power_kw": ("wall power", "kW", "num"),
        "total_usd_per_hour": ("total", "USD/h", "usd"),
    }
    for column, (text, unit, kind) in headers.items():
        for q in ("p5", "p50", "p95"):
            spec[f"{column}:{q}"] = (f"{text} {q.upper()} [{unit}]", kind)
    for system in names:
        for point in points:
            row = {"system": system, "demand_point": point}
            for column in headers:
                for q in ("p5", "p50", "p95"):
                    row[f"{column}:{q}"] = by[(system, point, column)][q]
            table_rows.append(row)
        blended = by[(system, "system", "blended_usd_per_accepted_request")]
        table_rows.append(
            {"system": system, "demand_point": "blended over the day"}
            | {f"usd_per_accepted_request:{q}": blended[q] for q in ("p5", "p50", "p95")}
        )
    tables.show(table_rows, spec)

st.header("Which inputs decide it: tornado")
try:
    tornado = compute.tornado(key)
except rackcost.ScenarioError as exc:
    show_problems(exc)
    tornado = []
if tornado:
    spec = {
        "input": ("input", "text"),
        "low": ("input at its P5", "text"),
        "central": ("central value", "text"),
        "high": ("input at its P95", "text"),
    }
    trows = []
    for r in tornado:
        row = {
            "input": input_label(r["input"]),
            "low": display.input_value(r["low_value"], r["input"]),
            "central": display.input_value(r["central_value"], r["input"]),
            "high": display.input_value(r["high_value"], r["input"]),
        }
        for system in names:
            row[f"{system}@low"] = r[f"{system}@low"]
            row[f"{system}@high"] = r[f"{system}@high"]
        if "advantage_low" in r:
            row["advantage_low"] = r["advantage_low"]
            row["advantage_high"] = r["advantage_high"]
        row["relative_swing"] = r["relative_swing"]
        trows.append(row)
    for system in names:
        spec[f"{system}@low"] = (f"{system}: blended cost at P5 [USD per 1,000 requests]", "usd_per_1k")
        spec[f"{system}@high"] = (f"{system}: blended cost at P95 [USD per 1,000 requests]", "usd_per_1k")
    if others:
        # the advantage, as everywhere: baseline cost / system cost (> 1: the system is cheaper)
        spec["advantage_low"] = (f"advantage of {others[0]} over {baseline} at P5 [x]", "ratio")
        spec["advantage_high"] = (f"advantage of {others[0]} over {baseline} at P95 [x]", "ratio")
    spec["relative_swing"] = ("largest swing [% of central cost]", "pct")
    tables.show(trows, spec)

    central_cost = {
        r["system"]: r["blended_usd_per_accepted_request"]
        for r in compute.evaluate(ss[state.VALID_JSON]).records["systems"]
    }
    charts = chart_specs.tornado_charts(tornado, names, central_cost, input_label)
    for chart in charts:  # one a row: two side by side left the bars no room at 1,024 px beside their labels
        st.altair_chart(chart.configure_legend(orient="bottom"), width="stretch")
    st.caption(
        "Each input at its P5 and at its P95 with every other input at its central value; the black line is "
        "the central cost. Ranked by the largest swing of any system's blended cost relative to its central "
        "cost."
    )
elif summary is not None and not dists:
    st.info(
        "The tornado moves the scenario's own distributions, one at a time: this scenario has none (the spread "
        "above is the default spreads'). Give inputs distributions to rank them.",
        icon=":material/info:",
    )
elif summary is not None:
    st.info("No input moves the result.")

# ---- break-even ------------------------------------------------------------------------------------------------

st.header("Break-even")
if not others:
    st.info("Only one system in this scenario: there is no baseline to break even with.")
else:
    options = [d["input"] for d in dists]
    common = ["facility.electricity_usd_per_kwh", "facility.pue"]
    # each system's own price: capex when owned, the rental price when rented, the output-token price of an API
    for i, spec in enumerate(scenario.systems):
        if spec.api is not None:
            common.append(f"systems[{i}].api.usd_per_million_output_tokens")
        elif spec.rent is not None:
            common.append(f"systems[{i}].rent.usd_per_accelerator_hour")
        else:
            common.append(f"systems[{i}].costs.capex_usd_per_accelerator")
    classes = sorted({str(s.provenance.provenance_class.value) for s in scenario.systems})
    common += [f"uncertainty.throughput_derate.{c}" for c in classes]
    options += [p for p in common if p not in options]
    st.caption(
        f"The value of one input at which a system and the baseline ({md(baseline)}) cost the same per accepted "
        "request. The range defaults to the input's P1 to P99 when it is a distribution, else 0.25x to 4x its "
        "value."
    )
    with st.form("breakeven"):
        c1, c2, c3 = st.columns([3, 2, 2])
        path = c1.selectbox("input", options, format_func=lambda p: f"{input_label(p)} · {p}", key="breakeven_input")
        system = c2.selectbox(f"system (against {md(baseline)})", others, key="breakeven_system")
        point = c3.selectbox(
            "demand point",
            [BLENDED, *points],
            format_func=lambda p: "blended over the day" if p == BLENDED else f"{p} demand",
            key="breakeven_point",
        )
        c4, c5, _ = st.columns([1, 1, 2])
        low = c4.number_input("range from (optional)", value=None, format="%g", key="breakeven_low")
        high = c5.number_input("range to (optional)", value=None, format="%g", key="breakeven_high")
        if st.form_submit_button("Find the break-even", type="primary"):
            ss[REQUEST] = {"key": key, "path": path, "system": system, "point": point, "low": low, "high": high}
    request = ss.get(REQUEST)
    if request and request["key"] == key:
        if request["low"] is not None and request["high"] is not None and not request["low"] < request["high"]:
            st.error("The range needs 'from' below 'to'.", icon=":material/error:")
        else:
            try:
                found = compute.breakeven(
                    key, request["path"], request["system"], request["point"], request["low"], request["high"]
                )
            except rackcost.ScenarioError as exc:
                show_problems(exc)
            except (ValueError, ArithmeticError) as exc:  # a range outside what the model accepts (e.g. <= 0)
                st.error(
                    f"The model cannot be evaluated over this range of {md(request['path'])}: {md(exc)}. "
                    "Choose a range of values the input can take.",
                    icon=":material/error:",
                )
            else:
                where = (
                    "blended over the day"
                    if found["demand_point"] == BLENDED
                    else f"at {md(found['demand_point'])} demand"
                )
                name = input_label(found["input"])
                if found["value"] is None:
                    st.info(f"**No break-even in range.** {md(found['message'])}.", icon=":material/info:")
                else:
                    value = found["value"]
                    shown = (
                        display.money(value) if "usd" in found["input"].rsplit(".", 1)[-1] else display.num(value, 4)
                    )
                    st.success(
                        f"**{md(found['system'])} and {md(found['baseline'])} cost the same per accepted request "
                        f"({where}) when {md(name)} is {shown}.** Searched "
                        f"{display.num(found['low'])} to {display.num(found['high'])} (`{found['input']}`).",
                        icon=":material/balance:",
                    )
                    st.metric(f"break-even {md(name)}", shown)
