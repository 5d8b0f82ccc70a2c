"""ServeGen's client windows read as one fleet's arrival rate per window, and the demand profile they make.

Alibaba's ServeGen (Xiang et al., "ServeGen: workload characterization of large language model serving in
production", 2025; Apache-2.0) publishes each client's stream of a model as a CSV without a header, one row per
window of time: the window's start [s], the client's arrival rate in it [requests/s], the coefficient of variation of
its inter-arrival times, the fitted inter-arrival distribution's name and its two parameters (an empty window:
``600,0,0,,0,0``). The fleet's arrival rate in a window is the sum of its clients' rates
(:func:`read_servegen_windows`); an hour's rate is the mean of its windows, and its windows' rates are the
variation inside the hour (:func:`profile_of_windows`), which ``demand: {profile: {...}, sub_hour: {...}}`` carries.

Every file is checked as it is read, with the same rigour as :mod:`rackcost.analysis.trace_files`: a regular file of
at most :data:`MAX_CLIENT_FILE_BYTES` (size checked before the read), UTF-8, six columns, finite numbers where
numbers belong (a rate 0 to 1e7, a CV >= 0), window starts evenly spaced and the same in every file; a mistake is a
:class:`ServeGenError` naming the file and the row, never the value beyond a short excerpt.
"""

from __future__ import annotations

import csv
import io
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from rackcost import files
from rackcost.model.workload import profile as core
from rackcost.scenario.fields import RPS_RANGE
from rackcost.units import SECONDS_PER_HOUR

__all__ = [
    "MAX_CLIENT_FILE_BYTES",
    "MAX_CLIENT_FILES",
    "SOURCE",
    "ServeGenError",
    "ServeGenWindows",
    "WindowProfile",
    "client_files",
    "profile_of_windows",
    "read_servegen_windows",
]

MAX_CLIENT_FILE_BYTES = 50_000_000
"""Largest client file read [bytes]: a year of 10-minute windows is about 52,560 rows of about 90 bytes."""
MAX_CLIENT_FILES = 10_000
"""Most client files read from one folder or list [-]."""
MAX_WINDOWS = 8 * core.HOURS_PER_YEAR_OF_HORIZON * 6
"""Most windows a client file may hold: eight years of 10-minute windows [-]."""
COLUMNS = 6
"""Columns of a client file: start, rate, CV, distribution, and its two parameters."""
SOURCE = (
    "Alibaba ServeGen (Xiang et al., 'ServeGen: workload characterization of large language model serving in "
    "production', 2025; Apache-2.0): the sum of {clients} client streams per {window_s:g} s window, from {where}"
)
"""How a profile read from ServeGen names its source."""
_CHUNK = re.compile(r"chunk-(\d+)-trace\.csv")


class ServeGenError(ValueError):
    """A folder or file that is not ServeGen client windows; the message names the file (and row)."""


@dataclass(frozen=True)
class ServeGenWindows:
    """The fleet's arrival rate in each window: the sum of its clients'.

    Attributes
    ----------
    window_start_s
        Start of each window, evenly spaced, from the files' own clock [s].
    arrival_rps
        The fleet's arrival rate in each window, the sum over clients [requests/s].
    window_s
        Length of a window [s].
    clients
        Client files summed [-].
    where
        The folder or first file read, for the source.
    """

    window_start_s: NDArray[np.float64]
    arrival_rps: NDArray[np.float64]
    window_s: float
    clients: int
    where: str

    @property
    def source(self) -> str:
        """The windows' source, with the paper and licence."""
        return SOURCE.format(clients=self.clients, window_s=self.window_s, where=self.where)


@dataclass(frozen=True)
class WindowProfile:
    """An hourly profile and the rates of the windows inside each hour.

    Attributes
    ----------
    hourly_arrival_rps
        Each hour's mean rate, the mean of its windows [requests/s].
    window_rps
        Each hour's windows' rates, ``(hours, windows per hour)`` [requests/s].
    window_s
        Length of a window [s].
    source
        Where the windows come from.
    """

    hourly_arrival_rps: NDArray[np.float64]
    window_rps: NDArray[np.float64]
    window_s: float
    source: str

    def demand(self) -> dict[str, Any]:
        """The profile as a scenario's ``demand:`` block (docs/model.md, "Demand over time")."""
        return {
            "profile": {"hourly_arrival_rps": [float(x) for x in self.hourly_arrival_rps]},
            "sub_hour": {
                "window_s": self.window_s,
                "window_rps": [[float(x) for x in row] for row in self.window_rps],
                "source": self.source,
            },
            "source": self.source,
        }

    def csv_rows(self) -> list[dict[str, float | int]]:
        """One row per hour: ``hour``, ``arrival_rps`` and each window's ``window_<i>_rps``."""
        return [
            {"hour": h, "arrival_rps": float(self.hourly_arrival_rps[h])}
            | {f"window_{i}_rps": float(x) for i, x in enumerate(self.window_rps[h])}
            for h in range(self.hourly_arrival_rps.size)
        ]


