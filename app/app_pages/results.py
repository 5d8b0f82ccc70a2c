"""Results page: each system at each demand point, the fleet, the charts (cost, latency cliff, curves), and a
simulation of one system at one point beside the analytic figures."""

from __future__ import annotations

import pandas as pd
import streamlit as st

import rackcost
from rackcost import display
from rackcost.analysis.referee import DEFAULT_ROUTING, figure_rows
from rackcost.model.queues.routers import router_names, router_of
from rackcost.model.sim.sim_work import SimulationTooLarge
from rackcost.reporting import breakdowns, horizon_charts
from rackcost.reporting import charts as chart_specs
from rackcost.reporting.chart_styles import same_lines, same_lines_note
from rackcost.reporting.result_sections import unserved_sentence
from rackcost_app import answer, charts, compute, layout, state, tables
from rackcost_app.safe import md

ss = st.session_state
key = ss[state.VALID_JSON]
valid = ss[state.VALID]
result = compute.evaluate(key)
points, systems = result.records["points"], result.records["systems"]
demand = [d["name"] for d in valid["demand"]]

st.title("Results")
st.caption(
    f"{md(state.get_at(valid, 'name'))} · the fleet is sized for {md(systems[0]['sizing_demand_point'])} demand · "
    "routing "
    f"{display.words(result.routing)}: {router_of(result.routing).words}"
)
if ss[state.PROBLEMS]:
    st.warning(
        "Your latest edits have problems (see the Scenario page): these results are for the last valid scenario.",
        icon=":material/warning:",
    )

if unserved := answer.unserved_of(result):  # systems the library could not evaluate, with why
    st.error(
        f"**Not in these results: {len(unserved)} system{'s' if len(unserved) > 1 else ''} cannot serve this "
        "scenario.**\n\n"
        + "\n".join(f"- **{md(u.get('system', '?'))}**: {md(unserved_sentence(u))}" for u in unserved),
        icon=":material/block:",
    )

st.markdown("**Blended cost per 1,000 accepted requests** over the demand day, per system")
for col, row in layout.in_rows(systems):
    col.metric(md(row["system"]), display.usd_per_1k_requests(row["blended_usd_per_accepted_request"]))
    col.caption(
        f"{md(row['provenance'])} figures · {display.count(row['racks'])} racks · "
        f"{display.count(row['accelerators'])} accelerators · "
        f"capex {display.money(row['capex_usd'])} · {display.power_kw(row['provisioned_it_kw'])} provisioned"
    )

if result.warnings:
    with st.expander(f"Warnings ({len(result.warnings)}): what makes the comparison not like for like", expanded=False):
        for warning in result.warnings:
            st.markdown(f"- {md(warning)}")

st.header("Each system at each demand point")
tables.show(points, tables.POINT_COLUMNS)
st.caption(
    "Rejected = offered - accepted within the SLO (late, or refused by admission control above capacity). "
    "Cost per hour = capital (capex x capital recovery factor / 8,760 h) + fixed opex + energy (wall kW x price)."
)

# the mix broken down, only where the scenario has request classes or a disaggregated system (the report's tables):
# sections of their own, as the points table is (in an expander they read as a detail of it)
if classes := result.records.get("classes"):
    served_scenario = compute.scenario(compute.served_json(key))
    st.header(f"Request classes ({len(breakdowns.mix_rows(served_scenario))})")
    st.caption("Each class's share, acceptance, p99 TTFT against its SLO and cost.")
    tables.show(breakdowns.mix_rows(served_scenario), tables.MIX_COLUMNS)
    class_rows = breakdowns.class_view_rows(served_scenario, classes)
    tables.show(class_rows, tables.CLASS_COLUMNS)
    st.caption(md(breakdowns.COST_SHARING) + " Rows *blended* are the day, hour-weighted.")
    for short in breakdowns.short_of_target(class_rows):
        st.warning(md(short), icon=":material/warning:")
if pools := result.records.get("pools"):
    st.header("Prefill and decode pools")
    st.caption("Each pool's fleet, utilisation, power and share of the cost.")
    tables.show(breakdowns.pool_fleet_rows(pools), tables.POOL_FLEET_COLUMNS)
    tables.show(pools, tables.POOL_POINT_COLUMNS)
    st.caption(
        "Each pool is sized for its part of the SLO and costed on its own; the system's rows above are both "
        "pools' together, and the pools' costs per accepted request add up to the system's."
    )

