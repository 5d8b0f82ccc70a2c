"""MLPerf Inference results as MLCommons publishes them -> operating points with their SLOs, power and provenance.

Two published formats, read as they are:

- **the round's summary table**, ``summary_results.json`` at the top of ``github.com/mlcommons/inference_results_vX.Y``
  (one JSON object per system x benchmark x scenario: ``ID``, ``Submitter``, ``System``, ``Platform``, ``Model``,
  ``Scenario``, ``Accelerator``, ``a#`` accelerators per node, ``Nodes``, ``Software``, ``weight_data_types``,
  ``version``, ``Performance_Result`` with ``Performance_Units``, and ``Power_Result``/``Power_Units`` where power
  was measured); only the datacenter LLM rows (tokens per second) are kept, the others are counted in a note;
- **a run's** ``mlperf_log_summary.txt`` (LoadGen's summary, ``closed/<Submitter>/results/<Platform>/<model>/
  <Scenario>/performance/run_1/``): the achieved rate (``Completed samples per second`` and ``Completed tokens per
  second``; Offline writes ``Samples per second`` and ``Tokens per second``), the TTFT and TPOT percentiles in ns,
  and the limits the run was held to (``ttft_latency (ns)``, ``tpot_latency (ns)``).

A table row whose ``Location`` is a log's folder gets the log's figures; the package's bundled table
(:data:`BUNDLED_TABLE`) carries, beside each row, the lines of its run's log under the log's own names
(``mlperf_log_summary``), read by the same code. :data:`MLPERF_FIELDS` is the name table (docs/importers.md prints
it through :func:`mlperf_field_map_markdown`). Every result is the submitter's own run: provenance ``vendor``.

Power is what the summary table gives: ``Power_Result`` in W, the mean wall power of the whole system under test
over the run, measured by MLCommons' power tooling (SPEC PTDaemon) at the system's inlets: hosts included, no rack
switches, no PUE. Offline runs have no latency percentiles (every query is sent at once), so an Offline result is a
rate without latencies.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path, PurePath
from typing import Any

from rackcost.files import InputFileError, describe_value, read_regular_file
from rackcost.importers.curves import Skipped
from rackcost.units import NS_PER_MS

__all__ = [
    "BUNDLED_TABLE",
    "LLM_BENCHMARKS",
    "LOG_NAME",
    "MLPERF_FIELDS",
    "MLPERF_SCENARIOS",
    "PUBLISHED_SLOS",
    "benchmark_of",
    "merge_logs",
    "SLO_PERCENTILE",
    "SLO_SOURCE",
    "LogFigures",
    "MLPerfField",
    "MLPerfImport",
    "MLPerfResult",
    "MLPerfSlo",
    "log_figures",
    "mlperf_field_map_markdown",
    "parse_log_summary",
    "read_bundled_mlperf",
    "read_log_summary",
    "read_mlperf_paths",
    "read_summary_table",
]

LOG_NAME = "mlperf_log_summary.txt"
"""File name of LoadGen's run summary."""
TABLE_NAME = "summary_results.json"
"""File name of a round's summary table."""
BUNDLED_TABLE = "mlperf_results.json"
"""The package's small table of published results (``rackcost/data``), in the summary table's format."""
MAX_TABLE_BYTES = 50_000_000
"""Summary tables larger than this are refused: a round's table is 1-3 MB [bytes]."""
MAX_LOG_BYTES = 1_000_000
"""Run summaries larger than this are refused: LoadGen writes about 3 kB [bytes]."""
MLPERF_SCENARIOS = ("Offline", "Server", "Interactive")
"""The datacenter scenarios of an LLM benchmark, in order of rising latency demands."""
SLO_PERCENTILE = 99.0
"""MLPerf judges its LLM latency limits at the 99th percentile of TTFT and of TPOT [%]."""
SLO_SOURCE = (
    "MLCommons, MLPerf Inference rules (github.com/mlcommons/inference_policies, inference_rules.adoc, 'LLM latency "
    "constraints'), v5.1, 2025-09: p99 TTFT and p99 TPOT limits per benchmark and scenario"
)
"""Where :data:`PUBLISHED_SLOS` come from."""
TOKENS_UNITS = "Tokens/s"
"""``Performance_Units`` of the LLM benchmarks (output tokens per second of the whole system)."""
POWER_UNITS = "Watts"
"""``Power_Units`` of a datacenter power result (mean wall power of the system under test)."""

