"""Systems a scenario cannot serve with, as every command marks them: first, in red, and exit status 0.

:func:`rackcost.evaluate` lists them in ``Result.unserved``; the analyses leave them out too
(:func:`rackcost.evaluation.servable.served_for`), and a command prints each one before its table (on stderr under
``--format json`` or ``csv``, whose JSON carries an ``unserved`` list instead).
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.markup import escape

from rackcost.errors import ScenarioError

if TYPE_CHECKING:
    from rackcost.scenario.schema import Scenario

__all__ = ["print_unserved", "quiet_unserved", "served_scenario"]


def served_scenario(scenario: Scenario) -> tuple[Scenario, list[dict[str, Any]]]:
    """The scenario without the systems it cannot serve with, and those (``{system, path, limit, reason}``).

    With no system left, the scenario itself and no row: the analysis's own call then raises the reasons.
    """
    from rackcost.evaluation.servable import servable

    try:
        kept, unserved, _ = servable(scenario)
    except ScenarioError:
        return scenario, []
    return kept, [u.to_dict() for u in unserved]


def print_unserved(out: Console, unserved: list[dict[str, Any]]) -> None:
    """Each system left out, first and marked: that it cannot be served is itself an answer (exit status 0)."""
    from rackcost.scenario.feasibility import UNSERVED_WORDS

    for u in unserved:
        reason = UNSERVED_WORDS.get(u["limit"], u["limit"])
        out.print(
            f"[bold red]{escape(u['system'])}: {reason}[/bold red] ({escape(u['path'])}): {escape(u['reason'])}",
            highlight=False,
        )


@contextlib.contextmanager
def quiet_unserved() -> Iterator[None]:
    """The library's :class:`~rackcost.evaluation.servable.UnservedSystemWarning` silenced: the command prints
    those systems itself (:func:`print_unserved`)."""
    from rackcost.evaluation.servable import UnservedSystemWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnservedSystemWarning)
        yield
