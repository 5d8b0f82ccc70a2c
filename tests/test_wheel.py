"""The wheel carries the library, the bundled scenarios and the dashboard; ``rackcost app`` runs the one it finds.

The wheel is built from the repository with pip and hatchling (a few seconds); ``scripts/check_wheel`` goes further
and installs it in a fresh venv, runs the commands and starts the dashboard.
"""

from __future__ import annotations

import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from rackcost.cli import app as cli_app
from rackcost.cli import launch

pytestmark = pytest.mark.wheel

ROOT = Path(__file__).resolve().parents[1]
APP = ROOT / "app"


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> zipfile.ZipFile:
    out = tmp_path_factory.mktemp("wheel")
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    (path,) = out.glob("rackcost-*.whl")
    with zipfile.ZipFile(path) as archive:
        yield archive


def _repo_files(folder: Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts}


def test_the_wheel_carries_the_dashboards_entry_pages_and_helpers_and_nothing_else_of_app(wheel):
    names = set(wheel.namelist())
    shipped = {n.removeprefix("rackcost/app/") for n in names if n.startswith("rackcost/app/")}
    assert "streamlit_app.py" in shipped
    pages = set(re.findall(r'st\.Page\("(app_pages/[a-z_]+\.py)"', (APP / "streamlit_app.py").read_text()))
    listed = {f"app_pages/{p.name}" for p in (APP / "app_pages").glob("*.py")}
    assert pages == listed and pages <= shipped  # st.navigation lists every page file, and the wheel has each
    helpers = {f"rackcost_app/{name}" for name in _repo_files(APP / "rackcost_app")}
    assert "rackcost_app/state.py" in helpers and helpers <= shipped
    expected = {"streamlit_app.py"} | {f"app_pages/{n}" for n in _repo_files(APP / "app_pages")} | helpers
    expected.add(".streamlit/config.toml")  # the app's own config (usage statistics off, no Deploy, 1 MB uploads)
    assert shipped == expected  # e.g. no local app/.streamlit/secrets.toml


def test_the_wheel_carries_every_bundled_scenario_and_library_module(wheel):
    names = set(wheel.namelist())
    scenarios = {f"rackcost/scenarios/{p.name}" for p in (ROOT / "scenarios").glob("*.yaml")}
    assert len(scenarios) >= 5 and scenarios <= names
    modules = {f"rackcost/{name}" for name in _repo_files(ROOT / "src" / "rackcost")}
    assert "rackcost/scenario/edits.py" in modules and modules <= names


def test_the_wheel_declares_the_console_script_and_the_app_extra(wheel):
    dist_info = next(n.split("/")[0] for n in wheel.namelist() if n.endswith(".dist-info/METADATA"))
    assert "rackcost = rackcost.cli.console:main" in wheel.read(f"{dist_info}/entry_points.txt").decode()
    metadata = wheel.read(f"{dist_info}/METADATA").decode()
    assert "Provides-Extra: app" in metadata
    assert re.search(r"Requires-Dist: streamlit.*; extra == 'app'", metadata)


# ---- rackcost app ------------------------------------------------------------------------------------------------


NO_USAGE_STATS = ["--browser.gatherUsageStats", "false"]


def _invoke(monkeypatch, *args: str) -> list[str]:
    calls: list[list[str]] = []
    monkeypatch.setattr("rackcost.cli.launch.serve", lambda command: calls.append(command) or 0)
    result = CliRunner().invoke(cli_app, ["app", *args])
    assert result.exit_code == 0, result.output
    (command,) = calls
    return command


def test_rackcost_app_passes_headless_address_and_port_to_streamlit(monkeypatch):
    command = _invoke(monkeypatch, "--headless", "--address", "127.0.0.1", "--port", "8611")
    assert command[:4] == [sys.executable, "-m", "streamlit", "run"]
    assert Path(command[4]) == APP / "streamlit_app.py"  # an editable install runs the repository's app
    assert command[5:] == [
        *NO_USAGE_STATS,
        "--server.headless",
        "true",
        "--server.address",
        "127.0.0.1",
        "--server.port",
        "8611",
    ]
    assert _invoke(monkeypatch)[5:] == NO_USAGE_STATS  # else Streamlit's defaults: opens a browser, port 8501


def test_rackcost_app_turns_streamlit_usage_statistics_off(monkeypatch):
    # without it Streamlit prints "Collecting usage statistics" at start and reports to its servers
    for args in ([], ["--headless"], ["--port", "8613", "--address", "127.0.0.1"]):
        command = _invoke(monkeypatch, *args)
        i = command.index("--browser.gatherUsageStats")
        assert command[i + 1] == "false"


def test_rackcost_app_prefers_the_packaged_app_and_does_not_watch_it(monkeypatch, tmp_path):
    packaged = tmp_path / "rackcost" / "app" / "streamlit_app.py"
    monkeypatch.setattr(launch, "packaged_script", lambda: packaged)
    assert launch.app_script() == APP / "streamlit_app.py"  # no packaged copy: the repository's
    packaged.parent.mkdir(parents=True)
    packaged.write_text("", encoding="utf-8")
    assert launch.app_script() == packaged
    command = _invoke(monkeypatch, "--port", "8612")
    assert command[4] == str(packaged)
    assert command[5:] == [*NO_USAGE_STATS, "--server.fileWatcherType", "none", "--server.port", "8612"]


def test_the_packaged_app_is_where_the_wheel_puts_it():
    assert launch.packaged_script().relative_to(Path(launch.__file__).parents[1]) == Path("app", "streamlit_app.py")


def test_rackcost_app_without_an_app_says_so(monkeypatch):
    monkeypatch.setattr(launch, "app_script", lambda: None)
    result = CliRunner().invoke(cli_app, ["app"])
    assert result.exit_code == 1
    assert "the dashboard is missing" in result.output and "reinstall the package" in result.output
