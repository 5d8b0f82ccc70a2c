"""The HTML report in a real browser: Debian's Chromium (Playwright) opens it from disk with the network blocked.

No request leaves the file, no console error, the page fits a phone's width (tables scroll inside their own box),
and printed to PDF it has a page per section at least. Printed on A4 and on Letter (issue 22, item 7), nothing is
wider than the page's text, for the default scenario and the widest bundled one (six systems), and an edited
scenario says so on page 1. ``RACKCOST_SCREENSHOTS=1`` also saves the first screen to
``docs/screenshots/report.png`` (committed; not rewritten on every run). Needs /usr/bin/chromium:
``bash scripts/bootstrap`` installs it (the test fails, it does not skip, when it is missing).
"""

from __future__ import annotations

import io
import os
import re
from pathlib import Path

import pypdf
import pytest

import rackcost
from app_server import CHROMIUM, launch_chromium, missing_chromium_message
from rackcost.reporting.blocks import APPENDIX, OPTIONAL_SECTIONS, SECTIONS
from rackcost.reporting.html import CSS

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[1]
SCREENSHOT = ROOT / "docs" / "screenshots" / "report.png"
PHONE_PX = (390, 844)  # a phone's CSS viewport [px]
DESKTOP_PX = (1100, 1400)
WAIT_MS = 120_000  # a hang guard per browser action (Playwright's default, 30 s, is short on a busy machine)
WIDEST = "llama-3.3-70b-gaudi25-tp-precision.yaml"  # six systems: the widest tables of the bundled scenarios
PX_PER_MM = 96 / 25.4  # CSS pixels per millimetre
PAPER_MM = {"A4": (210.0, 297.0), "Letter": (8.5 * 25.4, 11 * 25.4)}  # portrait width x height [mm]
PDF_POINTS = {"A4": (595.92, 842.88), "Letter": (612.0, 792.0)}  # the page size Chromium writes [pt]
# the sections of a report with samples of a scenario without request classes or a disaggregated system
HEADINGS = [title for key, title in SECTIONS.items() if key not in OPTIONAL_SECTIONS or key == "uncertainty"]


@pytest.fixture(scope="module")
def report_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("report") / "report.html"
    rackcost.report(rackcost.bundled_scenario_path(), samples=2_000, date="2026-01-02", output=path)
    return path


@pytest.fixture(scope="module")
def print_files(tmp_path_factory, report_file: Path) -> dict[str, Path]:
    """The report of the default scenario and of the widest bundled one (no distributions: no samples)."""
    wide = tmp_path_factory.mktemp("wide") / "report.html"
    rackcost.report(rackcost.bundled_scenario_path(WIDEST), date="2026-01-02", output=wide)
    return {"default": report_file, WIDEST: wide}


def text_width_px(paper: str) -> float:
    """The width of a printed page's text [CSS px]: the paper's width less the left and right margins of the
    stylesheet's ``@page`` rule."""
    margins = re.search(r"@page\s*\{[^}]*?margin:\s*([\d.]+)mm(?:\s+([\d.]+)mm)?", CSS)
    assert margins, "the stylesheet sets the page's margins in mm"
    side = float(margins.group(2) or margins.group(1))
    return (PAPER_MM[paper][0] - 2 * side) * PX_PER_MM


# every table, chart, image and preformatted block shown in print, and the boxes that hold them: the ones that
# stick out of the page's text (their box past its edges, or content wider than their box)
OVERFLOWING = """() => {
  const right = document.documentElement.clientWidth;
  const shown = [...document.querySelectorAll('table, svg, img, pre, .table-wrap, figure, section')]
    .filter(e => e.getClientRects().length > 0 && !(e.parentElement && e.parentElement.closest('svg')));
  const over = shown.filter(e => {
    const box = e.getBoundingClientRect();
    const scrolls = !(e instanceof SVGElement) && e.scrollWidth > e.clientWidth;
    return box.left < -0.5 || box.right > right + 0.5 || scrolls;
  }).map(e => `${e.tagName.toLowerCase()}#${e.id} .${e.getAttribute('class')} in ${e.closest('section')?.id}: `
           + `${Math.round(e.getBoundingClientRect().width)} px, content ${e.scrollWidth} px`);
  const count = tag => shown.filter(e => e.tagName.toLowerCase() === tag).length;
  return {width: right, page: document.documentElement.scrollWidth, over: over,
          tables: count('table'), charts: count('svg'), parts: shown.filter(e => e.matches('table.part')).length};
}"""


