"""Demand over time in a scenario: ``demand: {profile: ..., growth?, horizon_years?, points?}`` (docs/model.md,
"Demand over time").

A scenario's ``demand`` is either the list of named points it always was, or a profile: hourly arrival rates of a
typical week (168 values), several whole weeks (168 n) or a year (8,760), inline or from a CSV file, with growth over
a horizon of 1 to 10 years; optionally with the rates of the windows inside each hour (``sub_hour``).
The rest of rackcost keeps reading ``Scenario.demand`` as a list of named points: at load,
:func:`demand_from_profile` turns a profile into three points (quiet, normal, peak: percentiles of the horizon's
hourly rates, each weighted by the hours nearest to it) and keeps the profile, its values inline, in
``Scenario.demand_profile``. A scenario dumped to data (``rackcost.scenario_to_data``) therefore has ``demand`` as
the three points and ``demand_profile`` as the profile, and loads back to the same scenario; a CSV profile is dumped
with its values inline (the file is not needed again). The expansion itself is :mod:`rackcost.model.workload.profile`'s.

A CSV is read relative to the scenario file (``rackcost.load_scenario`` sets the folder, :func:`csv_folder`); a
scenario given as text or data, such as a dashboard upload, has no folder and must give its values inline, so a
scenario can never make the dashboard read a file of the server.
"""

import contextlib
import copy
import csv
import io
import math
from collections.abc import Iterator
from contextvars import ContextVar
from datetime import datetime, timedelta
from pathlib import Path
from typing import Annotated, Any, Self

import numpy as np
from numpy.typing import NDArray
from pydantic import Field, ValidationError, model_validator

from rackcost import files
from rackcost.errors import plain_message
from rackcost.model.workload import profile as core
from rackcost.scenario.distributions import NOT_BOOL
from rackcost.scenario.fields import ArrivalScv, ScenarioBlock, Source, fields_at, raise_problems, unknown_key
from rackcost.scenario.sub_hour_blocks import ProfileSubHour
from rackcost.scenario.systems import ProvenanceClass

__all__ = [
    "MAX_PROFILE_CSV_BYTES",
    "MAX_RATE_RPS",
    "PROFILE_NOTE",
    "DemandProfile",
    "ProfileGrowth",
    "ProfilePoints",
    "ProfileValues",
    "csv_folder",
    "current_csv_folder",
    "demand_from_profile",
    "demand_json_schema",
    "profile_csv_rates",
    "read_profile_csv",
]

MAX_PROFILE_CSV_BYTES = 5_000_000
"""Largest profile CSV read [bytes]: a year of hourly rows with timestamps is about 300 kB."""
MAX_RATE_RPS = 1e7
"""Highest hourly arrival rate, after growth, as a demand point's ``arrival_rps`` [requests/s]."""
MIN_RATE_RPS = 1e-6
"""A demand point's lowest ``arrival_rps`` [requests/s]: a named point of a profile with idle hours is raised to it."""
MIN_HOURS_PER_DAY = 1e-3
"""A demand point's fewest ``hours_per_day`` [h/day], given to a point nearest to fewer hours."""
MAX_LISTED = 5
"""Bad hours listed one by one; the rest are counted."""
PROFILE_NOTE = (
    "The demand profile that made the named points in demand, its hourly values inline: written by rackcost when it "
    "dumps a scenario whose demand is {profile: ...} (write that form yourself); the horizon is evaluated on it."
)
"""Description of ``Scenario.demand_profile``."""
POINT_NAMES_OF_PROFILE = ("quiet", "normal", "peak")
"""Names of the points a profile yields, in order of rate."""

_FOLDER: ContextVar[Path | None] = ContextVar("rackcost_profile_csv_folder", default=None)

HourlyRps = Annotated[float, Field(allow_inf_nan=False), NOT_BOOL]
GrowthFraction = Annotated[float, Field(allow_inf_nan=False, le=10), NOT_BOOL]
Percent = Annotated[float, Field(ge=0, le=100, allow_inf_nan=False), NOT_BOOL]
HorizonYears = Annotated[int, Field(ge=1, le=core.MAX_HORIZON_YEARS), NOT_BOOL]

LENGTHS_ALLOWED = (
    "168 hourly values (a typical week, Monday 00:00 first), a whole number of weeks (168 n, n up to 52: tiled by "
    "its weeks in order) or 8,760 (a year)"
)


