"""Request traces in their published formats: the arrivals ``rackcost simulate --trace`` replays and ``rackcost
trace`` measures.

Three formats, told apart by their content (the header, or a first line that is a JSON object) or named by the
caller:

- ``csv``: rackcost's own CSV, ``arrival_s,input_tokens,output_tokens`` (arrival times [s], tokens per request;
  extra columns ignored), what ``rackcost trace --write-trace`` writes.
- ``azure``: the Azure LLM inference trace (Microsoft, AzurePublicDataset, "Azure LLM inference trace 2023";
  Patel et al., "Splitwise: efficient generative LLM inference using phase splitting", ISCA 2024): a CSV of
  ``TIMESTAMP`` (wall-clock ``YYYY-MM-DD HH:MM:SS.fffffff``, up to 9 sub-second digits, no time zone),
  ``ContextTokens`` (input) and ``GeneratedTokens`` (output). Arrival times are seconds after midnight of the first
  row's date (exact to the nanosecond: the date and time are parsed as integers, not through a float of the epoch).
- ``mooncake``: the Mooncake trace (Moonshot AI / kvcache-ai, Mooncake ``FAST25-release/traces``; Qin et al.,
  "Mooncake: a KVCache-centric disaggregated architecture for LLM serving", FAST 2025): one JSON object per line,
  ``timestamp`` (ms from the trace's start), ``input_length``, ``output_length`` and ``hash_ids`` (one id per
  512-token block of the prompt; equal ids are the same prefix block), kept on :attr:`Trace.hash_ids`.

Every value is checked as it is read (numbers, arrival times >= 0, token counts > 0 and at most 1e7, at least 20
rows, a span of time at a mean rate a demand point takes: 1e-6 to 1e7 requests/s) and a bad one is refused with a
message naming the file (and the row, or the line of a JSONL file); the file's size is checked before it is read.
"""

from __future__ import annotations

import csv
import datetime
import io
import json
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from rackcost import files
from rackcost.scenario.fields import RPS_RANGE, TOKENS_RANGE

__all__ = [
    "CSV_COLUMNS",
    "FORMATS",
    "MAX_TRACE_BYTES",
    "MOONCAKE_BLOCK_TOKENS",
    "Trace",
    "detect_format",
    "read_arrival_times",
    "read_trace",
]

CSV_COLUMNS = ("arrival_s", "input_tokens", "output_tokens")
"""The columns of rackcost's own CSV trace."""
AZURE_COLUMNS = ("TIMESTAMP", "ContextTokens", "GeneratedTokens")
"""The columns of the Azure LLM inference trace read: arrival, input tokens, output tokens."""
MOONCAKE_KEYS = ("timestamp", "input_length", "output_length", "hash_ids")
"""The keys of a Mooncake trace's JSON line read: arrival [ms], input tokens, output tokens, prompt block hashes."""
FORMATS = {
    "csv": "rackcost CSV (arrival_s,input_tokens,output_tokens)",
    "azure": "Azure LLM inference trace CSV (TIMESTAMP,ContextTokens,GeneratedTokens)",
    "mooncake": "Mooncake JSONL (timestamp [ms],input_length,output_length,hash_ids)",
}
"""The formats read, by the name ``--trace-format`` takes, with what each is."""
MOONCAKE_BLOCK_TOKENS = 512
"""Prompt tokens per ``hash_ids`` entry of a Mooncake trace (Qin et al. 2025) [tokens]."""
MAX_TRACE_BYTES = 500_000_000
"""Largest trace file read [bytes]: about 20 million requests of three columns."""
MIN_REQUESTS = 20
"""Fewest requests a trace may hold [-]."""


