"""The dashboard validates a scenario once per edit (issue 24, item 5): a count, not a time.

An edit used to validate the same scenario four times on the Scenario page (the draft, then the cached ``served``,
``outcomes`` and ``evaluate`` calls, each from the canonical JSON), six more on the Results page and one on the
Claim page. The draft's validation is now handed to the cached calls (:func:`rackcost_app.compute.remember`), and
:func:`rackcost_app.compute.scenario` validates each canonical JSON text once. The scenario handed over must be the
one the cached calls would have validated themselves, so that nothing the user sees changes: the tests compare them
field by field, origin, the fields set and the order of every mapping included.
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path

import pytest
import yaml
from streamlit.testing.v1 import AppTest

import rackcost
from rackcost.scenario.schema import Scenario

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "app"))
from rackcost_app import compute  # noqa: E402
from rackcost_app.state import evaluable_json  # noqa: E402
from test_app import TIMEOUT_S, numeric_path, ok, widget  # noqa: E402
from test_unserved_analyses import data as three_systems  # noqa: E402

pytestmark = pytest.mark.app
APP = str(ROOT / "app" / "streamlit_app.py")


@pytest.fixture
def validations(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every ``Scenario.model_validate`` call (what ``rackcost.scenario_from_dict`` validates with), counted."""
    calls: list[int] = []
    original = Scenario.model_validate.__func__  # type: ignore[attr-defined]

    def counted(cls, *args, **kwargs):
        calls.append(1)
        return original(cls, *args, **kwargs)

    monkeypatch.setattr(Scenario, "model_validate", classmethod(counted))
    return calls


def same_scenario(handed: rackcost.Scenario, scenario_json: str) -> None:
    """``handed`` is the scenario ``scenario_from_dict`` validates from the canonical JSON text, in every respect."""
    fresh = rackcost.scenario_from_dict(json.loads(scenario_json), compute.ORIGIN)
    assert handed == fresh
    assert repr(handed) == repr(fresh)  # the order of every mapping (figures, distributions) included
    assert handed.model_dump(exclude_unset=True) == fresh.model_dump(exclude_unset=True)
    assert (handed.origin_file, handed.origin_lines) == (fresh.origin_file, fresh.origin_lines)


def test_an_edit_validates_the_scenario_once(validations: list[int]) -> None:
    """One edit of the electricity price on the Scenario page: one validation, and none more on the pages that
    show its results."""
    at = AppTest.from_file(APP, default_timeout=TIMEOUT_S)
    at.run()
    at.switch_page("app_pages/scenario.py").run()
    ok(at)
    for price in (0.0913, 0.0927):  # prices no other test uses: every cached call misses, as after a real edit
        field = widget(at, "number_input", numeric_path(at, "facility.electricity_usd_per_kwh"))
        validations.clear()
        field.set_value(price).run()
        ok(at)
        assert len(validations) == 1
        for page in ("app_pages/answer.py", "app_pages/results.py", "app_pages/claim.py", "app_pages/scenario.py"):
            at.switch_page(page).run()
            ok(at)
        assert len(validations) == 1
        key = at.session_state["valid_json"]
        assert json.loads(key)["facility"]["electricity_usd_per_kwh"]["mode"] == price
        same_scenario(compute.scenario(key), key)


def scenarios() -> list[tuple[str, dict]]:
    """Every bundled scenario, and one with a system it cannot serve (so that the handed-over ``servable`` matters)."""
    out = [(p.name, yaml.safe_load(p.read_text(encoding="utf-8"))) for p in rackcost.bundled_scenarios()]
    return [*out, ("three.yaml (A unserved)", three_systems())]


@pytest.mark.parametrize(("name", "data"), scenarios(), ids=lambda v: v if isinstance(v, str) else "")
def test_the_scenario_handed_over_is_the_one_validated_from_its_json(name: str, data: dict) -> None:
    """The draft's validation, handed to the cached calls, equals the validation of the canonical JSON they would
    have made (origin and mapping order included), and so does the scenario of the systems served."""
    key = evaluable_json(rackcost.scenario_from_dict(copy.deepcopy(data), name))
    same_scenario(compute.scenario(key), key)
    kept_json, unserved = compute.served(key)
    same_scenario(compute.scenario(kept_json), kept_json)
    fresh = rackcost.scenario_from_dict(json.loads(key), compute.ORIGIN)
    expected = rackcost.evaluation.servable.servable(fresh)[1]
    assert unserved == expected
    assert (kept_json == key) == (not expected)
