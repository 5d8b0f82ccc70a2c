"""The decision report (issue 14): for every bundled scenario the HTML parses strictly, holds its sections, at least
four SVG charts and no reference to the network, and its tables show ``rackcost.evaluate``'s numbers as
``rackcost.display`` formats them; the Markdown's links resolve; bad input writes nothing; the dashboard's button
gives the library's bytes.
"""

from __future__ import annotations

import io
import os
import pty
import re
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import html5lib
import pytest
from typer.testing import CliRunner

import rackcost
from rackcost import display
from rackcost.cli import app as cli_app
from rackcost.reporting.blocks import (
    CHARTS,
    EVALUATING,
    NOT_APPLICABLE,
    OPTIONAL_SECTIONS,
    SAMPLING,
    SECTIONS,
    STAGES,
    WRITING,
)
from rackcost.reporting.write import ReportPathError, check_output
from rackcost.scenario.schema import Scenario
from reference import TWO_SYSTEMS

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = [p.name for p in rackcost.bundled_scenarios()]
DATE = "2026-01-02"
SAMPLES = 2_000  # Monte Carlo samples in these tests (the report's default is 10,000): enough for every section
XHTML = "{http://www.w3.org/1999/xhtml}"
runner = CliRunner()

_reports: dict[str, str] = {}


def html_of(name: str) -> str:
    """The HTML report of a bundled scenario, made once per test session."""
    if name not in _reports:
        _reports[name] = rackcost.report(rackcost.bundled_scenario_path(name), samples=SAMPLES, date=DATE)
    return _reports[name]


def headings_of(scenario) -> list[str]:
    """The section headings of a report with samples asked for: the pools and classes sections only when the scenario
    has a disaggregated system or request classes (tests/test_report_breakdowns.py checks those sections), the
    plan section when it has a ``plan`` block, and the years when its demand is a profile."""
    present = {"uncertainty"}
    if scenario.workload.classes:
        present.add("classes")
        if len(scenario.workload.classes) > 1 and len(scenario.systems) > 1 and scenario.fleet.replicas is None:
            present.add("mix")  # the cheapest mix of hardware (tests/test_cli_mix.py checks the section)
    if any(s.pools is not None for s in scenario.systems):
        present.add("pools")
    if scenario.plan is not None:  # the buying plan (tests/test_report_plan.py checks the section)
        present.add("plan")
    if scenario.demand_profile is not None:  # a profile over years: its years
        present.add("years")
    return [title for key, title in SECTIONS.items() if key not in OPTIONAL_SECTIONS or key in present]


def parse(html: str):
    """The document as an element tree, parsed by html5lib in strict mode: an unclosed or stray tag is an error."""
    return html5lib.HTMLParser(strict=True, namespaceHTMLElements=True).parse(html)


def text_of(element) -> str:
    return "".join(element.itertext()).strip()


def table(doc, table_id: str) -> tuple[list[str], list[list[str]]]:
    """``(data-key of each column, rows of cell texts)`` of the table with this id."""
    found = [t for t in doc.iter(f"{XHTML}table") if t.get("id") == f"table-{table_id}"]
    assert len(found) == 1, f"no single table {table_id}"
    keys = [th.get("data-key") for th in found[0].iter(f"{XHTML}th")]
    rows = [[text_of(td) for td in tr.iter(f"{XHTML}td")] for tr in found[0].find(f"{XHTML}tbody")]
    return keys, rows


# ---- HTML of every bundled scenario --------------------------------------------------------------------------------


@pytest.mark.parametrize("name", SCENARIOS)
def test_html_parses_strictly_and_holds_every_section_and_four_charts(name: str) -> None:
    html = html_of(name)
    doc = parse(html)
    headings = [text_of(h) for h in doc.iter(f"{XHTML}h2")]
    scenario = rackcost.load_scenario(rackcost.bundled_scenario_path(name))
    assert headings == headings_of(scenario)  # samples asked for: an uncertainty section, distributions or not
    assert html.count("<svg") >= 4
    assert len(list(doc.iter("{http://www.w3.org/2000/svg}svg"))) == html.count("<svg")
    assert f"rackcost {rackcost.__version__}" in html and DATE in html
    # the appendix is the scenario: it loads back to the same one
    (code,) = doc.iter(f"{XHTML}code")
    assert rackcost.scenario_from_yaml(text_of(code), "appendix.yaml") == scenario


