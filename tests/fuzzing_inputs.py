"""The input fuzzer of issue 19: hypothesis strategies for the files and names a user or an attacker hands rackcost
beside a scenario, and the contract each reader keeps.

Used by ``tests/test_fuzz_inputs.py`` (a small budget in CI) and ``benchmarks/fuzz_inputs.py`` (a large one, with
counts). Strategies:

- :func:`hostile_names`: names with spreadsheet formulas (``=``, ``+``, ``-``, ``@``, tab, CR), Markdown and HTML that
  would fetch a URL, Streamlit directives, control characters and long Unicode;
- :func:`named_scenarios`: the two-system test scenario with such names for its scenario, systems and demand points;
- :func:`csv_tables`: CSV tables for ``rackcost import csv`` with shuffled, missing and extra columns and cells that
  are formulas, blanks, huge or non-finite numbers and text;
- :func:`traces`: arrival traces for ``rackcost simulate --trace`` with duplicated, unsorted, negative, non-finite
  and non-numeric arrivals and token counts, and too few rows;
- :func:`sweep_files`: sweep files over the bundled default scenario with numeric, range, demand-scale, systems and
  variant axes, hostile names and labels, unknown paths, values out of range and values of the wrong type.

Contracts: a scenario either loads and evaluates, with every CSV table free of a cell a spreadsheet would execute,
or is refused with problems that name the file; an import returns curves whose text holds no formula, or skips
rows with reasons, never raising; a trace is read (finite, sorted arrivals with a span, positive token counts) or
refused with a ValueError naming the file; a sweep runs to a table whose numbers are finite (or missing, for an API
system), or is refused with a ScenarioError or SweepError, never another exception.
"""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path
from typing import Any

import numpy as np
import yaml
from hypothesis import strategies as st

import rackcost
from rackcost import ScenarioError
from rackcost.analysis.sweep.run import SweepError, run_sweep
from rackcost.analysis.trace_files import Trace, read_trace
from rackcost.files import FORMULA_PREFIXES
from rackcost.importers import read_csv_table
from reference import TWO_SYSTEMS, find_non_finite

FORMULAS = [
    "=cmd|' /C calc'!A0",
    '=HYPERLINK("http://attacker.example","x")',
    "@SUM(1+1)",
    "+1+2",
    "-2+3",
    "\t=1",
    "\r=1",
]
"""Cells a spreadsheet executes (OWASP's CSV injection examples)."""
MARKUP = [
    "![x](http://attacker.example/p.png)",
    "[click](javascript:alert(1))",
    "<img src=http://attacker.example/q.png>",
    ":red[alarm] :material/home:",
    "**bold** _it_ `code` # heading",
    "$x^2$",
]
"""Names that Markdown, HTML or Streamlit would render, and some would fetch."""


def hostile_names() -> st.SearchStrategy[str]:
    """A name as an attacker or a careless user would write it."""
    printable = st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp"))
    return st.one_of(
        st.sampled_from(FORMULAS + MARKUP),
        st.builds(lambda a, b: a + b, st.sampled_from(FORMULAS + MARKUP), st.text(printable, max_size=12)),
        st.text(printable, min_size=1, max_size=40),
        st.text(alphabet="=+-@<>![]()*_`#:$ ", min_size=1, max_size=20),
        st.text(alphabet="=+-@\t\r\n\x00\u2028<>", min_size=1, max_size=8),  # control characters: refused
    )


def named_scenarios() -> st.SearchStrategy[str]:
    """YAML text of the two-system scenario whose scenario, system and demand-point names are hostile."""
    base = yaml.safe_load(TWO_SYSTEMS.read_text(encoding="utf-8"))

    def build(names: list[str]) -> str:
        data = yaml.safe_load(yaml.safe_dump(base))
        data["name"] = names[0]
        data["systems"][0]["name"], data["systems"][1]["name"] = names[1], names[2]
        for point, name in zip(data["demand"], names[3:], strict=True):
            point["name"] = name
        return yaml.safe_dump(data, allow_unicode=True, sort_keys=False)

    return st.lists(hostile_names(), min_size=6, max_size=6).map(build)