@dataclass(frozen=True)
class Trace:
    """Requests read from a trace, sorted by arrival.

    Attributes
    ----------
    arrival_s
        Arrival times [s].
    input_tokens, output_tokens
        Tokens of each request [tokens]; empty arrays where the file carries arrival times only (a CSV with an
        ``arrival_s`` column and no token columns, read with ``tokens=False``: see :attr:`has_tokens`).
    hash_ids
        Each request's prompt block hashes (one int64 array per request, in arrival order), where the format has
        them (Mooncake); else None.
    block_tokens
        Prompt tokens per hash id [tokens] (512 for Mooncake); None without hashes.
    source_format
        The format read (a key of :data:`FORMATS`).
    columns
        The columns (or JSON keys) read, in the order arrival, input, output[, hashes].
    """

    arrival_s: np.ndarray
    input_tokens: np.ndarray
    output_tokens: np.ndarray
    hash_ids: tuple[np.ndarray, ...] | None = None
    block_tokens: int | None = None
    source_format: str = "csv"
    columns: tuple[str, ...] = CSV_COLUMNS

    @property
    def span_s(self) -> float:
        """Time from the first to the last arrival [s]."""
        return float(self.arrival_s[-1] - self.arrival_s[0])

    @property
    def arrival_rps(self) -> float:
        """Mean arrival rate over the trace, ``(requests - 1) / span`` [requests/s]."""
        span = self.span_s
        return (self.arrival_s.size - 1) / span if span > 0 else math.inf

    @property
    def has_tokens(self) -> bool:
        """Whether every request carries its token counts."""
        return self.input_tokens.size == self.arrival_s.size and self.output_tokens.size == self.arrival_s.size


def _text(path: str | Path, what: str) -> str:
    """The UTF-8 text of a trace file, its size checked before the bounded read."""
    try:  # a regular file only (a FIFO would block, /dev/zero never end), its size checked before the bounded read
        raw = files.read_regular_file(path, MAX_TRACE_BYTES, what)
        return raw.decode("utf-8-sig")
    except files.InputFileError as exc:
        raise ValueError(str(exc)) from None
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not a UTF-8 text file; expected a {what}") from None


def detect_format(text: str) -> str | None:
    """The format of a trace's text (a key of :data:`FORMATS`), from its first non-blank line; None if none fits.

    Examples
    --------
    >>> detect_format('{"timestamp": 0, "input_length": 10, "output_length": 5}\\n')
    'mooncake'
    >>> detect_format("TIMESTAMP,ContextTokens,GeneratedTokens\\n"), detect_format("arrival_s\\n")
    ('azure', 'csv')
    >>> detect_format("t\\n") is None
    True
    """
    first = next((line for line in text.splitlines() if line.strip()), "")
    if first.lstrip().startswith("{"):
        return "mooncake"
    header = {cell.strip() for cell in next(csv.reader([first]), [])}
    if "TIMESTAMP" in header:
        return "azure"
    if "arrival_s" in header:
        return "csv"
    return None


def _number(path: str | Path, where: str, name: str, raw: object) -> float:
    """A finite number read from a cell or a JSON value, or a ValueError naming the file, the row and the column."""
    if isinstance(raw, bool) or raw is None or isinstance(raw, list | dict):
        raise ValueError(f"{path}: {where}: {name} is not a number: {str(raw)[:40]!r}")
    try:
        value = float(raw)  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{path}: {where}: {name} is not a number: {str(raw)[:40]!r}") from None
    if not math.isfinite(value):
        raise ValueError(f"{path}: {where}: {name} must be a finite, positive number: {value}")
    return value


def _tokens(path: str | Path, where: str, name: str, raw: object) -> float:
    """A request's token count: a number in (0, :data:`TOKENS_RANGE` max]."""
    value = _number(path, where, name, raw)
    if value <= 0:
        raise ValueError(f"{path}: {where}: {name} must be a finite, positive number: {value}")
    if value > TOKENS_RANGE[1]:  # 1e300 tokens overflowed the simulated rates
        raise ValueError(
            f"{path}: {where}: {name} is {value:g}, more than the {TOKENS_RANGE[1]:g} tokens a request may have"
        )
    return value


def _checked_arrivals(path: str | Path, arrival: np.ndarray, what: str) -> None:
    """At least :data:`MIN_REQUESTS` arrivals over a span of time at a mean rate a demand point takes."""
    if arrival.size < MIN_REQUESTS:
        raise ValueError(f"{path}: a {what} needs at least {MIN_REQUESTS} requests, found {arrival.size}")
    span = float(arrival.max() - arrival.min())
    if span <= 0:
        raise ValueError(f"{path}: every arrival is at one instant ({arrival[0]:g} s): a {what} needs a span of time")
    # the mean rate must be one a demand point takes: arrivals 1e-300 s apart (a rate of 1e300, or infinite) or
    # 1e300 s apart are no traffic a fleet is sized for, and their times resolve no service time
    rate = (arrival.size - 1) / span
    lo, hi = RPS_RANGE
    if not lo <= rate <= hi:
        raise ValueError(
            f"{path}: {arrival.size:,} arrivals over {span:.4g} s are {rate:.4g} requests/s on average, outside the "
            f"{lo:g} to {hi:g} a demand point takes (are the arrival times in seconds?)"
        )


