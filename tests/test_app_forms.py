"""The Scenario page's forms for the whole scenario (issue 22, item 4), driven by AppTest: own / rent / API as a switch
per system, add / duplicate / remove a system, a fixed value on a distribution, the SLO sliders and the YAML text
with line numbers. Each goes through the page's edit path: "(edited)", the URL and the provenance follow."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
import yaml
from streamlit.testing.v1 import AppTest

import rackcost
from app_editing import edit_table, editor
from rackcost.scenario.class_blocks import token_moments
from rackcost.scenario.system_edits import DEFAULT_SOURCE

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app" / "streamlit_app.py")
TIMEOUT_S = 120  # a hang guard per script run, generous for a busy machine
OWN_RENT_API = "deepseek-r1-own-vs-rent-vs-api.yaml"
sys.path.insert(0, str(ROOT / "app"))
from rackcost_app import layout  # noqa: E402

pytestmark = pytest.mark.app


def ok(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


def shown(text: str) -> str:
    """Markdown as the browser shows it: user text comes backslash-escaped (rackcost_app.safe.md)."""
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", text)


def start(query: dict[str, str] | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT_S)
    at.query_params.update(query or {})
    at.run()
    ok(at)
    at.switch_page("app_pages/scenario.py").run()
    ok(at)
    return at


def load(at: AppTest, name: str) -> None:
    at.selectbox(key="bundled").select(name)
    at.button(key="load_bundled").click().run()
    ok(at)


def open_tab(at: AppTest, label: str) -> None:
    if at.session_state["scenario_tab"] != label:
        at.session_state["scenario_tab"] = label
        at.run()
        ok(at)


def system_tab(at: AppTest, index: int) -> None:
    open_tab(at, at.session_state["scenario_tab_labels"][3 + index])


def keyed(widgets, path: str, *, prefix: bool = False):
    """The widget of a YAML path (key ``g<generation>|<path>``, with any suffix given in ``path``); with ``prefix``,
    the one whose key goes on after it (the switches and sliders whose keys hold their value)."""
    (found,) = [
        w
        for w in widgets
        if w.key and (w.key.split("|", 1)[-1].startswith(path + "|") if prefix else w.key.split("|", 1)[-1] == path)
    ]
    return found


def payment_switch(at: AppTest, index: int):
    system_tab(at, index)
    return keyed(at.segmented_control, f"systems[{index}]|payment", prefix=True)


def texts(elements) -> str:
    return "\n".join(shown(e.value) for e in elements)


def names(at: AppTest) -> list[str]:
    return [s["name"] for s in at.session_state["draft"]["systems"]]


def blended(at: AppTest) -> dict[str, float]:
    """Blended cost per accepted request of each system served, from the last valid scenario."""
    result = rackcost.evaluate(rackcost.scenario_from_dict(at.session_state["valid"]))
    return {r["system"]: r["blended_usd_per_accepted_request"] for r in result.records["systems"]}


def query(at: AppTest) -> dict[str, str]:
    return {k: v if isinstance(v, str) else v[0] for k, v in at.query_params.items()}


def test_switching_a_system_to_rented_and_back_keeps_its_costs_and_their_sources():
    at = start()
    loaded = at.session_state["draft"]
    switch = payment_switch(at, 1)
    assert switch.value == "own" and switch.options == ["Owned", "Rented", "API"]
    before = blended(at)["Jalapeño"]
    switch.set_value("rent").run()
    ok(at)
    system = at.session_state["draft"]["systems"][1]
    assert "costs" not in system and set(system["rent"]) == {"usd_per_accelerator_hour"}
    assert not at.session_state["problems"]
    # no rental price is published for Jalapeño: parity with owning it, labelled as a starting value to review
    figure = at.session_state["draft"]["figures"]["systems[1].rent"]
    assert figure["provenance"] == "assumption" and figure["source"].startswith(DEFAULT_SOURCE)
    assert "what owning Jalapeño costs per accelerator-hour" in figure["source"]
    assert "Jalapeño is now rented" in texts(at.success)
    assert "To be reviewed:" in texts(at.warning)
    assert blended(at)["Jalapeño"] == pytest.approx(before, rel=0.01)
    # its form is the rent's, the switch says so, the sidebar says edited and the URL holds it
    assert keyed(at.number_input, "systems[1].rent.usd_per_accelerator_hour").value == pytest.approx(1.3)
    assert not [w for w in at.number_input if w.key and w.key.endswith("systems[1].costs.service_life_years")]
    assert payment_switch(at, 1).value == "rent"
    assert any("(edited)" in m.value for m in at.sidebar.markdown)
    assert set(query(at)) in ({"id", "file"}, {"s", "file"})
    # loading another scenario over the switch asks first; keeping the edits keeps it
    load(at, OWN_RENT_API)
    assert at.session_state["pending_replace"][2] == OWN_RENT_API
    at.button(key="confirm_replace_no").click().run()
    ok(at)
    assert "rent" in at.session_state["draft"]["systems"][1]
    # back to owned: the costs it had, with their sources; nothing reads as edited
    payment_switch(at, 1).set_value("own").run()
    ok(at)
    assert at.session_state["draft"] == loaded
    assert query(at) == {"scenario": "deepseek-r1-jalapeno-vs-gb300.yaml"}


def test_a_switch_the_scenario_cannot_price_asks_for_the_values_it_needs():
    at = start()
    payment_switch(at, 0).set_value("api").run()
    ok(at)
    assert "api" not in at.session_state["draft"]["systems"][0]  # nothing switched yet
    said = texts(at.warning)
    assert "needs its prices per million input and output tokens" in said
    asked = [w for w in at.number_input if w.key and w.key.startswith("payment_given|")]
    assert [w.label for w in asked] == ["input token price [USD/M tokens]", "output token price [USD/M tokens]"]
    for box, price in zip(asked, (0.55, 2.19), strict=True):
        box.set_value(price)
    at.button(key="payment_given_go").click().run()
    ok(at)
    system = at.session_state["draft"]["systems"][0]
    assert system["api"] == {"usd_per_million_input_tokens": 0.55, "usd_per_million_output_tokens": 2.19}
    assert not {"performance", "hardware", "costs"} & set(system)
    assert system["provenance"]["class"] == "assumption"
    assert not at.session_state["problems"] and "GB300 NVL72" in blended(at)
    assert payment_switch(at, 0).value == "api"
    # the prices typed are the user's: labelled as edits
    figures = at.session_state["draft"]["figures"]
    assert figures["systems[0].api.usd_per_million_output_tokens"]["source"].startswith("edited in the rackcost")
    # back to owned: its operating points, hardware, costs and provenance come back as they were
    payment_switch(at, 0).set_value("own").run()
    ok(at)
    assert at.session_state["draft"] == at.session_state["loaded"]


def test_owned_rented_and_api_systems_switch_between_each_other_with_starting_values():
    at = start()
    load(at, OWN_RENT_API)
    payment_switch(at, 3).set_value("rent").run()  # the DeepSeek API, on the first hardware system's GB200s
    ok(at)
    system = at.session_state["draft"]["systems"][3]
    assert system["rent"] == {"usd_per_accelerator_hour": 3.3}  # InferenceX's GB200 3-year rental tier
    assert system["hardware"]["accelerator"] == "GB200" and "api" not in system
    assert not at.session_state["problems"]
    payment_switch(at, 1).set_value("own").run()  # rented, reserved -> owned: the owned GB200's costs
    ok(at)
    assert at.session_state["draft"]["systems"][1]["costs"] == at.session_state["draft"]["systems"][0]["costs"]
    assert "copied from system GB200 NVL72 owned" in at.session_state["draft"]["figures"]["systems[1].costs"]["source"]
    assert not at.session_state["problems"]
    for page in ("app_pages/answer.py", "app_pages/results.py"):
        at.switch_page(page).run()
        ok(at)


def test_add_a_rented_system_duplicate_and_remove_keep_names_unique_and_figures_with_their_system():
    at = start()
    system_tab(at, 1)
    at.button(key="add_rented|1").click().run()
    ok(at)
    assert names(at) == ["GB300 NVL72", "Jalapeño", "Jalapeño (rented)"]
    assert at.session_state["scenario_tab"] == at.session_state["scenario_tab_labels"][5]  # its tab is open
    new = at.session_state["draft"]["systems"][2]
    assert new["performance"] == at.session_state["draft"]["systems"][1]["performance"] and "costs" not in new
    costs = blended(at)
    assert costs["Jalapeño (rented)"] == pytest.approx(costs["Jalapeño"], rel=0.01)  # priced at parity
    assert "Added Jalapeño (rented), a copy of Jalapeño" in texts(at.success)
    figures = at.session_state["draft"]["figures"]
    assert not [k for k, f in figures.items() if f["source"].startswith("edited in the rackcost")]
    # duplicates count up
    at.button(key="duplicate|2").click().run()
    ok(at)
    system_tab(at, 1)
    at.button(key="duplicate|1").click().run()
    system_tab(at, 1)
    at.button(key="duplicate|1").click().run()
    ok(at)
    assert names(at)[3:] == ["Jalapeño (rented) (copy)", "Jalapeño (copy)", "Jalapeño (copy 2)"]
    assert not at.session_state["problems"]
    # remove asks first; Keep keeps it
    system_tab(at, 0)
    at.button(key="remove|0").click().run()
    assert "Remove GB300 NVL72?" in texts(at.warning)
    at.button(key="remove_no|0").click().run()
    assert len(names(at)) == 6
    at.button(key="remove|0").click().run()
    at.button(key="remove_yes|0").click().run()
    ok(at)
    assert names(at)[0] == "Jalapeño" and not at.session_state["problems"]
    # the figures moved with their systems (Jalapeño's capex figure now at systems[0])
    loaded_figure = at.session_state["loaded"]["figures"]["systems[1].costs.capex_usd_per_accelerator"]
    assert at.session_state["draft"]["figures"]["systems[0].costs.capex_usd_per_accelerator"] == loaded_figure
    assert at.session_state["scenario_tab"] == at.session_state["scenario_tab_labels"][3]  # the next one's tab
    # down to one system: it cannot be removed
    while len(names(at)) > 1:
        system_tab(at, 0)
        at.button(key="remove|0").click().run()
        at.button(key="remove_yes|0").click().run()
        ok(at)
    system_tab(at, 0)
    assert at.button(key="remove|0").disabled


def test_an_added_system_survives_a_reload_with_its_figures():
    at = start()
    system_tab(at, 1)
    at.button(key="add_rented|1").click().run()
    ok(at)
    again = start(query(at))
    assert names(again) == ["GB300 NVL72", "Jalapeño", "Jalapeño (rented)"]
    assert again.session_state["valid_json"] == at.session_state["valid_json"]
    assert any("(edited)" in m.value for m in again.sidebar.markdown)
    # the baseline after the reload is the bundled file for the systems it has, the draft for the one added: an edit
    # of the added system's price is labelled against its starting value (not "not given in the file"), and the
    # block keeps its entry; an edit of Jalapeño's against the bundled file
    system_tab(again, 2)
    keyed(again.number_input, "systems[2].rent.usd_per_accelerator_hour").set_value(2.5).run()
    ok(again)
    figures = again.session_state["draft"]["figures"]
    assert figures["systems[2].rent.usd_per_accelerator_hour"]["source"] == (
        "edited in the rackcost dashboard; the file gave 1.3"
    )
    assert figures["systems[2].rent"] == at.session_state["draft"]["figures"]["systems[2].rent"]
    assert figures["systems[2].rent"]["source"].startswith(DEFAULT_SOURCE)
    system_tab(again, 1)
    keyed(again.number_input, "systems[1].costs.capex_usd_per_node").set_value(50000.0).run()
    ok(again)
    assert again.session_state["draft"]["figures"]["systems[1].costs.capex_usd_per_node"]["source"].startswith(
        "edited in the rackcost dashboard; the file gave 40000 (no price exists"
    )


def test_a_fixed_value_on_a_distribution_takes_a_pue_beyond_its_range():
    at = start()
    open_tab(at, "Facility and fleet")
    # the PUE is a triangle 1.1 / 1.15 / 1.3: a mode of 1.4 is outside it, refused
    keyed(at.number_input, "facility.pue.mode").set_value(1.4).run()
    ok(at)
    assert "needs low <= mode <= high" in texts(at.error)
    valid = at.session_state["valid_json"]
    keyed(at.number_input, "facility.pue.mode").set_value(1.15).run()
    fixed = keyed(at.toggle, "facility.pue|fixed", prefix=True)
    assert fixed.value is False and fixed.label == "fixed value"
    fixed.set_value(True).run()
    ok(at)
    assert at.session_state["draft"]["facility"]["pue"] == 1.15  # its central value, to start with
    keyed(at.number_input, "facility.pue").set_value(1.4).run()
    ok(at)
    assert at.session_state["draft"]["facility"]["pue"] == 1.4 and not at.session_state["problems"]
    assert at.session_state["valid_json"] != valid
    figure = at.session_state["draft"]["figures"]["facility.pue"]
    assert "the file gave a triangular distribution (low 1.1, mode 1.15, high 1.3)" in figure["source"]
    assert keyed(at.toggle, "facility.pue|fixed", prefix=True).value is True
    # off again: the range comes back, with its own source
    keyed(at.toggle, "facility.pue|fixed", prefix=True).set_value(False).run()
    ok(at)
    assert at.session_state["draft"]["facility"] == at.session_state["loaded"]["facility"]
    assert at.session_state["draft"]["figures"]["facility.pue"] == at.session_state["loaded"]["figures"]["facility.pue"]


def test_the_slo_sliders_move_the_limit_the_number_and_the_result():
    at = start()
    open_tab(at, "Workload and SLO")
    slider = keyed(at.select_slider, "slo.tpot_limit_ms|slider", prefix=True)
    assert slider.value == 80.0 and {"5 ms", "1,500 ms"} & set(slider.options) == {"5 ms"}
    before = blended(at)
    slider.set_value(15.0).run()
    ok(at)
    assert at.session_state["draft"]["slo"]["tpot_limit_ms"] == 15.0
    assert keyed(at.number_input, "slo.tpot_limit_ms").value == 15.0  # the number follows the slider
    after = blended(at)
    assert after != before  # a tighter TPOT limit: another operating point, another cost
    # the number moves the slider; a value off its steps joins them
    keyed(at.number_input, "slo.tpot_limit_ms").set_value(5.5).run()
    ok(at)
    assert keyed(at.select_slider, "slo.tpot_limit_ms|slider", prefix=True).value == 5.5
    # 5.5 ms: no GB300 operating point meets it (its fastest TPOT is 5.9 ms); Jalapeño still answers
    result = rackcost.evaluate(rackcost.scenario_from_dict(at.session_state["valid"]))
    assert [u["system"] for u in result.unserved] == ["GB300 NVL72"]
    at.switch_page("app_pages/answer.py").run()
    ok(at)
    assert "GB300 NVL72" in texts(at.markdown) + texts(at.warning) + texts(at.error)
    assert "Jalapeño" in shown(at.subheader[0].value)
    # the TTFT limit has its slider too
    at.switch_page("app_pages/scenario.py").run()
    open_tab(at, "Workload and SLO")
    keyed(at.select_slider, "slo.ttft_limit_ms|slider", prefix=True).set_value(1500.0).run()
    ok(at)
    assert at.session_state["draft"]["slo"]["ttft_limit_ms"] == 1500.0


def test_the_yaml_text_has_line_numbers_and_a_refused_text_shows_the_lines_of_its_problems():
    at = start()
    open_tab(at, "YAML")
    (box,) = at.text_area
    numbered = [c for c in at.code if c.language == "yaml"]
    assert numbered and numbered[0].value == box.value.rstrip("\n")  # (st.code drops the final newline)
    assert numbered[0].show_line_numbers
    data = yaml.safe_load(box.value)
    data["facility"]["pue"] = 0.5
    text = yaml.safe_dump(data, sort_keys=False, allow_unicode=True)
    box.set_value(text)
    at.button(key="apply_yaml").click().run()
    ok(at)
    problem = next(p for p in at.session_state["load_problems"] if p.path.startswith("facility.pue"))
    line = text.splitlines().index(next(t for t in text.splitlines() if t.strip().startswith("pue:"))) + 1
    assert problem.line == line
    assert f"Line {line}: facility.pue" in texts(at.caption)
    excerpt = [c.value for c in at.code if f"{line} > " in c.value]
    assert excerpt and "pue: 0.5" in excerpt[0]


def test_lines_around_numbers_and_marks_the_line():
    assert layout.lines_around("a\nb\nc\nd\n", 4, 1).splitlines() == ["   3   c", "   4 > d"]


def test_the_fleet_captions_give_power_in_mw_above_1000_kw():
    """Issue 22: "3.53K kW" where buyers say MW (the captions under the Scenario and Results metrics)."""
    at = start()
    captions = texts(at.caption)
    assert re.search(r"\d MW wall power at most", captions) and "K kW" not in captions
    at.switch_page("app_pages/results.py").run()
    ok(at)
    captions = texts(at.caption)
    assert re.search(r"\d MW provisioned", captions) and "K kW" not in captions


def test_owning_a_system_with_no_costs_to_copy_asks_for_its_price_and_life():
    at = start()
    payment_switch(at, 1).set_value("rent").run()  # Jalapeño rented at parity: its costs are stashed
    ok(at)
    at.session_state["payment_stash"] = {}  # as after a reload: nothing to bring back but the file
    at.session_state["loaded"] = {**at.session_state["loaded"], "systems": []}  # and no file to take it from
    payment_switch(at, 1).set_value("own").run()
    ok(at)
    assert "no neutral default" in texts(at.warning)
    asked = {w.label: w for w in at.number_input if w.key and w.key.startswith("payment_given|")}
    assert set(asked) == {"capex per accelerator [USD]", "service life [years]"}
    assert asked["service life [years]"].value == 5.0 and asked["capex per accelerator [USD]"].value is None
    at.button(key="payment_given_go").click().run()  # the price is missing: nothing happens but a message
    ok(at)
    assert "Give every value asked for" in texts(at.error)
    asked = {w.label: w for w in at.number_input if w.key and w.key.startswith("payment_given|")}
    asked["capex per accelerator [USD]"].set_value(20000.0)
    at.button(key="payment_given_go").click().run()
    ok(at)
    costs = at.session_state["draft"]["systems"][1]["costs"]
    assert costs == {"capex_usd_per_accelerator": 20000.0, "service_life_years": 5.0}
    assert not at.session_state["problems"] and payment_switch(at, 1).value == "own"


# ---- request classes and the KV-cache memory limit -------------------------------------------------------------

CLASSES = "deepseek-r1-b200-vs-gb200-request-classes.yaml"
NO_EDITS = {"edited_rows": {}, "added_rows": [], "deleted_rows": []}


def classes_table(at: AppTest):
    """The Workload and SLO tab's table of request classes."""
    open_tab(at, "Workload and SLO")
    return keyed(at.data_editor, "workload.classes")


