"""Do two rackcost executables give the same numbers on every bundled scenario, face by face?

Run: ``.venv/bin/python benchmarks/equivalence.py --before OLD/.venv/bin/rackcost --after .venv/bin/rackcost
[--faces evaluate,uncertainty,report,simulate,sweep,plan] [--only NAME ...] [--routing ROUTER ...] [--jobs N]
[--allow-new-keys] [--ignore-key KEY ...] [--show N] [--keep DIR]``

Each executable is asked for its own bundled files (the ``folder:`` lines of ``rackcost scenarios``), and each face
is run by name, once per executable, in a folder of its own (``--keep DIR`` keeps them; a temporary folder
otherwise), with ``COLUMNS=200`` and every random face seeded (``NAME`` a bundled scenario, or a bundled sweep):

=========== ==========================================================================================================
face        command
=========== ==========================================================================================================
evaluate    ``evaluate NAME --format json``
uncertainty ``uncertainty NAME -n 2000 --seed 0 --workers 1 --format json``, only where the scenario has a
            distribution (its YAML has a ``dist:`` key)
report      ``report NAME --seed 0 --output report.md``: the Markdown text (the charts' PNG files are not compared)
simulate    ``simulate NAME -n 5000 --replications 2 --seed 0 --format json``: every system and demand point, a few
            seconds a scenario; ``--routing ROUTER`` adds ``simulate/ROUTER``, the same with ``--routing ROUTER``
sweep       ``sweep NAME --output table.csv`` for each bundled sweep: the table row by row and the printed summary
plan        ``plan NAME --format json``, only where the scenario has a ``plan:`` block
=========== ==========================================================================================================

JSON is walked leaf by leaf (and a CSV table row by row, cell by cell): a number is identical when its shortest
repr is the same on both sides (bit for bit), "within" when its relative difference ``|a - b| / max(|a|, |b|)`` is at
most 1e-12, else different, as is a number that changed type (``1`` against ``1.0``) and a string, boolean or null
that changed. A key on one side only is listed: one only in ``--after`` is a new field, one only in ``--before`` a
lost field. Keys that hold a wall-clock time (``solve_s``; ``--ignore-key`` adds more) are skipped. Text (the
report, the sweep's summary) is matched line by line (``difflib``): a changed line is compared token by token, its
numbers as numbers; a line found on both sides at different places is moved; blank lines are not listed. Before
comparing, each side's bundled folders, the run's own folder, the run's date (local and UTC) and ``rackcost X.Y.Z``
are replaced by placeholders. Where both sides refuse a face (non-zero exit) with the same message, the face is
identical; otherwise a different exit code or message is a difference.

Prints one line per (name, face): ``identical`` (how many leaves), ``within 1e-12`` (how many numbers, the largest
relative difference and where) or ``DIFFERENT`` (the first ``--show`` paths with both values), with the lost, new
and moved keys or lines listed below it; then the totals and the run time. A lost key or line always fails; a new
key or line and a moved line fail unless ``--allow-new-keys`` (a change that adds a table or a notice). Exits 1 on
any ``DIFFERENT``, 0 otherwise. Every face of every bundled scenario and sweep (36 pairs) took 17 minutes of wall
time with ``--jobs 1`` and 12 with ``--jobs 2`` on a shared 2-core machine at a load average near 10.
"""

from __future__ import annotations

import argparse
import csv
import datetime
import difflib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

TOLERANCE = 1e-12
"""Largest relative difference counted as "within": a sum taken in another order differs by a few ulp per term
(about 1e-16 each), far below it; a changed formula almost never lands inside it."""

FACES = ("evaluate", "uncertainty", "report", "simulate", "sweep", "plan")
WALL_CLOCK_KEYS = ("solve_s",)
"""Keys that hold a measured time, not a result (the buying plan's solver time)."""

RECORD_LABELS = ("configuration", "system", "source", "name", "demand_point", "point", "class", "pool", "column")
"""Fields that name a record in a list; shown beside its index in a path so that a difference can be read."""

NUMBER = re.compile(r"[-+]?(?:\d[\d,]*(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?")
TOKEN = re.compile(rf"{NUMBER.pattern}|\w+|[^\w\s]")


# ---- comparing ----------------------------------------------------------------------------------------------------


