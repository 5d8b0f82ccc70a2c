"""The dashboard, driven by Streamlit's AppTest: every page for every bundled scenario, edits, bad input, export.

AppTest cannot drive ``st.file_uploader``; the uploader's callback only puts ``(bytes, name)`` into
``st.session_state["pending_upload"]`` and the Scenario page reads it, so the tests put bytes there directly.
"""

from __future__ import annotations

import copy
import json
import os
import re
import sys
from pathlib import Path

import pytest
import yaml
from streamlit.testing.v1 import AppTest
from typer.testing import CliRunner

import inferencex_files
import rackcost
from rackcost.cli import app as cli_app
from reference import TWO_SYSTEMS
from scenario_leaves import numeric_leaves

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app" / "streamlit_app.py")
PAGES = [
    "app_pages/answer.py",
    "app_pages/scenario.py",
    "app_pages/results.py",
    "app_pages/claim.py",
    "app_pages/uncertainty.py",
    "app_pages/mix.py",
    "app_pages/export.py",
]
TIMEOUT_S = (
    120  # a hang guard per script run: the first imports pandas, altair and the library; generous for a busy machine
)
TEST_SAMPLES = 2_000  # Monte Carlo samples on the Uncertainty page in tests (the page's default is 10,000)
UNCERTAINTY = "app_pages/uncertainty.py"

sys.path.insert(0, str(ROOT / "app"))
from rackcost_app.fields import apply_editor_delta, label  # noqa: E402
from rackcost_app.state import get_at  # noqa: E402

pytestmark = pytest.mark.app


def start() -> AppTest:
    """The app on its Scenario page (it opens on the Answer page)."""
    at = AppTest.from_file(APP, default_timeout=TIMEOUT_S)
    at.session_state["uncertainty_samples"] = TEST_SAMPLES
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    at.switch_page("app_pages/scenario.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def ok(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


TAB_KEY = "scenario_tab"


def open_tab(at: AppTest, label: str) -> None:
    """Open a tab of the Scenario page (only the open tab's widgets are built), as a click on it would."""
    if at.session_state[TAB_KEY] != label:
        at.session_state[TAB_KEY] = label
        at.run()
        ok(at)


def tab_of(at: AppTest, path: str) -> str:
    """The Scenario page's tab holding the form field of a YAML path."""
    head = path.split(".", 1)[0]
    if head.startswith("systems["):
        return at.session_state["scenario_tab_labels"][3 + int(head[len("systems[") : -1])]
    return {
        "demand": "Demand",
        "facility": "Facility and fleet",
        "fleet": "Facility and fleet",
        "finance": "Facility and fleet",
    }.get(head.split("[", 1)[0], "Workload and SLO")


def widget(at: AppTest, kind: str, path: str):
    """The form widget editing a YAML path (its key is ``g<generation>|<path>``), its tab opened first."""
    open_tab(at, tab_of(at, path))
    found = [w for w in getattr(at, kind) if w.key and w.key.split("|", 1)[-1] == path]
    assert len(found) == 1, f"no single {kind} for {path}"
    return found[0]


def numeric_path(at: AppTest, path: str) -> str:
    """The path of the number behind a field: the field, or the central parameter of its distribution."""
    value = get_at(at.session_state["draft"], path)
    return f"{path}.mode" if isinstance(value, dict) and value.get("dist") == "triangular" else path


def invalid_default_yaml() -> str:
    """The default scenario with an out-of-range PUE."""
    data = yaml.safe_load(rackcost.bundled_scenario_path().read_text(encoding="utf-8"))
    data["facility"]["pue"] = 0.5
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True)


def points_table(at: AppTest):
    at.switch_page("app_pages/results.py").run()
    ok(at)
    return at.dataframe[0].value


def shown(text: str) -> str:
    """Markdown the app sent, as the browser shows it: user text comes backslash-escaped (rackcost_app.safe.md)."""
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", text)


def errors(at: AppTest) -> str:
    return "\n".join(shown(e.value) for e in at.error)


@pytest.mark.parametrize("path", rackcost.bundled_scenarios(), ids=lambda p: p.stem)
def test_every_page_renders_for_every_bundled_scenario(path):
    at = start()
    at.selectbox(key="bundled").select(path.name)
    at.button(key="load_bundled").click().run()
    ok(at)
    assert at.session_state["file_name"] == path.name
    assert not at.session_state["problems"]
    for page in PAGES:
        at.switch_page(page).run()
        ok(at)
        assert errors(at) == "", f"{page}: {errors(at)}"
    frame = points_table(at)
    scenario = rackcost.load_scenario(path)
    assert len(frame) == len(scenario.systems) * len(scenario.demand)


def test_changing_the_electricity_price_changes_the_energy_cost():
    at = start()
    before = points_table(at)["energy_usd_per_hour"].to_numpy()
    at.switch_page("app_pages/scenario.py").run()
    price_path = numeric_path(at, "facility.electricity_usd_per_kwh")
    price = widget(at, "number_input", price_path)
    assert price.value == pytest.approx(0.081)
    price.set_value(0.162).run()
    ok(at)
    after = points_table(at)["energy_usd_per_hour"].to_numpy()
    assert after == pytest.approx(2 * before)
    # the edit survives leaving the page, and its provenance now says it is the user's
    at.switch_page("app_pages/scenario.py").run()
    assert widget(at, "number_input", price_path).value == pytest.approx(0.162)
    figure = at.session_state["draft"]["figures"]["facility.electricity_usd_per_kwh"]
    assert figure["provenance"] == "assumption" and "edited in the rackcost dashboard" in figure["source"]


