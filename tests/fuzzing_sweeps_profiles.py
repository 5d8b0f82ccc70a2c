"""The sweep-folder and demand-profile fuzzer: hypothesis strategies for the files a sweep's scenario imports and for
demand profiles (hourly CSVs and growth tables), and the contract each keeps.

Used by ``tests/test_fuzz_sweeps_profiles.py`` (a small budget in CI) and ``benchmarks/fuzz_sweeps_profiles.py`` (a
large one, with counts). Strategies:

- :func:`sweep_folders`: a sweep whose scenario (under its folder, in a subfolder of it, or outside) reads its demand
  from a CSV named inside the folder, outside it by ``..`` or an absolute path, through a symlink (to a file or a
  folder, in or out), a missing file, a device, a folder, or a name of random text; sometimes a systems ``import:``
  of such a name too, and ``allow_outside`` either way. The files outside hold a secret, as a bad cell or in a column
  a valid profile ignores; the files inside hold another.
- :func:`profiles`: demand as a week or a year of hourly rates, inline or in a CSV (an ``hour`` or a ``timestamp``
  column, cells that are text, NaN, negative, huge, blank, or marked numbers), with growth per year, per quarter or
  as a table whose years may end the demand (-1), over 1 to 10 years.

Contracts: a sweep's files are opened only under its folder unless ``allow_outside`` (watched with an audit hook on
``open``, not through the code under test), a reference outside it is refused naming it, a valid one inside is
read, and no message quotes either secret; nothing raises but ScenarioError. A profile loads and evaluates to
records without NaN or infinity (an undefined figure is None), JSON that strict parsers read, and CSV without
``nan``/``inf`` cells; or it is refused with a ScenarioError naming the file, no message quoting a marked cell.
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import yaml
from hypothesis import strategies as st

import rackcost
from rackcost import ScenarioError
from rackcost.analysis.sweep.run import resolve
from reference import TWO_SYSTEMS, find_non_finite

SECRET = "outside-secret-7f3a9c"
"""Text in every file outside the sweep's folder: never in a message."""
INSIDE_SECRET = "inside-secret-51be02"
"""Text in the files inside the sweep's folder: read when valid, never quoted either."""
MARKED = ("qz-marked-cell", "-424242.5", "987654321987", "31337e400")
"""Cells a profile CSV may hold that no message may repeat: text, a negative, a huge and an overflowing number."""

BASE = yaml.safe_load(TWO_SYSTEMS.read_text(encoding="utf-8"))
"""The two-system test scenario: small, so a case takes a fraction of a second."""
WEEK_H = 168
ONE_AXIS = [{"axis": "facility.pue", "values": [1.1]}]


# ---- the audit hook: which files were opened, seen from outside the code under test ------------------------------

_OPENED: list[str] | None = None


def _audit(event: str, args: tuple[Any, ...]) -> None:
    """Record every path ``open`` / ``os.open`` is given while :func:`watching_opens` is active."""
    if event == "open" and _OPENED is not None and isinstance(args[0], str | bytes | os.PathLike):
        _OPENED.append(os.fsdecode(args[0]))


sys.addaudithook(_audit)  # a hook cannot be removed; outside a watch it returns at once


@contextmanager
def watching_opens() -> Iterator[list[str]]:
    """The paths opened within the block (every ``open`` and ``os.open``: Python's audit event)."""
    global _OPENED
    _OPENED = opened = []
    try:
        yield opened
    finally:
        _OPENED = None


# ---- sweep folders ---------------------------------------------------------------------------------------------


def _week_csv(note: str) -> str:
    """A valid week of hourly rates with an extra column the reader ignores, holding ``note``."""
    return "hour,arrival_rps,note\n" + "".join(f"{h},{2 + h % 24},{note}\n" for h in range(WEEK_H))


def make_layout(root: Path) -> None:
    """The files every sweep-folder case chooses from: ``root/sweep`` (the sweep's folder) and ``root/out``."""
    shutil.rmtree(root, ignore_errors=True)
    out, sweep = root / "out", root / "sweep"
    (sweep / "sub").mkdir(parents=True)
    out.mkdir()
    (out / "secret.csv").write_text(f"hour,arrival_rps\n0,{SECRET}\n", encoding="utf-8")
    (out / "secret_valid.csv").write_text(_week_csv(SECRET), encoding="utf-8")
    (out / "secret.txt").write_text(f"{SECRET}\n{SECRET}: {SECRET}\n", encoding="utf-8")
    (out / "scenario.yaml").write_text(_scenario_text("secret_valid.csv"), encoding="utf-8")
    (sweep / "inside.csv").write_text(_week_csv(INSIDE_SECRET), encoding="utf-8")
    (sweep / "bad_inside.csv").write_text(f"hour,arrival_rps\n0,{INSIDE_SECRET}\n", encoding="utf-8")
    (sweep / "link_in.csv").symlink_to(sweep / "inside.csv")
    (sweep / "link_out.csv").symlink_to(out / "secret_valid.csv")
    (sweep / "sub" / "link_dir").symlink_to(out, target_is_directory=True)


