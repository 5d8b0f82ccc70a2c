"""Speed of the dashboard: the recomputation after an edit, the script runs, and what a user waits for in a browser.

Run: ``.venv/bin/python benchmarks/bench_app.py`` (add ``--browser`` for the browser timings, which need
/usr/bin/chromium and Playwright, as tests/test_browser.py does; ``--recompute-only`` for the recomputation alone).

**Recomputation.**
For each bundled scenario, each repeat changes the electricity price (so every call misses the cache, as after an
edit in the app) and times, in CPU time (``time.process_time``: on the shared 2-core machine other processes add
less to it than to wall time, which at a load average of 10 moved the least times by half), three things against
the library doing the same, the repeats interleaved over the scenarios and the three, least times compared:

1. *an edit*: what every page waits for after an edit: validate the edited draft (``scenario_from_dict`` and
   ``rackcost_app.state.evaluable_json``, as the Scenario page does on every edit), then the cached
   ``compute.evaluate`` (through ``st.cache_data``), against the library's ``scenario_from_dict`` then
   :func:`rackcost.evaluate` (target: within 1.3x);
2. *the Results page*: the same and its two charts' cached calls (``operating_curves``, ``latency_cliff``), against
   the library computing the same (validate, :func:`rackcost.evaluation.chain.evaluation`, the two functions of
   :mod:`rackcost.analysis.explore` on its outcomes): what the dashboard adds to the same computation;
3. the Results page's recomputation (2.) against the library's validate + evaluate alone (1.'s library figure), the
   ratio this script printed before: it counts the two charts' own model runs (the latency cliff serves each
   fleet at 80 rates; with request classes that is more than the evaluation) as the dashboard's overhead.

It prints how many times each edit validated the scenario (``Scenario.model_validate`` calls;
tests/test_app_validation.py asserts one).

Measured (issue 24, item 5; ``PYTHONPATH=src .venv/bin/python benchmarks/bench_app.py``, the tree before and after
one after the other on this 2-core machine, load average about 2.7 from other work, wall time): the recomputation
after an edit, least of 21 interleaved repeats, 15.4-37.5 ms with 6 validations per edit before and 13.0-32.9 ms
with 1 after (a validation is 1-3 ms); the script runs the same within the noise.

Measured when the dashboard came to read the library's one evaluation (``--recompute-only``, wall time, the tree
before and after one after the other, same machine and load): 3. median 2.00x (worst 2.33x) before and 1.72x (worst
2.14x) after; the three-year buying plan went from 0.43x to 1.25x because the dashboard now computes its ``years``
and ``horizon`` tables, which it had left out.

Measured when an edit's evaluation came to reuse the inputs its validation's split unpacked (``--recompute-only``,
CPU time as above, the tree before and after one after the other, load average 3-10): 1. median 1.26x (worst 1.40x)
before and 1.20x (worst 1.39x) after; 2. 1.27x (1.32x) and 1.24x (1.32x); 3. 1.74x (2.19x) and 1.80x (2.13x), the
charts' own model runs, which the dashboard does not repeat (2.), being most of what separates it from evaluate.

**Script runs** (AppTest, no browser): the Python time of one run of the Scenario page and of the Results page per
bundled scenario, after a load (median of a few runs; the model's own time is in the recomputation above).

**Browser** (``--browser``): ``streamlit run`` on a loopback port and headless Chromium at 1600x1000, timing what
the user waits for: the first numbers after opening (a new tab to the Answer page's first metric drawn; the first
session of a new server once, then the median of 5 new tabs), loading each bundled scenario (click to the page
drawn with its name), an edit of the electricity price on the Facility tab (Enter to the first blended-cost metric
changing, median of 5), and the Results page (click to its five charts drawn, median of 5).
"""

from __future__ import annotations

import copy
import logging
import re
import statistics
import sys
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "app"))
logging.getLogger("streamlit").setLevel(logging.ERROR)  # "no runtime" notices: the cache works without one

import rackcost  # noqa: E402
from rackcost.analysis.explore import latency_cliff, operating_curves  # noqa: E402
from rackcost.evaluation.chain import evaluation  # noqa: E402
from rackcost_app import compute  # noqa: E402
from rackcost_app.state import evaluable_json  # noqa: E402

REPEATS = 21


def _edited(data: dict, price: float) -> dict:
    edited = copy.deepcopy(data)
    edited["facility"]["electricity_usd_per_kwh"] = price
    return edited


def edit(data: dict, price: float, charts: bool = False) -> tuple[float, int]:
    """CPU seconds for one edit as the app does it: validate the draft (``evaluable_json`` hands the validated
    scenario to the cached calls), then ``compute.evaluate`` on the new key, and with ``charts`` the Results page's
    two charts; and the validations it made."""
    edited = _edited(data, price)
    before = len(VALIDATIONS)
    start = time.process_time()
    key = evaluable_json(rackcost.scenario_from_dict(edited, "bench"))
    compute.evaluate(key)
    if charts:
        compute.curves(key)
        compute.cliff(key)
    return time.process_time() - start, len(VALIDATIONS) - before


