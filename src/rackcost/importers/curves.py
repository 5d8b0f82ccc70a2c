"""Operating points become curves: what a reader hands over, how rows group into curves, what was skipped.

A reader turns each usable record into a :class:`Row` (one operating point under our names, with the
:class:`CurveKey` it was measured under) and each unusable one into a :class:`Skipped` (file, row, the field as the
source calls it, the reason). :func:`rackcost.importers.curve_building.build_curves` groups rows by key into
:class:`ImportedCurve` objects, each with a ``performance`` dict that pastes into a scenario's
``systems[].performance`` and a ``provenance`` dict for ``systems[].provenance``; :class:`ImportResult` is what a
reader returns. Readers never raise for bad input.

Also here, because every reader needs them: what an InferenceX-style file name says
(:func:`names_from_file_name`), and the ``only`` filter on curve keys (:func:`parse_only`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any, NamedTuple

__all__ = [
    "FRAMEWORKS",
    "KEY_FIELDS",
    "ONLY_ALIASES",
    "PRECISIONS",
    "TOKENS_PER_K",
    "CurveKey",
    "MEASURED_LENGTH_DIGITS",
    "ImportResult",
    "ImportedCurve",
    "MeasuredLengths",
    "Row",
    "RunSignature",
    "Skipped",
    "differing_keys",
    "stand_in_warning",
    "names_from_file_name",
    "parse_only",
]

TOKENS_PER_K = 1024
"""InferenceX's sequence-length names count k as 1024 tokens: ``1k1k`` is 1024/1024, ``8k1k`` 8192/1024."""

MEASURED_LENGTH_DIGITS = 10
"""Significant digits a measured mean request length keeps in a curve: the request rate it gives (throughput /
tokens per request) then differs from the measured one by at most 5e-10 relative, while a mean like 37068 / 40
tokens stays 926.7 (the YAML writes it to the points' six digits)."""


@dataclass(frozen=True)
class CurveKey:
    """The conditions a curve was measured under; rows that differ in any of them are different curves.

    ``None`` means the source does not state it.
    """

    hardware: str | None = None
    model: str | None = None
    precision: str | None = None
    framework: str | None = None
    tensor_parallel: int | None = None
    expert_parallel: int | None = None
    dp_attention: str | None = None
    disaggregated: str | None = None
    gpus_per_replica: int | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    speculative_decoding: str | None = None
    offloading: str | None = None
    decode_gpus_per_replica: int | None = None
    prefill_workers: int | None = None
    prefill_gpus_per_replica: int | None = None
    decode_workers: int | None = None
    token_basis: str = "total"
    throughput_per: str = "replica"

    def describe(self) -> dict[str, str]:
        """Each key field as text (``unstated`` for ``None``)."""
        return {
            f.name: "unstated" if getattr(self, f.name) is None else str(getattr(self, f.name)) for f in fields(self)
        }

    @property
    def label(self) -> str:
        """Short human name, e.g. ``gaudi25 Llama-3.3-70B-Instruct fp8 vllm tp8 1024/1024``."""
        parts = [self.hardware or "hardware?", (self.model or "model?").rsplit("/", 1)[-1]]
        parts += [p for p in (self.precision, self.framework) if p]
        if self.tensor_parallel is not None:
            parallel = f"tp{self.tensor_parallel}"
            if self.expert_parallel not in (None, 1):
                parallel += f"-ep{self.expert_parallel}"
            if self.dp_attention in ("true", "True"):
                parallel += "-dpa"
            parts.append(parallel)
        elif self.gpus_per_replica is not None:
            parts.append(f"{self.gpus_per_replica} GPUs")
        if self.disaggregated in ("true", "True"):
            parts.append("disagg")
        if self.input_tokens is not None and self.output_tokens is not None:
            parts.append(f"{self.input_tokens}/{self.output_tokens}")
        if self.speculative_decoding and self.speculative_decoding != "none":
            parts.append(f"spec-{self.speculative_decoding}")
        if self.offloading and self.offloading != "none":
            parts.append(f"offload-{self.offloading}")
        return " ".join(parts)


KEY_FIELDS = tuple(f.name for f in fields(CurveKey))
"""Names of the curve-key fields, in :class:`CurveKey`'s order."""

ONLY_ALIASES = {
    "hw": "hardware",
    "tp": "tensor_parallel",
    "ep": "expert_parallel",
    "isl": "input_tokens",
    "osl": "output_tokens",
    "spec": "speculative_decoding",
    "spec_decoding": "speculative_decoding",
    "gpus": "gpus_per_replica",
    "offload": "offloading",
}
"""Short names ``--only`` accepts for curve-key fields (``tp=8``)."""


