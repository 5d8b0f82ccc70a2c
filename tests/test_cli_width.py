"""The CLI at 80 and 120 columns (issue 22, item 6): every table fits ``COLUMNS`` without cutting a number or a name.

Each command runs at both widths through Typer's runner with ``COLUMNS`` set (the CLI's console honours it on a
pipe as on a terminal); its output must have no line wider than the width, no ellipsis and no ``None``, and the key
figures of the same command's ``--format json``, formatted as the tables show them, must appear whole.
"""

from __future__ import annotations

import io
import json
import os
import pty
import re
import subprocess
import sys
from pathlib import Path

import pytest
from rich.cells import cell_len
from rich.console import Console
from typer.testing import CliRunner

from rackcost.cli import app
from rackcost.cli.common import PIPED_WIDTH, console
from rackcost.cli.layout import Field, fitted_table, print_grid, print_records
from rackcost.display import count, input_value, pct, power_kw, ratio, usd_per_1k_requests
from rackcost.scenario.loading import bundled_scenarios

runner = CliRunner()
WIDTHS = (80, 120)
ROOT = Path(__file__).resolve().parents[1]
API = "deepseek-r1-own-vs-rent-vs-api"
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")


def run(width: int, *args: str) -> str:
    """The command's stdout at ``width`` columns, after checking that it fits."""
    result = runner.invoke(app, list(args), env={"COLUMNS": str(width)})
    assert result.exit_code == 0, result.output
    fits(result.stdout, width)
    return result.stdout


def fits(text: str, width: int) -> None:
    """No line wider than ``width``, nothing cut (no ellipsis) and nothing printed as ``None``."""
    wide = [line for line in text.splitlines() if cell_len(line) > width]
    assert not wide, f"{len(wide)} line(s) wider than {width}: {wide[0]!r}"
    assert "…" not in text
    assert "None" not in text


def whole(token: str, text: str) -> bool:
    """``token`` appears in ``text`` with no digit, letter, point or comma glued to either end (not a piece)."""
    return re.search(rf"(?<![\w.,]){re.escape(token)}(?![\w,]|\.\d)", text) is not None


def first_column(text: str) -> str:
    """The words of a table's first column, its wrapped lines joined."""
    return " ".join(line.split("│")[1].strip() for line in text.splitlines() if line.startswith("│"))


