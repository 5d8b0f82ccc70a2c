"""Hardware mix page: the cheapest mix of the scenario's systems, each request class routed to the system that serves
it cheapest, beside each system alone (docs/model.md, "A mix of hardware"; ``rackcost mix`` gives the same answer).

The words and tables are the library's (:mod:`rackcost.reporting.mix_section`), from :func:`rackcost.hardware_mix`
of the last valid scenario; the search evaluates each system on every subset of the classes (a fraction of a second
for a few classes), so it runs when asked, and again after an edit once asked.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

import rackcost
from rackcost import display, files
from rackcost.analysis.hardware_mix import MAX_MIX_CELLS, NO_CLASSES_NOTE
from rackcost.reporting import mix_section
from rackcost.reporting.blocks import Table
from rackcost_app import compute, state
from rackcost_app.safe import md

ss = st.session_state
# (comments, not docstrings: Streamlit's magic would show a bare string on the page)
ASKED = "mix_asked"  # session key: the mix was asked for (it follows the scenario's edits from then on)
SLICES = "mix_slices"  # session key: the slices of each class's load

key = ss[state.VALID_JSON]
scenario = compute.scenario(key)
name = state.get_at(ss[state.VALID], "name") or "scenario"
classes = len(scenario.workload.classes or (None,))

st.title("Hardware mix")
st.caption(
    "Which of the scenario's systems should serve which request class: every system is evaluated on every subset "
    "of the classes (their share of the demand, within the SLO, each with a fleet of its own), the cheapest "
    "assignment is found exactly, and each system alone is shown beside it (`rackcost mix` gives the same answer)."
)
if ss[state.PROBLEMS]:
    st.warning(
        "Your latest edits have problems (see the Scenario page): this is the last valid scenario.",
        icon=":material/warning:",
    )
if classes == 1:
    st.info(
        "This workload has no request classes: the mix routes it whole to the best system, unless its load is cut "
        "into slices below. Split it into classes on the Scenario page (*Workload and SLO* tab).",
        icon=":material/info:",
    )
most_slices = max(1, int(round(MAX_MIX_CELLS ** (1.0 / classes))) - 1)
while (most_slices + 1) ** classes > MAX_MIX_CELLS and most_slices > 1:
    most_slices -= 1
slices = st.number_input(
    "slices of each class's load",
    min_value=1,
    max_value=most_slices,
    value=min(int(ss.get(SLICES, 1)), most_slices),
    step=1,
    key=SLICES,
    help="1: each class goes whole to one system. N: each class's load is cut into N equal slices, each routed on "
    f"its own. Each system is evaluated on (N + 1)^classes - 1 subsets, at most {MAX_MIX_CELLS - 1}.",
)
if st.button("Find the cheapest mix", key="mix_run", type="primary", icon=":material/join:"):
    ss[ASKED] = True


def show_table(table: Table) -> None:
    """A table of the library's, its cells as it formats them."""
    st.dataframe(pd.DataFrame(table.rows, columns=[h for _, h in table.columns]), hide_index=True, width="stretch")


if ss.get(ASKED):
    try:
        found = compute.hardware_mix(key, int(slices))
    except rackcost.ScenarioError as exc:
        for problem in exc.problems:
            where = f"{md(problem.path)}: " if problem.path else ""
            st.error(f"{where}{md(problem.message)}", icon=":material/error:")
    else:
        for note in found.notes:
            if classes == 1 and note == NO_CLASSES_NOTE:  # said above, with where to add classes
                continue
            st.info(md(note[:1].upper() + note[1:] + "."), icon=":material/info:")
        st.subheader(md(mix_section.mix_sentence(found)))
        st.header("The mix")
        show_table(mix_section.fleet_table(found))
        st.header("Each system alone, serving every class")
        show_table(mix_section.alone_table(found))
        if (per_class := mix_section.class_table(found)) is not None:
            st.header(f"Each class on each system alone, its own fleet: cost [{display.PER_1K_ACCEPTED}]")
            show_table(per_class)
        st.caption(f"{found.evaluations} evaluations of the scenario cut to one system and a subset of the classes.")
        st.download_button(
            "Download the mix (CSV)",
            data=files.csv_text(mix_section.mix_rows(found)),
            file_name=f"{state.export_stem(name)}-mix.csv",
            mime="text/csv",
            icon=":material/download:",
            key="mix_csv",
            on_click="ignore",
        )