@dataclass
class Comparison:
    """What a comparison of two documents found.

    Attributes
    ----------
    leaves : int
        Leaves (numbers, strings, booleans, nulls; in text, numbers) compared on both sides.
    within : list of (str, float)
        Path and relative difference of each number not bit for bit equal but within the tolerance.
    different : list of (str, str, str)
        Path, value before and value after of each difference.
    only_before : list of str
        Paths present before only (a lost field or line).
    only_after : list of str
        Paths present after only (a new field or line).
    moved : list of str
        Lines of text found on both sides at different places (``line 20 -> 18: ...``): a change of layout.
    """

    leaves: int = 0
    within: list[tuple[str, float]] = field(default_factory=list)
    different: list[tuple[str, str, str]] = field(default_factory=list)
    only_before: list[str] = field(default_factory=list)
    only_after: list[str] = field(default_factory=list)
    moved: list[str] = field(default_factory=list)

    def failed(self, allow_new_keys: bool = False) -> bool:
        """Whether anything differs: a changed leaf, a lost key, or a new key or moved line unless allowed."""
        return bool(self.different or self.only_before or ((self.only_after or self.moved) and not allow_new_keys))

    def status(self, allow_new_keys: bool = False) -> str:
        """``DIFFERENT``, ``within 1e-12`` or ``identical``."""
        if self.failed(allow_new_keys):
            return "DIFFERENT"
        return f"within {TOLERANCE:g}" if self.within else "identical"

    def add(self, other: Comparison, prefix: str) -> None:
        """Add another comparison's findings, its paths under ``prefix``."""
        self.leaves += other.leaves
        self.within += [(prefix + p, r) for p, r in other.within]
        self.different += [(prefix + p, b, a) for p, b, a in other.different]
        self.only_before += [prefix + p for p in other.only_before]
        self.only_after += [prefix + p for p in other.only_after]
        self.moved += [prefix + p for p in other.moved]


def relative_difference(before: float, after: float) -> float:
    """``|after - before| / max(|before|, |after|)`` (0 when both are 0) [-]."""
    scale = max(abs(before), abs(after))
    return 0.0 if scale == 0 else abs(after - before) / scale


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _label(item: Any) -> str:
    """``{system=..., demand_point=...}`` for a record that names itself, else ``""``."""
    if not isinstance(item, dict):
        return ""
    named = [f"{k}={item[k]}" for k in RECORD_LABELS if isinstance(item.get(k), str | int) and k in item]
    return "{" + ", ".join(named) + "}" if named else ""


def _numbers(before: Any, after: Any, path: str, out: Comparison, tolerance: float) -> None:
    out.leaves += 1
    if type(before) is not type(after):
        out.different.append((path, f"{type(before).__name__} {before!r}", f"{type(after).__name__} {after!r}"))
    elif repr(before) != repr(after):  # the shortest repr of a float is the same iff its bits are
        rel = relative_difference(float(before), float(after))
        if rel <= tolerance:
            out.within.append((path, rel))
        else:
            out.different.append((path, repr(before), repr(after)))


def _walk(before: Any, after: Any, path: str, out: Comparison, tolerance: float, ignore: frozenset[str]) -> None:
    if isinstance(before, dict) and isinstance(after, dict):
        for key, value in before.items():
            if key in ignore:
                continue
            if key in after:
                _walk(value, after[key], f"{path}.{key}", out, tolerance, ignore)
            else:
                out.only_before.append(f"{path}.{key}")
        out.only_after += [f"{path}.{key}" for key in after if key not in before and key not in ignore]
    elif isinstance(before, list) and isinstance(after, list):
        for i, (b, a) in enumerate(zip(before, after, strict=False)):
            _walk(b, a, f"{path}[{i}]{_label(b)}", out, tolerance, ignore)
        out.only_before += [f"{path}[{i}]{_label(b)}" for i, b in enumerate(before[len(after) :], len(after))]
        out.only_after += [f"{path}[{i}]{_label(a)}" for i, a in enumerate(after[len(before) :], len(before))]
    elif _is_number(before) and _is_number(after):
        _numbers(before, after, path, out, tolerance)
    else:
        out.leaves += 1
        if type(before) is not type(after) or before != after:
            out.different.append((path, _short(before), _short(after)))


def _short(value: Any) -> str:
    """A JSON value as one short line (its repr; a dict or list as JSON)."""
    return _clip(json.dumps(value, ensure_ascii=False) if isinstance(value, dict | list) else repr(value))


