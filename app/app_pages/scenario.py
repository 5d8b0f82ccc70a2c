"""Scenario page: pick or upload a scenario and edit every input; problems appear next to the field they concern."""

from __future__ import annotations

import hashlib
from typing import Any

import pandas as pd
import streamlit as st
import yaml

import rackcost
from rackcost import display
from rackcost.importers import into_scenario
from rackcost.reporting import horizon_charts
from rackcost.scenario import edits, memory_blocks, schema
from rackcost.scenario.catalog import catalog
from rackcost.scenario.loading import DEFAULT_SCENARIO
from rackcost_app import (
    charts,
    class_forms,
    compute,
    fields,
    imports,
    layout,
    pool_forms,
    profile_forms,
    scaling_forms,
    state,
    system_forms,
    tables,
)
from rackcost_app.safe import md

ss = st.session_state
imports.process_pending()  # (a pending scenario upload was read by streamlit_app.py, before the sidebar)

st.title("Scenario")
st.caption(
    "Pick a bundled scenario or upload your own, then change the numbers you doubt. Every edit is checked at "
    "once; results always come from the last valid scenario, and nothing you type is thrown away."
)

# ---- where the scenario comes from ---------------------------------------------------------------------------


def _load_selected() -> None:
    state.ask_to_replace("bundled", ss["bundled"], ss["bundled"])


def _on_upload() -> None:
    uploaded = ss.get("uploader")
    if uploaded is not None:
        ss[state.PENDING_UPLOAD] = (uploaded.getvalue(), uploaded.name)


left, right = st.columns(2)
with left:
    names = [p.name for p in rackcost.bundled_scenarios()]
    current = ss[state.FILE_NAME]
    st.selectbox(
        "Bundled scenario",
        names,
        index=names.index(current) if current in names else names.index(DEFAULT_SCENARIO),
        key="bundled",
        help="Scenarios shipped with rackcost; every figure in them names its source.",
    )
    st.button(
        "Load this scenario",
        key="load_bundled",
        on_click=_load_selected,
        help="Replaces the scenario you are editing; with edits, it asks first.",
    )
with right:
    # no type filter and a generous size limit: every file reaches state.handle_upload, which refuses it with a
    # message of its own (a file the uploader refused itself would leave the previous file's message on screen)
    st.file_uploader(
        "Or upload a scenario YAML file (at most 1 MB)",
        key="uploader",
        max_upload_size=state.MAX_UPLOAD_MB,
        on_change=_on_upload,
        help="A .yaml or .yml text file of at most 1 MB; anything else is refused with the reason.",
    )

# ---- benchmark results into a system's operating points -------------------------------------------------------


def _on_import_upload() -> None:
    ss[imports.PENDING_IMPORT] = [(f.name, f.getvalue()) for f in ss.get("import_uploader") or []]


def _replace(curves: list, curve_key: str, target_key: str) -> None:
    imports.replace_points(curves[ss[curve_key]], ss[target_key])


def _add(curves: list, curve_key: str, name_key: str, template_key: str) -> None:
    imports.add_system(curves[ss[curve_key]], ss[name_key] or "", ss[template_key])


