"""Altair charts drawn from a cached Vega-Lite spec: Altair validates a spec against its JSON schema on every
``to_dict`` (measured: about 45 ms of a 100 ms run of the Results page), and a chart of the Results page depends
only on the scenario, so its spec is made once per scenario and chart.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from rackcost_app.compute import CACHE_ENTRIES


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
    return _chart.to_dict()


def show(container: Any, name: str, scenario_json: str, chart: Any, **kwargs: Any) -> None:
    """Draw ``chart`` in ``container`` (``st`` or a column) from its cached spec; ``kwargs`` as ``st.altair_chart``."""
    container.vega_lite_chart(spec=spec(name, scenario_json, chart), **kwargs)
