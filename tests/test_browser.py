"""The dashboard in a real browser: ``streamlit run`` on a loopback port, Debian's Chromium driven by Playwright.

Load a bundled scenario, change the electricity price, and check that the results table changes; then what only a
browser shows: the open tab after an invalid edit, the message of each refused upload, and the layout (measured:
charts inside their column, no cut metric label, no label broken inside a word, no overlapping chart labels). Needs
/usr/bin/chromium: ``bash scripts/bootstrap`` installs it (the test fails, it does not skip, when it is missing).
"""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Iterator

import pytest
import yaml

import rackcost
from app_server import CHROMIUM, launch_chromium, missing_chromium_message, streamlit_app

pytestmark = pytest.mark.browser

SCENARIO = "gpt-oss-120b-jalapeno-vs-gb200.yaml"
GAUDI = "llama-3.3-70b-gaudi25-tp-precision.yaml"  # six systems: the widest layout of the bundled scenarios
WAIT_MS = 120_000  # a hang guard per browser action: generous for a busy 2-core machine
REVISIT_MS = 30_000  # how long a panel may take to show before the walk opens its tab again, as a user would


# settled: no script run going (Streamlit's own word for it, on the app's root element, what its end-to-end tests wait
# on: "running" from a run's first message to its last), connected, every element drawn and none left from the last
# run. Its "Running..." status widget alone does not say it: it shows only after a run's first 500 ms, and an element
# is marked stale only until the run sends it again, so a short run, or one that has redrawn every element and
# computes on, showed neither.
SETTLED_JS = """() => {
  const app = document.querySelector('[data-testid=stApp]');
  return !!app && app.dataset.testScriptState === 'notRunning' && app.dataset.testConnectionState === 'CONNECTED'
    && !document.querySelector('[data-testid=stSkeleton], [data-testid=stStatusWidget], '
      + '[data-testid=stElementContainer][data-stale=true]');
}"""
STILL_SETTLED_JS = f"""async () => {{
  for (let frame = 0; frame < 2; frame++) await new Promise(requestAnimationFrame);
  return ({SETTLED_JS})();
}}"""


def settle(page) -> None:
    """Wait until Streamlit has finished its script run and drawn every element (none left from the last run), and
    it is still so two animation frames later.

    The two frames: a message of a run (a new URL, an element) is handled in a task of its own, and React draws the
    state it sets ("running") in a later one, so for a moment after a run's first message the page still reads as
    settled.
    """
    deadline = time.monotonic() + WAIT_MS / 1000
    while True:
        page.wait_for_function(SETTLED_JS, timeout=max(1.0, (deadline - time.monotonic()) * 1000))
        if page.evaluate(STILL_SETTLED_JS):
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"Streamlit did not settle within {WAIT_MS / 1000:.0f} s")


@contextlib.contextmanager
def draft_changed(page) -> Iterator[None]:
    """Wait, after an edit of the scenario made in the ``with`` block, until the script run it starts has finished.

    Nothing on the page changes between the edit (a key, a click) and that run's first message (the browser waits
    for the server: a few hundred ms, more on a busy machine), so :func:`settle` alone may return before the run has
    begun and the next step read the page as it was. The app writes the draft into the URL in each run in which it
    changed (``rackcost_app.links``): a new URL is that run begun; then settle.
    """
    before = page.evaluate("location.href")
    yield
    page.wait_for_function("before => location.href !== before", arg=before, timeout=WAIT_MS)
    settle(page)


def go(page, title: str) -> None:
    page.get_by_test_id("stSidebarNav").get_by_role("link", name=title, exact=True).click()
    page.get_by_role("heading", name=title, exact=True).first.wait_for(timeout=WAIT_MS)
    settle(page)


def number_input(page, path: str):
    """The input of a form field by YAML path: the field's own, or the central parameter of its distribution.

    Widgets are keyed ``g<generation>|<path>``; Streamlit puts the key into a class, each character outside
    ``[a-zA-Z0-9_-]`` replaced by ``-``.
    """
    css = re.sub(r"[^a-zA-Z0-9_-]", "-", path)
    page.locator(f'[class*="-{css}"] input').first.wait_for(timeout=WAIT_MS)
    for suffix in ("-mode", "-median", ""):
        found = page.locator(f'[class$="-{css}{suffix}"] input, [class*="-{css}{suffix} "] input')
        if found.count():
            return found.first
    raise AssertionError(f"no input for {path}")


