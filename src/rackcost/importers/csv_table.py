"""A CSV table with one operating point per row -> operating-point curves with provenance.

The columns carry our own names and units (:data:`CSV_COLUMNS`, also in docs/importers.md); each row is still
renamed through :data:`rackcost.importers.mapping.FIELD_MAP`'s ``csv`` column like any source (a column the map does
not name is ignored, with a note), and only our names are read. Lines starting with ``#`` are comments. Rows that
differ in a curve column (hardware, model, precision, ...) become different curves. Token basis and
per-replica/per-accelerator throughput come from the ``token_basis`` and ``throughput_per`` columns when present,
else from the caller (default ``total`` and ``replica``). ISL/OSL come from the
``benchmark_input_tokens``/``benchmark_output_tokens`` columns, else from the file name (``1k1k``), else from the
caller; a row with none of these is skipped, never guessed.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from rackcost.files import FORMULA_PREFIXES, InputFileError, read_regular_file
from rackcost.importers.curve_building import build_curves
from rackcost.importers.curves import (
    CurveKey,
    ImportResult,
    Row,
    Skipped,
    names_from_file_name,
    parse_only,
)
from rackcost.importers.mapping import (
    Record,
    SkipError,
    number,
    rename_fields,
    source_names,
    tpot_ms_from_interactivity,
    whole_number,
)
from rackcost.units import MS_PER_S

__all__ = ["CSV_COLUMNS", "read_csv_table", "read_csv_table_path"]

MAX_CSV_BYTES = 20_000_000
"""CSV files larger than this are skipped: a table of operating points is a few kB [bytes]."""

BYTES_PER_MB = 1_000_000
"""Bytes in a megabyte, for the size message (decimal, as file managers show it)."""

CSV_COLUMNS: dict[str, str] = {  # the map's csv column, with what each means (a test keeps the two equal)
    # operating point
    "concurrency": "requests in flight per replica [requests]; optional (give it on every row of a curve or none)",
    "throughput_tokens_per_s": "throughput on the token basis, per replica or per accelerator [tokens/s]; required",
    "tpot_ms": "time per output token [ms]; this or interactivity_tokens_per_s is required",
    "interactivity_tokens_per_s": "output tokens per second per user = 1000 / tpot_ms [tokens/s]",
    "ttft_ms": "time to first token at the point, without fleet queueing [ms]; required",
    "power_w_per_accelerator": "measured accelerator BOARD power at the point [W]; optional, never wall power",
    # curve conditions (rows that differ in any of these are different curves)
    "hardware": "accelerator or system name, e.g. gaudi25",
    "benchmark_model": "model the point was measured on",
    "benchmark_precision": "numeric format, e.g. fp8",
    "framework": "serving framework, e.g. vllm",
    "tensor_parallel": "tensor-parallel size [GPUs]",
    "expert_parallel": "expert-parallel size",
    "accelerators_per_replica": "accelerators one replica spans [accelerators]",
    "benchmark_input_tokens": "ISL the point was measured at [tokens]",
    "benchmark_output_tokens": "OSL the point was measured at [tokens]",
    "speculative_decoding": "speculative decoding method, or none",
    "token_basis": "total (input + output tokens) or output",
    "throughput_per": "replica or accelerator",
    # provenance
    "date": "date of the run, ISO 8601",
    "source": "where the row comes from",
}

# TPOT and 1000 / interactivity given on one row must agree to rounding of a printed table
_LATENCY_RTOL = 1e-3


def _text(d: Record, ours: str) -> str | None:
    """A cell's text, stripped, or ``None`` when missing or blank; a spreadsheet formula is refused (the row is
    skipped with the reason), so that it never reaches a scenario's names, labels or sources."""
    value = (d.get(ours) or "").strip()
    if value.startswith(FORMULA_PREFIXES) and not _signed_number(value):
        raise SkipError(d.source_name(ours), "is a spreadsheet formula, not text")
    return value or None


def _signed_number(text: str) -> bool:
    """Whether a cell that starts with a sign is just a number (``-5``), not a formula."""
    try:
        float(text)
    except ValueError:
        return False
    return True


def _choice(d: Record, ours: str, default: str, allowed: tuple[str, ...]) -> str:
    value = (_text(d, ours) or default).lower()
    if value not in allowed:
        raise SkipError(d.source_name(ours), f"must be one of {', '.join(allowed)}, got another text")
    return value