def executable_cells(text: str) -> list[str]:
    """Cells of CSV text that a spreadsheet would run: text starting like a formula (numbers are fine)."""
    bad = []
    for row in csv.reader(io.StringIO(text, newline="")):
        for cell in row:
            if cell.startswith(FORMULA_PREFIXES):
                try:
                    float(cell)
                except ValueError:
                    bad.append(cell)
    return bad


def check_named_scenario(text: str, file: str = "names.yaml") -> str:
    """The contract of a scenario with hostile names: ``"evaluated"`` or ``"refused"``; AssertionError otherwise."""
    try:
        scenario = rackcost.scenario_from_yaml(text, file)
    except ScenarioError as exc:
        assert exc.problems and all(p.file == file for p in exc.problems), exc.problems
        return "refused"
    result = rackcost.evaluate(scenario)
    assert find_non_finite(result.records) == [], "a non-finite figure"
    for table in ("points", "systems", "comparison"):
        assert executable_cells(result.to_csv(table)) == [], table
    return "evaluated"


COLUMNS = ["hardware", "concurrency", "throughput_tokens_per_s", "tpot_ms", "ttft_ms", "source", "model", "extra"]
CELLS = st.one_of(
    st.sampled_from(FORMULAS),
    st.sampled_from(["", " ", "nan", "inf", "-inf", "1e308", "-5", "0", "abc", "1,5"]),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.integers(-10, 10**6).map(str),
    st.text(max_size=10),
)


def csv_tables() -> st.SearchStrategy[tuple[str, bytes]]:
    """A file name and the bytes of a CSV table of operating points, most cells plausible, some hostile."""

    @st.composite
    def build(draw: st.DrawFn) -> tuple[str, bytes]:
        required = ["concurrency", "throughput_tokens_per_s", "tpot_ms", "ttft_ms"]
        if draw(st.integers(0, 4)):  # mostly a table the importer can read, its columns in any order
            extra = draw(st.lists(st.sampled_from([c for c in COLUMNS if c not in required]), unique=True))
            columns = draw(st.permutations(required + extra))
        else:
            columns = draw(st.lists(st.sampled_from(COLUMNS), min_size=1, max_size=len(COLUMNS), unique=True))
        rows = draw(st.integers(0, 6))
        plausible = {
            "hardware": st.sampled_from(["h100", "b200"]),
            "concurrency": st.sampled_from(["4", "8", "16", "32"]),
            "throughput_tokens_per_s": st.sampled_from(["1000", "2500", "4000"]),
            "tpot_ms": st.sampled_from(["10", "20", "40"]),
            "ttft_ms": st.sampled_from(["200", "400"]),
        }
        out = io.StringIO()
        writer = csv.writer(out)
        writer.writerow(columns)
        for _ in range(rows):
            hostile = draw(st.integers(0, 3)) == 0  # a quarter of the rows carry hostile cells
            writer.writerow([draw(CELLS if hostile else plausible.get(c, CELLS)) for c in columns])
        name = draw(st.sampled_from(["points_1k1k.csv", "points.csv", "=x.csv"]))
        return name, out.getvalue().encode("utf-8")

    return build()


def check_csv_table(name: str, data: bytes) -> str:
    """The contract of ``import csv``: curves or skipped rows, never an exception; no formula in any curve's text."""
    result = read_csv_table(name, data)
    for curve in result.curves:
        texts = [curve.label, *_strings(curve.performance), *_strings(curve.provenance)]
        assert not [t for t in texts if t.startswith(FORMULA_PREFIXES[:1] + FORMULA_PREFIXES[3:])], texts
        assert find_non_finite(curve.performance) == [], curve.performance
    assert all(s.reason for s in result.skipped)
    return "imported" if result.curves else "nothing"


def _strings(data: Any) -> list[str]:
    if isinstance(data, str):
        return [data]
    if isinstance(data, dict):
        return [s for v in data.values() for s in _strings(v)]
    if isinstance(data, list):
        return [s for v in data for s in _strings(v)]
    return []