def load(page, scenario: str) -> None:
    """Load a bundled scenario from the Scenario page; wait until the sidebar names it and the page is redrawn."""
    data = yaml.safe_load(rackcost.bundled_scenario_path(scenario).read_text(encoding="utf-8"))
    page.get_by_test_id("stSelectbox").first.click()
    page.get_by_role("option", name=scenario).click()
    page.get_by_role("button", name="Load this scenario").click()
    page.get_by_test_id("stSidebar").get_by_text(data["name"], exact=True).wait_for(timeout=WAIT_MS)
    # the sidebar is drawn first: wait for the page's last system tab and one metric per system
    page.get_by_role("tab", name=f"System: {data['systems'][-1]['name']}").wait_for(timeout=WAIT_MS)
    page.wait_for_function(
        "n => document.querySelectorAll('[data-testid=stMetricLabel]').length === n",
        arg=len(data["systems"]),
        timeout=WAIT_MS,
    )
    settle(page)


# the panel of the open tab of that label holds an element
TAB_PANEL_BUILT_JS = """label => {
  const tab = [...document.querySelectorAll('[role=tab][aria-selected=true]')].find(t => t.innerText.trim() === label);
  const panel = tab && document.getElementById(tab.getAttribute('aria-controls'));
  return !!panel && !!panel.querySelector('[data-testid=stElementContainer]');
}"""


def open_tab(page, label: str) -> None:
    """Open a tab and wait until its panel is built and the page settled.

    The Scenario page builds the open tab's widgets only, in the script run a click on a tab starts: the tab shows
    as selected at once, its panel empty until that run sends them (and :func:`settle` may return before the run has
    begun). A tab whose panel was built already, or one of tabs that do not rerun, holds its elements at once.
    """
    page.get_by_role("tab", name=label, exact=True).click()
    page.locator("[role=tab][aria-selected=true]", has_text=label).wait_for(timeout=WAIT_MS)
    page.wait_for_function(TAB_PANEL_BUILT_JS, arg=label, timeout=WAIT_MS)
    settle(page)


def selected_tab(page) -> str:
    return page.locator("[role=tab][aria-selected=true]").inner_text()


def alert(page, text: str):
    """The first alert box (error, warning...) holding ``text``."""
    return page.get_by_test_id("stAlert").filter(has_text=text).first


def visible_alerts(page) -> str:
    return "\n".join(a.inner_text() for a in page.get_by_test_id("stAlert").all() if a.is_visible())


# words of widget labels broken across two lines between two letters or digits ("electrici|ty")
SPLIT_WORDS_JS = """() => {
  const broken = [];
  for (const label of document.querySelectorAll('[data-testid=stWidgetLabel]')) {
    if (!label.checkVisibility()) continue;
    const walker = document.createTreeWalker(label, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.data;
      for (let i = 1; i < text.length; i++) {
        if (!/[\\p{L}\\p{N}]/u.test(text[i - 1]) || !/[\\p{L}\\p{N}]/u.test(text[i])) continue;
        const a = document.createRange(); a.setStart(node, i - 1); a.setEnd(node, i);
        const b = document.createRange(); b.setStart(node, i); b.setEnd(node, i + 1);
        const ra = a.getBoundingClientRect(), rb = b.getBoundingClientRect();
        if (ra.height && rb.height && rb.top > ra.top + ra.height / 2) {
          broken.push(text.slice(Math.max(0, i - 12), i) + "|" + text.slice(i, i + 12));
        }
      }
    }
  }
  return broken;
}"""

# metric labels cut with an ellipsis: some element of the label is wider inside than it is shown
CUT_METRICS_JS = """() => [...document.querySelectorAll('[data-testid=stMetricLabel]')]
  .filter(label => [label, ...label.querySelectorAll('*')].some(e => e.scrollWidth > e.clientWidth + 1))
  .map(label => label.innerText)"""

# every chart's drawing against the column that holds it [px]
CHART_WIDTHS_JS = """() => [...document.querySelectorAll('[data-testid=stVegaLiteChart]')].map(chart => {
  const drawing = chart.querySelector('svg, canvas');
  const column = chart.closest('[data-testid=stColumn]')
    || chart.closest('[data-testid=stMain] [data-testid=stVerticalBlock]');
  return [drawing.getBoundingClientRect().width, column.getBoundingClientRect().width];
})"""

# boxes of the chart texts that are one of the given words, per chart [px]
TEXT_BOXES_JS = """(words) => [...document.querySelectorAll('[data-testid=stVegaLiteChart]')].map(chart =>
  [...chart.querySelectorAll('g.mark-text text')].filter(t => words.includes(t.textContent)).map(t => {
    const r = t.getBoundingClientRect();
    return [t.textContent, r.left, r.top, r.right, r.bottom];
  }))"""


def overlapping(boxes: list) -> list[tuple[str, str]]:
    """Pairs of text boxes ``[text, left, top, right, bottom]`` that overlap."""
    return [
        (a[0], b[0])
        for i, a in enumerate(boxes)
        for b in boxes[i + 1 :]
        if a[1] < b[3] and b[1] < a[3] and a[2] < b[4] and b[2] < a[4]
    ]


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
            page.goto(f"{url}/scenario")  # the app opens on the Answer page
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
            price = number_input(page, "facility.electricity_usd_per_kwh")
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


