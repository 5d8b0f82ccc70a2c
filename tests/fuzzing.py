"""The scenario "fuzzer": hypothesis strategies that mutate the bundled scenarios, and the contract every outcome keeps.

Used by ``tests/test_hostile_input.py`` (a bounded number of examples in CI) and ``benchmarks/fuzz_scenarios.py``
(many more, with counts). A mutated scenario is the plain data of a bundled scenario with one to three changes
(a key deleted; a value replaced by a wrong type, a huge, tiny, negative or non-finite number, a boolean, a long
string or control characters, or scaled by a large factor; a block shared with another place, so the YAML has anchors
and aliases; an anchor bomb), rendered to YAML text, sometimes with a key line repeated (a duplicate key).

The contract (:func:`check_outcome`): :func:`rackcost.scenario_from_yaml` then :func:`rackcost.evaluate` either give a
Result whose records are finite and whose accepted rate never exceeds the offered one, or raise a ScenarioError
whose every problem names the file and a YAML path (or is about the whole file); never another exception.
"""

from __future__ import annotations

import copy
import functools
import json
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import yaml
from hypothesis import strategies as st
from pydantic import TypeAdapter

import rackcost
from rackcost import ScenarioError
from rackcost.scenario.schema import annotation_at
from rackcost.scenario.yaml_paths import format_path
from reference import find_non_finite

SCENARIOS: dict[str, Any] = {
    path.name: yaml.safe_load(path.read_text(encoding="utf-8")) for path in rackcost.bundled_scenarios()
}
"""Plain data of each bundled scenario, by file name."""
_ANY = rackcost.load_scenario(rackcost.bundled_scenario_path())  # annotation_at reads only its type


@functools.cache
def field_range(path: str) -> tuple[float, float] | None:
    """The lowest and highest value the schema allows at a YAML path (open ends stepped inside), or None."""
    annotation = annotation_at(_ANY, path)
    if annotation is None:
        return None
    schema = TypeAdapter(annotation).json_schema()
    for option in schema.get("anyOf", [schema]):
        if option.get("type") in ("number", "integer"):
            low = option.get("minimum", option.get("exclusiveMinimum"))
            high = option.get("maximum", option.get("exclusiveMaximum"))
            if low is None or high is None:
                return None
            if "exclusiveMinimum" in option:
                low = math.nextafter(low, math.inf)
            if "exclusiveMaximum" in option:
                high = math.nextafter(high, -math.inf)
            return float(low), float(high)
    return None


ODD_VALUES: list[Any] = [
    "abc",
    "",
    " ",
    "\t",
    "a\x00b",
    "x" * 5000,
    "1e3",
    [],
    {},
    None,
    True,
    False,
    0,
    0.0,
    -1,
    -1e9,
    1e-308,
    5e-324,
    -5e-324,
    1e308,
    -1e308,
    10**30,
    10**400,
    float("nan"),
    float("inf"),
    float("-inf"),
    {"dist": "uniform", "low": 1, "high": 2},
    {"dist": "normal", "mean": 1e300, "sd": 1e300},
    {"dist": "triangular", "low": 3, "mode": 2, "high": 1},
]
"""Replacement values: wrong types, extremes, non-finite numbers, booleans, odd strings, distributions."""

SCALES = [-1.0, 1e-300, 1e-12, 1e-6, 1e-3, 1e3, 1e6, 1e12, 1e300]
"""Factors a number is multiplied by (extremes within and beyond the schema's ranges)."""

WHOLE_FILE = (
    "not valid YAML",
    "YAML tag not allowed",
    "the file is empty",
    "expected a mapping",
    "expands ",
    "file is",
    "a value cannot be read",
    "not a rackcost scenario",  # a mapping with none of the scenario's blocks (issue 19: its keys are not echoed)
)
"""How a problem about the whole file (with no YAML path) begins."""

_KEY_LINE = re.compile(r"^(\s*)([A-Za-z_]\w*): (\S.*)$")