import_files = ss.get(imports.IMPORT_FILES) or []
with st.expander(
    "Import benchmark results: InferenceX JSON files or a CSV table",
    expanded=bool(import_files),
    icon=":material/upload_file:",
):
    st.caption(
        "Turn benchmark result files into a system's operating points, with the benchmark's conditions kept as "
        "provenance. Several InferenceX result files (raw, aggregate or arrays of aggregates), or one CSV table "
        "with one operating point per row (columns in docs/importers.md)."
    )
    st.file_uploader(
        f"Result files (.json, several; or one .csv; at most {imports.MAX_IMPORT_MB} MB each)",
        type=["json", "csv"],
        accept_multiple_files=True,
        key="import_uploader",
        max_upload_size=imports.MAX_IMPORT_MB,
        on_change=_on_import_upload,
    )
    # options live in session state under import_*, so they survive a visit to another page (widgets: w_import_*)
    for option, default in imports.OPTION_DEFAULTS.items():
        ss.setdefault(option, default)
    o1, o2, o3, o4, o5 = st.columns(5)
    percentiles = ["p99", "median", "p95", "p90", "p75"]
    ss["import_percentile"] = o1.selectbox(
        "TTFT and TPOT at",
        percentiles,
        index=percentiles.index(ss["import_percentile"]),
        key="w_import_percentile",
        help="InferenceX files: both latencies read at this percentile (TPOT = 1000 / interactivity). p95, p90 "
        "and p75 are for aggregates that carry no p99 (agentic files): the percentile stands in for the SLO's, "
        "and the import says so in a warning and in the provenance. A CSV table gives them as they are.",
    )
    ss["import_isl"] = o2.number_input(
        "ISL if not in the files [tokens]",
        min_value=1,
        value=ss["import_isl"],
        step=1,
        key="w_import_isl",
        help="Used only for rows whose file and file name (like 1k1k) do not give it; never overrides the file. "
        "Give ISL and OSL together.",
    )
    ss["import_osl"] = o3.number_input(
        "OSL if not in the files [tokens]", min_value=1, value=ss["import_osl"], step=1, key="w_import_osl"
    )
    ss["import_gpus"] = o4.number_input(
        "GPUs per replica if not in the files",
        min_value=1,
        value=ss["import_gpus"],
        step=1,
        key="w_import_gpus",
        help="For files that do not give the GPU count (a raw file without tpN in its name; a CSV table).",
    )
    class_choices = [imports.DEFAULT_CLASS, *imports.PROVENANCE_CLASSES]
    ss["import_class"] = o5.selectbox(
        "Provenance class",
        class_choices,
        index=class_choices.index(ss["import_class"]),
        key="w_import_class",
        help="Default: independent for InferenceX (SemiAnalysis's independent benchmark), assumption for a CSV "
        "table (it does not say who measured it). Say vendor or collaborative when a vendor ran the benchmark.",
    )
    if said := imports.message():
        kind, text = said
        {"success": st.success, "warning": st.warning}.get(kind, st.error)(md(text))
    if import_files:
        reading = imports.read_files(
            import_files,
            percentile=ss["import_percentile"],
            isl=ss["import_isl"],
            osl=ss["import_osl"],
            gpus_per_replica=ss["import_gpus"],
            provenance_class=None if ss["import_class"] == imports.DEFAULT_CLASS else ss["import_class"],
        )
        for message in reading.errors:
            st.error(md(message), icon=":material/block:")
        names_read = ", ".join(name.rsplit("/", 1)[-1] for name, _ in import_files)
        if not reading.errors:
            n = len(reading.curves)
            st.markdown(f"**{n} curve{'' if n == 1 else 's'} found** in {md(names_read)}")
        st.button(
            "Forget these files",
            key="import_forget",
            on_click=lambda: ss.update({imports.IMPORT_FILES: [], imports.IMPORT_MESSAGE: None}),
            help="The files stay in this session (also after visiting another page) until others are uploaded.",
        )
        if reading.curves:
            st.dataframe(
                pd.DataFrame(reading.curve_rows()),
                hide_index=True,
                width="stretch",
                key="import_curves_table",
                column_config={
                    "curve": st.column_config.TextColumn("curve"),
                    "tp": st.column_config.NumberColumn("TP [GPUs]", format="%d"),
                    "gpus_per_replica": st.column_config.NumberColumn("GPUs per replica", format="%d"),
                    "isl_osl": st.column_config.TextColumn("ISL/OSL [tokens]"),
                    "isl_osl_from": st.column_config.TextColumn("ISL/OSL from"),
                    "points": st.column_config.NumberColumn("points", format="%d"),
                    "concurrency": st.column_config.TextColumn("concurrency [requests]"),
                    "board_power": st.column_config.TextColumn("GPU board power"),
                    "date": st.column_config.TextColumn("run date"),
                },
            )
        if reading.skipped:
            st.markdown(f"**Skipped: {len(reading.skipped)}** (the rest was read)")
            st.dataframe(
                pd.DataFrame(reading.skipped_rows(), columns=["file", "row", "field", "reason"]),
                hide_index=True,
                width="stretch",
                key="import_skipped_table",
                column_config={"row": st.column_config.TextColumn("row (JSON array) or line (CSV)")},
            )
            st.caption(
                "Where a reason names `--isl`/`--osl` or `--gpus-per-replica`, give the value in the options above."
            )
        for warning in reading.warnings:
            st.warning(md(warning))
        for note in reading.notes:
            st.caption(md(note))
        if not reading.curves and not reading.errors:
            st.warning("No curve could be read from these files: see the skipped list for why.")

        if reading.curves:
            labels = [c.label for c in reading.curves]
            digest = hashlib.sha1("\n".join(labels).encode("utf-8")).hexdigest()[:10]
            curve_key = f"import_curve|{digest}"
            st.selectbox("Curve to use", range(len(labels)), format_func=lambda i: labels[i], key=curve_key)
            curve = reading.curves[ss[curve_key]]
            draft_now = ss[state.DRAFT]
            differences = imports.workload_differences(curve, draft_now.get("workload") or {})
            if differences:
                st.caption(
                    f"This curve differs from the scenario's workload in {md('; '.join(differences))}. The results "
                    "will warn that it is not like for like."
                )
            sys_names = [str(s.get("name", f"system {i + 1}")) for i, s in enumerate(draft_now.get("systems") or [])]
            gen = ss[state.GENERATION]
            ss["import_action"] = st.radio(
                "Use it to",
                ["replace", "add"],
                index=["replace", "add"].index(ss["import_action"]),
                format_func=lambda a: {
                    "replace": "replace the operating points of a system",
                    "add": "add a new system",
                }[a],
                key="w_import_action",
                horizontal=True,
            )
            if ss["import_action"] == "replace":
                target_key = f"import_target|g{gen}"
                st.selectbox("System", range(len(sys_names)), format_func=lambda i: sys_names[i], key=target_key)
                st.caption(
                    "Sets the system's performance block (points, benchmark conditions) and its provenance from the "
                    "curve; its hardware, power and costs stay (accelerators per replica becomes the benchmark's "
                    "GPUs per replica, which the throughput is for); a vendor claim stays."
                )
                st.button(
                    "Replace the operating points",
                    key="import_replace",
                    type="primary",
                    on_click=_replace,
                    args=(reading.curves, curve_key, target_key),
                )
            else:
                name_key = f"import_name|{digest}|{ss[curve_key]}"
                template_key = f"import_template|g{gen}"
                st.text_input("Name of the new system", value=curve.label, key=name_key)
                st.selectbox(
                    "Copy hardware, power and costs from",
                    range(len(sys_names)),
                    format_func=lambda i: sys_names[i],
                    key=template_key,
                )
                st.warning(
                    "Benchmark results hold no hardware, power or costs: the new system starts with those of "
                    f"**{md(sys_names[ss[template_key]])}**, labelled as assumptions *to be reviewed*. Check them in "
                    "its tab before trusting its results.",
                    icon=":material/rate_review:",
                )
                st.button(
                    "Add as a new system",
                    key="import_add",
                    type="primary",
                    on_click=_add,
                    args=(reading.curves, curve_key, name_key, template_key),
                )

