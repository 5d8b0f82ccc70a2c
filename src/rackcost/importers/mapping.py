"""The one place where a source's field names meet ours: the table, the rename, and reading numbers from it.

:data:`FIELD_MAP` is code, not documentation: every reader first renames a source's record to our names with
:func:`rename_fields` (driven by the table's column for that source, ``{pct}`` resolved to the chosen percentile),
then reads only our names from the :class:`Record` it gets. A :class:`Record` refuses a name the table does not give
for its source, so a reader cannot read past the table; and it remembers what the source called each field, so a
bad or missing value is reported under the source's own name (``tput_per_gpu: missing``). Unit conversions come
after the rename, each as a named function (:func:`seconds_to_ms`, :func:`tpot_ms_from_interactivity`).
docs/importers.md prints the table (:func:`field_map_markdown`; a test keeps the two equal).

Like pvlib's ``iotools`` (``data.rename(columns=VARIABLE_MAP)``): the map is what renames.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal, overload

from rackcost.files import describe_value
from rackcost.units import MS_PER_S  # InferenceX stage B gives latencies in s, we keep ms

__all__ = [
    "ALL_PERCENTILES",
    "ALTERNATIVES",
    "FIELD_MAP",
    "NOT_IN_SOURCE",
    "PCT",
    "PERCENTILES",
    "SOURCES",
    "STAND_IN_PERCENTILES",
    "FieldName",
    "Record",
    "SkipError",
    "Source",
    "field_map_markdown",
    "number",
    "rename_fields",
    "seconds_to_ms",
    "source_names",
    "tpot_ms_from_interactivity",
    "whole_number",
]

PERCENTILES = ("p99", "median")
"""Percentiles at which TTFT and TPOT are read from a file that gives them (the same one for both)."""

STAND_IN_PERCENTILES = ("p95", "p90", "p75")
"""Percentiles a user may name to stand in for the SLO's, for files without p99 (InferenceX's agentic aggregates,
stage F, carry mean/p75/p90/p95 only): read only when named, and said in the provenance and a warning."""

ALL_PERCENTILES = PERCENTILES + STAND_IN_PERCENTILES
"""Every percentile :func:`rename_fields` resolves ``{pct}`` to."""

PCT = "{pct}"
"""Stands for the chosen percentile in a source name: ``{pct}_ttft`` is ``p99_ttft`` at p99."""

NOT_IN_SOURCE = "-"
"""A source column's cell for a quantity the source does not have."""

ALTERNATIVES = " or "
"""Separates alternative source names in one cell, in order of preference (``timestamp or date``)."""

Source = Literal["stage_b", "stage_a", "stage_d", "stage_e", "csv"]
"""A column of :data:`FIELD_MAP` that a reader renames by."""

SOURCES: tuple[Source, ...] = ("stage_b", "stage_a", "stage_d", "stage_e", "csv")
"""Every source column: InferenceX stage B (and C and F, arrays of stage-B-like rows), stage A, stage D (one point
in nested ``metrics``/``gpu`` blocks, read as ``metrics.NAME``), stage E (raw client, seconds), a CSV table."""


@dataclass(frozen=True)
class FieldName:
    """One row of the mapping table: our name, its unit, what each source calls it, and how it is converted.

    Attributes
    ----------
    ours
        Our name, the one readers read.
    unit
        Unit of our quantity (after the conversion).
    stage_b, stage_a, csv, stage_d, stage_e
        The field's name in that source (:data:`SOURCES`). ``{pct}`` stands for the chosen percentile; ``a or b``
        names alternatives, the first one with a value (not null, empty, 0 or false) wins; ``-``
        (:data:`NOT_IN_SOURCE`) means the source does not have the quantity.
    file_name
        How an InferenceX file name says it (``tpN``), or ``-``; :func:`rackcost.importers.curves.names_from_file_name`
        returns it under its stage-B name, so readers rename a file name's fields through the ``stage_b`` column.
    conversion
        What happens to the value after the rename (done by the reader, with a named function where it computes).
    """

    ours: str
    unit: str
    stage_b: str
    stage_a: str
    csv: str
    file_name: str
    conversion: str
    stage_d: str = NOT_IN_SOURCE
    stage_e: str = NOT_IN_SOURCE


