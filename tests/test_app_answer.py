"""The Answer page (the one the dashboard opens on), the scenario kept in the URL, and the confirm step before
edits are replaced (issue 22). AppTest; the browser walk is in tests/test_browser.py."""

from __future__ import annotations

import base64
import re
import sys
import zlib
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml
from streamlit.testing.v1 import AppTest

import rackcost
from rackcost.reporting.result_sections import answer_sentence
from reference import TWO_SYSTEMS

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app" / "streamlit_app.py")
TIMEOUT_S = 120
sys.path.insert(0, str(ROOT / "app"))
from rackcost_app import answer, links  # noqa: E402

pytestmark = pytest.mark.app


def shown(text: str) -> str:
    """Markdown as the browser shows it: user text comes backslash-escaped (rackcost_app.safe.md)."""
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", text)


def ok(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


def opened(query: dict[str, str] | None = None) -> AppTest:
    """A new session of the app (a new tab, a reload) at a URL with these query parameters."""
    at = AppTest.from_file(APP, default_timeout=TIMEOUT_S)
    at.query_params.update(query or {})
    at.run()
    ok(at)
    return at


def errors(at: AppTest) -> str:
    return "\n".join(shown(e.value) for e in at.error)


def edit_price(at: AppTest, value: float) -> None:
    """Set the facility's electricity price on the Scenario page (its central value when it is a distribution)."""
    at.switch_page("app_pages/scenario.py").run()
    at.session_state["scenario_tab"] = "Facility and fleet"
    at.run()
    draft = at.session_state["draft"]
    path = "facility.electricity_usd_per_kwh"
    if isinstance(draft["facility"]["electricity_usd_per_kwh"], dict):
        path += ".mode"
    (box,) = [w for w in at.number_input if w.key and w.key.split("|", 1)[-1] == path]
    box.set_value(value).run()
    ok(at)


def default_result() -> rackcost.Result:
    return rackcost.evaluate(rackcost.load_scenario(rackcost.bundled_scenario_path()))


def test_the_app_opens_on_the_answer_the_reports_sentence_the_saving_and_the_totals():
    at = opened()
    result = default_result()
    assert at.title[0].value == "Answer"
    assert shown(at.subheader[0].value) == answer_sentence(result.records["systems"])
    assert "44% less than GB300 NVL72" in shown(at.subheader[0].value)  # the saving, said once
    metrics = {shown(m.label): m for m in at.metric}
    jalapeno = next(r for r in result.records["systems"] if r["system"] == "Jalapeño")
    top = metrics["cheapest over the day: Jalapeño"]
    assert top.value == "$0.451 per 1,000" and "44%" in top.delta
    assert metrics["its cost per year"].value == rackcost.display.money(jalapeno["usd_per_day"] * 365)
    # both systems are owned with a 5-year service life
    assert metrics["its cost over 5 years"].value == rackcost.display.money(jalapeno["usd_per_day"] * 365 * 5)
    # the systems table marks the cheapest; the demand points table names the cheapest at each point
    systems, points = (d.value for d in at.dataframe)
    assert list(systems["system"]) == ["GB300 NVL72", "★ Jalapeño"]
    assert list(points["cheapest"]) == ["Jalapeño"] * 3
    # warnings: one collapsed expander with the count, not a box each above the answer
    (warnings,) = [e for e in at.expander if e.label.startswith("Warnings")]
    assert warnings.label.startswith(f"Warnings ({len(result.warnings)})")
    assert not at.warning


def test_the_answer_page_shows_kw_per_rack_beside_the_rack_limit():
    """The rack in kW on the Answer page: each system's mean and peak IT power per rack and the rack power limit,
    the library's figures under the registry's headers."""
    at = opened()
    systems = at.dataframe[0].value
    result = default_result()
    for name in answer.RACK_POWER:
        assert list(systems[name]) == pytest.approx([r[name] for r in result.records["systems"]])
        assert "kW per rack" in answer.columns()[name].header
    assert list(systems["rack_power_limit_kw"]) == [140.0, 140.0]


def test_answer_figures_per_point_per_system_and_the_service_life_horizon():
    result = default_result()
    data = yaml.safe_load(rackcost.bundled_scenario_path().read_text(encoding="utf-8"))
    found = answer.answer(result, data)
    assert found.cheapest == "Jalapeño" and found.runner_up == "GB300 NVL72"
    costs = {r["system"]: r["blended_usd_per_accepted_request"] for r in result.records["systems"]}
    assert found.saving_fraction == pytest.approx(1 - costs["Jalapeño"] / costs["GB300 NVL72"])
    assert found.horizon_years == 5.0
    for row in found.points:
        here = [p for p in result.records["points"] if p["demand_point"] == row["demand_point"]]
        best = min(here, key=lambda p: p["usd_per_accepted_request"])
        assert row["cheapest"] == best["system"]
        assert row["usd_per_accepted_request"] == best["usd_per_accepted_request"]
    for row in found.systems:
        mine = [p for p in result.records["points"] if p["system"] == row["system"]]
        accepted = sum(p["accepted_rps"] * p["hours_per_day"] for p in mine)
        offered = sum(p["offered_rps"] * p["hours_per_day"] for p in mine)
        assert row["accepted_fraction"] == pytest.approx(accepted / offered)
        assert row["usd_over_horizon"] == pytest.approx(row["usd_per_year"] * 5)
    assert found.unserved == []  # the library without Result.unserved, or every system served


def test_unserved_systems_are_listed_with_why():
    result = default_result()
    unserved = [
        {
            "system": "Slow box",
            "path": "systems[2].performance",
            "limit": "slo",
            "reason": "no operating point meets the TPOT limit of 40 ms (the fastest has 55 ms)",
        }
    ]
    fake = SimpleNamespace(records=result.records, warnings=result.warnings, unserved=unserved)
    found = answer.answer(fake, yaml.safe_load(rackcost.bundled_scenario_path().read_text(encoding="utf-8")))
    assert found.unserved == unserved


def test_an_edit_lives_in_the_url_and_a_new_session_restores_it():
    at = opened()
    assert dict(at.query_params) == {"scenario": "deepseek-r1-jalapeno-vs-gb300.yaml"}
    edit_price(at, 0.12)
    assert not at.session_state["problems"]
    edited = at.session_state["valid_json"]
    query = {k: v if isinstance(v, str) else v[0] for k, v in at.query_params.items()}
    # the default scenario, edited, compresses to more than a sane URL holds: a server-side copy's id
    assert set(query) == {"id", "file"} and re.fullmatch(r"[0-9a-f]{16}", query["id"])
    assert "(edited)" in shown(at.sidebar.markdown[0].value)
    again = opened(query)  # a reload, a new tab or a shared link
    assert again.session_state["valid_json"] == edited
    assert again.session_state["file_name"] == "deepseek-r1-jalapeno-vs-gb300.yaml"
    assert "(edited)" in shown(again.sidebar.markdown[0].value)
    assert not again.session_state["load_problems"]


def test_a_small_scenario_lives_in_the_url_itself():
    at = opened()
    at.session_state["pending_upload"] = (TWO_SYSTEMS.read_bytes(), "two.yaml")
    at.run()
    ok(at)
    query = {k: v if isinstance(v, str) else v[0] for k, v in at.query_params.items()}
    assert set(query) == {"s", "file"} and query["file"] == "two.yaml"
    assert len(query["s"]) <= links.MAX_URL_CHARS
    again = opened(query)
    assert again.session_state["valid_json"] == at.session_state["valid_json"]


def test_an_invalid_draft_in_the_url_waits_in_the_yaml_tab_and_the_url_is_kept():
    data = yaml.safe_load(rackcost.bundled_scenario_path().read_text(encoding="utf-8"))
    data["facility"]["pue"] = 0.5
    query = {"s": links.encode_text(yaml.safe_dump(data, sort_keys=False)), "file": "mine.yaml"}
    at = opened(query)
    assert "Not loaded: mine.yaml" in errors(at) or at.session_state["load_problems"]
    assert at.session_state["rejected_text"][0] == "mine.yaml"
    assert dict(at.query_params)["s"] in (query["s"], [query["s"]])  # not overwritten by the default
    at.run()
    assert dict(at.query_params)["s"] in (query["s"], [query["s"]])


def bomb() -> str:
    return base64.urlsafe_b64encode(zlib.compress(b"#" * 5_000_000, 9)).decode().rstrip("=")


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ({"s": "!!!not base64!!!"}, "not base64url"),
        ({"s": "AAAA"}, "not zlib"),
        ({"s": bomb()}, "limited to 1 MB"),
        ({"s": links.encode_text("- a list\n- of things\n")}, "the link"),
        ({"s": links.encode_text("name: !!python/object/apply:os.system [echo]\n")}, "the link"),
        ({"s": base64.urlsafe_b64encode(zlib.compress(bytes(range(256)))).decode()}, "not a UTF-8 text file"),
        ({"id": "../../../etc/passwd"}, "16 hexadecimal digits"),
        ({"id": "0123456789abcdef"}, "no longer kept"),
        ({"scenario": "../../etc/passwd"}, "no bundled scenario"),
        ({"s": "AAAA", "file": "![x](http://attacker.example/p.png)"}, "not zlib"),
    ],
    ids=["base64", "zlib", "bomb", "list", "python-tag", "binary", "id-path", "id-missing", "bundled", "hostile-name"],
)
def test_hostile_urls_are_refused_like_uploaded_files(query, message):
    at = opened(query)
    said = errors(at)
    assert "Not loaded:" in said and message in said, said
    assert at.session_state["file_name"] == "deepseek-r1-jalapeno-vs-gb300.yaml"  # the default stays
    assert "attacker.example/p.png)" not in "".join(e.value for e in at.error)  # escaped, never a link
    for page in ("app_pages/scenario.py", "app_pages/results.py"):
        at.switch_page(page).run()
        ok(at)


