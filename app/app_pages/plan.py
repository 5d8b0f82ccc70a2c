"""Plan page: the cheapest buying plan over the horizon (docs/dashboard.md), for a scenario with a ``plan`` block.

The plan takes seconds (HiGHS, then every hour of the horizon with the full model), so it runs when asked here, or
when the Answer page leads with it, once per scenario (:func:`rackcost_app.layout.shown_decision`: kept with the
scenario's one evaluation); an edit asks again. The words, tables and
chart are the report's (:mod:`rackcost.reporting.plan_section`, :mod:`rackcost.reporting.plan_charts`).
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from rackcost import files
from rackcost.reporting import plan_charts, plan_section
from rackcost.reporting.blocks import Table
from rackcost_app import charts, compute, layout, plan_forms, state
from rackcost_app.safe import md

ss = st.session_state
# (comments, not docstrings: Streamlit's magic would show a bare string on the page)
# session key: the scenario JSON whose plan was asked for (so a visit after it shows the plan; the Answer page asks
# too, as it leads with the plan)
ASKED = state.PLAN_ASKED
NO_PLAN = (
    "This scenario has no buying plan. With an hourly demand profile, *Add a plan* starts one from its systems (one "
    "source per system as it is paid for); docs/model.md, *The buying plan*, says how a plan is made, and the bundled "
    "scenario "
    "`deepseek-r1-three-year-buying-plan` (Scenario page) is a worked example."
)
NO_PROFILE = (
    "This scenario has a `plan` block but its `demand` is not an hourly profile: a plan needs the demand hour by hour "
    "over the horizon (`demand: {profile: ..., growth: ..., horizon_years: ...}`; docs/model.md, *The buying plan*)."
)

key = ss[state.VALID_JSON]
scenario = compute.scenario(key)
name = state.get_at(ss[state.VALID], "name") or "scenario"

st.title("Buying plan")
st.caption(
    "The cheapest mix of owned racks, reservations, on-demand and spot replicas and an API that serves every hour of "
    "the horizon within the SLO, against the best single source (`rackcost plan` gives the same plan)."
)
if ss[state.PROBLEMS]:
    st.warning(
        "Your latest edits have problems (see the Scenario page): this is the last valid scenario.",
        icon=":material/warning:",
    )


ROW_PX = 35  # a row of st.dataframe (and its header) at the default theme [px]
MOST_ROWS_SHOWN = 40  # a longer table (a ten-year plan's quarters) scrolls inside its frame [-]


def show_table(table: Table) -> None:
    """A table of the report, its cells as the report formats them, every row in view up to
    :data:`MOST_ROWS_SHOWN` (a three-year plan's 12 quarters scrolled in the default height of 10 rows)."""
    frame = pd.DataFrame(table.rows, columns=[header for _, header in table.columns])
    height = ROW_PX * (min(len(table.rows), MOST_ROWS_SHOWN) + 1) + 3
    st.dataframe(frame, hide_index=True, width="stretch", height=height)


profiled = isinstance(ss[state.DRAFT].get("demand_profile"), dict)
if isinstance(ss[state.DRAFT].get("plan"), dict):  # the plan's form, where the plan is run: an edit asks again
    with st.expander("The plan's sources and settings", expanded=True, icon=":material/edit:"):
        plan_forms.sources_form()

if scenario.plan is None:
    st.info(NO_PLAN + ("" if profiled else "\n\n" + plan_forms.NEEDS_PROFILE), icon=":material/info:")
    plan_forms.add_plan()
elif scenario.demand_profile is None:
    st.info(NO_PROFILE, icon=":material/info:")
else:
    sources = len(scenario.plan.sources)
    hours = scenario.demand_profile.hourly_rates_rps().size
    st.caption(f"{sources} sources over {hours:,} hours: the plan takes a few seconds to tens of seconds.")
    if st.button("Find the cheapest plan", key="plan_run", type="primary", icon=":material/event_upcoming:"):
        ss[ASKED] = key
    if ss.get(ASKED) == key:
        lead = layout.shown_decision(key)  # the reason is shown where there is no plan
        if (plan := lead.plan) is not None:
            st.subheader(md(lead.sentence))
            st.markdown("\n".join(f"- {md(item)}" for item in plan_section.holdings(plan)))
            charts.show(st, "plan-capacity", key, plan_charts.capacity_chart(plan), width="stretch")
            st.caption(md(plan_charts.description(plan)))
            st.header("Per quarter")
            show_table(plan_section.quarter_table(plan))
            st.download_button(
                "Download the plan per quarter (CSV)",
                data=files.csv_text(plan.periods.to_dict(orient="records")),
                file_name=f"{state.export_stem(name)}-plan.csv",
                mime="text/csv",
                icon=":material/download:",
                key="plan_csv",
                on_click="ignore",
            )
            st.header("Per year")
            show_table(plan_section.year_table(plan))
            st.caption(md(plan_section.solver_sentence(plan, scenario.plan.mip_rel_gap_fraction)))