LLM_BENCHMARKS = {
    "llama2-70b": "Llama-2-70B",
    "llama3.1-405b": "Llama-3.1-405B",
    "llama3.1-8b": "Llama-3.1-8B",
    "deepseek-r1": "DeepSeek-R1",
    "gpt-oss-120b": "gpt-oss-120b",
    "mixtral-8x7b": "Mixtral-8x7B",
}
"""MLPerf's LLM benchmark names (the ``Model`` without its accuracy target, ``-99`` or ``-99.9``) -> the model."""


@dataclass(frozen=True)
class MLPerfSlo:
    """The latency limits a Server or Interactive result was held to, at :data:`SLO_PERCENTILE`.

    Attributes
    ----------
    ttft_limit_ms, tpot_limit_ms
        p99 limits [ms].
    source
        Where they come from: the run's log, or :data:`SLO_SOURCE`.
    """

    ttft_limit_ms: float
    tpot_limit_ms: float
    source: str


PUBLISHED_SLOS: dict[tuple[str, str], MLPerfSlo] = {
    (benchmark, scenario): MLPerfSlo(ttft, tpot, SLO_SOURCE)
    for benchmark, scenario, ttft, tpot in (
        ("llama2-70b", "Server", 2000.0, 200.0),
        ("llama2-70b", "Interactive", 450.0, 40.0),
        ("llama3.1-405b", "Server", 6000.0, 175.0),
        ("llama3.1-405b", "Interactive", 4500.0, 80.0),
        ("deepseek-r1", "Server", 2000.0, 80.0),
        ("deepseek-r1", "Interactive", 1500.0, 15.0),
    )
}
"""MLPerf's published p99 limits [ms] (:data:`SLO_SOURCE`), for results read without their run's log."""


@dataclass(frozen=True)
class MLPerfField:
    """One row of the name table: our name, its unit, what the summary table and the run's log call it."""

    ours: str
    unit: str
    table: str
    log: str
    conversion: str


_NS = "ns / 1e6 = ms"
MLPERF_FIELDS: tuple[MLPerfField, ...] = (
    MLPerfField("result_id", "-", "ID", "-", "as is (e.g. 5.1-0061): the published result's ID"),
    MLPerfField("round", "-", "version", "-", "as is (v5.1)"),
    MLPerfField("submitter", "-", "Submitter", "path: closed/<Submitter>/results", "as is; provenance class vendor"),
    MLPerfField("system", "-", "System", "-", "as is (the system's name)"),
    MLPerfField("platform", "-", "Platform", "path: results/<Platform>/", "as is; with round and submitter the key"),
    MLPerfField("benchmark", "-", "Model", "path: <Platform>/<model>/", "without the accuracy target (-99, -99.9)"),
    MLPerfField("scenario", "-", "Scenario", "Scenario", "Offline, Server or Interactive; the two must agree"),
    MLPerfField("accelerator", "-", "Accelerator", "-", "as is"),
    MLPerfField("accelerators", "accelerators", "Nodes x a#", "-", "a# counts one node's accelerators"),
    MLPerfField("precision", "-", "weight_data_types", "-", "lower case"),
    MLPerfField("software", "-", "Software", "-", "into provenance.software_stack"),
    MLPerfField("category", "-", "Category", "path: closed/ or open/", "as is"),
    MLPerfField(
        "throughput_tokens_per_s",
        "output tokens/s per system",
        "Performance_Result (Performance_Units Tokens/s)",
        "Completed tokens per second (Offline: Tokens per second)",
        "as is; table and log must agree to 1%",
    ),
    MLPerfField(
        "request_rate_rps",
        "requests/s per system",
        "-",
        "Completed samples per second (Offline: Samples per second)",
        "as is; throughput / it = output tokens per request",
    ),
    MLPerfField("ttft_p99_ms", "ms", "-", "99.00 percentile first token latency (ns)", _NS),
    MLPerfField("ttft_p50_ms", "ms", "-", "50.00 percentile first token latency (ns)", _NS),
    MLPerfField("tpot_p99_ms", "ms", "-", "99.00 percentile time to output token (ns)", _NS),
    MLPerfField("tpot_p50_ms", "ms", "-", "50.00 percentile time to output token (ns)", _NS),
    MLPerfField(
        "tpot_mean_ms",
        "ms",
        "-",
        "Mean Time to Output Token (ns)",
        _NS + "; output tokens/s x it / 1000 = requests decoding (Little's law)",
    ),
    MLPerfField("mean_latency_ms", "ms", "-", "Mean latency (ns)", _NS),
    MLPerfField("ttft_limit_ms", "ms", "-", "ttft_latency (ns)", _NS + "; Server and Interactive only"),
    MLPerfField("tpot_limit_ms", "ms", "-", "tpot_latency (ns)", _NS + "; Server and Interactive only"),
    MLPerfField("valid", "-", "-", "Result is", "VALID or INVALID (an invalid run is skipped)"),
    MLPerfField(
        "power_w", "W, system at the wall", "Power_Result (Power_Units Watts)", "-", "as is; / accelerators = per one"
    ),
    MLPerfField("url", "-", "Details", "-", "into provenance.source"),
    MLPerfField("location", "-", "Location", "the log's folder", "pairs a log with its table row"),
    MLPerfField("notes", "-", "Notes", "-", "into provenance.notes"),
)
"""What each published name becomes (docs/importers.md prints this table; a test keeps the two equal)."""


