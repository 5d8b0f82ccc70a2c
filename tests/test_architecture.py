"""The shape of the package (docs/architecture.md): layers without cycles, a core that never sees pydantic, and
no private names shared between modules. Read from the source with ``ast``, so nothing here imports the code."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "rackcost"

# the numeric core: pure functions and plain containers over numpy arrays (DESIGN.md section 2's steps)
CORE = {
    "rackcost.model.performance",
    "rackcost.model.queueing",
    "rackcost.model.sizing",
    "rackcost.model.power",
    "rackcost.model.finance",
    "rackcost.model.demand",
    "rackcost.model.operating_point",
    "rackcost.model.inputs",
    "rackcost.model.outcomes",
    "rackcost.model.fleet",
    "rackcost.model.metrics",
    "rackcost.units",
    "rackcost.scenario.yaml_paths",
    "rackcost.model.routing",
    "rackcost.model.simulation",
    "rackcost.model.site",
}


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _imports(path: Path) -> list[tuple[str, list[str]]]:
    """Every import in a file, wherever it stands (top level, TYPE_CHECKING block or function): (module, names)."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.append((node.module, [a.name for a in node.names]))
        elif isinstance(node, ast.Import):
            out.extend((a.name, []) for a in node.names)
    return out


def _graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for name, path in MODULES.items():
        deps = set()
        for module, names in _imports(path):
            for imported in names or [""]:
                full = f"{module}.{imported}" if imported else module
                target = full if full in MODULES else module
                if target in MODULES and target not in {name, "rackcost"}:
                    deps.add(target)
        graph[name] = deps
    return graph


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


def test_no_import_cycles_type_only_ones_included() -> None:
    assert _cycles(_graph()) == []


@pytest.mark.parametrize("module", sorted(CORE))
def test_the_numeric_core_never_sees_pydantic(module: str) -> None:
    graph = _graph()
    reachable, todo = set(), [module]
    while todo:  # everything the module imports, directly or not
        for dep in graph[todo.pop()]:
            if dep not in reachable:
                reachable.add(dep)
                todo.append(dep)
    assert not reachable & {"rackcost.scenario.schema", "rackcost.scenario.loading", "rackcost.scenario.unpack"}, (
        reachable
    )
    for mod in {module} | reachable:
        assert not any(m.split(".")[0] in {"pydantic", "yaml", "pandas"} for m, _ in _imports(MODULES[mod])), mod


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


@pytest.mark.parametrize("constant", ["SECONDS_PER_HOUR", "HOURS_PER_YEAR", "MS_PER_S", "W_PER_KW"])
def test_unit_constants_are_defined_once(constant: str) -> None:
    where = [name for name, path in MODULES.items() if constant in _top_level_names(path)[1]]
    assert where == ["rackcost.units"]
