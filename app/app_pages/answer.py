"""Answer page, the one the dashboard opens on: for the scenario as edited, the decision ``rackcost evaluate`` and the
report lead with (the buying plan's, for a scenario with a ``plan`` block), then which system is cheapest per accepted
request (over the day and at each demand point) and by how much, what each costs a year and over its service life,
what share of requests it serves within the SLO, and which systems cannot serve at all, with why."""

from __future__ import annotations

import streamlit as st

from rackcost import display
from rackcost.reporting.result_sections import unserved_sentence
from rackcost_app import answer, compute, layout, state, tables
from rackcost_app.safe import md

ss = st.session_state
# (comments, not docstrings: Streamlit's magic would show a bare string on the page)
LIFE_HELP = (
    "Cost per year x the service life (the longest of the owned systems'; capex is recovered over each system's own "
    "life with the cost of capital, so a year costs the same every year)."
)
HORIZON_HELP = (
    "The system alone over the demand profile's horizon, every hour with the demand's growth, as paid (the library's "
    "horizon table)."
)
key = ss[state.VALID_JSON]
valid = ss[state.VALID]
result = compute.evaluate(key)
if not result.records["systems"]:  # every system unserved (the library lists why): nothing to compare
    st.title("Answer")
    st.error(
        "**No system can serve this scenario.**\n\n"
        + "\n".join(
            f"- **{md(u.get('system', '?'))}**: {md(unserved_sentence(u))}" for u in answer.unserved_of(result)
        ),
        icon=":material/block:",
    )
    st.stop()
found = answer.answer(result, valid)

st.title("Answer")
st.caption(
    f"{md(state.get_at(valid, 'name'))}{' (edited)' if state.is_edited() else ''} · "
    f"{len(found.systems)} system{'s' if len(found.systems) != 1 else ''} · "
    f"{len(found.points)} demand point{'s' if len(found.points) != 1 else ''} · change any input on the Scenario page"
)
layout.load_problems_box(" Its text is in the Scenario page's *YAML* tab, where you can fix it and apply it.")
if ss[state.PROBLEMS]:
    st.warning(
        "Your latest edits have problems (see the Scenario page): this answer is for the last valid scenario.",
        icon=":material/warning:",
    )

# the decision every face leads with (rackcost evaluate's, the report's): a scenario with a buying plan is decided by
# its plan (the Buying plan page's, rackcost plan's), found here once per scenario; any other by the cheapest system
lead = layout.shown_decision(key)
if lead.plan is not None:
    plan = lead.plan
    st.subheader(md(lead.sentence))
    years = lead.horizon_years or 0
    p1, p2, p3 = layout.tiles(3)
    p1.metric(
        f"the plan over {display.num(years)} year{'' if years == 1 else 's'}",
        display.money(plan.total_cost_usd),
        help="The buying plan's cost over the demand profile's horizon (rackcost plan; the Buying plan page).",
    )
    p2.metric(
        "the sources it uses",
        str(len(lead.chosen)),
        help="; ".join(lead.chosen),
    )
    p3.metric(
        "against the best single source",
        "-" if plan.saving_fraction is None else f"-{display.pct(plan.saving_fraction)}",
        help="How much less the plan costs than the best single source alone, over the same horizon.",
    )
    st.caption(
        "The buying plan's decision: its quarters, years and chart are on the Buying plan page. Below, each system "
        "alone over the demand day, as the day's tables give it."
    )
    st.header("Each system alone over the demand day")
    st.markdown(md(found.sentence))
else:
    st.subheader(md(lead.sentence))

if (sure := compute.how_sure(key)) is not None:
    st.markdown(f"**How sure:** {md(sure)}")
    st.caption(
        "The Uncertainty page draws more samples, lists each input's spread and its source (the model's defaults "
        "where the scenario gives no distribution), and compares any pair."
    )

cheapest_row = next(r for r in found.systems if r["cheapest"])
c1, c2, c3 = layout.tiles(3)
c1.metric(
    f"cheapest over the day: {md(found.cheapest)}",
    display.usd_per_1k_requests(cheapest_row["blended_usd_per_accepted_request"]) + " per 1,000",
    delta=None
    if found.saving_fraction is None
    else f"-{display.pct(found.saving_fraction, 0)} vs {md(found.runner_up)}",
    delta_color="inverse",
    help=f"Blended cost per accepted request over the demand day, in {display.PER_1K_ACCEPTED}.",
)
c2.metric(
    "its cost per year",
    display.money(cheapest_row["usd_per_year"]),
    help="The demand day's cost (capital recovery, fixed opex, energy, rent or API) x 365.",
)
if found.horizon_years is not None:
    c3.metric(
        f"its cost over {display.num(found.horizon_years)} year{'' if found.horizon_years == 1 else 's'}",
        display.money(cheapest_row["usd_over_horizon"]),
        help=HORIZON_HELP if found.profile_horizon else LIFE_HELP,
    )
else:
    c3.metric(
        "accepted within SLO over the day",
        "-" if cheapest_row["accepted_fraction"] is None else display.pct(cheapest_row["accepted_fraction"]),
    )

if found.unserved:
    st.error(
        f"**{len(found.unserved)} system{'s' if len(found.unserved) > 1 else ''} cannot serve this scenario** and "
        f"{'are' if len(found.unserved) > 1 else 'is'} left out of the answer:\n\n"
        + "\n".join(f"- **{md(u.get('system', '?'))}**: {md(unserved_sentence(u))}" for u in found.unserved),
        icon=":material/block:",
    )

if lead.plan is None:
    st.header("Each system")
tables.show(
    [{**r, "system": ("★ " if r["cheapest"] else "") + r["system"]} for r in found.systems],
    answer.columns(found.horizon_years),
)
if found.horizon_years is not None and found.profile_horizon:
    st.caption(
        f"Cost over {display.num(found.horizon_years)} years: each system alone over the demand profile's horizon, "
        "hour by hour with the demand's growth, as paid (rackcost evaluate's horizon table)."
    )
elif found.horizon_years is not None:
    st.caption(
        f"Cost over {display.num(found.horizon_years)} years: the cost per year over the longest service life of the "
        "owned systems, so that every system is totalled over the same years (a rented system or an API is paid as "
        "it is used; an owned system's capex is recovered over its own life)."
    )

st.header("Cheapest at each demand point")
tables.show(found.points, answer.POINT_COLUMNS)

if result.warnings:
    n = len(result.warnings)
    with st.expander(f"Warnings ({n}): where the comparison is not like for like", expanded=False):
        for warning in result.warnings:
            st.markdown(f"- {md(warning)}")
