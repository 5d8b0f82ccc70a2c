"""The shape of the package (docs/architecture.md): one subpackage per layer, each importing only the layers
below it, no cycles, a numeric core that never sees pydantic, PyYAML or pandas, and no private names shared between
modules. Read from the source with ``ast``, so nothing here imports the code."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "rackcost"

# Each layer and the layers it may import (its own included). The rule is by package, not by a list of modules:
# a new module is checked by the package it is put in. The leaf modules import nothing of rackcost.
LAYERS: dict[str, set[str]] = {
    "leaves": {"leaves"},
    "model": {"leaves", "model"},
    "scenario": {"leaves", "model", "scenario"},
    "evaluation": {"leaves", "model", "scenario", "evaluation"},
    "importers": {"leaves", "model", "scenario", "importers"},
    "analysis": {"leaves", "model", "scenario", "evaluation", "analysis"},
    "reporting": {"leaves", "model", "scenario", "evaluation", "analysis", "reporting"},
    "cli": {"leaves", "model", "scenario", "evaluation", "importers", "analysis", "reporting", "cli"},
}
LEAVES = {"rackcost.units", "rackcost.errors", "rackcost.display", "rackcost.files", "rackcost.limits"}


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def layer_of(module: str) -> str | None:
    """The layer of a module of the package; None for the package itself (its face loads every layer lazily)."""
    if module == "rackcost":
        return None
    if module in LEAVES:
        return "leaves"
    top = module.split(".")[1]
    if top not in LAYERS:
        raise AssertionError(f"{module} is in no layer: put it in a layer's package, or name it a leaf here")
    return top


def _imports(path: Path) -> list[tuple[str, list[str]]]:
    """Every import in a file, wherever it stands (top level, TYPE_CHECKING block or function): (module, names)."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.append((node.module, [a.name for a in node.names]))
        elif isinstance(node, ast.Import):
            out.extend((a.name, []) for a in node.names)
    return out


def _graph(modules: dict[str, Path] = MODULES) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        deps = set()
        for module, names in _imports(path):
            for imported in names or [""]:
                full = f"{module}.{imported}" if imported else module
                target = full if full in modules else module
                if target in modules and target not in {name, "rackcost"}:
                    deps.add(target)
        graph[name] = deps
    return graph


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    """Every import of a module from a layer its own layer may not import."""
    bad = []
    for module, deps in sorted(graph.items()):
        layer = layer_of(module)
        if layer is None:
            continue
        for dep in sorted(deps):
            target = layer_of(dep)
            if target is not None and target not in LAYERS[layer]:
                bad.append(f"{module} ({layer}) imports {dep} ({target})")
    return bad


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_the_layer_rule_finds_an_upward_import() -> None:
    """The rule itself: a model module importing the scenario layer, or a leaf importing anything, is caught."""
    graph = {
        "rackcost.model.queues.queueing": {"rackcost.scenario.schema", "rackcost.units"},
        "rackcost.units": {"rackcost.display"},
        "rackcost.display": set(),
        "rackcost.scenario.schema": {"rackcost.model.queues.queueing"},
        "rackcost.cli.entry": {"rackcost.reporting.write"},
        "rackcost.reporting.write": set(),
    }
    assert upward_imports(graph) == [
        "rackcost.model.queues.queueing (model) imports rackcost.scenario.schema (scenario)",
    ]
    assert upward_imports({**graph, "rackcost.display": {"rackcost.model.queues.queueing"}})[0].startswith(
        "rackcost.display (leaves) imports rackcost.model.queues.queueing (model)"
    )
    with pytest.raises(AssertionError, match="is in no layer"):
        upward_imports({"rackcost.newthing.x": set()})


def test_every_module_is_in_a_layer_and_imports_only_the_layers_below() -> None:
    assert upward_imports(_graph()) == []


def test_ls_src_rackcost_shows_the_layers() -> None:
    """The package holds the layers' packages, the leaves and nothing else (besides the package data)."""
    entries = {p.name for p in PACKAGE.iterdir() if p.name != "__pycache__"}
    packages = {name for name in LAYERS if name != "leaves"}
    leaves = {m.rsplit(".", 1)[1] + ".py" for m in LEAVES}
    assert entries == packages | leaves | {"__init__.py", "data"}


def test_no_module_is_longer_than_700_lines() -> None:
    long = {name: n for name, path in MODULES.items() if (n := len(path.read_text().splitlines())) > 700}
    assert long == {}


MODEL_SUBPACKAGES = sorted(p.parent for p in (PACKAGE / "model").glob("*/__init__.py"))