def edit_in_state(at: AppTest, table, **delta) -> None:
    """Edit a table as the browser's editor would: AppTest cannot type in its cells, so its edit state is given
    through session state (rackcost_app.fields.table applies a state its callback did not see)."""
    at.session_state[table.key] = NO_EDITS | delta
    at.run()
    ok(at)


def results_classes(at: AppTest) -> list[str]:
    """The classes of the Results page's Request classes section (its mix table)."""
    at.switch_page("app_pages/results.py").run()
    ok(at)
    assert any(h.value.startswith("Request classes") for h in at.header)
    mix = next(d.value for d in at.dataframe if "class" in d.value.columns and "share_fraction" in d.value.columns)
    at.switch_page("app_pages/scenario.py").run()
    ok(at)
    return list(zip(mix["class"], mix["share_fraction"], strict=True))


def test_the_request_classes_show_each_class_with_its_lengths_and_slo():
    at = start()
    load(at, CLASSES)
    scenario = rackcost.load_scenario(rackcost.bundled_scenario_path(CLASSES))
    rows = classes_table(at).value.to_dict("records")
    assert [r["name"] for r in rows] == ["chat", "reasoning", "agentic"]
    assert [r["share_fraction"] for r in rows] == [0.6, 0.25, 0.15]
    assert [(r["input_kind"], r["output_kind"]) for r in rows] == [("cdf", "lognormal"), *[("gamma", "gamma")] * 2]
    # each length as its mean and cv, a CDF's from its table (class_blocks.token_moments, the model's own)
    for row, one in zip(rows, scenario.workload.classes, strict=True):
        for side in ("input", "output"):
            mean, cv = token_moments(getattr(one, f"{side}_tokens"))
            assert row[f"{side}_mean"] == pytest.approx(mean) and row[f"{side}_cv"] == pytest.approx(cv)
    assert rows[2]["prefix_hit_fraction"] == 0.917 and rows[2]["slo_ttft_limit_ms"] == 6000
    # the workload's lengths are the mix's (12,493 in, 2,268 out), not "not set"
    mix = {w.label: w for w in at.number_input if w.disabled}
    assert mix["input tokens per request (ISL) [tokens]"].value == pytest.approx(
        scenario.workload.input_tokens_per_request
    )
    assert mix["output tokens per request (OSL) [tokens]"].value == pytest.approx(2268.09)
    assert not any(w.placeholder == "not set" and "per request" in w.label for w in at.number_input)


