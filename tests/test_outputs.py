"""What the commands write (issue 19): CSV a spreadsheet cannot execute, outputs checked before any work and
written atomically, an existing file replaced only with --force and an input file never, stdout closed or full."""

from __future__ import annotations

import csv
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from rackcost import files
from rackcost.cli import app
from reference import TWO_SYSTEMS

runner = CliRunner()

# names a spreadsheet would run (OWASP's examples): a DDE command, a function, a sum, a leading tab
FORMULA_SYSTEM = "=cmd|' /C calc'!A0"
OTHER_SYSTEM = "@SUM(1+1)"
FORMULA_POINT = "+1+2"


def invoke(*args: object):
    return runner.invoke(app, [str(a) for a in args])


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    """The two-system scenario with formula names for both systems and a demand point, and distributions (so that
    uncertainty, tornado and break-even have something to sample), and a site budget."""
    data = yaml.safe_load(TWO_SYSTEMS.read_text(encoding="utf-8"))
    data["systems"][0]["name"] = FORMULA_SYSTEM
    data["systems"][1]["name"] = OTHER_SYSTEM
    data["demand"][2]["name"] = FORMULA_POINT
    data["facility"]["electricity_usd_per_kwh"] = {"dist": "triangular", "low": 0.06, "mode": 0.081, "high": 0.17}
    data["facility"]["max_it_power_kw"] = 2000
    data["systems"][1]["costs"]["capex_usd_per_accelerator"] = {"dist": "uniform", "low": 30000, "high": 60000}
    path = tmp_path / "hostile.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return path


def executable_cells(text: str) -> list[str]:
    """Cells a spreadsheet would read as a formula: text that begins with = + - @ tab or CR (a number is fine)."""
    bad = []
    for row in csv.reader(io.StringIO(text, newline="")):
        for cell in row:
            if cell[:1] in ("=", "+", "-", "@", "\t", "\r"):
                try:
                    float(cell)
                except ValueError:
                    bad.append(cell)
    return bad


CSV_COMMANDS = [
    ("evaluate", "--table", "points"),
    ("evaluate", "--table", "systems"),
    ("evaluate", "--table", "comparison"),
    ("compare",),
    ("uncertainty", "-n", "50"),
    ("tornado",),
    ("breakeven", "--input", "systems[1].costs.capex_usd_per_accelerator"),
    ("site",),
    ("mix",),
    ("simulate", "--requests", "2000", "--replications", "2"),
]


@pytest.mark.parametrize("command", CSV_COMMANDS, ids=lambda c: " ".join(c))
def test_no_csv_cell_a_spreadsheet_would_execute(hostile: Path, command: tuple[str, ...]) -> None:
    """Every CSV the commands write, from a scenario whose names are formulas: the names are there, neutralised
    with a leading ' (header rows included: tornado's columns are named after the systems)."""
    result = invoke(command[0], hostile, *command[1:], "-f", "csv")
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert executable_cells(text) == []
    assert "'=cmd|" in text or "'@SUM" in text or "'+1+2" in text, text[:500]


def test_reconcile_csv_details_have_no_leading_sign() -> None:
    """The bundled reconcile wrote detail cells such as '+ $723.05/h'."""
    result = invoke(
        "reconcile",
        "deepseek-r1-b200-vs-gb200-inferencex",
        "--system",
        "DGX B200",
        "--tier",
        "b200:neocloud-owned",
        "-f",
        "csv",
    )
    assert result.exit_code == 0, result.output
    assert executable_cells(result.stdout) == []


def test_csv_text_neutralises_every_text_cell_and_keeps_numbers() -> None:
    text = files.csv_text([{"name": "=1+1", "tab": "\tx", "cr": "\rx", "minus": "-x", "n": -1.5, "i": -3}])
    rows = list(csv.reader(io.StringIO(text, newline="")))
    assert rows[1] == ["'=1+1", "'\tx", "'\rx", "'-x", "-1.5", "-3"]
    assert executable_cells(text) == []
    header = files.csv_text([{"=a": 1}])
    assert header.splitlines()[0] == "'=a"


# ---- outputs ----------------------------------------------------------------------------------------------------


def test_an_existing_output_is_replaced_only_with_force(tmp_path: Path) -> None:
    out = tmp_path / "points.csv"
    out.write_text("mine", encoding="utf-8")
    refused = invoke("evaluate", TWO_SYSTEMS, "-f", "csv", "-o", out)
    assert refused.exit_code == 1 and "exists; use --force" in refused.stderr
    assert out.read_text(encoding="utf-8") == "mine"
    replaced = invoke("evaluate", TWO_SYSTEMS, "-f", "csv", "-o", out, "--force")
    assert replaced.exit_code == 0 and out.read_text(encoding="utf-8").startswith("system,demand_point")


