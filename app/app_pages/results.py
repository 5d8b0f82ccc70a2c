"""Results page: each system at each demand point, the fleet, the charts (cost, latency cliff, curves), and a
simulation of one system at one point beside the analytic figures."""

from __future__ import annotations

import altair as alt
import pandas as pd
import streamlit as st

import rackcost
from rackcost import display
from rackcost.referee import DEFAULT_ROUTING, figure_rows
from rackcost.schema import ROUTING_WORDS
from rackcost.simulation import ROUTINGS
from rackcost_app import charts, compute, layout, state, tables

ss = st.session_state
key = ss[state.VALID_JSON]
valid = ss[state.VALID]
result = compute.evaluate(key)
points, systems = result.records["points"], result.records["systems"]
demand = [d["name"] for d in valid["demand"]]

st.title("Results")
st.caption(
    f"{state.get_at(valid, 'name')} · the fleet is sized for {systems[0]['sizing_demand_point']} demand · routing "
    f"{result.routing}: {ROUTING_WORDS[result.routing]}"
)
if ss[state.PROBLEMS]:
    st.warning(
        "Your latest edits have problems (see the Scenario page): these results are for the last valid scenario.",
        icon=":material/warning:",
    )

st.markdown("**Blended cost per 1,000 accepted requests** over the demand day, per system")
for col, row in layout.in_rows(systems):
    col.metric(row["system"], display.usd_per_1k_requests(row["blended_usd_per_accepted_request"]))
    col.caption(
        f"{row['provenance']} figures · {display.count(row['racks'])} racks · "
        f"{display.count(row['accelerators'])} accelerators · "
        f"capex {display.money(row['capex_usd'])} · {display.num(row['provisioned_it_kw'])} kW provisioned"
    )

if result.warnings:
    with st.expander(f"Warnings ({len(result.warnings)}): what makes the comparison not like for like", expanded=True):
        for warning in result.warnings:
            st.markdown(f"- {warning}")

st.header("Each system at each demand point")
tables.show(points, tables.POINT_COLUMNS)
st.caption(
    "Rejected = offered - accepted within the SLO (late, or refused by admission control above capacity). "
    "Cost per hour = capital (capex x capital recovery factor / 8,760 h) + fixed opex + energy (wall kW x price)."
)

st.header("Cost per accepted request, by cost component")
COST_PLOT_PX = 480  # width of the bars' panel [px]: with the labels, about 800 px in all, inside a 1,100 px column
COST_LABEL_PX = 160  # longest system or demand point label before it is cut with an ellipsis [px]
COST_BAR_PX = 22  # height of a bar's band [px]
parts = pd.DataFrame(display.cost_components_per_request(points))
component_order = list(display.COST_COMPONENTS.values())
parts["order"] = parts["component"].map(component_order.index)
# horizontal bars, one row of panels per demand point: the chart's width does not grow with the number of systems
# (six systems side by side in a panel per point made it 1,868 px wide in a 1,100 px column); it grows downwards
cost_chart = (
    alt.Chart(parts)
    .mark_bar()
    .encode(
        y=alt.Y(
            "system:N", title=None, sort=[row["system"] for row in systems], axis=alt.Axis(labelLimit=COST_LABEL_PX)
        ),
        x=alt.X(
            "sum(usd_per_accepted_request):Q", title="cost per accepted request [USD]", axis=alt.Axis(format="$.2~g")
        ),
        color=alt.Color(
            "component:N",
            sort=component_order,
            title="cost component",
            legend=alt.Legend(orient="bottom", direction="horizontal"),
        ),
        order=alt.Order("order:Q"),
        tooltip=[
            alt.Tooltip("system:N"),
            alt.Tooltip("demand_point:N", title="demand point"),
            alt.Tooltip("component:N"),
            alt.Tooltip("usd_per_accepted_request:Q", title="USD per accepted request", format="$.3~g"),
        ],
    )
    .properties(width=COST_PLOT_PX, height=alt.Step(COST_BAR_PX))
    .facet(
        row=alt.Row(
            "demand_point:N",
            sort=demand,
            title="demand point",
            header=alt.Header(labelAngle=0, labelAlign="left", labelLimit=COST_LABEL_PX),
        )
    )
)
charts.show(st, "cost", key, cost_chart)