def mlperf_field_map_markdown() -> str:
    """:data:`MLPERF_FIELDS` as the Markdown table docs/importers.md prints."""

    def cell(text: str) -> str:
        return text if text == "-" or text.startswith("path") else f"`{text}`"

    lines = ["| ours | unit | summary table | mlperf_log_summary.txt | conversion |", "|---|---|---|---|---|"]
    for f in MLPERF_FIELDS:
        lines.append(f"| {f.ours} | {f.unit} | {cell(f.table)} | {cell(f.log)} | {f.conversion} |")
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class LogFigures:
    """What a run's ``mlperf_log_summary.txt`` says (latencies in ms; ``None`` where the log has no such line).

    Attributes
    ----------
    scenario
        ``Offline``, ``Server`` or ``Interactive``.
    tokens_per_s, request_rate_rps
        Achieved output tokens and requests per second of the system [tokens/s, requests/s].
    ttft_p99_ms, ttft_p50_ms, tpot_p99_ms, tpot_p50_ms, tpot_mean_ms, mean_latency_ms
        Percentiles and means of the run [ms].
    slo
        The limits the run was held to (Server and Interactive), or None.
    """

    scenario: str
    tokens_per_s: float
    request_rate_rps: float
    ttft_p99_ms: float | None = None
    ttft_p50_ms: float | None = None
    tpot_p99_ms: float | None = None
    tpot_p50_ms: float | None = None
    tpot_mean_ms: float | None = None
    mean_latency_ms: float | None = None
    slo: MLPerfSlo | None = None


