"""What the project reads, and what it refuses before reading (issue 19): only regular files within a size, a
file that is not a scenario never echoed, formulas kept out of imported text, work the machine cannot hold refused
before it starts, and the library's public functions checking their arguments at the edge."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import numpy as np
import pytest
import yaml
from typer.testing import CliRunner

import rackcost
from rackcost import ScenarioError, files
from rackcost.analysis import trace_files
from rackcost.cli import app
from rackcost.importers import read_csv_table_path, read_inferencex_paths
from rackcost.model.costs.finance import capital_recovery_factor
from rackcost.model.sim import simulation as sim
from rackcost.scenario.loading import MAX_SCENARIO_BYTES, NOT_A_SCENARIO
from reference import TWO_SYSTEMS

runner = CliRunner()

SECRET_LINES = ["root:$6$saltsalt$hashhashhash:20228:0:99999:7:::", "daemon:*:20228:0:99999:7:::", "api_key: sk-12345"]


def invoke(*args: object):
    return runner.invoke(app, [str(a) for a in args])


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "pipe.yaml"
    os.mkfifo(path)
    return path


# ---- special files ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("special", ["fifo", "/dev/zero", "/dev/null"])
def test_a_scenario_that_is_not_a_regular_file_is_refused_without_reading_it(special: str, fifo: Path) -> None:
    """A FIFO blocked the loader forever and /dev/zero grew memory without bound (both passed the size check)."""
    path = fifo if special == "fifo" else Path(special)
    with pytest.raises(ScenarioError, match="is not a regular file"):
        rackcost.load_scenario(path)
    result = invoke("evaluate", path)
    assert result.exit_code == 1 and "is not a regular file" in result.stderr


def test_every_reader_refuses_special_files(fifo: Path) -> None:
    for path in (fifo, Path("/dev/zero")):
        inferencex = read_inferencex_paths([path])
        assert not inferencex.ok and "is not a regular file" in inferencex.skipped[0].reason
        table = read_csv_table_path(path)
        assert not table.ok and "is not a regular file" in table.skipped[0].reason
        with pytest.raises(ValueError, match="is not a regular file"):
            trace_files.read_trace(path)


def test_the_size_is_checked_before_reading(tmp_path: Path) -> None:
    """A sparse file one byte over the limit: refused by its size from stat, not after reading it."""
    big = tmp_path / "big.yaml"
    with open(big, "wb") as f:
        f.truncate(MAX_SCENARIO_BYTES + 1)
    with pytest.raises(ScenarioError, match=f"file is {MAX_SCENARIO_BYTES + 1:,} bytes"):
        rackcost.load_scenario(big)
    huge_csv = tmp_path / "huge.csv"
    with open(huge_csv, "wb") as f:
        f.truncate(1_000_000_000)  # import csv read a whole 1 GB file before its 20 MB check
    table = read_csv_table_path(huge_csv)
    assert not table.ok and "is 1,000,000,000 bytes" in table.skipped[0].reason


def test_read_regular_file_stops_one_byte_past_the_limit(tmp_path: Path) -> None:
    small = tmp_path / "small.txt"
    small.write_bytes(b"x" * 10)
    assert files.read_regular_file(small, 10) == b"x" * 10
    with pytest.raises(files.InputFileError, match="is 10 bytes; a file may be at most 9") as info:
        files.read_regular_file(small, 9)
    assert info.value.too_big_bytes == 10


def test_read_regular_file_holds_about_the_file_not_the_limit(tmp_path: Path) -> None:
    """A 600-byte trace read under its 500 MB limit allocated a 500 MB buffer first (``read(limit + 1)``): a traced
    peak of 501 MB for 20 arrivals, found by the trace fuzzer. The read is in chunks, each at most what is left."""
    import tracemalloc

    small = tmp_path / "small.csv"
    small.write_bytes(b"x" * 600)
    tracemalloc.start()
    try:
        assert files.read_regular_file(small, 500_000_000) == b"x" * 600
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 10_000_000, peak


# ---- nothing of a file that is not a scenario is echoed ------------------------------------------------------------


@pytest.mark.parametrize("text", ["\n".join(SECRET_LINES) + "\n", "secret: 1\nsecret: 2\npassword: hunter2\n"])
def test_a_file_that_is_not_a_scenario_is_refused_without_echoing_it(tmp_path: Path, text: str) -> None:
    """A password file read as a scenario printed its lines, one unknown key each (duplicate keys too)."""
    path = tmp_path / "shadow"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ScenarioError) as info:
        rackcost.load_scenario(path)
    assert [p.message for p in info.value.problems] == [NOT_A_SCENARIO]
    result = invoke("validate", path)
    for secret in ("sk-12345", "hashhash", "daemon", "hunter2", "password", "secret"):
        assert secret not in result.stderr + result.stdout


def test_a_scenario_with_a_misspelt_block_still_names_it(tmp_path: Path) -> None:
    """The rule is for files with none of the blocks: a real scenario's typo is still named, with its line."""
    text = TWO_SYSTEMS.read_text(encoding="utf-8").replace("facility:", "facilty:", 1)
    path = tmp_path / "typo.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ScenarioError, match="facilty"):
        rackcost.load_scenario(path)


