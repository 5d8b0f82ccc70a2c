"""The dashboard in a real browser: ``streamlit run`` on a loopback port, Debian's Chromium driven by Playwright.

Load a bundled scenario, change the electricity price, and check that the results table changes. Needs
/usr/bin/chromium: ``bash scripts/bootstrap`` installs it (the test fails, it does not skip, when it is missing).
"""

from __future__ import annotations

import re
import time

import pytest
import yaml

import rackcost
from app_server import CHROMIUM, launch_chromium, missing_chromium_message, streamlit_app

SCENARIO = "gpt-oss-120b-jalapeno-vs-gb200.yaml"
WAIT_MS = 60_000


def settle(page) -> None:
    """Wait until Streamlit has finished its script run and drawn every element."""
    page.wait_for_function(
        "document.querySelectorAll('[data-testid=stSkeleton]').length === 0 && "
        "!document.querySelector('[data-testid=stStatusWidget]')",
        timeout=WAIT_MS,
    )


def go(page, title: str) -> None:
    page.get_by_test_id("stSidebarNav").get_by_role("link", name=title).click()
    page.get_by_role("heading", name=title, exact=True).first.wait_for(timeout=WAIT_MS)
    settle(page)


def first_rows(page) -> list[str]:
    """Text of the first rows of the points table (the grid's accessible table holds its visible cells)."""
    table = page.get_by_test_id("stDataFrame").first
    table.locator("table td").first.wait_for(state="attached", timeout=WAIT_MS)
    return table.locator("table tr").all_text_contents()[:4]


def test_load_a_scenario_change_a_value_and_see_the_results_change(tmp_path):
    if not CHROMIUM.exists():
        pytest.fail(missing_chromium_message())
    from playwright.sync_api import sync_playwright

    name = yaml.safe_load(rackcost.bundled_scenario_path(SCENARIO).read_text(encoding="utf-8"))["name"]
    with streamlit_app(tmp_path / "streamlit.log") as url, sync_playwright() as p:
        assert url.startswith("http://127.0.0.1:")
        browser = launch_chromium(p)
        try:
            page = browser.new_page(viewport={"width": 1600, "height": 1000})
            page.goto(url)
            page.get_by_role("heading", name="Scenario", exact=True).first.wait_for(timeout=WAIT_MS)
            settle(page)

            # load a bundled scenario
            page.get_by_test_id("stSelectbox").first.click()
            page.get_by_role("option", name=SCENARIO).click()
            page.get_by_role("button", name="Load this scenario").click()
            page.get_by_test_id("stSidebar").get_by_text(name).wait_for(timeout=WAIT_MS)
            settle(page)

            go(page, "Results")
            before = first_rows(page)
            assert any("GB200" in row for row in before), before

            # change the electricity price
            go(page, "Scenario")
            page.get_by_role("tab", name="Facility and fleet").click()
            # a plain number, or the central parameter of a distribution ("electricity price [USD/kWh]: mode")
            name = re.compile(r"^electricity price \[USD.kWh\]( · \w+)?(: mode)?$")  # no "/": it ends the regex
            price = page.get_by_role("spinbutton", name=name).first
            price.fill("0.15")  # inside the bundled triangular range (0.06 to 0.17)
            price.press("Enter")
            settle(page)

            go(page, "Results")
            deadline = time.monotonic() + WAIT_MS / 1000
            after = first_rows(page)
            while after == before and time.monotonic() < deadline:
                page.wait_for_timeout(250)
                after = first_rows(page)
            assert after != before, f"results table did not change: {after}"
            page.screenshot(path=str(tmp_path / "results-after-edit.png"), full_page=True)
            assert (tmp_path / "results-after-edit.png").stat().st_size > 10_000
        finally:
            browser.close()