def _clip(text: str, width: int = 100) -> str:
    """A line of text stripped and cut to ``width`` characters."""
    text = text.strip()
    return text if len(text) <= width else text[: width - 3] + "..."


def compare(
    before: Any, after: Any, tolerance: float = TOLERANCE, ignore: Iterable[str] = (), path: str = "$"
) -> Comparison:
    """Compare two JSON documents leaf by leaf.

    Parameters
    ----------
    before, after : JSON-like
        Documents as ``json.loads`` gives them (dicts, lists, str, int, float, bool, None).
    tolerance : float
        Largest relative difference of two numbers counted as "within" rather than different [-].
    ignore : iterable of str
        Keys skipped wherever they occur (values that are wall-clock times).
    path : str
        Name of the root in the paths reported.

    Returns
    -------
    Comparison
        Leaves compared, numbers within the tolerance, differences, and keys on one side only.

    Examples
    --------
    >>> compare({"a": 1.0, "b": [1, "x"]}, {"a": 1.0 + 2e-16, "b": [1, "x"], "c": 0}).status(allow_new_keys=True)
    'within 1e-12'
    """
    out = Comparison()
    _walk(before, after, path, out, tolerance, frozenset(ignore))
    return out


def tokens(line: str) -> list[str]:
    """A line's tokens: numbers (with thousands separators), words, and single other characters."""
    return TOKEN.findall(line)


def _number_value(token: str) -> float | None:
    if not NUMBER.fullmatch(token):
        return None
    try:
        return float(token.replace(",", ""))
    except ValueError:
        return None


def _compare_lines(before: str, after: str, path: str, out: Comparison, tolerance: float) -> None:
    b_tokens, a_tokens = tokens(before), tokens(after)
    numeric = [(_number_value(b), _number_value(a)) for b, a in zip(b_tokens, a_tokens, strict=False)]
    same_shape = len(b_tokens) == len(a_tokens) and all(
        (nb is None) == (na is None) and (nb is not None or b == a)
        for (nb, na), b, a in zip(numeric, b_tokens, a_tokens, strict=True)
    )
    if not same_shape:
        out.different.append((path, _clip(before), _clip(after)))
        return
    worst = 0.0
    for nb, na in numeric:
        if nb is not None and na is not None:
            out.leaves += 1
            worst = max(worst, relative_difference(nb, na))
    if worst > tolerance:
        out.different.append((path, _clip(before), _clip(after)))
    else:
        out.within.append((path, worst))  # the line's text differs, its numbers agree (e.g. "1.0" against "1")


def compare_text(before: str, after: str, tolerance: float = TOLERANCE, path: str = "line ") -> Comparison:
    """Compare two texts line by line, a changed line token by token with its numbers as numbers.

    Parameters
    ----------
    before, after : str
        The texts (already masked of dates, versions and folders).
    tolerance : float
        Largest relative difference of two numbers counted as "within" [-].
    path : str
        Prefix of the line numbers reported (line numbers are those of ``after``, or of ``before`` for a line lost).

    Returns
    -------
    Comparison
        A line only after is in ``only_after`` (a new line), one only before in ``only_before``; a line lost in one
        place and found in another (the same text) is in ``moved`` instead.

    Examples
    --------
    >>> compare_text("cost $1.20\\nend", "cost $1.20\\nnew\\nend").only_after
    ['line 2: new']
    """
    out = Comparison()
    b_lines, a_lines = before.splitlines(), after.splitlines()
    lost: list[int] = []  # line indices before, and after, on one side only
    new: list[int] = []
    for op, b0, b1, a0, a1 in difflib.SequenceMatcher(None, b_lines, a_lines, autojunk=False).get_opcodes():
        if op == "equal":
            out.leaves += sum(_number_value(t) is not None for line in b_lines[b0:b1] for t in tokens(line))
            continue
        pairs = min(b1 - b0, a1 - a0) if op == "replace" else 0
        for i in range(pairs):
            if b_lines[b0 + i] in a_lines[a0:a1] or a_lines[a0 + i] in b_lines[b0:b1]:
                lost.append(b0 + i)  # a line of the block that moves within it is a move, not a change
                new.append(a0 + i)
            else:
                _compare_lines(b_lines[b0 + i], a_lines[a0 + i], f"{path}{a0 + i + 1}", out, tolerance)
        lost += range(b0 + pairs, b1)
        new += range(a0 + pairs, a1)
    # a blank line gained or lost moves no number: Markdown's paragraphs are not listed line by line
    lost = [j for j in lost if b_lines[j].strip()]
    new = [i for i in new if a_lines[i].strip()]
    for i in list(new):
        match = next((j for j in lost if b_lines[j] == a_lines[i]), None)
        if match is not None:
            lost.remove(match)
            new.remove(i)
            out.moved.append(f"{path}{match + 1} -> {i + 1}: {_clip(a_lines[i])}")
    for j in lost:  # a line paired with a moved one but itself not found elsewhere
        out.only_before.append(f"{path}{j + 1}: {_clip(b_lines[j])}")
    out.only_after += [f"{path}{i + 1}: {_clip(a_lines[i])}" for i in new]
    return out