def data(*args: str) -> dict:
    result = runner.invoke(app, [*args, "--format", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("scenario", [None, API])
def test_evaluate_fits_and_shows_every_key_figure_whole(width: int, scenario: str | None) -> None:
    args = ["evaluate"] + ([scenario] if scenario else [])
    out = run(width, *args)
    result = data(*args)
    for s in result["systems"]:
        assert whole(s["system"], out)
        assert whole(usd_per_1k_requests(s["blended_usd_per_accepted_request"]), out), s["system"]
        if s["provisioned_replicas"] is not None:
            assert whole(count(s["provisioned_replicas"]), out)
    for p in result["points"]:
        assert whole(p["demand_point"], out)
        assert whole(usd_per_1k_requests(p["usd_per_accepted_request"]), out)
        if p["facility_power_kw"]:
            assert whole(power_kw(p["facility_power_kw"]), out)
    for c in result["comparison"]:
        assert whole(ratio(c["advantage_ratio"]), out)


def test_evaluate_shows_power_in_mw_above_1000_kw() -> None:
    out = run(80, "evaluate")
    assert "1.63 MW" in out and "937 kW" in out  # provisioned IT power of GB300 NVL72 and Jalapeño
    assert "K kW" not in out


@pytest.mark.parametrize("width", WIDTHS)
def test_compare_keeps_each_metric_to_two_lines_at_most(width: int) -> None:
    out = run(width, "compare")
    for c in data("compare")["comparison"]:
        fmt = usd_per_1k_requests if c["unit"] == "USD/request" else None
        if fmt is not None:
            assert whole(fmt(c["system_value"]), out) and whole(fmt(c["baseline_value"]), out)
        assert whole(ratio(c["advantage_ratio"]), out)
    rows = [line for line in out.splitlines() if line.startswith("│")]
    starts = [i for i, line in enumerate(rows) if re.search(r"\d", line.split("│")[2])]  # a row's first line
    assert max(b - a for a, b in zip(starts, [*starts[1:], len(rows)], strict=True)) <= 2


@pytest.mark.parametrize("width", WIDTHS)
def test_scenarios_prints_every_file_name_whole(width: int) -> None:
    out = run(width, "scenarios")
    for path in bundled_scenarios():
        assert whole(path.name, out)
    for name in ("default-demand-x-electricity.yaml", "gaudi-tp-precision-x-demand.yaml"):
        assert whole(name, out)


@pytest.mark.parametrize("width", WIDTHS)
def test_tornado_names_inputs_in_words_and_fits(width: int) -> None:
    out = run(width, "tornado")
    labels = first_column(out)  # labels wrap inside their column
    assert "Jalapeño: capex per accelerator [USD]" in labels and "electricity price [USD/kWh]" in labels
    assert "systems[" not in out and "facility.pue" not in out  # no YAML paths where there are words
    for r in data("tornado")["tornado"]:
        for end in ("low_value", "high_value"):
            assert whole(input_value(r[end], r["input"], words=False), out)
        for system in ("GB300 NVL72", "Jalapeño"):
            assert whole(usd_per_1k_requests(r[f"{system}@low"]), out)


@pytest.mark.parametrize("width", WIDTHS)
def test_breakeven_names_the_input_in_words(width: int) -> None:
    out = run(width, "breakeven", "--input", "systems[1].costs.capex_usd_per_accelerator")
    flat = " ".join(out.split())
    assert "Jalapeño: capex per accelerator [USD]" in flat
    assert "(systems[1].costs.capex_usd_per_accelerator)" in flat  # what was typed, beside the words


@pytest.mark.parametrize("width", WIDTHS)
def test_sweep_titles_its_axes_in_words(width: int) -> None:
    out = run(width, "sweep", "default-demand-x-electricity")
    assert "electricity price" in out and "demand scale" in out
    assert "facility.electricity_usd_per_kwh" not in out


@pytest.mark.parametrize("width", WIDTHS)
def test_site_fits_and_shows_mw(width: int) -> None:
    out = run(width, "site", "--max-it-power-kw", "5000")
    assert "5 MW" in out
    for row in data("site", "--max-it-power-kw", "5000")["site"]:
        assert whole(row["system"], out) and whole(f"{row['accelerators']:,}", out)


@pytest.mark.parametrize("width", WIDTHS)
def test_uncertainty_simulate_and_reconcile_fit(width: int) -> None:
    run(width, "uncertainty", "-n", "1000")
    run(width, "simulate", "--requests", "2000", "--point", "peak", "--system", "Jalapeño", "--replications", "2")
    run(width, "reconcile", "deepseek-r1-b200-vs-gb200-inferencex", "--system", "DGX B200", "--tier",
        "b200:hyperscaler-owned")  # fmt: skip


def _cli() -> list[str]:
    return [sys.executable, "-c", "from rackcost.cli.entry import main; main()", "evaluate"]


def test_columns_is_honoured_on_a_pipe_and_on_a_terminal() -> None:
    env = {**os.environ, "COLUMNS": "80", "PYTHONPATH": str(ROOT / "src")}
    piped = subprocess.run(_cli(), env=env, capture_output=True, text=True, check=True).stdout
    fits(piped, 80)
    main, secondary = pty.openpty()
    process = subprocess.Popen(_cli(), env=env, stdin=secondary, stdout=secondary, stderr=subprocess.DEVNULL)
    os.close(secondary)
    chunks = []
    while True:
        try:
            chunk = os.read(main, 65536)
        except OSError:  # the terminal closed when the command ended
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(main)
    assert process.wait() == 0
    on_terminal = ANSI.sub("", b"".join(chunks).decode("utf-8")).replace("\r", "")
    fits(on_terminal, 80)
    assert whole("$0.802", on_terminal) and whole("$0.802", piped)  # the default's blended cost, GB300 NVL72


def test_without_columns_a_pipe_gets_the_default_width(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    assert console().width == PIPED_WIDTH  # not a terminal under pytest
    monkeypatch.setenv("COLUMNS", "93")
    assert console().width == 93
    monkeypatch.setenv("COLUMNS", "wide")  # not a number: ignored
    assert console().width == PIPED_WIDTH


def _printed(width: int, draw) -> str:
    out = Console(width=width, record=True, file=open(os.devnull, "w"))  # noqa: SIM115 - closed with the console
    draw(out)
    out.file.close()
    return out.export_text()


def test_a_table_too_wide_for_its_numbers_is_transposed_then_stacked() -> None:
    fields = [Field("name", "name"), *(Field(f"figure {i} [unit]") for i in range(8))]
    rows = [["alpha system", *(f"{i * 1_111_111:,}" for i in range(8))], ["beta", *("1" for _ in range(8))]]
    assert fitted_table(80, fields, rows) is None  # eight numbers of up to 9 characters and a name: 128 wide
    assert fitted_table(200, fields, rows) is not None
    transposed = _printed(80, lambda out: print_records(out, "t", fields, rows))
    fits(transposed, 80)
    assert whole("7,777,777", transposed) and whole("alpha system", transposed)
    stacked = _printed(26, lambda out: print_grid(out, "t", ["a long label"], [("a name too wide", ["12,345,678"])]))
    assert "a long label: 12,345,678" in stacked  # not even one column beside the labels: label: value lines


def test_a_name_prints_as_typed_even_when_it_spells_an_emoji_code(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rich replaces ``:fire:`` by an emoji by default; a system's name or a message is printed as written."""
    monkeypatch.setenv("COLUMNS", "80")
    out = console(file=io.StringIO())
    print_grid(out, "t", ["a:fire:b"], [(":thumbs_up:", [":100:"])])
    out.print("error: :fire:")
    text = out.file.getvalue()
    assert "a:fire:b" in text and ":thumbs_up:" in text and ":100:" in text and "error: :fire:" in text


@pytest.mark.parametrize(
    ("share", "shown"),
    [(0.996, "99.6%"), (0.9996, "99.96%"), (0.99999, "99.999%"), (1.0, "100.0%"), (0.0, "0.0%"), (4e-5, "0.004%")],
)
def test_a_share_is_never_rounded_to_100_or_0_percent(share: float, shown: str) -> None:
    assert pct(share) == shown
    assert pct(share, 0) != "100%" or share == 1.0


def test_power_switches_to_mw_above_1000_kw() -> None:
    assert [power_kw(x) for x in (999.4, 1000, 3530, 1.2e6)] == ["999 kW", "1 MW", "3.53 MW", "1.2 GW"]