if ss.get(state.NOTICE):
    st.toast(md(ss[state.NOTICE]))
    ss[state.NOTICE] = None
layout.load_problems_box(" Its text is in the *YAML* tab below, where you can fix it and apply it again.")

problems = ss[state.PROBLEMS]
if problems:
    lines = "\n".join(f"- {md(p.path or '(scenario)')}: {md(p.message)}" for p in problems)
    st.error(
        f"**Your edits have {len(problems)} problem{'s' if len(problems) > 1 else ''}.** They are kept in the "
        f"forms below, each under its field; the results show the last valid scenario until they are fixed.\n\n"
        f"{lines}",
        icon=":material/error:",
    )

# ---- what the edits do, at a glance ---------------------------------------------------------------------------

result = compute.evaluate(ss[state.VALID_JSON])
st.markdown("**Blended cost per 1,000 accepted requests** over the demand day, per system")
for col, row in layout.in_rows(result.records["systems"]):
    peak = [p for p in result.records["points"] if p["system"] == row["system"]]
    peak_kw = max(p["facility_power_kw"] for p in peak)
    col.metric(
        md(row["system"]),
        display.usd_per_1k_requests(row["blended_usd_per_accepted_request"]),
        help="Over the demand day, from the last valid scenario. Details on the Results page.",
    )
    col.caption(
        f"{display.count(row['racks'])} racks · {display.count(row['accelerators'])} accelerators · "
        f"{display.power_kw(peak_kw)} wall power at most · capex {display.money(row['capex_usd'])}"
    )