def test_an_invalid_edit_a_refused_yaml_text_and_refused_uploads_keep_the_user_where_they_were(tmp_path):
    if not CHROMIUM.exists():
        pytest.fail(missing_chromium_message())
    from playwright.sync_api import sync_playwright

    with streamlit_app(tmp_path / "streamlit.log") as url, sync_playwright() as p:
        browser = launch_chromium(p)
        try:
            page = browser.new_page(viewport={"width": 1600, "height": 1000})
            page.goto(f"{url}/scenario")  # the app opens on the Answer page
            page.get_by_role("heading", name="Scenario", exact=True).first.wait_for(timeout=WAIT_MS)
            settle(page)

            # an invalid edit on the Facility tab (the mode of the PUE's triangle below its low): the tab stays open,
            # the error under the field is visible
            open_tab(page, "Facility and fleet")
            pue = number_input(page, "facility.pue")
            pue.fill("0.5")
            pue.press("Enter")
            # the field's own error, visible (an error in a tab that is not open is hidden)
            alert(page, "distribution: needs low ≤ mode ≤ high").wait_for(state="visible", timeout=WAIT_MS)
            settle(page)
            assert selected_tab(page) == "Facility and fleet"
            assert "distribution: needs low ≤ mode ≤ high" in visible_alerts(page)

            # renaming a system keeps its tab open, under the new name
            open_tab(page, "System: Jalapeño")
            name = page.locator('[class*="-systems-1--name"] input').first
            name.fill("Jalapeño v2")
            name.press("Enter")
            page.get_by_role("tab", name="System: Jalapeño v2").wait_for(timeout=WAIT_MS)
            settle(page)
            assert selected_tab(page) == "System: Jalapeño v2"

            # a YAML text with a problem: the YAML tab stays open, its problem shown under the button
            open_tab(page, "YAML")
            page.get_by_role("textbox", name="Scenario YAML").fill("name: [unclosed\n")
            page.get_by_role("button", name="Apply this YAML").click()
            alert(page, "Not applied:").wait_for(state="visible", timeout=WAIT_MS)
            settle(page)
            assert selected_tab(page) == "YAML"
            assert "not valid YAML" in visible_alerts(page)

            # the uploader states the limit the app enforces (its own label says "at most 1 MB")
            dropzone = page.get_by_test_id("stFileUploaderDropzone").first
            assert "1MB per file" in dropzone.inner_text(), dropzone.inner_text()
            # each refused upload shows its own message, also a name the uploader used to refuse itself (.txt)
            uploader = page.get_by_test_id("stFileUploaderDropzoneInput").first
            files = {"first.yaml": b"name: [unclosed\n", "notes.txt": b"just: text\n"}
            for name, data in files.items():
                (tmp_path / name).write_bytes(data)
                uploader.set_input_files(str(tmp_path / name))
                alert(page, f"Not loaded: {name}").wait_for(timeout=WAIT_MS)
                settle(page)
                shown = visible_alerts(page)
                assert not [other for other in files if other != name and other in shown], shown
            # a file over 1 MB: Streamlit's uploader refuses it itself (its frontend counts 1 MB as 1,000,000 bytes,
            # the app's own limit), saying so by the file
            (tmp_path / "big.yaml").write_bytes(b"# " + b"x" * 2_000_000)
            uploader.set_input_files(str(tmp_path / "big.yaml"))
            page.get_by_test_id("stFileChip").filter(has_text="big.yaml").get_by_text(
                "File must be 1.0MB or smaller"
            ).wait_for(timeout=WAIT_MS)
        finally:
            browser.close()


