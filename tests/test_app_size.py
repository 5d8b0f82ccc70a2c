"""The dashboard on a large scenario, the report on request, and one CSV writer (issue 19, item 5 and item 1).

10,000 demand points crashed the Results and Export pages (the charts' data went past Altair's 5,000-row limit);
the Export page wrote the report, Monte Carlo and all, on every visit; every CSV a page offers for download must be
written by :func:`rackcost.files.csv_text`, the project's one writer that neutralises formula cells.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
import streamlit as st
import yaml
from streamlit.testing.v1 import AppTest

import rackcost
from app_editing import record_downloads
from large_scenarios import many_points_data

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app" / "streamlit_app.py")
SAMPLES = 1_000  # Monte Carlo samples of the Uncertainty page (its least), and so of the report, in these tests

pytestmark = pytest.mark.app


def start(samples: int = SAMPLES) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=300)
    at.session_state["uncertainty_samples"] = samples
    at.run()
    ok(at)
    return at


def ok(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


def upload(at: AppTest, data: dict, name: str) -> None:
    at.session_state["pending_upload"] = (yaml.safe_dump(data, sort_keys=False).encode("utf-8"), name)
    at.run()
    ok(at)
    assert not at.session_state["load_problems"]


def captions(at: AppTest) -> str:
    return "\n".join(c.value for c in at.caption)


def report_buttons(at: AppTest) -> list:
    return [b for b in at.get("download_button") if b.proto.label == "Download report (HTML)"]


def test_results_claim_and_export_pages_work_with_ten_thousand_demand_points() -> None:
    at = start()
    upload(at, many_points_data(10_000), "many-points.yaml")
    note = "12 of the 10,000 demand points"
    for page in ("app_pages/results.py", "app_pages/claim.py"):
        at.switch_page(page).run()
        ok(at)
        assert note in captions(at).replace("\\", ""), page
    at.switch_page("app_pages/export.py").run()
    ok(at)
    at.button(key="build_report").click().run()
    ok(at)
    assert len(report_buttons(at)) == 1
    assert "The report draws 250 samples, not the Uncertainty page's 1,000" in captions(at)


def test_the_export_page_builds_the_report_only_when_asked(monkeypatch) -> None:
    built: list[int] = []
    report = rackcost.report

    def counting(*args, **kwargs):
        built.append(1)
        return report(*args, **kwargs)

    monkeypatch.setattr(rackcost, "report", counting)
    st.cache_data.clear()  # a report cached by an earlier test would hide the call
    at = start()
    at.switch_page("app_pages/export.py").run()
    ok(at)
    at.run()
    ok(at)
    assert built == [] and report_buttons(at) == []  # visits build nothing
    at.button(key="build_report").click().run()
    ok(at)
    assert built == [1] and len(report_buttons(at)) == 1
    at.switch_page("app_pages/results.py").run()
    at.switch_page("app_pages/export.py").run()
    ok(at)
    assert built == [1] and len(report_buttons(at)) == 1  # kept for the session, not built again
    # another seed is another report: the old one is not offered for it
    at.session_state["uncertainty_seed"] = 7
    at.run()
    ok(at)
    assert report_buttons(at) == [] and "build it again" in "\n".join(i.value for i in at.info)


def test_every_csv_download_on_every_page_is_written_by_csv_text(monkeypatch) -> None:
    from rackcost import files

    downloads = record_downloads(monkeypatch)
    written: list[str] = []
    csv_text = files.csv_text

    def writer(*args, **kwargs):
        written.append(csv_text(*args, **kwargs))
        return written[-1]

    monkeypatch.setattr(files, "csv_text", writer)
    monkeypatch.setattr(sys.modules["rackcost.evaluation.results"], "csv_text", writer)
    st.cache_data.clear()  # a CSV cached by an earlier test would not be written again
    at = start()
    for page in (
        "app_pages/scenario.py",
        "app_pages/results.py",
        "app_pages/claim.py",
        "app_pages/uncertainty.py",
        "app_pages/sweep.py",
        "app_pages/export.py",
    ):
        at.switch_page(page).run()
        ok(at)
    csvs = {name: text for name, text in downloads.items() if name.endswith(".csv")}
    assert {"points", "systems", "comparison", "sweep"} <= {n.rsplit("-", 1)[-1].removesuffix(".csv") for n in csvs}
    for name, text in csvs.items():
        assert text in written, name


def test_the_app_writes_csv_only_through_csv_text() -> None:
    """No page or helper writes CSV on its own: ``to_csv`` only as ``Result.to_csv`` (which is ``csv_text``)."""
    found = [
        f"{path.relative_to(ROOT)}: {line.strip()}"
        for path in sorted((ROOT / "app").rglob("*.py"))
        for line in path.read_text(encoding="utf-8").splitlines()
        if re.search(r"\.to_csv\(|import csv|csv\.writer", line) and "result.to_csv(" not in line
    ]
    assert found == []
