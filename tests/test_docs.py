"""The docs say what the code does: glossary coverage, the README's example scenario, its commands, their options
and the JSON keys they write."""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from typing import Any

import pytest
import typer.main
import yaml
from pydantic import BaseModel
from typer.testing import CliRunner

import rackcost
from rackcost.cli.entry import app as cli_app
from rackcost.evaluation.columns import glossary_markdown
from rackcost.scenario import schema

ROOT = Path(__file__).resolve().parents[1]
GLOSSARY = (ROOT / "docs" / "glossary.md").read_text(encoding="utf-8")
README = (ROOT / "README.md").read_text(encoding="utf-8")
CLI_DOC = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")  # every command with every option


def _field_names(model: type[BaseModel]) -> set[str]:
    names = set()
    for name, field in model.model_fields.items():
        names.add(field.alias or name)
        inner = field.annotation
        for candidate in (inner, *getattr(inner, "__args__", ())):
            for sub in (candidate, *getattr(candidate, "__args__", ())):
                if isinstance(sub, type) and issubclass(sub, BaseModel):
                    names |= _field_names(sub)
    return names


def test_every_scenario_field_is_in_the_glossary():
    documented = set(re.findall(r"`([a-z_0-9.\[\]]+)`", GLOSSARY))
    words = {part for name in documented for part in re.split(r"[.\[\]]+", name) if part}
    missing = sorted(_field_names(schema.Scenario) - words)
    assert missing == [], f"scenario fields missing from docs/glossary.md: {missing}"


def test_the_glossary_result_columns_are_written_from_the_registry_of_columns():
    """docs/glossary.md's Result columns section is exactly what the registry writes (regenerate it with
    ``python -c "from rackcost.evaluation.columns import glossary_markdown; print(glossary_markdown())"``)."""
    section = GLOSSARY[GLOSSARY.index("## Result columns") :]
    following = section.find("\n## ", 5)
    section = section if following < 0 else section[: following + 1]
    assert section.strip() == glossary_markdown().strip()


def test_readme_example_scenario_loads_and_evaluates():
    block = re.search(r"```yaml\n(.*?)```", README, re.S).group(1)
    scenario = rackcost.scenario_from_dict(yaml.safe_load(block), "README.md")
    result = rackcost.evaluate(scenario)
    assert len(result.records["points"]) == 3


def test_ci_runs_the_readme_test_command():
    commands = re.findall(r"```bash\n(.*?)\n```", README, re.S)
    test_command = next(c for c in commands if "pytest" in c)
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert test_command in ci.splitlines()


def test_readme_library_example_runs(monkeypatch):
    # the "Library in five lines" block, run as written from the repository root
    block = re.search(r"## Library in five lines\n\n```python\n(.*?)```", README, re.S).group(1)
    monkeypatch.chdir(ROOT)
    exec(compile(block, "README.md", "exec"), {"print": lambda *args, **kwargs: None})


# ---- the README's command lines against the CLI -----------------------------------------------------------------

_OPTION = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*|-[a-zA-Z])(?![\w-])")


@functools.cache
def _cli_commands() -> dict[str, Any]:
    """Every command a user can run, by its words after ``rackcost`` (``import csv`` for a group's sub-command).

    ``typer.main.get_command`` gives the click command tree (Typer's own copy of click, so read by duck typing: a
    group has ``commands``).
    """
    commands: dict[str, Any] = {}

    def walk(group: Any, prefix: str) -> None:
        for name, command in group.commands.items():
            if hasattr(command, "commands"):
                walk(command, f"{prefix}{name} ")
            else:
                commands[prefix + name] = command

    root = typer.main.get_command(cli_app)
    root.load_all()  # each command's module is imported when it runs (rackcost.cli.entry.LazyCommands): all of them
    walk(root, "")
    return commands


@functools.cache
def _readme_command_lines(text: str = CLI_DOC) -> dict[str, set[str]]:
    """The ``rackcost ...`` lines of the ```text blocks of ``text`` (docs/cli.md, or the README): command words -> the
    options they show.

    A line indented under a command line continues it; ``  # ...`` starts a comment. A command's options are the
    union over every line that shows it (``rackcost schema`` and ``rackcost schema --sweep``).
    """
    shown: dict[str, set[str]] = {}
    groups = {name.split()[0] for name in _cli_commands() if " " in name}
    current = None
    for block in re.findall(r"```text\n(.*?)```", text, re.S):
        for line in block.splitlines():
            text = re.split(r"\s#\s", f" {line} ", maxsplit=1)[0].strip()
            if line.startswith("rackcost "):
                words = text.split()
                current = " ".join(words[1:3] if words[1] in groups else words[1:2])
                shown.setdefault(current, set())
            elif not (line.startswith(" ") and current):
                current = None
                continue
            shown[current] |= set(_OPTION.findall(text))
    return shown


def _opts(command: Any) -> dict[str, list[str]]:
    """Each option of a command (by parameter name) with its spellings; ``--help`` is not a parameter."""
    return {
        p.name: [*p.opts, *p.secondary_opts] for p in command.params if p.param_type_name == "option" and not p.hidden
    }


@pytest.mark.parametrize("text", [README, CLI_DOC], ids=["README", "docs/cli.md"])
def test_the_readme_and_the_cli_docs_list_every_command_of_the_cli_and_no_other(text):
    listed, registered = set(_readme_command_lines(text)), set(_cli_commands())
    assert listed - registered == set(), "the docs list commands the CLI does not have"
    assert registered - listed == set(), "commands missing from the docs' command lines"