@contextlib.contextmanager
def csv_folder(folder: Path | None) -> Iterator[None]:
    """Within the block, a profile's ``csv`` is read relative to ``folder`` (the scenario file's)."""
    token = _FOLDER.set(folder)
    try:
        yield
    finally:
        _FOLDER.reset(token)


def current_csv_folder() -> Path | None:
    """The folder a scenario's CSV files are read relative to (:func:`csv_folder`), or None: not from a file."""
    return _FOLDER.get()


def _rate_problems(values: list[float], where: str) -> list[tuple[str, str]]:
    """Negative or too high hourly rates, the first few one by one, at ``where[i]``."""
    rates = np.asarray(values, dtype=np.float64)
    bad = np.flatnonzero((rates < 0) | (rates > MAX_RATE_RPS))
    problems = [
        (f"{where}[{i}]", f"hour {i}: must be from 0 to {MAX_RATE_RPS:g} requests/s, got {rates[i]:g}")
        for i in bad[:MAX_LISTED]
    ]
    if bad.size > MAX_LISTED:
        problems.append((where, f"and {bad.size - MAX_LISTED:,} more hours outside 0 to {MAX_RATE_RPS:g}"))
    return problems


class ProfileValues(ScenarioBlock):
    """The hourly arrival rates: inline, or a CSV file read once at load."""

    hourly_arrival_rps: list[HourlyRps] | None = Field(
        default=None,
        description=f"Hourly arrival rates, {LENGTHS_ALLOWED}; each 0 to 1e7 [requests/s]. A year of the horizon "
        "is the profile's weeks tiled in order (52 weeks and a Monday) or the year itself; every year starts on a "
        "Monday.",
    )
    csv: str | None = Field(
        default=None,
        min_length=1,
        description="A CSV file of the hourly rates, relative to the scenario file: a timestamp column (ISO 8601, "
        "hourly, no gaps or repeats) or an hour column (0 to n-1), and the rate column. Read at load; a dumped "
        "scenario holds its values inline.",
    )
    column: str | None = Field(
        default=None, min_length=1, description="The CSV's rate column [requests/s]; default arrival_rps."
    )

    @model_validator(mode="after")
    def _inline_or_csv(self) -> Self:
        if (self.hourly_arrival_rps is None) == (self.csv is None):
            raise_problems([("hourly_arrival_rps", "give the hourly rates inline or a csv file (one of the two)")])
        if self.csv is not None:
            raise_problems([("csv", "a CSV is read only by demand: {profile: {csv: ...}} in a scenario file")])
        values = self.hourly_arrival_rps or []
        problems = []
        if not core.is_profile_length(len(values)):
            problems.append(("hourly_arrival_rps", f"has {len(values):,} values; a profile is {LENGTHS_ALLOWED}"))
        raise_problems(problems + _rate_problems(values, "hourly_arrival_rps"))
        return self


class ProfileGrowth(ScenarioBlock):
    """Geometric growth of every hour's rate over the horizon (one of the three)."""

    per_year_fraction: GrowthFraction | None = Field(
        default=None, description="Growth per year, compounding smoothly hour by hour: (1 + g)^(t / 8760); -1 to 10."
    )
    per_quarter_fraction: GrowthFraction | None = Field(
        default=None, description="Growth per quarter of 2,190 h: (1 + g)^(t / 2190); -1 to 10."
    )
    per_year_table: list[GrowthFraction] | None = Field(
        default=None,
        description="Each year's own growth, one per year of the horizon, compounding within the year and "
        "continuously across year boundaries; each -1 to 10.",
    )

    @model_validator(mode="after")
    def _one_kind(self) -> Self:
        given = [
            k for k in ("per_year_fraction", "per_quarter_fraction", "per_year_table") if getattr(self, k) is not None
        ]
        if len(given) != 1:
            raise ValueError(
                "give one of per_year_fraction, per_quarter_fraction or per_year_table"
                + (f", got {', '.join(given)}" if given else "")
            )
        values = self.per_year_table if self.per_year_table is not None else [getattr(self, given[0])]
        raise_problems(
            [
                (
                    given[0] + (f"[{i}]" if self.per_year_table is not None else ""),
                    f"growth must be at least -1 (-100%: the demand vanishes), got {g:g}",
                )
                for i, g in enumerate(values)
                if g < -1
            ]
        )
        return self

    def rates(self) -> core.GrowthRates:
        """The growth as :class:`rackcost.model.workload.profile.GrowthRates`."""
        if self.per_year_fraction is not None:
            return core.GrowthRates.per_year(self.per_year_fraction)
        if self.per_quarter_fraction is not None:
            return core.GrowthRates.per_quarter(self.per_quarter_fraction)
        return core.GrowthRates.per_year_table(self.per_year_table or [])