def test_the_input_file_is_never_replaced_even_with_force(tmp_path: Path) -> None:
    """``evaluate mine.yaml -f csv -o mine.yaml`` silently replaced the scenario with CSV."""
    mine = tmp_path / "mine.yaml"
    mine.write_text(TWO_SYSTEMS.read_text(encoding="utf-8"), encoding="utf-8")
    before = mine.read_bytes()
    for extra in ((), ("--force",)):
        result = invoke("evaluate", mine, "-f", "csv", "-o", mine, *extra)
        assert result.exit_code == 1 and "is the input file" in result.stderr, result.output
    link = tmp_path / "link.yaml"
    link.symlink_to(mine)
    result = invoke("evaluate", mine, "-o", link, "--force")  # another name for the same file
    assert result.exit_code == 1 and "is the input file" in result.stderr
    assert mine.read_bytes() == before


def test_an_output_is_checked_before_any_work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    monkeypatch.setattr("rackcost.evaluation.chain.evaluate", lambda sc: calls.append(sc))
    out = tmp_path / "taken.json"
    out.write_text("{}", encoding="utf-8")
    result = invoke("evaluate", TWO_SYSTEMS, "-f", "json", "-o", out)
    assert result.exit_code == 1 and calls == []


@pytest.mark.parametrize("failure", [OSError(28, "No space left on device"), KeyboardInterrupt()])
def test_an_interrupted_write_leaves_the_old_file_and_no_part(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failure: BaseException
) -> None:
    """A full disk or Ctrl-C while the file is written: the old content stays, no temporary is left."""
    out = tmp_path / "result.json"
    out.write_text("old", encoding="utf-8")
    real_fsync = os.fsync

    def fail_on_fsync(fd: int) -> None:
        real_fsync(fd)
        raise failure

    monkeypatch.setattr("rackcost.files.os.fsync", fail_on_fsync)
    with pytest.raises(type(failure)):
        files.write_atomically(out, "new content")
    assert out.read_text(encoding="utf-8") == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["result.json"]


def test_a_full_disk_is_one_error_line_and_the_old_file_stays(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "result.json"
    out.write_text("old", encoding="utf-8")

    def full(path: object, data: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("rackcost.files.write_atomically", full)
    result = invoke("evaluate", TWO_SYSTEMS, "-f", "json", "-o", out, "--force")
    assert result.exit_code == 1
    assert result.stderr.strip() == f"error: {out}: cannot write: No space left on device"
    assert out.read_text(encoding="utf-8") == "old"


def test_a_written_file_has_the_usual_permissions(tmp_path: Path) -> None:
    out = tmp_path / "r.csv"
    files.write_atomically(out, "a\n")
    mask = os.umask(0)
    os.umask(mask)
    assert out.stat().st_mode & 0o777 == 0o666 & ~mask


# ---- stdout -----------------------------------------------------------------------------------------------------


def _rackcost() -> str:
    return str(Path(sys.executable).with_name("rackcost"))


def test_a_closed_stdout_ends_quietly() -> None:
    """``rackcost evaluate -f json | head -c 10``: the pipe closes early; no traceback, no error line."""
    done = subprocess.run(
        f"{_rackcost()} evaluate -f json | head -c 10 > /dev/null", shell=True, capture_output=True, text=True,
        timeout=120, check=False,
    )  # fmt: skip
    assert "Traceback" not in done.stderr and "Error" not in done.stderr, done.stderr
    assert done.stderr == ""


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full (Linux) to fill stdout")
def test_a_full_stdout_is_one_error_line() -> None:
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [_rackcost(), "evaluate", "-f", "json"], stdout=full, stderr=subprocess.PIPE, text=True, timeout=120,
            check=False,
        )  # fmt: skip
    assert done.returncode == 1
    assert done.stderr.strip() == "error: cannot write to standard output: No space left on device", done.stderr


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full (Linux) to fill stdout")
@pytest.mark.parametrize("command", [("evaluate",), ("scenarios",), ("uncertainty", "-n", "200")])
def test_a_full_stdout_behind_a_table_is_one_error_line(command: tuple[str, ...]) -> None:
    """Rich's tables went to a full stdout with an OSError traceback."""
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [_rackcost(), *command], stdout=full, stderr=subprocess.PIPE, text=True, timeout=120, check=False
        )
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.strip().splitlines()[-1] == "error: cannot write to standard output: No space left on device"


@pytest.mark.parametrize("command", [("evaluate",), ("scenarios",), ("schema",)])
def test_a_closed_pipe_behind_a_table_ends_quietly(command: tuple[str, ...]) -> None:
    done = subprocess.run(
        f"{_rackcost()} {' '.join(command)} | head -c 1 > /dev/null", shell=True, capture_output=True, text=True,
        timeout=120, check=False,
    )  # fmt: skip
    assert done.stderr == "", done.stderr
