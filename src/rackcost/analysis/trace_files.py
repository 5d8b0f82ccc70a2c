"""Arrival traces read from CSV: the arrivals ``rackcost simulate --trace`` replays and ``rackcost trace`` measures.

Every value is checked as it is read (numbers, arrival times >= 0, token counts > 0 and at most 1e7, at least 20
rows, a span of time at a mean rate a demand point takes: 1e-6 to 1e7 requests/s) and a bad one is refused with a
message naming the file (and the row); the file's size is checked before it is read.
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from rackcost import files
from rackcost.scenario.fields import RPS_RANGE, TOKENS_RANGE

__all__ = ["MAX_TRACE_BYTES", "Trace", "read_arrival_times", "read_trace"]


@dataclass(frozen=True)
class Trace:
    """Arrivals read from a CSV trace (``arrival_s,input_tokens,output_tokens``), sorted by arrival.

    Attributes
    ----------
    arrival_s
        Arrival times [s].
    input_tokens, output_tokens
        Tokens of each request [tokens]. Output length sets each request's work (length / mean length); input
        tokens are carried for the record only, since the curve was measured at the workload's ISL.
    """

    arrival_s: np.ndarray
    input_tokens: np.ndarray
    output_tokens: np.ndarray

    @property
    def arrival_rps(self) -> float:
        """Mean arrival rate over the trace [requests/s]."""
        span = float(self.arrival_s[-1] - self.arrival_s[0])
        return (self.arrival_s.size - 1) / span if span > 0 else math.inf


MAX_TRACE_BYTES = 500_000_000
"""Largest trace file read [bytes]: about 20 million requests of three columns."""


def _read_columns(path: str | Path, names: tuple[str, ...], what: str) -> dict[str, np.ndarray]:
    """The named columns of a CSV of numbers (others ignored): arrival times >= 0, other values > 0, at least 20
    rows, a span of time at a mean rate a demand point takes (:data:`RPS_RANGE`); the message names the file (and
    the row)."""
    columns: dict[str, list[float]] = {n: [] for n in names}
    try:  # a regular file only (a FIFO would block, /dev/zero never end), its size checked before the bounded read
        raw = files.read_regular_file(path, MAX_TRACE_BYTES, what)
        text = raw.decode("utf-8-sig")
    except files.InputFileError as exc:
        raise ValueError(str(exc)) from None
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not a UTF-8 text file; expected a {what}") from None
    with io.StringIO(text, newline="") as fh:
        reader = csv.DictReader(fh)
        missing = [n for n in names if n not in (reader.fieldnames or [])]
        if missing:
            raise ValueError(f"{path}: a {what} needs the columns {', '.join(names)}; missing {', '.join(missing)}")
        for row_number, row in enumerate(reader, start=2):
            for n in names:
                try:
                    value = float(row[n])
                except (TypeError, ValueError):
                    shown = row[n] if row[n] is None else row[n][:40]
                    raise ValueError(f"{path}: row {row_number}: {n} is not a number: {shown!r}") from None
                if not math.isfinite(value) or (n != "arrival_s" and value <= 0) or value < 0:
                    raise ValueError(f"{path}: row {row_number}: {n} must be a finite, positive number: {value}")
                if n != "arrival_s" and value > TOKENS_RANGE[1]:  # 1e300 tokens overflowed the simulated rates
                    raise ValueError(
                        f"{path}: row {row_number}: {n} is {value:g}, more than the {TOKENS_RANGE[1]:g} tokens a "
                        "request may have"
                    )
                columns[n].append(value)
    if len(columns["arrival_s"]) < 20:
        raise ValueError(f"{path}: a {what} needs at least 20 requests, found {len(columns['arrival_s'])}")
    arrival = np.array(columns["arrival_s"])
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
    return {n: np.array(v) for n, v in columns.items()}


def read_arrival_times(path: str | Path) -> np.ndarray:
    """The sorted arrival times of a CSV with an ``arrival_s`` column (others ignored) [s].

    Raises
    ------
    ValueError
        As :func:`read_trace`, for the one column.
    """
    return np.sort(_read_columns(path, ("arrival_s",), "CSV of arrival times")["arrival_s"], kind="stable")


def read_trace(path: str | Path) -> Trace:
    """Read a CSV trace with the header ``arrival_s,input_tokens,output_tokens`` (extra columns are ignored).

    Raises
    ------
    ValueError
        If a column is missing, a value is not a finite number, a token count is not positive, there are fewer
        than 20 requests, or their mean rate is outside :data:`RPS_RANGE`; the message names the file (and row).
    """
    columns = _read_columns(path, ("arrival_s", "input_tokens", "output_tokens"), "CSV trace")
    arrival = columns["arrival_s"]
    order = np.argsort(arrival, kind="stable")
    return Trace(arrival[order], columns["input_tokens"][order], columns["output_tokens"][order])
