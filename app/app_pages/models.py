"""Several models page: several models served on one fleet's systems, each model's cost per accepted request with
the shared racks' cost attributed by a rule (docs/model.md, "Several models, one fleet"; ``rackcost models`` gives
the same answer).

A models document is not a scenario: it lists the models (each with its workload, SLO and demand) over shared
systems, so this page reads its own document (a bundled one, or an upload) and leaves the Scenario page's scenario
alone. The tables are the library's (:mod:`rackcost.reporting.models_section`), from
:func:`rackcost.evaluate_models`.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

import rackcost
from rackcost import files
from rackcost.reporting import models_section
from rackcost.reporting.blocks import Table
from rackcost_app import compute, state
from rackcost_app.safe import md

ss = st.session_state
# (comments, not docstrings: Streamlit's magic would show a bare string on the page)
UPLOADED = "models_upload"  # session key: (file name, text) of the uploaded models document in use (tests put it here)

st.title("Several models")
st.caption(
    "Several models on one fleet: each model is sized on the system that serves it cheapest, the racks are shared "
    "between the models (or kept apart), and the shared racks' cost is split by a rule: by the node slots each "
    "model holds (reservation) or by the energy its nodes draw (usage). `rackcost models` gives the same answer."
)


def _read_upload() -> None:
    """The uploader's callback: the uploaded document is the page's until a bundled one is picked."""
    upload = ss.get("models_file")
    if upload is not None:
        ss[UPLOADED] = (upload.name, upload.getvalue().decode("utf-8", errors="replace"))


def _use_bundled() -> None:
    ss[UPLOADED] = None


bundled = [p.name for p in compute.bundled_models()]
left, right = st.columns(2)
with left:
    choice = st.selectbox("Bundled models document", bundled, key="models_bundled", on_change=_use_bundled)
with right:
    st.file_uploader(
        "Or upload one (YAML: workloads over shared systems)",
        type=["yaml", "yml"],
        key="models_file",
        on_change=_read_upload,
    )
rule_col, placement_col = st.columns(2)
with rule_col:
    rule = st.radio(
        "Shared racks' cost split by",
        ["document's rule", "reservation", "usage"],
        horizontal=True,
        key="models_rule",
        help="reservation: by the node slots each model holds (racks are bought and powered for what is "
        "provisioned); usage: by the energy each model's nodes draw.",
    )
with placement_col:
    placement = st.radio(
        "Racks",
        ["document's placement", "shared", "separate"],
        horizontal=True,
        key="models_placement",
        help="shared: the models' nodes share racks; separate: each model has racks of its own.",
    )


FIRST = (
    "model",
    "system",
    "blended_usd_per_accepted_request",
    "blended_usd_per_accepted_request_alone",
    "accepted_fraction",
    "simulated_accepted_fraction",
)
FLEET_FIRST = ("system", "models", "usd_per_day", "usd_per_day_apart", "racks", "racks_apart")
# (comments, not docstrings) each table's columns shown first: the decision's figures, which at 1,400 px sat past the
# right edge in the library's order (the CLI's); the rest follow in that order, the first column pinned on scroll


def show_table(table: Table, first: tuple[str, ...] = ()) -> None:
    """A table of the library's, its cells as it formats them; the columns named in ``first`` (keys) shown first."""
    headers = dict(table.columns)
    order = [headers[k] for k in first if k in headers] + [h for k, h in table.columns if k not in first]
    st.dataframe(
        pd.DataFrame(table.rows, columns=list(headers.values())),
        hide_index=True,
        width="stretch",
        column_order=order,
        column_config={headers[table.columns[0][0]]: st.column_config.Column(pinned=True)},
    )


name, text = ss[UPLOADED] if ss.get(UPLOADED) else (choice, None)
if text is not None:
    st.caption(f"Showing the uploaded {md(name)}; pick a bundled document above to go back to it.")
try:
    chosen_rule = None if rule.startswith("document") else rule
    chosen_placement = None if placement.startswith("document") else placement
    result = compute.evaluate_models(name, text, chosen_rule, chosen_placement)
except rackcost.ScenarioError as exc:
    st.error(f"{md(name)} cannot be evaluated:", icon=":material/error:")
    for problem in exc.problems:
        where = f"{md(problem.path)}: " if problem.path else ""
        line = f" (line {problem.line})" if problem.line else ""
        st.error(f"{where}{md(problem.message)}{line}", icon=":material/error:")
else:
    st.subheader(md(models_section.models_title(result["name"], result["placement"], result["rule"])))
    show_table(models_section.model_table(result["models"]), FIRST)
    st.subheader("The fleet: each system type's racks, shared or apart")
    show_table(models_section.fleet_table(result["fleets"]), FLEET_FIRST)
    for warning in result["warnings"]:
        st.warning(md(warning), icon=":material/warning:")
    csv_col, report_col = st.columns(2)
    csv_col.download_button(
        "Download each model's row (CSV)",
        data=files.csv_text(result["models"]),
        file_name=f"{state.export_stem(result['name'])}-models.csv",
        mime="text/csv",
        icon=":material/download:",
        key="models_csv",
        on_click="ignore",
    )
    report_col.download_button(  # the decision report, as rackcost report writes it of a models document
        "Download the report (HTML)",
        data=compute.models_report_html(name, text, chosen_rule, chosen_placement),
        file_name=f"{state.export_stem(result['name'])}-report.html",
        mime="text/html",
        icon=":material/description:",
        key="models_report",
        on_click="ignore",
    )