# ---- the forms, grouped as the scenario is ----------------------------------------------------------------------

TAB_KEY, TAB_LABELS = system_forms.TAB_KEY, system_forms.TAB_LABELS

draft = ss[state.DRAFT]
systems = draft.get("systems") or []
system_names = [str(s.get("name", f"system {i + 1}")) for i, s in enumerate(systems)]
demand_names = [str(d.get("name")) for d in draft.get("demand") or [] if isinstance(d, dict) and d.get("name")]

# The tabs are a keyed widget: the open tab is kept in session state by the server, so an edit (which adds or
# removes error boxes above them) or a refused YAML text never sends the user back to the first tab; only the open
# tab's widgets are built (on_change="rerun"), which is most of a script run with many systems.
tab_labels = system_forms.tab_labels(system_names)
previous_labels = ss.get(TAB_LABELS)
open_label = ss.get(TAB_KEY)
if previous_labels and previous_labels != tab_labels and open_label in previous_labels:
    # new labels make a new widget, which would open the first tab: say which tab stays open. Only a system's tab
    # can disappear (the system was renamed or removed, another scenario loaded): then the system's at the same
    # place, or the last one
    if open_label not in tab_labels:
        system_tabs = tab_labels[3:-1]
        at = previous_labels.index(open_label) - 3
        open_label = system_tabs[min(at, len(system_tabs) - 1)] if system_tabs else tab_labels[0]
    ss[TAB_KEY] = open_label
ss[TAB_LABELS] = tab_labels
tabs = st.tabs(tab_labels, key=TAB_KEY, on_change="rerun")

if tabs[0].open:
    with tabs[0]:
        st.subheader("Scenario")
        c1, c2 = st.columns(2)
        with c1:
            fields.field(schema.Scenario, "name", "name")
        with c2:
            fields.field(schema.Scenario, "baseline_system", "baseline_system", choices=system_names)
        fields.field(schema.Scenario, "description", "description")
        st.subheader("Workload")
        with_classes = isinstance(state.get_at(draft, class_forms.PATH), list)
        if with_classes:  # the lengths are the mix's, derived from the classes: shown, not "not set"
            class_forms.mix_lengths()
        fields.block(
            schema.Workload,
            "workload",
            columns=3,
            skip=tuple(class_forms.WORKLOAD_LENGTHS) if with_classes else (),
            shown=("classes", "architecture"),
        )
        st.subheader("Request classes")
        class_forms.classes_form()
        with st.expander(
            "The model's shape, for the KV-cache memory limit of systems with a memory block",
            expanded=state.get_at(draft, "workload.architecture") is not None,
        ):
            fields.block(memory_blocks.Architecture, "workload.architecture", columns=4)
        st.subheader("Latency SLO")
        st.caption(
            "Type a limit, or move its slider over round values: either changes the other, and every result. A "
            "system that cannot meet a limit is listed on the Answer and Results pages with why; the others still "
            "show."
        )
        limits = ("ttft_limit_ms", "tpot_limit_ms")
        c1, c2 = st.columns(2)
        with c1:
            fields.limit(schema.SLO, "ttft_limit_ms", "slo.ttft_limit_ms", fields.TTFT_STEPS_MS)
        with c2:
            fields.limit(schema.SLO, "tpot_limit_ms", "slo.tpot_limit_ms", fields.TPOT_STEPS_MS)
        fields.block(schema.SLO, "slo", columns=2, skip=limits, shown=limits)