def test_financial_terms_set_once_for_every_owned_system_move_each_ones_capital_cost():
    at = start()
    before = points_table(at)["capital_usd_per_hour"].to_numpy()
    at.switch_page("app_pages/scenario.py").run()
    open_tab(at, "Facility and fleet")
    at.button(key="share_finance_terms").click().run()
    ok(at)
    draft = at.session_state["draft"]
    assert draft["finance"] == {"service_life_years": 5.0, "cost_of_capital_fraction": 0.08}
    assert all("service_life_years" not in s["costs"] for s in draft["systems"] if s.get("costs"))
    assert points_table(at)["capital_usd_per_hour"].to_numpy() == pytest.approx(before, rel=1e-12)
    at.switch_page("app_pages/scenario.py").run()
    widget(at, "number_input", "finance.service_life_years").set_value(10.0).run()
    ok(at)
    # the capital recovery factor r(1+r)^n / ((1+r)^n - 1) at r = 8%: 0.250456 over 5 years, 0.149029 over 10
    # (standard A/P compound-interest tables), so every owned system's capital per hour scales by their ratio
    ratio = (0.08 * 1.08**10 / (1.08**10 - 1)) / (0.08 * 1.08**5 / (1.08**5 - 1))
    assert points_table(at)["capital_usd_per_hour"].to_numpy() == pytest.approx(before * ratio, rel=1e-9)
    assert not [b for b in at.button if b.key == "share_finance_terms"]  # no system sets its own terms now


def test_a_value_out_of_range_shows_an_error_by_its_field_and_keeps_the_last_valid_results():
    at = start()
    valid = at.session_state["valid_json"]
    before = points_table(at)["total_usd_per_hour"].to_numpy()
    at.switch_page("app_pages/scenario.py").run()
    at.session_state["draft"]["facility"]["pue"] = 1.15  # a plain number, so the field is one input
    at.session_state["generation"] += 1
    at.run()
    widget(at, "number_input", "facility.pue").set_value(0.5).run()
    ok(at)
    assert "must be >= 1.0, got 0.5" in errors(at)
    assert at.session_state["valid_json"] == valid
    # what the user typed stays in the form and in the draft
    assert widget(at, "number_input", "facility.pue").value == pytest.approx(0.5)
    assert at.session_state["draft"]["facility"]["pue"] == pytest.approx(0.5)
    assert points_table(at)["total_usd_per_hour"].to_numpy() == pytest.approx(before)
    assert any("last valid scenario" in w.value for w in at.warning)
    # fixing it makes the results follow again
    at.switch_page("app_pages/scenario.py").run()
    widget(at, "number_input", "facility.pue").set_value(1.3).run()
    ok(at)
    assert not at.session_state["problems"]
    assert at.session_state["valid_json"] != valid


def test_cross_field_problem_is_shown_in_its_block():
    at = start()
    widget(at, "number_input", "systems[1].hardware.accelerator_idle_w").set_value(5000.0).run()
    ok(at)
    assert "must not exceed accelerator_busy_w" in errors(at)


BAD_UPLOADS = {
    "not YAML": (b"name: [unclosed\n  workload: {", "broken.yaml", "not valid YAML"),
    "not text": (bytes(range(256)) * 4, "binary.yaml", "not a UTF-8 text file"),
    "not a mapping": (b"- just\n- a list\n", "list.yaml", "expected a mapping"),
    "fails validation": (None, "invalid.yaml", "must be >= 1.0, got 0.5"),
    "over 1 MB": (b"# " + b"x" * 1_000_000, "huge.yaml", "limited to 1 MB"),
    "python tag": (b"name: !!python/object/apply:os.system ['true']\n", "tag.yaml", "tag not allowed"),
    # a 9-level YAML anchor bomb (~350 bytes, 490 million nodes once expanded) is refused before it is expanded
    "anchor bomb": (
        (
            "a: &a [l,l,l,l,l,l,l,l,l]\n"
            + "".join(
                f"{n}: &{n} [" + ",".join([f"*{p}"] * 9) + "]\n" for p, n in zip("abcdefgh", "bcdefghi", strict=True)
            )
        ).encode(),
        "bomb.yaml",
        "through YAML aliases",
    ),
}


@pytest.mark.parametrize("case", BAD_UPLOADS, ids=list(BAD_UPLOADS))
def test_a_bad_upload_shows_an_error_and_keeps_the_scenario(case):
    data, name, message = BAD_UPLOADS[case]
    if data is None:
        data = invalid_default_yaml().encode("utf-8")
    at = start()
    valid, draft = at.session_state["valid_json"], at.session_state["draft"]
    at.session_state["pending_upload"] = (data, name)
    at.run()
    ok(at)
    assert message in errors(at)
    assert "Not loaded" in errors(at)
    assert at.session_state["valid_json"] == valid
    assert at.session_state["draft"] == draft
    for page in PAGES[1:]:
        at.switch_page(page).run()
        ok(at)


def test_an_upload_that_fails_validation_is_kept_in_the_yaml_editor():
    text = invalid_default_yaml()
    at = start()
    at.session_state["pending_upload"] = (text.encode("utf-8"), "mine.yaml")
    at.run()
    ok(at)
    open_tab(at, "YAML")
    editor = next(t for t in at.text_area if t.key.startswith("yaml|"))
    assert "pue: 0.5" in editor.value
    # fixed in the editor and applied, it loads
    editor.set_value(editor.value.replace("pue: 0.5", "pue: 1.2")).run()
    at.button(key="apply_yaml").click().run()
    ok(at)
    assert not at.session_state["load_problems"]
    assert at.session_state["draft"]["facility"]["pue"] == pytest.approx(1.2)