FIELD_MAP: dict[str, FieldName] = {
    f.ours: f
    for f in (
        # the operating point
        FieldName(
            "concurrency",
            "requests",
            "conc",
            "max_concurrency",
            "concurrency",
            "-",
            "as is (closed loop)",
            stage_d="conc",
            stage_e="max_concurrency",
        ),
        FieldName(
            "throughput_tokens_per_s",
            "tokens/s per replica, total basis",
            "tput_per_gpu",
            "total_token_throughput",
            "throughput_tokens_per_s",
            "-",
            "stage B: x GPUs per replica; stage A and D: deployment-wide already; stage E: input_throughput + "
            "output_throughput; CSV as is",
            stage_d="metrics.total_token_throughput",
        ),
        FieldName(
            "input_throughput_tokens_per_s",
            "input tokens/s per replica",
            "-",
            "-",
            "-",
            "-",
            "stage E (which gives no total): + output_throughput = throughput_tokens_per_s",
            stage_e="input_throughput",
        ),
        FieldName(
            "tpot_ms",
            "ms",
            "{pct}_tpot",
            "{pct}_tpot_ms",
            "tpot_ms",
            "-",
            "stage B: s x 1000, read only without {pct}_intvty (stage F: always, its {pct}_intvty is a percentile of "
            "interactivity, not one over the TPOT's); stage E: s x 1000; stage A, D and CSV as is",
            stage_d="metrics.{pct}_tpot_ms",
            stage_e="{pct}_tpot",
        ),
        FieldName(
            "interactivity_tokens_per_s",
            "output tokens/s per user",
            "{pct}_intvty",
            "-",
            "interactivity_tokens_per_s",
            "-",
            "TPOT [ms] = 1000 / interactivity; CSV: given with tpot_ms, the two must agree to 0.1%",
        ),
        FieldName(
            "ttft_ms",
            "ms",
            "{pct}_ttft",
            "{pct}_ttft_ms",
            "ttft_ms",
            "-",
            "stage B and E: s x 1000; else as is",
            stage_d="metrics.{pct}_ttft_ms",
            stage_e="{pct}_ttft",
        ),
        FieldName(
            "power_w_per_accelerator",
            "W, GPU board power",
            "avg_power_w",
            "-",
            "power_w_per_accelerator",
            "-",
            "as is (measured mean); ignored when power_valid is false or 0; never wall power",
            stage_d="gpu.mean_power_per_gpu_w",
        ),
        FieldName(
            "peak_power_w_per_accelerator",
            "W, GPU board power",
            "-",
            "-",
            "-",
            "-",
            "as is (measured peak); below the mean: the point is skipped; never wall power",
            stage_d="gpu.peak_power_per_gpu_w",
        ),
        FieldName(
            "energy_j_per_output_token",
            "J per output token, GPU board",
            "joules_per_output_token",
            "-",
            "-",
            "-",
            "stage B as is; stage D: 1000 / tokens_per_kw (output tokens/s per kW of board power)",
            stage_d="gpu.tokens_per_kw",
        ),
        FieldName(
            "power_valid",
            "-",
            "power_valid",
            "-",
            "-",
            "-",
            "false or 0 drops the point's power (not the point)",
        ),
        # the conditions a curve was measured under
        FieldName("hardware", "-", "hw", "-", "hardware", "-", "as is", stage_d="hw"),
        FieldName(
            "benchmark_model",
            "-",
            "model",
            "model_id",
            "benchmark_model",
            "-",
            "as is",
            stage_d="model",
            stage_e="model_id",
        ),
        FieldName(
            "benchmark_precision",
            "-",
            "precision",
            "-",
            "benchmark_precision",
            "a precision (fp8, ...)",
            "lower case",
            stage_d="precision",
        ),
        FieldName(
            "framework",
            "-",
            "framework",
            "backend",
            "framework",
            "a framework (vllm, ...)",
            "as is; stage A: the file name's, else backend",
            stage_d="framework",
        ),
        FieldName(
            "tensor_parallel",
            "GPUs",
            "tp",
            "-",
            "tensor_parallel",
            "tpN",
            "GPUs per replica = tp x pp (x pcp)",
            stage_d="tp",
        ),
        FieldName("pipeline_parallel", "GPUs", "pp", "-", "-", "-", "default 1", stage_d="pp"),
        FieldName(
            "prefill_context_parallel",
            "GPUs",
            "pcp_size or pcp",
            "-",
            "-",
            "-",
            "multiplies GPUs per replica when given (HEAD writes pcp_size, older files pcp)",
        ),
        FieldName(
            "prefill_gpus",
            "GPUs",
            "num_prefill_gpu",
            "-",
            "-",
            "-",
            "given with decode_gpus: GPUs per replica = prefill + decode (multi-node disaggregated)",
        ),
        FieldName(
            "decode_gpus",
            "GPUs",
            "num_decode_gpu",
            "-",
            "-",
            "-",
            "see prefill_gpus; output_tput_per_gpu is per these: performance.decode_accelerators_per_replica",
        ),
        FieldName(
            "prefill_workers",
            "workers",
            "prefill_num_workers",
            "-",
            "-",
            "-",
            "with prefill_gpus: the prefill workers of the replica, kept in performance.roles.prefill.workers "
            "(default 1)",
        ),
        FieldName(
            "decode_workers",
            "workers",
            "decode_num_workers",
            "-",
            "-",
            "-",
            "with decode_gpus: the decode workers of the replica, kept in performance.roles.decode.workers (default 1)",
        ),
        FieldName(
            "accelerators_per_replica",
            "accelerators",
            "-",
            "-",
            "accelerators_per_replica",
            "-",
            "as is; else --gpus-per-replica, else tensor_parallel; stage D: the host's GPU count, used only where the "
            "file gives no tp (tp x pp serve; a host with more GPUs than that is said in a note)",
            stage_d="gpu.n_gpus",
        ),
        FieldName(
            "expert_parallel",
            "-",
            "ep",
            "-",
            "expert_parallel",
            "epN",
            "as is; 0 (no expert parallelism) as 1",
            stage_d="ep",
        ),
        FieldName("dp_attention", "-", "dp_attention", "-", "-", "dpatrue or dpafalse", "as is"),
        FieldName("disaggregated", "-", "disagg", "-", "-", "disagg-true or disagg-false", "as is"),
        FieldName(
            "benchmark_input_tokens",
            "tokens",
            "isl",
            "isl",
            "benchmark_input_tokens",
            "8k1k or isl8192_osl1024",
            "nominal maximum; file name 1k = 1024; the measured mean instead when the run gives it",
            stage_d="isl",
        ),
        FieldName(
            "benchmark_output_tokens",
            "tokens",
            "osl",
            "osl",
            "benchmark_output_tokens",
            "8k1k or isl8192_osl1024",
            "nominal maximum; file name 1k = 1024; the measured mean instead when the run gives it",
            stage_d="osl",
        ),
        FieldName("speculative_decoding", "-", "spec_decoding", "-", "speculative_decoding", "spec-NAME", "as is"),
        FieldName("offloading", "-", "offloading", "-", "-", "-", "as is; part of the curve key (none, lmcache, ...)"),
        FieldName("scenario_type", "-", "scenario_type", "-", "-", "-", "into provenance.notes (agentic-coding, ...)"),
        FieldName("token_basis", "-", "-", "-", "token_basis", "-", "total or output; else the option"),
        FieldName("throughput_per", "-", "-", "-", "throughput_per", "-", "replica or accelerator; else the option"),
        # provenance
        FieldName("date", "-", "timestamp or date", "date", "date", "-", "ISO 8601", stage_d="ts", stage_e="date"),
        FieldName("image", "-", "image", "-", "-", "-", "into provenance.software_stack", stage_d="image"),
        FieldName(
            "source_file",
            "-",
            "source_file",
            "-",
            "-",
            "-",
            "its name is read like the file's (ISL/OSL, tpN, ...); named in provenance.notes",
        ),
        FieldName("source", "-", "-", "-", "source", "-", "into provenance.notes"),
        # checks and notes
        FieldName(
            "requests_completed",
            "requests",
            "num_requests_successful",
            "completed",
            "-",
            "-",
            "0 or fewer: the file measured nothing; stage F: the requests its mean lengths are over",
            stage_d="metrics.successful_requests",
            stage_e="completed",
        ),
        FieldName(
            "input_tokens_mean",
            "tokens",
            "mean_input_tokens",
            "-",
            "-",
            "-",
            "stage F: measured mean ISL (performance.benchmark_input_tokens; agentic files have no nominal ISL)",
        ),
        FieldName(
            "output_tokens_mean",
            "tokens",
            "mean_output_tokens_actual",
            "-",
            "-",
            "-",
            "stage F: measured mean OSL (performance.benchmark_output_tokens)",
        ),
        FieldName(
            "input_tokens_measured",
            "tokens",
            "-",
            "total_input_tokens",
            "-",
            "-",
            "/ requests_completed = measured mean ISL: performance.benchmark_input_tokens (nominal ISL in notes)",
            stage_e="total_input_tokens",
        ),
        FieldName(
            "output_tokens_measured",
            "tokens",
            "-",
            "total_output_tokens",
            "-",
            "-",
            "/ requests_completed = measured mean OSL: performance.benchmark_output_tokens (nominal OSL in notes)",
            stage_e="total_output_tokens",
        ),
        FieldName(
            "request_rate_measured",
            "requests/s",
            "-",
            "request_throughput",
            "-",
            "-",
            "without the token counts: measured mean ISL = (total - output throughput) / it, OSL = output / it; "
            "with them: checked against throughput / mean length",
            stage_d="metrics.request_throughput",
            stage_e="request_throughput",
        ),
        FieldName(
            "output_throughput_tokens_per_s",
            "output tokens/s per replica",
            "output_tput_per_gpu",
            "output_throughput",
            "-",
            "-",
            "kept as the point's output_throughput_tokens_per_s; stage B: x GPUs per replica (x decode GPUs when "
            "disaggregated: InferenceX divides by those); A, D, E: deployment-wide; / request_rate_measured = "
            "measured mean OSL (without the token counts)",
            stage_d="metrics.output_token_throughput",
            stage_e="output_throughput",
        ),
    )
}