if tabs[1].open:
    with tabs[1]:
        profiled = compute.scenario(ss[state.VALID_JSON]).demand_profile
        if profiled is not None:  # hours over years: the points below are derived from it
            st.subheader("Demand over the horizon")
            charts.show(
                st,
                "demand_over_time",
                ss[state.VALID_JSON],
                horizon_charts.demand_over_time_chart(profiled.hourly_rates_rps()),
            )
            st.caption(
                f"{profiled.horizon_years:g} years of hourly rates from the scenario's demand profile (the last "
                "valid scenario), each day's busiest hour and mean. The demand points at the foot of the tab are "
                "derived from it (quiet, normal and peak percentiles of its hours); the profile is edited below."
            )
        profile_forms.profile_form()
        st.subheader("Demand over a day")
        if isinstance(draft.get("demand_profile"), dict):  # the points are the profile's: they follow its edits
            tables.show(
                [d for d in draft.get("demand") or [] if isinstance(d, dict)],
                {
                    "name": ("name", "text"),
                    "arrival_rps": ("arrival rate [requests/s]", "num"),
                    "hours_per_day": ("hours per day [h]", "num"),
                    "source": ("source", "text"),
                },
            )
            st.caption(
                "Derived from the profile above, as the loader derives them; to edit them one by one, use the "
                "day's points instead of the profile (the button above)."
            )
        else:
            fields.table(
                "demand",
                {
                    "name": st.column_config.TextColumn("name", required=True),
                    "arrival_rps": st.column_config.NumberColumn(
                        "arrival rate [requests/s]", required=True, format=fields.INPUT_TABLE_FORMAT
                    ),
                    "hours_per_day": st.column_config.NumberColumn(
                        "hours per day [h]", required=True, format=fields.INPUT_TABLE_FORMAT
                    ),
                    "source": st.column_config.TextColumn("source"),
                },
                text_columns=("name", "source"),
                help_text="Poisson arrivals; the hours add up to 24. The fleet is sized for the highest rate "
                "(or the demand point named under Fleet). Add or delete rows with the table's controls.",
            )

if tabs[2].open:
    with tabs[2]:
        st.subheader("Facility")
        fields.block(schema.Facility, "facility", columns=4)
        st.subheader("Financial terms of every owned system")
        fields.block(schema.Finance, "finance", columns=2)
        if overrides := edits.owned_finance_overrides(draft):
            term_words = {"service_life_years": "service life", "cost_of_capital_fraction": "cost of capital"}
            own = "; ".join(
                f"{term_words[term]}: "
                + ", ".join(
                    f"{md(name)} "
                    + (display.input_value(v, f"costs.{term}") if isinstance(v, int | float) else "a distribution")
                    for name, v in by.items()
                )
                for term, by in overrides.items()
            )
            st.caption(
                f"These systems set their own terms, which win over the ones above: {own}. One button puts every "
                "owned system on the scenario's terms (the first system's where none is given above)."
            )
            st.button(
                "Use one set of terms for every owned system",
                key="share_finance_terms",
                on_click=state.apply_edit,
                args=(edits.share_finance_terms,),
            )
        st.subheader("Fleet policy")
        fields.block(schema.Fleet, "fleet", columns=4, covered=("scaling",), sizing_demand_point=demand_names)
        scaling_forms.scaling_form()