def test_an_invalid_edit_keeps_its_tab_open_with_the_error_under_the_field():
    at = start()
    at.session_state["draft"]["facility"]["pue"] = 1.15  # a plain number, so the field is one input
    at.session_state["generation"] += 1
    at.run()
    widget(at, "number_input", "facility.pue").set_value(0.5).run()  # on the Facility and fleet tab
    ok(at)
    assert at.session_state[TAB_KEY] == "Facility and fleet"
    tabs = {t.label: t for t in at.tabs}
    assert "must be >= 1.0, got 0.5" in " ".join(shown(e.value) for e in tabs["Facility and fleet"].error)
    # the open tab is the one built: the first tab, where the page used to jump, is empty
    assert not tabs["Workload and SLO"].number_input


def test_renaming_a_system_keeps_its_tab_open_and_loading_keeps_the_yaml_tab():
    at = start()
    widget(at, "text_input", "systems[1].name").set_value("Jalapeño v2").run()
    ok(at)
    assert at.session_state[TAB_KEY] == "System: Jalapeño v2"
    # six systems loaded while the YAML tab is open: still the YAML tab (not the tab at the same place)
    open_tab(at, "YAML")
    at.selectbox(key="bundled").select("llama-3.3-70b-gaudi25-tp-precision.yaml")
    at.button(key="load_bundled").click().run()
    ok(at)
    assert at.session_state[TAB_KEY] == "YAML"


def test_a_refused_yaml_text_keeps_the_yaml_tab_open_with_its_problems():
    at = start()
    open_tab(at, "YAML")
    editor = next(t for t in at.text_area if t.key.startswith("yaml|"))
    editor.set_value(invalid_default_yaml()).run()
    at.button(key="apply_yaml").click().run()
    ok(at)
    assert at.session_state[TAB_KEY] == "YAML"
    yaml_errors = " ".join(shown(e.value) for e in {t.label: t for t in at.tabs}["YAML"].error)
    assert "Not applied" in yaml_errors and "must be >= 1.0, got 0.5" in yaml_errors


def test_the_sidebar_names_an_uploaded_scenario_at_once():
    path = rackcost.bundled_scenario_path("kimi-k2.5-jalapeno-vs-gb300")
    at = start()
    at.session_state["pending_upload"] = (path.read_bytes(), "mine.yaml")
    at.run()
    ok(at)
    assert [shown(m.value) for m in at.sidebar.markdown] == [f"**{rackcost.load_scenario(path).name}**"]
    assert [shown(c.value) for c in at.sidebar.caption] == ["from mine.yaml"]


def test_every_refused_upload_shows_its_own_message():
    at = start()
    uploader = next(u for u in at.get("file_uploader") if u.proto.id.endswith("-uploader"))
    # no type filter: a file of any name reaches the page and gets the app's message. The uploader's limit is the
    # app's 1 MB (its "1MB per file" agrees with the label; a larger file gets the uploader's own message in a
    # browser: tests/test_browser.py); a file over 1 MB that reaches the app anyway is refused by it too
    assert list(uploader.proto.type) == []
    assert uploader.proto.max_upload_size_mb == 1
    refused = [
        (b"name: [unclosed", "first.yaml", "not valid YAML"),
        (b"# " + b"x" * 1_040_000, "big.yaml", "limited to 1 MB"),
        (b"just: text\n", "notes.txt", "notes.txt"),
        (bytes(range(256)), "picture.png", "not a UTF-8 text file"),
    ]
    for data, name, message in refused:
        at.session_state["pending_upload"] = (data, name)
        at.run()
        ok(at)
        messages = errors(at)
        assert f"Not loaded: {name}" in messages and message in messages
        assert not [other for _, other, _ in refused if other != name and other in messages]


def test_export_file_names_keep_the_letters_of_the_scenario_name():
    from rackcost_app.state import export_stem

    assert export_stem("DeepSeek R1 670B - Jalapeño vs GB300 NVL72") == "deepseek-r1-670b-jalapeno-vs-gb300-nvl72"
    assert export_stem("Crème brûlée: TP8/FP8") == "creme-brulee-tp8-fp8"
    assert export_stem("推理 cost") == "推理-cost"  # letters without a Latin form are kept
    assert export_stem("../etc/passwd") == "etc-passwd"
    assert export_stem("  ") == export_stem(None) == "scenario"


def test_a_valid_upload_replaces_the_scenario():
    path = rackcost.bundled_scenario_path("kimi-k2.5-jalapeno-vs-gb300")
    at = start()
    at.session_state["pending_upload"] = (path.read_bytes(), "mine.yaml")
    at.run()
    ok(at)
    assert at.session_state["file_name"] == "mine.yaml"
    assert at.session_state["draft"]["name"] == rackcost.load_scenario(path).name


def test_exported_yaml_loads_back_to_the_same_scenario():
    at = start()
    widget(at, "number_input", numeric_path(at, "facility.electricity_usd_per_kwh")).set_value(0.12).run()
    widget(at, "number_input", numeric_path(at, "systems[0].costs.capex_usd_per_rack")).set_value(3_000_000.0).run()
    at.switch_page("app_pages/export.py").run()
    ok(at)
    sys.path.insert(0, str(ROOT / "app"))
    from rackcost_app import compute

    key = at.session_state["valid_json"]
    text = compute.scenario_yaml(key)
    back = rackcost.scenario_from_yaml(text, "exported.yaml")
    assert back == compute.scenario(key)
    assert back.facility.electricity_usd_per_kwh == pytest.approx(0.12)
    assert "edited in the rackcost dashboard" in text
    assert rackcost.evaluate(back).records == rackcost.evaluate(compute.scenario(key)).records
    # JSON and CSV exports are the library's
    result = compute.evaluate(key)
    assert json.loads(result.to_json())["scenario"] == back.name


