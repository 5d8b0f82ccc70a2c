"""The HTML report in a real browser: Debian's Chromium (Playwright) opens it from disk with the network blocked.

No request leaves the file, no console error, the page fits a phone's width (tables scroll inside their own box),
and printed to PDF it has a page per section at least. ``RACKCOST_SCREENSHOTS=1`` also saves the first screen to
``docs/screenshots/report.png`` (committed; not rewritten on every run). Needs /usr/bin/chromium:
``bash scripts/bootstrap`` installs it (the test fails, it does not skip, when it is missing).
"""

from __future__ import annotations

import io
import os
from pathlib import Path

import pypdf
import pytest

import rackcost
from app_server import CHROMIUM, launch_chromium, missing_chromium_message
from rackcost.reporting.blocks import SECTIONS

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[1]
SCREENSHOT = ROOT / "docs" / "screenshots" / "report.png"
PHONE_PX = (390, 844)  # a phone's CSS viewport [px]
DESKTOP_PX = (1100, 1400)
WAIT_MS = 120_000  # a hang guard per browser action (Playwright's default, 30 s, is short on a busy machine)


@pytest.fixture(scope="module")
def report_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("report") / "report.html"
    rackcost.report(rackcost.bundled_scenario_path(), samples=2_000, date="2026-01-02", output=path)
    return path


def test_the_report_opens_offline_without_error_fits_a_phone_and_prints_a_page_per_section(report_file: Path):
    from playwright.sync_api import sync_playwright

    assert CHROMIUM.exists(), missing_chromium_message()
    attempted: list[str] = []
    errors: list[str] = []

    def block(route) -> None:
        attempted.append(route.request.url)
        route.abort()

    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        try:
            context = browser.new_context(viewport={"width": DESKTOP_PX[0], "height": DESKTOP_PX[1]})
            context.set_default_timeout(WAIT_MS)
            context.route("http://**/*", block)
            context.route("https://**/*", block)
            page = context.new_page()
            page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.on(
                "request",
                lambda request: (
                    attempted.append(request.url)
                    if "://" in request.url and not request.url.startswith("file://")
                    else None
                ),
            )
            page.goto(report_file.as_uri(), wait_until="load")
            assert page.title().startswith(rackcost.load_scenario(rackcost.bundled_scenario_path()).name)
            headings = page.locator("h2").all_inner_texts()
            assert headings == list(SECTIONS.values())
            # every chart drawn with a size
            sizes = page.eval_on_selector_all("figure svg", "els => els.map(e => e.getBoundingClientRect().width)")
            assert len(sizes) >= 4 and min(sizes) > 100
            if os.environ.get("RACKCOST_SCREENSHOTS"):
                page.screenshot(path=str(SCREENSHOT))

            pdf = pypdf.PdfReader(io.BytesIO(page.pdf(format="A4", print_background=True)))
            # each section after the first starts a new page; some run over several
            assert len(pdf.pages) > 1 and len(pdf.pages) >= len(SECTIONS)
            letter = pypdf.PdfReader(io.BytesIO(page.pdf(format="Letter")))
            assert len(letter.pages) >= len(SECTIONS)

            phone = context.new_page()
            phone.set_viewport_size({"width": PHONE_PX[0], "height": PHONE_PX[1]})
            phone.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
            phone.goto(report_file.as_uri(), wait_until="load")
            # nothing wider than the phone: wide tables scroll inside their box, charts scale down
            assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE_PX[0]
            rights = phone.eval_on_selector_all("figure svg", "els => els.map(e => e.getBoundingClientRect().right)")
            assert max(rights) <= PHONE_PX[0]
            scrolling = phone.evaluate(
                "[...document.querySelectorAll('.table-wrap')].filter(e => e.scrollWidth > e.clientWidth).length"
            )
            assert scrolling >= 1  # the cost table is wider than a phone: it scrolls, the page does not
        finally:
            browser.close()
    assert attempted == []
    assert errors == []
