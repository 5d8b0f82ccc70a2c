"""The dashboard's Hardware mix page, driven by Streamlit's AppTest: the mix of the last valid scenario on request,
in the library's words and tables (rackcost.reporting.mix_section of rackcost.hardware_mix, as ``rackcost mix``), its
CSV, the slices reaching the library, a workload without classes said so, and a scenario that cannot be mixed as its
problems, never a traceback."""

from __future__ import annotations

import copy
import re
import sys
from pathlib import Path

import pytest
import yaml
from streamlit.testing.v1 import AppTest

import rackcost
from app_editing import record_downloads
from rackcost import files
from rackcost.analysis.hardware_mix import NO_CLASSES_NOTE
from rackcost.reporting import mix_section
from test_hardware_mix import API, _with_classes
from two_systems import BASE

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app" / "streamlit_app.py")
PAGE = "app_pages/mix.py"
TIMEOUT_S = 120  # a hang guard per script run (the first imports pandas, altair and the library)
sys.path.insert(0, str(ROOT / "app"))

pytestmark = pytest.mark.app


def ok(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


def shown(text: str) -> str:
    """Markdown as the browser shows it: user text comes backslash-escaped (rackcost_app.safe.md)."""
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", text)


def on_mix_page(data: dict | None = None) -> AppTest:
    """The app on the Hardware mix page, with a scenario uploaded (else the default scenario)."""
    at = AppTest.from_file(APP, default_timeout=TIMEOUT_S)
    at.run()
    ok(at)
    if data is not None:
        at.session_state["pending_upload"] = (yaml.safe_dump(data).encode(), "mine.yaml")
        at.run()
        ok(at)
        assert not at.session_state["load_problems"]
    at.switch_page(PAGE).run()
    ok(at)
    return at


def mixed() -> dict:
    """B and a per-token API over two classes: the API takes the prompt-heavy class (test_hardware_mix)."""
    data = _with_classes(copy.deepcopy(BASE))
    data["systems"] = [data["systems"][1], API]
    return data


def test_the_mix_is_the_librarys_in_its_words_tables_and_csv(monkeypatch) -> None:
    downloads = record_downloads(monkeypatch)
    data = mixed()
    found = rackcost.hardware_mix(rackcost.scenario_from_dict(copy.deepcopy(data)))
    assert found.assignment == {"prompt-heavy": {"API": 1.0}, "answer-heavy": {"B": 1.0}}
    at = on_mix_page(data)
    assert [s.value for s in at.subheader] == []  # found on request only
    at.button(key="mix_run").click().run()
    ok(at)
    assert [shown(s.value) for s in at.subheader] == [mix_section.mix_sentence(found)]
    assert "the mix saves" in mix_section.mix_sentence(found)
    frames = [d.value for d in at.dataframe]
    expected = [mix_section.fleet_table(found), mix_section.alone_table(found), mix_section.class_table(found)]
    assert len(frames) == 3
    for frame, table in zip(frames, expected, strict=True):
        assert table is not None
        assert list(frame.columns) == [h for _, h in table.columns]
        assert frame.astype(str).values.tolist() == table.rows
    assert downloads["synthetic-a-vs-b-mix.csv"] == files.csv_text(mix_section.mix_rows(found))  # rackcost mix -f csv


def test_a_workload_without_classes_is_said_and_its_slices_reach_the_library() -> None:
    at = on_mix_page(copy.deepcopy(BASE))
    assert any("has no request classes" in i.value for i in at.info)
    at.number_input(key="mix_slices").set_value(2).run()
    at.button(key="mix_run").click().run()
    ok(at)
    found = rackcost.hardware_mix(rackcost.scenario_from_dict(copy.deepcopy(BASE)), slices=2)
    assert found.evaluations == 4
    assert [shown(s.value) for s in at.subheader] == [mix_section.mix_sentence(found)]
    assert any(c.value.startswith("4 evaluations of the scenario") for c in at.caption)


def test_a_workload_without_classes_is_said_once_after_the_search() -> None:
    # the library's note (what rackcost mix says) and the page's own, which adds where classes are set, say the same
    at = on_mix_page(copy.deepcopy(BASE))
    at.button(key="mix_run").click().run()
    ok(at)
    found = rackcost.hardware_mix(rackcost.scenario_from_dict(copy.deepcopy(BASE)))
    assert NO_CLASSES_NOTE in found.notes
    assert [i.value for i in at.info if "no request classes" in i.value] == [
        next(i.value for i in at.info if "Split it into classes on the Scenario page" in i.value)
    ]


def test_a_scenario_that_cannot_be_mixed_shows_its_problem_and_no_traceback() -> None:
    data = copy.deepcopy(BASE)
    data["fleet"]["replicas"] = 4
    at = on_mix_page(data)
    at.button(key="mix_run").click().run()
    ok(at)
    (error,) = [shown(e.value) for e in at.error]
    assert error.startswith("fleet.replicas: ") and "remove fleet.replicas" in error
    assert [s.value for s in at.subheader] == []