@pytest.mark.parametrize("name", ["default", WIDEST])
def test_the_printed_report_fits_a4_and_letter_without_clipping(print_files: dict[str, Path], name: str):
    from playwright.sync_api import sync_playwright

    assert CHROMIUM.exists(), missing_chromium_message()
    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        try:
            for paper in ("A4", "Letter"):
                width = text_width_px(paper)
                context = browser.new_context(viewport={"width": int(width), "height": 1100})
                context.set_default_timeout(WAIT_MS)
                page = context.new_page()
                page.emulate_media(media="print")
                page.goto(print_files[name].as_uri(), wait_until="load")
                found = page.evaluate(OVERFLOWING)
                assert found["width"] == int(width)
                assert found["over"] == [], (paper, found["over"])
                assert found["page"] <= found["width"]
                assert found["tables"] >= 8 and found["charts"] >= 4
                # the systems and cost tables (14 columns) are printed in parts, the whole tables are not
                assert found["parts"] >= 4
                assert not page.locator("#table-systems").is_visible()
                assert not page.locator("#table-points").is_visible()
                pdf = pypdf.PdfReader(io.BytesIO(page.pdf(format=paper)))
                assert len(pdf.pages) >= len(HEADINGS) - 1  # the widest has no uncertainty section
                size = pdf.pages[0].mediabox
                assert (float(size.width), float(size.height)) == pytest.approx(PDF_POINTS[paper], abs=1)
                assert pdf.pages[0].extract_text().splitlines()[0] == f"1 / {len(pdf.pages)}"  # numbered pages
                context.close()
        finally:
            browser.close()


def test_an_edited_scenario_says_so_on_the_first_printed_page(tmp_path: Path):
    from playwright.sync_api import sync_playwright

    from rackcost.scenario.edits import edited_figure, set_at
    from rackcost.scenario.loading import scenario_to_data

    data = scenario_to_data(rackcost.load_scenario(rackcost.bundled_scenario_path()))
    data = set_at(data, "facility.pue", 1.5)
    data.setdefault("figures", {})["facility.pue"] = edited_figure(1.2, None)
    path = tmp_path / "edited.html"
    rackcost.report(rackcost.scenario_from_dict(data), samples=200, date="2026-01-02", output=path)
    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        try:
            page = browser.new_page()
            page.set_default_timeout(WAIT_MS)
            page.goto(path.as_uri(), wait_until="load")
            for paper in ("A4", "Letter"):
                first = pypdf.PdfReader(io.BytesIO(page.pdf(format=paper))).pages[0].extract_text()
                assert "This scenario was edited" in " ".join(first.split()), paper
        finally:
            browser.close()


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
            assert headings == HEADINGS
            # every chart drawn with a size
            sizes = page.eval_on_selector_all("figure svg", "els => els.map(e => e.getBoundingClientRect().width)")
            assert len(sizes) >= 4 and min(sizes) > 100
            if os.environ.get("RACKCOST_SCREENSHOTS"):
                page.screenshot(path=str(SCREENSHOT))

            pdf = pypdf.PdfReader(io.BytesIO(page.pdf(format="A4", print_background=True)))
            # the lead, the body and each part of the appendix start a new page; some run over several
            assert len(pdf.pages) > 1 and len(pdf.pages) >= len(APPENDIX) + 2
            letter = pypdf.PdfReader(io.BytesIO(page.pdf(format="Letter")))
            assert len(letter.pages) >= len(APPENDIX) + 2

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


LEAD_PAGES = 2
"""The printed pages the lead may take (issue 36, item 9: the decision on the first two A4 pages)."""
MAX_PAGES_BEFORE_APPENDIX = 12
"""The most A4 pages the default scenario's report may print before its appendix (issue 36, item 9; 23 before)."""
# a scenario's YAML path as written, or a field name's unit suffix (tests/test_report.py checks the HTML the same way)
YAML_PATH = re.compile(
    r"\b(?:systems|demand|workload|facility|fleet|slo|uncertainty|plan|figures|costs|hardware|rent|api)(?:\[\d+\])?"
    r"\.[a-z_]|[a-z]_usd_per_[a-z]"
)


def test_the_decision_is_on_the_first_two_a4_pages_and_the_report_before_its_appendix_on_twelve(report_file: Path):
    """Printed on A4: the first two pages hold the decision, the cost per year and over the service life, kW per rack
    and how sure, and the body starts on page 3; no page before the appendix names a YAML path; the appendix starts
    by page 13."""
    from playwright.sync_api import sync_playwright

    assert CHROMIUM.exists(), missing_chromium_message()
    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        try:
            page = browser.new_page()
            page.set_default_timeout(WAIT_MS)
            page.goto(report_file.as_uri(), wait_until="load")
            pdf = pypdf.PdfReader(io.BytesIO(page.pdf(format="A4")))
        finally:
            browser.close()
    texts = [" ".join(p.extract_text().split()) for p in pdf.pages]
    appendix = next(i for i, t in enumerate(texts) if SECTIONS["warnings"] in t and "(appendix, Warnings)" not in t)
    assert appendix <= MAX_PAGES_BEFORE_APPENDIX, f"{appendix} pages before the appendix"
    lead = " ".join(texts[:LEAD_PAGES])
    for words in (
        SECTIONS["summary"],
        "cheapest per accepted request",
        "cost per year",
        "cost over 5 years",
        "kW per rack",
        "rack power limit",
        "How sure is it",
        "What would change the answer",
    ):
        assert words in lead, words
    assert texts[LEAD_PAGES].split(" ", 3)[3].startswith(SECTIONS["scenario"])  # after "3 / N"
    assert not YAML_PATH.findall(" ".join(texts[:appendix]))