def _scenario_text(csv_name: str | None) -> str:
    data = dict(BASE)
    if csv_name is not None:
        data["demand"] = {"profile": {"csv": csv_name}}
    return yaml.safe_dump(data, allow_unicode=True, sort_keys=False)


NAMES = [
    "inside.csv",
    "./inside.csv",
    "../inside.csv",
    "sub/../inside.csv",
    "../sweep/inside.csv",
    "../../sweep/inside.csv",
    "{sweep}/inside.csv",
    "bad_inside.csv",
    "link_in.csv",
    "link_out.csv",
    "../link_out.csv",
    "link_dir/secret_valid.csv",
    "sub/link_dir/secret_valid.csv",
    "../out/secret.csv",
    "../../out/secret.csv",
    "../out/secret_valid.csv",
    "../../out/secret_valid.csv",
    "{out}/secret_valid.csv",
    "{out}/secret.csv",
    "{out}/secret.txt",
    "{out}/scenario.yaml",
    "/etc/passwd",
    "/dev/zero",
    "/proc/self/environ",
    "missing.csv",
    ".",
    "..",
    "sub",
    "~/inside.csv",
]
"""CSV (and import) names, relative to the scenario's folder (``{sweep}`` and ``{out}`` are absolute)."""


def sweep_folders() -> st.SearchStrategy[dict[str, Any]]:
    """A sweep-folder case: where the scenario is, the CSV it names, an optional import, and ``allow_outside``."""
    name = st.one_of(st.sampled_from(NAMES), st.text(min_size=1, max_size=20))
    return st.fixed_dictionaries(
        {
            "scenario": st.sampled_from(["base.yaml", "sub/base.yaml", "../out/scenario.yaml", "{out}/scenario.yaml"]),
            "csv": st.one_of(st.none(), name),
            "import": st.one_of(st.none(), st.none(), name),
            "allow_outside": st.booleans(),
        }
    )


def _outside(target: Path, folder: Path) -> bool:
    return not target.resolve().is_relative_to(folder.resolve())


def check_sweep_folder(case: dict[str, Any], root: Path) -> str:
    """The contract of a sweep's file references: ``"read"`` or ``"refused"``; AssertionError otherwise.

    ``root`` holds :func:`make_layout`'s files (made once; a case writes only ``sweep/s.yaml`` and the scenario).
    """
    sweep, out = root / "sweep", root / "out"
    fill = {"sweep": str(sweep), "out": str(out)}
    scenario = case["scenario"].format(**fill)
    csv_name = (
        None if case["csv"] is None else case["csv"].replace("{sweep}", fill["sweep"]).replace("{out}", fill["out"])
    )
    scenario_path = sweep / scenario
    if scenario.endswith("base.yaml"):
        scenario_path.write_text(_scenario_text(csv_name), encoding="utf-8")
    axes: list[dict[str, Any]] = list(ONE_AXIS)
    if case["import"] is not None:
        name = case["import"].replace("{sweep}", fill["sweep"]).replace("{out}", fill["out"])
        axes.append({"axis": "systems", "each": True, "import": name})
    (sweep / "s.yaml").write_text(
        yaml.safe_dump({"name": "fuzz", "scenario": scenario, "axes": axes}, allow_unicode=True), encoding="utf-8"
    )
    allow = case["allow_outside"]
    with watching_opens() as opened:
        try:
            resolve(sweep / "s.yaml", allow_outside=allow)
            verdict, text = "read", ""
        except ScenarioError as exc:
            verdict, text = "refused", "\n".join(str(p) for p in exc.problems)
    assert SECRET not in text and INSIDE_SECRET not in text, text
    if not allow:
        leaked = [p for p in opened if Path(p).resolve().is_relative_to(out.resolve())]
        assert leaked == [], f"opened outside the sweep's folder: {leaked}"
    # what the oracle knows without the code under test: a reference that resolves outside is refused
    try:
        scenario_out = _outside(scenario_path, sweep)
        csv_target = None if csv_name is None or scenario_out else scenario_path.resolve().parent / csv_name
        csv_out = csv_target is not None and _outside(csv_target, sweep)
    except (OSError, ValueError):  # a name the OS cannot resolve (NUL, too long): refused either way
        return verdict
    if not allow and (scenario_out or csv_out):
        assert verdict == "refused" and "outside the sweep's folder" in text, (verdict, text)
    elif case["import"] is None and csv_target is not None and csv_target.resolve() == (sweep / "inside.csv").resolve():
        assert verdict == "read", text  # a valid CSV under the folder is read, whatever the way it is named
    return verdict


# ---- demand profiles ---------------------------------------------------------------------------------------------

