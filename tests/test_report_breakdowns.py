"""The report's "Request classes" and "Prefill and decode pools" sections (issue 23, item 1), and its note where
KV-cache memory caps an operating point: present only where the scenario has classes, pools or a binding memory,
with ``rackcost.evaluate``'s figures as ``rackcost.display`` formats them, in HTML and in Markdown.

The sections are rendered alone (a :class:`Report` of just them: no chart to draw, so the tests stay quick), and
one whole HTML report of the three-class scenario checks they sit in the report's order and parse strictly.
"""

from __future__ import annotations

import math
import re

import html5lib
import pytest

import rackcost
from rackcost import display
from rackcost.evaluation.columns import BLENDED
from rackcost.reporting.blocks import OPTIONAL_SECTIONS, SECTIONS, Report, Table
from rackcost.reporting.breakdowns import CLASS_COLUMNS, POOL_FLEET_COLUMNS, POOL_POINT_COLUMNS
from rackcost.reporting.content import build_report
from rackcost.reporting.html import PRINT_COLUMNS, column_parts, render_html
from rackcost.reporting.markdown import md_escape, render_markdown
from rackcost.scenario.loading import scenario_to_data
from reference import DATA, TWO_SYSTEMS

CLASSES = DATA / "three_classes.yaml"
POOLS = DATA / "disaggregated.yaml"
DATE = "2026-01-02"
XHTML = "{http://www.w3.org/1999/xhtml}"

_built: dict[str, Report] = {}


def built(path) -> Report:
    """The report of a scenario file, built once (the model run; no chart drawn)."""
    if str(path) not in _built:
        _built[str(path)] = build_report(rackcost.load_scenario(path), date=DATE)
    return _built[str(path)]


def only(report: Report, *ids: str) -> Report:
    """The report with only these sections (no chart in them: rendering is quick)."""
    return Report(report.title, report.subtitle, [s for s in report.sections if s.id in ids], report.version, DATE)


def text_of(element) -> str:
    return "".join(element.itertext()).strip()


def html_table(html: str, table_id: str) -> list[dict[str, str]]:
    """The rows of an HTML table as ``{data-key: cell text}``."""
    doc = html5lib.HTMLParser(strict=True, namespaceHTMLElements=True).parse(html)
    (found,) = [t for t in doc.iter(f"{XHTML}table") if t.get("id") == f"table-{table_id}"]
    keys = [th.get("data-key") for th in found.iter(f"{XHTML}th")]
    return [
        dict(zip(keys, [text_of(td) for td in tr.iter(f"{XHTML}td")], strict=True))
        for tr in found.find(f"{XHTML}tbody")
    ]


def ms_cell(x: float) -> str:
    """A millisecond figure of 100 ms or more in full, rounded to the millisecond (``1,550``)."""
    assert x >= 100
    return f"{round(x):,}"


# ---- request classes -----------------------------------------------------------------------------------------------


def test_the_classes_section_shows_each_class_at_each_point_as_evaluate_finds_it() -> None:
    result = rackcost.evaluate(rackcost.load_scenario(CLASSES))
    html = render_html(only(built(CLASSES), "classes"))
    rows = html_table(html, "classes")
    cells = {(r["system"], r["demand_point"], r["class"]): r for r in rows}
    limits = {"chat": ("2,000", "99.0%"), "reasoning": ("3,000", "99.0%"), "agentic": ("4,000", "95.0%")}  # the YAML
    assert len(result.records["classes"]) == 2 * 3 * 3
    for r in result.records["classes"]:
        shown = cells[(r["system"], r["demand_point"], r["class"])]
        assert shown["share_fraction"] == display.pct(r["share_fraction"])
        assert shown["accepted_fraction"] == display.pct(r["accepted_rps"] / r["offered_rps"])
        assert shown["ttft_p99_ms"] == ms_cell(r["ttft_p99_ms"])
        assert (shown["ttft_limit_ms"], shown["attainment_fraction"]) == limits[r["class"]]
        assert shown["slot_time_fraction"] == display.pct(r["slot_time_fraction"])
        assert shown["usd_per_accepted_request"] == display.usd_per_1k_requests(r["usd_per_accepted_request"])
        assert shown["usd_per_million_accepted_output_tokens"] == display.money(
            r["usd_per_million_accepted_output_tokens"]
        )
    # one blended row per system and class after the points
    assert len(rows) == 2 * 3 * 4 and [r["demand_point"] for r in rows[:12]] == [
        *["quiet"] * 3,
        *["normal"] * 3,
        *["peak"] * 3,
        *[BLENDED] * 3,
    ]
    assert "shared between the classes by slot time" in html
    headers = dict(re.findall(r'data-key="([^"]+)">([^<]+)</th>', html))
    assert headers["usd_per_accepted_request"].endswith(f"[{display.PER_1K_ACCEPTED}]")
    assert headers["ttft_p99_ms"] == "p99 TTFT incl. queueing [ms]" and headers["ttft_limit_ms"].endswith("[ms]")