def test_replacing_edits_asks_first_and_keeping_them_keeps_them():
    at = opened()
    edit_price(at, 0.12)
    edited = at.session_state["valid_json"]
    # a valid upload waits for the user's answer
    at.session_state["pending_upload"] = (TWO_SYSTEMS.read_bytes(), "two.yaml")
    at.run()
    ok(at)
    assert at.session_state["valid_json"] == edited
    assert "Replace your edits?" in "".join(shown(w.value) for w in at.warning)
    at.button(key="confirm_replace_no").click().run()
    assert at.session_state["valid_json"] == edited and "pending_replace" not in at.session_state
    # a refused upload is refused at once: nothing to ask
    at.session_state["pending_upload"] = (b"name: [unclosed", "bad.yaml")
    at.run()
    assert "Not loaded: bad.yaml" in errors(at) and "pending_replace" not in at.session_state
    # a bundled scenario asks too; replacing loads it
    at.selectbox(key="bundled").select("kimi-k2.5-jalapeno-vs-gb300.yaml")
    at.button(key="load_bundled").click().run()
    assert at.session_state["valid_json"] == edited
    at.button(key="confirm_replace_yes").click().run()
    ok(at)
    assert at.session_state["file_name"] == "kimi-k2.5-jalapeno-vs-gb300.yaml"
    assert "(edited)" not in shown(at.sidebar.markdown[0].value)
    assert dict(at.query_params) in ({"scenario": "kimi-k2.5-jalapeno-vs-gb300.yaml"},)


