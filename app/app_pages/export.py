"""Export page: the edited scenario as YAML, the results as CSV (per table) and JSON."""

from __future__ import annotations

import datetime as dt

import streamlit as st

from rackcost.analysis.montecarlo import MAX_CELLS, cells
from rackcost.evaluation.results import TABLES
from rackcost_app import compute, state
from rackcost_app.safe import md

ss = st.session_state
# Session key of the last report built: ((scenario JSON, samples, seed, date), HTML bytes). A comment, not a
# docstring: a page script writes a string on its own line to the page (Streamlit magic).
REPORT = "export_report"
key = ss[state.VALID_JSON]
result = compute.evaluate(key)
name = state.get_at(ss[state.VALID], "name") or "scenario"
stem = state.export_stem(name)

st.title("Export")
st.caption(
    f"Everything here is for *{md(name)}*, the last valid scenario, with your edits. Loading the YAML back "
    "(`rackcost evaluate FILE`, or the Scenario page) gives the same scenario and the same results."
)

st.header("Scenario")
st.download_button(
    "Download the scenario (YAML)",
    data=compute.scenario_yaml(key),
    file_name=f"{stem}.yaml",
    mime="application/x-yaml",
    icon=":material/description:",
    key="download_yaml",
    on_click="ignore",
)
st.caption(
    "Values you changed are labelled in its `figures:` block as edited in the dashboard, with the value the file "
    "gave and its source. Comments of the original file are not kept."
)
if ss[state.PROBLEMS]:
    st.warning(
        "Your latest edits have problems, so the YAML above is the last valid scenario. Your edits as typed, "
        "problems included, are here (they will not load until fixed):",
        icon=":material/warning:",
    )
    st.download_button(
        "Download my edits as typed (YAML, not valid yet)",
        data=state.draft_yaml(),
        file_name=f"{stem}-draft.yaml",
        mime="application/x-yaml",
        key="download_draft",
        on_click="ignore",
    )

st.header("Report")
# the report runs the model, a Monte Carlo and a tornado and draws every chart (seconds for a large scenario): it is
# built when asked for, once per scenario, samples, seed and day, and kept for this session (not on every visit)
has_distributions = bool(compute.scenario(key).distributions)
page_samples = int(ss.get("uncertainty_samples", 10_000))
# at most the Monte Carlo's cell bound (samples x systems x demand points), as the report itself chooses
most = max(1, MAX_CELLS // cells(compute.scenario(key), 1))
asked = (
    key,
    min(page_samples, most) if has_distributions else None,
    int(ss.get("uncertainty_seed", 0)),
    dt.date.today().isoformat(),
)
if has_distributions and page_samples > most:
    st.caption(
        f"The report draws {most:,} samples, not the Uncertainty page's {page_samples:,}: a report draws at most "
        f"{MAX_CELLS:,} samples x systems x demand points."
    )
built = ss.get(REPORT)
if st.button("Build the report", key="build_report", icon=":material/article:"):
    with st.spinner("Writing the report..."):
        ss[REPORT] = built = (asked, compute.report_html(*asked))
if built is not None and built[0] == asked:
    st.download_button(
        "Download report (HTML)",
        data=built[1],
        file_name=f"{stem}-report.html",
        mime="text/html",
        icon=":material/download:",
        key="download_report",
        on_click="ignore",
    )
elif built is not None:
    st.info("The scenario, samples or seed changed since the report was built: build it again.", icon=":material/info:")
st.caption(
    "Built when you press the button (it takes seconds for a large scenario), then offered for download. "
    "One self-contained HTML file for people who will never run rackcost: the answer in a sentence, the tables and "
    "charts behind it, the uncertainty (with the Uncertainty page's samples and seed), every figure's source and "
    "the scenario itself. It opens offline and prints a section per page. The same file as "
    "`rackcost report FILE.yaml --samples N --seed S` on the exported YAML."
)

st.header("Results")
st.download_button(
    "All results (JSON)",
    data=result.to_json(),
    file_name=f"{stem}-results.json",
    mime="application/json",
    icon=":material/data_object:",
    key="download_json",
    on_click="ignore",
)
labels = {
    "points": "Each system at each demand point (CSV)",
    "systems": "Fleet and operating point per system (CSV)",
    "comparison": "Claim vs decision (CSV)",
    "classes": "Each request class at each demand point (CSV)",
    "pools": "Each prefill and decode pool at each demand point (CSV)",
}
# the classes and pools tables only where the scenario has request classes or a disaggregated system
exported = [*TABLES, *(t for t in ("classes", "pools") if result.records.get(t))]
cols = st.columns(len(exported))
for col, table in zip(cols, exported, strict=True):
    with col:
        st.download_button(
            labels[table],
            data=result.to_csv(table),
            file_name=f"{stem}-{table}.csv",
            mime="text/csv",
            icon=":material/table:",
            key=f"download_{table}",
            on_click="ignore",
        )
st.caption("Column names carry their units (`_usd_per_hour`, `_kw`, `_rps`, `_fraction`); docs/glossary.md lists them.")
