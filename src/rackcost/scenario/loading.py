"""Scenario files in, validated :class:`~rackcost.scenario.schema.Scenario` out; every problem reported at once.

YAML is read with the safe loader only. A problem names the file, the YAML path, the line where the loader
knows it, and what was expected: ``fleet.yaml:41: systems[1].hardware.accelerator_idle_w: must be >= 0, got -5``.
"""

from __future__ import annotations

import os
import re
from importlib import resources
from pathlib import Path
from typing import Any, Literal, overload

import yaml
from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from rackcost import files
from rackcost.errors import Problem, ScenarioError, check_argument, plain_message
from rackcost.scenario.fields import DID_YOU_MEAN, fields_at, unknown_key
from rackcost.scenario.profile_blocks import csv_folder
from rackcost.scenario.schema import FIGURE_NOT_GIVEN, Scenario
from rackcost.scenario.yaml_paths import YamlPath, format_path, parse_path

__all__ = [
    "bundled_scenario_path",
    "bundled_scenarios",
    "DEFAULT_SCENARIO",
    "in_file_order",
    "is_models_document_refusal",
    "load_scenario",
    "problem_at",
    "read_text_file",
    "read_yaml_document",
    "scenario_from_dict",
    "scenario_from_yaml",
    "scenario_to_data",
    "scenario_to_yaml",
]

DEFAULT_SCENARIO = "deepseek-r1-jalapeno-vs-gb300.yaml"
# libyaml's safe loader when PyYAML was built with it (ten times faster), else the pure-Python one; both construct
# plain values only, never Python objects
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
SCENARIO_BLOCKS = frozenset(
    {name for name, f in Scenario.model_fields.items()} | {f.alias for f in Scenario.model_fields.values() if f.alias}
)
"""The top-level keys a scenario file may have."""
NOT_A_SCENARIO = (
    "not a rackcost scenario: none of its top-level keys is a scenario block (name, workload, slo, demand, "
    "facility, systems, ...); see `rackcost schema`"
)
"""The one problem of a file with none of the scenario's blocks (its own keys are not repeated)."""
A_MODELS_DOCUMENT = (
    "a models document (it lists `workloads:`, several models over shared systems), not a scenario; rackcost models "
    "and rackcost report read it, rackcost validate checks it (rackcost.evaluate_models and rackcost.models_report "
    "in Python)"
)
"""The one problem of a models document given where a scenario is expected (its keys are a scenario's in part, so
validating it as one listed every difference: `workloads` unknown, `placement` unknown, each system's missing
fields)."""


def is_models_document_refusal(exc: ScenarioError) -> bool:
    """Whether ``exc`` is the refusal of a models document given as a scenario (:data:`A_MODELS_DOCUMENT`): a face
    that reads both (``rackcost report``) then reads it as what it is."""
    return [p.message for p in exc.problems] == [A_MODELS_DOCUMENT]


MAX_SCENARIO_BYTES = 1_000_000
"""Largest scenario file or text read [bytes]; checked before reading (stat) and before parsing."""
MAX_EXPANDED_NODES = 200_000
"""Most YAML nodes a document may expand to through aliases [nodes]. The bundled scenarios have 400-1,500 and a
scenario with 1,000 demand points about 4,000; an anchor bomb of 9 levels expands to 9**9 (387 million)."""
_COUNT_CAP = 10**15  # counting stops here: the count stays a small integer, however deep the aliases nest
MAX_NUMBER_CHARS = 40
"""Longest integer literal read [characters]: no figure of a scenario needs more (the bounds are below 1e12)."""


