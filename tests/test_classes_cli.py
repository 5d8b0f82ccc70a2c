"""Request classes through the CLI: every bad input is one error line at its file, YAML path and line, saying what
was expected (exit 1, no traceback, nothing evaluated half-way); the classes table in JSON, CSV and the printed
output, within 80 columns."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest
from rich.cells import cell_len
from typer.testing import CliRunner

from rackcost.cli import app
from reference import DATA, TWO_SYSTEMS

runner = CliRunner()
THREE_CLASSES = DATA / "three_classes.yaml"
TEXT = THREE_CLASSES.read_text(encoding="utf-8")


def invoke(*args: object, width: int | None = None):
    env = None if width is None else {"COLUMNS": str(width)}
    return runner.invoke(app, [str(a) for a in args], env=env)


def edited(tmp_path: Path, old: str, new: str) -> Path:
    assert old in TEXT, old
    path = tmp_path / "classes.yaml"
    path.write_text(TEXT.replace(old, new, 1), encoding="utf-8")
    return path


def line_of(text: str, snippet: str) -> int:
    return text[: text.index(snippet)].count("\n") + 1


# each case: (what is replaced, by what, the YAML path, the words that say what was expected, the line it names)
BAD = {
    "shares do not add up to 1": (
        "share_fraction: 0.15",
        "share_fraction: 0.05",
        "workload.classes",
        "share_fraction must add up to 1, got 0.9 (chat 0.6 + reasoning 0.25 + agentic 0.05)",
        "classes:",
    ),
    "a CDF that falls": (
        "[4000, 0.5], [8000, 0.9]",
        "[4000, 0.5], [8000, 0.4]",
        "workload.classes[2].input_tokens.table[2]",
        "a CDF is monotone: cumulative fraction 0.4 after 0.5",
        "table:",
    ),
    "a CDF that does not end at 1": (
        "[16000, 1.0]",
        "[16000, 0.97]",
        "workload.classes[2].input_tokens.table[3]",
        "a CDF ends at 1: the last cumulative fraction is 0.97",
        "table:",
    ),
    "tokens that do not rise": (
        "[8000, 0.9]",
        "[3000, 0.9]",
        "workload.classes[2].input_tokens.table[2]",
        "tokens must rise from row to row: 3000 after 4000",
        "table:",
    ),
    "names that repeat": (
        "name: reasoning",
        "name: chat",
        "workload.classes",
        "class names must be unique: 'chat' repeat",
        "classes:",
    ),
    "a parameter distribution for a length": (
        "output_tokens: 150",
        "output_tokens: {dist: triangular, low: 100, mode: 150, high: 200}",
        "workload.classes[2].output_tokens",
        "for how a class's requests vary in length write a per-request length distribution, {lengths: lognormal",
        "output_tokens: {dist",
    ),
    "an unknown length distribution": (
        "{lengths: gamma, mean: 400, cv: 0.8}",
        "{lengths: weibull, mean: 400, cv: 0.8}",
        "workload.classes[0].output_tokens.lengths",
        "must be 'fixed', 'lognormal', 'gamma' or 'cdf', got 'weibull'",
        "output_tokens: {lengths: weibull",
    ),
    "a length distribution without its mean": (
        "{lengths: lognormal, mean: 1500, cv: 0.6}",
        "{lengths: lognormal, cv: 0.6}",
        "workload.classes[1].output_tokens.mean",
        "lengths: lognormal needs mean and cv",
        "output_tokens: {lengths: lognormal, cv",
    ),
    "a prefix hit of the whole input": (
        "prefix_hit_fraction: 0.85",
        "prefix_hit_fraction: 1.0",
        "workload.classes[2].prefix_hit_fraction",
        "must be <= 0.999, got 1.0",
        "prefix_hit_fraction",
    ),
    "an output spread given both ways": (
        "  precision: fp8\n",
        "  precision: fp8\n  output_tokens_cv_fraction: 0.5\n",
        "workload.output_tokens_cv_fraction",
        "not with classes: give each class's output_tokens as a length distribution",
        "output_tokens_cv_fraction",
    ),
    "a nominal ISL that is not the mix's": (
        "  precision: fp8\n",
        "  precision: fp8\n  input_tokens_per_request: 1000\n",
        "workload.input_tokens_per_request",
        "with classes it is the mix's mean, 1,530 tokens, got 1,000",
        "input_tokens_per_request",
    ),
    "a rate swing with classes": (
        "{name: peak, arrival_rps: 20, hours_per_day: 6}",
        "{name: peak, arrival_rps: 20, hours_per_day: 6, rate_swing: {amplitude_fraction: 0.2, period_s: 600}}",
        "demand[2].rate_swing",
        "a rate swing with workload.classes is not modelled yet",
        "{name: peak",
    ),
}


@pytest.mark.parametrize("command", ["validate", "evaluate"])
@pytest.mark.parametrize("case", sorted(BAD))
def test_a_bad_class_input_is_one_error_at_its_yaml_path(tmp_path: Path, command: str, case: str) -> None:
    old, new, path, expected, at = BAD[case]
    bad = edited(tmp_path, old, new)
    result = invoke(command, bad)
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output
    line = line_of(bad.read_text(encoding="utf-8"), at)
    errors = [x for x in result.stderr.splitlines() if x.startswith("error:")]
    assert errors, result.stderr
    wanted = f"error: {bad}:{line}: {path}: "
    assert any(x.startswith(wanted) and expected in x for x in errors), (wanted, expected, result.stderr)
    assert not result.stdout.strip() or command == "validate"  # nothing evaluated half-way


def test_the_classes_table_in_json_and_csv() -> None:
    result = invoke("evaluate", THREE_CLASSES, "--format", "json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["classes"]
    assert len(rows) == 2 * 3 * 3 and {r["class"] for r in rows} == {"chat", "reasoning", "agentic"}
    csv_result = invoke("evaluate", THREE_CLASSES, "--format", "csv", "--table", "classes")
    assert csv_result.exit_code == 0, csv_result.output
    table = list(csv.DictReader(io.StringIO(csv_result.stdout)))
    assert [r["class"] for r in table] == [r["class"] for r in rows]


def test_the_classes_table_of_a_scenario_without_classes_is_an_error() -> None:
    result = invoke("evaluate", TWO_SYSTEMS, "--format", "csv", "--table", "classes")
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "--table classes: the scenario has no workload.classes" in result.stderr


@pytest.mark.parametrize("width", [80, 120])
def test_the_printed_classes_fit_the_width(width: int) -> None:
    result = invoke("evaluate", THREE_CLASSES, width=width)
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert all(cell_len(line) <= width for line in text.splitlines())
    assert "…" not in text and "None" not in text
    for system in ("A", "B"):
        assert f"Request classes: {system}" in text
    for name in ("chat", "reasoning", "agentic"):
        assert re.search(rf"{name}: p99 TTFT", text)


def test_one_shape_prints_no_classes_table() -> None:
    result = invoke("evaluate", TWO_SYSTEMS)
    assert result.exit_code == 0 and "Request classes" not in result.stdout


def test_simulate_gives_a_row_per_class_and_one_for_the_mix() -> None:
    result = invoke("simulate", THREE_CLASSES, "--requests", "400", "--point", "peak", "--format", "json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["rows"]
    assert [r["class"] for r in rows if r["system"] == "B"] == [None, "chat", "reasoning", "agentic"]
    for r in rows:
        for figure in ("accepted_fraction", "ttft_p99_ms", "tpot_p99_ms"):
            assert {f"analytic_{figure}", f"simulated_{figure}", f"simulated_{figure}_ci95_halfwidth"} <= set(r)


@pytest.mark.parametrize("width", [80, 120])
def test_simulate_with_classes_fits_the_width(width: int) -> None:
    result = invoke("simulate", THREE_CLASSES, "--requests", "400", "--point", "peak", width=width)
    assert result.exit_code == 0, result.output
    assert max(cell_len(line) for line in result.stdout.splitlines()) <= width
    assert "class agentic" in result.stdout and "the mix" in result.stdout and "None" not in result.stdout


def test_simulate_with_classes_in_csv_keeps_every_class_column() -> None:
    args = ("--requests", "400", "--point", "peak", "--system", "B", "--format", "csv")
    result = invoke("simulate", THREE_CLASSES, *args)
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert [r["class"] for r in rows] == ["", "chat", "reasoning", "agentic"]  # the mix's row: an empty cell
    assert all(r["simulated_accepted_own_length_fraction"] for r in rows)
    assert rows[0]["simulated_utilization_fraction"] and not rows[1]["simulated_utilization_fraction"]


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("--rate-swing", "0.2:60"), "a rate swing with request classes is not modelled"),
        (("--arrival-scv", "3"), "--arrival-scv other than the demand point's is not simulated with classes"),
        (("--capacity",), "the capacity check does not bracket a mix of request classes"),
    ],
)
def test_simulate_refuses_what_it_does_not_referee_with_classes(args: tuple[str, ...], words: str) -> None:
    result = invoke("simulate", THREE_CLASSES, "--requests", "400", *args)
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert words in result.stderr