def test_editor_delta_edits_deletes_and_adds_rows():
    base = [
        {"name": "quiet", "arrival_rps": 300.0, "hours_per_day": 8.0, "source": "x"},
        {"name": "normal", "arrival_rps": 840.0, "hours_per_day": 10.0},
        {"name": "peak", "arrival_rps": 1200.0, "hours_per_day": 6.0},
    ]
    delta = {
        "edited_rows": {0: {"arrival_rps": 250.0, "source": None}, 2: {"hours_per_day": 4.0}},
        "deleted_rows": [1],
        "added_rows": [{"name": "burst", "arrival_rps": 1500.0, "hours_per_day": float("nan")}],
    }
    rows = apply_editor_delta(base, delta, ["name", "arrival_rps", "hours_per_day", "source"])
    assert rows == [
        {"name": "quiet", "arrival_rps": 250.0, "hours_per_day": 8.0},
        {"name": "peak", "arrival_rps": 1200.0, "hours_per_day": 4.0},
        {"name": "burst", "arrival_rps": 1500.0},
    ]
    assert base[0]["arrival_rps"] == 300.0  # the editor's base data is not modified


def test_every_form_label_names_its_unit():
    assert label("electricity_usd_per_kwh") == "electricity price [USD/kWh]"
    assert label("accelerator_idle_w") == "accelerator idle [W]"
    assert label("colocation_usd_per_kw_month") == "colocation per provisioned kW [USD/kW-month]"
    assert label("maintenance_fraction_per_year") == "maintenance [share of capex per year]"


def test_rackcost_app_runs_streamlit_on_the_app(monkeypatch):
    calls = []
    monkeypatch.setattr("rackcost.cli.launch.serve", lambda command: calls.append(command) or 0)
    result = CliRunner().invoke(cli_app, ["app", "--port", "8600"])
    assert result.exit_code == 0, result.output
    assert calls[0][1:4] == ["-m", "streamlit", "run"]
    assert Path(calls[0][4]) == ROOT / "app" / "streamlit_app.py"
    assert calls[0][-2:] == ["--server.port", "8600"]


def children_of(pid: int) -> list[int]:
    """Process ids whose parent is ``pid`` (Linux /proc)."""
    found = []
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            text = status.read_text()
        except OSError:
            continue
        if f"\nPPid:\t{pid}\n" in text and "\nState:\tZ" not in text:
            found.append(int(status.parent.name))
    return found