def test_editing_the_class_shares_changes_the_results():
    at = start()
    load(at, CLASSES)
    before = blended(at)
    assert results_classes(at) == [("chat", 0.6), ("reasoning", 0.25), ("agentic", 0.15)]
    # fewer chats, more reasoning: the shares still add up to 1
    edit_in_state(at, classes_table(at), edited_rows={0: {"share_fraction": 0.5}, 1: {"share_fraction": 0.35}})
    assert not at.session_state["problems"]
    classes = at.session_state["draft"]["workload"]["classes"]
    assert [c["share_fraction"] for c in classes] == [0.5, 0.35, 0.15]
    assert classes[0]["input_tokens"]["lengths"] == "cdf" and len(classes[0]["input_tokens"]["table"]) == 18  # kept
    assert results_classes(at) == [("chat", 0.5), ("reasoning", 0.35), ("agentic", 0.15)]
    after = blended(at)
    # reasoning requests (7,373 output tokens) cost more than chats (518): the mix costs more on every system
    assert all(after[name] > before[name] * 1.05 for name in before)
    assert any("(edited)" in m.value for m in at.sidebar.markdown)
    figure = at.session_state["draft"]["figures"]["workload.classes[0].share_fraction"]
    assert "edited in the rackcost dashboard" in figure["source"]