def _expanded_nodes(root: yaml.Node) -> int:
    """Nodes the document has once every alias is expanded, counted without expanding any.

    Composition shares an aliased node, so a memoised walk of the node graph costs one visit per distinct node
    (an anchor bomb of 9 levels has about 100 nodes and expands to 9**9). A node that contains itself (``&a [*a]``)
    expands to infinitely many: reported as more than the limit.

    Parameters
    ----------
    root
        The composed document.

    Returns
    -------
    int
        Expanded node count [nodes], capped at ``_COUNT_CAP``; ``-1`` for a node that contains itself.
    """
    done: dict[int, int] = {}
    cap = _COUNT_CAP
    on_path: set[int] = set()
    # iterative post-order walk: a deep document must not hit Python's recursion limit
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        key = id(node)
        if children_done:
            on_path.discard(key)
            total = 1
            for child in _children(node):
                total = min(cap, total + done[id(child)])
            done[key] = total
            continue
        if key in done:
            continue
        if key in on_path:
            return -1  # a cycle: infinite expansion
        on_path.add(key)
        stack.append((node, True))
        for child in _children(node):
            if id(child) in on_path:
                return -1
            if id(child) not in done:
                stack.append((child, False))
    return done[id(root)]


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def _scan(root: yaml.Node, file: str) -> tuple[dict[YamlPath, int], list[Problem]]:
    """Lines of each YAML path, and the problems a parser lets through: duplicate keys, numbers of absurd length.

    Each distinct node is entered once: a path through an alias takes the line of the nearest path that leads to
    the node first (a scenario's aliases repeat whole blocks), and an anchor bomb cannot make this walk expand.

    Returns
    -------
    lines
        YAML path -> 1-based line where its value (or key) starts.
    problems
        Duplicate mapping keys (at the repeat, naming the first line) and integers too long to be a figure.
    """
    lines: dict[YamlPath, int] = {}
    problems: list[Problem] = []
    seen: set[int] = set()
    stack: list[tuple[yaml.Node, YamlPath]] = [(root, ())]
    while stack:
        node, path = stack.pop()
        lines.setdefault(path, node.start_mark.line + 1)
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            first: dict[str, int] = {}
            children: list[tuple[yaml.Node, YamlPath]] = []
            for key, value in node.value:
                name = str(key.value)
                child = (*path, name)
                line = key.start_mark.line + 1
                if key.tag == "tag:yaml.org,2002:merge":  # '<<: *base' merges a mapping's keys into this one
                    children.append((value, path))
                    continue
                if name in first:
                    message = f"duplicate key {name!r} (first at line {first[name]})"
                    problems.append(Problem(format_path(child), message, file, line))
                    continue
                first[name] = line
                lines[child] = line
                children.append((value, child))
            stack.extend(reversed(children))  # popped in file order: an anchor is entered where it is defined
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(reversed([(value, (*path, i)) for i, value in enumerate(node.value)]))
        elif path and node.tag == "tag:yaml.org,2002:int" and len(node.value) > MAX_NUMBER_CHARS:
            problems.append(
                Problem(
                    format_path(path),
                    f"must be a number of ordinary size, got an integer of {len(node.value):,} characters",
                    file,
                    node.start_mark.line + 1,
                )
            )
    return lines, problems


def _line_for(lines: dict[YamlPath, int], loc: YamlPath) -> int | None:
    """Line of the deepest ancestor of ``loc`` that the file has."""
    for end in range(len(loc), -1, -1):
        if loc[:end] in lines:
            return lines[loc[:end]]
    return None