# a chart draws at most 10 systems and 12 demand points (the report's rule, rackcost.reporting.charts); the
# tables above and below give every one, and each chart's caption says what it leaves out
subset = chart_specs.chart_subset(
    systems,
    compute.scenario(compute.served_json(key)).baseline_name,
    valid["demand"],
    systems[0]["sizing_demand_point"],
)
drawn = set(subset.systems)


def left_out(points_too: bool = False) -> None:
    """A caption under a chart that leaves systems (or demand points) out."""
    if note := subset.note(points_too):
        st.caption(md(note))


if years := result.records.get("years"):  # a demand profile over years: the demand and each year's cost
    st.header("Demand and cost over the horizon, year by year")
    profiled = compute.scenario(compute.served_json(key))
    if profiled.demand_profile is not None:
        charts.show(
            st,
            "demand_over_time",
            key,
            horizon_charts.demand_over_time_chart(profiled.demand_profile.hourly_rates_rps()),
        )
    charts.show(st, "cost_by_year", key, horizon_charts.cost_by_year_chart(years, subset.systems))
    left_out()
    tables.show(years, tables.YEAR_COLUMNS)
    st.caption(
        "Each fleet is sized once, for the busiest hour of the horizon, and serves every hour of every year; a year's "
        "cost per accepted request is its cost over its accepted requests (the horizon's totals are on the Answer "
        "page). `rackcost plan` buys capacity quarter by quarter instead (the Buying plan page)."
    )

st.header("Cost per 1,000 accepted requests, by cost component")
cost_chart = chart_specs.cost_chart(points, subset.systems, subset.points)
charts.show(st, "cost", key, cost_chart)
left_out(points_too=True)

# the heading names the ways of paying the chart draws, and only those (each line's dash is one)
paid = list(dict.fromkeys(display.words(r["payment"]) for r in systems if r["system"] in drawn))
st.header(f"Cost per 1,000 accepted requests against demand scale: {', '.join(paid)}")
# one colour per system, keyed on its name in the scenario's order (of the systems drawn: every one up to 10), the
# same in every chart and after every edit
every_system = list(subset.systems)
scale_chart = chart_specs.demand_scale_chart(
    [r for r in compute.demand_scale(key) if r["system"] in drawn], systems=every_system
)
charts.show(st, "demand_scale", key, scale_chart)
left_out()
st.caption(
    "Every demand point scaled by one factor, the fleet sized again for each (the operating point stays the one "
    "chosen for the scenario's demand): where two lines cross, the two systems cost the same per accepted request; "
    "the dash of a line says how its system is paid."
)

st.header("Capacity at SLO against demand: where the latency cliff is")
cliff_rows = [r for r in compute.cliff(key) if r["system"] in drawn]
cliff_accepted, cliff_ttft = chart_specs.cliff_charts(
    cliff_rows,
    [d for d in valid["demand"] if d["name"] in set(subset.points)],
    valid["slo"]["ttft_limit_ms"],
    systems=every_system,
)
# one above the other, each as wide as the page: side by side, each with its legend, they were slivers at 1,024 px
charts.show(st, "cliff accepted", key, cliff_accepted, width="stretch")
charts.show(st, "cliff ttft", key, cliff_ttft, width="stretch")
left_out(points_too=True)
st.caption(
    md(
        "The provisioned fleet of each system as demand rises; grey dashed lines are the scenario's demand points, "
        "the red line the TTFT limit. Past capacity at SLO, admission control rejects the excess. "
        + same_lines_note(same_lines(cliff_rows, ("arrival_rps", "accepted_fraction", "ttft_p99_ms")))
    )
)

st.header("Operating-point curves against the SLO")
curves = [r for r in compute.curves(key) if r["system"] in drawn]
charts.show(
    st,
    "curves",
    key,
    chart_specs.curves_chart(curves, valid["slo"]["tpot_limit_ms"], systems=every_system),
    width="stretch",
)
left_out()
curve_lines = [r for r in curves if r["kind"] != "chosen"]
if same := same_lines(curve_lines, ("interactivity_tokens_per_s", "total_tokens_per_s_per_accelerator")):
    st.caption(md(same_lines_note(same)))