def alive(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie."""
    try:
        return "\nState:\tZ" not in (Path("/proc") / str(pid) / "status").read_text()
    except OSError:
        return False


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads child processes from Linux /proc")
def test_sigterm_to_rackcost_app_stops_the_streamlit_server():
    import signal
    import subprocess
    import time
    import urllib.request

    from app_server import HOST, free_port

    port = free_port()
    rackcost_cli = Path(sys.executable).with_name("rackcost")
    parent = subprocess.Popen(
        [str(rackcost_cli), "app", "--headless", "--port", str(port), "--address", HOST],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    children: list[int] = []
    try:
        deadline = time.monotonic() + 120  # a hang guard: the server starts in seconds, slower on a busy machine
        while True:
            try:
                with urllib.request.urlopen(f"http://{HOST}:{port}/_stcore/health", timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            assert parent.poll() is None and time.monotonic() < deadline, "rackcost app did not start"
            time.sleep(0.25)
        children = children_of(parent.pid)
        assert children, "rackcost app runs streamlit in a child process"
        parent.send_signal(signal.SIGTERM)
        parent.wait(timeout=120)  # hang guards: both go in well under a second, unless the machine is busy
        deadline = time.monotonic() + 120
        while any(alive(c) for c in children) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not [c for c in children if alive(c)], "the streamlit child outlived SIGTERM to rackcost app"
    finally:
        for pid in [parent.pid, *children]:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
        if parent.poll() is None:
            parent.wait(timeout=10)


def test_rackcost_app_without_streamlit_says_how_to_install(monkeypatch):
    monkeypatch.setattr("rackcost.cli.launch.importlib.util.find_spec", lambda name: None)
    result = CliRunner().invoke(cli_app, ["app"])
    assert result.exit_code == 1
    assert "pip install -e '.[app]'" in result.output


# ---- Uncertainty page ----------------------------------------------------------------------------------------


def load(at: AppTest, name: str) -> None:
    at.switch_page("app_pages/scenario.py").run()
    at.selectbox(key="bundled").select(name)
    at.button(key="load_bundled").click().run()
    ok(at)


def find_breakeven(at: AppTest, path: str, low: float | None = None, high: float | None = None) -> None:
    at.selectbox(key="breakeven_input").select(path)
    at.number_input(key="breakeven_low").set_value(low)
    at.number_input(key="breakeven_high").set_value(high)
    next(b for b in at.button if b.label == "Find the break-even").click().run()
    ok(at)


def test_uncertainty_page_shows_the_probability_that_jalapeno_is_cheaper_and_the_tornado():
    at = start()
    at.switch_page(UNCERTAINTY).run()
    ok(at)
    assert errors(at) == ""
    scenario = rackcost.load_scenario(rackcost.bundled_scenario_path())
    expected = rackcost.uncertainty(scenario, TEST_SAMPLES, 0).probability_cheaper
    blended = next(r["probability_fraction"] for r in expected if r["demand_point"] == "blended")
    headline = shown(at.subheader[0].value)
    assert headline.startswith("Jalapeño is cheaper per accepted request than GB300 NVL72 in ")
    assert f"{100 * blended:.0f}% of {TEST_SAMPLES:,} samples" in headline
    metrics = {shown(m.label): m.value for m in at.metric}
    for row in expected:
        label_text = "blended over the day" if row["demand_point"] == "blended" else f"at {row['demand_point']} demand"
        assert metrics[label_text] == f"{100 * row['probability_fraction']:.1f}%"
    # the uncertain inputs, the percentile table and the tornado (ranked as the library ranks it)
    inputs, percentiles, tornado = (d.value for d in at.dataframe[:3])
    assert sorted(inputs["path"]) == sorted(scenario.distributions)
    assert len(percentiles) == len(scenario.systems) * (len(scenario.demand) + 1)
    ranked = [r["input"] for r in rackcost.tornado(scenario)]
    assert len(tornado) == len(ranked) and tornado["input"].iloc[0] == "Jalapeño: capex per accelerator [USD]"
    assert {"GB300 NVL72@low", "Jalapeño@high", "advantage_low"} <= set(tornado.columns)
    # another demand point for the chart, another seed: no error
    at.radio(key="w_uncertainty_point").set_value("peak").run()
    ok(at)
    at.number_input(key="w_uncertainty_seed").set_value(7).run()
    ok(at)
    assert at.session_state["uncertainty_seed"] == 7
    assert errors(at) == ""


def test_uncertainty_page_finds_a_break_even_and_says_when_there_is_none():
    at = start()
    at.switch_page(UNCERTAINTY).run()
    path = "systems[1].costs.capex_usd_per_accelerator"
    find_breakeven(at, path)
    expected = rackcost.breakeven(rackcost.load_scenario(rackcost.bundled_scenario_path()), path)
    assert expected.value is not None
    found = "\n".join(shown(s.value) for s in at.success)
    assert "Jalapeño and GB300 NVL72 cost the same per accepted request (blended over the day)" in found
    assert f"${expected.value:,.0f}" in found
    # a range without a break-even is said plainly
    find_breakeven(at, path, 5.0, 10.0)
    infos = [shown(i.value) for i in at.info]
    assert any("No break-even in range" in i and "Jalapeño is cheaper throughout" in i for i in infos)
    # a range the model cannot take, or the wrong way round: a message, not a traceback
    find_breakeven(at, "uncertainty.throughput_derate.collaborative", -5.0, 1.0)
    assert "leaves the input's allowed values" in errors(at)  # the library names the bad range
    find_breakeven(at, path, 10.0, 5.0)
    assert "'from' below 'to'" in errors(at)


def test_uncertainty_page_without_distributions_draws_the_default_spreads_and_any_pair():
    """A scenario without distributions: the page says so, lists each default spread with its source, says how sure
    in the library's words, and gives P(cheaper) for the pair the buyer picks (the library's, pair by pair)."""
    from rackcost.analysis.pairs import probability_cheaper
    from rackcost.reporting.how_sure import how_sure

    at = start()
    load(at, "deepseek-r1-b200-vs-gb200-inferencex.yaml")
    at.switch_page(UNCERTAINTY).run()
    ok(at)
    assert errors(at) == ""
    assert any("This scenario gives no distributions" in i.value for i in at.info)
    spreads = at.dataframe[0].value
    # each default cited: its provenance class's width (docs/uncertainty.md) or the model's fitted error
    assert len(spreads) > 10 and spreads["source"].str.contains("docs/uncertainty.md|docs/validation.md").all()
    scenario = rackcost.load_scenario(rackcost.bundled_scenario_path("deepseek-r1-b200-vs-gb200-inferencex.yaml"))
    run = rackcost.uncertainty(scenario, at.session_state["uncertainty_samples"], 0)
    assert any(how_sure(run) in shown(m.value) for m in at.markdown)
    at.selectbox(key="uncertainty_pair_a").set_value("DGX B200").run()
    share = probability_cheaper(run, "DGX B200", "GB200 NVL72")
    said = [shown(m.value) for m in at.markdown if m.value.startswith("DGX B200 is cheaper")]
    assert said and rackcost.display.pct(share, 1) in said[0]
    find_breakeven(at, "facility.electricity_usd_per_kwh")
    assert any("No break-even in range" in i.value for i in at.info) or at.success


# ---- Scenario page: import benchmark results ---------------------------------------------------------------------

# invented InferenceX-format array (inferencex_files.py): four MI300X curves of three points and an H100 row
RESULTS_FILE = inferencex_files.ARRAY
GAUDI_SCENARIO = "llama-3.3-70b-gaudi25-tp-precision.yaml"


def upload_results(at: AppTest, files: list[tuple[str, bytes]]) -> None:
    """What the import uploader's callback does: ``(name, bytes)`` pairs into ``pending_import``."""
    at.switch_page("app_pages/scenario.py")
    at.session_state["pending_import"] = files
    at.run()
    ok(at)


def keyed(widgets, prefix: str):
    """The one widget whose key starts with ``prefix|`` (import widgets carry a digest or generation)."""
    (found,) = [w for w in widgets if w.key and w.key.startswith(prefix + "|")]
    return found


def numeric_leaves_uncovered(data: dict) -> list[str]:
    """Numeric leaves that no ``figures:`` entry covers (what tests/test_scenarios.py checks of bundled files)."""
    figures = data.get("figures") or {}
    body = {k: v for k, v in data.items() if k != "figures"}
    return [
        leaf
        for leaf in numeric_leaves(body)
        if not any(leaf == k or leaf.startswith(k + ".") or leaf.startswith(k + "[") for k in figures)
    ]