def test_json_nested_deeper_than_python_recurses_is_a_skipped_file(tmp_path: Path) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 5000 + "]" * 5000, encoding="utf-8")
    result = read_inferencex_paths([deep])
    assert not result.ok and "nested too deeply" in result.skipped[0].reason


def test_yaml_nested_deeply_is_a_clear_error(tmp_path: Path) -> None:
    deep = tmp_path / "deep.yaml"
    deep.write_text("name: " + "[" * 2000 + "]" * 2000 + "\n", encoding="utf-8")
    with pytest.raises(ScenarioError, match="not valid YAML"):
        rackcost.load_scenario(deep)


# ---- imported text ------------------------------------------------------------------------------------------------


def test_a_formula_in_an_imported_csv_cell_never_reaches_the_scenario(tmp_path: Path) -> None:
    """``import csv`` carried =HYPERLINK(...) into scenario fields; the row is skipped, saying why."""
    table = tmp_path / "points_1k1k.csv"
    table.write_text(
        "hardware,concurrency,throughput_tokens_per_s,tpot_ms,ttft_ms,source\n"
        '"=HYPERLINK(""http://x.example"")",8,1000,20,300,bench\n'
        "h100,8,1000,20,300,@SUM(1+1)\n"
        "h100,16,2000,25,350,bench\n"
        "h100,32,3000,30,400,-42\n",  # a signed number is not a formula
        encoding="utf-8",
    )
    result = read_csv_table_path(table)
    reasons = [s.reason for s in result.skipped]
    assert sum("is a spreadsheet formula" in r for r in reasons) == 2, reasons
    text = json.dumps([c.performance | c.provenance for c in result.curves]) + "".join(c.label for c in result.curves)
    assert "HYPERLINK" not in text and "@SUM" not in text
    assert sum(len(c.points) for c in result.curves) == 2


# ---- bounds checked before the work ---------------------------------------------------------------------------


def test_a_simulation_the_machine_cannot_hold_is_refused_before_it_starts(monkeypatch: pytest.MonkeyPatch) -> None:
    """``simulate --requests 1e8`` (the documented maximum) ran 352 s at 11.6 GB and crashed."""
    monkeypatch.setattr("rackcost.limits.available_memory_bytes", lambda: 1_000_000_000)
    calls = []
    monkeypatch.setattr("rackcost.evaluation.chain.evaluate_systems", lambda sc: calls.append(sc))
    scenario = rackcost.load_scenario(TWO_SYSTEMS)
    with pytest.raises(ValueError, match=r"100,000,000 simulated requests need about 30\.0 GB") as info:
        rackcost.simulate(scenario, requests=100_000_000)
    assert "this machine has 1.0 GB available: simulate at most 2,666,666 requests" in str(info.value)
    assert calls == []  # refused before the model ran
    result = invoke("simulate", TWO_SYSTEMS, "--requests", 100_000_000)
    assert result.exit_code == 1 and "simulate at most" in result.stderr and "Traceback" not in result.output


def test_a_trace_whose_arrivals_are_all_at_one_instant_is_refused(tmp_path: Path) -> None:
    """Simultaneous arrivals: 100% accepted at 0 requests/s before; a trace needs a span of time."""
    trace = tmp_path / "t.csv"
    trace.write_text("arrival_s,input_tokens,output_tokens\n" + "5.0,1000,500\n" * 30, encoding="utf-8")
    with pytest.raises(ValueError, match="every arrival is at one instant"):
        trace_files.read_trace(trace)


def test_utilisation_over_a_tiny_span_is_at_most_one() -> None:
    """A span of a few ulps gave utilisation 1.0000000000000002."""
    t0 = 1e6
    arrival = t0 + np.arange(5) * np.spacing(t0)
    run = sim.Run(
        arrival_s=arrival,
        start_s=np.full(5, t0 - 1.0),
        finish_s=np.full(5, t0 + 1.0),
        ttft_s=np.zeros(5),
        output_tokens=np.ones(5),
        dropped=np.zeros(5, dtype=bool),
        initial_finish_s=np.full(2, t0 + 1.0),
        total_slots=1,
    )
    stats = sim.run_statistics(run, 1.0, lo=0, hi=5)
    assert 0.0 <= stats["utilization_fraction"] <= 1.0