def _cell(text: str) -> Any:
    """A CSV cell as JSON would hold it: empty is null, then int, then float, else the string."""
    if text == "":
        return None
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def read_csv(text: str) -> list[dict[str, Any]]:
    """A CSV table as a list of rows, each ``{column: cell}`` (cells read by ``_cell``)."""
    return [{k: _cell(v) for k, v in row.items()} for row in csv.DictReader(io.StringIO(text))]


# ---- running ------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Side:
    """One executable and the folders its bundled files live in."""

    label: str
    executable: str
    scenarios: Path
    sweeps: Path


@dataclass(frozen=True)
class Task:
    """One face of one bundled file, run the same way on both sides.

    Attributes
    ----------
    name : str
        The bundled scenario's (or sweep's) name, as the command line takes it.
    face : str
        One of ``FACES``.
    arguments : tuple of str
        The command after the executable.
    read : callable
        ``read(folder, stdout, mask) -> (kind, document)``, each text passed through ``mask`` before it is parsed:
        ``kind`` ``"json"`` or ``"text"``, or ``"sweep"`` with ``(rows, summary text)``.
    """

    name: str
    face: str
    arguments: tuple[str, ...]
    read: Callable[[Path, str, Callable[[str], str]], tuple[str, Any]]


@dataclass(frozen=True)
class Outcome:
    """A command's exit code, its output as read by its task, and the first line of its error output."""

    returncode: int
    kind: str
    document: Any
    error: str
    seconds: float


def _stdout_json(folder: Path, stdout: str, mask: Callable[[str], str]) -> tuple[str, Any]:
    return "json", json.loads(mask(stdout))


def _report_text(folder: Path, stdout: str, mask: Callable[[str], str]) -> tuple[str, Any]:
    return "text", mask((folder / "report.md").read_text(encoding="utf-8"))


def _sweep_table(folder: Path, stdout: str, mask: Callable[[str], str]) -> tuple[str, Any]:
    table = mask((folder / "table.csv").read_text(encoding="utf-8"))
    return "sweep", (read_csv(table), mask(stdout))


def environment() -> dict[str, str]:
    """The commands' environment: this one, a fixed width, no colour, no progress on a terminal."""
    return {**os.environ, "COLUMNS": "200", "NO_COLOR": "1", "TERM": "dumb"}


def bundled(executable: str, label: str) -> Side:
    """An executable's bundled folders, from the ``folder:`` lines ``rackcost scenarios`` prints."""
    run = subprocess.run(
        [executable, "scenarios"], capture_output=True, text=True, env={**environment(), "COLUMNS": "2000"}
    )
    folders = re.findall(r"^folder: (.+?)\s*$", run.stdout, re.M)
    if run.returncode != 0 or len(folders) < 2:  # the scenarios and the sweeps first (then the models documents)
        raise SystemExit(f"{executable} scenarios: expected 'folder:' lines (exit {run.returncode})")
    return Side(label, executable, Path(folders[0]), Path(folders[1]))


def executable(given: str) -> str:
    """An executable's absolute path (the commands run in folders of their own), found on ``PATH`` if bare."""
    found = shutil.which(given) if os.sep not in given else str(Path(given).absolute())
    if found is None or not os.access(found, os.X_OK):
        raise SystemExit(f"{given}: not an executable")
    return found


def _has(pattern: str, *files: Path) -> bool:
    return any(f.is_file() and re.search(pattern, f.read_text(encoding="utf-8"), re.M) for f in files)