def operating_points(i: int, system: dict[str, Any]) -> None:
    """An aggregated system's operating points, its performance block and its vendor claim."""
    path = f"systems[{i}]"
    st.subheader("Performance: operating points")
    perf = system.get("performance") or {}
    per = perf.get("throughput_per", "replica")
    basis = perf.get("token_basis", "total")
    fields.table(
        f"{path}.performance.points",
        {
            "concurrency": st.column_config.NumberColumn(
                "concurrency [requests in flight]", format=fields.INPUT_TABLE_FORMAT
            ),
            "throughput_tokens_per_s": st.column_config.NumberColumn(
                f"throughput [{basis} tokens/s per {per}]", required=True, format=fields.INPUT_TABLE_FORMAT
            ),
            "tpot_ms": st.column_config.NumberColumn("TPOT [ms]", format=fields.INPUT_TABLE_FORMAT),
            "interactivity_tokens_per_s": st.column_config.NumberColumn(
                "interactivity [tokens/s per user]", format=fields.INPUT_TABLE_FORMAT
            ),
            "ttft_ms": st.column_config.NumberColumn("TTFT [ms]", required=True, format=fields.INPUT_TABLE_FORMAT),
            "power_w_per_accelerator": st.column_config.NumberColumn(
                "measured power [W per accelerator]", format=fields.INPUT_TABLE_FORMAT
            ),
        },
        help_text="Give TPOT or interactivity on each row, and concurrency on every row or on none "
        "(then Little's law derives it). Service time and latencies are interpolated linearly in "
        "concurrency, never extrapolated.",
    )
    fields.block(
        schema.Performance,
        f"{path}.performance",
        columns=2,
        skip=(
            "benchmark_model",
            "benchmark_revision",
            "benchmark_precision",
            "benchmark_input_tokens",
            "benchmark_output_tokens",
            "framework",
            "speculative_decoding",
            "decode_accelerators_per_replica",
        ),
    )
    with st.expander("What the curve was measured on"):
        fields.block(
            schema.Performance,
            f"{path}.performance",
            columns=3,
            skip=("token_basis", "throughput_per"),
        )
    if perf.get("claim") is not None:
        st.subheader("Vendor claim (headline)")
        fields.block(schema.Claim, f"{path}.performance.claim", columns=4)
    else:
        st.caption("No vendor claim: the headline is derived from the curve (peak tokens/s per rated kW).")


for i, name in enumerate(system_names):
    path = f"systems[{i}]"
    system = systems[i]
    if tabs[3 + i].open:
        with tabs[3 + i]:
            prov = system.get("provenance") or {}
            badge = prov.get("class", "?")
            who = " · ".join(md(prov[k]) for k in ("reported_by", "date") if prov.get(k))
            body = f"**Provenance: {md(badge)}**" + (f" · {who}" if who else "")
            body += f"\n\nSource: {md(prov.get('source', 'not given'))}"
            if prov.get("software_stack"):
                body += f"\n\nSoftware: {md(prov['software_stack'])}"
            if prov.get("proprietary_software"):
                body += "\n\n:orange[The results depend on proprietary software a buyer may not get.]"
            if prov.get("notes"):
                body += f"\n\n{md(prov['notes'])}"
            (st.warning if badge in ("vendor", "collaborative", "assumption") else st.info)(
                body, icon=":material/verified:"
            )
            copied = [
                key
                for key, fig in (draft.get("figures") or {}).items()
                if key.startswith(path + ".")
                and isinstance(fig, dict)
                and str(fig.get("source", "")).startswith(into_scenario.COPIED)
            ]
            if copied:
                st.warning(
                    "**To be reviewed:** this system was added from benchmark results, and its hardware, power and "
                    "costs were copied from another system as a starting point (their sources below say *copied ...*). "
                    "Check them; each value you change is labelled as yours.",
                    icon=":material/rate_review:",
                )
            fields.field(schema.System, "name", f"{path}.name")
            with st.expander("Edit provenance"):
                fields.block(schema.Provenance, f"{path}.provenance", columns=2)
            system_forms.system_actions(i)

            if system.get("api") is not None:
                st.subheader("API prices (no hardware: the provider's fleet)")
                fields.block(schema.Api, f"{path}.api", columns=3)
            else:
                if system.get("pools") is not None:  # disaggregated: its curves are its pools'
                    pool_forms.pools_form(i)
                else:
                    operating_points(i, system)
                st.subheader("Hardware and power")
                entry = str(system.get("catalog", "")).lower()
                if entry in catalog().entries:  # a known entry's key: letters, digits and hyphens only
                    st.caption(
                        f"Catalogue entry `{entry}`: a field left empty here takes the entry's figure, with its "
                        f"source (`rackcost catalog {entry}`); a value you give wins."
                    )
                fields.block(schema.Hardware, f"{path}.hardware", columns=4)
                system_forms.memory_form(i)
                if system.get("rent") is not None:
                    st.subheader("Rent (instead of owning)")
                    fields.block(schema.Rent, f"{path}.rent", columns=3)
                else:
                    st.subheader("Costs")
                    fields.block(schema.Costs, f"{path}.costs", columns=4)
                with st.expander("Facility for this system only (empty: the scenario's facility)"):
                    fields.block(schema.FacilityOverride, f"{path}.facility", columns=3)
            fields.block_problems(
                path,
                ("name", "performance", "provenance", "hardware", "costs", "rent", "api", "facility", "memory"),
                covered=("pools",) if system.get("pools") is not None else (),
            )

            figs = [
                {"figure": key.removeprefix(path + "."), **fig}
                for key, fig in (draft.get("figures") or {}).items()
                if (key.startswith(path + ".") or key == path) and isinstance(fig, dict)
            ]
            with st.expander(f"Sources of {md(name)}'s figures ({len(figs)})", expanded=False):
                if figs:
                    tables.show(
                        figs,
                        {
                            "figure": ("figure (YAML path)", "text"),
                            "provenance": ("provenance", "enum"),
                            "source": ("source", "text"),
                            "why": ("why (for an assumption)", "text"),
                        },
                    )
                else:
                    st.caption("The scenario's figures: block names no source for this system.")