def test_adding_a_class_and_scaling_the_shares():
    at = start()
    load(at, CLASSES)
    added = {"name": "summarise", "share_fraction": 0.1, "input_kind": "lognormal", "input_mean": 4000.0}
    added |= {"input_cv": 0.5, "output_kind": "mean only", "output_mean": 300.0, "slo_ttft_limit_ms": 3000.0}
    edit_in_state(at, classes_table(at), added_rows=[added])
    # four classes whose shares add up to 1.1: said under the table, with a button that scales them
    classes = at.session_state["draft"]["workload"]["classes"]
    assert classes[3] == {
        "name": "summarise",
        "share_fraction": 0.1,
        "input_tokens": {"lengths": "lognormal", "mean": 4000.0, "cv": 0.5},
        "output_tokens": 300.0,
        "slo": {"ttft_limit_ms": 3000.0},
    }
    assert "add up to 1" in texts(at.error)
    at.button(key="scale_shares").click().run()
    ok(at)
    assert not at.session_state["problems"]
    shares = [c["share_fraction"] for c in at.session_state["draft"]["workload"]["classes"]]
    assert shares == pytest.approx([0.6 / 1.1, 0.25 / 1.1, 0.15 / 1.1, 0.1 / 1.1], abs=1e-6) and sum(shares) == 1
    assert [c for c, _ in results_classes(at)] == ["chat", "reasoning", "agentic", "summarise"]