def client_files(where: str | Path | Sequence[str | Path]) -> list[Path]:
    """The client files of a folder (``chunk-N-trace.csv``, in the order of N) or a list of files, checked.

    Raises
    ------
    ServeGenError
        A folder without client files, an empty list, or more than :data:`MAX_CLIENT_FILES`.
    """
    if isinstance(where, str | Path):
        folder = Path(where)
        if not folder.is_dir():
            return [folder]
        found = sorted(
            (p for p in folder.iterdir() if _CHUNK.fullmatch(p.name)),
            key=lambda p: int(_CHUNK.fullmatch(p.name).group(1)),  # type: ignore[union-attr]
        )
        if not found:
            raise ServeGenError(f"{folder}: no ServeGen client files (chunk-N-trace.csv) in the folder")
        paths = found
    else:
        paths = [Path(p) for p in where]
        if not paths:
            raise ServeGenError("no ServeGen client files given")
    if len(paths) > MAX_CLIENT_FILES:
        raise ServeGenError(f"{len(paths):,} client files; at most {MAX_CLIENT_FILES:,} are read")
    return paths


def _read_client(path: Path) -> tuple[NDArray[np.float64], NDArray[np.float64], list[int]]:
    """One client file's window starts, rates and the file's line of each (module docstring for the checks)."""
    try:
        raw = files.read_regular_file(path, MAX_CLIENT_FILE_BYTES, "ServeGen client file")
        text = raw.decode("utf-8-sig")
    except files.InputFileError as exc:
        raise ServeGenError(str(exc)) from None
    except UnicodeDecodeError:
        raise ServeGenError(f"{path}: not a UTF-8 text file; expected ServeGen client windows (CSV)") from None
    starts: list[float] = []
    rates: list[float] = []
    lines: list[int] = []
    try:
        reader = csv.reader(io.StringIO(text, newline=""))
        for row in reader:
            line = reader.line_num
            if not any(c.strip() for c in row):
                continue
            if len(row) != COLUMNS:
                raise ServeGenError(
                    f"{path}: row {line}: has {len(row)} columns; ServeGen client windows have {COLUMNS} (start, "
                    "rate, CV, distribution and its two parameters) and no header"
                )
            start, rate, cv = (files.finite_number(c.strip()) for c in row[:3])
            for name, value, low in (("window start", start, 0.0), ("arrival rate", rate, 0.0), ("CV", cv, 0.0)):
                if value is None or value < low:
                    got = files.describe_value(row[("window start", "arrival rate", "CV").index(name)].strip())
                    raise ServeGenError(f"{path}: row {line}: the {name} must be a finite number >= 0, got {got}")
            assert start is not None and rate is not None  # noqa: S101 - checked just above, for the type checker
            if rate > RPS_RANGE[1]:
                raise ServeGenError(f"{path}: row {line}: the arrival rate is above {RPS_RANGE[1]:g} requests/s")
            if len(starts) >= MAX_WINDOWS:
                raise ServeGenError(f"{path}: more than {MAX_WINDOWS:,} windows")
            starts.append(start)
            rates.append(rate)
            lines.append(line)
    except csv.Error as exc:
        raise ServeGenError(f"{path}: not a CSV file: {exc}") from None
    if len(starts) < 2:
        raise ServeGenError(f"{path}: {len(starts)} window(s); ServeGen client windows need at least 2")
    return np.asarray(starts), np.asarray(rates), lines


