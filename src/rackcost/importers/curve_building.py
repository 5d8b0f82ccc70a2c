"""Rows grouped into curves (:func:`build_curves`): by key, a repeated concurrency dropped, each curve's
``performance`` block and its provenance in words (the files and rows, the dates, the stack, how its lengths and
latencies were read, measured power and output throughput), each checked against the scenario schema.

The containers a reader hands over and gets back (:class:`rackcost.importers.curves.Row`,
:class:`~rackcost.importers.curves.ImportedCurve`, ...) are in :mod:`rackcost.importers.curves`.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import PurePath
from typing import Any

from pydantic import ValidationError

from rackcost.importers.curves import (
    MEASURED_LENGTH_DIGITS,
    CurveKey,
    ImportedCurve,
    Row,
    Skipped,
    stand_in_warning,
)
from rackcost.importers.mapping import STAND_IN_PERCENTILES
from rackcost.scenario.schema import Performance, Provenance

__all__ = ["build_curves"]

DAY_CHARS = len("YYYY-MM-DD")
"""Characters of an ISO 8601 date at the start of a date-time: the day a run is dated by."""

SORT_DIGITS = 12
"""Whole numbers in a curve key are zero-padded to this many digits so that text order is numeric order (far more
than any GPU count or sequence length)."""


def _matches(key: CurveKey, only: Mapping[str, str]) -> bool:
    described = key.describe()
    return all(described[name].lower() == value.lower() for name, value in only.items())


def build_curves(
    rows: list[Row],
    skipped: list[Skipped],
    *,
    percentile: str,
    provenance_class: str,
    importer: str,
    only: Mapping[str, str] | None = None,
) -> tuple[list[ImportedCurve], int]:
    """Group rows into curves by key; drop repeated concurrencies (reported); build performance and provenance.

    Returns
    -------
    curves, filtered
        The curves in a stable order, and how many rows the ``only`` filter left out [rows].
    """
    groups: dict[CurveKey, list[Row]] = {}
    filtered = 0
    for row in rows:
        if only and not _matches(row.key, only):
            filtered += 1
            continue
        groups.setdefault(row.key, []).append(row)
    curves = []
    for key, members in groups.items():
        members = _drop_repeats(members, skipped)
        if not members:
            continue
        curve = _curve(key, members, percentile, provenance_class, importer)
        try:
            Performance.model_validate(curve.performance)
            Provenance.model_validate(curve.provenance)
        except ValidationError as exc:  # a reader bug or an odd file: skip the curve, never a traceback
            first = exc.errors(include_url=False)[0]
            for r in members:
                skipped.append(Skipped(r.file, r.row, ".".join(map(str, first["loc"])) or "performance", first["msg"]))
            continue
        curves.append(curve)
    curves.sort(key=lambda c: tuple(_sort_value(v) for v in vars(c.key).values()))
    return curves, filtered


def _sort_value(value: object) -> tuple[int, str]:
    """Unstated first, numbers in numeric order, text in text order."""
    if value is None:
        return (0, "")
    if isinstance(value, int):
        return (1, f"{value:0{SORT_DIGITS}d}")
    return (2, str(value).lower())


def _drop_repeats(members: list[Row], skipped: list[Skipped]) -> list[Row]:
    """Keep the first row at each concurrency; with and without concurrency may not mix in one curve."""
    with_conc = [r for r in members if "concurrency" in r.point]
    kept: dict[float, Row] = {}
    out = []
    for r in members:
        if "concurrency" not in r.point:
            if with_conc:
                skipped.append(
                    Skipped(r.file, r.row, "concurrency", "missing while other rows of the same curve give it")
                )
                continue
            out.append(r)
            continue
        c = r.point["concurrency"]
        if c in kept:
            first = kept[c]
            skipped.append(
                Skipped(
                    r.file,
                    r.row,
                    "concurrency",
                    f"repeats concurrency {c:g} of {first.file}"
                    + (f"[row {first.row}]" if first.row is not None else "")
                    + " in the same curve; the first is kept",
                )
            )
            continue
        kept[c] = r
        out.append(r)
    return out


def _dates(rows: list[Row]) -> str:
    days = sorted({r.date[:DAY_CHARS] for r in rows if r.date})
    if not days:
        return "unstated (not in the files)"
    return days[0] if len(days) == 1 else f"{days[0]} to {days[-1]}"


def _curve(key: CurveKey, rows: list[Row], percentile: str, provenance_class: str, importer: str) -> ImportedCurve:
    """One curve from its rows: the ``performance`` block, its provenance (the files and rows, the stack, the notes)
    and how its lengths and accelerators were found."""
    rows = sorted(rows, key=lambda r: r.point.get("concurrency", 0.0))
    lengths = _measured_lengths(rows)
    performance = _performance(key, rows, lengths)
    files = list(dict.fromkeys(r.file for r in rows))
    images = sorted({r.image for r in rows if r.image})
    stack = key.framework or "framework unstated"
    stack += f"; image {', '.join(images)}" if images else "; image unstated"
    stages = sorted({r.stage for r in rows})
    isl_sources = list(dict.fromkeys(r.isl_osl_source for r in rows))
    gpu_sources = list(dict.fromkeys(r.gpus_source for r in rows))
    notes = _notes(key, rows, performance["points"], percentile, importer, lengths, stages, isl_sources, gpu_sources)
    provenance = {
        "class": provenance_class,
        "date": _dates(rows),
        "source": ("InferenceX result files: " if importer == "inferencex" else "CSV table: ")
        + "; ".join(_file_rows(rows, files, importer)),
        "software_stack": stack,
        "notes": " ".join(notes),
    }
    isl_osl_source = "; ".join(isl_sources)
    if lengths is not None:
        requests = _requests(rows)
        over = f" over {requests:g} requests" if requests is not None else ""
        isl_osl_source = (
            f"measured mean {_tokens(lengths[0])}/{_tokens(lengths[1])}{over}; nominal from {isl_osl_source}"
        )
    return ImportedCurve(
        key=key,
        performance=performance,
        provenance=provenance,
        percentile=percentile,
        isl_osl_source=isl_osl_source,
        gpus_source="; ".join(gpu_sources),
        stages=stages,
        files=files,
        token_lengths="nominal" if lengths is None else "measured",
    )


def _performance(key: CurveKey, rows: list[Row], lengths: tuple[float, float] | None) -> dict[str, Any]:
    """A curve's ``performance`` block: the key's conditions, a disaggregated replica's roles, the points (in the
    rows' order, whole concurrencies as integers) and the measured mean lengths where every row has them."""
    points = [dict(r.point) for r in rows]
    for p in points:
        if "concurrency" in p and float(p["concurrency"]).is_integer():
            p["concurrency"] = int(p["concurrency"])
    performance: dict[str, Any] = {"token_basis": key.token_basis, "throughput_per": key.throughput_per}
    for ours, value in (
        ("benchmark_model", key.model),
        ("benchmark_precision", key.precision),
        ("benchmark_input_tokens", key.input_tokens),
        ("benchmark_output_tokens", key.output_tokens),
        ("framework", key.framework),
        ("speculative_decoding", key.speculative_decoding),
        ("decode_accelerators_per_replica", key.decode_gpus_per_replica),
    ):
        if value is not None:
            performance[ours] = value
    if None not in (key.prefill_workers, key.prefill_gpus_per_replica, key.decode_workers, key.decode_gpus_per_replica):
        # a disaggregated replica: its prefill and decode workers and GPUs (the curve stays the whole replica's)
        performance["roles"] = {
            "prefill": {"workers": key.prefill_workers, "accelerators": key.prefill_gpus_per_replica},
            "decode": {"workers": key.decode_workers, "accelerators": key.decode_gpus_per_replica},
        }
    performance["points"] = points
    if lengths is not None:
        performance["benchmark_input_tokens"], performance["benchmark_output_tokens"] = lengths
    return performance