class ProfilePoints(ScenarioBlock):
    """Percentiles of the horizon's hourly rates that become the named demand points."""

    quiet: Percent = Field(default=5.0, description="Percentile of the quiet point; 0 to 100, default 5 [%].")
    normal: Percent = Field(default=50.0, description="Percentile of the normal point; default 50 (the median) [%].")
    peak: Percent = Field(
        default=100.0,
        description="Percentile of the peak point; default 100, the horizon's busiest hour, so the fleet sized on "
        "it serves every hour [%].",
    )

    @model_validator(mode="after")
    def _increasing(self) -> Self:
        if not self.quiet < self.normal < self.peak:
            raise ValueError(
                f"must increase: quiet < normal < peak, got {self.quiet:g}, {self.normal:g}, {self.peak:g}"
            )
        return self

    @property
    def percentiles(self) -> tuple[float, float, float]:
        """The quiet, normal and peak percentiles [%]."""
        return (self.quiet, self.normal, self.peak)


class DemandProfile(ScenarioBlock):
    """Hourly demand over a horizon of years: a week or a year of rates, grown; named points derived from it."""

    profile: ProfileValues = Field(description="The hourly rates: {hourly_arrival_rps: [...]} or {csv: FILE, column?}.")
    growth: ProfileGrowth | None = Field(
        default=None,
        description="{per_year_fraction: g}, {per_quarter_fraction: g} or {per_year_table: [g1, g2, ...]}; absent: "
        "every year repeats the profile.",
    )
    horizon_years: HorizonYears = Field(default=1, description="Years the demand covers; 1 to 10 [years].")
    points: ProfilePoints = Field(
        default_factory=ProfilePoints,
        description="Percentiles of the horizon's hourly rates that make the quiet, normal and peak points {quiet: 5, "
        "normal: 50, peak: 100}; each point's hours a day are 24 x the share of hours nearest to its rate.",
    )
    arrival_scv: ArrivalScv | None = Field(
        default=None, description="Squared coefficient of variation of inter-arrival times of every hour [-]."
    )
    sub_hour: ProfileSubHour | None = Field(
        default=None,
        description="The rates of the windows inside each hour {window_s, window_rps: [[...], ...]}, one list per "
        "hour of the profile; each named point carries the windows of the hour nearest its rate, and sizing, "
        "acceptance and cost average over them (docs/model.md, Sub-hour peaks). Absent: every hour is constant.",
    )
    source: Source = None
    provenance: ProvenanceClass | None = Field(
        default=None, description="vendor, collaborative, independent or assumption: who measured the profile."
    )

    @model_validator(mode="after")
    def _fits_the_horizon(self) -> Self:
        table = self.growth.per_year_table if self.growth is not None else None
        if table is not None and len(table) != self.horizon_years:
            raise_problems(
                [
                    (
                        "growth.per_year_table",
                        f"gives {len(table)} years of growth; the horizon has {self.horizon_years} "
                        "(horizon_years): give one rate per year",
                    )
                ]
            )
        hours = len(self.profile.hourly_arrival_rps or [])
        if self.sub_hour is not None and len(self.sub_hour.window_rps) != hours:
            raise_problems(
                [
                    (
                        "sub_hour.window_rps",
                        f"has {len(self.sub_hour.window_rps):,} hours of windows; the profile has {hours:,} hours: "
                        "give one list of windows per hour",
                    )
                ]
            )
        rates = self.hourly_rates_rps()
        peak = float(rates.max())
        if peak <= 0:
            raise_problems([("profile", "every hour is 0 requests/s: there is no demand to serve")])
        if peak > MAX_RATE_RPS:
            raise_problems(
                [
                    (
                        "growth",
                        f"the busiest hour reaches {peak:,.6g} requests/s by the end of the horizon, above the "
                        f"{MAX_RATE_RPS:g} an arrival rate may have",
                    )
                ]
            )
        return self

    def growth_rates(self) -> core.GrowthRates | None:
        """The growth as :class:`rackcost.model.workload.profile.GrowthRates`, or None."""
        return None if self.growth is None else self.growth.rates()

    def hourly_rates_rps(self) -> NDArray[np.float64]:
        """Arrival rate at every hour of the horizon, ``horizon_years * 8760`` values [requests/s]."""
        return core.hourly_rates_rps(self.profile.hourly_arrival_rps or [], self.growth_rates(), self.horizon_years)

    def hourly_window_ratios(self) -> NDArray[np.float64] | None:
        """Each hour of the horizon's windows over its mean, ``(horizon_years * 8760, windows per hour)`` (all ones
        for an idle hour), or None without ``sub_hour`` [-]. Growth scales an hour's windows with it: their ratios
        do not move."""
        if self.sub_hour is None:
            return None
        w = np.asarray(self.sub_hour.window_rps, dtype=np.float64)
        mean = w.mean(axis=1, keepdims=True)
        ratios = np.where(mean > 0, w / np.where(mean > 0, mean, 1.0), 1.0)
        hours = np.arange(self.horizon_years * core.HOURS_PER_YEAR_OF_HORIZON)
        return ratios[core.hour_of_profile(hours, w.shape[0])]

    def named_points(self) -> list[dict[str, Any]]:
        """The quiet, normal and peak demand points, as a scenario file would give them."""
        horizon = self.hourly_rates_rps()
        rates, hours = core.named_points(horizon, self.points.percentiles, MIN_HOURS_PER_DAY)
        out = []
        for name, level, rate, h in zip(POINT_NAMES_OF_PROFILE, self.points.percentiles, rates, hours, strict=True):
            point: dict[str, Any] = {
                "name": name,
                "arrival_rps": max(float(rate), MIN_RATE_RPS),
                "hours_per_day": float(h),
                "source": f"percentile {level:g} of the demand profile's hourly rates over {self.horizon_years} "
                f"year{'s' if self.horizon_years != 1 else ''}",
            }
            if self.arrival_scv is not None:
                point["arrival_scv"] = self.arrival_scv
            windows = self._windows_near(horizon, float(rate))
            if windows is not None:
                point["sub_hour"] = windows
            out.append(point)
        return out

    def _windows_near(self, horizon_rps: NDArray[np.float64], rate_rps: float) -> dict[str, Any] | None:
        """The sub-hour windows a named point of ``rate_rps`` carries: those of the hour of the horizon whose rate
        is nearest (the first such hour), or None without windows (or where that hour is idle or flat)."""
        if self.sub_hour is None:
            return None
        nearest = int(np.argmin(np.abs(horizon_rps - rate_rps)))
        hour = int(core.hour_of_profile(nearest, len(self.profile.hourly_arrival_rps or [])))
        ratios = self.sub_hour.ratios_of_hour(hour)
        if ratios is None:
            return None
        where = f"; {self.sub_hour.source}" if self.sub_hour.source else ""
        return {
            "window_s": self.sub_hour.window_s,
            "rate_ratios": ratios,
            "source": f"the windows of hour {hour} of the demand profile, the hour nearest the point's rate{where}",
        }