@dataclass(frozen=True)
class Skipped:
    """A file, a row or a value that was not imported, and why.

    Parameters
    ----------
    file
        File name as given.
    row
        Row of a table or array (0-based for JSON arrays, the line number for CSV), or ``None`` for the whole file.
    field
        The field at fault, as the source calls it ('' when the whole file is at fault).
    reason
        What was expected and what was found.
    """

    file: str
    row: int | None
    field: str
    reason: str

    @property
    def where(self) -> str:
        """``file``, ``file[row 3]`` or ``file:line 4``."""
        if self.row is None:
            return self.file
        return f"{self.file}:line {self.row}" if self.file.lower().endswith(".csv") else f"{self.file}[row {self.row}]"

    def __str__(self) -> str:
        what = f"{self.field}: " if self.field else ""
        return f"{self.where}: {what}{self.reason}"


class RunSignature(NamedTuple):
    """What tells one benchmark run from another: pairs a stage-A file with its stage-B aggregate."""

    model: str | None
    concurrency: float
    throughput_tokens_per_s_per_gpu: float
    ttft_ms: float


@dataclass(frozen=True)
class MeasuredLengths:
    """Mean tokens per request a benchmark run measured (not the nominal ISL/OSL it was asked for).

    Attributes
    ----------
    input_tokens, output_tokens
        Measured mean input and output tokens per completed request [tokens].
    requests
        Requests the means are over (the run's completed count), for pooling runs; ``None`` when not given
        [requests].
    request_rate
        The run's measured request rate, when the file gives it [requests/s].
    source
        Which fields the means come from (the source's own names), for notes.
    """

    input_tokens: float
    output_tokens: float
    requests: float | None
    request_rate: float | None
    source: str


@dataclass
class Row:
    """One operating point as a reader read it, under our names, before grouping into curves."""

    file: str
    row: int | None
    stage: str
    key: CurveKey
    point: dict[str, float]
    isl_osl_source: str
    gpus_source: str
    date: str | None = None
    image: str | None = None
    source_file: str | None = None
    extra_notes: list[str] = field(default_factory=list)
    match: RunSignature | None = None
    measured: MeasuredLengths | None = None


@dataclass
class ImportedCurve:
    """One imported operating-point curve (not the model's :class:`rackcost.model.replica.performance.Curve`).

    Attributes
    ----------
    key
        Conditions the curve was measured under.
    performance
        Scenario-ready ``systems[].performance`` mapping (points sorted by concurrency; throughput on a total
        basis per replica for InferenceX; TTFT and TPOT in ms at ``percentile``).
    provenance
        Scenario-ready ``systems[].provenance`` mapping (``class``, ``date``, ``source``, ``software_stack``,
        ``notes``).
    percentile
        Percentile TTFT and TPOT were read at (``p99`` or ``median``).
    isl_osl_source
        Where ISL/OSL came from: ``file``, ``file name (...)`` or ``option --isl/--osl``.
    gpus_source
        Where GPUs per replica came from.
    stages
        Source stages of the points (``A``, ``B``, ``C`` or ``csv``).
    files
        Files the points came from.
    token_lengths
        ``measured`` when ``performance.benchmark_input_tokens``/``benchmark_output_tokens`` are the measured mean
        tokens per request of every point's run, ``nominal`` when they are the ISL/OSL the run was asked for.
    """

    key: CurveKey
    performance: dict[str, Any]
    provenance: dict[str, Any]
    percentile: str
    isl_osl_source: str
    gpus_source: str
    stages: list[str]
    files: list[str]
    token_lengths: str = "nominal"

    @property
    def label(self) -> str:
        """Short human name of the curve."""
        return self.key.label

    @property
    def points(self) -> list[dict[str, float]]:
        """Operating points (``performance['points']``)."""
        return self.performance["points"]

    @property
    def concurrency_range(self) -> tuple[float, float] | None:
        """Lowest and highest concurrency [requests], or ``None`` when the points do not give it."""
        values = [p["concurrency"] for p in self.points if "concurrency" in p]
        return (min(values), max(values)) if values else None

    @property
    def has_power(self) -> bool:
        """Whether any point carries measured (board) power."""
        return any("power_w_per_accelerator" in p for p in self.points)