@dataclass(frozen=True)
class MLPerfResult:
    """One published result (a system x benchmark x scenario), with its run's figures where read.

    Attributes
    ----------
    result_id, round, submitter, system, platform
        Who and what (``platform`` is the submission's folder name).
    benchmark
        MLPerf's benchmark without its accuracy target (``llama2-70b``); ``model`` the name as published.
    scenario
        ``Offline``, ``Server`` or ``Interactive``.
    accelerator, accelerators
        The accelerator's name and how many the system has (nodes x per node), or None where not given.
    precision, software, category, notes, url, location
        As published.
    tokens_per_s
        Achieved output tokens per second of the whole system [tokens/s].
    power_w
        Measured mean wall power of the whole system, or None [W].
    log
        The run's log figures, or None when only the table was read.
    source_file
        The file(s) it was read from.
    """

    result_id: str | None
    round: str | None
    submitter: str | None
    system: str | None
    platform: str | None
    model: str
    benchmark: str
    scenario: str
    accelerator: str | None
    accelerators: int | None
    precision: str | None
    software: str | None
    category: str | None
    tokens_per_s: float
    power_w: float | None = None
    notes: str | None = None
    url: str | None = None
    location: str | None = None
    log: LogFigures | None = None
    source_file: str = ""
    provenance_class: str = "vendor"

    @property
    def slo(self) -> MLPerfSlo | None:
        """The p99 limits of a Server or Interactive result: the run's log's, else the published ones."""
        if self.scenario == "Offline":
            return None
        if self.log is not None and self.log.slo is not None:
            return self.log.slo
        return PUBLISHED_SLOS.get((self.benchmark, self.scenario))

    @property
    def power_w_per_accelerator(self) -> float | None:
        """Measured wall power over the system's accelerators [W]: hosts and fans included."""
        if self.power_w is None or not self.accelerators:
            return None
        return self.power_w / self.accelerators

    @property
    def output_tokens_per_request(self) -> float | None:
        """Mean output tokens of a completed request: tokens per second / requests per second [tokens]."""
        return None if self.log is None else self.log.tokens_per_s / self.log.request_rate_rps

    @property
    def decoding_requests(self) -> float | None:
        """Requests decoding at once, by Little's law: output tokens/s x mean TPOT [requests]; None for Offline."""
        if self.log is None or self.log.tpot_mean_ms is None:
            return None
        return self.log.tokens_per_s * self.log.tpot_mean_ms / 1000.0

    @property
    def key(self) -> tuple[str, str, str, str]:
        """Round, submitter, platform and the model as published (its accuracy target too: ``llama2-70b-99`` and
        ``-99.9`` are two results): a system's results of one benchmark share it."""
        return (self.round or "?", self.submitter or "?", self.platform or "?", self.model)

    def provenance(self) -> dict[str, Any]:
        """A scenario's ``provenance`` block for this result."""
        where = self.url or self.location or self.source_file
        rid = f" {self.result_id}" if self.result_id else ""
        return {
            "class": self.provenance_class,
            "source": f"MLCommons, MLPerf Inference {self.round or '(round unstated)'} results{rid}: {where}",
            "software_stack": self.software or "unstated",
            "notes": f"{self.submitter or 'submitter unstated'}'s own run ({self.category or 'division unstated'} "
            f"division), {self.benchmark}" + (f"; {self.notes}" if self.notes else ""),
        }


@dataclass
class MLPerfImport:
    """What the MLPerf reader read: results, what it skipped and why, and notes."""

    results: list[MLPerfResult] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


class _Bad(ValueError):
    """One row or file the reader skips: the field as the source names it, and the reason."""

    def __init__(self, field_name: str, reason: str):
        super().__init__(f"{field_name}: {reason}")
        self.field = field_name
        self.reason = reason


def benchmark_of(model: str) -> str:
    """MLPerf's benchmark of a published ``Model``: the name without its accuracy target.

    Examples
    --------
    >>> benchmark_of("llama2-70b-99.9"), benchmark_of("deepseek-r1")
    ('llama2-70b', 'deepseek-r1')
    """
    return re.sub(r"-99(\.9)?$", "", model.strip())


def _number(value: Any, name: str, *, positive: bool = True) -> float:
    if isinstance(value, bool) or value is None or value == "":
        raise _Bad(name, f"expected a number, got {describe_value(value) if value not in (None, '') else 'nothing'}")
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise _Bad(name, f"expected a number, got {describe_value(value)}") from None
    if not math.isfinite(x) or (positive and x <= 0):
        raise _Bad(name, f"expected a finite number > 0, got {describe_value(value)}")
    return x


