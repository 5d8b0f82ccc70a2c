"""Hostile text in the dashboard (issue 19): names, sources and file names are shown as written, never as Markdown.

A scenario whose every name and source is a Markdown image, an HTML ``<img>``, a ``javascript:`` link, Streamlit's
``:red[...]`` and ``:material/...:`` directives and ``$...$`` mathematics is uploaded under a file name of the same
kind; every page is run (every tab of the Scenario page, a refused YAML text, an import of benchmark results, a
break-even), and every string that Streamlit renders as Markdown (bodies, labels, help texts, radio options, the
help of table columns) is read from the messages the app sends: none holds the raw text, none parses to a link, an
image or HTML, and the names are there, escaped (``rackcost_app.safe.md``). ``tests/test_browser.py`` checks the
same in Chromium: no request leaves the Streamlit server.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
import yaml
from google.protobuf.message import Message
from markdown_it import MarkdownIt
from streamlit.testing.v1 import AppTest

import inferencex_files
import rackcost
from app_editing import record_downloads

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "app"))
from rackcost_app.safe import md  # noqa: E402

pytestmark = pytest.mark.app

PAGES = [
    "app_pages/scenario.py",
    "app_pages/results.py",
    "app_pages/claim.py",
    "app_pages/uncertainty.py",
    "app_pages/sweep.py",
    "app_pages/export.py",
    "app_pages/answer.py",
]
RAW = ("attacker.example", "javascript:", ":red[", ":material/home", "<img", "![", "$x$", "](")
"""Pieces of the hostile text that must never reach Streamlit's Markdown unescaped."""


def hostile(tag: str) -> str:
    """A name that Markdown would turn into an image, HTML, a link, red text, an icon and mathematics."""
    return (
        f"{tag} ![i](http://attacker.example/{tag}.png) <img src=http://attacker.example/{tag}-h.png> "
        f"[l](javascript:alert(1)) :red[{tag}] :material/home: $x$"
    )


FILE_NAME = hostile("file").replace("/", "_") + ".yaml"  # a file name has no slash


def hostile_data() -> dict:
    """The default scenario with every name, source, note and reason replaced by hostile text."""
    data = yaml.safe_load(rackcost.bundled_scenario_path().read_text(encoding="utf-8"))
    old = [s["name"] for s in data["systems"]]
    data["name"] = hostile("scenario")
    data["description"] = hostile("description")
    data["workload"]["model"] = hostile("model")
    for i, system in enumerate(data["systems"]):
        system["name"] = hostile(f"system{i}")
        prov = system["provenance"]
        for field in ("source", "notes", "reported_by", "software_stack"):
            prov[field] = hostile(f"{field}{i}")
    if data.get("baseline_system"):
        data["baseline_system"] = data["systems"][old.index(data["baseline_system"])]["name"]
    for i, point in enumerate(data["demand"]):
        point["name"] = hostile(f"point{i}")
    for i, figure in enumerate(data["figures"].values()):
        figure["source"] = hostile(f"source{i}")
        if "why" in figure:
            figure["why"] = hostile(f"why{i}")
    return data


def hostile_yaml() -> str:
    return yaml.safe_dump(hostile_data(), sort_keys=False, allow_unicode=True)


SHOWN = ["scenario", "system0", "system1", "point0", "point2", "file", "source1", "notes1"]
"""Tags whose escaped text must be on screen somewhere (so that the check below is not vacuous)."""


def _strings(message: Message, path: str):
    for field, value in message.ListFields():
        values = value if field.is_repeated else [value]
        for v in values:
            if isinstance(v, Message):
                yield from _strings(v, f"{path}.{field.name}")
            elif isinstance(v, str):
                yield f"{path}.{field.name}", field.name, v


def _nodes(node):
    yield node
    for child in getattr(node, "children", {}).values():
        yield from _nodes(child)


def markdown_strings(at: AppTest) -> list[tuple[str, str]]:
    """``(where, text)`` of every string of the app's messages that Streamlit renders as Markdown."""
    found = []
    for node in _nodes(at._tree):
        proto = getattr(node, "proto", None)
        if not isinstance(proto, Message):
            continue
        kind = type(node).__name__
        for where, leaf, text in _strings(proto, kind):
            if leaf in ("body", "label", "help", "value") and kind not in ("TextInput", "TextArea", "Code"):
                found.append((where, text))
            elif leaf == "options" and kind in ("Radio", "ButtonGroup"):
                found.append((where, text))
            elif leaf == "columns" and kind == "Dataframe":  # the column config, as JSON: its help is Markdown
                for name, config in json.loads(text).items():
                    if isinstance(config, dict) and config.get("help"):
                        found.append((f"{where}[{name}].help", config["help"]))
    return found


_ESCAPED = re.compile(r"\\[!-/:-@\[-`{-~]")
_PARSER = MarkdownIt("commonmark").enable(["table", "strikethrough"])


def unsafe(text: str) -> list[str]:
    """What in ``text`` Markdown would render from hostile input: raw pieces (outside backslash escapes), links,
    images, HTML."""
    unescaped = _ESCAPED.sub("\0", text)  # an escaped character starts nothing
    found = [piece for piece in RAW if piece in unescaped]
    for token in _PARSER.parse(text):
        for t in [token, *(token.children or [])]:
            if t.type in ("image", "link_open", "html_inline", "html_block"):
                found.append(t.type)
    return found


def run(at: AppTest, seen: list[tuple[str, str]]) -> None:
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    seen += markdown_strings(at)