def _file_rows(rows: list[Row], files: list[str], importer: str) -> list[str]:
    """Each file of a curve by its name, with the rows (CSV: lines) its points come from."""
    sources = []
    row_word = "lines" if importer == "csv" else "rows"
    for f in files:
        idx = sorted(r.row for r in rows if r.file == f and r.row is not None)
        base = PurePath(f).name
        word = row_word if len(idx) > 1 else row_word[:-1]
        sources.append(f"{base} ({word} {', '.join(map(str, idx))})" if idx else base)
    return sources


def _notes(
    key: CurveKey,
    rows: list[Row],
    points: list[dict[str, Any]],
    percentile: str,
    importer: str,
    lengths: tuple[float, float] | None,
    stages: list[str],
    isl_sources: list[str],
    gpu_sources: list[str],
) -> list[str]:
    """A curve's provenance notes, in order: how it was imported and its latencies read, where ISL/OSL and the
    lengths come from, the accelerators per replica, a stand-in percentile, board power, output throughput, the
    original files, then each row's own notes."""
    notes = [
        f"Imported by rackcost ({importer}, stage {'/'.join(stages)}); TTFT and TPOT at {percentile} "
        + (
            f"(TPOT = 1000 / {percentile} interactivity)."
            if set(stages) <= {"B", "C"}
            else f"(TPOT from {percentile} TPOT; stage F's interactivity percentiles are not one over it)."
            if stages == ["F"]
            else "(as the raw client measured them)."
        )
        if importer == "inferencex"
        else f"Imported by rackcost ({importer}).",
        f"ISL/OSL from {'; '.join(isl_sources)}.",
        _lengths_note(key, rows, lengths),
    ]
    if key.throughput_per == "replica" and key.gpus_per_replica is not None:
        notes.append(f"Throughput per replica of {key.gpus_per_replica} GPUs ({'; '.join(gpu_sources)}).")
    if percentile in STAND_IN_PERCENTILES:
        notes.append(stand_in_warning(percentile))
    if any("power_w_per_accelerator" in p or "peak_power_w_per_accelerator" in p for p in points):
        notes.append(
            "power_w_per_accelerator (mean) and peak_power_w_per_accelerator are measured GPU board power, not wall "
            "power (provenance: measured board power)."
        )
    if any("output_throughput_tokens_per_s" in p for p in points):
        notes.append(
            "output_throughput_tokens_per_s is the measured output throughput per replica"
            + (
                f" (InferenceX's output_tput_per_gpu is per decode GPU: x {key.decode_gpus_per_replica} decode GPUs)."
                if key.decode_gpus_per_replica is not None
                else "."
            )
        )
    originals = [r.source_file for r in rows if r.source_file]
    if originals:
        folders = sorted({str(PurePath(o).parent.parent) for o in originals})
        notes.append(
            f"Original result files (under {', '.join(folders)}): "
            + ", ".join(PurePath(o).name for o in originals)
            + "."
        )
    for r in rows:
        notes.extend(n for n in r.extra_notes if n not in notes)
    return notes