def test_blended_class_costs_add_up_to_the_systems_day() -> None:
    # closed form: the day's cost of a system is sum over points of its cost per hour x hours (the points table); the
    # classes share it, so sum over classes of (blended cost per accepted request x accepted requests per day) is it,
    # and the blended shares of slot time add up to 1
    scenario = rackcost.load_scenario(CLASSES)
    result = rackcost.evaluate(scenario)
    hours = {d.name: d.hours_per_day for d in scenario.demand}
    from rackcost.reporting.breakdowns import class_view_rows

    rows = class_view_rows(scenario, result.records["classes"])
    for system in ("A", "B"):
        day_usd = sum(
            p["total_usd_per_hour"] * hours[p["demand_point"]]
            for p in result.records["points"]
            if p["system"] == system
        )
        blended = [r for r in rows if r["system"] == system and r["demand_point"] == BLENDED]
        accepted_per_day = {
            k: 3600
            * sum(
                r["accepted_rps"] * hours[r["demand_point"]]
                for r in result.records["classes"]
                if r["system"] == system and r["class"] == k
            )
            for k in ("chat", "reasoning", "agentic")
        }
        assert math.fsum(r["usd_per_accepted_request"] * accepted_per_day[r["class"]] for r in blended) == (
            pytest.approx(day_usd, rel=1e-12)
        )
        assert math.fsum(r["slot_time_fraction"] for r in blended) == pytest.approx(1.0, rel=1e-12)


def test_a_class_below_its_attainment_target_is_named() -> None:
    # system B of the test scenario at its busiest point, with the peak demand raised past its capacity at SLO
    data = scenario_to_data(rackcost.load_scenario(CLASSES))
    data["fleet"]["sizing_demand_point"] = "normal"
    report = build_report(rackcost.scenario_from_dict(data), date=DATE)
    (classes,) = [s for s in report.sections if s.id == "classes"]
    text = render_html(only(report, "classes"))
    assert "Below its attainment target:" in text
    assert re.search(r"B at peak: \w+ [\d.]+% accepted within its SLO, below its target of 9\d\.0%", text)


def test_the_classes_section_reads_the_same_in_markdown() -> None:
    result = rackcost.evaluate(rackcost.load_scenario(CLASSES))
    text, files = render_markdown(only(built(CLASSES), "classes"), "r_files")
    assert files == {} and "## Request classes" in text
    for r in result.records["classes"]:
        cells = [r["system"], r["demand_point"], r["class"], display.pct(r["share_fraction"])]
        assert "| " + " | ".join(md_escape(c) for c in cells) + " | " in text
        assert md_escape(display.usd_per_1k_requests(r["usd_per_accepted_request"])) in text


# ---- pools ---------------------------------------------------------------------------------------------------------


def test_the_pools_section_shows_each_pools_fleet_power_utilisation_and_cost_share() -> None:
    result = rackcost.evaluate(rackcost.load_scenario(POOLS))
    pools = result.records["pools"]
    html = render_html(only(built(POOLS), "pools"))
    fleet = {(r["system"], r["pool"]): r for r in html_table(html, "pools")}
    assert set(fleet) == {("A disaggregated", "prefill"), ("A disaggregated", "decode")}
    points = {(r["system"], r["pool"], r["demand_point"]): r for r in html_table(html, "pool-points")}
    assert len(points) == len(pools) == 2 * 3
    for r in pools:
        f = fleet[(r["system"], r["pool"])]
        assert f["provisioned_replicas"] == display.count(r["provisioned_replicas"])
        assert f["accelerators"] == display.count(r["accelerators"])
        assert f["provisioned_it_kw"] == display.power_kw(r["provisioned_it_kw"])  # the unit in each cell, as the CLI
        assert f["capex_usd"] == display.money(r["capex_usd"])
        p = points[(r["system"], r["pool"], r["demand_point"])]
        assert p["active_replicas"] == display.count(r["active_replicas"])
        assert p["utilization_fraction"] == display.pct(r["utilization_fraction"])
        assert p["facility_power_kw"] == display.power_kw(r["facility_power_kw"])
        assert p["usd_per_accepted_request"] == display.usd_per_1k_requests(r["usd_per_accepted_request"])
        assert p["cost_share_fraction"] == display.pct(r["cost_share_fraction"])
    # the pools' costs per accepted request add up to the system's (the points table), at every point
    system = {p["demand_point"]: p for p in result.records["points"] if p["system"] == "A disaggregated"}
    for point, row in system.items():
        parts = [r["usd_per_accepted_request"] for r in pools if r["demand_point"] == point]
        assert math.fsum(parts) == pytest.approx(row["usd_per_accepted_request"], rel=1e-9)
    prefill, decode = (fleet[("A disaggregated", p)] for p in ("prefill", "decode"))
    said = (
        f"A disaggregated: {prefill['provisioned_replicas']} prefill replicas ({prefill['accelerators']} accelerators) "
        f"and {decode['provisioned_replicas']} decode replicas ({decode['accelerators']} accelerators)"
    )
    assert said in html
    text, _ = render_markdown(only(built(POOLS), "pools"), "r_files")
    assert "## Prefill and decode pools" in text and md_escape(said) in text