def tasks(
    before: Side, after: Side, faces: Sequence[str], only: Sequence[str], routings: Sequence[str] = ()
) -> list[Task]:
    """Every (name, face) to run, in the order printed: scenarios by name, each through the faces that apply.

    ``uncertainty`` applies where either side's file has a ``dist:`` key, ``plan`` where it has a ``plan:`` block;
    ``sweep`` runs each bundled sweep instead. ``only`` keeps the names containing one of its strings. Each of
    ``routings`` adds a face ``simulate/ROUTER``: the simulation again with ``--routing ROUTER``.
    """

    def names(kind: str) -> list[str]:
        found = {p.stem for side in (before, after) for p in getattr(side, kind).glob("*.yaml")}
        return sorted(n for n in found if not only or any(o in n for o in only))

    out: list[Task] = []
    for name in names("scenarios"):
        files = (before.scenarios / f"{name}.yaml", after.scenarios / f"{name}.yaml")
        runs = {
            "evaluate": ((name, "--format", "json"), _stdout_json, True),
            "uncertainty": (
                (name, "-n", "2000", "--seed", "0", "--workers", "1", "--format", "json"),
                _stdout_json,
                _has(r"\bdist\s*:", *files),
            ),
            "report": ((name, "--seed", "0", "--output", "report.md"), _report_text, True),
            "simulate": (
                (name, "-n", "5000", "--replications", "2", "--seed", "0", "--format", "json"),
                _stdout_json,
                True,
            ),
            "plan": ((name, "--format", "json"), _stdout_json, _has(r"^plan\s*:", *files)),
        }
        out += [Task(name, f, (f, *runs[f][0]), runs[f][1]) for f in faces if f in runs and runs[f][2]]
        if "simulate" in faces:
            simulate = ("simulate", *runs["simulate"][0])
            out += [Task(name, f"simulate/{r}", (*simulate, "--routing", r), _stdout_json) for r in routings]
    if "sweep" in faces:
        out += [Task(n, "sweep", ("sweep", n, "--output", "table.csv"), _sweep_table) for n in names("sweeps")]
    return out


def _masks(side: Side, folder: Path) -> list[tuple[str, str]]:
    """(text, placeholder) pairs replaced in a side's output: its folders, the run's folder and date."""
    now = datetime.datetime.now(datetime.UTC)
    days = {now.date().isoformat(), now.astimezone().date().isoformat()}
    pairs = [(str(side.scenarios), "<scenarios>"), (str(side.sweeps), "<sweeps>"), (str(folder), "<run>")]
    return pairs + [(day, "<date>") for day in sorted(days)]


def _masked(text: str, masks: list[tuple[str, str]]) -> str:
    for old, new in masks:
        text = text.replace(old, new)
    return re.sub(r"\brackcost v?\d+\.\d+(?:\.\d+)?\S*", "rackcost <version>", text)


def run(side: Side, task: Task, root: Path) -> Outcome:
    """Run a task with one side's executable in a folder of its own, and read what it wrote."""
    folder = root / side.label / task.name / task.face
    folder.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    done = subprocess.run(
        [side.executable, *task.arguments], cwd=folder, capture_output=True, text=True, env=environment()
    )
    seconds = time.perf_counter() - started
    masks = _masks(side, folder)
    error = _masked(done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "", masks)
    if done.returncode != 0:
        return Outcome(done.returncode, "error", None, error, seconds)
    try:  # the text is masked before it is parsed: a path or a date inside a JSON string is masked too
        kind, document = task.read(folder, done.stdout, lambda text: _masked(text, masks))
    except (OSError, ValueError) as exc:  # no file written, or not JSON / CSV
        return Outcome(done.returncode, "error", None, f"its output could not be read: {exc}", seconds)
    return Outcome(done.returncode, kind, document, error, seconds)


def compare_outcomes(before: Outcome, after: Outcome, ignore: Iterable[str]) -> Comparison:
    """Compare what two runs of one task gave: their exit codes and errors, or their documents."""
    if "error" in (before.kind, after.kind):
        out = Comparison(leaves=1)
        if (before.returncode, before.error) != (after.returncode, after.error):
            out.different.append(("exit", f"{before.returncode}: {before.error}", f"{after.returncode}: {after.error}"))
        return out
    if before.kind == "json":
        return compare(before.document, after.document, ignore=ignore)
    if before.kind == "text":
        return compare_text(before.document, after.document)
    out = compare(before.document[0], after.document[0], ignore=ignore, path="table")
    out.add(compare_text(before.document[1], after.document[1]), "summary ")
    return out


# ---- printing -----------------------------------------------------------------------------------------------------


