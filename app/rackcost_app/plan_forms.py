"""The Buying plan page's form of the ``plan`` block (docs/model.md, The buying plan): its capacity sources as an
editable table (kind, system, limits, lead time, prices: the columns the schema has) and the plan's own fields; for
a scenario with a demand profile and no plan, *Add a plan* (one source per system as it is paid for); without a
profile, why there can be no plan yet and where to add one.

The form sits beside the plan it changes, where the plan is run (it takes seconds, so on request): an edit asks for
the plan again. Every edit goes through the page's one edit path (:mod:`rackcost_app.fields`,
:func:`rackcost_app.state.apply_edit`).
"""

from __future__ import annotations

import streamlit as st

from rackcost.model.buying.source_kinds import kind_names
from rackcost.scenario import horizon_edits
from rackcost.scenario.plan_blocks import CapacitySource, PlanBlock
from rackcost_app import fields, state

NEEDS_PROFILE = (
    "A buying plan needs the demand hour by hour over its horizon, and this scenario's demand is a day of points: "
    "give it an hourly profile first (Scenario page, *Demand* tab: *Use an hourly profile instead of the day's "
    "points*), then add a plan here."
)


def add_plan() -> None:
    """*Add a plan* for a draft with a demand profile and no plan (one source per system as it is paid for); nothing
    without a profile (the page says why: :data:`NEEDS_PROFILE`)."""
    draft = st.session_state[state.DRAFT]
    if isinstance(draft.get("plan"), dict) or not isinstance(draft.get("demand_profile"), dict):
        return
    sources = horizon_edits.plan_sources_from_systems(draft.get("systems") or [])
    st.button(
        "Add a plan",
        key="plan_add",
        type="primary",
        icon=":material/add:",
        on_click=state.apply_edit,
        args=(horizon_edits.with_starting_plan,),
        disabled=not sources,
        help="One source per system as it is paid for: owned racks, on-demand rent at its price, an API; then add "
        "reserved or spot rows, limits and lead times in its table."
        if sources
        else "No system can be a source (a disaggregated system is not planned yet).",
    )


def sources_form() -> None:
    """The draft's plan: its sources as an editable table, then the plan's own fields."""
    draft = st.session_state[state.DRAFT]
    systems = [str(s.get("name")) for s in draft.get("systems") or [] if isinstance(s, dict)]
    columns, texts, wholes = fields.schema_columns(CapacitySource, kind=list(kind_names()), system=systems)
    fields.table(
        "plan.sources",
        columns,
        text_columns=texts,
        whole_columns=wholes,
        help_text="One row per way of getting capacity, each with one of the scenario's systems: owned racks (a "
        "system with costs; lead time, racks already installed), reserved for a term, on demand (start-up minutes), "
        "spot (preemptions, refill) at a price per accelerator-hour, or an API system. Leave a cell empty for its "
        "default; a field another kind does not read is refused with why. Add or delete rows with the table's "
        "controls.",
    )
    fields.block(PlanBlock, "plan", columns=4, covered=("sources",))