def parse_log_summary(text: str) -> dict[str, str]:
    """The ``name : value`` lines of an ``mlperf_log_summary.txt``, each name's first value (the log repeats
    ``Completed tokens per second``)."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        name, colon, value = line.partition(":")
        if colon and name.strip() and name.strip() not in out:
            out[name.strip()] = value.strip()
    return out


def _ms(values: Mapping[str, Any], name: str) -> float | None:
    return None if name not in values else _number(values[name], name) / NS_PER_MS


def log_figures(values: Mapping[str, Any]) -> LogFigures:
    """The figures of a run's log from its ``name : value`` lines (:func:`parse_log_summary`).

    Raises
    ------
    ValueError
        Naming the line at fault and what was expected (an invalid run, a scenario MLPerf's LLM benchmarks do not
        have, a missing or bad rate).
    """
    scenario = str(values.get("Scenario", "")).strip()
    if scenario not in MLPERF_SCENARIOS:
        raise _Bad("Scenario", f"expected one of {', '.join(MLPERF_SCENARIOS)}, got {scenario or 'nothing'}")
    verdict = str(values.get("Result is", "")).strip()
    if verdict != "VALID":
        raise _Bad("Result is", f"expected VALID, got {verdict or 'nothing'}: an invalid run is no result")
    offline = scenario == "Offline"
    rate_name = "Samples per second" if offline else "Completed samples per second"
    tokens_name = "Tokens per second" if offline else "Completed tokens per second"
    for name in (rate_name, tokens_name):
        if name not in values:
            raise _Bad(name, f"missing: a {scenario} run's log gives it (is this an LLM benchmark's log?)")
    slo = None
    if not offline and "ttft_latency (ns)" in values and "tpot_latency (ns)" in values:
        ttft, tpot = _ms(values, "ttft_latency (ns)"), _ms(values, "tpot_latency (ns)")
        assert ttft is not None and tpot is not None
        slo = MLPerfSlo(ttft, tpot, "the run's log (ttft_latency, tpot_latency)")
    return LogFigures(
        scenario,
        _number(values[tokens_name], tokens_name),
        _number(values[rate_name], rate_name),
        ttft_p99_ms=_ms(values, "99.00 percentile first token latency (ns)"),
        ttft_p50_ms=_ms(values, "50.00 percentile first token latency (ns)"),
        tpot_p99_ms=_ms(values, "99.00 percentile time to output token (ns)"),
        tpot_p50_ms=_ms(values, "50.00 percentile time to output token (ns)"),
        tpot_mean_ms=_ms(values, "Mean Time to Output Token (ns)"),
        mean_latency_ms=_ms(values, "Mean latency (ns)"),
        slo=slo,
    )


def _interactive(published: str, logged: str) -> bool:
    """Whether a run is Interactive: LoadGen runs the Interactive scenario as a Server run with tighter limits,
    so its log says ``Scenario : Server`` where its folder and table row say Interactive."""
    return published == "Interactive" and logged == "Server"


_LOG_PATH = re.compile(
    r"(?:^|/)(?P<division>closed|open|network)/(?P<submitter>[^/]+)/results/(?P<platform>[^/]+)/(?P<model>[^/]+)/"
    r"(?P<scenario>[^/]+)/performance/run_\d+/" + re.escape(LOG_NAME) + "$"
)


def read_log_summary(name: str, data: bytes) -> MLPerfResult:
    """One run's ``mlperf_log_summary.txt``: its figures, and what its path says (submitter, platform, benchmark).

    Parameters
    ----------
    name
        The file's path: where a submission keeps it (``closed/<Submitter>/results/<Platform>/<model>/<Scenario>/
        performance/run_1/mlperf_log_summary.txt``) it names the system; elsewhere the result has no system name.
    data
        The file's content.

    Raises
    ------
    ValueError
        Naming the file, the line and what was expected.
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{name}: not UTF-8 text; expected LoadGen's {LOG_NAME}") from None
    if "MLPerf Results Summary" not in text:
        raise ValueError(f"{name}: no 'MLPerf Results Summary' header; expected LoadGen's {LOG_NAME}")
    try:
        log = log_figures(parse_log_summary(text))
    except _Bad as exc:
        raise ValueError(f"{name}: {exc.field}: {exc.reason}") from None
    m = _LOG_PATH.search(PurePath(name).as_posix())
    parts = m.groupdict() if m else {}
    if parts and _interactive(parts["scenario"], log.scenario):
        log = replace(log, scenario="Interactive")
    if parts and parts["scenario"] != log.scenario:
        raise ValueError(f"{name}: Scenario: the log says {log.scenario}, its folder {parts['scenario']}")
    model = parts.get("model", "")
    return MLPerfResult(
        result_id=None,
        round=None,
        submitter=parts.get("submitter"),
        system=None,
        platform=parts.get("platform"),
        model=model or "unstated",
        benchmark=benchmark_of(model) if model else "unstated",
        scenario=log.scenario,
        accelerator=None,
        accelerators=None,
        precision=None,
        software=None,
        category=parts.get("division"),
        tokens_per_s=log.tokens_per_s,
        location=None if not m else PurePath(name).as_posix()[m.start("division") :].rsplit("/performance/", 1)[0],
        log=log,
        source_file=name,
    )