def _resolve(name: str, percentile: str | None) -> str | None:
    """A source name with ``{pct}`` replaced; ``None`` for a templated name without a percentile."""
    if PCT not in name:
        return name
    return None if percentile is None else name.replace(PCT, percentile)


def source_names(source: Source, percentile: str | None = None) -> dict[str, tuple[str, ...]]:
    """Our name -> the source's names for it (alternatives in order of preference), for one source column.

    Quantities the source does not have are left out, and so are templated names (``{pct}_ttft``) when no
    percentile is given.
    """
    out: dict[str, tuple[str, ...]] = {}
    for f in FIELD_MAP.values():
        cell = getattr(f, source)
        if cell == NOT_IN_SOURCE:
            continue
        resolved = [_resolve(n, percentile) for n in cell.split(ALTERNATIVES)]
        names = tuple(n for n in resolved if n is not None)
        if len(names) == len(resolved):
            out[f.ours] = names
    return out


class Record(Mapping[str, Any]):
    """A source's record under our names, knowing what the source called each field.

    Reading a name that :data:`FIELD_MAP` does not give for the source raises ``KeyError`` (a reader bug: the
    table is the only place a reader may learn a field from); reading a mapped field the record lacks behaves like
    a missing key of a dict.
    """

    def __init__(self, values: Mapping[str, Any], names: Mapping[str, str], source: str):
        self._values = dict(values)
        self._names = dict(names)
        self.source = source

    def _check(self, ours: str) -> None:
        if ours not in self._names:
            raise KeyError(f"{ours!r} is not a {self.source} field in FIELD_MAP (or it needs a percentile)")

    def __getitem__(self, ours: str) -> Any:
        self._check(ours)
        return self._values[ours]

    def __contains__(self, ours: object) -> bool:
        self._check(str(ours))
        return ours in self._values

    def get(self, ours: str, default: Any = None) -> Any:
        """The value under our name, or ``default`` when the record lacks it."""
        self._check(ours)
        return self._values.get(ours, default)

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def maps(self, ours: str) -> bool:
        """Whether :data:`FIELD_MAP` gives our field for this record's source (at its percentile)."""
        return ours in self._names

    def source_name(self, ours: str) -> str:
        """What the source calls our field (the alternative found, else all of them), for messages."""
        self._check(ours)
        return self._names[ours]

    def __repr__(self) -> str:
        return f"Record({self.source}, {self._values!r})"


