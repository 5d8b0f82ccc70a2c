"""``rackcost import mlperf``: MLPerf Inference results read as MLCommons publishes them (a round's
summary_results.json, a run's mlperf_log_summary.txt), on small fixtures in those formats with invented numbers
(tests/data/mlperf/README.md), and on the package's table of published v5.1 results."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from rackcost.cli.entry import app
from rackcost.importers.mlperf import (
    MLPERF_FIELDS,
    PUBLISHED_SLOS,
    SLO_SOURCE,
    benchmark_of,
    mlperf_field_map_markdown,
    parse_log_summary,
    read_bundled_mlperf,
    read_log_summary,
    read_mlperf_paths,
    read_summary_table,
)
from rackcost.importers.mlperf_out import mlperf_entries, mlperf_to_yaml

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "mlperf"
TABLE = DATA / "summary_results.json"
SERVER_LOG = DATA / "closed/Acme/results/Box8_TRT/llama2-70b-99/Server/performance/run_1/mlperf_log_summary.txt"
INTERACTIVE_LOG = SERVER_LOG.parents[3] / "Interactive/performance/run_1/mlperf_log_summary.txt"
runner = CliRunner()


def _by(results, scenario, model="llama2-70b-99"):
    (found,) = [r for r in results if r.scenario == scenario and r.model == model]
    return found


def test_every_field_of_a_summary_table_row_is_read() -> None:
    result = read_summary_table(TABLE.name, TABLE.read_bytes())
    offline = _by(result.results, "Offline")
    assert offline.result_id == "9.9-0001" and offline.round == "v9.9" and offline.submitter == "Acme"
    assert offline.system == "Acme Box (8x Widget-1)" and offline.platform == "Box8_TRT"
    assert offline.model == "llama2-70b-99" and offline.benchmark == "llama2-70b" and offline.scenario == "Offline"
    assert offline.accelerator == "NVIDIA B200-SXM-180GB" and offline.accelerators == 8
    assert offline.precision == "fp4" and offline.software == "Engine 1.0, Runtime 2.0" and offline.category == "closed"
    assert offline.tokens_per_s == 40000.0 and offline.power_w == 9600.0 and offline.power_w_per_accelerator == 1200.0
    assert offline.notes == "invented for the tests" and offline.url == "https://example.org/results/Box8_TRT"
    assert offline.location == "closed/Acme/results/Box8_TRT/llama2-70b-99/Offline"
    assert offline.provenance_class == "vendor" and offline.log is None and offline.slo is None
    # a Server row without its log: MLPerf's published limits
    server = _by(result.results, "Server")
    assert server.slo == PUBLISHED_SLOS[("llama2-70b", "Server")] and server.slo.source == SLO_SOURCE
    assert (server.slo.ttft_limit_ms, server.slo.tpot_limit_ms) == (2000.0, 200.0)
    # a#=4 per node on 2 nodes: 8 accelerators
    rack = _by(result.results, "Offline", "deepseek-r1")
    assert rack.accelerators == 8
    # the image-benchmark row is counted in a note, the bad row skipped with its field and what was expected
    assert result.notes == ["summary_results.json: 1 row(s) of other benchmarks or suites left out"]
    (bad,) = result.skipped
    assert (bad.row, bad.field) == (5, "Performance_Result") and "expected a number, got text" in bad.reason


def test_a_runs_log_gives_its_rates_percentiles_and_limits_in_ms() -> None:
    r = read_log_summary(str(SERVER_LOG), SERVER_LOG.read_bytes())
    log = r.log
    assert log is not None and r.scenario == "Server" and r.submitter == "Acme" and r.platform == "Box8_TRT"
    assert r.benchmark == "llama2-70b" and r.category == "closed" and r.accelerators is None
    assert (log.request_rate_rps, log.tokens_per_s) == (125.0, 36000.0)
    assert (log.ttft_p99_ms, log.ttft_p50_ms, log.tpot_p99_ms, log.tpot_p50_ms) == (800.0, 400.0, 160.0, 125.0)
    assert (log.tpot_mean_ms, log.mean_latency_ms) == (120.0, 30000.0)
    assert r.slo is not None and (r.slo.ttft_limit_ms, r.slo.tpot_limit_ms) == (2000.0, 200.0)
    assert "run's log" in r.slo.source
    # output tokens per request = tokens/s / requests/s; requests decoding = output tokens/s x mean TPOT (Little)
    assert r.output_tokens_per_request == pytest.approx(36000.0 / 125.0, rel=1e-12)
    assert r.decoding_requests == pytest.approx(36000.0 * 0.120, rel=1e-12)


def test_an_interactive_run_logs_server_and_is_read_as_interactive() -> None:
    # LoadGen runs Interactive as a Server run with tighter limits: its log says Scenario : Server
    assert parse_log_summary(INTERACTIVE_LOG.read_text())["Scenario"] == "Server"
    r = read_log_summary(str(INTERACTIVE_LOG), INTERACTIVE_LOG.read_bytes())
    assert r.scenario == "Interactive" and r.slo is not None and r.slo.tpot_limit_ms == 40.0


def test_a_folder_pairs_each_log_with_its_table_row() -> None:
    result = read_mlperf_paths([DATA])
    assert not result.skipped[1:] and len(result.results) == 4
    server, interactive, offline = (_by(result.results, s) for s in ("Server", "Interactive", "Offline"))
    assert server.log is not None and server.power_w == 9200.0 and server.system == "Acme Box (8x Widget-1)"
    assert interactive.log is not None and interactive.log.tpot_p99_ms == 36.0 and offline.log is None
    assert "summary_results.json + " in server.source_file
    only = read_mlperf_paths([DATA], benchmarks=["deepseek-r1"])
    assert {r.benchmark for r in only.results} == {"deepseek-r1"}


def test_a_log_whose_rate_is_not_the_tables_is_skipped_naming_both(tmp_path) -> None:
    folder = tmp_path / SERVER_LOG.relative_to(DATA).parent
    folder.mkdir(parents=True)
    (folder / SERVER_LOG.name).write_text(SERVER_LOG.read_text().replace("36000.00", "30000.00"))
    (tmp_path / TABLE.name).write_bytes(TABLE.read_bytes())
    result = read_mlperf_paths([tmp_path])
    skipped = [s for s in result.skipped if s.field == "Completed tokens per second"]
    assert len(skipped) == 1 and "30000" in skipped[0].reason and "36000" in skipped[0].reason
    assert _by(result.results, "Server").log is None


@pytest.mark.parametrize(
    ("content", "field", "expected"),
    [
        (b"\xff\xfe", "", "not UTF-8 text"),
        (b"Scenario : Server\n", "", "no 'MLPerf Results Summary' header"),
        (None, "Result is", "expected VALID, got INVALID"),
        (b"MLPerf Results Summary\nScenario : Server\nResult is : VALID\n", "Completed samples per second", "missing"),
        (b"MLPerf Results Summary\nScenario : Nightly\n", "Scenario", "expected one of Offline, Server, Interactive"),
    ],
)
def test_a_bad_log_is_refused_naming_the_file_the_line_and_what_was_expected(content, field, expected) -> None:
    data = (DATA / "invalid" / "mlperf_log_summary.txt").read_bytes() if content is None else content
    with pytest.raises(ValueError, match="mlperf_log_summary.txt") as info:
        read_log_summary("x/mlperf_log_summary.txt", data)
    assert f": {field}: " in str(info.value) if field else expected in str(info.value)
    assert expected in str(info.value)


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"{not json", "not JSON"),
        (b'{"ID": "1"}', "expected a JSON array of result objects"),
        (b"[]", "an empty array"),
    ],
)
def test_a_bad_table_is_skipped_with_what_was_expected(data, expected) -> None:
    result = read_summary_table("t.json", data)
    assert not result.results and expected in result.skipped[0].reason and result.skipped[0].file == "t.json"


def test_a_bad_row_names_its_field() -> None:
    rows = json.loads(TABLE.read_text())
    rows[0]["Power_Units"] = "kW"
    rows[1]["a#"] = 2.5
    rows[2]["Scenario"] = "Nightly"
    result = read_summary_table("t.json", json.dumps(rows).encode())
    fields = {s.row: s.field for s in result.skipped}
    assert fields == {0: "Power_Units", 1: "a#", 2: "Scenario", 5: "Performance_Result"}


def test_missing_paths_and_folders_without_results_are_reported(tmp_path) -> None:
    empty = read_mlperf_paths([tmp_path])
    assert not empty.results and "no summary_results.json" in empty.skipped[0].reason
    missing = read_mlperf_paths([tmp_path / "nope.json"])
    assert "no such file" in missing.skipped[0].reason


def test_the_benchmark_drops_only_the_accuracy_target() -> None:
    assert [benchmark_of(m) for m in ("llama2-70b-99", "llama2-70b-99.9", "deepseek-r1")] == [
        "llama2-70b",
        "llama2-70b",
        "deepseek-r1",
    ]


def test_the_docs_print_the_name_table() -> None:
    docs = (ROOT / "docs" / "importers.md").read_text(encoding="utf-8")
    assert mlperf_field_map_markdown() in docs, "regenerate with mlperf_field_map_markdown()"
    assert len({f.ours for f in MLPERF_FIELDS}) == len(MLPERF_FIELDS)


def test_the_package_table_reads_whole_and_gives_the_published_figures() -> None:
    result = read_bundled_mlperf()
    assert not result.skipped and len(result.results) == 23
    assert all(r.log is not None and r.provenance_class == "vendor" for r in result.results)
    # MLCommons, MLPerf Inference v5.1, result 5.1-0061 (Lenovo ThinkSystem SR680a V3, 8 x B200, llama2-70b-99
    # Offline): Power_Result 10400.9988793425 W, Performance_Result 102909 tokens/s, 376.512 samples/s
    lenovo = [r for r in result.results if r.result_id == "5.1-0061" and r.scenario == "Offline"][0]
    assert lenovo.power_w_per_accelerator == pytest.approx(10400.9988793425 / 8, rel=1e-12)
    assert lenovo.output_tokens_per_request == pytest.approx(102909 / 376.512, rel=1e-12)
    # 5.1-0071, GB200 NVL72: 18 nodes x 4 GPUs
    assert {r.accelerators for r in result.results if r.result_id == "5.1-0071"} == {72}
    # 5.1-0062's Interactive run logs Scenario : Server
    assert any(r.scenario == "Interactive" and r.log is not None for r in result.results)


def test_the_yaml_groups_a_systems_results_offline_first() -> None:
    result = read_mlperf_paths([DATA])
    entries = mlperf_entries(result.results)
    entry = entries["v9.9 Acme Box8_TRT llama2-70b-99"]
    assert [p["scenario"] for p in entry["operating_points"]] == ["Offline", "Server", "Interactive"]
    assert entry["provenance"]["class"] == "vendor" and entry["accelerators"] == 8
    server = entry["operating_points"][1]
    assert server["slo"]["percentile"] == 99.0 and server["ttft_p99_ms"] == 800.0 and server["power_w_system"] == 9200
    assert yaml.safe_load(mlperf_to_yaml(result.results)) == entries


def test_the_command_prints_the_results_and_writes_the_yaml(tmp_path) -> None:
    out = tmp_path / "mlperf.yaml"
    done = runner.invoke(app, ["import", "mlperf", str(DATA), "--output", str(out)])
    assert done.exit_code == 0, done.output
    assert "Imported 4 MLPerf result(s)" in done.stdout and "Performance_Result" in done.stdout
    assert "v9.9 Acme Box8_TRT llama2-70b-99" in yaml.safe_load(out.read_text())
    to_stdout = runner.invoke(app, ["import", "mlperf", str(TABLE), "--benchmark", "deepseek-r1"])
    assert to_stdout.exit_code == 0 and list(yaml.safe_load(to_stdout.stdout)) == ["v9.9 Acme Rack2x4_TRT deepseek-r1"]


def test_the_command_fails_clearly_without_results_or_with_an_unknown_benchmark(tmp_path) -> None:
    nothing = runner.invoke(app, ["import", "mlperf", str(DATA / "invalid" / "mlperf_log_summary.txt")])
    assert nothing.exit_code == 1 and "nothing imported" in nothing.stderr and "INVALID" in nothing.stderr
    assert nothing.exception is None or isinstance(nothing.exception, SystemExit)
    unknown = runner.invoke(app, ["import", "mlperf", str(DATA), "--benchmark", "resnet50"])
    assert unknown.exit_code == 1 and "not an MLPerf LLM benchmark" in unknown.stderr
