"""Every analysis of a scenario loaded from a file names that file in the problems it finds itself, as the chain's
own problems do (``rackcost.errors.problems_in_its_file``): the library's site budget and break-even named
``<scenario>``, and each command put the file back in its own copy of the same line."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

import rackcost
from rackcost.errors import UNNAMED_FILE, Problem, ScenarioError, in_file, problems_in_its_file

BUNDLED = rackcost.bundled_scenario_path()

ANALYSES: dict[str, Callable[[Any], Any]] = {
    "site budget, a site too small for one replica": lambda s: rackcost.site_budget(s, 1.0),
    "site budget, by name": lambda s: rackcost.site_budget(scenario=s, max_it_power_kw=1.0),
    "break-even of an input it cannot move": lambda s: rackcost.breakeven(s, "workload.model"),
    "break-even at a demand point the scenario has not": lambda s: rackcost.breakeven(
        s, "facility.pue", demand_point="midnight"
    ),
    "break-even of the baseline against itself": lambda s: rackcost.breakeven(
        s, "facility.pue", system=s.baseline_name
    ),
}


@pytest.mark.parametrize("analysis", sorted(ANALYSES))
def test_an_analysis_names_the_file_its_scenario_came_from(analysis: str, tmp_path: Path) -> None:
    path = tmp_path / "site.yaml"
    path.write_text(BUNDLED.read_text(encoding="utf-8"), encoding="utf-8")
    with pytest.raises(ScenarioError) as caught:
        ANALYSES[analysis](rackcost.load_scenario(path))
    assert caught.value.problems and all(p.file == str(path) for p in caught.value.problems), caught.value.problems


@pytest.mark.parametrize("analysis", sorted(ANALYSES))
def test_a_scenario_built_in_memory_keeps_naming_no_file(analysis: str) -> None:
    data = yaml.safe_load(BUNDLED.read_text(encoding="utf-8"))
    with pytest.raises(ScenarioError) as caught:
        ANALYSES[analysis](rackcost.scenario_from_dict(data))
    assert all(p.file == UNNAMED_FILE for p in caught.value.problems), caught.value.problems


def test_in_file_sets_only_the_problems_that_name_no_file() -> None:
    named = Problem("a", "x", "other.yaml", 3)
    moved = in_file(ScenarioError([Problem("b", "y"), named]), "s.yaml").problems
    assert moved == [Problem("b", "y", "s.yaml"), named]


def test_the_decorated_function_keeps_its_name_docstring_and_other_errors() -> None:
    @problems_in_its_file
    def analysis(scenario: Any, fail: bool) -> str:
        """Docstring."""
        if fail:
            raise ValueError("not a scenario's problem")
        return "ran"

    assert analysis.__name__ == "analysis" and analysis.__doc__ == "Docstring."
    assert analysis(object(), False) == "ran"
    with pytest.raises(ValueError, match="not a scenario's problem"):
        analysis(object(), True)