def _requests(rows: list[Row]) -> float | None:
    """Requests all rows' measured means are over, or ``None`` when a row does not say [requests]."""
    counts = [r.measured.requests for r in rows if r.measured is not None and r.measured.requests is not None]
    return None if len(counts) < len(rows) else float(sum(counts))


def _round_length(tokens: float) -> float:
    """A measured mean length to :data:`MEASURED_LENGTH_DIGITS` significant digits [tokens]."""
    return float(f"{tokens:.{MEASURED_LENGTH_DIGITS}g}")


def _tokens(tokens: float) -> str:
    """A mean length for text: one decimal (``926.7``) [tokens]."""
    return f"{tokens:.1f}"


def _measured_lengths(rows: list[Row]) -> tuple[float, float] | None:
    """Measured mean input and output tokens per request of a curve, or ``None`` unless every row measured them.

    One curve has one pair (``performance.benchmark_input_tokens``/``benchmark_output_tokens``): the means of its
    rows' runs pooled over their requests (sum of tokens / sum of requests), or averaged when a row does not give
    its request count. A curve whose rows do not all carry measured lengths keeps the nominal ISL/OSL: lengths
    measured at some points are not evidence about the others.
    """
    measured = [r.measured for r in rows]
    if not measured or any(m is None for m in measured):
        return None
    ms = [m for m in measured if m is not None]
    requests = _requests(rows)
    if requests is not None:
        mean_in = sum(m.input_tokens * m.requests for m in ms if m.requests is not None) / requests
        mean_out = sum(m.output_tokens * m.requests for m in ms if m.requests is not None) / requests
    else:
        mean_in = sum(m.input_tokens for m in ms) / len(ms)
        mean_out = sum(m.output_tokens for m in ms) / len(ms)
    return _round_length(mean_in), _round_length(mean_out)


def _lengths_note(key: CurveKey, rows: list[Row], lengths: tuple[float, float] | None) -> str:
    """What ``benchmark_input_tokens``/``benchmark_output_tokens`` are (measured or nominal) and why, for notes."""
    nominal = f"{key.input_tokens}/{key.output_tokens}"
    if lengths is None:
        have = sum(r.measured is not None for r in rows)
        why = (
            "the files carry no measured token counts or request rate"
            if have == 0
            else f"only {have} of {len(rows)} points carry measured token counts"
        )
        return (
            f"Tokens per request: nominal ISL/OSL {nominal} ({why}); the request rate is throughput / "
            f"{key.input_tokens + key.output_tokens} tokens."
            if key.input_tokens is not None and key.output_tokens is not None
            else f"Tokens per request: nominal ({why})."
        )
    mean_in, mean_out = lengths
    sources = "; ".join(dict.fromkeys(r.measured.source for r in rows if r.measured is not None))
    requests = _requests(rows)
    over = f", {requests:g} requests" if requests is not None else ""
    note = (
        f"Tokens per request: measured mean {_tokens(mean_in)} input + {_tokens(mean_out)} output ({sources}{over}), "
        f"not the nominal {nominal}: benchmark_input_tokens/benchmark_output_tokens are these measured means, so the "
        "request rate rackcost derives (throughput / tokens per request) is the measured one"
    )
    gaps = []
    for r in rows:
        m = r.measured
        assert m is not None  # _measured_lengths returned lengths: every row measured them
        rate = r.point["throughput_tokens_per_s"] / (mean_in + mean_out)
        measured_rate = m.request_rate or r.point["throughput_tokens_per_s"] / (m.input_tokens + m.output_tokens)
        gaps.append(abs(rate / measured_rate - 1))
    if len(rows) > 1 and max(gaps) > 1 / 10**MEASURED_LENGTH_DIGITS:
        note += (
            f" to within {max(gaps):.2%} at each point (one mean length per curve; each run's own mean differs "
            "a little)"
        )
    return note + "."
