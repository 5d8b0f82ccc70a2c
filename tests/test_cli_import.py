"""``rackcost import inferencex | csv``: summary, YAML that pastes into a scenario, exit codes, no tracebacks."""

from __future__ import annotations

import glob
import re
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

import inferencex_files
import rackcost
from rackcost.cli import app
from reference import TWO_SYSTEMS

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[1]
# The invented InferenceX-format fixtures (inferencex_files.py): two twin runs and a stage-C array of four curves
FIXTURE_FILES = [str(p) for p in inferencex_files.FIXTURE_FILES]
ARRAY = str(inferencex_files.ARRAY)
BAD = Path(__file__).resolve().parent / "data" / "importers"


def _run(*args: str):
    result = runner.invoke(app, ["import", *args])
    # user errors end in SystemExit (typer.Exit), never in another exception with a traceback
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    return result


def _pastes(entries: dict) -> None:
    """Every curve entry pastes into a system of a scenario that then loads."""
    template = yaml.safe_load(TWO_SYSTEMS.read_text(encoding="utf-8"))
    for label, entry in entries.items():
        data = dict(template)
        tp = int(label.split(" tp")[1].split()[0].split("-")[0])
        system = {**template["systems"][0], "name": label, **entry}
        system["hardware"] = {**system["hardware"], "accelerators_per_replica": tp}
        data["systems"] = [system]
        data["slo"] = {"ttft_limit_ms": 60_000, "tpot_limit_ms": 1_000}
        rackcost.scenario_from_dict(data, "pasted.yaml")


def test_import_all_fixtures_prints_summary_and_yaml():
    result = _run("inferencex", *FIXTURE_FILES)
    assert result.exit_code == 0, result.output
    assert "Imported 6 curve(s)" in result.stderr  # two twin runs and four curves of the array
    assert "mi300x dense-70b-instruct fp8 vllm tp4 1024/1024" in result.stderr
    # the two raw files (same runs as their aggregates) and the H100 row without ISL/OSL
    assert "Skipped 3 file(s) or row(s)" in result.stderr and "isl/osl" in result.stderr
    assert result.stderr.count("same run as") == 2
    assert "source_file name (1k1k)" in result.stderr
    entries = yaml.safe_load(result.stdout)  # stdout holds only the YAML
    assert len(entries) == 6
    _pastes(entries)


@pytest.mark.data
def test_import_all_real_inferencex_files_prints_summary_and_yaml(real_inferencex: Path):
    files = [str(real_inferencex / n) for n in inferencex_files.REAL_FILES]
    result = _run("inferencex", *files)
    assert result.exit_code == 0, result.output
    assert "Imported 8 curve(s)" in result.stderr
    assert "gaudi25 Llama-3.3-70B-Instruct fp8 vllm tp8 1024/1024" in result.stderr
    assert "Skipped 3 file(s) or row(s)" in result.stderr and "isl/osl" in result.stderr
    entries = yaml.safe_load(result.stdout)
    assert len(entries) == 8
    _pastes(entries)


def test_the_readme_example_runs_as_written_and_says_what_the_readme_says(monkeypatch: pytest.MonkeyPatch):
    readme = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    section = readme.split("## Importing benchmark results", 1)[1].split("\n## ", 1)[0]
    (command,) = re.findall(r"`(rackcost import inferencex [^`]*)`", section)
    words = command.split()[1:]
    monkeypatch.chdir(ROOT)  # run from the repository root, the shell's glob expanded as a shell would
    args = [match for word in words for match in (sorted(glob.glob(word)) if "*" in word else [word])]
    assert all(not Path(a).is_absolute() and (ROOT / a).is_file() for a in args[2:]), args
    result = _run(*args[1:])
    assert result.exit_code == 0, result.output
    said = re.search(r"reads (\w+) curves and skips (\w+) items", " ".join(section.split()))
    assert said, "the README says how many curves the example reads"
    numbers = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8}
    assert f"Imported {numbers[said.group(1)]} curve(s)" in result.stderr
    assert f"Skipped {numbers[said.group(2)]} file(s) or row(s)" in result.stderr
    assert len(yaml.safe_load(result.stdout)) == numbers[said.group(1)]


def test_output_file_and_summary_on_stdout(tmp_path: Path):
    out = tmp_path / "curves.yaml"
    result = _run("inferencex", ARRAY, "--isl", "1024", "--osl", "1024", "--output", str(out))
    assert result.exit_code == 0
    assert "Imported 5 curve(s)" in result.stdout and f"wrote {out}" in result.stdout
    assert "Skipped" not in result.stdout
    entries = yaml.safe_load(out.read_text(encoding="utf-8"))
    h100 = entries["h100 dense-70b-instruct-fp8 fp8 vllm tp2 1024/1024"]
    assert "option --isl/--osl" in h100["provenance"]["notes"]


def test_median_percentile():
    p99 = yaml.safe_load(_run("inferencex", ARRAY, "--only", "tp=4", "--only", "precision=fp8").stdout)
    med = yaml.safe_load(
        _run("inferencex", ARRAY, "--only", "tp=4", "--only", "precision=fp8", "--percentile", "median").stdout
    )
    (a,), (b,) = p99.values(), med.values()
    # the TP4 FP8 row at concurrency 4: TTFT 0.128 s at p99, 0.071 s at the median
    assert (a["performance"]["points"][0]["ttft_ms"], b["performance"]["points"][0]["ttft_ms"]) == (128, 71)
    assert "at median" in b["provenance"]["notes"]