def read_servegen_windows(where: str | Path | Sequence[str | Path]) -> ServeGenWindows:
    """The fleet's rate per window: ServeGen's client files (a folder or a list) read and summed per window.

    Parameters
    ----------
    where
        A folder of ``chunk-N-trace.csv`` files, one such file, or a list of files.

    Raises
    ------
    ServeGenError
        A file that cannot be read or is not client windows, windows not evenly spaced, or files whose windows
        differ; the message names the file and row.
    """
    paths = client_files(where)
    label = str(where) if isinstance(where, str | Path) else f"{paths[0]} and {len(paths) - 1:,} more files"
    first_path = paths[0]
    starts, total, first_lines = _read_client(first_path)
    steps = np.diff(starts)
    window_s = float(steps[0])
    if not window_s > 0:
        raise ServeGenError(
            f"{first_path}: row {first_lines[1]}: the window start does not advance (windows must be in order)"
        )
    uneven = np.flatnonzero(~np.isclose(steps, window_s, rtol=1e-9, atol=1e-9))
    if uneven.size:
        raise ServeGenError(
            f"{first_path}: row {first_lines[int(uneven[0]) + 1]}: the window start is not {window_s:g} s after the "
            "row before (windows must be evenly spaced, in order, without gaps)"
        )
    total = total.copy()
    for path in paths[1:]:
        other_starts, rates, lines = _read_client(path)
        if other_starts.size != starts.size:
            raise ServeGenError(
                f"{path}: {other_starts.size:,} windows where {first_path} has {starts.size:,}: every client file "
                "must cover the same windows"
            )
        differ = np.flatnonzero(other_starts != starts)
        if differ.size:
            k = int(differ[0])
            raise ServeGenError(
                f"{path}: row {lines[k]}: its window starts at another time than row {first_lines[k]} of "
                f"{first_path}: every client file must cover the same windows"
            )
        total += rates
    if float(total.max()) > RPS_RANGE[1]:
        raise ServeGenError(f"{label}: the clients' rates add up to more than {RPS_RANGE[1]:g} requests/s")
    return ServeGenWindows(starts, total, window_s, len(paths), label)


def profile_of_windows(windows: ServeGenWindows, peak_rps: float | None = None) -> WindowProfile:
    """The hourly profile of the windows: each hour's mean rate and its windows' rates.

    Parameters
    ----------
    windows
        The fleet's windows (:func:`read_servegen_windows`), starting on an hour (its first row is hour 0, taken as
        Monday 00:00 as every profile's).
    peak_rps
        Scale every window so the busiest hour's mean is this rate (the shape kept, as superposing copies of the
        fleet would keep it); None: the rates as they are [requests/s].

    Raises
    ------
    ServeGenError
        Windows that do not divide an hour, a span that is not whole hours, hours that are no profile's
        (``168 n`` whole weeks or 8,760), or no demand at all.
    """
    count = round(SECONDS_PER_HOUR / windows.window_s)
    if count < 1 or not math.isclose(count * windows.window_s, SECONDS_PER_HOUR, rel_tol=1e-9):
        raise ServeGenError(f"{windows.where}: windows of {windows.window_s:g} s do not divide an hour")
    n = windows.arrival_rps.size
    if n % count:
        raise ServeGenError(
            f"{windows.where}: {n:,} windows of {windows.window_s:g} s are not whole hours ({n / count:.4g} hours)"
        )
    hours = n // count
    if not core.is_profile_length(hours):
        raise ServeGenError(
            f"{windows.where}: {hours:,} hours; a profile is 168 n hours (n whole weeks, up to 52) or 8,760: "
            "cut the files to whole weeks"
        )
    per_hour = windows.arrival_rps.reshape(hours, count)
    hourly = per_hour.mean(axis=1)
    busiest = float(hourly.max())
    if busiest <= 0:
        raise ServeGenError(f"{windows.where}: every window is 0 requests/s: there is no demand")
    source = windows.source
    if peak_rps is not None:
        if not (math.isfinite(peak_rps) and RPS_RANGE[0] <= peak_rps <= RPS_RANGE[1]):
            raise ServeGenError(f"the busiest hour's rate must be from {RPS_RANGE[0]:g} to {RPS_RANGE[1]:g}")
        factor = peak_rps / busiest
        per_hour, hourly = per_hour * factor, hourly * factor
        source += f"; scaled by {factor:.6g} so the busiest hour's mean is {peak_rps:g} requests/s"
    return WindowProfile(hourly, per_hour, windows.window_s, source)