def test_importing_a_results_array_shows_its_curves_and_the_skipped_h100_row():
    rows = json.loads(RESULTS_FILE.read_text(encoding="utf-8"))
    at = start()
    upload_results(at, [(RESULTS_FILE.name, RESULTS_FILE.read_bytes())])
    assert errors(at) == ""
    assert any(m.value.startswith("**4 curves found**") for m in at.markdown)
    curves = next(d.value for d in at.dataframe if "curve" in d.value.columns)
    assert len(curves) == 4
    assert set(curves["hardware"]) == {"mi300x"}
    assert sorted(zip(curves["precision"], curves["tp"], strict=True)) == [
        ("bf16", 2), ("bf16", 4), ("fp8", 2), ("fp8", 4)
    ]  # fmt: skip
    assert set(curves["points"]) == {3} and set(curves["isl_osl"]) == {"1024/1024"}
    assert set(curves["concurrency"]) == {"4 to 64"}
    assert all("1k1k" in source for source in curves["isl_osl_from"])
    skipped = next(d.value for d in at.dataframe if "reason" in d.value.columns)
    assert len(skipped) == 1
    h100_row = next(i for i, r in enumerate(rows) if r["hw"] == "h100")
    assert skipped["row"][0] == str(h100_row) and skipped["field"][0] == "isl/osl"
    assert "not in the file and not in its file name" in skipped["reason"][0]
    # with ISL/OSL given as options, the H100 row becomes a fifth curve, and the summary says where they came from
    at.number_input(key="w_import_isl").set_value(1024)
    at.number_input(key="w_import_osl").set_value(1024).run()
    ok(at)
    curves = next(d.value for d in at.dataframe if "curve" in d.value.columns)
    assert len(curves) == 5 and "h100" in set(curves["hardware"])
    assert "option --isl/--osl" in set(curves["isl_osl_from"])
    assert not any("reason" in d.value.columns for d in at.dataframe)


def test_an_agentic_file_imports_only_with_a_percentile_that_stands_in_for_the_slos():
    # schema F carries mean/p75/p90/p95 only: refused at p99 (nothing imported, the reason shown), imported at p95
    # with the stand-in said (issue 20, item 1)
    agentic = inferencex_files.FIXTURES / "newer" / "agentic_moe1t_fp4_mi355x_agg_bmk.json"
    at = start()
    upload_results(at, [(agentic.name, agentic.read_bytes())])
    assert not any("curve" in d.value.columns for d in at.dataframe)  # at p99: no curve
    skipped = next(d.value for d in at.dataframe if "reason" in d.value.columns)
    assert all("percentile" in reason for reason in skipped["reason"])
    at.selectbox(key="w_import_percentile").set_value("p95").run()
    ok(at)
    curves = next(d.value for d in at.dataframe if "curve" in d.value.columns)
    assert len(curves) == 2
    assert sum("p95" in w.value for w in at.warning) == 2  # one stand-in warning per curve


def test_replacing_a_systems_points_with_an_imported_curve_changes_its_points_and_results():
    at = start()
    load(at, GAUDI_SCENARIO)
    before = at.session_state["valid_json"]
    results_before = points_table(at)
    upload_results(at, [(RESULTS_FILE.name, RESULTS_FILE.read_bytes())])
    curve = keyed(at.selectbox, "import_curve")
    curve.set_value(next(i for i, label in enumerate(curve.options) if "fp8 vllm tp2 " in label))
    keyed(at.selectbox, "import_target").set_value(0)  # Gaudi 2.5 TP8 BF16
    at.button(key="import_replace").click().run()  # the callback reads the choices made with it
    ok(at)
    assert not at.session_state["problems"] and at.session_state["valid_json"] != before
    system = at.session_state["draft"]["systems"][0]
    assert system["name"] == "Gaudi 2.5 TP8 BF16"  # the system stays; its curve and replica size are the benchmark's
    assert system["performance"]["benchmark_precision"] == "fp8"
    assert [p["concurrency"] for p in system["performance"]["points"]] == [4, 16, 64]
    assert system["hardware"]["accelerators_per_replica"] == 2
    assert system["costs"] == rackcost.load_scenario(GAUDI_SCENARIO).systems[0].costs.model_dump(exclude_unset=True)
    assert any("Replaced the operating points of Gaudi 2.5 TP8 BF16" in shown(s.value) for s in at.success)
    # provenance: the curve's class, the file and the run date; nothing labelled as edited by the user
    figures = at.session_state["draft"]["figures"]
    assert figures["systems[0].performance"]["provenance"] == "independent"
    assert RESULTS_FILE.name in figures["systems[0].performance"]["source"]
    assert "2025-11-20" in figures["systems[0].performance"]["source"]  # the TP2 rows' timestamp
    assert not [k for k, f in figures.items() if "edited in the rackcost dashboard" in f["source"]]
    assert numeric_leaves_uncovered(at.session_state["draft"]) == []
    results_after = points_table(at)
    mine = results_after["system"] == "Gaudi 2.5 TP8 BF16"
    assert (results_after[mine]["total_usd_per_hour"] != results_before[mine]["total_usd_per_hour"]).all()
    others = ~mine
    assert results_after[others]["total_usd_per_hour"].to_numpy() == pytest.approx(
        results_before[others]["total_usd_per_hour"].to_numpy()
    )