@pytest.mark.parametrize(
    ("text", "name"), [(text, name) for text in (README, CLI_DOC) for name in sorted(_readme_command_lines(text))]
)
def test_every_option_the_docs_show_exists(text, name):
    commands = _cli_commands()
    assert name in commands, f"rackcost {name} is not a command"
    spellings = {s for opts in _opts(commands[name]).values() for s in opts}
    said = _readme_command_lines(text)[name] - spellings
    assert said == set(), f"rackcost {name}: options the command does not have"


@pytest.mark.parametrize("name", sorted(_cli_commands()))
def test_the_cli_docs_show_every_option_of_each_command(name):
    shown = _readme_command_lines(CLI_DOC).get(name, set())
    missing = sorted(opts[0] for opts in _opts(_cli_commands()[name]).values() if not shown & set(opts))
    assert missing == [], f"rackcost {name}: options missing from docs/cli.md's command lines"


def test_the_readme_is_short_and_starts_with_the_two_commands():
    """At most 250 lines, the install and ``rackcost evaluate`` commands within its first 30 (in a ```bash block),
    so that a newcomer reads them before anything else."""
    lines = README.splitlines()
    assert len(lines) <= 250, len(lines)
    first = "\n".join(lines[:30])
    block = re.search(r"```bash\n(.*?)\n```", first, re.S)
    assert block is not None, "no command block in the README's first 30 lines"
    assert "pip install -e ." in block.group(1) and ".venv/bin/rackcost evaluate" in block.group(1)


# ---- the README's JSON keys against what the commands write -----------------------------------------------------


def _readme_keys(after: str) -> set[str]:
    """The keys of the first ```{"a", "b"}``` set docs/cli.md gives after ``after``."""
    start = CLI_DOC.index(after)
    keys = re.search(r"`\{(.*?)\}`", CLI_DOC[start:], re.S).group(1)
    return set(re.findall(r'"([^"]+)"', keys))


@pytest.mark.parametrize(
    ("command", "after"),
    [("evaluate", "`--format json` writes"), ("compare", "`compare`:")],
    ids=["evaluate", "compare"],
)
def test_the_json_keys_the_readme_names_are_those_the_command_writes(command, after):
    result = CliRunner().invoke(cli_app, [command, "--format", "json"])
    assert result.exit_code == 0, result.output
    assert set(json.loads(result.stdout)) == _readme_keys(after)


def test_the_example_sweep_file_of_docs_sweeps_resolves():
    # every axis kind in one file: it must stay a sweep the library accepts (it named a price tier that does not exist)
    from rackcost.analysis.sweep.design import design
    from rackcost.analysis.sweep.spec import sweep_from_dict

    text = (ROOT / "docs" / "sweeps.md").read_text(encoding="utf-8")
    block = re.search(r"## The sweep file\n\n```yaml\n(.*?)```", text, re.S).group(1)
    resolved = design(sweep_from_dict(yaml.safe_load(block), "docs/sweeps.md"))
    assert resolved.configurations == 13 * 4 * 50 * 2 * 2 * 2


def test_the_api_reference_documents_every_public_function_and_class():
    """docs/api/ (built by mkdocs + mkdocstrings from the numpydoc docstrings; ``mkdocs build --strict`` in .ci/run)
    names every function and class ``rackcost`` exports, so a new public name without a page fails here."""
    import inspect

    pages = "\n".join(p.read_text(encoding="utf-8") for p in sorted((ROOT / "docs" / "api").glob("*.md")))
    documented = set(re.findall(r"^::: (rackcost[\w.]*)", pages, re.M))
    public = {
        f"rackcost.{name}"
        for name in rackcost.__all__
        if inspect.isfunction(getattr(rackcost, name)) or inspect.isclass(getattr(rackcost, name))
    }
    assert public - documented == set(), sorted(public - documented)
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    for page in sorted((ROOT / "docs" / "api").glob("*.md")):
        assert f"api/{page.name}" in nav, page.name


# ---- docs/architecture.md: every module and its tests -------------------------------------------------------------


def _modules_and_their_tests(text: str) -> dict[str, str]:
    """``{module path as named: its tests cell}`` from the tables of the "Each module's tests" section."""
    section = text[text.index("## Each module's tests") :]
    following = section.find("\n## ", 5)
    section = section if following < 0 else section[:following]
    return dict(re.findall(r"^\| `([^`]+\.py)` \| (.*) \|$", section, re.M))


def _module_names() -> set[str]:
    """Every module of the library (relative to ``src/rackcost/``) and of the dashboard (``app/...``)."""
    src = ROOT / "src" / "rackcost"
    names = {p.relative_to(src).as_posix() for p in src.rglob("*.py")}
    return names | {p.relative_to(ROOT).as_posix() for p in (ROOT / "app").rglob("*.py")}


def test_docs_architecture_names_every_module_and_its_tests():
    # a new module without a line in the table of its package fails here
    listed = _modules_and_their_tests((ROOT / "docs" / "architecture.md").read_text(encoding="utf-8"))
    assert sorted(_module_names() - set(listed)) == []
    assert sorted(set(listed) - _module_names()) == [], "a line for a module that no longer exists"
    named_tests = {t for cell in listed.values() for t in re.findall(r"`(test_\w+\.py)`", cell)}
    assert sorted(t for t in named_tests if not (ROOT / "tests" / t).is_file()) == []
    assert all(cell.strip() for cell in listed.values()), "a module without its tests"


def test_the_module_table_is_read_as_written():
    text = "## Each module's tests\n\n| `a.py` | `test_a.py`, `test_b.py` |\n| `m/b.py` | via a face: `test_c.py` |\n"
    text += "## Next\n| `c.py` | `test_c.py` |\n"  # after the section: not read
    assert _modules_and_their_tests(text) == {"a.py": "`test_a.py`, `test_b.py`", "m/b.py": "via a face: `test_c.py`"}
