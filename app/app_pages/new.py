"""New scenario page: catalogue systems, a request shape, an SLO, demand and each system's result files in, a
sourced scenario out (previewed, downloaded, or opened for editing), as ``rackcost new`` writes it
(:mod:`rackcost.importers.new_scenario`)."""

from __future__ import annotations

import streamlit as st

from rackcost.errors import ScenarioError
from rackcost.importers.new_scenario import (
    DemandSpec,
    NewScenarioError,
    NewScenarioSpec,
    build_scenario,
    read_curve_files,
    scenario_text,
)
from rackcost.scenario.catalog import catalog
from rackcost_app import state
from rackcost_app.safe import md

ss = st.session_state
# Session keys (comments, not docstrings: a page script writes a lone string to the page). FILES: entry -> the
# uploaded result files as (name, bytes), put there by each uploader's callback (tests put them there directly, as
# AppTest cannot drive an uploader); BUILT: (YAML text, notes) of the last scenario built, or (None, problems).
FILES = "new_files"
BUILT = "new_built"
TIERS = ["hyperscaler-owned", "neocloud-owned", "rental-3-year"]
entries = catalog().entries


def _keep_files(entry: str) -> None:
    uploaded = ss.get(f"new_upload_{entry}") or []
    ss.setdefault(FILES, {})[entry] = [(f.name, f.getvalue()) for f in uploaded]


st.title("New scenario")
st.caption(
    "A scenario from the catalogue (`rackcost catalog`) and the curves measured on each system, every figure with "
    "its source, validated before you get it: what `rackcost new` writes (docs/catalog.md)."
)
left, right = st.columns(2)
with left:
    model = st.text_input("Model", value="deepseek-ai/DeepSeek-R1", key="new_model")
    input_tokens = st.number_input("Input tokens per request", 1, 10_000_000, 1024, key="new_isl")
    output_tokens = st.number_input("Output tokens per request", 1, 10_000_000, 1024, key="new_osl")
    ttft = st.number_input("SLO: TTFT limit [ms]", 0.001, 1e7, 2000.0, key="new_ttft")
    tpot = st.number_input("SLO: TPOT limit [ms]", 0.001, 1e7, 80.0, key="new_tpot")
with right:
    demand = []
    for point, rps, hours in (("quiet", 2.0, 8.0), ("normal", 5.6, 10.0), ("peak", 8.0, 6.0)):
        rate_col, hours_col = st.columns(2)
        rate = rate_col.number_input(f"{point} [requests/s]", 1e-6, 1e7, rps, key=f"new_rps_{point}")
        day = hours_col.number_input(f"{point} [hours a day]", 0.0, 24.0, hours, key=f"new_hours_{point}")
        demand.append(DemandSpec(point, float(rate), float(day)))
    tier = st.selectbox("Rented at InferenceX's price tier", TIERS, key="new_tier")
    any_model = st.checkbox("Keep curves of another model", key="new_any_model")

chosen = st.multiselect(
    "Systems (catalogue entries)", list(entries), format_func=lambda k: f"{k}: {entries[k].name}", key="new_systems"
)
for entry in chosen:
    st.file_uploader(
        f"Result files of {md(entries[entry].name)} (InferenceX JSON, rackcost's CSV table, or MLPerf's "
        "summary_results.json with its runs' mlperf_log_summary.txt)",
        type=["json", "csv", "txt"],
        accept_multiple_files=True,
        key=f"new_upload_{entry}",
        on_change=_keep_files,
        args=(entry,),
    )

if st.button("Build the scenario", key="new_build", type="primary", disabled=not chosen):
    files = ss.get(FILES, {})
    curves = {entry: read_curve_files(files.get(entry, [])).curves for entry in chosen}
    spec = NewScenarioSpec(
        model=model,
        input_tokens=int(input_tokens),
        output_tokens=int(output_tokens),
        ttft_limit_ms=float(ttft),
        tpot_limit_ms=float(tpot),
        demand=tuple(demand),
        systems=tuple(chosen),
        tier=str(tier),
        any_model=bool(any_model),
    )
    try:
        data, notes = build_scenario(spec, curves)
        ss[BUILT] = (scenario_text(data, "new scenario", "the rackcost dashboard's New scenario page"), notes)
    except NewScenarioError as exc:
        ss[BUILT] = (None, exc.problems)
    except ScenarioError as exc:
        ss[BUILT] = (None, [str(p) for p in exc.problems])

built = ss.get(BUILT)
if built is not None:
    text, said = built
    for line in said:
        (st.info if text is not None else st.error)(md(line))
    if text is not None:
        st.download_button(
            "Download the scenario (YAML)",
            data=text,
            file_name="new-scenario.yaml",
            key="new_download",
            on_click="ignore",
        )
        if st.button("Open it as the scenario to edit", key="new_open"):
            # as an uploaded file: asked first when the scenario being edited has edits (nothing typed is lost)
            state.ask_to_replace("upload", text.encode("utf-8"), "new-scenario.yaml")
            st.rerun()
        st.code(text, language="yaml")