REFERENCE_ATTRIBUTES = {"src", "href", "{http://www.w3.org/1999/xlink}href", "action", "poster", "data", "srcset"}


@pytest.mark.parametrize("name", SCENARIOS)
def test_html_references_nothing_outside_itself(name: str) -> None:
    html = html_of(name)
    doc = parse(html)
    references = []
    for element in doc.iter():
        for attribute, value in element.attrib.items():
            if attribute in REFERENCE_ATTRIBUTES:
                references.append(value)
            if attribute == "style":
                references += re.findall(r"url\(([^)]*)\)", value)
    styles = "".join(text_of(s) for s in doc.iter(f"{XHTML}style"))
    references += re.findall(r"url\(([^)]*)\)", styles) + re.findall(r"@import\s+([^;]+)", styles)
    references += re.findall(r"url\(([^)]*)\)", html)  # any url() anywhere, SVG presentation attributes included
    assert references, "the table of contents links to the sections: the search found no reference at all"
    assert [r for r in references if not r.strip("'\" ").startswith("#")] == []
    for tag in ("script", "link", "img", "iframe", "object", "embed"):
        assert list(doc.iter(f"{XHTML}{tag}")) == [], tag
    # what remains of http(s) is the SVG and XLink namespace names, which are not fetched
    assert set(re.findall(r"https?://[^\s\"'<>)]*", html)) <= {
        "http://www.w3.org/2000/svg",
        "http://www.w3.org/1999/xlink",
    }


POINT_FORMATS = {
    "hours_per_day": display.num,
    "offered_rps": display.num,
    "accepted_rps": display.num,
    "rejected_fraction": display.pct,
    "utilization_fraction": display.pct,
    "facility_power_kw": display.power_kw,  # the unit in each cell, as the CLI and the dashboard
    "capital_usd_per_hour": display.money,
    "fixed_opex_usd_per_hour": display.money,
    "energy_usd_per_hour": display.money,
    "rent_usd_per_hour": display.money,
    "api_usd_per_hour": display.money,
    "total_usd_per_hour": display.money,
    "usd_per_accepted_request": display.usd_per_1k_requests,
    "usd_per_million_accepted_output_tokens": display.money,
}
SYSTEM_FORMATS = {
    "concurrency": display.num,
    "tpot_ms": display.whole,
    "ttft_ms": display.whole,  # whole milliseconds from 100 ms, as the CLI and the dashboard
    "total_tokens_per_s_per_replica": display.num,
    "provisioned_replicas": display.count,
    "accelerators": display.count,
    "racks": display.count,
    "provisioned_it_kw": display.power_kw,
    "capex_usd": display.money,
    "blended_usd_per_accepted_request": display.usd_per_1k_requests,
}


@pytest.mark.parametrize("name", SCENARIOS)
def test_html_tables_show_the_numbers_of_evaluate(name: str) -> None:
    doc = parse(html_of(name))
    result = rackcost.evaluate(rackcost.load_scenario(rackcost.bundled_scenario_path(name)))
    apis = {r["system"] for r in result.records["systems"] if r["payment"] == "api"}

    keys, rows = table(doc, "points")
    by_point = {(r["system"], r["demand_point"]): r for r in result.records["points"]}
    assert len(rows) == len(by_point)
    assert {"usd_per_accepted_request", "total_usd_per_hour", "facility_power_kw", "accepted_rps"} <= set(keys)
    for row in rows:
        cells = dict(zip(keys, row, strict=True))
        expected = by_point[(cells["system"], cells["demand_point"])]
        for key, fmt in POINT_FORMATS.items():
            if key not in cells:
                assert not any(r.get(key) for r in result.records["points"]), f"{key} is paid but not shown"
                continue
            if cells["system"] in apis and key in ("utilization_fraction", "facility_power_kw"):
                assert cells[key] == NOT_APPLICABLE
            else:
                assert cells[key] == fmt(expected[key]), (cells["system"], cells["demand_point"], key)

    keys, rows = table(doc, "systems")
    by_system = {r["system"]: r for r in result.records["systems"]}
    assert [r[0] for r in rows] == list(by_system)
    for row in rows:
        cells = dict(zip(keys, row, strict=True))
        expected = by_system[cells["system"]]
        for key, fmt in SYSTEM_FORMATS.items():
            value = expected[key]
            assert cells[key] == (NOT_APPLICABLE if value is None else fmt(value)), (cells["system"], key)

    comparison = result.records["comparison"]
    claim_rows = []
    for i in range(len({(r["system"], r["baseline"]) for r in comparison})):
        keys, rows = table(doc, f"claim-{i}")
        claim_rows += [dict(zip(keys, row, strict=True)) for row in rows]
    assert [c["advantage_ratio"] for c in claim_rows] == [display.ratio(r["advantage_ratio"]) for r in comparison]
    assert [c["metric"] for c in claim_rows] == [r["metric"] for r in comparison]