def test_system_entry_for_one_curve():
    result = _run("inferencex", ARRAY, "--system", "MI300X TP4 FP8", "--only", "tp=4", "--only", "precision=fp8")
    assert result.exit_code == 0
    assert "FILL IN" in result.stdout
    (entry,) = yaml.safe_load(result.stdout)
    assert entry["name"] == "MI300X TP4 FP8" and entry["hardware"]["accelerators_per_replica"] == 4
    assert entry["provenance"]["class"] == "independent"
    assert "9 row(s) left out by --only" in result.stderr  # the other three curves' three rows each


def test_mixed_curves_with_system_name_the_differing_keys(tmp_path: Path):
    out = tmp_path / "system.yaml"
    result = _run("inferencex", ARRAY, "--system", "MI300X", "--output", str(out))
    assert result.exit_code == 1
    assert "the files hold 4 curves that differ in" in result.stderr
    assert "precision (bf16, fp8)" in result.stderr and "tensor_parallel (2, 4)" in result.stderr
    assert "omit --system" in result.stderr
    assert not out.exists()
    # two single-point files of different tp, passed as one system
    mixed = _run(
        "inferencex", str(BAD / "agg_power_1k1k_conc16.json"), str(BAD / "agg_tp4_1k1k_conc8.json"), "--system", "X"
    )
    assert mixed.exit_code == 1 and "tensor_parallel (4, 8)" in mixed.stderr


def test_bad_files_are_skipped_and_the_rest_imported():
    bad = [str(p) for p in sorted(BAD.glob("*.json"))]
    result = _run("inferencex", *bad, ARRAY)
    assert result.exit_code == 0
    for reason in ("not an InferenceX result", "truncated", "tput_per_gpu", "p99_ttft_ms", "0 requests completed"):
        assert reason in result.stderr, reason


def test_nothing_imported_exits_1():
    result = _run("inferencex", str(BAD / "other_schema.json"), str(BAD / "missing.json"))
    assert result.exit_code == 1
    assert "nothing imported" in result.stderr and "no such file" in result.stderr
    assert result.stdout == ""


def test_bad_options_exit_1():
    assert _run("inferencex", ARRAY, "--isl", "1024").exit_code == 1
    result = _run("inferencex", ARRAY, "--only", "colour=red")
    assert result.exit_code == 1 and "unknown curve key" in result.stderr
    assert _run("inferencex", ARRAY, "--percentile", "p42").exit_code == 2  # typer's own usage error


def test_csv_command(tmp_path: Path):
    result = _run("csv", str(BAD / "good_1k1k.csv"), "--provenance-class", "vendor")
    assert result.exit_code == 0
    assert "Imported 1 curve(s)" in result.stderr and "board (measured)" in result.stderr
    (entry,) = yaml.safe_load(result.stdout).values()
    assert entry["provenance"]["class"] == "vendor"
    bad = _run("csv", str(BAD / "bad_rows.csv"), "--system", "Acme", "--gpus-per-replica", "4")
    assert bad.exit_code == 0 and "Skipped 3" in bad.stderr
    (entry,) = yaml.safe_load(bad.stdout)
    assert entry["hardware"]["accelerators_per_replica"] == 4
    none = _run("csv", str(BAD / "other_schema.json"))
    assert none.exit_code == 1 and "column missing" in none.stderr


def test_a_folder_without_json_files_says_so_in_one_line(tmp_path: Path):
    """Issue 11: ``import inferencex DIR`` on a folder with no JSON files did not say so."""
    (tmp_path / "notes.txt").write_text("not a result", encoding="utf-8")
    result = _run("inferencex", str(tmp_path))
    assert result.exit_code == 1
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert str(tmp_path) in lines[0] and "no .json files in this folder" in lines[0]


def test_a_folder_with_json_files_beside_an_empty_one_imports(tmp_path: Path):
    result = _run("inferencex", str(tmp_path), ARRAY)
    assert result.exit_code == 0, result.output
    assert "Imported 4 curve(s)" in result.stderr


def test_summary_says_measured_or_nominal_tokens_per_request():
    short = str(BAD / "raw_short_requests_1k1k_fp8_vllm_tp8_conc16.json")  # 160 requests of 517 + 469 tokens
    result = _run("inferencex", short, ARRAY, "--isl", "1024", "--osl", "1024")
    assert result.exit_code == 0, result.output
    summary = " ".join(result.stderr.split())  # the table and notes wrap
    assert "tokens per request are the measured means 517.0 input + 469.0 output, not the nominal 1024/1024" in summary
    assert "ISL/OSL nominal for 5 curve(s)" in summary  # the array's five curves carry no counts
    entries = yaml.safe_load(result.stdout)
    short_entry = next(e for label, e in entries.items() if "DeepSeek-R1" in label)
    assert short_entry["performance"]["benchmark_input_tokens"] == 517
    assert short_entry["performance"]["benchmark_output_tokens"] == 469
    assert "measured mean 517.0 input + 469.0 output" in short_entry["provenance"]["notes"]
