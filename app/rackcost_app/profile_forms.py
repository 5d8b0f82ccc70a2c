"""The Demand tab's form of a demand profile (``demand_profile``, docs/model.md, Demand over time): growth, horizon,
the percentiles that make the named points and the arrival SCV as fields; the hourly rates as a week's table (24
hours down, Monday to Sunday across) or a CSV upload; and the way between a day's points and a profile.

The draft holds a profile as the loader dumps it: ``demand`` its three named points, ``demand_profile`` the profile.
Every edit of the profile goes through the page's one edit path (:func:`rackcost_app.state.set_value`,
:func:`rackcost_app.state.apply_edit`), whose validation derives the points from the profile again
(:func:`rackcost.scenario.horizon_edits.points_follow_profile`), so the points, the results and the years follow.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from rackcost.model.workload.profile import HOURS_PER_WEEK
from rackcost.scenario import horizon_edits
from rackcost.scenario.profile_blocks import DemandProfile, ProfileGrowth, ProfilePoints, profile_csv_rates
from rackcost_app import fields, state
from rackcost_app.safe import md

PROFILE = "demand_profile"
RATES = f"{PROFILE}.profile.hourly_arrival_rps"
DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
GROWTH_KINDS: dict[str, str] = {
    "none": "none: every year repeats the profile",
    "per_year_fraction": "per year",
    "per_quarter_fraction": "per quarter",
    "per_year_table": "each year its own",
}
"""The growth's forms (``demand_profile.growth``'s one key) and their words."""
CSV_MESSAGE = "profile_csv_message"
"""Session key: (generation, kind, text) of the last CSV upload's outcome."""


def _growth_kind(growth: Any) -> str:
    if isinstance(growth, dict):
        for kind in ("per_year_fraction", "per_quarter_fraction", "per_year_table"):
            if kind in growth:
                return kind
    return "none"


def _on_growth_kind(key: str) -> None:
    """Growth of another form, starting from the one given (a rate per year becomes each year's, or per quarter)."""
    ss = st.session_state
    chosen = ss[key]
    profile = state.get_at(ss[state.DRAFT], PROFILE) or {}
    growth = profile.get("growth") if isinstance(profile.get("growth"), dict) else {}
    was = next((v for v in growth.values() if isinstance(v, int | float) and not isinstance(v, bool)), None)
    table = growth.get("per_year_table")
    if was is None and isinstance(table, list) and table:
        was = table[0]
    rate = float(was) if was is not None else 0.0
    years = int(profile.get("horizon_years") or 1)
    if chosen == "none":
        state.set_value(f"{PROFILE}.growth", None)
    elif chosen == "per_year_table":
        state.set_value(f"{PROFILE}.growth", {"per_year_table": [rate] * years})
    elif chosen == "per_quarter_fraction":
        state.set_value(
            f"{PROFILE}.growth",
            {chosen: (1.0 + rate) ** 0.25 - 1.0 if growth.get("per_year_fraction") is not None else rate},
        )
    else:
        state.set_value(
            f"{PROFILE}.growth",
            {chosen: (1.0 + rate) ** 4 - 1.0 if growth.get("per_quarter_fraction") is not None else rate},
        )


def _on_year_growth(path: str, key: str) -> None:
    state.set_value(path, float(st.session_state[key]))


def _growth(profile: dict[str, Any]) -> None:
    growth = profile.get("growth")
    kind = _growth_kind(growth)
    key = f"{state.widget_key(f'{PROFILE}.growth')}|kind|{kind}"  # drawn anew when the draft's form changes
    st.selectbox(
        "growth",
        list(GROWTH_KINDS),
        index=list(GROWTH_KINDS).index(kind),
        format_func=GROWTH_KINDS.get,
        key=key,
        on_change=_on_growth_kind,
        args=(key,),
        help="Every hour's rate grows geometrically over the horizon: by a share per year or per quarter, "
        "compounding hour by hour, or by each year's own share. Changing the form converts the rate given.",
    )
    if kind in ("per_year_fraction", "per_quarter_fraction"):
        fields.field(ProfileGrowth, kind, f"{PROFILE}.growth.{kind}")
    elif kind == "per_year_table":
        for year, value in enumerate(growth.get("per_year_table") or []):
            path = f"{PROFILE}.growth.per_year_table[{year}]"
            year_key = state.widget_key(path)
            st.number_input(
                f"growth in year {year + 1} [share 0-1]",
                value=float(value) if isinstance(value, int | float) else None,
                step=0.01,
                format="%g",
                key=year_key,
                on_change=_on_year_growth,
                args=(path, year_key),
            )
    fields.block_problems(f"{PROFILE}.growth")


def _on_week(key: str) -> None:
    ss = st.session_state
    rates = list(ss[f"base|{key}"])
    for row, changes in (ss[key].get("edited_rows") or {}).items():
        for day, value in changes.items():
            if day in DAYS and isinstance(value, int | float):
                rates[DAYS.index(day) * 24 + int(row)] = float(value)
    state.set_value(RATES, rates)