def rename_fields(record: Mapping[str, Any], source: Source, percentile: str | None = None) -> Record:
    """A source's record renamed to our names through :data:`FIELD_MAP`'s column for that source.

    Parameters
    ----------
    record
        One record as the source wrote it (a JSON object, a CSV row, what a file name says).
    source
        The :data:`FIELD_MAP` column to rename by.
    percentile
        Replaces ``{pct}`` in source names (``p99``, ``median``); without it, templated fields are left out.

    Returns
    -------
    Record
        The values under our names, unchanged (units are converted afterwards, by the reader); fields the table
        does not name are dropped. Of alternatives (``timestamp or date``) the first with a value wins, as Python's
        ``or``.

    Examples
    --------
    >>> r = rename_fields({"conc": 4, "p99_ttft": 0.5, "mean_e2el": 9.0}, "stage_b", "p99")
    >>> dict(r), r.source_name("ttft_ms")
    ({'concurrency': 4, 'ttft_ms': 0.5}, 'p99_ttft')
    """
    if percentile is not None and percentile not in ALL_PERCENTILES:
        raise ValueError(f"percentile must be one of {', '.join(ALL_PERCENTILES)}, got {percentile!r}")
    values: dict[str, Any] = {}
    names: dict[str, str] = {}
    for ours, theirs in source_names(source, percentile).items():
        given = [name for name in theirs if name in record]
        names[ours] = given[0] if len(given) == 1 else ALTERNATIVES.join(theirs)
        if given:
            value = record[given[0]]
            for name in given[1:]:
                value = value or record[name]
            values[ours] = value
    return Record(values, names, source)