def test_every_page_shows_hostile_names_as_plain_text():
    seen: list[tuple[str, str]] = []
    at = AppTest.from_file(str(ROOT / "app" / "streamlit_app.py"), default_timeout=120)
    at.session_state["uncertainty_samples"] = 1_000
    run(at, seen)
    at.session_state["pending_upload"] = (hostile_yaml().encode("utf-8"), FILE_NAME)
    run(at, seen)
    assert at.session_state["file_name"] == FILE_NAME and not at.session_state["load_problems"]

    # every tab of the Scenario page (only the open tab is built; the app opens on the Answer page)
    at.switch_page("app_pages/scenario.py")
    run(at, seen)
    for label in at.session_state["scenario_tab_labels"]:
        at.session_state["scenario_tab"] = label
        run(at, seen)
    # a system's forms: a rented copy added (its message and tab), a removal asked (its confirmation)
    at.session_state["scenario_tab"] = at.session_state["scenario_tab_labels"][3]
    run(at, seen)
    next(b for b in at.button if b.key == "add_rented|0").click()
    run(at, seen)
    next(b for b in at.button if b.key == "remove|2").click()
    run(at, seen)
    next(b for b in at.button if b.key == "remove_yes|2").click()
    run(at, seen)
    # benchmark results under a hostile file name, offered as a new system copied from a hostile one
    at.session_state["pending_import"] = [(FILE_NAME.replace(".yaml", ".json"), inferencex_files.ARRAY.read_bytes())]
    run(at, seen)
    at.session_state["w_import_action"] = "add"
    run(at, seen)
    # a YAML text with a problem that quotes a hostile name: refused, its problems shown
    at.session_state["scenario_tab"] = "YAML"
    run(at, seen)
    bad = hostile_data()
    bad["baseline_system"] = hostile("nobody")
    area = next(t for t in at.text_area if t.key and t.key.startswith("yaml|"))
    area.set_value(yaml.safe_dump(bad, sort_keys=False, allow_unicode=True))
    next(b for b in at.button if b.key == "apply_yaml").click()
    run(at, seen)
    assert at.session_state["load_problems"]

    for page in PAGES[1:]:
        at.switch_page(page)
        run(at, seen)
    at.switch_page("app_pages/uncertainty.py")
    run(at, seen)
    next(b for b in at.button if b.label == "Find the break-even").click()
    run(at, seen)
    at.switch_page("app_pages/mix.py")
    run(at, seen)
    next(b for b in at.button if b.key == "mix_run").click()
    run(at, seen)

    bad_strings = [(where, text, unsafe(text)) for where, text in seen if unsafe(text)]
    assert bad_strings == [], "\n".join(f"{w}: {p} in {t!r}" for w, t, p in bad_strings[:20])
    shown = "\n".join(text for _, text in seen)

    def escaped(tag: str) -> str:
        return md(hostile(tag).replace("/", "_") if tag == "file" else hostile(tag))

    missing = [tag for tag in SHOWN if escaped(tag) not in shown]
    assert missing == [], missing


def test_md_escapes_markdown_html_and_streamlit_directives():
    for tag in ("a", "b c"):
        text = hostile(tag)
        assert unsafe(md(text)) == []
        assert md(text).replace("\\", "") == text  # shown as written: only backslashes added
    assert md("Gaudi 2.5\n\n# TP8") == "Gaudi 2\\.5 \\# TP8"
    assert md("Jalapeño 推理") == "Jalapeño 推理"


# ---- CSV downloads ---------------------------------------------------------------------------------------------

FORMULAS = {"system0": "=cmd|' /C calc'!A0", "system1": "@SUM(1+1)*cmd|' /C calc'!A0", "point0": "+1+cmd|' /C calc'!A0"}


def formula_yaml() -> str:
    """The default scenario with systems and a demand point named as spreadsheet formulas."""
    data = yaml.safe_load(rackcost.bundled_scenario_path().read_text(encoding="utf-8"))
    data["systems"][0]["name"] = FORMULAS["system0"]
    data["systems"][1]["name"] = FORMULAS["system1"]
    data["demand"][0]["name"] = FORMULAS["point0"]
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True)


def test_every_csv_download_is_safe_to_open_in_a_spreadsheet(monkeypatch):
    import csv
    import io

    downloads = record_downloads(monkeypatch)
    at = AppTest.from_file(str(ROOT / "app" / "streamlit_app.py"), default_timeout=120)
    at.run()
    at.session_state["pending_upload"] = (formula_yaml().encode("utf-8"), "formulas.yaml")
    at.run()
    assert not at.session_state["load_problems"]
    for page in ("app_pages/export.py", "app_pages/sweep.py"):
        at.switch_page(page).run()
        assert not at.exception, [e.value for e in at.exception]
    csvs = {name: data for name, data in downloads.items() if name.endswith(".csv")}
    assert {"points", "systems", "comparison", "sweep"} <= {n.rsplit("-", 1)[-1].removesuffix(".csv") for n in csvs}
    for name, data in csvs.items():
        text = data.decode("utf-8") if isinstance(data, bytes) else data
        cells = [cell for row in csv.reader(io.StringIO(text)) for cell in row]
        dangerous = []
        for cell in cells:
            if cell.startswith(("=", "+", "-", "@", "\t", "\r")):
                try:
                    float(cell)  # a negative number stays a number
                except ValueError:
                    dangerous.append(cell)
        assert dangerous == [], (name, dangerous[:5])
        assert "'" + FORMULAS["system0"] in cells, name  # the name is there, as text
