"""The dashboard's New scenario page (app/app_pages/new.py), driven by Streamlit's AppTest: catalogue systems and
their result files in, the scenario ``rackcost new`` writes out (previewed, downloadable, opened for editing).

AppTest cannot drive ``st.file_uploader``: its callback puts ``(name, bytes)`` pairs into
``st.session_state["new_files"]`` by entry, so the tests put the fixture files there directly."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from streamlit.testing.v1 import AppTest

import rackcost

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app" / "streamlit_app.py")
PAGE = "app_pages/new.py"
FIXTURES = ROOT / "tests" / "data" / "inferencex_fixtures" / "newer"

pytestmark = pytest.mark.app


def _page(files: dict[str, list[tuple[str, bytes]]]) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.switch_page(PAGE).run()
    assert not at.exception, [e.value for e in at.exception]
    at.session_state["new_files"] = files
    at.text_input(key="new_model").set_value("example/moe-1t-a32b")
    at.number_input(key="new_ttft").set_value(3000.0)
    return at


def _fixture(folder: str) -> list[tuple[str, bytes]]:
    return [(p.name, p.read_bytes()) for p in sorted((FIXTURES / folder).glob("*.json"))]


def test_the_page_builds_a_sourced_scenario_that_loads_and_opens_it_for_editing():
    at = _page({"b200": _fixture("b200_runner_moe1t_fp4_1k1k")})
    at.multiselect(key="new_systems").set_value(["b200"]).run()
    at.button(key="new_build").click().run()
    assert not at.exception, [e.value for e in at.exception]
    (code,) = at.code
    data = yaml.safe_load(code.value)
    assert data["systems"][0]["catalog"] == "b200"
    assert "systems[0].rent.usd_per_accelerator_hour" in data["figures"]
    rackcost.scenario_from_yaml(code.value, "new.yaml")
    at.button(key="new_open").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.session_state["file_name"] == "new-scenario.yaml"


def test_a_system_without_curves_is_said_and_nothing_is_offered():
    at = _page({})
    at.multiselect(key="new_systems").set_value(["gaudi3"]).run()
    at.button(key="new_build").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("no curve of example" in e.value for e in at.error)
    assert not at.code
