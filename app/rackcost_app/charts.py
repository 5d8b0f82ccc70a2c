"""Altair charts drawn from a cached Vega-Lite spec: Altair validates a spec against its JSON schema on every
``to_dict`` (measured: about 45 ms of a 100 ms run of the Results page), and a chart of the Results page depends
only on the scenario, so its spec is made once per scenario and chart.

**Height.** A single or layered chart is drawn with ``autosize: fit-x``: its width fits the column and its height is
the plot's own (the spec's ``height``) plus its axes, titles and legends. Streamlit's default for such a chart is
``fit`` in both directions, which puts the axes, the legend and a rotated y title *inside* the spec's height: the
cost-against-demand chart, with a two-row legend and a y title longer than the panel, was drawn 10 px high with the
ticks 0 and 1 (the report, drawn by vl-convert with ``pad``, was right).
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from rackcost_app.compute import CACHE_ENTRIES

FIT_WIDTH = {"type": "fit-x", "contains": "padding"}
"""Vega-Lite autosize of a single or layered chart: the width fits the column, the height is the plot's own."""


@st.cache_data(max_entries=4 * CACHE_ENTRIES, show_spinner=False)
def spec(name: str, scenario_json: str, _chart: Any) -> dict[str, Any]:
    """The Vega-Lite spec of ``_chart``, made once for each (chart name, scenario).

    Parameters
    ----------
    name
        Which chart of the page (one spec per name and scenario).
    scenario_json
        The scenario's canonical JSON: the chart must depend on nothing else.
    _chart
        The Altair chart (not hashed: the name and the scenario stand for it).
    """
    out: dict[str, Any] = _chart.to_dict()
    if "autosize" not in out and not any(k in out for k in ("facet", "hconcat", "vconcat", "concat", "repeat")):
        out["autosize"] = FIT_WIDTH
    return out


def show(container: Any, name: str, scenario_json: str, chart: Any, **kwargs: Any) -> None:
    """Draw ``chart`` in ``container`` (``st`` or a column) from its cached spec; ``kwargs`` as ``st.altair_chart``."""
    container.vega_lite_chart(spec=spec(name, scenario_json, chart), **kwargs)