def _describe(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"  # as the file spells it
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


_MISSING = "required field is missing"
_COMPARE = {"greater_than": ">", "greater_than_equal": ">=", "less_than": "<", "less_than_equal": "<="}


def _message(error: ErrorDetails, model_fields: list[str] | None) -> str:
    """Turn one pydantic error into 'what was expected, got what'."""
    kind = error["type"]
    ctx = error.get("ctx") or {}
    got = error.get("input")
    if kind in _COMPARE:
        bound = next(iter(ctx.values()))
        return f"must be {_COMPARE[kind]} {bound}, got {_describe(got)}"
    if kind == "missing":
        return _MISSING
    if kind == "extra_forbidden":
        return unknown_key(error["loc"][-1] if error["loc"] else "", model_fields)
    if kind == "too_short":
        least = ctx.get("min_length", 1)
        return f"must list at least {least} item{'s' if least != 1 else ''}, got {ctx.get('actual_length', 0)}"
    if kind == "string_too_long":
        return f"must be at most {ctx.get('max_length')} characters, got {len(str(got)):,}"
    if kind == "string_too_short":
        return f"must not be empty, got {_describe(got)}"
    if kind == "finite_number":
        return f"must be a finite number, got {_describe(got)}"
    if kind in {"float_parsing", "float_type", "int_parsing", "int_type", "int_from_float"}:
        expected = "an integer" if kind.startswith("int") else "a number"
        return f"must be {expected}, got {_describe(got)}"
    if kind in {"model_type", "dict_type", "model_attributes_type"}:
        return f"must be a mapping of fields (a YAML block), got {_describe(got)}"
    if kind == "list_type":
        return f"must be a list (YAML '- ' items), got {_describe(got)}"
    if kind == "value_error":
        return str(ctx.get("error", error["msg"]))
    msg = plain_message(error["msg"])
    if kind.endswith("_type") or kind in {"enum", "literal_error"}:
        return f"{msg[0].lower()}{msg[1:]}, got {_describe(got)}"
    return msg[0].lower() + msg[1:]


_REQUIRED_ITEM = {("systems",): "system", ("demand",): "demand point"}

_RELATIVE_PROBLEM = re.compile(r"^([A-Za-z_]\w*(?:\[\d+\])?(?:\.[A-Za-z_][\w.\[\]]*)?): (.*)$")


def problems_from_validation(
    exc: ValidationError, file: str, lines: dict[YamlPath, int] | None = None, model: type[BaseModel] = Scenario
) -> list[Problem]:
    """Translate a pydantic ValidationError of ``model`` (a scenario, or a sweep) into Problems with YAML paths and
    lines."""
    problems = []
    for error in exc.errors(include_url=False):
        loc = tuple(error["loc"])
        # pydantic appends the branch name ('function-after[...]', 'list[...]') inside unions: drop it
        loc = tuple(p for p in loc if not (isinstance(p, str) and ("[" in p or p.startswith("function-"))))
        if error["type"] == "value_error":
            # cross-field rules list one 'relative.path: message' per line (schema._raise)
            for line in str(error.get("ctx", {}).get("error", error["msg"])).splitlines():
                match = _RELATIVE_PROBLEM.match(line)
                sub, message = (loc + parse_path(match.group(1)), match.group(2)) if match else (loc, line)
                if match and match.group(1).startswith("figures."):  # a figures key is itself a path: keep it whole
                    sub = (*loc, "figures", match.group(1).removeprefix("figures."))
                problems.append(Problem(format_path(sub), message, file, _line_for(lines, sub) if lines else None))
            continue
        message = _message(error, fields_at(loc, model) if error["type"] == "extra_forbidden" else None)
        if error["type"] == "too_short" and loc in _REQUIRED_ITEM:
            message = f"at least one {_REQUIRED_ITEM[loc]} is required; {message}"
        problems.append(
            Problem(
                path=format_path(loc),
                message=message,
                file=file,
                line=_line_for(lines, loc) if lines else None,
            )
        )
    return _one_per_misspelling(problems)


_DID_YOU_MEAN = re.compile("^" + re.escape(DID_YOU_MEAN).replace(re.escape("{}"), "(.+)") + "$")


def _one_per_misspelling(problems: list[Problem]) -> list[Problem]:
    """The problems, less those a misspelt key causes besides its own "did you mean" (one mistake, one problem): the
    field it means reported missing, anything found in the value under the misspelt key (a distribution not allowed
    at its path) and a ``figures`` entry of the meant field that now names no value."""
    meant = {  # a misspelt key's path -> the path of the field it means (its sibling)
        p.path: f"{p.path[: len(p.path) - len(key)]}{found.group(1)}"
        for p in problems
        if (found := _DID_YOU_MEAN.match(p.message)) and (key := re.split(r"[.\]]", p.path)[-1])
    }
    if not meant:
        return problems

    def under(path: str, top: str) -> bool:
        return path == top or path.startswith((f"{top}.", f"{top}["))

    def caused(p: Problem) -> bool:
        return any(
            (p.path == field and p.message == _MISSING)
            or (under(p.path, key) and not _DID_YOU_MEAN.match(p.message))
            or (p.path == f"figures.{field}" and p.message == FIGURE_NOT_GIVEN)
            for key, field in meant.items()
        )

    return [p for p in problems if not caused(p)]


def scenario_from_dict(data: Any, file: str = "<scenario>", lines: dict[YamlPath, int] | None = None) -> Scenario:
    """Validate a plain mapping as a scenario.

    Raises
    ------
    ScenarioError
        Listing every problem, with YAML paths (and lines when ``lines`` is given).
    """
    if not isinstance(data, dict):
        raise ScenarioError([Problem("", f"expected a mapping of scenario blocks, got {type(data).__name__}", file)])
    if data and not any(isinstance(key, str) and key in SCENARIO_BLOCKS for key in data):
        # not a scenario at all (another YAML file, or a text file YAML reads as a mapping): say so once, and never
        # echo its keys, which are its content (a password file reads as one key per line)
        raise ScenarioError([Problem("", NOT_A_SCENARIO, file)])
    if "workloads" in data and "workload" not in data:
        raise ScenarioError([Problem("", A_MODELS_DOCUMENT, file)])
    try:
        scenario = Scenario.model_validate(data)
    except ValidationError as exc:
        raise ScenarioError(in_file_order(problems_from_validation(exc, file, lines))) from None
    from rackcost.scenario.feasibility import feasibility_problems  # imports numpy and scipy: only once the fields pass

    problems = [
        Problem(path, message, file, _line_for(lines, loc) if lines else None)
        for loc, path, message in feasibility_problems(scenario)
    ]
    if problems:
        raise ScenarioError(problems)
    scenario.remember_origin(file, lines or {})
    return scenario


def problem_at(scenario: Scenario, loc: YamlPath, path: str, message: str) -> Problem:
    """A problem the model finds in a loaded scenario, at the file and line it was loaded from (when known)."""
    lines = scenario.origin_lines
    return Problem(path, message, scenario.origin_file, _line_for(lines, loc) if lines else None)


def scenario_to_yaml(scenario: Scenario) -> str:
    """YAML text of a scenario that loads back to the same scenario (only the values it sets, aliases used).

    Comments of the original file are not kept; every figure's source stays in ``figures:``.
    """
    return yaml.safe_dump(scenario_to_data(scenario), sort_keys=False, allow_unicode=True, width=120)


def scenario_to_data(scenario: Scenario) -> dict[str, Any]:
    """Plain data of a scenario, as a file would give it: the values it sets, each distribution in place."""
    data = scenario.model_dump(mode="json", by_alias=True, exclude_none=True, exclude_unset=True)
    for path, dist in scenario.distributions.items():  # put each distribution back where its central value is
        _assign(data, parse_path(path), dist.model_dump(mode="json", exclude_none=True))
    return data


def _assign(data: Any, loc: YamlPath, value: Any) -> None:
    for part in loc[:-1]:
        data = data[part]
    data[loc[-1]] = value


def read_yaml_document(text: str, file: str, what: str = "scenario") -> tuple[Any, dict[YamlPath, int], list[Problem]]:
    """Parse YAML text safely: the plain data, the line of each YAML path, and the problems the scan found.

    The text is refused before parsing when over ``MAX_SCENARIO_BYTES``; the document is composed (aliases share
    their node), refused when it expands to more than ``MAX_EXPANDED_NODES`` nodes, scanned for duplicate keys and
    absurd integers, and only then constructed. Scenario and sweep files are read by it.

    Parameters
    ----------
    text, file
        The YAML text and the file it came from (for messages).
    what
        What the file should hold, for messages (``"scenario"``, ``"sweep"``).

    Returns
    -------
    data, lines, problems
        The document as plain data, YAML path -> line, and the scan's problems (the caller adds its own to them).

    Raises
    ------
    ScenarioError
        When the text cannot be read as YAML at all (too big, empty, an alias bomb, a tag, a syntax error).
    """
    size = len(text.encode("utf-8", errors="replace"))
    if size > MAX_SCENARIO_BYTES:
        raise ScenarioError([_too_big(size, file, what)])
    loader = SAFE_LOADER(text)
    try:
        root = loader.get_single_node()
        if root is None:
            raise ScenarioError([Problem("", f"the file is empty; expected a {what} mapping", file)])
        expanded = _expanded_nodes(root)
        if expanded < 0 or expanded > MAX_EXPANDED_NODES:
            how_far = (
                "without end (an anchor that contains its own alias)"
                if expanded < 0
                else f"to more than {_COUNT_CAP:,} nodes"
                if expanded >= _COUNT_CAP
                else f"to {expanded:,} nodes"
            )
            message = (
                f"expands {how_far} through YAML aliases (&anchor / *alias); the limit is {MAX_EXPANDED_NODES:,} "
                f"(a {what} has a few thousand)"
            )
            raise ScenarioError([Problem("", message, file)])
        lines, problems = _scan(root, file)
        try:
            data = loader.construct_document(root)
        except (ValueError, OverflowError):  # e.g. Python's limit on digits in an int, found by the scan already
            if problems:
                raise ScenarioError(problems) from None
            raise
    except ScenarioError:
        raise
    except yaml.constructor.ConstructorError as exc:
        line = exc.problem_mark.line + 1 if exc.problem_mark else None
        tag = f" ({exc.problem})" if exc.problem else ""
        raise ScenarioError(
            [
                Problem(
                    "",
                    f"YAML tag not allowed: only plain YAML values are read (safe loader){tag}",
                    file,
                    line,
                )
            ]
        ) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        what_went_wrong = getattr(exc, "problem", None) or str(exc)
        raise ScenarioError([Problem("", f"not valid YAML: {what_went_wrong}", file, line)]) from None
    except (ValueError, OverflowError, RecursionError) as exc:  # e.g. Python's limit on digits in an int
        raise ScenarioError([Problem("", f"a value cannot be read: {exc}", file)]) from None
    finally:
        loader.dispose()
    return data, lines, problems


def scenario_from_yaml(text: str, file: str = "<scenario>") -> Scenario:
    """Parse YAML text (safe loader only, :func:`read_yaml_document`) and validate it as a scenario.

    Every problem found is reported at once, in file order.

    Raises
    ------
    ScenarioError
        Listing every problem, each with the file, YAML path and line.
    """
    check_argument("rackcost.scenario_from_yaml", "text", text, str, "the YAML text of a scenario")
    data, lines, problems = read_yaml_document(text, file)
    if isinstance(data, dict) and data and not any(isinstance(key, str) and key in SCENARIO_BLOCKS for key in data):
        raise ScenarioError([Problem("", NOT_A_SCENARIO, file)])  # nothing of the scan either: it names keys
    if problems:
        try:
            scenario_from_dict(data, file, lines)
        except ScenarioError as exc:
            said = {p.path for p in problems}  # the scan's problem is the root cause of one at the same path
            problems += [p for p in exc.problems if p.path not in said]
        raise ScenarioError(in_file_order(problems))
    return scenario_from_dict(data, file, lines)


def _too_big(size: int, file: str, what: str = "scenario") -> Problem:
    return Problem("", f"file is {size:,} bytes; {what}s are limited to {MAX_SCENARIO_BYTES / 1e6:g} MB", file)


def in_file_order(problems: list[Problem]) -> list[Problem]:
    """Problems sorted by line (whole-file problems first); equal lines keep their order (root cause first)."""
    return sorted(problems, key=lambda p: 0 if p.line is None else p.line)


def load_scenario(path: str | os.PathLike[str]) -> Scenario:
    """Load and validate a scenario file.

    Parameters
    ----------
    path
        A YAML file, or the name of a bundled scenario (see :func:`bundled_scenarios`).

    Returns
    -------
    Scenario
        The validated scenario.

    Raises
    ------
    ScenarioError
        One problem per line, each naming the file, YAML path and line, and what was expected.
    """
    check_argument("rackcost.load_scenario", "path", path, (str, os.PathLike), "a file path or a bundled name")
    name, text = read_text_file(path, bundled_scenario_path)
    found = Path(path) if Path(path).is_file() else bundled_scenario_path(name, missing_ok=True)
    with csv_folder(found.resolve().parent if found is not None else None):  # a profile's CSV is beside the file
        return scenario_from_yaml(text, name)


def read_text_file(path: str | os.PathLike[str], bundled: Any = None, what: str = "scenario") -> tuple[str, str]:
    """The name to report and the UTF-8 text of a scenario or sweep file, refused early when unreadable.

    Parameters
    ----------
    path
        A file, or (when ``bundled`` is given) the name of a bundled file.
    bundled
        ``bundled(name, missing_ok=True) -> Path | None``: where a bundled file of that name is.
    what
        What the file should hold, for messages.

    Raises
    ------
    ScenarioError
        When the file is missing, a folder, too big (checked before reading), not UTF-8 or not readable.
    """
    file = Path(path)
    name = os.fspath(path)  # the path as given (str() of a Path)
    if bundled is not None and not file.exists() and file.name == name:
        found = bundled(name, missing_ok=True)
        if found is not None:
            file = found
    try:
        # a regular file only (a FIFO would block, /dev/zero never end), its size checked before the bounded read
        raw = files.read_regular_file(file, MAX_SCENARIO_BYTES, f"{what} YAML file")
    except files.InputFileError as exc:
        if exc.too_big_bytes is not None:
            raise ScenarioError([_too_big(exc.too_big_bytes, name, what)]) from None
        said = str(exc).removeprefix(f"{os.fspath(file)}: ")
        if bundled is not None and file.name == name and not file.exists():  # a bare name: perhaps a bundled one
            said += _bundled_hint(f"{what}s", name)
        raise ScenarioError([Problem("", said, name)]) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ScenarioError([Problem("", "not a UTF-8 text file", name)]) from None
    return name, text


def _bundled_hint(kind: str, name: str, most: int = 3) -> str:
    """What to add to "no such file" for a bare ``name`` that is no bundled file either: the bundled files of a kind
    (``scenarios``, ``sweeps``) it most likely means (those whose name starts with it, else difflib's closest names)
    and the command that lists them. It stays an error: a prefix that fits one file today may fit two tomorrow."""
    import difflib

    names = [path.name for path in bundled_files(kind)]
    stem = name.removesuffix(".yaml").removesuffix(".yml")
    meant = [n for n in names if n.startswith(stem)] or difflib.get_close_matches(f"{stem}.yaml", names, n=most)
    listed = ", ".join(f"`{n}`" for n in meant[:most]) + (
        f" (and {len(meant) - most} more)" if len(meant) > most else ""
    )
    if not meant:
        return f" (`rackcost scenarios` lists the bundled {kind})"
    one_of = "one of " if len(meant) > 1 else ""
    return f"; did you mean {one_of}{listed}? (`rackcost scenarios` lists the bundled {kind})"


def bundled_folder(kind: str) -> Path:
    """Folder of bundled files of a kind (``scenarios``, ``sweeps``): inside the installed package, or the
    repository's folder of that name."""
    packaged = resources.files("rackcost") / kind
    if packaged.is_dir():
        return Path(str(packaged))
    return Path(__file__).resolve().parents[3] / kind


def bundled_files(kind: str) -> list[Path]:
    """Bundled YAML files of a kind (``scenarios``, ``sweeps``), sorted by name."""
    folder = bundled_folder(kind)
    return sorted(folder.glob("*.yaml")) if folder.is_dir() else []


@overload
def bundled_file(kind: str, name: str, missing_ok: Literal[False] = False) -> Path: ...


@overload
def bundled_file(kind: str, name: str, missing_ok: bool) -> Path | None: ...


def bundled_file(kind: str, name: str, missing_ok: bool = False) -> Path | None:
    """Path of a bundled file of a kind by file name (``.yaml`` may be omitted)."""
    for path in bundled_files(kind):
        if name in (path.name, path.stem):
            return path
    if missing_ok:
        return None
    raise ScenarioError([Problem("", f"no bundled {kind.removesuffix('s')} of that name", name)])


def bundled_scenarios() -> list[Path]:
    """Bundled scenario files, sorted by name."""
    return bundled_files("scenarios")


@overload
def bundled_scenario_path(name: str = DEFAULT_SCENARIO, missing_ok: Literal[False] = False) -> Path: ...


@overload
def bundled_scenario_path(name: str, missing_ok: bool) -> Path | None: ...


def bundled_scenario_path(name: str = DEFAULT_SCENARIO, missing_ok: bool = False) -> Path | None:
    """Path of a bundled scenario by file name (``.yaml`` may be omitted)."""
    return bundled_file("scenarios", name, missing_ok)