def _locations(data: Any, loc: tuple[Any, ...] = (), seen: set[int] | None = None) -> list[tuple[Any, ...]]:
    """Every location in plain data, the root included, outermost first; a shared block is entered once."""
    seen = set() if seen is None else seen
    out = [loc]
    if isinstance(data, dict | list):
        if id(data) in seen:
            return out
        seen.add(id(data))
        items = data.items() if isinstance(data, dict) else enumerate(data)
        for key, value in items:
            out += _locations(value, (*loc, key), seen)
    return out


def _reaches(data: Any, target: Any, seen: set[int] | None = None) -> bool:
    """Whether ``target`` (by identity) is ``data`` or inside it."""
    seen = set() if seen is None else seen
    if data is target:
        return True
    if not isinstance(data, dict | list) or id(data) in seen:
        return False
    seen.add(id(data))
    values = data.values() if isinstance(data, dict) else data
    return any(_reaches(v, target, seen) for v in values)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _get(data: Any, loc: tuple[Any, ...]) -> Any:
    for part in loc:
        data = data[part]
    return data


def _anchor_bomb(levels: int) -> list[Any]:
    """Nested lists, each repeating one shared list 9 times: YAML dumps it with anchors and aliases."""
    node: list[Any] = ["lol"] * 9
    for _ in range(levels):
        node = [node] * 9
    return node


@dataclass(frozen=True)
class Case:
    """A mutated scenario: the bundled file it came from, the mutations in words, and the YAML text."""

    name: str
    mutations: tuple[str, ...]
    text: str = field(repr=False)  # tens of kB: hypothesis prints the mutations, not the text

    def __iter__(self) -> Iterator[str]:
        """Unpack as (name, text)."""
        return iter((self.name, self.text))

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        """How hypothesis prints a failing case: its file and mutations, not the YAML text (its printer shows every
        field of a dataclass, ``repr=False`` or not; a 37 kB repr raised a HypothesisWarning, an error under pytest,
        in place of the failure it was reporting)."""
        printer.text(f"Case(name={self.name!r}, mutations={self.mutations!r})")


@st.composite
def mutated_scenarios(draw: st.DrawFn, documents: dict[str, Any] | None = None) -> Case:
    """A bundled scenario (or one of ``documents``, plain data by name) with one to three mutations."""
    documents = SCENARIOS if documents is None else documents
    name = draw(st.sampled_from(sorted(documents)))
    data: Any = {"root": copy.deepcopy(documents[name])}  # a holder, so the root itself can be replaced
    done: list[str] = []
    for _ in range(draw(st.sampled_from([1, 1, 1, 2, 3]))):
        locs = _locations(data["root"], ("root",))
        numbers = [loc for loc in locs if _is_number(_get(data, loc))]
        op = draw(st.sampled_from(["number"] * 6 + ["delete", "replace", "replace", "alias", "bomb"]))
        loc = draw(st.sampled_from(numbers if op == "number" and numbers else locs))
        parent, key = _get(data, loc[:-1]), loc[-1]
        value = parent[key]
        where = format_path(loc[1:]) or "<whole file>"
        if op == "number" and _is_number(value):
            # most mutations change one figure: scaled, or an extreme; these are the ones that reach the model
            edges = field_range(format_path(loc[1:]))
            parent[key] = draw(
                st.one_of(
                    # the ends of the field's own range: accepted, so the model must give finite numbers there
                    st.sampled_from(edges if edges else [value]),
                    st.sampled_from(SCALES).map(lambda f, v=value: v * f),
                    st.sampled_from([0, 0.0, -1, 1e-308, 5e-324, 1e308, float("nan"), float("inf"), True, 10**30]),
                    st.floats(min_value=-1e12, max_value=1e12),
                )
            )
            done.append(f"{where} = {_short(parent[key])}")
        elif op == "delete" and loc != ("root",):
            del parent[key]
            done.append(f"{where} deleted")
        elif op == "alias":
            # share another block here: the YAML gets an anchor there and an alias here; never a block that holds
            # this place (directly or through an earlier alias): no cycles
            sources = [
                s for s in locs if isinstance(_get(data, s), dict | list) and not _reaches(_get(data, s), parent)
            ]
            if sources:
                source = draw(st.sampled_from(sources))
                parent[key] = _get(data, source)
                done.append(f"{where} = *alias of {format_path(source[1:]) or '<whole file>'}")
        elif op == "bomb":
            levels = draw(st.integers(2, 8))
            parent[key] = _anchor_bomb(levels)
            done.append(f"{where} = anchor bomb of {levels + 1} levels")
        else:
            parent[key] = draw(
                st.one_of(
                    st.sampled_from(ODD_VALUES),
                    st.floats(allow_nan=True, allow_infinity=True),
                    st.integers(-(10**20), 10**20),
                    st.text(max_size=30),
                )
            )
            done.append(f"{where} = {_short(parent[key])}")
    text = yaml.safe_dump(data["root"], sort_keys=False, allow_unicode=True, width=120)
    if draw(st.integers(0, 4)) == 0:
        lines = text.splitlines()
        keyed = [i for i, line in enumerate(lines) if _KEY_LINE.match(line)]
        if keyed:
            i = draw(st.sampled_from(keyed))
            indent, key, _ = _KEY_LINE.match(lines[i]).groups()
            lines.insert(i + 1, f"{indent}{key}: {draw(st.sampled_from(['1', '-5', 'true', 'x', '1e-308']))}")
            text = "\n".join(lines) + "\n"
            done.append(f"line {i + 2}: duplicate key {key!r}")
    return Case(name, tuple(done), text)