st.caption(
    "Right of the red line the TPOT limit is met. Measured points are dots (faded where TPOT or TTFT misses the "
    "SLO before queueing); the diamond is the operating point rackcost chose: the feasible point that needs the "
    "fewest replicas for the sizing demand."
)

st.header("Fleet and SLO operating point per system")
tables.show(systems, tables.SYSTEM_COLUMNS)
for note in compute.kv_limit_notes(key):
    st.info(md(f"KV-cache memory limits the operating point. {note}"), icon=":material/memory:")

st.header("Simulate: the fleet as sized, analytic beside simulated")
with st.expander("Run a discrete-event simulation of one system at one demand point"):
    sim_scenario = compute.scenario(compute.served_json(key))  # the systems served
    left, middle, right = st.columns(3)
    sim_system = left.selectbox("system", [row["system"] for row in systems], key="simulate_system")
    sim_point = middle.selectbox(
        "demand point", demand, index=demand.index(systems[0]["sizing_demand_point"]), key="simulate_point"
    )
    sim_routing = right.selectbox(
        "routing",
        list(router_names()),
        index=list(router_names()).index(getattr(sim_scenario.fleet, "routing", DEFAULT_ROUTING) or DEFAULT_ROUTING),
        key="simulate_routing",
        help="pooled: one central queue; least_outstanding: the replica with the fewest requests; power_of_two: the "
        "better of two drawn at random; round_robin; random.",
    )
    sim_requests = st.number_input(
        "requests",
        min_value=1_000,
        max_value=5_000_000,
        value=200_000,
        step=50_000,
        key="simulate_requests",
        help="Simulated requests over 5 independent replications (seed 0); 200,000 take about a second.",
    )
    if st.button("Simulate", key="simulate_run", icon=":material/play_arrow:"):
        with st.spinner("simulating..."):
            try:
                ss["simulate_result"] = (
                    key,
                    rackcost.simulate(
                        sim_scenario,
                        system=sim_system,
                        demand_point=sim_point,
                        requests=int(sim_requests),
                        routing=sim_routing,
                    ),
                )
            except SimulationTooLarge as exc:  # refused before it runs, with its estimate
                st.error(md(str(exc)))
    done = ss.get("simulate_result")
    if done is not None and done[0] == key:
        row = done[1][0]
        fleet = f"{row['replicas_serving']} replicas x {row['slots_per_replica']} slots"
        if row.get("layout") == "disaggregated":  # its two pools in tandem
            fleet = (
                f"{row['prefill_replicas_serving']} prefill replicas x {row['prefill_slots_per_replica']} slots, "
                f"{row['decode_replicas_serving']} decode replicas x {row['decode_slots_per_replica']} slots"
            )
        st.markdown(
            f"**{md(row['system'])}** at **{md(row['demand_point'])}**: {fleet}, {display.num(row['arrival_rps'])} "
            f"requests/s, routing **{row['routing']}**, {row['requests']:,} requests in {row['replications']} "
            f"{row['ci_method']}"
        )

        def shown(figure_key: str, value: float | None) -> str:
            if value is None:
                return "-"
            if figure_key.endswith("_fraction"):
                return display.pct(value, 2)
            return f"{value:,.0f}" if figure_key.endswith("_ms") else display.num(value)

        st.dataframe(
            pd.DataFrame(
                [
                    {
                        "figure": f["figure"],
                        "analytic": shown(f["key"], f["analytic"]),
                        "simulated": shown(f["key"], f["simulated"]),
                        "± 95%": shown(f["key"], f["ci95_halfwidth"]),
                        "relative error": "-"
                        if f["relative_error_fraction"] is None
                        else f"{100 * f['relative_error_fraction']:+.1f}%",
                    }
                    for f in figure_rows(row)
                ]
            ),
            hide_index=True,
        )
        if row["note"]:
            st.info(md(row["note"]), icon=":material/info:")
    st.caption(
        "The serving replicas at the point, each with the chosen concurrency's slots, service read from the curve at "
        "the replica's occupancy, Poisson arrivals at the admitted rate; accepted = waited within the queueing "
        "budget. Method and caveats: docs/model.md, Simulation."
    )