def _row(file: str, line: int, raw: Mapping[str, str], names: dict[str, Any], defaults: dict[str, Any]) -> Row:
    """One operating point of a CSV row, renamed through the map's ``csv`` column: its point, the lengths it was
    measured at, its accelerators per replica and the rest of its curve's key, read in that order (the first
    problem skips the row)."""
    if None in raw:
        raise SkipError("", "more values than columns")
    d = rename_fields(raw, "csv")
    point = _point(d)
    isl, osl, isl_source = _lengths(d, names, defaults)
    gpus, gpus_source, tp = _accelerators(d, defaults)
    precision = _text(d, "benchmark_precision")
    key = CurveKey(
        hardware=_text(d, "hardware"),
        model=_text(d, "benchmark_model"),
        precision=precision.lower() if precision else None,
        framework=_text(d, "framework"),
        tensor_parallel=tp,
        expert_parallel=whole_number(d, "expert_parallel"),
        gpus_per_replica=gpus,
        input_tokens=isl,
        output_tokens=osl,
        speculative_decoding=_text(d, "speculative_decoding"),
        token_basis=_choice(d, "token_basis", defaults["token_basis"], ("total", "output")),
        throughput_per=_choice(d, "throughput_per", defaults["throughput_per"], ("replica", "accelerator")),
    )
    source = _text(d, "source")
    return Row(
        file=file,
        row=line,
        stage="csv",
        key=key,
        point=point,
        isl_osl_source=isl_source,
        gpus_source=gpus_source,
        date=_text(d, "date"),
        extra_notes=[f"Row source: {source}."] if source else [],
    )


def _point(d: Record) -> dict[str, float]:
    """The row's operating point: throughput, TPOT (or 1000 / interactivity, the two agreeing where both are
    given), TTFT, and the concurrency and board power where given."""
    throughput = number(d, "throughput_tokens_per_s")
    ttft_ms = number(d, "ttft_ms")
    tpot_ms = number(d, "tpot_ms", required=False)
    intvty = number(d, "interactivity_tokens_per_s", required=False)
    tpot_name, intvty_name = d.source_name("tpot_ms"), d.source_name("interactivity_tokens_per_s")
    if tpot_ms is None:
        if intvty is None:
            raise SkipError(tpot_name, f"missing (and no {intvty_name}): no time per output token")
        tpot_ms = tpot_ms_from_interactivity(intvty)
    elif intvty is not None and not math.isclose(tpot_ms, MS_PER_S / intvty, rel_tol=_LATENCY_RTOL):
        raise SkipError(
            tpot_name,
            f"{tpot_ms:g} ms disagrees with {intvty_name} {intvty:g} (1000 / it = {MS_PER_S / intvty:.4g} ms)",
        )
    point = {
        "throughput_tokens_per_s": throughput,
        "tpot_ms": tpot_ms,
        "ttft_ms": ttft_ms,
    }
    concurrency = number(d, "concurrency", required=False)
    if concurrency is not None:
        point = {"concurrency": concurrency, **point}
    power = number(d, "power_w_per_accelerator", required=False)
    if power is not None:
        point["power_w_per_accelerator"] = power
    return point


def _lengths(d: Record, names: dict[str, Any], defaults: dict[str, Any]) -> tuple[int, int, str]:
    """The ISL and OSL the row was measured at and where they come from: its columns, else the file name, else the
    options; never guessed."""
    isl, osl = whole_number(d, "benchmark_input_tokens"), whole_number(d, "benchmark_output_tokens")
    isl_name, osl_name = d.source_name("benchmark_input_tokens"), d.source_name("benchmark_output_tokens")
    if (isl is None) != (osl is None):
        raise SkipError(isl_name if isl is None else osl_name, "missing on this row")
    if isl is not None and osl is not None:
        return isl, osl, f"columns {isl_name}/{osl_name}"
    if "benchmark_input_tokens" in (named := rename_fields(names, "stage_b")):  # a file name speaks stage B
        return (
            named["benchmark_input_tokens"],
            named["benchmark_output_tokens"],
            f"file name ({names['isl_osl_token']})",
        )
    if defaults["isl"] is not None:
        return defaults["isl"], defaults["osl"], "option --isl/--osl"
    raise SkipError(
        isl_name,
        "ISL/OSL not in the columns and not in the file name (like 1k1k); give the ISL and OSL as options "
        "(--isl/--osl on the command line; rackcost never guesses the lengths a curve was measured at)",
    )


def _accelerators(d: Record, defaults: dict[str, Any]) -> tuple[int | None, str, int | None]:
    """Accelerators per replica and where the figure comes from (the column, else the option, else the
    tensor-parallel size, else not given), and the tensor-parallel size."""
    gpus = whole_number(d, "accelerators_per_replica")
    gpus_source = f"column {d.source_name('accelerators_per_replica')}"
    if gpus is None and defaults["gpus_per_replica"] is not None:
        gpus, gpus_source = defaults["gpus_per_replica"], "option --gpus-per-replica"
    tp = whole_number(d, "tensor_parallel")
    if gpus is None and tp is not None:
        gpus, gpus_source = tp, f"column {d.source_name('tensor_parallel')}"
    return gpus, gpus_source if gpus is not None else "not given", tp


