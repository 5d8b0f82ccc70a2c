"""``rackcost trace`` (rackcost.cli.trace): published formats read and named, a window cut, a superposition to a
target rate, the dispersion figures in every output, ``--write-trace`` for ``rackcost simulate --trace``, and
``simulate --trace`` reading the published formats itself."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

import rackcost
from rackcost.analysis.trace_files import read_trace
from rackcost.cli.entry import app
from reference import TWO_SYSTEMS

TRACES = Path(__file__).parent / "data" / "traces"


def _run(*args: object) -> tuple[int, str]:
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert "Traceback" not in result.output, result.output
    return result.exit_code, result.output


def test_trace_is_its_own_command_with_help() -> None:
    code, out = _run("trace", "--help")
    assert code == 0 and "--scale-to" in out and "--trace-format" in out and "--write-trace" in out


def test_the_format_found_and_the_columns_used_are_named() -> None:
    code, out = _run("trace", TRACES / "azure_conv_small.csv")
    assert code == 0, out
    assert "Azure LLM inference trace CSV" in out and "columns TIMESTAMP, ContextTokens, GeneratedTokens" in out
    code, out = _run("trace", TRACES / "mooncake_ticks.jsonl", "--format", "json")
    data = json.loads(out)
    assert (data["format"], data["columns"], data["read_requests"]) == (
        "mooncake",
        ["timestamp", "input_length", "output_length", "hash_ids"],
        60,
    )
    assert data["zero_gap_fraction"] == pytest.approx(54 / 59) and data["findings"][0].startswith("ticks:")
    code, out = _run("trace", TRACES / "azure_conv_small.csv", "--trace-format", "mooncake")
    assert code == 1 and "azure_conv_small.csv: line 1: not a JSON object" in out


def test_json_and_csv_carry_the_same_figures() -> None:
    _, out = _run("trace", TRACES / "silences.csv", "--format", "json")
    data = json.loads(out)
    _, text = _run("trace", TRACES / "silences.csv", "--format", "csv")
    (row,) = list(csv.DictReader(io.StringIO(text)))
    for entry in data["index_of_dispersion"]:
        assert float(row[f"index_of_dispersion_{entry['time_scale_s']:g}_s"]) == pytest.approx(entry["index"])
    assert row["index_of_dispersion_3600_s"] == ""  # too long for 8 windows: an empty cell, as null in JSON
    for entry in data["effective_arrival_scv"]:
        cell = row[f"effective_arrival_scv_{entry['service_s']:g}_s"]
        assert (cell == "") if entry["arrival_scv"] is None else float(cell) == pytest.approx(entry["arrival_scv"])
    assert int(row["silences"]) == data["silences"] == 2 and row["findings"] == " | ".join(data["findings"])


def test_a_window_scaled_by_superposition_is_written_for_the_simulator(tmp_path: Path) -> None:
    out_csv = tmp_path / "scaled.csv"
    args = ["--start", 1, "--duration", 15, "--scale-to", 20, "--seed", 7, "--write-trace", out_csv]
    code, out = _run("trace", TRACES / "azure_conv_small.csv", *args, "--format", "json")
    assert code == 0, out
    data = json.loads(out.split("\n", 1)[1] if out.startswith("wrote") else out[out.index("{") :])
    written = read_trace(out_csv)
    assert written.source_format == "csv" and written.arrival_s.size == data["requests"]
    assert abs(written.arrival_rps - 20) < 1 and data["superposition"]["copies"] >= 2
    assert data["window"] == {"start_s": 1.0, "duration_s": 15.0} and data["superposition"]["seed"] == 7
    # the same seed writes the same trace; the simulator replays it as it is
    again = tmp_path / "again.csv"
    _run("trace", TRACES / "azure_conv_small.csv", *args[:-1], again)
    assert again.read_text(encoding="utf-8") == out_csv.read_text(encoding="utf-8")


def test_simulate_reads_the_published_formats_itself() -> None:
    """``simulate --trace`` read only rackcost's CSV: the Azure and Mooncake files were refused for a missing
    ``arrival_s`` column."""
    for name in ("azure_conv_small.csv", "mooncake_small.jsonl"):
        rows = rackcost.simulate(rackcost.load_scenario(TWO_SYSTEMS), system="B", trace=TRACES / name)
        assert rows and rows[0]["requests"] == 40


def test_into_names_the_superposition_in_its_source(tmp_path: Path) -> None:
    args = ["trace", TRACES / "silences.csv", "--scale-to", 3, "--seed", 2, "--into", TWO_SYSTEMS, "--point", "peak"]
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    data = yaml.safe_load(result.stdout)
    peak = next(d for d in data["demand"] if d["name"] == "peak")
    assert peak["arrival_rps"] == pytest.approx(3, abs=0.05) and "arrival_scv" not in peak
    source = peak["arrival_dispersion"]["source"]
    assert source.startswith("silences.csv, csv, 60 requests over ") and source.endswith(" to 3 rps, seed 2")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--start", 1e6], "holds 0 requests"),
        (["--scale-to", 1e9], "silences.csv: the target rate must be from 1e-06 to 1e+07 requests/s"),
        (["--scale-to", 1e7], "more than the 100,000,000 a superposed trace may hold"),
        (["--write-trace", TRACES / "silences.csv"], "is the input file"),
    ],
)
def test_what_it_cannot_do_is_one_line(args: list[object], message: str) -> None:
    code, out = _run("trace", TRACES / "silences.csv", *args)
    assert code != 0 and message in out, out
    assert len(out.strip().splitlines()) <= 3  # Typer's own usage errors keep their box; ours are one line


def test_write_trace_needs_token_counts(tmp_path: Path) -> None:
    path = tmp_path / "arrivals.csv"
    path.write_text("arrival_s\n" + "".join(f"{0.3 * k}\n" for k in range(40)), encoding="utf-8")
    code, out = _run("trace", path, "--write-trace", tmp_path / "out.csv")
    assert code == 1 and "needs the columns arrival_s, input_tokens, output_tokens" in out
    assert len(out.strip().splitlines()) == 1


def _lru_share(path: Path, capacity_tokens: float | None) -> float:
    """The share the library measures (its LRU is checked against brute force in tests/test_prefix_cache.py): what
    the command must print, for the trace as read."""
    from rackcost.cli.trace_prefix import prefix_requests_of
    from rackcost.model.workload.prefix_cache import hit_fraction, lru_hit_tokens

    requests, _ = prefix_requests_of(read_trace(path))
    return hit_fraction(lru_hit_tokens(requests, capacity_tokens), requests.input_tokens)


def test_prefix_reuse_is_measured_from_the_block_hashes() -> None:
    path = Path(__file__).parent / "data" / "prefix_trace.jsonl"
    code, out = _run("trace", path, "--cache-tokens", 2048, "-f", "json")
    assert code == 0, out
    rows = json.loads(out)["prefix_reuse"]
    assert [(r["cache"], r["cache_tokens"]) for r in rows] == [("shared", 2048)]
    assert rows[0]["hit_fraction"] == pytest.approx(_lru_share(path, 2048), abs=1e-12)
    default = json.loads(_run("trace", path, "-f", "json")[1])["prefix_reuse"]
    assert [r["cache_tokens"] for r in default] == [None, 1_000_000, 10_000_000]
    assert default[0]["hit_fraction"] == pytest.approx(_lru_share(path, None), abs=1e-12)
    assert json.loads(_run("trace", TRACES / "silences.csv", "-f", "json")[1]).get("prefix_reuse") is None


def test_into_with_prefix_writes_the_measured_hit_share(tmp_path: Path) -> None:
    path = Path(__file__).parent / "data" / "prefix_trace.jsonl"
    args = ["trace", path, "--into", TWO_SYSTEMS, "--point", "peak", "--prefix"]
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    data = yaml.safe_load(result.stdout)
    (only,) = data["workload"]["classes"]
    written = next(line for line in result.stderr.splitlines() if line.endswith("(written)"))
    # the first system's replicas, each its own unbounded cache (no KV memory given) under the scenario's router:
    # never more than one unbounded cache shared by the fleet
    assert "per replica cache of unbounded" in written
    assert only["prefix_hit_fraction"] == pytest.approx(float(written.split(": ")[-1].split()[0]), abs=1e-3)
    assert 0 < only["prefix_hit_fraction"] <= _lru_share(path, None)
    figure = data["figures"]["workload.classes[0].prefix_hit_fraction"]
    assert figure["provenance"] == "independent" and "prefix_trace.jsonl" in figure["source"]
    assert "routing" in figure["source"]
    rackcost.scenario_from_dict(data)
    code, out = _run("trace", TRACES / "silences.csv", "--into", TWO_SYSTEMS, "--prefix")
    assert code != 0 and "--prefix needs a trace with prefix block hashes" in out
    code, out = _run("trace", path, "--prefix")
    assert code != 0 and "give --into SCENARIO too" in out


def test_the_rate_within_the_hour_is_the_span_in_the_hours_windows() -> None:
    """hour_windows: the span cut into 3600 / window_s equal windows (a trace of 58 minutes stands for its hour), each
    window's count over their mean; none where a window would be under a minute (the pointwise stationary
    approximation's floor), and a window that does not divide an hour is refused."""
    import numpy as np

    from rackcost.analysis.trace_measures import hour_windows

    # 58 minutes, the last twenty at 1.5 times the rate of the first 38: six windows of 580 s
    t = np.concatenate([np.linspace(0.0, 2280.0, 3800, endpoint=False), np.linspace(2280.0, 3480.0, 3000)])
    ratios = hour_windows(t, 600.0)
    counts = np.histogram(t, bins=6, range=(0.0, 3480.0))[0]
    raw = counts / counts.mean()
    kept = 1.0 - (1.0 / counts.mean()) / np.var(raw, ddof=1)  # the share of the spread counting noise leaves
    assert 0.95 < kept < 1.0
    assert ratios == pytest.approx(list(1.0 + kept * (raw - 1.0)), rel=1e-12) and len(ratios) == 6
    assert sum(ratios) == pytest.approx(6.0, rel=1e-12) and max(ratios) > 1.2 > 0.9 > min(ratios)
    assert len(hour_windows(t, 300.0)) == 12
    assert hour_windows(np.linspace(0.0, 300.0, 100), 600.0) == ()  # 50 s windows: too short
    assert hour_windows(np.linspace(0.0, 3600.0, 6000), 600.0) == ()  # a constant rate: no spread beyond the noise
    # a Poisson hour at 5 requests/s: its windows' spread is mostly counting noise, shrunk towards 1
    poisson = np.sort(np.random.default_rng(0).uniform(0.0, 3600.0, 18_000))
    raw_poisson = np.histogram(poisson, bins=6, range=(0.0, float(poisson.max() - poisson.min())))[0]
    shrunk = hour_windows(poisson, 600.0)
    assert not shrunk or np.ptp(shrunk) < np.ptp(raw_poisson / raw_poisson.mean())
    with pytest.raises(ValueError, match="does not divide an hour"):
        hour_windows(t, 700.0)


@pytest.mark.parametrize("into", [False, True], ids=["measured", "into a scenario"])
def test_block_hashes_that_outnumber_a_requests_input_are_refused_in_one_line(tmp_path: Path, into: bool) -> None:
    """A Mooncake row whose hash_ids need more 512-token blocks than its input_length fills (2 blocks, 1 token) is a
    user's data error: refused in one line naming the file and the request, never a traceback (the trace fuzzer
    found the traceback where the prefix blocks are laid out, after the file had been read)."""
    rows = [{"timestamp": t * 1_000, "input_length": 600, "output_length": 5, "hash_ids": [1, 2]} for t in range(4000)]
    rows.append({"timestamp": 4_000_000, "input_length": 1, "output_length": 1, "hash_ids": [0, 0]})
    path = tmp_path / "mooncake.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    args = ["trace", path]
    if into:
        scenario = tmp_path / "s.yaml"
        scenario.write_text(TWO_SYSTEMS.read_text(encoding="utf-8"), encoding="utf-8")
        args += ["--into", scenario, "--prefix", "--output", tmp_path / "out.yaml"]
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    said = result.output.strip()
    assert said.count("\n") == 0 and str(path) in said and "request 4000" in said and "would hold no token" in said
