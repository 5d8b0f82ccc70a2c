"""Screenshots of each dashboard page into docs/screenshots/ (default scenario), with the browser test's launch code,
and of the browser test's walk (open, the answer, double the peak, the new answer, a rented system added by the
form, reload, a system made infeasible: ``answer-*.png``).

Run: ``.venv/bin/python scripts/screenshots.py`` (``--walk``: only the walk's five screenshots)
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from playwright.sync_api import sync_playwright  # noqa: E402

from app_server import CHROMIUM, launch_chromium, missing_chromium_message, streamlit_app  # noqa: E402

OUT = ROOT / "docs" / "screenshots"
# (file, page, tab to open first)
SHOTS = [
    ("scenario", "Scenario", None),
    ("scenario-system", "Scenario", "System: Jalapeño"),
    ("results", "Results", None),
    ("claim", "Claim vs decision", None),
    ("uncertainty", "Uncertainty", None),
    ("export", "Export", None),
]


WIDTH, MAX_HEIGHT = 1440, 7000


def settle(page) -> None:
    """Wait until the script has finished and every element has drawn (no skeleton, no running indicator, nothing
    left from the last run: a click on a tab of the Scenario page reruns the script)."""
    page.wait_for_load_state("networkidle")
    page.wait_for_function(
        "document.querySelectorAll('[data-testid=stSkeleton]').length === 0 && "
        "!document.querySelector('[data-testid=stStatusWidget]') && "
        "!document.querySelector('[data-testid=stElementContainer][data-stale=true]')",
        timeout=60_000,
    )
    page.wait_for_timeout(1500)  # Vega charts draw after the elements arrive


def walk_screenshots() -> None:
    """The browser test's walk (tests/test_browser.py), its screenshots written here."""
    from test_browser import WALK_STEPS, walk

    with streamlit_app() as url, sync_playwright() as p:
        browser = launch_chromium(p)
        try:
            seen = walk(browser.new_page(viewport={"width": 1280, "height": 800}), url, OUT)
        finally:
            browser.close()
    for step in WALK_STEPS:
        print(f"wrote {(OUT / f'{step}.png').relative_to(ROOT)}")
    print(f"answer before: {seen['first']}\nafter doubling the peak, a rented system and a reload: {seen['reloaded']}")
    print(f"with a system made infeasible: {seen['infeasible']}\n{seen['marked']}")


def main() -> None:
    if not CHROMIUM.exists():
        sys.exit(missing_chromium_message())
    OUT.mkdir(parents=True, exist_ok=True)
    walk_screenshots()
    if "--walk" in sys.argv[1:]:
        return
    with streamlit_app() as url, sync_playwright() as p:
        browser = launch_chromium(p)
        page = browser.new_page(viewport={"width": WIDTH, "height": 1000}, device_scale_factor=1)
        page.goto(f"{url}/scenario")  # the app opens on the Answer page
        page.get_by_role("heading", name="Scenario").first.wait_for(timeout=60_000)
        for slug, title, tab in SHOTS:
            page.get_by_test_id("stSidebarNav").get_by_role("link", name=title).click()
            page.get_by_role("heading", name=title, exact=True).first.wait_for(timeout=60_000)
            settle(page)
            if tab:
                page.get_by_role("tab", name=tab).click()
                settle(page)
            # Streamlit scrolls inside its main container: make the window as tall as the page, then shoot
            height = page.evaluate(
                "Math.max(...['stMain', 'stAppViewContainer', 'stMainBlockContainer']"
                ".map(id => document.querySelector(`[data-testid=${id}]`)?.scrollHeight || 0))"
            )
            page.set_viewport_size({"width": WIDTH, "height": min(max(int(height) + 80, 800), MAX_HEIGHT)})
            settle(page)
            if "(edited)" in page.get_by_test_id("stSidebar").inner_text():  # the default scenario, as it is
                sys.exit(f"{slug}: the scenario reads as edited before its screenshot; nothing is written")
            target = OUT / f"{slug}.png"
            page.screenshot(path=str(target), full_page=True)
            page.set_viewport_size({"width": WIDTH, "height": 1000})
            print(f"wrote {target.relative_to(ROOT)}")
        browser.close()


if __name__ == "__main__":
    main()