def test_the_numeric_core_is_split_into_subpackages_by_concern() -> None:
    # model/ keeps only the containers and the strategies' enums at its top; every step lives in a subpackage
    top = sorted(p.name for p in (PACKAGE / "model").glob("*.py"))
    assert top == ["__init__.py", "inputs.py", "outcomes.py", "strategies.py"]
    assert len(MODEL_SUBPACKAGES) >= 5


@pytest.mark.parametrize("package", MODEL_SUBPACKAGES, ids=lambda p: p.name)
def test_each_model_subpackage_maps_its_modules_in_its_docstring(package: Path) -> None:
    doc = ast.get_docstring(ast.parse((package / "__init__.py").read_text(encoding="utf-8"))) or ""
    modules = sorted(p.stem for p in package.glob("*.py") if p.stem != "__init__")
    assert [m for m in modules if f"``{m}``" not in doc] == [], f"model/{package.name}/__init__.py names them"
    top = (PACKAGE / "model" / "__init__.py").read_text(encoding="utf-8")
    assert f"``{package.name}``" in top, "model/__init__.py names each subpackage"


def test_no_import_cycles_type_only_ones_included() -> None:
    assert _cycles(_graph()) == []


@pytest.mark.parametrize("module", sorted(m for m in MODULES if layer_of(m) in ("model", "leaves")))
def test_the_numeric_core_never_sees_pydantic_yaml_or_pandas(module: str) -> None:
    assert not any(m.split(".")[0] in {"pydantic", "yaml", "pandas"} for m, _ in _imports(MODULES[module])), module


def test_no_private_name_is_imported_from_another_module() -> None:
    files = [*PACKAGE.rglob("*.py"), *(ROOT / "app").rglob("*.py"), *(ROOT / "benchmarks").glob("*.py")]
    shared = [
        f"{path.relative_to(ROOT)}: {module}.{name}"
        for path in files
        for module, names in _imports(path)
        if module.split(".")[0] in {"rackcost", "rackcost_app"}
        for name in names
        if name.startswith("_") and not name.startswith("__")
    ]
    assert shared == []