def _text(record: Mapping[str, Any], name: str) -> str | None:
    value = record.get(name)
    return None if value is None or str(value).strip() == "" else str(value).strip()


def _table_result(record: Mapping[str, Any], name: str) -> MLPerfResult:
    """One row of a summary table (an LLM benchmark's, tokens per second)."""
    model = _text(record, "Model") or ""
    scenario = _text(record, "Scenario") or ""
    if scenario not in MLPERF_SCENARIOS:
        raise _Bad("Scenario", f"expected one of {', '.join(MLPERF_SCENARIOS)}, got {scenario or 'nothing'}")
    units = _text(record, "Performance_Units")
    if units != TOKENS_UNITS:
        raise _Bad("Performance_Units", f"expected {TOKENS_UNITS} (an LLM benchmark), got {units or 'nothing'}")
    tokens = _number(record.get("Performance_Result"), "Performance_Result")
    per_node = record.get("a#")
    accelerators = None
    if per_node not in (None, ""):
        count = _number(per_node, "a#") * _number(record.get("Nodes", 1), "Nodes")
        if not count.is_integer():
            raise _Bad("a#", f"expected whole accelerators per node, got {describe_value(per_node)}")
        accelerators = int(count)
    power = None
    if record.get("Power_Result") not in (None, ""):
        if _text(record, "Power_Units") != POWER_UNITS:
            raise _Bad("Power_Units", f"expected {POWER_UNITS} with Power_Result, got {_text(record, 'Power_Units')}")
        power = _number(record["Power_Result"], "Power_Result")
    log = None
    if isinstance(record.get("mlperf_log_summary"), Mapping):  # the package's table: the run's log lines beside it
        try:
            log = log_figures(record["mlperf_log_summary"])
        except _Bad as exc:
            raise _Bad(f"mlperf_log_summary.{exc.field}", exc.reason) from None
        if _interactive(scenario, log.scenario):
            log = replace(log, scenario="Interactive")
        if log.scenario != scenario:
            raise _Bad("mlperf_log_summary", f"the log's scenario {log.scenario} is not the row's {scenario}")
    precision = _text(record, "weight_data_types")
    return MLPerfResult(
        result_id=_text(record, "ID"),
        round=_text(record, "version"),
        submitter=_text(record, "Submitter"),
        system=_text(record, "System"),
        platform=_text(record, "Platform"),
        model=model,
        benchmark=benchmark_of(model),
        scenario=scenario,
        accelerator=_text(record, "Accelerator"),
        accelerators=accelerators,
        precision=None if precision is None or precision.upper() == "UNSET" else precision.lower(),
        software=_text(record, "Software"),
        category=_text(record, "Category"),
        tokens_per_s=tokens,
        power_w=power,
        notes=_text(record, "Notes"),
        url=_text(record, "Details"),
        location=_text(record, "Location"),
        log=log,
        source_file=name,
    )


def read_summary_table(name: str, data: bytes, *, benchmarks: Iterable[str] | None = None) -> MLPerfImport:
    """A round's ``summary_results.json``: every datacenter LLM row as a result.

    Parameters
    ----------
    name
        File name, for messages.
    data
        The file's content: a JSON array of objects, one per system x benchmark x scenario.
    benchmarks
        Keep only these benchmarks (``llama2-70b``, ``deepseek-r1``...); default every LLM benchmark.

    Returns
    -------
    MLPerfImport
        Results, skipped rows (row = position in the array) and a note counting the rows of other benchmarks;
        never raises for bad content.
    """
    out = MLPerfImport()
    try:
        records = json.loads(data)
    except (UnicodeDecodeError, ValueError) as exc:
        out.skipped.append(Skipped(name, None, "", f"not JSON ({exc}); expected MLCommons' {TABLE_NAME}"))
        return out
    if not isinstance(records, list) or not all(isinstance(r, dict) for r in records):
        out.skipped.append(
            Skipped(name, None, "", f"expected a JSON array of result objects (MLCommons' {TABLE_NAME})")
        )
        return out
    wanted = set(benchmarks) if benchmarks else set(LLM_BENCHMARKS)
    other = 0
    for row, record in enumerate(records):
        model = benchmark_of(str(record.get("Model", "")))
        if record.get("Suite", "datacenter") != "datacenter" or model not in wanted:
            other += 1
            continue
        try:
            out.results.append(_table_result(record, name))
        except _Bad as exc:
            out.skipped.append(Skipped(name, row, exc.field, exc.reason))
    if other:
        out.notes.append(f"{name}: {other} row(s) of other benchmarks or suites left out")
    if not records:
        out.skipped.append(Skipped(name, None, "", "an empty array: no results"))
    return out