# ---- a CSV of hourly rates --------------------------------------------------------------------------------------


def read_profile_csv(path: Path, column: str | None = None) -> tuple[list[float], list[str]]:
    """The hourly rates of a profile CSV, or the problems that stop it from being one.

    The file has a header row; an ``hour`` column (0 to n-1, in order) or a ``timestamp`` column (ISO 8601, one hour
    apart, no gaps or repeats; it wins when both are there), and the rate column (``arrival_rps`` or ``column``).
    Row numbers in the problems are the file's lines (the header is usually line 1); blank lines are skipped.

    Returns
    -------
    values, problems
        The rates [requests/s] (empty when there are problems) and what is wrong, each naming the line, the column
        and the kind of value found (:func:`rackcost.files.describe_value`), never the value: the file may be one a
        sweep was refused or allowed to read on another's say-so, and an error must not show its content.
    """
    try:
        raw = files.read_regular_file(path, MAX_PROFILE_CSV_BYTES, "demand profile CSV")
    except files.InputFileError as exc:
        return [], [str(exc).removeprefix(f"{path}: ")]
    return profile_csv_rates(raw, column)


def profile_csv_rates(raw: bytes, column: str | None = None) -> tuple[list[float], list[str]]:
    """The hourly rates of a profile CSV's bytes, or its problems (:func:`read_profile_csv`, which reads the file).

    A file of one column (and no ``column`` asked for) is the rates hour by hour in order, under a header of any
    name or none (the dashboard's upload of a column of rates).
    """
    if len(raw) > MAX_PROFILE_CSV_BYTES:
        return [], [f"is {len(raw):,} bytes; a profile CSV is at most {MAX_PROFILE_CSV_BYTES:,}"]
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return [], ["not a UTF-8 text file"]
    try:
        reader = csv.reader(io.StringIO(text))
        rows = [(reader.line_num, r) for r in reader if any(c.strip() for c in r)]  # blank lines skipped
    except csv.Error as exc:
        return [], [f"not a CSV file: {exc}"]
    if not rows:
        return [], ["the file is empty; expected a header row and hourly rows"]
    header = [h.strip() for h in rows[0][1]]
    if column is None and all(len(r) == 1 for _, r in rows):  # one column of rates, in order
        headed = files.finite_number(header[0]) is None
        body = rows[1:] if headed else rows
        # a header other than the rate's own name is the file's text: never quoted (a sweep may read a file outside
        # its folder, whose first line is anything; found by tests/fuzzing_sweeps_profiles.py)
        name = "arrival_rps" if not headed or header[0] == "arrival_rps" else "the rate"
        return _rates_in_order([(line, str(i), r[0].strip()) for i, (line, r) in enumerate(body)], name)
    rate_name = column or "arrival_rps"
    problems = []
    if rate_name not in header:
        problems.append(f"has no column named {rate_name!r} in its header (line {rows[0][0]})")
    clock = "timestamp" if "timestamp" in header else "hour" if "hour" in header else None
    if clock is None:
        problems.append(f"has no 'timestamp' or 'hour' column in its header (line {rows[0][0]})")
    if problems or clock is None:
        return [], problems
    body = rows[1:]
    at_clock, at_rate = header.index(clock), header.index(rate_name)
    cells = [
        (line, r[at_clock].strip() if at_clock < len(r) else "", r[at_rate].strip() if at_rate < len(r) else "")
        for line, r in body
    ]
    problems = (_timestamp_problems if clock == "timestamp" else _hour_problems)(cells)
    values, bad = _rates_in_order(cells, rate_name, count=not problems)
    return ([], problems + bad) if problems or bad else (values, [])