def test_the_layout_fits_with_six_systems_and_no_label_is_cut_or_broken(tmp_path):
    if not CHROMIUM.exists():
        pytest.fail(missing_chromium_message())
    from playwright.sync_api import sync_playwright

    with streamlit_app(tmp_path / "streamlit.log") as url, sync_playwright() as p:
        browser = launch_chromium(p)
        try:
            page = browser.new_page(viewport={"width": 1600, "height": 1000})
            page.goto(f"{url}/scenario")  # the app opens on the Answer page
            page.get_by_role("heading", name="Scenario", exact=True).first.wait_for(timeout=WAIT_MS)
            settle(page)

            # form labels, at a wide and a narrow window (the default scenario has fields given as distributions)
            for width in (1600, 1024):
                page.set_viewport_size({"width": width, "height": 1000})
                for tab in ("Workload and SLO", "Facility and fleet", "System: Jalapeño"):
                    open_tab(page, tab)
                    assert page.evaluate(SPLIT_WORDS_JS) == [], (width, tab)
            page.set_viewport_size({"width": 1600, "height": 1000})
            # looking is not editing: no tab click or resize moved a widget (a slider once sent its first step)
            assert "(edited)" not in page.get_by_test_id("stSidebar").inner_text()

            load(page, GAUDI)
            assert page.evaluate(CUT_METRICS_JS) == []
            page.screenshot(path=str(tmp_path / "scenario-gaudi.png"))

            go(page, "Results")
            page.get_by_test_id("stVegaLiteChart").nth(3).locator("svg, canvas").first.wait_for(timeout=WAIT_MS)
            assert page.evaluate(CUT_METRICS_JS) == []
            widths = page.evaluate(CHART_WIDTHS_JS)
            assert len(widths) >= 4
            assert all(0 < chart <= column + 1 for chart, column in widths), widths
            demand = yaml.safe_load(rackcost.bundled_scenario_path(GAUDI).read_text(encoding="utf-8"))["demand"]
            for scenario in (GAUDI, SCENARIO):
                if scenario != GAUDI:
                    go(page, "Scenario")
                    load(page, scenario)
                    go(page, "Results")
                    page.get_by_test_id("stVegaLiteChart").nth(3).locator("svg").first.wait_for(timeout=WAIT_MS)
                    data = yaml.safe_load(rackcost.bundled_scenario_path(scenario).read_text(encoding="utf-8"))
                    demand = data["demand"]
                boxes = page.evaluate(TEXT_BOXES_JS, [d["name"] for d in demand])
                cliff = boxes[2:4]  # the two latency-cliff panels (after the cost and demand-scale charts)
                assert all(len(chart) == len(demand) for chart in cliff), cliff
                assert [overlapping(chart) for chart in cliff] == [[], []], cliff
            page.screenshot(path=str(tmp_path / "results.png"))

            go(page, "Claim vs decision")
            assert page.evaluate(CUT_METRICS_JS) == []

            # the Sweep page: its winner map and both Pareto charts drawn inside their columns, no label broken
            go(page, "Sweep")
            page.get_by_test_id("stVegaLiteChart").nth(2).locator("svg, canvas").first.wait_for(timeout=WAIT_MS)
            for width in (1600, 1024):
                page.set_viewport_size({"width": width, "height": 1000})
                settle(page)
                try:  # Vega redraws a chart some frames after its column resizes: wait for the redraw
                    page.wait_for_function(
                        f"(({CHART_WIDTHS_JS})()).every(([chart, column]) => 0 < chart && chart <= column + 1)",
                        timeout=WAIT_MS,
                    )
                except Exception:  # noqa: BLE001, S110 - the assertion below says what did not fit
                    pass
                widths = page.evaluate(CHART_WIDTHS_JS)
                assert len(widths) == 3
                assert all(0 < chart <= column + 1 for chart, column in widths), (width, widths)
                assert page.evaluate(SPLIT_WORDS_JS) == [], width
            page.screenshot(path=str(tmp_path / "sweep.png"))
        finally:
            browser.close()


def hostile(tag: str) -> str:
    """A name that Markdown would turn into images and links to other hosts, a relative URL, HTML and directives."""
    return (
        f"{tag} ![i](http://attacker.example/{tag}.png) ![r](attacker-relative-{tag}.png) "
        f"<img src=//attacker.example/{tag}-h.png> [l](javascript:alert(1)) :red[{tag}] :material/home: $x$"
    )


# a file name holds no slash: an image at https:host (a scheme unlike the page's is read as https://host)
HOSTILE_FILE = "![f](https:attacker.example) <img src=https:attacker.example> :red[f] attacker-file.yaml"


def hostile_yaml() -> str:
    """The default scenario with every name, source and note replaced by hostile text."""
    data = yaml.safe_load(rackcost.bundled_scenario_path().read_text(encoding="utf-8"))
    data["name"] = hostile("scenario")
    data["description"] = hostile("description")
    for i, system in enumerate(data["systems"]):
        system["name"] = hostile(f"system{i}")
        for field in ("source", "notes", "reported_by", "software_stack"):
            system["provenance"][field] = hostile(f"{field}{i}")
    for i, point in enumerate(data["demand"]):
        point["name"] = hostile(f"point{i}")
    for i, figure in enumerate(data["figures"].values()):
        figure["source"] = hostile(f"source{i}")
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True)


def hover_help_icons(page) -> None:
    """Show every help tooltip of the page (their Markdown is rendered only when shown)."""
    for icon in page.get_by_test_id("stTooltipIcon").all():
        if icon.is_visible():
            icon.hover()
            page.wait_for_timeout(50)
    page.mouse.move(0, 0)


