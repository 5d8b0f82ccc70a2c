"""The dashboard's page scripts write nothing by accident: Streamlit's "magic" writes any literal or bare name on a
line of its own in the main script or a page script to the page, so a string after an assignment (a variable's
docstring, as the library's modules have) would show up as text on the page. The export page showed its session
key's description that way."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

APP = Path(__file__).resolve().parents[1] / "app"
SCRIPTS = sorted([*APP.glob("*.py"), *(APP / "app_pages").glob("*.py")])


def _bare_statements(path: Path) -> list[tuple[int, str]]:
    """Expression statements at the top level of a script other than its docstring: what magic would write."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = []
    for i, node in enumerate(tree.body):
        if not isinstance(node, ast.Expr) or (i == 0 and isinstance(node.value, ast.Constant)):
            continue
        if isinstance(node.value, ast.Call | ast.Await | ast.Yield):
            continue  # a call writes only what it writes itself
        out.append((node.lineno, ast.unparse(node)[:60]))
    return out


def test_there_are_page_scripts_to_check() -> None:
    assert len(SCRIPTS) >= 5, SCRIPTS


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.name)
def test_a_page_script_has_no_bare_value_for_magic_to_write(path: Path) -> None:
    assert _bare_statements(path) == []


def test_the_check_finds_a_variables_docstring(tmp_path: Path) -> None:
    """The check itself: a string after an assignment is found, a module docstring and a call are not."""
    probe = tmp_path / "probe.py"
    probe.write_text('"""Doc."""\nX = 1\n"""X\'s doc."""\nprint(X)\n', encoding="utf-8")
    assert _bare_statements(probe) == [(3, '"X\'s doc."')]
