"""Errors a user can cause, each naming the file, the YAML path and what was expected."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

__all__ = ["Problem", "ScenarioError", "check_argument", "check_count", "plain_message"]

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


def check_argument(function: str, name: str, value: Any, expected: type | tuple[type, ...], described: str) -> None:
    """Refuse, at a public function's edge, an argument of the wrong type, saying what was expected.

    A boolean is never taken for a number (``True`` is an ``int`` to Python, not to a user).

    Raises
    ------
    TypeError
        ``function: name must be described, got <type> <value>``.

    Examples
    --------
    >>> check_argument("rackcost.evaluate", "scenario", "s.yaml", dict, "a Scenario (rackcost.load_scenario(path))")
    Traceback (most recent call last):
    ...
    TypeError: rackcost.evaluate: scenario must be a Scenario (rackcost.load_scenario(path)), got str 's.yaml'
    """
    wanted = expected if isinstance(expected, tuple) else (expected,)
    if not isinstance(value, wanted) or (isinstance(value, bool) and bool not in wanted):
        shown = repr(value) if isinstance(value, str | int | float) and len(repr(value)) <= 40 else ""
        raise TypeError(
            f"{function}: {name} must be {described}, got {type(value).__name__}" + (f" {shown}" if shown else "")
        )


def check_count(function: str, name: str, value: Any, low: int, high: int | None = None) -> None:
    """Refuse an argument that is not a whole number in ``[low, high]`` (a TypeError for the type, a ValueError for
    the range).

    Examples
    --------
    >>> check_count("rackcost.uncertainty", "samples", 0, 1, 1_000_000)
    Traceback (most recent call last):
    ...
    ValueError: rackcost.uncertainty: samples must be a whole number from 1 to 1,000,000, got 0
    """
    span = f"from {low:,} to {high:,}" if high is not None else f">= {low:,}"
    try:
        import numpy as np

        integer: tuple[type, ...] = (int, np.integer)
    except ImportError:  # pragma: no cover - numpy is a dependency
        integer = (int,)
    check_argument(function, name, value, integer, f"a whole number {span}")
    if value < low or (high is not None and value > high):
        raise ValueError(f"{function}: {name} must be a whole number {span}, got {value:,}")