@st.composite
def nudged_scenarios(draw: st.DrawFn) -> Case:
    """A bundled scenario with one to three of its numbers moved within reason: scaled by 0.1 to 10, or set to an
    end of the field's own range. Most of them load and evaluate, so the analyses beyond ``evaluate`` (the faces'
    fuzzer, ``tests/fuzzing_faces.py``) see valid scenarios at the edges, where :func:`mutated_scenarios` mostly
    gives refusals."""
    name = draw(st.sampled_from(sorted(SCENARIOS)))
    data: Any = copy.deepcopy(SCENARIOS[name])
    numbers = [loc for loc in _locations(data) if loc and _is_number(_get(data, loc))]
    done: list[str] = []
    for _ in range(draw(st.integers(1, 3))):
        loc = draw(st.sampled_from(numbers))
        parent, key = _get(data, loc[:-1]), loc[-1]
        value, where = parent[key], format_path(loc)
        edges = field_range(where)
        moved = draw(
            st.one_of(
                st.sampled_from([0.1, 0.5, 2.0, 10.0]).map(lambda f, v=value: v * f),
                st.sampled_from(edges if edges else [value]),
            )
        )
        parent[key] = int(moved) if isinstance(value, int) and float(moved).is_integer() else moved
        done.append(f"{where} = {_short(parent[key])}")
    return Case(name, tuple(done), yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=120))


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def check_outcome(text: str, file: str = "fuzz.yaml") -> str:
    """Load and evaluate YAML text and assert the contract; return 'ok' or 'refused' (see :func:`checked_result`)."""
    return "refused" if checked_result(text, file) is None else "ok"


def checked_result(text: str, file: str = "fuzz.yaml") -> rackcost.Result | None:
    """Load and evaluate YAML text and assert the contract; return the result, or None where it is refused.

    Raises
    ------
    AssertionError
        When a result has a non-finite number or accepts more than is offered, or a problem does not name the file
        and a path. Any exception other than ScenarioError propagates: that is a failure too.
    """
    try:
        result = rackcost.evaluate(rackcost.scenario_from_yaml(text, file))
    except ScenarioError as exc:
        check_problems(exc, file)
        return None
    data = result.to_dict()
    assert find_non_finite(data) == [], find_non_finite(data)
    json.dumps(data, allow_nan=False)
    for row in result.records["points"]:
        assert 0.0 <= row["accepted_rps"] <= row["offered_rps"] * (1 + 1e-12), row
    return result


def check_problems(exc: ScenarioError, file: str) -> None:
    """Every problem of a refusal names the file and a YAML path (or is about the whole file), and none is a bug."""
    assert exc.problems, "a ScenarioError with no problem"
    for problem in exc.problems:
        assert problem.file == file, problem
        assert problem.path or problem.message.startswith(WHOLE_FILE), problem
        assert "bug in rackcost" not in problem.message, problem