def test_splitting_a_workload_into_classes_starts_from_its_own_lengths():
    at = start()
    load(at, "deepseek-r1-b200-vs-gb200-inferencex.yaml")  # its lengths have figures of their own
    before = blended(at)
    open_tab(at, "Workload and SLO")
    assert not at.data_editor
    at.button(key="split_classes").click().run()
    ok(at)
    workload = at.session_state["draft"]["workload"]
    assert workload["classes"] == [
        {"name": "all requests", "share_fraction": 1, "input_tokens": 8192, "output_tokens": 1024}
    ]
    assert "input_tokens_per_request" not in workload and not at.session_state["problems"]
    assert blended(at) == pytest.approx(before, rel=1e-12)  # one class of the workload's lengths: the same model
    # the lengths keep their sources, now the class's
    figures = at.session_state["draft"]["figures"]
    assert "workload.input_tokens_per_request" not in figures and "workload.classes[0].input_tokens" in figures
    assert [r["name"] for r in classes_table(at).value.to_dict("records")] == ["all requests"]


def test_a_memory_limit_added_by_the_form_binds_and_is_removed_again():
    at = start()
    loaded = at.session_state["draft"]
    before = blended(at)
    system_tab(at, 0)  # GB300 NVL72, without a memory block
    at.button(key="memory_add|0").click().run()
    ok(at)
    assert at.session_state["draft"]["systems"][0]["memory"] == {}
    assert "required" in texts(at.error)  # the HBM has no neutral default: asked for under its field
    # 288 GiB per GB300, 400 GiB of weights, a 16-bit multi-head cache of about 1 MB per token (DeepSeek R1 without
    # MLA: 61 layers x 128 heads x 2 x 64 elements x 2 bytes = 2.0 MB): 9,216 tokens of each request take 8.6 GiB
    for name, value in (("hbm_gib_per_accelerator", 288.0), ("weights_gib", 400.0), ("kv_bytes_per_token", 1e6)):
        keyed(at.number_input, f"systems[0].memory.{name}").set_value(value).run()
        ok(at)
    assert not at.session_state["problems"]
    # (288 x 72 x 0.9 - 400) GiB / 8.58 GiB = 2,127 requests in flight per replica: fewer than the points need
    after = blended(at)
    assert after["GB300 NVL72"] > 1.2 * before["GB300 NVL72"] and after["Jalapeño"] == before["Jalapeño"]
    at.switch_page("app_pages/results.py").run()
    ok(at)
    assert "KV cache holds at most 2127 requests in flight per replica" in texts(at.info)
    at.switch_page("app_pages/scenario.py").run()
    system_tab(at, 0)
    at.button(key="memory_remove|0").click().run()
    ok(at)
    assert at.session_state["draft"] == loaded and blended(at) == before


