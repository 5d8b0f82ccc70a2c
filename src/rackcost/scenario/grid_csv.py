"""``facility.hourly: {csv: FILE, source}``: the hourly grid read from a CSV file beside the scenario, at load.

The file has a header row with an ``hour`` column (0 to n-1, in order, n = 24 or 168) and one or both of the
columns ``electricity_usd_per_kwh`` and ``carbon_g_per_kwh``; blank lines are skipped. Like a demand profile's CSV it
is read relative to the scenario file (a scenario given as text or data, such as a dashboard upload, has no folder
and must give its values inline) and dumped with its values inline. Problems name the line and the column and the
kind of value found, never the value (:func:`rackcost.files.describe_value`).
"""

from __future__ import annotations

import copy
import csv
import io
from typing import Any

from rackcost import files
from rackcost.model.energy.grid import GRID_LENGTHS
from rackcost.scenario.fields import unknown_key
from rackcost.scenario.profile_blocks import current_csv_folder

__all__ = ["GRID_COLUMNS", "MAX_GRID_CSV_BYTES", "grid_csv_values", "grid_from_csv"]

GRID_COLUMNS = ("electricity_usd_per_kwh", "carbon_g_per_kwh")
"""The value columns a grid CSV may have, named as the hourly grid's fields."""
MAX_GRID_CSV_BYTES = 100_000
"""Largest grid CSV read [bytes]: a week of hourly rows is a few kB."""
WHERE = "facility.hourly"


def grid_csv_values(raw: bytes) -> tuple[dict[str, list[float]], list[str]]:
    """The hourly values of a grid CSV's bytes by column, or the problems that stop it from being one.

    Examples
    --------
    >>> text = "hour,carbon_g_per_kwh\\n" + "".join(f"{h},{300 + h}\\n" for h in range(24))
    >>> values, problems = grid_csv_values(text.encode())
    >>> problems, values["carbon_g_per_kwh"][:2], len(values["carbon_g_per_kwh"])
    ([], [300.0, 301.0], 24)
    """
    try:
        text = raw.decode("utf-8-sig")
        reader = csv.reader(io.StringIO(text))
        rows = [(reader.line_num, [c.strip() for c in r]) for r in reader if any(c.strip() for c in r)]
    except (UnicodeDecodeError, csv.Error) as exc:
        return {}, [f"not a UTF-8 CSV file: {exc}"[:200]]
    if not rows:
        return {}, ["the file is empty; expected a header row and hourly rows"]
    header = rows[0][1]
    columns = [c for c in GRID_COLUMNS if c in header]
    problems = [] if "hour" in header else [f"has no 'hour' column in its header (line {rows[0][0]})"]
    if not columns:
        problems.append(f"has neither column {' nor '.join(map(repr, GRID_COLUMNS))} in its header (line {rows[0][0]})")
    if problems:
        return {}, problems
    body = rows[1:]
    if len(body) not in GRID_LENGTHS:
        return {}, [f"has {len(body):,} hourly rows; expected {GRID_LENGTHS[0]} (a day) or {GRID_LENGTHS[1]} (a week)"]
    values: dict[str, list[float]] = {c: [] for c in columns}
    at = {c: header.index(c) for c in ("hour", *columns)}
    for i, (line, row) in enumerate(body):
        for name, j in at.items():
            cell = row[j] if j < len(row) else ""
            number = files.finite_number(cell)
            if name == "hour" and number != i:
                return {}, [f"line {line}: hour must be {i} (hours run 0, 1, 2, ... in order), got {_kind(cell)}"]
            if name != "hour":
                if number is None or number < 0:
                    return {}, [f"line {line}: {name} must be a number of 0 or more, got {_kind(cell)}"]
                values[name].append(number)
    return values, []


def _kind(cell: str) -> str:
    return "nothing (empty)" if not cell else files.describe_value(cell)


def grid_from_csv(data: Any, problems: list[tuple[str, str]]) -> Any:
    """The scenario data with ``facility.hourly``'s CSV read into its values (``data`` is not changed); its problems
    are added to ``problems`` at ``facility.hourly.csv`` and the values left out (the rest of the scenario is still
    checked)."""
    facility = data.get("facility") if isinstance(data, dict) else None
    hourly = facility.get("hourly") if isinstance(facility, dict) else None
    if not isinstance(facility, dict) or not isinstance(hourly, dict) or "csv" not in hourly:
        return data
    found: list[tuple[str, str]] = []
    name = hourly.get("csv")
    resolved = {k: v for k, v in hourly.items() if k != "csv"}
    found += [(f"{WHERE}.{k}", unknown_key(k, ["csv", "source"])) for k in sorted(set(resolved) - {"source"})]
    folder = current_csv_folder()
    if not isinstance(name, str) or not name.strip() or "\x00" in name:
        found.append((f"{WHERE}.csv", f"must be the name of a CSV file, got {name!r}"[:120]))
    elif folder is None:
        found.append(
            (
                f"{WHERE}.csv",
                "a CSV is read relative to the scenario file, and this scenario was not loaded from a file: give the "
                "values inline (electricity_usd_per_kwh: [...], carbon_g_per_kwh: [...])",
            )
        )
    else:
        try:
            values, csv_problems = grid_csv_values(
                files.read_regular_file(folder / name, MAX_GRID_CSV_BYTES, "hourly grid CSV")
            )
        except files.InputFileError as exc:
            values, csv_problems = {}, [str(exc).removeprefix(f"{folder / name}: ")]
        found += [(f"{WHERE}.csv", f"{name}: {p}") for p in csv_problems]
        resolved.update(values)
    out = copy.copy(data)
    out["facility"] = dict(facility)
    if found:
        problems.extend(found)
        out["facility"].pop("hourly")
        return out
    out["facility"]["hourly"] = resolved
    return out