@pytest.mark.parametrize("price", [5e-324, 1e308, math.nan, math.inf, 0.0, -1.0])
def test_reconcile_refuses_a_price_the_factors_cannot_carry(price: float) -> None:
    """At 5e-324 or 1e308 $/GPU-hour the factors were infinite or NaN (and the JSON output a traceback)."""
    scenario = rackcost.load_scenario(rackcost.bundled_scenario_path("deepseek-r1-b200-vs-gb200-inferencex"))
    from rackcost.analysis.reconcile import reconcile

    with pytest.raises(ValueError, match="price per GPU-hour must be a number from 0.0001 to 100000"):
        reconcile(scenario, "DGX B200", price)
    result = invoke(
        "reconcile", "deepseek-r1-b200-vs-gb200-inferencex", "--system", "DGX B200", "--usd-per-gpu-hour", price,
        "-f", "json",
    )  # fmt: skip
    assert result.exit_code in (1, 2) and "Traceback" not in result.output


@pytest.mark.parametrize(("rate", "life"), [(math.nan, 5.0), (0.05, math.nan), (math.inf, 5.0), (0.05, math.inf)])
def test_the_capital_recovery_factor_refuses_what_is_not_a_finite_number(rate: float, life: float) -> None:
    """capital_recovery_factor(nan, 5) returned 1.032."""
    with pytest.raises(ValueError, match="must be finite"):
        capital_recovery_factor(rate, life)


@pytest.mark.parametrize("command", [("uncertainty", "-n", "50"), ("report", "-o", "r.html"), ("simulate",)])
def test_a_negative_seed_is_a_usage_error_not_a_traceback(command: tuple[str, ...], tmp_path: Path) -> None:
    """``--seed -1`` in uncertainty and report ended in numpy's traceback."""
    args = [a if a != "r.html" else str(tmp_path / "r.html") for a in command]
    result = invoke(args[0], TWO_SYSTEMS, *args[1:], "--seed", "-1")
    assert result.exit_code == 2 and "--seed" in result.output and "Traceback" not in result.output
    with pytest.raises(ValueError, match="seed must be a whole number >= 0"):
        rackcost.uncertainty(rackcost.load_scenario(TWO_SYSTEMS), 10, seed=-1)


# ---- the library's edge ---------------------------------------------------------------------------------------


def _scenario() -> rackcost.Scenario:
    return rackcost.load_scenario(TWO_SYSTEMS)


WRONG_CALLS = {
    "evaluate a path": (lambda: rackcost.evaluate(str(TWO_SYSTEMS)), TypeError, "rackcost.evaluate: scenario must be"),
    "evaluate a dict": (lambda: rackcost.evaluate({}), TypeError, "must be a Scenario"),
    "uncertainty with text samples": (lambda: rackcost.uncertainty(_scenario(), "10"), TypeError, "samples must be"),
    "uncertainty with float samples": (lambda: rackcost.uncertainty(_scenario(), 10.5), TypeError, "samples must be"),
    "uncertainty with no samples": (lambda: rackcost.uncertainty(_scenario(), 0), ValueError, "samples must be"),
    "tornado of a path": (lambda: rackcost.tornado("x.yaml"), TypeError, "rackcost.tornado: scenario must be"),
    "breakeven of a number path": (lambda: rackcost.breakeven(_scenario(), 3), TypeError, "input_path must be"),
    "simulate text requests": (lambda: rackcost.simulate(_scenario(), requests="x"), TypeError, "requests must be"),
    "simulate a bool seed": (lambda: rackcost.simulate(_scenario(), seed=True), TypeError, "seed must be"),
    "site budget in text": (lambda: rackcost.site_budget(_scenario(), "x"), TypeError, "max_it_power_kw must be"),
    "load a number": (lambda: rackcost.load_scenario(3), TypeError, "rackcost.load_scenario: path must be"),
    "yaml of a number": (lambda: rackcost.scenario_from_yaml(3), TypeError, "text must be the YAML text"),
    "report of a number": (lambda: rackcost.report(3), TypeError, "rackcost.report: scenario must be"),
}


@pytest.mark.parametrize("call", sorted(WRONG_CALLS))
def test_public_functions_say_what_they_expected(call: str) -> None:
    """Library calls with wrong types failed deep inside (AttributeError: 'str' object has no attribute ...)."""
    function, error, message = WRONG_CALLS[call]
    with pytest.raises(error, match=message):
        function()


def test_the_bundled_scenarios_still_load() -> None:
    """The new refusals take nothing that loaded before."""
    for path in rackcost.bundled_scenarios():
        assert isinstance(rackcost.load_scenario(path), rackcost.Scenario)
        assert yaml.safe_load(path.read_text(encoding="utf-8"))["name"]