def test_hostile_names_make_no_request_to_any_other_host(tmp_path):
    if not CHROMIUM.exists():
        pytest.fail(missing_chromium_message())
    from urllib.parse import urlsplit

    from playwright.sync_api import sync_playwright

    requests: list[str] = []
    with streamlit_app(tmp_path / "streamlit.log") as url, sync_playwright() as p:
        server = urlsplit(url).netloc
        browser = launch_chromium(p)
        try:
            context = browser.new_context(viewport={"width": 1600, "height": 1000})

            def record(route) -> None:
                requests.append(route.request.url)
                if urlsplit(route.request.url).netloc == server:
                    route.continue_()
                else:
                    route.abort()

            context.route("**/*", record)
            page = context.new_page()
            page.on("request", lambda request: requests.append(request.url))
            page.goto(f"{url}/scenario")  # the app opens on the Answer page
            page.get_by_role("heading", name="Scenario", exact=True).first.wait_for(timeout=WAIT_MS)
            settle(page)
            (tmp_path / HOSTILE_FILE).write_text(hostile_yaml(), encoding="utf-8")
            page.get_by_test_id("stFileUploaderDropzoneInput").first.set_input_files(str(tmp_path / HOSTILE_FILE))
            page.get_by_role("tab", name=re.compile("system1")).first.wait_for(timeout=WAIT_MS)
            settle(page)
            sidebar_text = page.get_by_test_id("stSidebar").inner_text()
            tabs = page.get_by_role("tab").all_inner_texts()
            for i in range(len(tabs)):
                page.get_by_role("tab").nth(i).click()
                page.locator("[role=tab][aria-selected=true]").nth(0).wait_for(timeout=WAIT_MS)
                settle(page)
                hover_help_icons(page)
            for title in ("Results", "Claim vs decision", "Uncertainty", "Sweep", "Export"):
                go(page, title)
                hover_help_icons(page)
            page.wait_for_timeout(500)
        finally:
            browser.close()
    elsewhere = sorted({u for u in requests if urlsplit(u).netloc != server})
    from_the_file = sorted({u for u in requests if "attacker" in u})
    assert elsewhere == [] and from_the_file == [], (elsewhere, from_the_file)
    assert len(requests) > 10  # the listener saw the app's own requests
    # and the names are shown as written: text, not Markdown
    assert hostile("scenario") in sidebar_text and HOSTILE_FILE in sidebar_text, sidebar_text
    assert f"System: {hostile('system1')}" in tabs, tabs


def small_screenshot(page, path) -> None:
    """A screenshot of the window as a palette PNG (a few dozen KB: docs/screenshots stays small), without a tooltip
    (the mouse moved away from the button it clicked, the button's focus dropped) or a toast (they go after a few
    seconds: waited for)."""
    from io import BytesIO

    from PIL import Image

    page.mouse.move(0, 0)
    page.evaluate("document.activeElement && document.activeElement.blur()")  # a focused button shows its help
    for shown in (*page.get_by_test_id("stToast").all(), *page.get_by_test_id("stTooltipContent").all()):
        shown.wait_for(state="hidden", timeout=WAIT_MS)

    image = Image.open(BytesIO(page.screenshot()))
    image.convert("RGB").quantize(colors=64).save(path, optimize=True)


def answer_sentence_shown(page) -> str:
    """The Answer page's first line (its subheader), once drawn."""
    heading = page.locator("[data-testid=stMain] h3", has_text="per accepted request").first
    heading.wait_for(timeout=WAIT_MS)
    return heading.inner_text()


WALK_STEPS = (
    "answer-1-open",
    "answer-2-peak-doubled",
    "answer-3-rented-added",
    "answer-4-reloaded",
    "answer-5-infeasible",
)
"""The walk's screenshots (docs/screenshots/<step>.png), in its order."""


def answer_table_rows(page) -> list[str]:
    """The systems table of the Answer page (its first table), row by row."""
    table = page.get_by_test_id("stDataFrame").first
    table.locator("table td").first.wait_for(state="attached", timeout=WAIT_MS)
    return table.locator("table tr").all_text_contents()


def wait_for_answer_rows(page, has: str, has_not: str | None = None) -> list[str]:
    """The Answer page's systems table once a row holds ``has`` (and none ``has_not``)."""
    deadline = time.monotonic() + WAIT_MS / 1000
    rows = answer_table_rows(page)
    while time.monotonic() < deadline and not (
        any(has in r for r in rows) and (has_not is None or not any(has_not in r for r in rows))
    ):
        page.wait_for_timeout(250)
        rows = answer_table_rows(page)
    return rows