def library(data: dict, price: float, charts: bool = False) -> float:
    """CPU seconds for the same edit in the library: validate, then :func:`rackcost.evaluate`; with ``charts``, the
    one evaluation and the two charts' functions on its outcomes."""
    edited = _edited(data, price)
    start = time.process_time()
    scenario = rackcost.scenario_from_dict(edited, "bench")
    if not charts:
        rackcost.evaluate(scenario)
    else:
        once = evaluation(scenario)
        outcomes = list(once.outcomes)
        operating_curves(once.scenario, outcomes=outcomes)
        latency_cliff(once.scenario, outcomes=outcomes)
    return time.process_time() - start


VALIDATIONS: list[int] = []


def count_validations() -> None:
    """Count every ``Scenario.model_validate`` call (what ``rackcost.scenario_from_dict`` validates with) in
    :data:`VALIDATIONS` (a list append: nothing measurable next to a validation)."""
    from rackcost.scenario.schema import Scenario

    original = Scenario.model_validate.__func__  # type: ignore[attr-defined]

    def counted(cls, *args, **kwargs):
        VALIDATIONS.append(1)
        return original(cls, *args, **kwargs)

    Scenario.model_validate = classmethod(counted)  # type: ignore[method-assign]


SCRIPT_REPEATS = 5
BROWSER_WAIT_MS = 120_000
BROWSER_REPEATS = 5
EDIT_WAIT_S = 20.0


def script_runs() -> None:
    """Median Python time of one script run of the Scenario and Results pages, per bundled scenario (AppTest)."""
    from streamlit.testing.v1 import AppTest

    print(f"script run (AppTest, Python side only), median of {SCRIPT_REPEATS}")
    at = AppTest.from_file(str(ROOT / "app" / "streamlit_app.py"), default_timeout=120)
    at.run()
    for path in rackcost.bundled_scenarios():
        at.switch_page("app_pages/scenario.py").run()
        at.selectbox(key="bundled").select(path.name)
        at.button(key="load_bundled").click().run()
        row = []
        for page in ("app_pages/scenario.py", "app_pages/results.py"):
            at.switch_page(page).run()  # computes and caches
            times = []
            for _ in range(SCRIPT_REPEATS):
                start = time.perf_counter()
                at.run()
                times.append(time.perf_counter() - start)
            row.append(f"{page.split('/')[1]:<12} {statistics.median(times) * 1e3:6.0f} ms")
        print(f"   {path.name:<48} " + "   ".join(row))


def browser() -> None:
    """What the user waits for in a browser, in seconds: median of :data:`BROWSER_REPEATS` (the machine is shared)."""
    sys.path.insert(0, str(ROOT / "tests"))
    from playwright.sync_api import sync_playwright

    from app_server import launch_chromium, streamlit_app

    def settle(page) -> None:
        page.wait_for_function(
            "document.querySelectorAll('[data-testid=stSkeleton]').length === 0 && "
            "!document.querySelector('[data-testid=stStatusWidget]')",
            timeout=BROWSER_WAIT_MS,
        )

    def first_metric(page) -> str:
        return page.get_by_test_id("stMetricValue").first.inner_text(timeout=BROWSER_WAIT_MS)

    def go(page, title: str) -> None:
        page.get_by_test_id("stSidebarNav").get_by_role("link", name=title).click()
        page.get_by_role("heading", name=title, exact=True).first.wait_for(timeout=BROWSER_WAIT_MS)

    def open_session(browser_, url: str):
        """A new tab on the app: page open to the Answer's first number drawn."""
        page = browser_.new_page(viewport={"width": 1600, "height": 1000})
        start = time.perf_counter()
        page.goto(url)
        page.get_by_test_id("stMetricValue").first.wait_for(timeout=BROWSER_WAIT_MS)
        took = time.perf_counter() - start
        settle(page)
        return page, took

    def median(values: list[float]) -> str:
        return f"{statistics.median(values):5.2f} s (of {len(values)}: {min(values):.2f}-{max(values):.2f})"

    print(f"browser (headless Chromium 1600x1000), seconds until drawn, median of {BROWSER_REPEATS}")
    with streamlit_app() as url, sync_playwright() as p:
        browser_ = launch_chromium(p)
        try:
            page, first = open_session(browser_, url)
            print(f"   first numbers, first session of a new server     {first:5.2f} s")
            page.close()
            opens = []
            for _ in range(BROWSER_REPEATS):
                page, took = open_session(browser_, url)
                opens.append(took)
                page.close()
            print(f"   first numbers after opening (a new tab)           {median(opens)}")
            page, _ = open_session(browser_, url)
            go(page, "Scenario")
            settle(page)
            for path in rackcost.bundled_scenarios():
                data = yaml.safe_load(path.read_text(encoding="utf-8"))
                page.get_by_test_id("stSelectbox").first.click()
                page.get_by_role("option", name=path.name).click()
                start = time.perf_counter()
                page.get_by_role("button", name="Load this scenario").click()
                # drawn: the sidebar names it, its last system has a tab, there is one metric per system
                page.get_by_test_id("stSidebar").get_by_text(data["name"], exact=True).wait_for(timeout=BROWSER_WAIT_MS)
                last_tab = f"System: {data['systems'][-1]['name']}"
                page.get_by_role("tab", name=last_tab).wait_for(timeout=BROWSER_WAIT_MS)
                page.wait_for_function(
                    "n => document.querySelectorAll('[data-testid=stMetricLabel]').length === n",
                    arg=len(data["systems"]),
                    timeout=BROWSER_WAIT_MS,
                )
                settle(page)
                print(f"   load {path.name:<44} {time.perf_counter() - start:5.2f} s")
            page.get_by_role("tab", name="Facility and fleet").click()
            settle(page)
            edits = []
            for i in range(BROWSER_REPEATS):
                price = f"{0.05 + 0.01 * i:.2f}"
                before = first_metric(page)
                spin = page.get_by_role("spinbutton", name=re.compile(r"^electricity price")).first
                spin.fill(price)
                start = time.perf_counter()
                spin.press("Enter")
                deadline = start + EDIT_WAIT_S
                while first_metric(page) == before and time.perf_counter() < deadline:
                    page.wait_for_timeout(20)
                edits.append(time.perf_counter() - start)
                settle(page)
            print(f"   an edit (electricity price) to its number changing {median(edits)}")
            results = []
            for i in range(BROWSER_REPEATS):
                go(page, "Scenario" if i % 2 else "Answer")
                settle(page)
                start = time.perf_counter()
                go(page, "Results")
                page.wait_for_function(
                    "document.querySelectorAll('[data-testid=stVegaLiteChart] svg').length >= 5",
                    timeout=BROWSER_WAIT_MS,
                )
                settle(page)
                results.append(time.perf_counter() - start)
            print(f"   Results page, click to its five charts drawn       {median(results)}")
        finally:
            browser_.close()


