"""The Scenario page's form of ``fleet.scaling`` (docs/model.md, "Autoscaling with a delay"): the delays, minimum
replicas, target utilisation, forecast lead and warm-up power of replicas started and stopped over a demand profile's
hours, with *Add autoscaling* and *Remove autoscaling*; without a profile, why there is nothing to scale over yet.

Every edit goes through the page's one edit path (:mod:`rackcost_app.fields`, :func:`rackcost_app.state.apply_edit`).
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from rackcost.scenario import edits
from rackcost.scenario.scaling_blocks import Scaling
from rackcost_app import fields, state

PATH = "fleet.scaling"
"""The YAML path of the block."""

STARTING_BLOCK: dict[str, Any] = {"scale_up_delay_s": 0.0}
"""What *Add autoscaling* starts from: no delay, so that the results are `park`'s until a delay is given (the
scale-up delay is the one field without a default; 0 is instant scaling, the model's neutral value)."""

NEEDS_PROFILE = (
    "Autoscaling starts and stops replicas as the rate moves over a demand profile's hours, and this scenario's "
    "demand is a day of points: give it an hourly profile first (Demand tab: *Use an hourly profile instead of the "
    "day's points*)."
)


def with_scaling(block: dict[str, Any] | None) -> Any:
    """The edit that gives the fleet a ``scaling`` block (None: removes it)."""
    return lambda data: edits.set_at(data, PATH, block)


def scaling_form() -> None:
    """The draft's ``fleet.scaling`` as a form with *Remove autoscaling*; without one, *Add autoscaling* (a demand
    profile needed: else the caption says why)."""
    draft = st.session_state[state.DRAFT]
    st.subheader("Autoscaling with a delay")
    if isinstance(state.get_at(draft, PATH), dict):
        st.caption(
            "Replicas that park (idle policy *park*) and replicas rented on demand are started and stopped as the "
            "profile's rate moves, minute by minute; a started replica serves only after the scale-up delay, so a "
            "rising hour loses the arrivals the loading replicas would have carried. The fleet's size is unchanged. "
            "The years and horizon tables carry the requests lost to the ramp and the replicas held or loading."
        )
        fields.block(Scaling, PATH, columns=3)
        st.button(
            "Remove autoscaling",
            key="scaling_remove",
            icon=":material/delete:",
            on_click=state.apply_edit,
            args=(with_scaling(None),),
            help="Replicas then serve the instant a demand point needs them (the idle policy's own model).",
        )
    elif not isinstance(draft.get("demand_profile"), dict):
        st.caption(NEEDS_PROFILE)
    else:
        st.caption("No autoscaling delay: a parking or on-demand replica serves the instant the rate needs it.")
        st.button(
            "Add autoscaling",
            key="scaling_add",
            icon=":material/trending_up:",
            on_click=state.apply_edit,
            args=(with_scaling(dict(STARTING_BLOCK)),),
            help="Starts with no delay (the results do not move); give the minutes a replica takes to load its "
            "weights, a scale-down window, a minimum of replicas or a forecast lead in the form that opens.",
        )