def test_probability_and_percentiles_are_the_monte_carlos() -> None:
    name = "deepseek-r1-jalapeno-vs-gb300.yaml"
    doc = parse(html_of(name))
    mc = rackcost.uncertainty(rackcost.load_scenario(rackcost.bundled_scenario_path(name)), SAMPLES, 0)
    keys, rows = table(doc, "probability-cheaper")
    (blended,) = [r for r in mc.probability_cheaper if r["demand_point"] == "blended"]
    cells = dict(zip(keys, rows[0], strict=True))
    assert cells["system"] == blended["system"]
    assert cells["probability_fraction:blended"] == display.pct(blended["probability_fraction"])
    keys, rows = table(doc, "percentiles")
    pcts = {(r["system"], r["demand_point"], r["column"]): r for r in mc.percentiles}
    for row in rows:
        cells = dict(zip(keys, row, strict=True))
        point, column = cells["demand_point"], "usd_per_accepted_request"
        if point == "blended over the day":
            point, column = "system", "blended_usd_per_accepted_request"
        for q in ("p5", "p50", "p95"):
            assert cells[q] == display.usd_per_1k_requests(pcts[(cells["system"], point, column)][q])


def test_the_same_scenario_seed_and_date_give_the_same_bytes_and_the_date_is_the_one_given() -> None:
    scenario = rackcost.load_scenario(TWO_SYSTEMS)
    first = rackcost.report(scenario, date="2030-05-06")
    assert first == rackcost.report(TWO_SYSTEMS, date="2030-05-06")
    assert "2030-05-06" in first
    # the exported YAML of the dashboard (the appendix) gives the same report
    back = rackcost.scenario_from_yaml(rackcost.scenario_to_yaml(scenario), "exported.yaml")
    assert rackcost.report(back, date="2030-05-06") == first


def test_a_scenario_without_distributions_has_no_uncertainty_section_unless_samples_are_asked_for() -> None:
    scenario = rackcost.load_scenario(TWO_SYSTEMS)
    assert not scenario.distributions
    assert SECTIONS["uncertainty"] not in rackcost.report(scenario, date=DATE)
    asked = rackcost.report(scenario, samples=100, date=DATE)
    assert SECTIONS["uncertainty"] in asked and "This scenario has no distributions" in asked


def test_text_from_the_scenario_is_escaped_in_html_and_markdown(tmp_path: Path) -> None:
    data = rackcost.scenario.loading.scenario_to_data(rackcost.load_scenario(TWO_SYSTEMS))
    hostile = '<script>alert("x")</script> *A* [B](https://example.com) | $1'
    data["name"] = "Scenario " + hostile
    data["systems"][0]["name"] = "Sys " + hostile
    scenario = rackcost.scenario_from_dict(data)
    html = rackcost.report(scenario, date=DATE)
    doc = parse(html)
    assert list(doc.iter(f"{XHTML}script")) == []
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "https://example.com" in html  # as text: no element links to it (checked by the reference test's rule)
    assert [a.get("href") for a in doc.iter(f"{XHTML}a") if not a.get("href", "").startswith("#")] == []
    text = rackcost.report(scenario, format="markdown", output=tmp_path / "r.md", date=DATE)
    prose = re.sub(r"^```yaml$.*?^```$", "", text, flags=re.M | re.S)  # the appendix shows the YAML as written
    assert "```yaml" in text and "```yaml" not in prose
    assert "<script>" not in prose and "\\[B\\](https://example.com)" in prose and "\\*A\\*" in prose