def _rates_in_order(
    cells: list[tuple[int, str, str]], rate_name: str, *, count: bool = True
) -> tuple[list[float], list[str]]:
    """The rates of (line, clock, rate) cells hour by hour, or the problems of the bad ones and (with ``count``,
    where they are all good) of their number."""
    values: list[float] = []
    bad = []
    for line, _, cell in cells:
        value = files.finite_number(cell)
        if value is None or not 0 <= value <= MAX_RATE_RPS:
            kind = "a number above the limit" if value is not None and value > 0 else files.describe_value(cell)
            what = "is missing" if not cell else f"must be a number from 0 to {MAX_RATE_RPS:g}, got {kind}"
            bad.append(f"line {line}: {rate_name} {what}")
        else:
            values.append(value)
    problems = bad[:MAX_LISTED] + ([f"and {len(bad) - MAX_LISTED:,} more bad rates"] if len(bad) > MAX_LISTED else [])
    if count and not problems and not core.is_profile_length(len(values)):
        problems.append(f"has {len(values):,} hourly rows; a profile is {LENGTHS_ALLOWED}")
    return ([], problems) if problems else (values, [])


def _hour_problems(cells: list[tuple[int, str, str]]) -> list[str]:
    """The first ``hour`` that is not the row's 0-based position (a gap, a repeat, out of order)."""
    for i, (line, cell, _) in enumerate(cells):
        value = files.finite_number(cell)
        if value is None or value != i:
            if value is not None and value > i:
                return [f"line {line}: hour must be {i}, got a later one: hour {i} is missing (no gaps allowed)"]
            got = files.describe_value(cell) if value is None else "an earlier one (a repeat or out of order)"
            return [f"line {line}: hour must be {i} (hours run 0, 1, 2, ... in order), got {got}"]
    return []