class SkipError(Exception):
    """Raised inside a reader for one row or file; the reader turns it into a ``Skipped`` entry.

    Parameters
    ----------
    field_name
        The field at fault, under the source's own name ('' when the whole file or row is at fault).
    reason
        What was expected and what was found.
    """

    def __init__(self, field_name: str, reason: str):
        super().__init__(f"{field_name}: {reason}")
        self.field = field_name
        self.reason = reason


@overload
def number(record: Record, ours: str, *, positive: bool = True, required: Literal[True] = True) -> float: ...


@overload
def number(record: Record, ours: str, *, positive: bool = True, required: bool) -> float | None: ...


def number(record: Record, ours: str, *, positive: bool = True, required: bool = True) -> float | None:
    """A finite number from a record, or :class:`SkipError` naming the field as the source calls it.

    Parameters
    ----------
    record
        The renamed row.
    ours
        Our field name.
    positive
        Require a value > 0.
    required
        Raise when missing (else return ``None``).
    """
    name = record.source_name(ours)
    value = record.get(ours)
    if value is None or value == "":
        if required:
            raise SkipError(name, "missing")
        return None
    # the kind of value, never the value (rackcost.files.describe_value): an error does not quote a file
    if isinstance(value, bool):
        raise SkipError(name, f"must be a number, got {describe_value(value)}")
    try:
        x = float(value)
    except (TypeError, ValueError, OverflowError):
        raise SkipError(name, f"must be a number, got {describe_value(value)}") from None
    if not math.isfinite(x):
        raise SkipError(name, f"must be a finite number, got {describe_value(value)}")
    if positive and x <= 0:
        raise SkipError(name, f"must be > 0, got {describe_value(value)}")
    return x


def whole_number(record: Record, ours: str) -> int | None:
    """A positive whole number from a record (``8`` or ``8.0``), ``None`` when missing, else :class:`SkipError`."""
    x = number(record, ours, required=False)
    if x is None:
        return None
    if not float(x).is_integer():
        raise SkipError(record.source_name(ours), f"must be a whole number, got {describe_value(record[ours])}")
    return int(x)


def seconds_to_ms(value_s: float) -> float:
    """A time in s as ms (stage B's TTFT and TPOT)."""
    return value_s * MS_PER_S


def tpot_ms_from_interactivity(interactivity_tokens_per_s: float) -> float:
    """Time per output token [ms] from interactivity [output tokens/s per user]: TPOT = 1000 / interactivity.

    InferenceX's ``{pct}_intvty`` is the interactivity at the ``{pct}`` TPOT (one over it, per second).
    """
    return MS_PER_S / interactivity_tokens_per_s


_DOC_COLUMNS = (
    ("ours", "ours"),
    ("unit", "unit"),
    ("stage_b", "stage B / C"),
    ("stage_a", "stage A"),
    ("stage_d", "stage D (nested)"),
    ("stage_e", "stage E (raw, s)"),
    ("csv", "CSV column"),
    ("file_name", "InferenceX file name"),
    ("conversion", "conversion"),
)


_NAME_COLUMNS = ("ours", "stage_b", "stage_a", "stage_d", "stage_e", "csv")


def field_map_markdown() -> str:
    """:data:`FIELD_MAP` as the Markdown table docs/importers.md prints (names in backticks, ``-`` as is)."""

    def cell(attribute: str, text: str) -> str:
        if attribute not in _NAME_COLUMNS or text == NOT_IN_SOURCE:
            return text
        return ALTERNATIVES.join(f"`{name}`" for name in text.split(ALTERNATIVES))

    lines = [
        "| " + " | ".join(title for _, title in _DOC_COLUMNS) + " |",
        "|" + "---|" * len(_DOC_COLUMNS),
    ]
    for f in FIELD_MAP.values():
        lines.append("| " + " | ".join(cell(a, getattr(f, a)) for a, _ in _DOC_COLUMNS) + " |")
    return "\n".join(lines) + "\n"
