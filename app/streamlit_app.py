"""rackcost dashboard: pick or upload a scenario, edit it, and see what each system costs per accepted request.

Run ``rackcost app`` (or ``streamlit run app/streamlit_app.py``). The app only renders: every number comes from
the library (:mod:`rackcost`), through the cached calls of :mod:`rackcost_app.compute`.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from rackcost_app import links, state
from rackcost_app.safe import md

# the page icon is a file served by the app's own server: a Material icon as favicon is fetched from Google's fonts
# server, and the browser makes no request to any other host (tests/test_browser.py)
ICON = Path(__file__).resolve().parent / "rackcost_app" / "icon.png"
st.set_page_config(page_title="rackcost", page_icon=str(ICON), layout="wide")
state.init()
state.process_pending_upload()  # before the sidebar, which names the scenario: an upload shows at once

pages = [
    st.Page("app_pages/answer.py", title="Answer", icon=":material/lightbulb:", default=True),
    st.Page("app_pages/scenario.py", title="Scenario", icon=":material/edit_note:"),
    st.Page("app_pages/results.py", title="Results", icon=":material/table_chart:"),
    st.Page("app_pages/claim.py", title="Claim vs decision", icon=":material/balance:"),
    st.Page("app_pages/uncertainty.py", title="Uncertainty", icon=":material/ssid_chart:"),
    st.Page("app_pages/plan.py", title="Buying plan", icon=":material/event_upcoming:"),
    st.Page("app_pages/mix.py", title="Hardware mix", icon=":material/join:"),
    st.Page("app_pages/models.py", title="Several models", icon=":material/stacks:"),
    st.Page("app_pages/sweep.py", title="Sweep", icon=":material/grid_on:"),
    st.Page("app_pages/new.py", title="New scenario", icon=":material/add_circle:"),
    st.Page("app_pages/export.py", title="Export", icon=":material/download:"),
]
page = st.navigation(pages)

with st.sidebar:
    valid_name = state.get_at(st.session_state[state.VALID], "name")
    st.markdown(f"**{md(valid_name)}**" + (" (edited)" if state.is_edited() else ""))
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

pending = st.session_state.get(state.PENDING_REPLACE)
if pending is not None:  # a file or a bundled scenario waits to replace the user's edits: ask first
    with st.container(border=True, key="confirm_replace"):
        st.warning(
            f"**Replace your edits?** Loading *{md(pending[2])}* replaces the scenario you have edited "
            f"(*{md(state.get_at(st.session_state[state.DRAFT], 'name'))}*). To keep it, download it first on the "
            "Export page; the link in the address bar also keeps it.",
            icon=":material/warning:",
        )
        yes, no = st.columns(2)
        yes.button(f"Replace with {md(pending[2])}", key="confirm_replace_yes", on_click=state.confirm_replace)
        no.button("Keep my edits", key="confirm_replace_no", on_click=state.cancel_replace, type="primary")

links.sync()
page.run()
links.sync()  # the page's own reads of pending files may have changed the draft