def _timestamp_problems(cells: list[tuple[int, str, str]]) -> list[str]:
    """The first timestamp that is not ISO 8601 or not one hour after the one before (counting the hours a gap
    misses), by line: the timestamps themselves are not repeated (:func:`read_profile_csv`)."""
    hour = timedelta(hours=1)
    previous: datetime | None = None
    before = 0
    for line, cell, _ in cells:
        try:
            stamp = datetime.fromisoformat(cell)
        except ValueError:
            got = files.describe_value(cell)
            return [f"line {line}: timestamp must be ISO 8601 (e.g. 2026-01-05T00:00), got {got}"]
        if previous is not None:
            try:
                step = stamp - previous
            except TypeError:
                return [f"line {line}: timestamp mixes a time zone and none with line {before}'s"]
            if step > hour:
                missing = math.ceil(step / hour) - 1
                return [
                    f"line {line}: timestamp leaves a gap after line {before}'s: {missing:,} hour"
                    f"{'s are' if missing > 1 else ' is'} missing (one row per hour, no gaps)"
                ]
            if step != hour:
                return [f"line {line}: timestamp is not one hour after line {before}'s (a repeat or out of order)"]
        previous, before = stamp, line
    return []


# ---- demand: {profile: ...} at load ------------------------------------------------------------------------------

PLACEHOLDER_POINTS = [{"name": "peak", "arrival_rps": 1.0, "hours_per_day": 24.0}]
"""What stands for a profile with problems, so the rest of the scenario is still validated (and its problems said)."""


def _dists_in(data: Any, path: str) -> list[str]:
    """YAML paths of every ``{dist: ...}`` mapping in ``data``."""
    if isinstance(data, dict):
        if "dist" in data:
            return [path]
        return [p for k, v in data.items() for p in _dists_in(v, f"{path}.{k}")]
    if isinstance(data, list):
        return [p for i, v in enumerate(data) for p in _dists_in(v, f"{path}[{i}]")]
    return []


def _problems_of(exc: ValidationError, prefix: str) -> list[tuple[str, str]]:
    """A ValidationError of a profile block as (YAML path, message) pairs under ``prefix``."""
    out = []
    for err in exc.errors(include_url=False):
        loc = [p for p in err["loc"] if not (isinstance(p, str) and ("[" in p or p.startswith("function-")))]
        path = prefix + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in loc)
        kind = err["type"]
        if kind == "value_error":
            for line in str(err.get("ctx", {}).get("error", err["msg"])).splitlines():
                sub, sep, message = line.partition(": ")
                relative = sep and " " not in sub
                out.append((f"{path}.{sub}" if relative else path, message if relative else line))
            continue
        got = err.get("input")
        message = {
            "missing": "required field is missing",
            "extra_forbidden": "unknown key",
            "model_type": "must be a mapping of fields (a YAML block)",
            "model_attributes_type": "must be a mapping of fields (a YAML block)",
            "dict_type": "must be a mapping of fields (a YAML block)",
            "list_type": "must be a list (YAML '- ' items or [...])",
        }.get(kind, plain_message(err["msg"]))
        if kind == "extra_forbidden" and loc:
            message = unknown_key(loc[-1], fields_at(tuple(loc), DemandProfile))
        if kind not in {"missing", "extra_forbidden"} and not isinstance(got, dict | list):
            message += f", got {got!r}"[:80]
        out.append((path, message))
    return out


