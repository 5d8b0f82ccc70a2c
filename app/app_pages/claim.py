"""Claim vs decision page: the vendor's headline ratio beside the modelled ratios, in words and in a chart."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from rackcost import display
from rackcost.evaluation.columns import column
from rackcost.evaluation.compare import headline_sentences
from rackcost.reporting import charts
from rackcost_app import compute, state, tables
from rackcost_app.safe import md

ss = st.session_state
result = compute.evaluate(ss[state.VALID_JSON])
rows = result.records["comparison"]

st.title("Claim vs decision")
st.caption(
    "The vendor's headline (peak tokens/s per kW) beside what the model finds: tokens per wall kWh at the SLO "
    "operating point, and cost per accepted request at each demand point and over the day. Advantage > 1 means "
    "the system beats the baseline (more tokens, or lower cost)."
)
if ss[state.PROBLEMS]:
    st.warning(
        "Your latest edits have problems (see the Scenario page): this is the last valid scenario.",
        icon=":material/warning:",
    )

if not rows:
    st.info("Only one system in this scenario: nothing to compare. Add a system in the Scenario page's YAML tab.")
else:
    for sentence in headline_sentences(rows):
        st.subheader(md(sentence))

    # at most 12 demand points in a chart (the report's rule); the table under it gives every one
    valid = ss[state.VALID]
    subset = charts.chart_subset(
        result.records["systems"],
        compute.scenario(compute.served_json(ss[state.VALID_JSON])).baseline_name,
        valid["demand"],
        result.records["systems"][0]["sizing_demand_point"],
    )
    pairs = sorted({(r["system"], r["baseline"]) for r in rows}, key=lambda p: [r["system"] for r in rows].index(p[0]))
    for system, baseline in pairs:
        pair = [r for r in rows if r["system"] == system and r["baseline"] == baseline]
        st.header(f"{md(system)} vs {md(baseline)}")
        head = next((r for r in pair if r["kind"] in ("claim", "derived")), None)
        blended = next(r for r in pair if r["metric"].startswith("blended"))
        c1, c2, c3 = st.columns(3)
        if head is None:  # an API on either side: compared on cost alone, no tokens per kW
            c1.metric("headline: peak tokens per kW", "n/a (API)")
            c2.metric("modelled: tokens per wall kWh at the SLO point", "n/a (API)")
        else:
            c1.metric(
                "headline: peak tokens per kW" + (" (vendor claim)" if head["kind"] == "claim" else " (derived)"),
                display.ratio(head["advantage_ratio"]),
            )
            c2.metric("modelled: tokens per wall kWh at the SLO point", display.ratio(pair[1]["advantage_ratio"]))
        c3.metric("decision: blended cost per accepted request", display.ratio(blended["advantage_ratio"]))

        frame = pd.DataFrame(pair)
        st.altair_chart(charts.claim_chart(pair, system, baseline, subset.points), width="stretch")
        if subset.points_note:
            st.caption(md(subset.points_note))

        shown = pd.DataFrame(
            {
                "metric": frame["metric"],
                "unit": [display.PER_1K_REQUESTS if u == "USD/request" else u for u in frame["unit"]],
                "system_value": [
                    display.usd_per_1k_requests(v) if u == "USD/request" else display.num(v)
                    for v, u in zip(frame["system_value"], frame["unit"], strict=True)
                ],
                "baseline_value": [
                    display.usd_per_1k_requests(v) if u == "USD/request" else display.num(v)
                    for v, u in zip(frame["baseline_value"], frame["unit"], strict=True)
                ],
                "advantage_ratio": frame["advantage_ratio"],
                "kind": frame["kind"],
            }
        )
        tables.show(
            shown.to_dict("records"),
            {
                "metric": ("metric", "text"),
                "unit": ("unit of the values", "text"),
                "system_value": (f"{system} [unit]", "text"),
                "baseline_value": (f"{baseline} [unit]", "text"),
                "advantage_ratio": column("comparison", "advantage_ratio"),
                "kind": column("comparison", "kind"),
            },
        )

st.header("Comparability warnings")
if result.warnings:
    for warning in result.warnings:
        st.warning(md(warning), icon=":material/warning:")
else:
    st.success("No comparability warning: the systems were measured under the same conditions.")
