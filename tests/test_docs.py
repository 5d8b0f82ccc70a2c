"""The docs say what the code does: glossary coverage, the README's example scenario, the README's commands."""

from __future__ import annotations

import re
from pathlib import Path

import yaml
from pydantic import BaseModel

import rackcost
from rackcost.evaluation.columns import glossary_markdown
from rackcost.scenario import schema

ROOT = Path(__file__).resolve().parents[1]
GLOSSARY = (ROOT / "docs" / "glossary.md").read_text(encoding="utf-8")
README = (ROOT / "README.md").read_text(encoding="utf-8")


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