def merge_logs(table: list[MLPerfResult], logs: list[MLPerfResult], out: MLPerfImport) -> list[MLPerfResult]:
    """Table rows with the figures of the log in their folder; a log without a row is a result of its own."""
    by_location = {r.location: i for i, r in enumerate(table) if r.location}
    merged = list(table)
    for log in logs:
        i = None if log.location is None else by_location.get(log.location)
        if i is None:
            merged.append(log)
            continue
        row = merged[i]
        assert log.log is not None
        if not math.isclose(row.tokens_per_s, log.tokens_per_s, rel_tol=0.01):
            out.skipped.append(
                Skipped(
                    log.source_file,
                    None,
                    "Completed tokens per second",
                    f"{log.tokens_per_s:g} differs from the table's Performance_Result {row.tokens_per_s:g} by more "
                    "than 1%: not the published run; the table's row is kept without it",
                )
            )
            continue
        merged[i] = replace(row, log=log.log, source_file=f"{row.source_file} + {log.source_file}")
    return merged


def _files(paths: Iterable[str | Path]) -> list[Path]:
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            out += sorted(p.rglob(TABLE_NAME)) + sorted(q for q in p.rglob(LOG_NAME) if "/performance/" in q.as_posix())
        else:
            out.append(p)
    return out


def read_mlperf_paths(paths: Iterable[str | Path], *, benchmarks: Iterable[str] | None = None) -> MLPerfImport:
    """Summary tables (``*.json``) and run logs (``mlperf_log_summary.txt``), or folders holding them, read and
    paired: a log in a table row's ``Location`` gives that row its latencies.

    Returns
    -------
    MLPerfImport
        Never raises for bad files: each one is in ``skipped`` with the reason.
    """
    out = MLPerfImport()
    table: list[MLPerfResult] = []
    logs: list[MLPerfResult] = []
    wanted = set(benchmarks) if benchmarks else None
    given = list(paths)
    files = _files(given)
    if not files:
        where = ", ".join(map(str, given))
        out.skipped.append(Skipped(where, None, "", f"no {TABLE_NAME} or {LOG_NAME} (under performance/) found"))
    for path in files:
        is_log = path.name == LOG_NAME or path.suffix == ".txt"
        try:
            data = read_regular_file(path, MAX_LOG_BYTES if is_log else MAX_TABLE_BYTES, "MLPerf result file")
        except InputFileError as exc:
            out.skipped.append(Skipped(str(path), None, "", str(exc).removeprefix(f"{path}: ")))
            continue
        if is_log:
            try:
                result = read_log_summary(str(path), data)
            except ValueError as exc:
                field_name, _, reason = str(exc).removeprefix(f"{path}: ").partition(": ")
                out.skipped.append(Skipped(str(path), None, field_name if reason else "", reason or field_name))
                continue
            if wanted is None or result.benchmark in wanted:
                logs.append(result)
            continue
        part = read_summary_table(str(path), data, benchmarks=wanted)
        table += part.results
        out.skipped += part.skipped
        out.notes += part.notes
    out.results = merge_logs(table, logs, out)
    return out


def read_bundled_mlperf() -> MLPerfImport:
    """The package's table of published results (:data:`BUNDLED_TABLE`), read by :func:`read_summary_table`."""
    path = Path(str(resources.files("rackcost"))) / "data" / BUNDLED_TABLE
    return read_summary_table(BUNDLED_TABLE, path.read_bytes())