def test_adding_an_imported_curve_as_a_new_system_copies_hardware_flagged_for_review():
    at = start()  # the default scenario: two systems, so that each rerun is quick
    n = len(at.session_state["draft"]["systems"])
    template = at.session_state["draft"]["systems"][1]
    upload_results(at, [(RESULTS_FILE.name, RESULTS_FILE.read_bytes())])
    curve = keyed(at.selectbox, "import_curve")
    curve.set_value(next(i for i, label in enumerate(curve.options) if "bf16 vllm tp4 " in label))
    at.radio(key="w_import_action").set_value("add").run()
    keyed(at.text_input, "import_name").set_value("Gaudi 2.5 TP4 BF16")
    keyed(at.selectbox, "import_template").set_value(1).run()
    assert any(f"starts with those of **{template['name']}**" in shown(w.value) for w in at.warning)
    at.button(key="import_add").click().run()
    ok(at)
    draft = at.session_state["draft"]
    assert len(draft["systems"]) == n + 1 and not at.session_state["problems"]
    new = draft["systems"][-1]
    assert new["name"] == "Gaudi 2.5 TP4 BF16"
    assert new["performance"]["benchmark_precision"] == "bf16" and len(new["performance"]["points"]) == 3
    assert new["provenance"]["class"] == "independent" and RESULTS_FILE.name in new["provenance"]["source"]
    assert new["hardware"]["accelerators_per_replica"] == 4
    assert new["costs"] == template["costs"]
    assert {k: v for k, v in new["hardware"].items() if k != "accelerators_per_replica"} == {
        k: v for k, v in template["hardware"].items() if k != "accelerators_per_replica"
    }
    # provenance: copied figures are assumptions to be reviewed; the curve's are the importer's class
    figures = draft["figures"]
    assert figures[f"systems[{n}].costs"]["provenance"] == "assumption"
    assert "to be reviewed" in figures[f"systems[{n}].costs"]["why"]
    assert figures[f"systems[{n}].performance"]["provenance"] == "independent"
    assert numeric_leaves_uncovered(draft) == []
    open_tab(at, at.session_state["scenario_tab_labels"][3 + n])
    assert any("To be reviewed" in w.value for w in at.warning)  # in the new system's tab
    assert "Gaudi 2.5 TP4 BF16" in set(points_table(at)["system"])
    # a second system of the same name fails validation: shown by field, the results stay on the last valid one
    at.switch_page("app_pages/scenario.py").run()
    valid = at.session_state["valid_json"]
    keyed(at.text_input, "import_name").set_value("Gaudi 2.5 TP4 BF16")
    at.button(key="import_add").click().run()
    ok(at)
    assert "system names must be unique" in errors(at)
    assert at.session_state["valid_json"] == valid
    assert len(at.session_state["draft"]["systems"]) == n + 2  # kept, to be renamed


BAD_RESULT_FILES = {
    "truncated JSON": ([("run.json", b'[{"hw": "gaudi25", "conc": 4, "tput_per_gpu": ')], "truncated"),
    "another schema": ([("other.json", b'{"hello": "world"}')], "not an InferenceX result"),
    "not text": ([("bin.json", bytes(range(256)))], "not UTF-8"),
    "CSV and JSON together": ([("a.csv", b"x\n"), ("b.json", b"{}")], "one CSV table"),
}


@pytest.mark.parametrize("case", BAD_RESULT_FILES, ids=list(BAD_RESULT_FILES))
def test_a_bad_result_file_shows_a_message_and_changes_nothing(case):
    files, message = BAD_RESULT_FILES[case]
    at = start()
    draft = copy.deepcopy(at.session_state["draft"])
    upload_results(at, files)
    messages = errors(at) + "\n".join(shown(w.value) for w in at.warning)
    messages += "\n".join(reason for d in at.dataframe if "reason" in d.value.columns for reason in d.value["reason"])
    assert message in messages
    assert at.session_state["draft"] == draft
    assert not [b for b in at.button if b.key in ("import_replace", "import_add")]


def test_the_simulate_button_shows_analytic_beside_simulated():
    at = start()
    at.switch_page("app_pages/results.py").run()
    ok(at)
    at.number_input(key="simulate_requests").set_value(2_000)
    at.selectbox(key="simulate_point").set_value("quiet")
    at.selectbox(key="simulate_routing").set_value("pooled")
    at.button(key="simulate_run").click().run()
    ok(at)
    table = at.dataframe[-1].value
    assert list(table.columns) == ["figure", "analytic", "simulated", "± 95%", "relative error"]
    assert "TTFT p99 ms" in set(table["figure"])
    markdown = " ".join(shown(m.value) for m in at.markdown)
    assert "routing **pooled**" in markdown and "at **quiet**" in markdown


def test_the_simulate_button_shows_a_refusal_with_its_estimate():
    """A fleet whose warm start dwarfs the requests asked (two_systems.yaml at 10,000 times its demand, random
    routing, 2,000 requests) is refused before it runs; the page shows the estimate, not an exception."""
    data = yaml.safe_load(TWO_SYSTEMS.read_text(encoding="utf-8"))
    for point in data["demand"]:
        point["arrival_rps"] *= 10_000
    at = start()
    at.session_state["pending_upload"] = (yaml.safe_dump(data).encode("utf-8"), "busy.yaml")
    at.run()
    at.switch_page("app_pages/results.py").run()
    ok(at)
    at.number_input(key="simulate_requests").set_value(2_000)
    at.selectbox(key="simulate_point").set_value("peak")
    at.selectbox(key="simulate_routing").set_value("random")
    at.button(key="simulate_run").click().run()
    ok(at)
    # under random routing the model admits what random routing carries, and the warm start of A's 18,520 replicas
    # (about 5.9 million requests) outweighs the 2,000 asked (before the analytic side was the same fleet's under the
    # router simulated, the scenario router's admission let each replica queue about 12,600: over 100 million)
    message = errors(at)
    assert message.startswith("A at peak: about ") and "ask for at least 6,038,000 requests" in message, message