def walk(page, url: str, out) -> dict:
    """Open the app, read the answer, double the peak demand, read the new answer, add a rented system with the
    Scenario page's form, reload and find the same state, then make one system infeasible (a TPOT limit it cannot
    meet, typed and then moved on the slider) and find the others answering with it marked.

    A screenshot of each step is written into ``out`` (:data:`WALK_STEPS`). Returns the answer sentences, the
    systems tables, the alerts and the URLs seen.
    """
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
    from playwright.sync_api import expect

    page.goto(url)
    page.get_by_role("heading", name="Answer", exact=True).first.wait_for(timeout=WAIT_MS)
    settle(page)
    first = answer_sentence_shown(page)
    # the app's own config (app/.streamlit/config.toml): a viewer's toolbar, no Deploy
    assert page.get_by_test_id("stAppDeployButton").count() == 0
    assert page.get_by_role("button", name="Deploy").count() == 0
    small_screenshot(page, out / "answer-1-open.png")

    # double the peak: the YAML tab's text with the busiest demand point's arrival rate doubled, applied
    go(page, "Scenario")
    open_tab(page, "YAML")
    box = page.get_by_role("textbox", name="Scenario YAML")
    # the text area is drawn before its text arrives on a busy machine: wait for the scenario in it, not a fixed time
    expect(box).to_have_value(re.compile(r"demand:[\s\S]*arrival_rps"), timeout=WAIT_MS)
    data = yaml.safe_load(box.input_value())
    peak = max(data["demand"], key=lambda d: d["arrival_rps"])
    peak["arrival_rps"] *= 2
    box.fill(yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
    page.get_by_role("button", name="Apply this YAML").click()
    page.get_by_test_id("stSidebar").get_by_text("(edited)").wait_for(timeout=WAIT_MS)
    settle(page)
    go(page, "Answer")
    page.wait_for_function(
        "old => { const h = [...document.querySelectorAll('[data-testid=stMain] h3')]"
        ".find(e => e.innerText.includes('per accepted request')); return h && h.innerText !== old; }",
        arg=first,
        timeout=WAIT_MS,
    )
    settle(page)
    second = answer_sentence_shown(page)
    small_screenshot(page, out / "answer-2-peak-doubled.png")

    # add a rented system by the form: Jalapeño's tab, "Add a rented system from this curve"; its tab opens
    go(page, "Scenario")
    open_tab(page, "System: Jalapeño")
    add = page.get_by_role("button", name="Add a rented system from this curve")
    add.click()
    added_tab = page.get_by_role("tab", name="System: Jalapeño (rented)", exact=True)
    try:
        added_tab.wait_for(timeout=REVISIT_MS)
    except PlaywrightTimeoutError:
        # a click that lands while a run redraws the page is lost (seen once on a loaded fresh clone's CI run, the
        # button still there and no new tab after two minutes): a user would click again once the page is still
        settle(page)
        if added_tab.count() == 0:
            add.click()
        added_tab.wait_for(timeout=WAIT_MS)
    if selected_tab(page) != "System: Jalapeño (rented)":
        open_tab(page, "System: Jalapeño (rented)")
    page.locator("[role=tab][aria-selected=true]", has_text="System: Jalapeño (rented)").wait_for(timeout=WAIT_MS)
    # (the first run after the click may still hold the old tab's panel, hidden: wait for the new system's own
    # visible panel, which lists the starting values the dashboard chose for it; the one-run "Added ..." message is
    # not waited for: a later run on a loaded machine may already have replaced it)
    reviewed = page.locator("[data-testid=stAlert]:visible", has_text="To be reviewed").first
    try:
        reviewed.wait_for(timeout=REVISIT_MS)
    except PlaywrightTimeoutError:
        # seen once in about a dozen walks (a fresh clone's CI run, not reproduced in 8 more): the new tab selected
        # and no panel shown, with no script run to come. A user would click another tab and back: so does the test
        open_tab(page, "System: Jalapeño")
        open_tab(page, "System: Jalapeño (rented)")
        reviewed.wait_for(timeout=WAIT_MS)
    settle(page)
    small_screenshot(page, out / "answer-3-rented-added.png")
    go(page, "Answer")
    added_rows = wait_for_answer_rows(page, "Jalapeño (rented)")
    settle(page)
    added = answer_sentence_shown(page)
    edited_url = page.url

    page.reload()
    page.get_by_role("heading", name="Answer", exact=True).first.wait_for(timeout=WAIT_MS)
    page.get_by_test_id("stSidebar").get_by_text("(edited)").wait_for(timeout=WAIT_MS)
    settle(page)
    reloaded = answer_sentence_shown(page)
    reloaded_rows = wait_for_answer_rows(page, "Jalapeño (rented)")
    reloaded_url = page.url
    small_screenshot(page, out / "answer-4-reloaded.png")

    # a system made infeasible: a TPOT limit under GB300 NVL72's fastest point (5.9 ms), typed (5.5 ms), then the
    # slider one step down (5 ms); each follows the other
    go(page, "Scenario")
    open_tab(page, "Workload and SLO")
    tpot = number_input(page, "slo.tpot_limit_ms")
    tpot.fill("5.5")
    tpot.press("Enter")
    settle(page)
    slider = page.locator('[class*="-slo-tpot_limit_ms-slider-"] input[type=range]').first
    expect(slider).to_have_attribute("aria-valuetext", "5.5 ms", timeout=WAIT_MS)
    slider.focus()
    slider.press("ArrowLeft")
    expect(number_input(page, "slo.tpot_limit_ms")).to_have_value("5", timeout=WAIT_MS)
    settle(page)
    go(page, "Answer")
    marked = alert(page, "cannot serve this scenario")
    marked.wait_for(state="visible", timeout=WAIT_MS)
    infeasible_rows = wait_for_answer_rows(page, "Jalapeño", has_not="GB300")
    settle(page)
    small_screenshot(page, out / "answer-5-infeasible.png")
    return {
        "first": first,
        "second": second,
        "added": added,
        "added_rows": added_rows,
        "reloaded": reloaded,
        "reloaded_rows": reloaded_rows,
        "edited_url": edited_url,
        "reloaded_url": reloaded_url,
        "infeasible": answer_sentence_shown(page),
        "infeasible_rows": infeasible_rows,
        "marked": marked.inner_text(),
    }


def test_open_answer_double_the_peak_new_answer_reload_same_state(tmp_path):
    """Issue 22's walk: open, the answer, double the peak, a new answer, a rented system added by the form, reload
    (the same state, the added system too), then a system made infeasible: the others answer, it is marked."""
    if not CHROMIUM.exists():
        pytest.fail(missing_chromium_message())
    from playwright.sync_api import sync_playwright

    with streamlit_app(tmp_path / "streamlit.log") as url, sync_playwright() as p:
        browser = launch_chromium(p)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            seen = walk(page, url, tmp_path)
        finally:
            browser.close()
    assert "Jalapeño is the cheapest per accepted request" in seen["first"]
    assert seen["second"] != seen["first"]
    rented = [r for r in seen["added_rows"] if "Jalapeño (rented)" in r]
    assert rented and "rent reserved" in rented[0], seen["added_rows"]
    # the reload restored the edited scenario, the added system with it, from the URL
    assert seen["reloaded"] == seen["added"]
    assert seen["reloaded_rows"] == seen["added_rows"]
    assert "?" in seen["edited_url"] and seen["reloaded_url"] == seen["edited_url"]
    # GB300 NVL72 cannot meet a 5 ms TPOT: marked with why, the two Jalapeño systems still answer
    assert "GB300 NVL72" in seen["marked"] and "TPOT ≤ 5 ms" in seen["marked"], seen["marked"]
    assert not any("GB300" in r for r in seen["infeasible_rows"])
    assert sum("Jalapeño" in r for r in seen["infeasible_rows"]) == 2, seen["infeasible_rows"]
    assert "Jalapeño" in seen["infeasible"]
    for step in WALK_STEPS:
        assert (tmp_path / f"{step}.png").stat().st_size < 200_000


def test_the_cost_against_demand_chart_is_drawn_at_its_height_with_dollar_ticks(tmp_path):
    """The chart that Streamlit's default autosize squeezed to 10 px with the ticks 0 and 1: measured in the DOM."""
    if not CHROMIUM.exists():
        pytest.fail(missing_chromium_message())
    from playwright.sync_api import sync_playwright

    with streamlit_app(tmp_path / "streamlit.log") as url, sync_playwright() as p:
        browser = launch_chromium(p)
        try:
            page = browser.new_page(viewport={"width": 1600, "height": 1000})
            page.goto(f"{url}/results")
            page.get_by_role("heading", name="Results", exact=True).first.wait_for(timeout=WAIT_MS)
            settle(page)
            chart = page.get_by_test_id("stVegaLiteChart").filter(
                has=page.locator("g[aria-label^='X-axis titled \\'demand scale']")
            )
            chart.wait_for(timeout=WAIT_MS)
            y_axis = chart.locator("g[aria-label^='Y-axis']").first
            label = y_axis.get_attribute("aria-label")
            ticks = [t for t in y_axis.locator("g.role-axis-label text").all_text_contents() if t]
            height = y_axis.bounding_box()["height"]
            # every system's line: one path per system in the line mark
            lines = chart.locator("g.mark-line path").count()
        finally:
            browser.close()
    assert "$ per 1,000 accepted requests" in label, label
    # the default scenario's blended costs lie between $0.4 and $1.2 per 1,000 accepted requests
    found = re.search(r"values from \$?([\d.]+) to \$?([\d.]+)", label)
    assert found and 0.2 <= float(found[1]) <= 0.5 and 1.0 <= float(found[2]) <= 1.5, label
    assert len(ticks) >= 4 and all(t.startswith("$") for t in ticks), ticks
    assert height >= 250, height  # the plot's own 300 px, not squeezed
    assert lines == 2


# boxes of every axis's shown tick labels, per axis of every chart [px] (Vega hides a label that would overlap
# another by its opacity: such a label is not shown)
AXIS_LABEL_BOXES_JS = """() => [...document.querySelectorAll('[data-testid=stVegaLiteChart] g.role-axis')].map(axis =>
  [...axis.querySelectorAll('g.role-axis-label text')]
  .filter(t => t.textContent && t.getAttribute('opacity') !== '0' && getComputedStyle(t).opacity !== '0').map(t => {
    const r = t.getBoundingClientRect();
    return [t.textContent, r.left, r.top, r.right, r.bottom];
  }))"""

# the main column's width and every element of it that is wider (a table, chart or heading cut at its right) [px]
WIDER_THAN_MAIN_JS = """() => {
  const main = document.querySelector('[data-testid=stMainBlockContainer]').getBoundingClientRect();
  return [...document.querySelectorAll('[data-testid=stMainBlockContainer] [data-testid=stElementContainer]')]
    .map(e => [e.getAttribute('data-testid'), e.innerText.slice(0, 40), e.getBoundingClientRect().right])
    .filter(([, , right]) => right > main.right + 1);
}"""


def test_the_answer_and_results_pages_read_at_1024_and_1440_px(tmp_path):
    """Issue 36: at 1,024 px the headline was cut ("$2.13 per..."), the latency-cliff charts were slivers with
    overlapping labels, the cost chart was cut off. Measured at both widths: no metric cut, every chart inside its
    column and at least 300 px wide, no two tick labels of an axis overlapping, nothing wider than the page."""
    if not CHROMIUM.exists():
        pytest.fail(missing_chromium_message())
    from playwright.sync_api import sync_playwright

    demand = [d["name"] for d in yaml.safe_load(rackcost.bundled_scenario_path().read_text(encoding="utf-8"))["demand"]]
    seen: dict = {}
    with streamlit_app(tmp_path / "streamlit.log") as url, sync_playwright() as p:
        browser = launch_chromium(p)
        try:
            page = browser.new_page(viewport={"width": 1440, "height": 1000})
            page.goto(url)  # the Answer page, the default scenario
            page.get_by_role("heading", name="Answer", exact=True).first.wait_for(timeout=WAIT_MS)
            settle(page)
            for width in (1024, 1440):
                page.set_viewport_size({"width": width, "height": 1000})
                for title in ("Answer", "Results"):
                    go(page, title)
                    if title == "Results":
                        page.get_by_test_id("stVegaLiteChart").nth(4).locator("svg").first.wait_for(timeout=WAIT_MS)
                    page.wait_for_function(
                        f"(({CHART_WIDTHS_JS})()).every(([chart, column]) => 0 < chart && chart <= column + 1)",
                        timeout=WAIT_MS,
                    )
                    seen[(width, title)] = {
                        "cut metrics": page.evaluate(CUT_METRICS_JS),
                        "charts": page.evaluate(CHART_WIDTHS_JS),
                        "axes": page.evaluate(AXIS_LABEL_BOXES_JS),
                        "demand labels": page.evaluate(TEXT_BOXES_JS, demand),
                        "too wide": page.evaluate(WIDER_THAN_MAIN_JS),
                        "metrics": page.get_by_test_id("stMetric").count(),
                    }
                    height = page.evaluate(
                        "document.querySelector('[data-testid=stMain]').scrollHeight"
                    )  # Streamlit scrolls inside its main element: the window as tall as the page, for the shot
                    page.set_viewport_size({"width": width, "height": min(int(height) + 80, 9000)})
                    settle(page)
                    page.screenshot(path=str(tmp_path / f"{title.lower()}-{width}.png"), full_page=True)
                    page.set_viewport_size({"width": width, "height": 1000})
        finally:
            browser.close()
    for (width, title), found in seen.items():
        where = (width, title)
        assert found["metrics"] >= 2 and found["cut metrics"] == [], (where, found["cut metrics"])
        assert found["too wide"] == [], (where, found["too wide"])
        assert all(0 < chart <= column + 1 for chart, column in found["charts"]), (where, found["charts"])
        assert [overlapping(axis) for axis in found["axes"] if overlapping(axis)] == [], where
        if title == "Results":
            assert len(found["charts"]) >= 5, (where, found["charts"])
            assert all(chart >= 300 for chart, _ in found["charts"]), (where, found["charts"])  # no sliver
            cliff = found["demand labels"][2:4]
            assert all(len(chart) == len(demand) for chart in cliff), (where, cliff)
            assert [overlapping(chart) for chart in cliff] == [[], []], (where, cliff)