GOOD_RATE = st.floats(0, 50, allow_nan=False)
EXTREME_RATE = st.sampled_from([0.0, 1e-300, 1e-6, 1e-3, 1e5, 1e7])
"""An hour at the edges (idle, below the floor, at the 1e7 limit): a few per profile, sometimes."""
BAD_CELL = st.sampled_from(["", " ", "nan", "inf", "-inf", "-1", "1e7000", "abc", "1,5", *MARKED])
GROWTH = st.floats(-1, 10, allow_nan=False)


def _growth(draw: st.DrawFn, years: int) -> dict[str, Any] | None:
    kind = draw(st.sampled_from(["none", "year", "quarter", "table", "table-ends"]))
    if kind == "none":
        return None
    if kind == "year":
        return {"per_year_fraction": draw(GROWTH)}
    if kind == "quarter":
        return {"per_quarter_fraction": draw(st.floats(-1, 1, allow_nan=False))}
    table = draw(st.lists(GROWTH, min_size=years, max_size=years))
    if kind == "table-ends":  # a year that ends the demand (-100%), maybe followed by growth from nothing
        table[draw(st.integers(0, years - 1))] = -1.0
    return {"per_year_table": table}


@st.composite
def profiles(draw: st.DrawFn) -> dict[str, Any]:
    """A profile case: ``demand`` for the scenario, and the CSV's text when the rates are in a file."""
    hours = draw(st.sampled_from([WEEK_H] * 8 + [8760, 100]))
    rates = draw(st.lists(GOOD_RATE, min_size=hours, max_size=hours)) if hours != 8760 else None
    if rates is None:  # a year: a repeated day with a drawn level, so drawing stays cheap
        level = draw(GOOD_RATE)
        rates = [level * (1 + (h % 24) / 24) for h in range(8760)]
    if draw(st.integers(0, 3)) == 0:  # an idle week, or a few hours at the edges
        idle = draw(st.booleans())
        for _ in range(draw(st.integers(1, 3))):
            rates[draw(st.integers(0, hours - 1))] = draw(EXTREME_RATE)
        rates = [0.0 if idle and r > 1e-3 else r for r in rates]
    years = draw(st.integers(1, 10))
    demand: dict[str, Any] = {"horizon_years": years}
    if (growth := _growth(draw, years)) is not None:
        demand["growth"] = growth
    if draw(st.booleans()):
        demand["profile"] = {"hourly_arrival_rps": rates}
        return {"demand": demand, "csv": None}
    cells = [repr(r) for r in rates]
    for _ in range(draw(st.sampled_from([0, 0, 0, 1, 3]))):  # a few bad cells, sometimes
        cells[draw(st.integers(0, hours - 1))] = draw(BAD_CELL)
    clock = draw(st.sampled_from(["hour", "timestamp"]))
    start = datetime(2026, 1, 5)
    steps = list(range(hours))
    if draw(st.integers(0, 9)) == 0:  # a gap, a repeat or a step back
        i = draw(st.integers(1, hours - 1))
        steps[i] = steps[i] + draw(st.sampled_from([-1, 0, 2, 25]))
    column = draw(st.sampled_from(["arrival_rps", "arrival_rps", "rps"]))
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow([clock, column])
    for step, cell in zip(steps, cells, strict=True):
        when = (start + timedelta(hours=step)).isoformat() if clock == "timestamp" else str(step)
        writer.writerow([when, cell])
    demand["profile"] = {"csv": "load.csv"} | ({"column": column} if column != "arrival_rps" else {})
    return {"demand": demand, "csv": out.getvalue()}


def _strict_json(text: str) -> Any:
    def refuse(constant: str) -> None:
        raise AssertionError(f"{constant} in JSON")

    return json.loads(text, parse_constant=refuse)


def check_profile(case: dict[str, Any], folder: Path) -> str:
    """The contract of a demand profile: ``"evaluated"`` or ``"refused"``; AssertionError otherwise."""
    folder.mkdir(parents=True, exist_ok=True)
    if case["csv"] is not None:
        (folder / "load.csv").write_text(case["csv"], encoding="utf-8")
    path = folder / "profile.yaml"
    path.write_text(yaml.safe_dump(dict(BASE) | {"demand": case["demand"]}, sort_keys=False), encoding="utf-8")
    try:
        scenario = rackcost.load_scenario(path)
    except ScenarioError as exc:
        assert exc.problems and all(p.file == str(path) for p in exc.problems), exc.problems
        text = "\n".join(str(p) for p in exc.problems)
        assert not [m for m in MARKED if m in text], text
        return "refused"
    result = rackcost.evaluate(scenario)
    assert find_non_finite(result.records) == [], find_non_finite(result.records)[:5]
    _strict_json(result.to_json())
    for table in result.records:
        for row in csv.reader(io.StringIO(result.to_csv(table))):
            assert not [c for c in row if c.lower() in ("nan", "inf", "-inf", "infinity")], (table, row)
    return "evaluated"