def test_the_model_shape_is_edited_on_the_workload_tab_and_sizes_the_kv_cache():
    at = start()
    load(at, CLASSES)

    def kv_warnings() -> list[str]:
        result = rackcost.evaluate(rackcost.scenario_from_dict(at.session_state["valid"]))
        return [w for w in result.warnings if "KV cache holds at most" in w]

    before = blended(at)
    assert kv_warnings() == []  # 61 layers: the DGX B200's cache holds more requests than its points need
    open_tab(at, "Workload and SLO")
    layers = keyed(at.number_input, "workload.architecture.layers")
    assert layers.value == 61
    layers.set_value(244).run()  # four times the layers, four times the cache per token
    ok(at)
    assert at.session_state["draft"]["workload"]["architecture"]["layers"] == 244
    # MLA: 244 layers x (512 + 64) elements x 2 bytes = 281 KB per token, x 14,761 tokens x 8 copies = 30.9 GiB per
    # request; free: 8 x 180 GiB x 0.9 - 671e9 x 0.5625 B (351.5 GiB) = 944.5 GiB, so 30 requests in flight
    (warning,) = kv_warnings()
    assert warning.startswith("DGX B200: its KV cache holds at most 30 requests in flight per replica")
    after = blended(at)
    assert after["DGX B200"] > before["DGX B200"] and after["GB200 NVL72"] == before["GB200 NVL72"]


def test_a_class_edit_writes_only_the_cells_changed_into_the_class():
    from rackcost_app.class_forms import classes_after_edit

    data = yaml.safe_load(rackcost.bundled_scenario_path(CLASSES).read_text(encoding="utf-8"))
    base = data["workload"]["classes"]
    delta = {
        "edited_rows": {0: {"input_mean": 200.0}, 1: {"output_kind": "fixed"}, 2: {"slo_ttft_limit_ms": None}},
        "deleted_rows": [],
        "added_rows": [],
    }
    chat, reasoning, agentic = classes_after_edit(base, delta)
    # a CDF's mean is its table's: the typed mean is kept beside it, and validation says a cdf takes its table alone
    assert chat["input_tokens"]["table"] == base[0]["input_tokens"]["table"] and chat["input_tokens"]["mean"] == 200
    with pytest.raises(rackcost.ScenarioError, match=r"classes\[0\]\.input_tokens\.mean: not a field of lengths: cdf"):
        rackcost.scenario_from_dict({**data, "workload": {**data["workload"], "classes": [chat, reasoning, agentic]}})
    assert reasoning["output_tokens"] == {"lengths": "fixed", "tokens": 7372.8}  # the row's mean, now every request's
    assert reasoning["input_tokens"] == base[1]["input_tokens"]
    assert "slo" not in agentic and agentic["prefix_hit_fraction"] == 0.917  # its own SLO cleared: the scenario's
    assert base[2]["slo"] == {"ttft_limit_ms": 6000}  # the editor's base is not modified
    assert [c["name"] for c in classes_after_edit(base, {"deleted_rows": [1]})] == ["chat", "agentic"]


