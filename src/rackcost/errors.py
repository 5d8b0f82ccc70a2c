"""Errors a user can cause, each naming the file, the YAML path and what was expected."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Problem", "ScenarioError"]


@dataclass(frozen=True)
class Problem:
    """One problem in a scenario.

    Parameters
    ----------
    path
        YAML path of the offending value, e.g. ``systems[1].hardware.accelerator_idle_w`` ('' for the whole file).
    message
        What was expected and what was found.
    file
        File the scenario came from, or '<scenario>' when it was built in memory.
    line
        1-based line in the file, when the loader knows it.
    """

    path: str
    message: str
    file: str = "<scenario>"
    line: int | None = None

    def __str__(self) -> str:
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        return f"{where}: {self.path}: {self.message}" if self.path else f"{where}: {self.message}"


class ScenarioError(ValueError):
    """A scenario that cannot be evaluated; ``problems`` lists every problem found, one per line of the message."""

    def __init__(self, problems: list[Problem]):
        self.problems = list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))