def read_csv_table(
    name: str,
    data: bytes,
    *,
    token_basis: str = "total",
    throughput_per: str = "replica",
    isl: int | None = None,
    osl: int | None = None,
    gpus_per_replica: int | None = None,
    provenance_class: str = "assumption",
    only: Mapping[str, str] | Iterable[str] | None = None,
) -> ImportResult:
    """Read a CSV table of operating points (columns :data:`CSV_COLUMNS`) into curves.

    Parameters
    ----------
    name
        File name, for messages and for what it says (ISL/OSL like ``1k1k``).
    data
        The file's content (UTF-8, comma- or semicolon-separated, ``#`` comment lines allowed).
    token_basis
        ``total`` or ``output``: tokens the throughput counts, for rows without a ``token_basis`` column.
    throughput_per
        ``replica`` or ``accelerator``, for rows without a ``throughput_per`` column.
    isl, osl
        ISL and OSL for rows whose columns and file name do not give them [tokens].
    gpus_per_replica
        Accelerators per replica for rows without ``accelerators_per_replica`` [accelerators].
    provenance_class
        ``provenance.class`` of every curve. ``assumption`` by default: a CSV does not say who measured it; pass
        ``vendor``, ``collaborative`` or ``independent`` when you know.
    only
        Keep only curves whose key matches, e.g. ``{"tp": "8"}``.

    Returns
    -------
    ImportResult
        Curves and skipped rows; never raises for bad file content.

    Raises
    ------
    ValueError
        For bad arguments.
    """
    if token_basis not in ("total", "output"):
        raise ValueError(f"token_basis must be total or output, got {token_basis!r}")
    if throughput_per not in ("replica", "accelerator"):
        raise ValueError(f"throughput_per must be replica or accelerator, got {throughput_per!r}")
    if (isl is None) != (osl is None):
        raise ValueError("give both isl and osl, or neither")
    only_keys = parse_only(only)
    defaults = {
        "token_basis": token_basis,
        "throughput_per": throughput_per,
        "isl": isl,
        "osl": osl,
        "gpus_per_replica": gpus_per_replica,
    }
    result = ImportResult()
    try:
        reader, header, offset = _reader(data)
    except SkipError as exc:
        result.skipped.append(Skipped(name, None, exc.field, exc.reason))
        return result
    columns = {name for names in source_names("csv").values() for name in names}
    unknown = [h for h in header if h not in columns]
    if unknown:
        result.notes.append(f"{name}: columns ignored (not rackcost CSV columns): {', '.join(unknown)}")
    column = {ours: names[0] for ours, names in source_names("csv").items()}
    missing = [column[c] for c in ("throughput_tokens_per_s", "ttft_ms") if column[c] not in header]
    if column["tpot_ms"] not in header and column["interactivity_tokens_per_s"] not in header:
        missing.append(f"{column['tpot_ms']} or {column['interactivity_tokens_per_s']}")
    if missing:
        hint = f" (columns found: {', '.join(header)})" if header else ""
        result.skipped.append(Skipped(name, None, missing[0], f"column missing: {', '.join(missing)}{hint}"))
        return result
    names = names_from_file_name(name)
    rows = []
    while True:
        try:
            d = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            line = reader.line_num + offset
            result.skipped.append(Skipped(name, line, "", f"not a CSV row: {exc}; the rest is not read"))
            break
        line = reader.line_num + offset  # 1-based line in the file
        if not any((v or "").strip() for k, v in d.items() if k is not None):
            continue
        try:
            rows.append(_row(name, line, d, names, defaults))
        except SkipError as exc:
            result.skipped.append(Skipped(name, line, exc.field, exc.reason))
    if not rows and not result.skipped:
        result.skipped.append(Skipped(name, None, "", "no data rows under the header"))
    result.curves, result.filtered = build_curves(
        rows, result.skipped, percentile="as given", provenance_class=provenance_class, importer="csv", only=only_keys
    )
    return result


def _reader(data: bytes) -> tuple[csv.DictReader, list[str], int]:
    if len(data) > MAX_CSV_BYTES:
        raise SkipError("", f"larger than {MAX_CSV_BYTES // BYTES_PER_MB} MB")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise SkipError("", "not UTF-8 text; expected a CSV table") from None
    # comment lines become blank lines, so that line numbers stay those of the file
    lines = ["" if line.lstrip().startswith("#") else line for line in text.splitlines()]
    start = next((i for i, line in enumerate(lines) if line.strip()), None)
    if start is None:
        raise SkipError("", "empty file; expected a CSV header line")
    first = lines[start]
    delimiter = ";" if first.count(";") > first.count(",") else ","
    reader = csv.DictReader(io.StringIO("\n".join(lines[start:])), delimiter=delimiter)
    try:
        header = [h.strip().lower() for h in (reader.fieldnames or [])]
    except csv.Error as exc:
        raise SkipError("", f"not a CSV table: {exc}") from None
    if len(set(header)) != len(header):
        repeated = sorted({h for h in header if header.count(h) > 1})
        raise SkipError(repeated[0], f"column repeated in the header: {', '.join(repeated)}")
    reader.fieldnames = header
    return reader, header, start


def read_csv_table_path(path: str | Path, **options: Any) -> ImportResult:
    """:func:`read_csv_table` on a file on disk; an unreadable file is reported in ``skipped``."""
    try:  # a regular file only (never a FIFO or device), its size checked before the bounded read
        data = read_regular_file(path, MAX_CSV_BYTES, "CSV table")
    except InputFileError as exc:
        return ImportResult(skipped=[Skipped(str(path), None, "", str(exc).removeprefix(f"{path}: "))])
    return read_csv_table(str(path), data, **options)