# ---- forms for the rest of the model: pools, plan sources, the demand profile -----------------------------------

POOLED = "deepseek-r1-b200-aggregated-vs-disaggregated.yaml"


def results_points(at: AppTest):
    """The Results page's table of each system at each demand point, and back to the Scenario page."""
    at.switch_page("app_pages/results.py").run()
    ok(at)
    frame = at.dataframe[0].value
    at.switch_page("app_pages/scenario.py").run()
    ok(at)
    return frame


def test_a_disaggregated_system_shows_its_pools_points_and_an_edited_decode_point_moves_the_results():
    at = start()
    load(at, POOLED)
    system_tab(at, 1)  # DGX B200 disaggregated: no performance block, its curves are its pools'
    assert [e for e in at.data_editor if e.key.endswith("|systems[1].performance.points")] == []
    decode = editor(at, "systems[1].pools.decode.points").value
    prefill = editor(at, "systems[1].pools.prefill.points").value
    assert decode["tpot_ms"].tolist() == [15.586, 28.5059, 36.4742, 65.8177]  # the file's points, not an empty table
    assert list(prefill.columns) == ["concurrency", "prefill_ms", "input_tokens_per_s", "power_w_per_accelerator"]
    texts_now = texts(at.caption) + texts(at.markdown)
    assert "The decode pool uses the system's hardware and power" in texts_now  # the prefill pool gives its own
    assert [e.label for e in at.expander if "prefill pool's own hardware" in e.label]
    assert keyed(at.number_input, "systems[1].pools.kv_transfer.bandwidth_gb_per_s").value == 50
    assert keyed(at.number_input, "systems[1].pools.decode_miss_share_fraction").value is None  # its default, 0.5
    before = results_points(at)
    system_tab(at, 1)
    # each decode replica decodes twice as fast at every batch: the decode pool needs about half the replicas
    rows = at.session_state["draft"]["systems"][1]["pools"]["decode"]["points"]
    edit_table(
        at,
        "systems[1].pools.decode.points",
        {
            "edited_rows": {
                str(i): {"tpot_ms": r["tpot_ms"] / 2, "output_tokens_per_s": r["output_tokens_per_s"] * 2}
                for i, r in enumerate(rows)
            }
        },
    )
    assert at.session_state["problems"] == []
    assert at.session_state["draft"]["systems"][1]["pools"]["decode"]["points"][0]["tpot_ms"] == 15.586 / 2
    after = results_points(at)
    pooled_before = before[before["system"] == "DGX B200 disaggregated"]["total_usd_per_hour"].to_numpy()
    pooled_after = after[after["system"] == "DGX B200 disaggregated"]["total_usd_per_hour"].to_numpy()
    assert (pooled_after < pooled_before).all()
    aggregated = after["system"] == "DGX B200 aggregated"
    assert after[aggregated]["total_usd_per_hour"].tolist() == before[aggregated]["total_usd_per_hour"].tolist()


PLAN_SMALL = ROOT / "tests" / "data" / "plan_small.yaml"


def upload(at: AppTest, path: Path) -> None:
    """A scenario file uploaded (as the uploader's callback leaves it), then the Scenario page."""
    at.session_state["pending_upload"] = (path.read_bytes(), path.name)
    at.run()
    ok(at)
    at.switch_page("app_pages/scenario.py").run()
    ok(at)


def years_table(at: AppTest):
    """The Results page's table of each system's years over the horizon, and back to the Scenario page."""
    at.switch_page("app_pages/results.py").run()
    ok(at)
    (frame,) = [d.value for d in at.dataframe if "year" in d.value.columns]
    at.switch_page("app_pages/scenario.py").run()
    ok(at)
    return frame


def test_the_demand_profiles_growth_edited_in_its_form_moves_the_points_and_the_years():
    from rackcost.scenario.profile_blocks import DemandProfile

    at = start()
    upload(at, PLAN_SMALL)
    before = years_table(at)
    open_tab(at, "Demand")
    assert keyed(at.selectbox, "demand_profile.growth|kind", prefix=True).value == "per_year_fraction"
    growth = keyed(at.number_input, "demand_profile.growth.per_year_fraction")
    assert growth.value == 0.4
    assert keyed(at.number_input, "demand_profile.horizon_years").value == 1
    assert keyed(at.number_input, "demand_profile.points.peak").value is None  # not given: its default, 100
    week = editor(at, "demand_profile.profile.hourly_arrival_rps").value
    assert week.shape == (24, 7) and week["Monday"].tolist()[9] == 20 and week["Sunday"].tolist()[0] == 5
    growth.set_value(1.0).run()
    ok(at)
    assert at.session_state["problems"] == []
    draft = at.session_state["draft"]
    # the named points are the edited profile's, as the loader derives them (rackcost.scenario.profile_blocks)
    assert draft["demand"] == DemandProfile.model_validate(draft["demand_profile"]).named_points()
    assert draft["demand"][2]["arrival_rps"] == pytest.approx(20 * 2.0, rel=1e-3)  # the busiest hour, a year on
    after = years_table(at)
    assert list(after.columns) == list(before.columns) and len(after) == len(before)
    assert after.values.tolist() != before.values.tolist()


