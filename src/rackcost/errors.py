"""Errors a user can cause, each naming the file, the YAML path and what was expected."""

from __future__ import annotations

import functools
import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, ParamSpec, TypeVar

__all__ = [
    "UNNAMED_FILE",
    "Problem",
    "ScenarioError",
    "check_argument",
    "check_count",
    "in_file",
    "plain_message",
    "problems_in_its_file",
]

UNNAMED_FILE = "<scenario>"
"""The file of a problem that names none: a scenario built in memory, or a problem found without its scenario."""

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
    file: str = UNNAMED_FILE
    line: int | None = None

    def __str__(self) -> str:
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        return f"{where}: {self.path}: {self.message}" if self.path else f"{where}: {self.message}"


class ScenarioError(ValueError):
    """A scenario that cannot be evaluated; ``problems`` lists every problem found, one per line of the message."""

    def __init__(self, problems: list[Problem]):
        self.problems = list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


def in_file(exc: ScenarioError, file: str) -> ScenarioError:
    """The same problems, each that names no file (:data:`UNNAMED_FILE`) set in ``file``.

    Examples
    --------
    >>> str(in_file(ScenarioError([Problem("facility.pue", "must be >= 1")]), "site.yaml"))
    'site.yaml: facility.pue: must be >= 1'
    """
    return ScenarioError([replace(p, file=file) if p.file == UNNAMED_FILE else p for p in exc.problems])


_Args = ParamSpec("_Args")
_Returns = TypeVar("_Returns")


def problems_in_its_file(analysis: Callable[_Args, _Returns]) -> Callable[_Args, _Returns]:
    """Decorate an analysis of a scenario (its first parameter, a :class:`~rackcost.scenario.schema.Scenario` or
    anything else with an ``origin_file``, given by position or by name): a problem it raises that names no file is
    set in the scenario's file, as the chain's own problems are. Without it a problem the analysis finds itself (the
    site's power holds no replica, an input break-even cannot move) named ``<scenario>`` for a scenario loaded from a
    file."""
    first = next(iter(inspect.signature(analysis).parameters))

    @functools.wraps(analysis)
    def named(*args: _Args.args, **kwargs: _Args.kwargs) -> _Returns:
        try:
            return analysis(*args, **kwargs)
        except ScenarioError as exc:
            of = args[0] if args else kwargs.get(first)
            file = getattr(of, "origin_file", UNNAMED_FILE)
            if not isinstance(file, str) or file == UNNAMED_FILE:
                raise
            raise in_file(exc, file) from None

    return named


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