# ---- Markdown ------------------------------------------------------------------------------------------------------


def test_markdown_links_resolve_to_png_files_beside_it(tmp_path: Path) -> None:
    out = tmp_path / "decision.md"
    text = rackcost.report(rackcost.bundled_scenario_path(), format="markdown", output=out, samples=SAMPLES, date=DATE)
    assert out.read_text(encoding="utf-8") == text
    targets = re.findall(r"\]\(([^)\s]+)\)", text)
    assert len(targets) >= 4
    for target in targets:
        path = out.parent / unquote(target)
        assert path.is_file(), target
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", target
        assert path.parent == tmp_path / "decision_files"
    assert sorted(p.name for p in (tmp_path / "decision_files").iterdir()) == sorted(
        Path(unquote(t)).name for t in targets
    )
    headings = re.findall(r"^## (.*)$", text, re.M)
    assert headings == headings_of(rackcost.load_scenario(rackcost.bundled_scenario_path()))
    # the same tables: the blended cost of each system as display formats it
    for row in rackcost.evaluate(rackcost.load_scenario(rackcost.bundled_scenario_path())).records["systems"]:
        assert display.usd_per_1k_requests(row["blended_usd_per_accepted_request"]).replace("$", "\\$") in text


def test_markdown_needs_an_output_path() -> None:
    with pytest.raises(ReportPathError, match="needs an output path"):
        rackcost.report(TWO_SYSTEMS, format="markdown")


# ---- the command and bad input -------------------------------------------------------------------------------------


def invoke(*args: object):
    return runner.invoke(cli_app, [str(a) for a in args])