def test_a_scenario_with_owned_and_rented_systems_runs_on_every_page():
    """Issue 12: a rented system (no costs block, a rent block) is edited and shown like an owned one."""
    data = yaml.safe_load(TWO_SYSTEMS.read_text(encoding="utf-8"))
    rented = copy.deepcopy(data["systems"][0])
    rented["name"] = "A rented"
    del rented["costs"]
    rented["rent"] = {"usd_per_accelerator_hour": 2.5, "billing": "on_demand"}
    data["systems"].append(rented)
    at = start()
    at.session_state["pending_upload"] = (yaml.safe_dump(data, sort_keys=False).encode("utf-8"), "rented.yaml")
    at.run()
    ok(at)
    assert at.session_state["valid"]["systems"][2]["rent"]["billing"] == "on_demand"
    for page in PAGES[1:]:
        at.switch_page(page).run()
        ok(at)


def test_api_and_rented_systems_get_their_own_forms_and_an_edit_reaches_the_result():
    """Issue 12: an API system is edited by its prices, a rented one by its rent (no hardware or costs forms)."""
    at = start()
    load(at, "deepseek-r1-own-vs-rent-vs-api.yaml")
    assert widget(at, "number_input", "systems[1].rent.usd_per_accelerator_hour").value == 3.3
    price = widget(at, "number_input", "systems[3].api.usd_per_million_output_tokens")
    assert not [w for w in at.number_input if w.key and w.key.endswith("systems[3].hardware.accelerators_per_node")]
    before = compute_blended(at, "DeepSeek API (deepseek-reasoner)")
    price.set_value(4.38).run()
    ok(at)
    assert at.session_state["valid"]["systems"][3]["api"]["usd_per_million_output_tokens"] == 4.38
    assert compute_blended(at, "DeepSeek API (deepseek-reasoner)") > before  # a dearer API costs more per request


def compute_blended(at: AppTest, system: str) -> float:
    """The blended cost per accepted request the dashboard shows for a system (from the last valid scenario)."""
    scenario = rackcost.scenario_from_dict(at.session_state["valid"])
    (row,) = [r for r in rackcost.evaluate(scenario).records["systems"] if r["system"] == system]
    return row["blended_usd_per_accepted_request"]


def test_the_breakeven_form_offers_the_rental_and_api_prices_and_finds_own_against_rent():
    """Issue 12: own against rent on the dashboard: the rental price at which they cost the same."""
    at = start()
    load(at, "deepseek-r1-own-vs-rent-vs-api.yaml")
    at.switch_page("app_pages/uncertainty.py").run()
    ok(at)
    options = " ".join(at.selectbox(key="breakeven_input").options)
    assert "rental price [USD/accelerator-h] · systems[1].rent.usd_per_accelerator_hour" in options
    assert "output token price [USD/M tokens] · systems[3].api.usd_per_million_output_tokens" in options
    at.selectbox(key="breakeven_system").select("GB200 NVL72 rented, reserved")
    find_breakeven(at, "systems[1].rent.usd_per_accelerator_hour", 0.5, 10.0)
    found = "\n".join(shown(s.value) for s in at.success)
    expected = rackcost.breakeven(
        rackcost.scenario_from_dict(at.session_state["valid"]),
        "systems[1].rent.usd_per_accelerator_hour",
        system="GB200 NVL72 rented, reserved",
        low=0.5,
        high=10.0,
    )
    assert expected.value is not None and expected.value < 3.3  # renting at $3.30 costs more than owning
    assert "GB200 NVL72 rented, reserved and GB200 NVL72 owned cost the same per accepted request" in found


def test_the_simulate_routing_lists_a_registered_router_and_runs_it():
    """A router registered by a user (the toy of test_routers.py) is offered beside the built-in ones and simulated;
    the page words it from its own object, not from the built-in enum."""
    from rackcost.model.queues.routers import register, unregister
    from test_routers import LowestIndex

    router = register(LowestIndex())
    try:
        at = start()
        at.switch_page("app_pages/results.py").run()
        ok(at)
        assert "lowest_index" in at.selectbox(key="simulate_routing").options
        at.number_input(key="simulate_requests").set_value(2_000)
        at.selectbox(key="simulate_point").set_value("quiet")
        at.selectbox(key="simulate_routing").set_value("lowest_index")
        at.button(key="simulate_run").click().run()
        ok(at)
        assert "routing **lowest_index**" in " ".join(shown(m.value) for m in at.markdown)
    finally:
        unregister(router.name)


def test_every_download_button_leaves_the_page_as_it_is() -> None:
    """A download changes nothing on the page: each ``st.download_button`` of the dashboard is given
    ``on_click="ignore"`` (Streamlit reran the page after each by default; docs/dashboard.md, Choices)."""
    import ast

    calls = []
    for path in sorted((ROOT / "app").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "download_button":
                keywords = {k.arg: k.value for k in node.keywords}
                ignored = isinstance(keywords.get("on_click"), ast.Constant) and keywords["on_click"].value == "ignore"
                calls.append((f"{path.relative_to(ROOT)}:{node.lineno}", ignored))
    assert len(calls) >= 12  # every page that offers a file
    assert [where for where, ignored in calls if not ignored] == []