st.header("Cost per accepted request against demand scale: own, rent reserved, rent on demand")
scale = pd.DataFrame(compute.demand_scale(key))
scale["usd_per_1k"] = scale["blended_usd_per_accepted_request"] * display.REQUESTS_PER_1K
scale["label"] = scale["system"] + " (" + scale["payment"] + ")"
scale_chart = (
    alt.Chart(scale)
    .mark_line(point=True)
    .encode(
        x=alt.X("demand_scale:Q", scale=alt.Scale(type="log"), title="demand scale [x every demand point] (log)"),
        y=alt.Y("usd_per_1k:Q", title="blended cost per 1,000 accepted requests [USD]"),
        color=alt.Color("label:N", title="system (payment)", legend=alt.Legend(orient="bottom", columns=2)),
        tooltip=[
            alt.Tooltip("label:N", title="system"),
            alt.Tooltip("demand_scale:Q", title="demand scale", format=".3~g"),
            alt.Tooltip("usd_per_1k:Q", title="USD per 1,000 accepted requests", format="$.3~g"),
        ],
    )
    .properties(width=COST_PLOT_PX + COST_LABEL_PX, height=260)
)
charts.show(st, "demand_scale", key, scale_chart)
st.caption(
    "Every demand point scaled by one factor, the fleet sized again for each (the operating point stays the one "
    "chosen for the scenario's demand): where the lines cross, owning and renting cost the same per accepted request."
)

st.header("Capacity at SLO against demand: where the latency cliff is")
cliff = pd.DataFrame(compute.cliff(key))
# each demand point's label on a row of its own, above the panel: labels never overlap one another (rows
# LABEL_ROW_PX apart, more than a label's height) nor the curves (which used to run through them at 100% accepted)
LABEL_ROW_PX = 18
by_rate = sorted(valid["demand"], key=lambda d: d["arrival_rps"])
rules = pd.DataFrame(
    [
        {"demand_point": d["name"], "arrival_rps": d["arrival_rps"], "label_y": -LABEL_ROW_PX * (len(by_rate) - i)}
        for i, d in enumerate(by_rate)
    ]
)
x = alt.X("arrival_rps:Q", title="arrival rate [requests/s] (log)", scale=alt.Scale(type="log"))
demand_rules = alt.Chart(rules).mark_rule(strokeDash=[4, 4], color="gray").encode(x=x)
demand_labels = (
    alt.Chart(rules)
    .mark_text(align="left", dx=3, dy=-5, color="gray")
    .encode(x=x, y=alt.Y("label_y:Q", scale=None), text="demand_point:N")
)
tooltip = [
    alt.Tooltip("system:N"),
    alt.Tooltip("arrival_rps:Q", title="arrival [requests/s]", format=",.4~g"),
    alt.Tooltip("accepted_fraction:Q", title="accepted", format=".2%"),
    alt.Tooltip("ttft_p99_ms:Q", title="p99 TTFT [ms]", format=",.0f"),
    alt.Tooltip("capacity_at_slo_rps:Q", title="capacity at SLO [requests/s]", format=",.4~g"),
]
accepted = (
    alt.Chart(cliff)
    .mark_line()
    .encode(
        x=x,
        y=alt.Y("accepted_fraction:Q", title="accepted within SLO [share of offered]", axis=alt.Axis(format="%")),
        color=alt.Color("system:N", title="system"),
        tooltip=tooltip,
    )
)
ttft_limit = valid["slo"]["ttft_limit_ms"]
ttft = (
    alt.Chart(cliff)
    .mark_line()
    .encode(
        x=x,
        y=alt.Y(
            "ttft_p99_ms:Q",
            title="p99 TTFT incl. queueing [ms]",
            scale=alt.Scale(domain=[0, 1.5 * ttft_limit], clamp=True),
        ),
        color=alt.Color("system:N", title="system"),
        tooltip=tooltip,
    )
)
limit_rule = (
    alt.Chart(pd.DataFrame([{"ttft_limit_ms": ttft_limit}])).mark_rule(color="firebrick").encode(y="ttft_limit_ms:Q")
)
left, right = st.columns(2)
charts.show(
    left, "cliff accepted", key, (accepted + demand_rules + demand_labels).properties(height=320), width="stretch"
)
charts.show(
    right, "cliff ttft", key, (ttft + limit_rule + demand_rules + demand_labels).properties(height=320), width="stretch"
)
st.caption(
    "The provisioned fleet of each system as demand rises; dashed lines are the scenario's demand points, the red "
    "line the TTFT limit. Past capacity at SLO, admission control rejects the excess."
)