def demand_from_profile(data: Any, problems: list[tuple[str, str]], bad: set[str]) -> Any:
    """The scenario data with a ``demand`` profile turned into its named points and ``demand_profile``.

    ``data`` is not changed; a scenario whose ``demand`` is a list (or anything but a mapping) is returned as it is.
    Problems of the profile are added to ``problems`` at their YAML paths under ``demand``, and the points are then
    a placeholder, marked in ``bad`` (so no second problem is reported for them).
    """
    if not isinstance(data, dict) or not isinstance(data.get("demand"), dict):
        return data
    raw: dict[str, Any] = data["demand"]
    out = dict(data)
    found: list[tuple[str, str]] = []
    if "profile" not in raw:
        found.append(
            (
                "demand",
                "must be a list of named points (- {name: ..., arrival_rps: ..., hours_per_day: ...}) or a profile "
                "{profile: {hourly_arrival_rps: [...]} or {csv: FILE}, growth?, horizon_years?, points?}",
            )
        )
    if "demand_profile" in data:
        found.append(("demand_profile", "not with demand: {profile: ...}, which makes it: remove demand_profile"))
    dists = _dists_in(raw, "demand")
    found += [
        (
            path,
            "a distribution is not allowed in a demand profile: its quiet, normal and peak points are derived from "
            "the hourly values (a sweep's demand.scale or a distribution on other inputs still applies)",
        )
        for path in dists
    ]
    resolved = copy.copy(raw)
    values = raw.get("profile")
    unread = False  # the CSV could not be read: the profile's other fields are still checked, on stand-in values
    if isinstance(values, dict) and "csv" in values:
        resolved["profile"], csv_problems = _csv_values(values)
        found += csv_problems
        unread = bool(csv_problems)
    if "profile" in raw:
        try:
            profile = DemandProfile.model_validate(resolved)
        except ValidationError as exc:
            found += [
                (path, message)
                for path, message in _problems_of(exc, "demand")
                if not any(path.startswith(d) for d in dists) and not (unread and path.startswith("demand.profile"))
            ]
    if found:
        problems.extend(found)
        bad.add("demand")
        out["demand"] = copy.deepcopy(PLACEHOLDER_POINTS)
        out.pop("demand_profile", None)
        return out
    out["demand"] = profile.named_points()
    out["demand_profile"] = resolved
    if isinstance(data.get("figures"), dict):
        out["figures"] = {_moved(str(k)): v for k, v in data["figures"].items()}
    return out


def _csv_values(values: dict[str, Any]) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    """``{hourly_arrival_rps: [...]}`` read from ``{csv: FILE, column?}``, or the problems at demand.profile."""
    where = "demand.profile"
    extra = sorted(set(values) - {"csv", "column"})
    name, column = values.get("csv"), values.get("column")
    found = [(f"{where}.{k}", unknown_key(k, ["csv", "column"])) for k in extra]
    if not isinstance(name, str) or not name.strip() or "\x00" in name:  # (no file name holds a NUL character)
        found.append((f"{where}.csv", f"must be the name of a CSV file, got {name!r}"[:120]))
    if column is not None and (not isinstance(column, str) or not column.strip()):
        found.append((f"{where}.column", f"must be the name of the CSV's rate column, got {column!r}"[:120]))
    folder = _FOLDER.get()
    if not found and folder is None:
        found.append(
            (
                f"{where}.csv",
                "a CSV is read relative to the scenario file, and this scenario was not loaded from a file: give "
                "the rates inline (hourly_arrival_rps: [...])",
            )
        )
    if found:
        return {"hourly_arrival_rps": [1.0] * core.HOURS_PER_WEEK}, found
    assert folder is not None and isinstance(name, str)  # noqa: S101 - checked just above, for the type checker
    rates, csv_problems = read_profile_csv(folder / name, column)
    stand_in = [1.0] * core.HOURS_PER_WEEK
    return {"hourly_arrival_rps": rates or stand_in}, [(f"{where}.csv", f"{name}: {p}") for p in csv_problems]


def _moved(path: str) -> str:
    """A ``figures`` key under ``demand`` as the same figure's path under ``demand_profile`` (a CSV's: its values)."""
    if path != "demand" and not path.startswith("demand."):
        return path  # a figure of a derived point (demand[i]) stays where it is
    moved = "demand_profile" + path.removeprefix("demand")
    for key in ("csv", "column"):
        if moved == f"demand_profile.profile.{key}":
            return "demand_profile.profile.hourly_arrival_rps"
    return moved


def demand_json_schema(schema: dict[str, Any]) -> None:
    """The Scenario's JSON Schema with ``demand`` either the list of named points or a profile (``DemandProfile``)."""
    properties = schema.get("properties", {})
    if "demand" not in properties or "demand_profile" not in properties:
        return
    profile = [o for o in properties["demand_profile"].get("anyOf", []) if "$ref" in o]
    points = dict(properties["demand"])
    points.pop("title", None)
    properties["demand"] = {
        "anyOf": [points, *profile],
        "title": "Demand",
        "description": "A list of named points {name, arrival_rps, hours_per_day, ...}, or a profile {profile, "
        "growth?, horizon_years?, points?} that yields the quiet, normal and peak points (docs/model.md, Demand "
        "over time).",
    }