def describe(task: Task, found: Comparison, before: Outcome, allow_new_keys: bool, show: int) -> list[str]:
    """The result line of a task and the lines that detail it."""
    status = found.status(allow_new_keys)
    head = f"{task.name:<46} {task.face:<24} {status}"
    if before.kind == "error" and not found.failed():
        head += f" (both exit {before.returncode}: {before.error[:80]})"
    elif found.within:
        path, worst = max(found.within, key=lambda w: w[1])
        head += f" ({len(found.within)} of {found.leaves}; max rel diff {worst:.2g} at {path})"
    else:
        head += f" ({found.leaves} leaves)"
    lines = [head]
    lines += [f"    {p}: before {b} | after {a}" for p, b, a in found.different[:show]]
    if len(found.different) > show:
        lines.append(f"    ... and {len(found.different) - show} more differences")
    for what, paths in (("lost", found.only_before), ("new", found.only_after), ("moved", found.moved)):
        lines += [f"    {what}: {p}" for p in paths[:show]]
        if len(paths) > show:
            lines.append(f"    ... and {len(paths) - show} more {what}")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    """Run every task on both sides, print a line for each and the totals; 1 if any differs, else 0."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="the rackcost executable before the change")
    parser.add_argument("--after", required=True, help="the rackcost executable after the change")
    parser.add_argument("--faces", default=",".join(FACES), help=f"comma-separated, of {', '.join(FACES)}")
    parser.add_argument("--only", action="append", default=[], help="keep names containing this (repeatable)")
    parser.add_argument("--jobs", type=int, default=1, help="commands run at once (default 1)")
    parser.add_argument("--allow-new-keys", action="store_true", help="list keys and lines only in --after, pass")
    parser.add_argument("--routing", action="append", default=[], help="simulate again with this router too")
    parser.add_argument("--ignore-key", action="append", default=[], help="skip this key too (repeatable)")
    parser.add_argument("--show", type=int, default=5, help="differences shown per line (default 5)")
    parser.add_argument("--keep", type=Path, help="run in this folder and keep the outputs")
    args = parser.parse_args(argv)
    faces = [f.strip() for f in args.faces.split(",") if f.strip()]
    if unknown := sorted(set(faces) - set(FACES)):
        parser.error(f"unknown faces {unknown}; choose from {', '.join(FACES)}")
    started = time.perf_counter()
    before, after = bundled(executable(args.before), "before"), bundled(executable(args.after), "after")
    todo = tasks(before, after, faces, args.only, args.routing)
    ignore = (*WALL_CLOCK_KEYS, *args.ignore_key)
    with tempfile.TemporaryDirectory(prefix="equivalence-") as temporary:
        root = args.keep or Path(temporary)
        counts = dict.fromkeys(("identical", f"within {TOLERANCE:g}", "DIFFERENT"), 0)
        print(f"before: {before.executable} ({before.scenarios.parent})")
        print(f"after:  {after.executable} ({after.scenarios.parent})")
        for name in sorted({t.name for t in todo}):
            kind = "scenarios" if any(t.name == name and t.face != "sweep" for t in todo) else "sweeps"
            files = [getattr(side, kind) / f"{name}.yaml" for side in (before, after)]
            if not all(f.is_file() for f in files):
                print(f"note: {name} is bundled on one side only")
            elif files[0].read_bytes() != files[1].read_bytes():
                print(f"note: the bundled {name}.yaml differs between the two sides (its results may too)")
        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            futures: list[tuple[Task, Future[Outcome], Future[Outcome]]] = [
                (t, pool.submit(run, before, t, root), pool.submit(run, after, t, root)) for t in todo
            ]
            try:
                for task, b, a in futures:
                    found = compare_outcomes(b.result(), a.result(), ignore)
                    counts[found.status(args.allow_new_keys)] += 1
                    print("\n".join(describe(task, found, b.result(), args.allow_new_keys, args.show)), flush=True)
            except BaseException:  # an interrupt or a bug: stop, rather than run the queued commands first
                pool.shutdown(wait=False, cancel_futures=True)
                raise
    print(", ".join(f"{n} {status}" for status, n in counts.items()) + f" of {len(todo)} (scenario, face) pairs")
    print(f"ran in {time.perf_counter() - started:.0f} s with --jobs {args.jobs}")
    return 1 if counts["DIFFERENT"] else 0


if __name__ == "__main__":
    sys.exit(main())