st.header("Operating-point curves against the SLO")
curve = pd.DataFrame(compute.curves(key))
curve["meets"] = curve["meets_slo"].map({True: "meets SLO", False: "misses SLO"})
limit = display.slo_interactivity_limit(valid["slo"]["tpot_limit_ms"])
xi = alt.X("interactivity_tokens_per_s:Q", title="interactivity [tokens/s per user] (log)", scale=alt.Scale(type="log"))
yi = alt.Y("total_tokens_per_s_per_accelerator:Q", title="throughput [total tokens/s per accelerator]")
ctip = [
    alt.Tooltip("system:N"),
    alt.Tooltip("kind:N"),
    alt.Tooltip("concurrency:Q", format=",.4~g"),
    alt.Tooltip("interactivity_tokens_per_s:Q", title="interactivity [tokens/s per user]", format=",.3~g"),
    alt.Tooltip("total_tokens_per_s_per_accelerator:Q", title="tokens/s per accelerator", format=",.4~g"),
    alt.Tooltip("ttft_ms:Q", title="TTFT [ms]", format=",.0f"),
    alt.Tooltip("meets:N", title="SLO (before queueing)"),
]
line = (
    alt.Chart(curve[curve["kind"] != "chosen"])
    .mark_line()
    .encode(x=xi, y=yi, color=alt.Color("system:N"), order="concurrency:Q", tooltip=ctip)
)
measured = (
    alt.Chart(curve[curve["kind"] == "measured"])
    .mark_point(filled=True, size=60)
    .encode(
        x=xi,
        y=yi,
        color="system:N",
        opacity=alt.Opacity("meets:N", scale=alt.Scale(domain=["meets SLO", "misses SLO"], range=[1.0, 0.35])),
        tooltip=ctip,
    )
)
chosen = (
    alt.Chart(curve[curve["kind"] == "chosen"])
    .mark_point(shape="diamond", size=260, filled=True, stroke="black", strokeWidth=1.5)
    .encode(x=xi, y=yi, color="system:N", tooltip=ctip)
)
slo = pd.DataFrame([{"interactivity_tokens_per_s": limit, "label": f"TPOT limit ({limit:.3g} tokens/s per user)"}])
slo_rule = alt.Chart(slo).mark_rule(color="firebrick", strokeWidth=2).encode(x=xi)
slo_label = (
    alt.Chart(slo).mark_text(align="left", dx=4, dy=-6, color="firebrick").encode(x=xi, y=alt.value(10), text="label:N")
)
charts.show(
    st, "curves", key, (line + measured + chosen + slo_rule + slo_label).properties(height=380), width="stretch"
)
st.caption(
    "Right of the red line the TPOT limit is met. Measured points are dots (faded where TPOT or TTFT misses the "
    "SLO before queueing); the diamond is the operating point rackcost chose: the feasible point that needs the "
    "fewest replicas for the sizing demand."
)

st.header("Fleet and SLO operating point per system")
tables.show(systems, tables.SYSTEM_COLUMNS)

st.header("Simulate: the fleet as sized, analytic beside simulated")
with st.expander("Run a discrete-event simulation of one system at one demand point"):
    sim_scenario = compute.scenario(key)
    left, middle, right = st.columns(3)
    sim_system = left.selectbox("system", [row["system"] for row in systems], key="simulate_system")
    sim_point = middle.selectbox(
        "demand point", demand, index=demand.index(systems[0]["sizing_demand_point"]), key="simulate_point"
    )
    sim_routing = right.selectbox(
        "routing",
        ROUTINGS,
        index=ROUTINGS.index(getattr(sim_scenario.fleet, "routing", DEFAULT_ROUTING) or DEFAULT_ROUTING),
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
    done = ss.get("simulate_result")
    if done is not None and done[0] == key:
        row = done[1][0]
        st.markdown(
            f"**{row['system']}** at **{row['demand_point']}**: {row['replicas_serving']} replicas x "
            f"{row['slots_per_replica']} slots, {display.num(row['arrival_rps'])} requests/s, routing "
            f"**{row['routing']}**, {row['requests']:,} requests in {row['replications']} {row['ci_method']}"
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
            st.info(row["note"], icon=":material/info:")
    st.caption(
        "The serving replicas at the point, each with the chosen concurrency's slots, service read from the curve at "
        "the replica's occupancy, Poisson arrivals at the admitted rate; accepted = waited within the queueing "
        "budget. Method and caveats: docs/model.md, Simulation."
    )