def traces() -> st.SearchStrategy[str]:
    """The text of an arrival trace: often valid, sometimes with a bad row, a bad header or too few rows."""
    good_row = st.tuples(st.floats(0, 1e5, allow_nan=False), st.integers(1, 10_000), st.integers(1, 10_000)).map(
        lambda r: f"{r[0]!r},{r[1]},{r[2]}"
    )
    bad_row = st.sampled_from(["nan,10,10", "inf,10,10", "-1,10,10", "1,0,10", "1,10,-5", "x,10,10", "1,10", ",,"])
    header = st.sampled_from(["arrival_s,input_tokens,output_tokens"] * 6 + ["arrival_s,output_tokens", "a,b,c", ""])

    @st.composite
    def build(draw: st.DrawFn) -> str:
        rows = draw(st.lists(good_row, min_size=draw(st.sampled_from([0, 5, 20, 30])), max_size=60))
        if rows and draw(st.integers(0, 3)) == 0:  # a bad row somewhere
            rows.insert(draw(st.integers(0, len(rows))), draw(bad_row))
        if rows and draw(st.integers(0, 5)) == 0:
            rows = [rows[0]] * len(rows)  # every arrival at one instant
        return draw(header) + "\n" + "\n".join(rows) + "\n"

    return build()


def check_trace(text: str, folder: Path) -> str:
    """The contract of :func:`read_trace`: a valid trace, or a ValueError that names the file."""
    path = folder / "trace.csv"
    path.write_text(text, encoding="utf-8")
    try:
        trace = read_trace(path)
    except ValueError as exc:
        assert str(path) in str(exc), exc
        return "refused"
    assert isinstance(trace, Trace)
    arrivals = trace.arrival_s
    assert arrivals.size >= 20 and bool((arrivals[1:] >= arrivals[:-1]).all())
    assert math.isfinite(trace.arrival_rps) and trace.arrival_rps > 0
    assert bool((trace.output_tokens > 0).all()) and bool((trace.input_tokens > 0).all())
    return "read"


SWEEP_SCENARIO = "deepseek-r1-jalapeno-vs-gb300"
"""The base scenario of the fuzzed sweeps (bundled: two systems, three demand points)."""
NUMERIC_PATHS = [
    "facility.electricity_usd_per_kwh",
    "facility.pue",
    "systems[0].capex.accelerator_usd",
    "systems[1].facility.pue",
    "demand.scale",
]
"""Paths an axis can vary; the strategy also draws unknown and hostile ones."""
ODD_VALUES = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False, min_value=-1e13, max_value=1e13),
    st.sampled_from([0, -1, 1e300, "0.1", "x", None, True, [], {}]),
)
"""Values an axis or a variant may be given: any finite number (some out of the field's range) or a wrong type."""