# ---- where the sections are ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "present"),
    [(CLASSES, {"classes", "mix"}), (POOLS, {"pools"}), (TWO_SYSTEMS, set())],
    ids=["classes", "pools", "neither"],
)
def test_the_sections_are_there_only_when_the_scenario_has_classes_or_pools(path, present) -> None:
    ids = [s.id for s in built(path).sections]
    expected = [k for k in SECTIONS if k not in OPTIONAL_SECTIONS or k in present]
    assert ids == expected


def test_the_whole_report_of_request_classes_parses_and_holds_the_section_in_order() -> None:
    html = rackcost.report(CLASSES, date=DATE)
    doc = html5lib.HTMLParser(strict=True, namespaceHTMLElements=True).parse(html)
    headings = [text_of(h) for h in doc.iter(f"{XHTML}h2")]
    assert headings == [v for k, v in SECTIONS.items() if k not in ("pools", "years", "plan", "uncertainty")]
    assert headings.index("Request classes") == headings.index(SECTIONS["cost"]) + 1


@pytest.mark.parametrize("path", [CLASSES, POOLS], ids=["classes", "pools"])
def test_every_new_table_prints_in_parts_that_fit_the_page(path) -> None:
    tables = [b for s in built(path).sections if s.id in ("classes", "pools") for b in s.blocks if isinstance(b, Table)]
    assert tables
    for table in tables:
        for part in column_parts(len(table.columns), table.keys):
            assert len(part) <= PRINT_COLUMNS and part[: table.keys] == list(range(table.keys))
    widths = {len(CLASS_COLUMNS), len(POOL_FLEET_COLUMNS), len(POOL_POINT_COLUMNS)}
    assert max(widths) <= 2 * PRINT_COLUMNS - 3  # at most two printed parts, each with the key columns


# ---- KV-cache memory -----------------------------------------------------------------------------------------------

# Llama 3.3 70B: 80 layers, 8 KV heads of 128, 70.6e9 parameters (Meta, "The Llama 3 Herd of Models", arXiv
# 2407.21783, 2024-07, Table 3; Llama 3.3 model card, 2024-12-06), as tests/test_memory.py
LLAMA_70B = {"parameters": 70.6e9, "layers": 80, "kv_heads": 8, "head_dim": 128}


def test_the_systems_section_says_where_kv_memory_caps_the_operating_point() -> None:
    # 8 x 19 GiB less 10% and 131.5 GiB of BF16 weights leave 5.297 GiB: 11 requests of 1,500 tokens at 320 KiB per
    # token (tests/test_memory.py), below system A's chosen 96 without a limit
    data = scenario_to_data(rackcost.load_scenario(TWO_SYSTEMS))
    data["workload"]["architecture"] = dict(LLAMA_70B)
    data["systems"][0]["memory"] = {"hbm_gib_per_accelerator": 19, "weight_bytes_per_parameter": 2}
    report = build_report(rackcost.scenario_from_dict(data), date=DATE)
    (systems,) = [s for s in report.sections if s.id == "systems"]
    text = render_html(only(report, "systems"))
    assert "KV-cache memory limits the operating point" in text
    assert "A: its KV cache holds at most 11 requests in flight per replica" in text
    # and not where the memory holds every point, nor without one
    plain = render_html(only(built(TWO_SYSTEMS), "systems"))
    assert "KV-cache memory limits" not in plain