def _csv_rows(path: str | Path, text: str, names: tuple[str, ...], what: str) -> Iterator[tuple[int, dict[str, str]]]:
    """The rows of a CSV (numbered as a spreadsheet shows them: the header is row 1), after checking its header."""
    with io.StringIO(text, newline="") as fh:
        reader = csv.DictReader(fh)
        missing = [n for n in names if n not in (reader.fieldnames or [])]
        if missing:
            raise ValueError(f"{path}: a {what} needs the columns {', '.join(names)}; missing {', '.join(missing)}")
        yield from enumerate(reader, start=2)


def _read_csv(path: str | Path, text: str, tokens: bool) -> Trace:
    """rackcost's CSV: ``arrival_s`` and (required with ``tokens``, else read where present) the token columns."""
    what = "CSV trace" if tokens else "CSV of arrival times"
    header = next(csv.reader(io.StringIO(text)), [])
    names = CSV_COLUMNS if tokens or all(n in header for n in CSV_COLUMNS[1:]) else CSV_COLUMNS[:1]
    columns: dict[str, list[float]] = {n: [] for n in names}
    for row_number, row in _csv_rows(path, text, names, what):
        where = f"row {row_number}"
        for n in names:
            cell = row[n]
            if n == "arrival_s":
                value = _number(path, where, n, cell)
                if value < 0:
                    raise ValueError(f"{path}: {where}: {n} must be a finite, positive number: {value}")
            else:
                value = _tokens(path, where, n, cell)
            columns[n].append(value)
    arrival = np.array(columns["arrival_s"], dtype=float)
    _checked_arrivals(path, arrival, what)
    order = np.argsort(arrival, kind="stable")
    empty = np.zeros(0)
    return Trace(
        arrival[order],
        np.array(columns["input_tokens"])[order] if "input_tokens" in columns else empty,
        np.array(columns["output_tokens"])[order] if "output_tokens" in columns else empty,
        source_format="csv",
        columns=names,
    )


_TIMESTAMP = re.compile(r"\s*(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?\s*")


def _azure_seconds(path: str | Path, where: str, cell: str | None, origin: list[datetime.date]) -> float:
    """Seconds from midnight of the first row's date to a ``TIMESTAMP`` cell (exact: integer date and time, then
    the sub-second digits)."""
    match = _TIMESTAMP.fullmatch(cell or "")
    if match is None:
        raise ValueError(
            f"{path}: {where}: TIMESTAMP is not a date and time 'YYYY-MM-DD HH:MM:SS[.fraction]': {(cell or '')[:40]!r}"
        )
    year, month, day, hour, minute, second = (int(g) for g in match.groups()[:6])
    try:
        moment = datetime.datetime(year, month, day, hour, minute, second)
    except ValueError as exc:
        raise ValueError(f"{path}: {where}: TIMESTAMP {cell!r} is not a date and time: {exc}") from None
    if not origin:
        origin.append(moment.date())
    whole_s = (moment.date() - origin[0]).days * 86_400 + hour * 3600 + minute * 60 + second
    fraction = match.group(7) or ""
    return whole_s + (int(fraction) / 10 ** len(fraction) if fraction else 0.0)


def _read_azure(path: str | Path, text: str) -> Trace:
    """The Azure LLM inference trace CSV (module docstring)."""
    what = "Azure LLM inference trace"
    origin: list[datetime.date] = []
    arrival: list[float] = []
    inputs: list[float] = []
    outputs: list[float] = []
    for row_number, row in _csv_rows(path, text, AZURE_COLUMNS, what):
        where = f"row {row_number}"
        seconds = _azure_seconds(path, where, row["TIMESTAMP"], origin)
        if seconds < 0:
            raise ValueError(
                f"{path}: {where}: TIMESTAMP {row['TIMESTAMP']!r} is before the first row's date {origin[0]}"
            )
        arrival.append(seconds)
        inputs.append(_tokens(path, where, "ContextTokens", row["ContextTokens"]))
        outputs.append(_tokens(path, where, "GeneratedTokens", row["GeneratedTokens"]))
    times = np.array(arrival, dtype=float)
    _checked_arrivals(path, times, what)
    order = np.argsort(times, kind="stable")
    return Trace(
        times[order], np.array(inputs)[order], np.array(outputs)[order], source_format="azure", columns=AZURE_COLUMNS
    )


_MAX_HASH_ID = 2**63 - 1