def test_rackcost_report_writes_the_html_of_the_library(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = invoke("report", TWO_SYSTEMS)
    assert result.exit_code == 0, result.output
    out = tmp_path / "two_systems-report.html"  # the default: <scenario stem>-report.html here
    assert result.stderr == f"wrote {out.name}\n"  # no progress display: stderr is not a terminal here
    assert result.stdout == ""
    html = out.read_text(encoding="utf-8")
    date = re.search(r"on (\d{4}-\d{2}-\d{2})\.", html).group(1)
    assert html == rackcost.report(TWO_SYSTEMS, date=date)
    assert [p.name for p in tmp_path.iterdir()] == [out.name]  # no temporary file left


# ---- progress (issue 22, item 5) ------------------------------------------------------------------------------------


def test_the_library_reports_each_stage_in_order_and_the_same_bytes(tmp_path: Path) -> None:
    seen: list[tuple[str, int, int]] = []
    name = rackcost.bundled_scenario_path().name
    out = tmp_path / "r.html"
    html = rackcost.report(
        rackcost.bundled_scenario_path(), samples=SAMPLES, date=DATE, output=out, progress=lambda *a: seen.append(a)
    )
    assert list(dict.fromkeys(stage for stage, _, _ in seen)) == list(STAGES)
    for stage in STAGES:
        counts = [(done, total) for s, done, total in seen if s == stage]
        assert counts[0][0] == 0 and counts[-1][0] == counts[-1][1], stage  # begun at 0, ended at its total
        assert all(0 <= done <= total for done, total in counts), stage
        assert [done for done, _ in counts] == sorted(done for done, _ in counts), stage  # never backwards
    assert {total for s, _, total in seen if s == SAMPLING} == {SAMPLES}
    assert {total for s, _, total in seen if s == CHARTS} == {html.count("<svg")}
    assert html == html_of(name) == out.read_text(encoding="utf-8")  # the same report as without a progress
    with pytest.raises(TypeError, match="progress must be a function"):
        rackcost.report(rackcost.bundled_scenario_path(), progress="yes")  # type: ignore[arg-type]


def test_the_progress_display_shows_on_a_terminal_only() -> None:
    from rich.console import Console

    from rackcost.cli.report import report_progress

    with report_progress(Console(file=io.StringIO(), force_terminal=False)) as progress:
        assert progress is None
    screen = io.StringIO()
    with report_progress(Console(file=screen, force_terminal=True, width=100)) as progress:
        assert progress is not None
        for stage, total in ((EVALUATING, 1), (SAMPLING, 2_000), (CHARTS, 8), (WRITING, 1)):
            progress(stage, 0, total)
            progress(stage, total, total)
    shown = screen.getvalue()
    assert all(stage in shown for stage in STAGES) and "2,000 / 2,000" in shown


def test_rackcost_report_on_a_terminal_shows_its_stages_on_stderr(tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    command = [sys.executable, "-c", "from rackcost.cli.entry import main; main()", "report", str(TWO_SYSTEMS)]
    env = {**os.environ, "COLUMNS": "100", "TERM": "xterm", "PYTHONPATH": str(ROOT / "src")}
    main, secondary = pty.openpty()
    with subprocess.Popen(
        [*command, "--output", str(out), "--samples", "200"],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=secondary,
    ) as process:
        os.close(secondary)
        chunks = []
        while True:
            try:
                chunk = os.read(main, 65536)
            except OSError:  # the terminal closed when the command ended
                break
            if not chunk:
                break
            chunks.append(chunk)
        os.close(main)
        stdout = process.stdout.read() if process.stdout else b""
        assert process.wait(timeout=300) == 0
    shown = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", b"".join(chunks).decode("utf-8"))
    for stage in (EVALUATING, CHARTS, WRITING):
        assert stage in shown, shown
    # the display is cleared; the outcome stays (whitespace aside: a long path wraps at the terminal's width)
    assert re.sub(r"\s", "", shown).endswith(re.sub(r"\s", "", f"wrote {out}"))
    assert stdout == b"" and out.exists()


def test_an_invalid_scenario_gives_the_messages_of_validate_and_writes_nothing(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        TWO_SYSTEMS.read_text(encoding="utf-8").replace("pue: ", "pue: -", 1).replace("name: ", "name: [", 1),
        encoding="utf-8",
    )
    validate = invoke("validate", bad)
    assert validate.exit_code == 1
    out = tmp_path / "out.html"
    result = invoke("report", bad, "--output", out)
    assert result.exit_code == 1
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert result.stderr == validate.stderr and "error:" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.yaml"]


def test_a_missing_folder_is_a_clear_message(tmp_path: Path) -> None:
    result = invoke("report", TWO_SYSTEMS, "-o", tmp_path / "nowhere" / "r.html")
    assert result.exit_code == 1
    assert "the folder" in result.stderr and "does not exist" in result.stderr
    assert "Traceback" not in result.output


def test_an_unwritable_folder_is_a_clear_message(tmp_path: Path, monkeypatch) -> None:
    # the tests may run as root, which may write anywhere: the check asks os.access, so ask it to refuse
    monkeypatch.setattr("rackcost.files.writable", lambda folder: False)
    with pytest.raises(ReportPathError, match="is not writable"):
        check_output(tmp_path / "r.html")
    result = invoke("report", TWO_SYSTEMS, "-o", tmp_path / "r.html")
    assert result.exit_code == 1 and "is not writable" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_an_existing_file_is_replaced_only_with_force(tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    out.write_text("mine", encoding="utf-8")
    result = invoke("report", TWO_SYSTEMS, "-o", out)
    assert result.exit_code == 1 and "exists" in result.stderr and "--force" in result.stderr
    assert out.read_text(encoding="utf-8") == "mine"
    result = invoke("report", TWO_SYSTEMS, "-o", out, "--force")
    assert result.exit_code == 0, result.output
    assert out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    md = tmp_path / "r.md"
    (tmp_path / "r_files").mkdir()
    result = invoke("report", TWO_SYSTEMS, "-o", md)
    assert result.exit_code == 1 and "r_files: exists; use --force" in result.stderr
    assert not md.exists()


def test_a_suffix_that_is_neither_html_nor_markdown_is_refused(tmp_path: Path) -> None:
    result = invoke("report", TWO_SYSTEMS, "-o", tmp_path / "r.pdf")
    assert result.exit_code == 1 and ".html" in result.stderr and ".md" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_failed_write_leaves_no_partial_file(tmp_path: Path, monkeypatch) -> None:
    def refuse(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("rackcost.reporting.write.os.replace", refuse)
    result = invoke("report", TWO_SYSTEMS, "-o", tmp_path / "r.html")
    assert result.exit_code == 1 and "No space left on device" in result.stderr
    assert list(tmp_path.iterdir()) == []


# ---- the dashboard's button ------------------------------------------------------------------------------------------


@pytest.mark.app  # a Streamlit AppTest of the dashboard
def test_the_dashboards_report_is_the_librarys_for_the_edited_scenario() -> None:
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app" / "streamlit_app.py"), default_timeout=120)
    at.session_state["uncertainty_samples"] = SAMPLES
    at.run()
    assert not at.exception
    edited = rackcost.load_scenario(rackcost.bundled_scenario_path())
    draft = rackcost.scenario.loading.scenario_to_data(edited)
    draft["facility"]["rack_power_limit_kw"] = 150.0
    at.session_state["pending_upload"] = (rackcost.scenario.loading.yaml.safe_dump(draft).encode(), "edited.yaml")
    at.run()
    at.switch_page("app_pages/export.py").run()
    assert not at.exception, [e.value for e in at.exception]
    at.button(key="build_report").click().run()  # built on request only (issue 19, item 5)
    assert not at.exception, [e.value for e in at.exception]
    buttons = [e for e in at.get("download_button") if e.proto.label == "Download report (HTML)"]
    assert len(buttons) == 1
    sys.path.insert(0, str(ROOT / "app"))
    from rackcost_app import compute

    key = at.session_state["valid_json"]
    scenario = compute.scenario(key)
    assert scenario.facility.rack_power_limit_kw == 150.0
    made = compute.report_html(key, SAMPLES, 0, DATE)
    assert made == rackcost.report(scenario, samples=SAMPLES, seed=0, date=DATE).encode("utf-8")
    assert "150 kW" in made.decode("utf-8")


def test_no_report_file_is_left_in_the_repository() -> None:
    assert not [p for p in os.listdir(ROOT) if p.endswith("-report.html")]


def test_the_summary_says_when_figures_were_edited() -> None:
    # issue 22, item 7: the report of an edited scenario says so on its first page, naming the figures, not only in
    # the Provenance section
    from rackcost.reporting.content import build_report
    from rackcost.scenario.edits import edited_figure, set_at
    from rackcost.scenario.loading import scenario_to_data

    data = scenario_to_data(rackcost.load_scenario(TWO_SYSTEMS))
    data = set_at(data, "facility.pue", 1.5)
    data.setdefault("figures", {})["facility.pue"] = edited_figure(1.2, None)
    report = build_report(rackcost.scenario_from_dict(data), samples=0, date="2026-12-01")
    first = report.sections[0]
    text = " ".join(getattr(b, "text", "") for b in first.blocks)
    # named in plain words, not by its YAML path (issue 36, item 9: no YAML path before the appendix)
    assert "This scenario was edited: 1 figure differs from the file as published (PUE)" in text
    assert "facility.pue" not in text
    plain = build_report(rackcost.load_scenario(TWO_SYSTEMS), samples=0, date="2026-12-01")
    assert "was edited" not in " ".join(getattr(b, "text", "") for b in plain.sections[0].blocks)


def test_the_report_of_an_evaluation_is_the_report_of_its_scenario(monkeypatch: pytest.MonkeyPatch) -> None:
    """Given the one evaluation (:func:`rackcost.evaluation.chain.evaluation`, what the dashboard holds), the report
    words it without evaluating again, and says what the report of the scenario says: its figures are the result's."""
    from rackcost.evaluation import chain
    from rackcost.reporting.content import build_report

    scenario = rackcost.load_scenario(rackcost.bundled_scenario_path("deepseek-r1-three-year-buying-plan.yaml"))
    evaluated = chain.evaluation(scenario)
    original = chain.evaluate_systems

    def once(sc: Scenario, *args: Any, **kwargs: Any) -> Any:  # (the plan's sources are scenarios of their own)
        assert sc is not evaluated.scenario and sc is not scenario, "the report evaluated its scenario again"
        return original(sc, *args, **kwargs)

    monkeypatch.setattr(chain, "evaluate_systems", once)
    text = rackcost.report(evaluated, date=DATE)
    assert build_report(evaluated, date=DATE).title == scenario.name
    monkeypatch.undo()
    assert text == rackcost.report(scenario, date=DATE)
    systems = evaluated.result.records["systems"]
    assert all(display.usd_per_1k_requests(r["blended_usd_per_accepted_request"]) in text for r in systems)


# ---- the lead: two pages a CFO reads (issue 36, item 9) ---------------------------------------------------------

# a scenario's YAML path as written (``systems[0].costs``, ``facility.pue``) or a field name's unit suffix
YAML_PATH = re.compile(
    r"\b(?:systems|demand|workload|facility|fleet|slo|uncertainty|plan|figures|costs|hardware|rent|api)(?:\[\d+\])?"
    r"\.[a-z_]|[a-z]_usd_per_[a-z]"
)


def before_appendix(html: str) -> str:
    """The report's words before its appendix (charts left out: their labels are checked as specifications)."""
    body = html[: html.index('<section id="warnings"')]
    return re.sub(r"<[^>]+>", " ", re.sub(r"<svg.*?</svg>", " ", body, flags=re.S))


@pytest.mark.parametrize("name", SCENARIOS)
def test_no_yaml_path_before_the_appendix(name: str) -> None:
    """Inputs are named in plain words (scenario.labels.input_label) everywhere before the appendix, the tornado's
    labels and the break-even results included; the appendix (warnings, provenance, the YAML) keeps the paths."""
    import html as htmllib

    html = html_of(name)
    words = htmllib.unescape(before_appendix(html))
    assert not YAML_PATH.findall(words), sorted(set(YAML_PATH.findall(words)))
    assert [s for s in SECTIONS if f'<section id="{s}"' in html][-3:] == ["warnings", "provenance", "appendix"]


def test_the_lead_holds_the_decision_cost_per_year_and_life_racks_in_kw_how_sure_and_what_would_change() -> None:
    from rackcost.reporting.content import build_report

    scenario = rackcost.load_scenario(rackcost.bundled_scenario_path())
    result = rackcost.evaluate(scenario)
    report = build_report(scenario, samples=SAMPLES, date=DATE)
    lead = report.sections[0]
    assert lead.title == SECTIONS["summary"] == "The decision"
    text = " ".join(getattr(b, "text", "") for b in lead.blocks)
    assert lead.blocks[0].text == rackcost.reporting.decision.answer_sentence(result.records["systems"])
    doc = parse(rackcost.report(scenario, samples=SAMPLES, date=DATE))
    keys, rows = table(doc, "lead-cost")
    by = {r["system"]: r for r in result.records["systems"]}
    for row in rows:  # both owned, 5-year service life: a year is the day x 365, the life five years
        r = by[row[0]]
        assert row[keys.index("usd_per_year")] == display.money(r["usd_per_day"] * 365)
        assert row[keys.index("usd_over_years")] == display.money(r["usd_per_day"] * 365 * 5)
        assert row[keys.index("capex_usd")] == display.money(r["capex_usd"])
    keys, rows = table(doc, "lead-racks")
    for row in rows:
        r = by[row[0]]
        for key in ("mean_it_power_kw_per_rack", "peak_it_power_kw_per_rack", "rack_power_limit_kw"):
            assert row[keys.index(key)] == display.num(r[key])
    assert "How sure is it" in [getattr(b, "text", "") for b in lead.blocks]
    assert f"{SAMPLES:,} samples of the 5 uncertain inputs" in text
    assert "Jalapeño is cheaper per accepted request than GB300 NVL72 over the demand day in" in text
    assert "would cost the same over the day if the capex per accelerator of Jalapeño rises to" in text


def test_the_lead_reads_a_rented_system_as_rented_and_says_how_sure_from_default_spreads() -> None:
    """Not "7 racks, $0 capex": a rented system's capex is none and its racks are the provider's, with no limit."""
    doc = parse(html_of("deepseek-r1-own-vs-rent-vs-api.yaml"))
    keys, rows = table(doc, "lead-cost")
    paid = {row[0]: (row[keys.index("payment")], row[keys.index("capex_usd")]) for row in rows}
    assert paid["GB200 NVL72 rented, reserved"] == ("rented, reserved", "none (rented)")
    assert paid["DeepSeek API (deepseek-reasoner)"] == ("API, per token", "none (API)")
    keys, rows = table(doc, "lead-racks")
    racks = {row[0]: row for row in rows}
    assert "DeepSeek API (deepseek-reasoner)" not in racks  # an API has no racks
    rented = racks["GB200 NVL72 rented, on demand"]
    assert rented[keys.index("racks")].endswith("(the provider's)")
    assert rented[keys.index("rack_power_limit_kw")] == "none (the provider's racks)"
    from rackcost.reporting.lead import how_sure_paragraph

    scenario = rackcost.load_scenario(rackcost.bundled_scenario_path("deepseek-r1-own-vs-rent-vs-api.yaml"))
    said = how_sure_paragraph(scenario, rackcost.evaluate(scenario), None).text
    # no distribution in the scenario: the sentence draws the model's default spreads, and says so
    assert " draws of the inputs' spreads (default spreads" in said and "The spreads are the model's defaults" in said
    assert re.search(r"in \d+(\.\d)?% of 2,000 draws", said), said


def test_the_break_even_moves_the_price_that_is_most_of_a_racks_purchase() -> None:
    """A rack-scale system priced per rack has $0 per accelerator: a break-even "from $0 per accelerator" said
    nothing. The price moved is the one with the largest share of a rack's capex (per accelerator x accelerators
    per rack, per node x nodes per rack, or per rack)."""
    from rackcost.reporting.uncertainty_section import own_price_path

    scenario = rackcost.load_scenario(rackcost.bundled_scenario_path("deepseek-r1-b200-vs-gb200-inferencex.yaml"))
    for i, system in enumerate(scenario.systems):
        costs, hw = system.costs, system.hardware
        assert costs is not None and hw is not None
        shares = {
            "capex_usd_per_accelerator": costs.capex_usd_per_accelerator * hw.accelerators_per_node * hw.nodes_per_rack,
            "capex_usd_per_node": costs.capex_usd_per_node * hw.nodes_per_rack,
            "capex_usd_per_rack": costs.capex_usd_per_rack,
        }
        path = own_price_path(scenario, system.name)
        assert path == f"systems[{i}].costs.{max(shares, key=shares.__getitem__)}"
        assert shares[path.rsplit(".", 1)[1]] > 0  # never a price of $0


def test_a_profile_over_years_gets_its_years_in_the_report_and_a_day_of_points_does_not() -> None:
    """Demand over time in the report: the profile's days over its horizon, each system's cost year by year and the
    ``years`` table (each row the library's, as the registry formats it); a scenario of a day's points has none."""
    from rackcost.evaluation.columns import column
    from rackcost.reporting.result_sections import YEAR_COLUMNS

    name = "deepseek-r1-three-year-buying-plan.yaml"
    scenario = rackcost.load_scenario(rackcost.bundled_scenario_path(name))
    years = rackcost.evaluate(scenario).records["years"]
    doc = parse(html_of(name))
    keys, rows = table(doc, "years")
    assert len(rows) == len(years) == 3 * len(scenario.systems)  # three years of each system
    for row, r in zip(rows, years, strict=True):
        assert row[0] == r["system"]
        for name_ in YEAR_COLUMNS:
            assert row[keys.index(name_)] == column("years", name_).format(r[name_])
    assert "Demand and cost over the years" in html_of(name)
    assert "Demand and cost over the years" not in html_of("deepseek-r1-jalapeno-vs-gb300.yaml")