if tabs[-1].open:
    with tabs[-1]:
        st.subheader("The scenario as YAML")
        rejected = ss.get(state.REJECTED_TEXT)
        text = rejected[1] if rejected else state.draft_yaml()
        key = "yaml|" + hashlib.sha1(text.encode("utf-8")).hexdigest()
        st.caption(
            "Edit the whole scenario as text (fields the forms do not show are here too), then apply it. "
            "A text with problems is not applied, and stays here for you to fix."
        )
        editor, numbered = st.columns(2)
        typed = editor.text_area("Scenario YAML", value=text, height=600, key=key)
        with numbered:
            st.markdown("**The same text with line numbers** :gray[(read only; problems name these lines)]")
            st.code(typed, language="yaml", line_numbers=True, height=600)

        def _apply(key: str = key) -> None:
            state.load_text(ss[key], ss[state.FILE_NAME], edit=True)

        def _reset() -> None:
            original = ss.get(state.LOADED, ss[state.ORIGINAL])
            state.load_text(yaml.safe_dump(original, sort_keys=False, allow_unicode=True), ss[state.FILE_NAME])

        c1, c2 = st.columns(2)
        c1.button("Apply this YAML", key="apply_yaml", on_click=_apply, type="primary")
        c2.button("Discard my edits (back to the loaded file)", key="reset", on_click=_reset)
        if rejected and ss.get(state.LOAD_PROBLEMS):
            # the same problems as at the top of the page, here too: the user is looking at the text
            st.error(
                f"**Not applied:** {len(ss[state.LOAD_PROBLEMS])} problem"
                f"{'s' if len(ss[state.LOAD_PROBLEMS]) > 1 else ''}; the text stays above for you to fix.\n\n"
                + "\n".join(f"- {md(p)}" for p in ss[state.LOAD_PROBLEMS]),
                icon=":material/block:",
            )
            for problem in [p for p in ss[state.LOAD_PROBLEMS] if p.line][:10]:
                st.caption(f"Line {problem.line}: {md(problem.path or '(scenario)')}")
                st.code(layout.lines_around(rejected[1], problem.line), language="yaml")