def _read_mooncake(path: str | Path, text: str) -> Trace:
    """The Mooncake JSONL trace (module docstring); ``hash_ids`` where every line has them."""
    what = "Mooncake trace"
    arrival: list[float] = []
    inputs: list[float] = []
    outputs: list[float] = []
    hashes: list[np.ndarray] = []
    with_hashes: bool | None = None
    for line_number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"line {line_number}"
        try:
            record = json.loads(line)
        except (json.JSONDecodeError, RecursionError):
            raise ValueError(f"{path}: {where}: not a JSON object: {line[:40]!r}") from None
        if not isinstance(record, dict):
            raise ValueError(f"{path}: {where}: not a JSON object: {line[:40]!r}")
        missing = [k for k in MOONCAKE_KEYS[:3] if k not in record]
        if missing:
            raise ValueError(
                f"{path}: {where}: a {what} line needs the keys {', '.join(MOONCAKE_KEYS[:3])}; missing "
                f"{', '.join(missing)}"
            )
        ms = _number(path, where, "timestamp", record["timestamp"])
        if ms < 0:
            raise ValueError(f"{path}: {where}: timestamp must be a finite, positive number: {ms}")
        arrival.append(ms / 1000.0)
        inputs.append(_tokens(path, where, "input_length", record["input_length"]))
        outputs.append(_tokens(path, where, "output_length", record["output_length"]))
        has = "hash_ids" in record
        if with_hashes is None:
            with_hashes = has
        elif has != with_hashes:
            raise ValueError(f"{path}: {where}: hash_ids are on some lines and not others: give them on every line")
        if has:
            ids = record["hash_ids"]
            if not isinstance(ids, list) or not all(
                isinstance(i, int) and not isinstance(i, bool) and 0 <= i <= _MAX_HASH_ID for i in ids
            ):
                raise ValueError(f"{path}: {where}: hash_ids must be a list of integers from 0 to 2^63 - 1")
            hashes.append(np.array(ids, dtype=np.int64))
    times = np.array(arrival, dtype=float)
    _checked_arrivals(path, times, what)
    order = np.argsort(times, kind="stable")
    return Trace(
        times[order],
        np.array(inputs)[order],
        np.array(outputs)[order],
        hash_ids=tuple(hashes[i] for i in order) if with_hashes else None,
        block_tokens=MOONCAKE_BLOCK_TOKENS if with_hashes else None,
        source_format="mooncake",
        columns=MOONCAKE_KEYS if with_hashes else MOONCAKE_KEYS[:3],
    )


def read_trace(path: str | Path, trace_format: str | None = None, tokens: bool = True) -> Trace:
    """Read a trace in any of :data:`FORMATS`, found from its content unless ``trace_format`` names it.

    Parameters
    ----------
    path
        The trace file.
    trace_format
        A key of :data:`FORMATS`; None to tell it from the first line.
    tokens
        Require the token counts (a replay needs them); with False, rackcost's CSV may carry ``arrival_s`` only
        (its token columns are read where present; :attr:`Trace.has_tokens` says which).

    Raises
    ------
    ValueError
        The format is unknown or not found, a column (or key) is missing, a value is not a finite number, a token
        count is not positive or passes 1e7, there are fewer than 20 requests, or their mean rate is outside
        :data:`RPS_RANGE`; the message names the file (and the row or line).
    """
    if trace_format is not None and trace_format not in FORMATS:
        raise ValueError(f"{path}: unknown trace format {trace_format!r}; expected one of {', '.join(FORMATS)}")
    text = _text(path, "trace")
    found = trace_format if trace_format is not None else detect_format(text)
    if found == "azure":
        return _read_azure(path, text)
    if found == "mooncake":
        return _read_mooncake(path, text)
    if found is None:
        first = next((line for line in text.splitlines() if line.strip()), "")
        needs = ", ".join(CSV_COLUMNS if tokens else CSV_COLUMNS[:1])
        raise ValueError(
            f"{path}: a trace needs the columns {needs} (rackcost's CSV), or {', '.join(AZURE_COLUMNS)} (the Azure "
            f"LLM inference trace), or a JSON object per line (Mooncake); found {first[:60]!r}"
        )
    return _read_csv(path, text, tokens)


def read_arrival_times(path: str | Path) -> np.ndarray:
    """The sorted arrival times of any trace :func:`read_trace` reads, token columns optional [s].

    Raises
    ------
    ValueError
        As :func:`read_trace`.
    """
    return read_trace(path, tokens=False).arrival_s