def _week(rates: list[Any]) -> None:
    """The 168 hourly rates as a table of 24 hours down and the seven days across."""
    key = state.widget_key(RATES)
    if key not in st.session_state or f"base|{key}" not in st.session_state:
        st.session_state[f"base|{key}"] = list(rates)  # the editor's edits are relative to the data it was given
    base = st.session_state[f"base|{key}"]
    frame = pd.DataFrame(
        {day: [float(base[d * 24 + h]) for h in range(24)] for d, day in enumerate(DAYS)},
        index=pd.Index([f"{h:02d}:00" for h in range(24)], name="hour"),
    )
    st.data_editor(
        frame,
        key=key,
        num_rows="fixed",
        width="stretch",
        column_config={
            day: st.column_config.NumberColumn(f"{day} [requests/s]", min_value=0.0, format=fields.INPUT_TABLE_FORMAT)
            for day in DAYS
        },
        on_change=_on_week,
        args=(key,),
    )


def _on_csv(key: str) -> None:
    ss = st.session_state
    uploaded = ss.get(key)
    if uploaded is None:
        return
    rates, problems = profile_csv_rates(uploaded.getvalue())
    generation = ss.get(state.GENERATION, 0)
    if problems:
        text = f"{uploaded.name} was not used: " + "; ".join(problems)
        ss[CSV_MESSAGE] = (generation, "error", text)
        return
    state.set_value(RATES, rates)
    ss[CSV_MESSAGE] = (
        ss.get(state.GENERATION, 0),
        "success",
        f"{len(rates):,} hourly rates read from {uploaded.name}.",
    )


def _rates(profile: dict[str, Any]) -> None:
    rates = (profile.get("profile") or {}).get("hourly_arrival_rps") or []
    st.markdown("**Hourly arrival rates** of the profile (Monday 00:00 first)")
    if len(rates) == HOURS_PER_WEEK:
        _week(rates)
    else:
        st.caption(
            f"{len(rates):,} hourly rates ({len(rates) // HOURS_PER_WEEK} weeks or a year): too many for a table; "
            "replace them with a CSV below."
        )
    key = f"{state.widget_key(RATES)}|csv"
    st.file_uploader(
        "Replace the rates with a CSV: one column of rates (a header of any name, or none), or an hour or timestamp "
        "column and arrival_rps",
        type=["csv", "txt"],
        key=key,
        on_change=_on_csv,
        args=(key,),
        help="168 hourly rates (a week, Monday 00:00 first), a whole number of weeks, or 8,760 (a year), each 0 to "
        "1e7 requests/s (docs/model.md, Demand over time: CSV).",
    )
    said = st.session_state.get(CSV_MESSAGE)
    if said and said[0] == st.session_state.get(state.GENERATION, 0):
        (st.success if said[1] == "success" else st.error)(md(said[2]))
    for problem in state.problems_at(RATES) + state.problems_at(RATES, exact=False):
        st.error(md(problem.message), icon=":material/error:")


def _with_flat_week(data: dict[str, Any]) -> dict[str, Any]:
    try:
        return horizon_edits.with_flat_week_profile(data)
    except ValueError:  # no points to start from (the day's points have problems): nothing changes
        return data


def profile_form() -> None:
    """The profile's fields and rates, or the button that starts one from the day's points."""
    draft = st.session_state[state.DRAFT]
    profile = draft.get(PROFILE)
    if not isinstance(profile, dict):
        st.button(
            "Use an hourly profile instead of the day's points",
            key="profile_start",
            icon=":material/timeline:",
            on_click=state.apply_edit,
            args=(_with_flat_week,),
            help="Starts a profile from the points as a flat week (each day the points end to end, lowest rate from "
            "00:00, every hour the points' time-weighted mean), one year, no growth: then give it growth, a horizon "
            "of years and its own rates. A buying plan needs one.",
        )
        return
    st.subheader("Demand profile")
    c1, c2 = st.columns(2)
    with c1:
        _growth(profile)
    with c2:
        fields.field(DemandProfile, "horizon_years", f"{PROFILE}.horizon_years")
        fields.field(DemandProfile, "arrival_scv", f"{PROFILE}.arrival_scv")
    st.markdown("**Percentiles of the horizon's hours** that make the named points (quiet, normal, peak)")
    fields.block(ProfilePoints, f"{PROFILE}.points", columns=3)
    _rates(profile)
    fields.block_problems(PROFILE, ("horizon_years", "arrival_scv"), covered=("growth", "points", "profile"))
    st.button(
        "Use the day's points instead of the profile",
        key="profile_drop",
        on_click=state.apply_edit,
        args=(horizon_edits.without_profile,),
        help="Keeps the three points the profile makes now as the day's demand, editable one by one; the profile, "
        "its years and growth go (a buying plan needs them).",
    )