@dataclass
class ImportResult:
    """What an importer read: the curves, and what it skipped and why.

    Attributes
    ----------
    curves
        Imported curves, in a stable order (hardware, model, precision, parallelism, ISL/OSL).
    skipped
        Files, rows or values not imported, each naming the file, the field and the reason.
    filtered
        Rows read correctly but left out by the ``only`` filter [rows].
    notes
        Remarks for the summary that are not problems (e.g. columns a CSV reader ignored).
    warnings
        What a reader must not miss about curves that were imported (a percentile standing in for the SLO's).
    """

    curves: list[ImportedCurve] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    filtered: int = 0
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Whether at least one curve was imported."""
        return bool(self.curves)


_ISL_OSL = re.compile(r"(?<![a-z0-9])(\d+)k(\d+)k(?![a-z0-9])", re.I)
_ISL_OSL_TOKENS = re.compile(r"(?<![a-z0-9])isl(\d+)[_-]osl(\d+)(?![0-9])", re.I)
_TP = re.compile(r"(?<![a-z])tp(\d+)", re.I)
_EP = re.compile(r"(?<![a-z])ep(\d+)", re.I)
_DPA = re.compile(r"(?<![a-z])dpa(true|false)", re.I)
_DISAGG = re.compile(r"(?<![a-z])disagg-(true|false)", re.I)
_SPEC = re.compile(r"(?<![a-z])spec-([a-z0-9]+)", re.I)
_CONC = re.compile(r"(?<![a-z])conc(\d+)", re.I)
PRECISIONS = {"fp4", "nvfp4", "mxfp4", "fp6", "fp8", "mxfp8", "bf16", "fp16", "fp32", "int4", "int8", "w4a16", "w8a8"}
"""File-name tokens taken as the numeric format a run used."""
FRAMEWORKS = {"vllm", "sglang", "trt", "trtllm", "tensorrt-llm", "tgi", "atom", "dynamo", "lmdeploy", "mori"}
"""File-name tokens taken as the serving framework a run used."""


def names_from_file_name(name: str) -> dict[str, Any]:
    """What an InferenceX-style file name says: ISL/OSL, tp, ep, precision, framework, spec decoding.

    ``1k1k`` is 1024/1024 and ``8k1k`` 8192/1024 (the benchmark's k is 1024). Only tokens that are present
    are returned, under InferenceX's stage-B field names (``tp``, ``isl``, ``spec_decoding``...: InferenceX builds
    its file names from the same configuration), so a reader renames them through ``FIELD_MAP``'s ``stage_b``
    column like a stage-B record; ``isl_osl_token`` is the token ISL/OSL were read from (``8k1k``), for messages.

    Examples
    --------
    >>> names_from_file_name("kimik2.5_8k1k_int4_vllm_tp8-ep1-dpafalse_disagg-false_spec-mtp_conc32_x.json")["isl"]
    8192
    """
    stem = name.rsplit("/", 1)[-1]
    out: dict[str, Any] = {}
    if m := _ISL_OSL.search(stem):
        out["isl"], out["osl"] = int(m.group(1)) * TOKENS_PER_K, int(m.group(2)) * TOKENS_PER_K
        out["isl_osl_token"] = m.group(0)
    elif m := _ISL_OSL_TOKENS.search(stem):  # the token-position experiments: isl10240_osl128, in tokens
        out["isl"], out["osl"] = int(m.group(1)), int(m.group(2))
        out["isl_osl_token"] = m.group(0)
    for pattern, key, cast in (
        (_TP, "tp", int),
        (_EP, "ep", int),
        (_DPA, "dp_attention", str.lower),
        (_DISAGG, "disagg", str.lower),
        (_SPEC, "spec_decoding", str.lower),
        (_CONC, "conc", int),
    ):
        if m := pattern.search(stem):
            out[key] = cast(m.group(1))
    tokens = [t.lower() for t in re.split(r"[_\-.]", stem)]
    if precision := next((t for t in tokens if t in PRECISIONS), None):
        out["precision"] = precision
    if framework := next((t for t in tokens if t in FRAMEWORKS), None):
        out["framework"] = framework
    return out


def parse_only(items: Iterable[str] | Mapping[str, str] | None) -> dict[str, str]:
    """``["tp=8", "precision=fp8"]`` -> ``{"tensor_parallel": "8", "precision": "fp8"}``; ValueError when bad."""
    if items is None:
        return {}
    pairs = items.items() if isinstance(items, Mapping) else [_split_pair(i) for i in items]
    out = {}
    for key, value in pairs:
        name = ONLY_ALIASES.get(key.strip(), key.strip())
        if name not in KEY_FIELDS:
            raise ValueError(f"unknown curve key {key!r}: use one of {', '.join(KEY_FIELDS)} (or tp, ep, isl, osl)")
        out[name] = value.strip()
    return out


def _split_pair(item: str) -> tuple[str, str]:
    if "=" not in item:
        raise ValueError(f"expected KEY=VALUE, got {item!r}")
    key, value = item.split("=", 1)
    return key, value


def stand_in_warning(percentile: str) -> str:
    """What a curve read at a stand-in percentile says (provenance notes and the import's warnings)."""
    return (
        f"TTFT and TPOT at {percentile} STAND IN for the SLO's percentile (p99 by default): the file has no p99, "
        f"{percentile} was named with --percentile; the tail is understated, so the SLO is met more easily than "
        "at p99."
    )


def differing_keys(curves: list[ImportedCurve]) -> dict[str, list[str]]:
    """Key fields whose values differ between curves, with the values (for the mixed-curves error)."""
    out = {}
    for name in KEY_FIELDS:
        values = list(dict.fromkeys(c.key.describe()[name] for c in curves))
        if len(values) > 1:
            out[name] = values
    return out