def test_a_day_of_points_becomes_a_flat_week_profile_whose_hours_are_edited_in_a_table():
    at = start()  # the default scenario: a day of points
    open_tab(at, "Demand")
    day = at.session_state["draft"]["demand"]
    at.button(key="profile_start").click().run()
    ok(at)
    assert at.session_state["problems"] == []
    draft = at.session_state["draft"]
    rates = draft["demand_profile"]["profile"]["hourly_arrival_rps"]
    assert len(rates) == 168 and rates[:24] * 7 == rates
    # the day's mean rate is the points' (the flat week lays them end to end, horizon_edits.flat_week_rps)
    mean = sum(p["arrival_rps"] * p["hours_per_day"] for p in day) / 24
    assert sum(rates[:24]) / 24 == pytest.approx(mean, rel=1e-12)
    assert draft["demand"][2]["arrival_rps"] == max(p["arrival_rps"] for p in day)  # peak: percentile 100
    peak = max(rates)
    edit_table(at, "demand_profile.profile.hourly_arrival_rps", {"edited_rows": {"12": {"Wednesday": peak * 2}}})
    assert at.session_state["problems"] == []
    assert at.session_state["draft"]["demand_profile"]["profile"]["hourly_arrival_rps"][2 * 24 + 12] == peak * 2
    assert at.session_state["draft"]["demand"][2]["arrival_rps"] == peak * 2
    # a CSV of one column replaces the rates; a bad one is refused with why, the rates kept
    uploader = keyed(at.file_uploader, "demand_profile.profile.hourly_arrival_rps|csv")
    uploader.set_value(("week.csv", b"rate\n" + b"\n".join(b"%d" % (1 + h % 24) for h in range(168)), "text/csv"))
    at.run()
    ok(at)
    assert at.session_state["draft"]["demand_profile"]["profile"]["hourly_arrival_rps"][:3] == [1.0, 2.0, 3.0]
    assert at.session_state["draft"]["demand"][2]["arrival_rps"] == 24.0
    assert "168 hourly rates read from week.csv" in texts(at.success)
    keyed(at.file_uploader, "demand_profile.profile.hourly_arrival_rps|csv").set_value(
        ("short.csv", b"1\n2\n3\n", "text/csv")
    )
    at.run()
    ok(at)
    assert "short.csv was not used: has 3 hourly rows" in texts(at.error)
    assert at.session_state["draft"]["demand"][2]["arrival_rps"] == 24.0
    at.button(key="profile_drop").click().run()
    ok(at)
    assert "demand_profile" not in at.session_state["draft"] and at.session_state["problems"] == []
    assert editor(at, "demand").value["arrival_rps"].max() == 24.0


def test_autoscaling_is_added_edited_and_removed_on_the_fleet_form():
    """``fleet.scaling`` from the Facility and fleet tab: none without a profile (the caption says why); with one, *Add
    autoscaling* starts with no delay (the results do not move), a 10-minute scale-up delay on a parking fleet loses
    arrivals on the week's rising hours (docs/model.md, "Autoscaling with a delay"), and *Remove autoscaling* gives
    back the scenario as loaded."""
    at = start()
    open_tab(at, "Facility and fleet")
    assert [b for b in at.button if b.key == "scaling_add"] == []  # the default scenario's demand is a day
    assert "give it an hourly profile first" in texts(at.caption)
    at.session_state["pending_upload"] = ((ROOT / "tests" / "data" / "profile_week.yaml").read_bytes(), "week.yaml")
    at.run()
    ok(at)
    open_tab(at, "Facility and fleet")
    keyed(at.selectbox, "fleet.idle_policy").select("park").run()
    ok(at)
    loaded = at.session_state["draft"]

    def horizon(at: AppTest) -> dict[str, float]:
        records = rackcost.evaluate(rackcost.scenario_from_dict(at.session_state["valid"])).records
        return {
            "lost": max(r["ramp_lost_rps"] for r in records["years"]),
            "accepted": sum(r["accepted_requests"] for r in records["horizon"]),
        }

    before = horizon(at)
    assert before["lost"] == 0
    at.button(key="scaling_add").click().run()
    ok(at)
    assert at.session_state["draft"]["fleet"]["scaling"] == {"scale_up_delay_s": 0.0}
    assert not at.session_state["problems"] and horizon(at) == before
    keyed(at.number_input, "fleet.scaling.scale_up_delay_s").set_value(600.0).run()
    ok(at)
    assert not at.session_state["problems"]
    after = horizon(at)
    assert after["lost"] > 0 and after["accepted"] < before["accepted"]
    at.button(key="scaling_remove").click().run()
    ok(at)
    assert at.session_state["draft"] == loaded and horizon(at) == before
