"""Errors a user can cause, each naming the file, the YAML path and what was expected."""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Problem", "ScenarioError", "plain_message"]

_COMPARISONS = (
    ("greater than or equal to", ">="),
    ("less than or equal to", "<="),
    ("greater than", ">"),
    ("less than", "<"),
)


def plain_message(message: str) -> str:
    """A validation library's sentence in the project's words: what is expected, from a lower-case start.

    Examples
    --------
    >>> plain_message("Input should be less than or equal to 5")
    'must be <= 5'
    >>> plain_message("Input should be a valid number")
    'must be a valid number'
    >>> plain_message("Value error, low must not exceed high")
    'low must not exceed high'
    """
    text = re.sub(r"^Value error, ", "", message.strip())
    text = re.sub(r"^Input should be ", "must be ", text)
    for words, symbol in _COMPARISONS:
        text = text.replace(f"must be {words} ", f"must be {symbol} ")
    return text[:1].lower() + text[1:]


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