def test_an_unedited_scenario_loads_without_asking():
    at = opened()
    at.session_state["pending_upload"] = (TWO_SYSTEMS.read_bytes(), "two.yaml")
    at.run()
    assert at.session_state["file_name"] == "two.yaml" and "pending_replace" not in at.session_state


def test_the_link_store_is_bounded(tmp_path, monkeypatch):
    monkeypatch.setattr(links, "STORE_DIR", tmp_path)
    monkeypatch.setattr(links, "STORE_MAX_FILES", 5)
    ids = [links._store(f"name: scenario {i}\n") for i in range(12)]
    kept = sorted(p.stem for p in tmp_path.glob("*.yaml"))
    assert len(kept) == 5 and set(kept) <= set(ids)
    assert links._store("name: scenario 11\n") == ids[-1]  # the same text, the same id


def test_the_apps_own_config_turns_usage_statistics_off_hides_deploy_and_says_the_apps_upload_limit():
    import tomllib

    config = tomllib.loads((ROOT / "app" / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert config["browser"]["gatherUsageStats"] is False
    assert config["client"]["toolbarMode"] == "viewer"  # no Deploy, Rerun or Clear cache
    assert config["server"]["maxUploadSize"] == 1  # MB: the app's 1 MB (rackcost_app.state.MAX_UPLOAD_MB)
    from rackcost_app.state import MAX_UPLOAD_MB

    assert MAX_UPLOAD_MB == 1
    # the wheel carries it beside the packaged streamlit_app.py (where `streamlit run` reads it)
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    included = pyproject["tool"]["hatch"]["build"]["targets"]["wheel"]["force-include"]
    assert included["app/.streamlit/config.toml"] == "rackcost/app/.streamlit/config.toml"
    assert included["app/streamlit_app.py"] == "rackcost/app/streamlit_app.py"


def test_a_system_that_cannot_meet_the_slo_is_marked_with_why_and_the_others_answer():
    data = yaml.safe_load(rackcost.bundled_scenario_path().read_text(encoding="utf-8"))
    data["slo"]["tpot_limit_ms"] = 5  # GB300 NVL72's fastest point has 5.91 ms, Jalapeño's 1.44 ms
    at = opened()
    at.session_state["pending_upload"] = (yaml.safe_dump(data, sort_keys=False).encode("utf-8"), "fast.yaml")
    at.run()
    ok(at)
    # not an input problem: the scenario loads, the answer is Jalapeño's, GB300 NVL72 is listed with why
    assert at.session_state["file_name"] == "fast.yaml" and not at.session_state["problems"]
    said = errors(at)
    assert "1 system cannot serve this scenario" in said and "GB300 NVL72" in said
    assert "it cannot meet the SLO" in said and "TPOT" in said and "systems[0].performance" in said
    assert "Jalapeño costs" in shown(at.subheader[0].value)
    for page in ("app_pages/results.py", "app_pages/claim.py", "app_pages/uncertainty.py", "app_pages/sweep.py"):
        at.session_state["uncertainty_samples"] = 1_000
        at.switch_page(page).run()
        ok(at)
    at.switch_page("app_pages/results.py").run()
    assert "cannot serve this scenario" in errors(at)


def test_a_scenario_no_system_can_serve_is_refused_with_each_reason():
    data = yaml.safe_load(rackcost.bundled_scenario_path().read_text(encoding="utf-8"))
    data["slo"]["tpot_limit_ms"] = 1
    at = opened()
    at.session_state["pending_upload"] = (yaml.safe_dump(data, sort_keys=False).encode("utf-8"), "none.yaml")
    at.run()
    ok(at)
    said = errors(at)
    assert "Not loaded: none.yaml" in said
    assert "systems[0].performance" in said and "systems[1].performance" in said
    assert at.session_state["file_name"] == "deepseek-r1-jalapeno-vs-gb300.yaml"


def test_a_demand_profile_totals_each_system_over_its_horizon_not_the_service_life():
    """The three-year buying plan: the Answer page's totals are over the profile's 3 years (the library's ``horizon``
    table, as paid), not a year's cost times the 5-year service life of the owned racks."""
    path = rackcost.bundled_scenario_path("deepseek-r1-three-year-buying-plan.yaml")
    result = rackcost.evaluate(rackcost.load_scenario(path))
    found = answer.answer(result, yaml.safe_load(path.read_text(encoding="utf-8")))
    assert found.horizon_years == 3.0 and found.profile_horizon
    over = {r["system"]: r["cost_usd"] for r in result.records["horizon"]}
    assert {r["system"]: r["usd_over_horizon"] for r in found.systems} == over
    assert not answer.answer(default_result(), {}).profile_horizon


def test_a_scenario_with_a_plan_leads_with_the_plan_on_the_answer_page():
    """The Answer page of a scenario with a ``plan`` block finds the plan and leads with the Buying plan page's
    sentence (the plan of ``rackcost plan``), its total over the horizon and the sources it holds; the day's
    cheapest system follows, as each system alone, and the Buying plan page then shows the plan it found."""
    from rackcost.evaluation.planning import plan_scenario
    from rackcost.reporting.plan_section import plan_sentence
    from reference import DATA

    path = DATA / "plan_small.yaml"
    at = opened()
    at.session_state["pending_upload"] = (path.read_bytes(), "plan.yaml")
    at.run()
    ok(at)
    scenario = rackcost.load_scenario(path)
    assert [i.value for i in at.info] == []
    said = plan_sentence(plan_scenario(scenario))
    assert shown(at.subheader[0].value) == said
    labels = [m.label for m in at.metric]
    assert labels[:3] == ["the plan over 1 year", "the sources it uses", "against the best single source"]
    assert "cheapest over the day" not in " ".join(labels[:3])
    day = answer_sentence(rackcost.evaluate(scenario).records["systems"])
    assert day in [shown(m.value) for m in at.markdown]
    at.switch_page("app_pages/plan.py").run()
    ok(at)
    assert shown(at.subheader[0].value) == said


def test_the_three_year_plans_answer_page_names_the_decision_rackcost_plan_names(three_year_plan):
    """The bundled three-year buying plan: the Answer page leads with the decision ``rackcost evaluate`` and the
    report lead with (rackcost.reporting.decision), the plan of ``rackcost plan`` (owned racks and spot, on-demand
    unused) over the scenario's 3 years, not rented on-demand as the cheapest over the day."""
    import streamlit as st

    from rackcost.reporting.plan_section import plan_sentence

    path, plan, calls = three_year_plan
    # the dashboard keeps evaluations (and their plans) across sessions: an earlier test's would answer without a call
    st.cache_resource.clear()
    st.cache_data.clear()
    at = opened()
    at.session_state["pending_upload"] = (path.read_bytes(), path.name)
    at.run()
    ok(at)
    assert shown(at.subheader[0].value) == plan_sentence(plan)
    total, sources, saving = at.metric[:3]
    assert total.label == "the plan over 3 years"
    assert sources.help == "owned GB200 NVL72 racks; spot GB200 NVL72; DeepSeek API"
    assert "on-demand" not in sources.help and saving.label == "against the best single source"
    assert len(calls) == 1


def test_the_answer_says_how_sure_in_words_from_the_one_how_sure_sentence():
    """The Answer page says how sure it is without the user writing a distribution: the library's sentence
    (rackcost.reporting.how_sure, 2,000 draws, seed 0: the default spreads where the scenario has none)."""
    from rackcost.evaluation.chain import evaluation
    from rackcost.reporting.how_sure import how_sure

    at = opened()
    said = [shown(m.value) for m in at.markdown if m.value.startswith("**How sure:**")]
    scenario = rackcost.load_scenario(rackcost.bundled_scenario_path())
    assert said == [f"**How sure:** {how_sure(evaluation(scenario))}"]
    assert said[0].endswith(("likely.", "certain.", "unlikely.", "as not.", "as likely as not."))