def sweep_files() -> st.SearchStrategy[str]:
    """The YAML text of a sweep over :data:`SWEEP_SCENARIO`: mostly well formed, with hostile names and labels,
    and sometimes an unknown path, a value out of range or of the wrong type."""
    plausible = st.floats(0.05, 2.0, allow_nan=False)
    path = st.one_of(st.sampled_from(NUMERIC_PATHS), st.sampled_from(["facility.nope", "systems[7].pue", "slo"]))
    numeric_axis = st.builds(
        lambda p, v: {"axis": p, "values": v},
        path,
        st.lists(st.one_of(plausible, ODD_VALUES), min_size=1, max_size=3),
    )
    range_axis = st.builds(
        lambda p, lo, hi, n, scale: {"axis": p, "range": {"from": lo, "to": hi, "steps": n, "scale": scale}},
        path,
        st.one_of(plausible, ODD_VALUES),
        st.one_of(plausible, ODD_VALUES),
        st.one_of(st.integers(1, 4), st.sampled_from([0, -2, "3", 2.5])),
        st.sampled_from(["linear", "log", "cubic"]),
    )
    variant = st.builds(
        lambda label, p, v: {"label": label, "set": {p: v}},
        hostile_names(),
        st.one_of(st.sampled_from([*NUMERIC_PATHS[:4], "slo.ttft_limit_ms", "systems[0].name"]), hostile_names()),
        st.one_of(plausible.map(lambda x: x * 1000), ODD_VALUES),
    )
    variant_axis = st.builds(
        lambda name, vs: {"axis": name, "variants": vs}, hostile_names(), st.lists(variant, min_size=1, max_size=3)
    )
    systems_axis = st.sampled_from(
        [{"axis": "systems", "each": True}, {"axis": "systems", "subsets": [["Jalapeño"], ["nope"]]}]
    )
    axis = st.one_of(numeric_axis, range_axis, variant_axis, systems_axis, ODD_VALUES)
    # a well-formed axis: known paths, values in their fields' ranges, labels that are formulas or Markdown
    label = st.one_of(st.sampled_from(FORMULAS[:5] + MARKUP), st.text("abcxyz =+-@#*_", min_size=1, max_size=8))
    good_axis = st.one_of(
        st.builds(
            lambda p, v: {"axis": p, "values": v},
            st.sampled_from(["facility.electricity_usd_per_kwh", "demand.scale"]),
            st.lists(st.floats(0.05, 2.0), min_size=1, max_size=3, unique=True),
        ),
        st.builds(lambda n: {"axis": "facility.pue", "range": {"from": 1.1, "to": 1.6, "steps": n}}, st.integers(1, 3)),
        st.builds(
            lambda name, labels: {
                "axis": name,
                "variants": [{"label": x, "set": {"slo.ttft_limit_ms": 1000 + 500 * k}} for k, x in enumerate(labels)],
            },
            label.filter(lambda n: n not in ("system", "payment", "configuration", "demand_point")),
            st.lists(label, min_size=1, max_size=2, unique=True),
        ),
        systems_axis,
    )

    @st.composite
    def build(draw: st.DrawFn) -> str:
        if draw(st.integers(0, 3)):  # mostly a well-formed sweep, its names and labels hostile
            axes = draw(st.lists(good_axis, min_size=1, max_size=2, unique_by=lambda a: str(a["axis"])))
            return yaml.safe_dump(
                {"name": draw(label), "scenario": SWEEP_SCENARIO, "axes": axes}, allow_unicode=True, sort_keys=False
            )
        data: dict[str, Any] = {
            "name": draw(hostile_names()),
            "scenario": draw(st.sampled_from([SWEEP_SCENARIO] * 8 + ["../outside.yaml", "/etc/passwd", 3])),
            "axes": draw(st.lists(axis, min_size=0, max_size=3)),
        }
        if draw(st.integers(0, 4)) == 0:
            data["system_attributes"] = {draw(hostile_names()): draw(st.sampled_from(["J(\\w)", "(a+)+$", "[", "."]))}
        if draw(st.integers(0, 4)) == 0:
            data["samples"] = draw(st.sampled_from([2, 3, 0, "4"]))
        if draw(st.integers(0, 5)) == 0:
            data["summary"] = {"demand_point": draw(st.sampled_from(["blended", "nope", "peak"]))}
        return yaml.safe_dump(data, allow_unicode=True, sort_keys=False)

    return build()


def check_sweep(text: str, folder: Path) -> str:
    """The contract of a sweep file: ``"ran"`` (a table with finite numbers, no failed chunk) or ``"refused"`` (a
    ScenarioError naming the file, or a SweepError); any other exception is a broken contract."""
    path = folder / "sweep.yaml"
    path.write_text(text, encoding="utf-8")
    try:
        result = run_sweep(path, scheduler="synchronous")
    except ScenarioError as exc:
        assert exc.problems and all(p.file in (str(path), "<sweep>") for p in exc.problems), exc.problems
        return "refused"
    except SweepError:
        return "refused"
    assert not result.failed_chunks, result.failed_chunks
    frame = result.frame
    assert len(frame) > 0
    numbers = frame.select_dtypes("number")
    values = numbers.to_numpy(dtype=float, na_value=0.0)  # an API system's missing figures are <NA>
    assert bool(np.isfinite(values).all()), "a non-finite figure"
    return "ran"