def _top_level_names(path: Path) -> tuple[list[str], list[str]]:
    """Classes and module-level UPPER_CASE constants assigned in a file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    classes = [n.name for n in tree.body if isinstance(n, ast.ClassDef)]
    constants = [
        t.id
        for n in tree.body
        if isinstance(n, ast.Assign | ast.AnnAssign)
        for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
        if isinstance(t, ast.Name) and t.id.isupper()
    ]
    return classes, constants


def test_no_two_classes_share_a_name() -> None:
    seen: dict[str, list[str]] = {}
    for name, path in MODULES.items():
        for cls in _top_level_names(path)[0]:
            seen.setdefault(cls, []).append(name)
    assert {cls: where for cls, where in seen.items() if len(where) > 1} == {}


@pytest.mark.parametrize(
    "constant",
    [
        "SECONDS_PER_HOUR",
        "HOURS_PER_DAY",
        "HOURS_PER_YEAR",
        "DAYS_PER_YEAR",
        "MONTHS_PER_YEAR",
        "MS_PER_S",
        "W_PER_KW",
        "TOKENS_PER_MILLION",
        "BLENDED",
        "PER_MILLION",
        "POINT_NAMES",
    ],
)
def test_shared_constants_are_defined_once(constant: str) -> None:
    where = [name for name, path in MODULES.items() if constant in _top_level_names(path)[1]]
    assert len(where) <= 1, where
    if constant in ("SECONDS_PER_HOUR", "HOURS_PER_YEAR", "MS_PER_S", "W_PER_KW", "TOKENS_PER_MILLION"):
        assert where == ["rackcost.units"]
    if constant == "BLENDED":
        assert where == ["rackcost.evaluation.columns"]


CHAIN_STEPS = frozenset(
    {"servable", "served_for", "evaluate_systems", "evaluate_apis", "mark_unserved", "result_tables"}
)
"""The steps :func:`rackcost.evaluation.chain.evaluation` composes: a face that composes them itself drifts from it
(the dashboard once lost a demand profile's ``years`` and ``horizon`` tables that way)."""
FACES = (ROOT / "app", PACKAGE / "reporting", PACKAGE / "analysis")
STILL_COMPOSING = {
    # Modules outside evaluation/ that still call a step of the chain themselves, and the steps: the list may only
    # shrink (a test fails where a module no longer does, so that it is taken off). The referee serves each fleet
    # again at arrival SCVs and rate swings of its own (evaluate_systems' served_at_scvs and served_at_swings).
    "src/rackcost/analysis/referee.py": {"served_for", "evaluate_systems"},
}


def chain_steps_used(source: str) -> list[str]:
    """Every name of :data:`CHAIN_STEPS` a source imports, calls or reads (``from m import x``, ``x(...)``,
    ``m.x``), wherever it stands."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.Attribute):
            names = [node.attr]
        elif isinstance(node, ast.Name):
            names = [node.id]
        else:
            continue
        found += [f"line {node.lineno}: {n}" for n in names if n in CHAIN_STEPS]
    return found


def test_the_step_finder_finds_an_import_a_call_and_an_attribute() -> None:
    source = "from rackcost.evaluation.chain import evaluate_systems\nx = m.result_tables\nmark_unserved(r, ())\n"
    assert chain_steps_used(source) == ["line 1: evaluate_systems", "line 2: result_tables", "line 3: mark_unserved"]
    assert chain_steps_used("from rackcost.evaluation.chain import evaluation\nevaluation(s).result\n") == []


def test_no_face_composes_the_chain() -> None:
    """The dashboard, the report and the analyses read the one evaluation
    (:func:`rackcost.evaluation.chain.evaluation`, or ``evaluation_for`` for an analysis), as
    :func:`rackcost.evaluate` does: none of them calls the chain's steps, but for :data:`STILL_COMPOSING`."""
    found: dict[str, set[str]] = {}
    bad = []
    for face in FACES:
        for path in sorted(face.rglob("*.py")):
            uses = chain_steps_used(path.read_text(encoding="utf-8"))
            where = str(path.relative_to(ROOT))
            if uses:
                found[where] = {use.split(": ")[1] for use in uses}
            bad += [f"{where} {use}" for use in uses if use.split(": ")[1] not in STILL_COMPOSING.get(where, set())]
    assert bad == [], "compose the chain in rackcost.evaluation.chain.evaluation only:\n" + "\n".join(bad)
    assert found == STILL_COMPOSING, "a module left STILL_COMPOSING's steps: take it off the list"


# --------------------------------------------------------------------------- functions of a size to read

MAX_PARAMETERS = 12
"""Most parameters of a function (``self`` and ``cls`` not counted) before its docstring must say why."""
MAX_BODY_LINES = 80
"""Most lines of a function's body (its docstring not counted) before its docstring must say why."""
REASON = "Why this long:"
"""The words a docstring gives its reason after, for a function over either limit."""
# Functions over a limit, to be split by concern into steps that compose; the list may only shrink (a test fails
# where one is within the limits, so that it is taken off). Module path and function name. Empty: every function is
# within the limits or gives its reason.
TO_SPLIT: set[tuple[str, str]] = set()


def function_sizes() -> list[tuple[str, str, int, int, str]]:
    """Every function of the package: (module path under src/rackcost, name, parameters, body lines, docstring)."""
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            a = node.args
            count = len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs) + (a.vararg is not None)
            count += (a.kwarg is not None) - (bool(a.args) and a.args[0].arg in ("self", "cls"))
            doc = ast.get_docstring(node) or ""
            body = node.body[1:] if doc and len(node.body) > 1 else node.body
            lines = (node.end_lineno or body[-1].lineno) - body[0].lineno + 1
            out.append((path.relative_to(PACKAGE).as_posix(), node.name, count, lines, doc))
    return out


def over_the_limits(sizes: list[tuple[str, str, int, int, str]]) -> set[tuple[str, str]]:
    """Functions over :data:`MAX_PARAMETERS` or :data:`MAX_BODY_LINES` whose docstring gives no reason; a Typer
    command's parameters are its command-line options, so a module of ``cli/`` is judged on its length alone."""
    return {
        (module, name)
        for module, name, count, lines, doc in sizes
        if (lines > MAX_BODY_LINES or (count > MAX_PARAMETERS and not module.startswith("cli/"))) and REASON not in doc
    }


def test_the_size_rule_finds_a_long_function_and_takes_a_reason() -> None:
    sizes = [("model/a.py", "f", 13, 2, ""), ("cli/b.py", "g", 20, 3, ""), ("model/c.py", "h", 1, 81, "")]
    sizes.append(("model/d.py", "k", 14, 90, f"Sum.\n\n{REASON} one formula of 14 inputs."))
    assert over_the_limits(sizes) == {("model/a.py", "f"), ("model/c.py", "h")}


def test_no_function_is_over_twelve_parameters_or_eighty_lines_without_a_reason() -> None:
    """Switches braided into one long function are steps that compose: none over the limits without a reason in its
    docstring, except :data:`TO_SPLIT`, which may only shrink."""
    over = over_the_limits(function_sizes())
    assert over - TO_SPLIT == set(), f"split these, or say '{REASON} ...' in the docstring: {sorted(over - TO_SPLIT)}"
    assert TO_SPLIT - over == set(), f"within the limits now: take them off TO_SPLIT: {sorted(TO_SPLIT - over)}"
