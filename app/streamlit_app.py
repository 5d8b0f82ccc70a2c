"""rackcost dashboard: pick or upload a scenario, edit it, and see what each system costs per accepted request.

Run ``rackcost app`` (or ``streamlit run app/streamlit_app.py``). The app only renders: every number comes from
the library (:mod:`rackcost`), through the cached calls of :mod:`rackcost_app.compute`.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from rackcost_app import state
from rackcost_app.safe import md

# the page icon is a file served by the app's own server: a Material icon as favicon is fetched from Google's fonts
# server, and the browser makes no request to any other host (tests/test_browser.py)
ICON = Path(__file__).resolve().parent / "rackcost_app" / "icon.png"
st.set_page_config(page_title="rackcost", page_icon=str(ICON), layout="wide")
state.init()
state.process_pending_upload()  # before the sidebar, which names the scenario: an upload shows at once

pages = [
    st.Page("app_pages/scenario.py", title="Scenario", icon=":material/edit_note:", default=True),
    st.Page("app_pages/results.py", title="Results", icon=":material/table_chart:"),
    st.Page("app_pages/claim.py", title="Claim vs decision", icon=":material/balance:"),
    st.Page("app_pages/uncertainty.py", title="Uncertainty", icon=":material/ssid_chart:"),
    st.Page("app_pages/sweep.py", title="Sweep", icon=":material/grid_on:"),
    st.Page("app_pages/export.py", title="Export", icon=":material/download:"),
]
page = st.navigation(pages)

with st.sidebar:
    valid_name = state.get_at(st.session_state[state.VALID], "name")
    st.markdown(f"**{md(valid_name)}**")
    st.caption(f"from {md(st.session_state[state.FILE_NAME])}")
    problems = st.session_state[state.PROBLEMS]
    if problems:
        st.error(
            f"Your edits have {len(problems)} problem{'s' if len(problems) > 1 else ''} (see Scenario). "
            "Results show the last valid scenario.",
            icon=":material/error:",
        )
    else:
        st.success("Scenario valid: results are up to date.", icon=":material/check_circle:")

page.run()