def main() -> None:
    count_validations()
    print(
        f"recomputation after an edit, CPU time, least of {REPEATS} repeats interleaved over the scenarios: 1. an edit "
        "(validate + evaluate) and 2. the Results page (+ operating_curves + latency_cliff) against the library doing "
        "the same, 3. the Results page against the library's validate + evaluate; validations per edit"
    )
    paths = rackcost.bundled_scenarios()
    datas = [yaml.safe_load(path.read_text(encoding="utf-8")) for path in paths]
    for data in datas:  # warm-up (imports, first cache)
        edit(data, 0.0123, charts=True)
        library(data, 0.0123)
        library(data, 0.0123, charts=True)
    kinds = ("app", "lib", "app_charts", "lib_charts")
    times = {kind: [[] for _ in paths] for kind in kinds}
    counts: list[set[int]] = [set() for _ in paths]
    for i in range(REPEATS):
        for j, data in enumerate(datas):
            price = 0.05 + 0.001 * i
            took, validations = edit(data, price)
            times["app"][j].append(took)
            counts[j].add(validations)
            times["lib"][j].append(library(data, price))
            took, validations = edit(data, price + 0.0005, charts=True)  # a new key: the cache misses again
            times["app_charts"][j].append(took)
            counts[j].add(validations)
            times["lib_charts"][j].append(library(data, price + 0.0005, charts=True))
    ratios: dict[str, list[float]] = {"1": [], "2": [], "3": []}
    for j, path in enumerate(paths):
        least = {kind: min(times[kind][j]) for kind in kinds}
        ratios["1"].append(least["app"] / least["lib"])
        ratios["2"].append(least["app_charts"] / least["lib_charts"])
        ratios["3"].append(least["app_charts"] / least["lib"])
        print(
            f"   {path.name:<48} 1. {least['app'] * 1e3:6.1f} / {least['lib'] * 1e3:6.1f} ms = {ratios['1'][-1]:.2f}x"
            f"   2. {least['app_charts'] * 1e3:6.1f} / {least['lib_charts'] * 1e3:6.1f} ms = {ratios['2'][-1]:.2f}x"
            f"   3. {ratios['3'][-1]:.2f}x   {'/'.join(map(str, sorted(counts[j])))} validation(s)"
        )
    for key, label in (("1", "an edit"), ("2", "the Results page"), ("3", "the Results page / the library's evaluate")):
        print(f"   {key}. {label}: median {statistics.median(ratios[key]):.2f}x, worst {max(ratios[key]):.2f}x")
    if "--recompute-only" not in sys.argv[1:]:
        script_runs()
    if "--browser" in sys.argv[1:]:
        browser()


if __name__ == "__main__":
    main()
