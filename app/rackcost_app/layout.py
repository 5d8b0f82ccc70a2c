"""Layout helpers shared by the pages: rows of columns that stay wide enough for what they hold, the box of a file
not loaded, and the decision a page leads with."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, TypeVar

import streamlit as st

from rackcost_app import compute, state
from rackcost_app.safe import md

if TYPE_CHECKING:
    from rackcost.reporting.decision import Decision

T = TypeVar("T")

TILE_GAP = "medium"
"""Space between the tiles of a row (:func:`tiles`)."""


def tiles(n: int) -> list[st.delta_generator.DeltaGenerator]:
    """``n`` containers side by side that wrap onto more rows when the page is narrow, each as wide as what it
    holds: a metric's label and value are never cut (``st.columns`` keeps its columns in one row down to a 640 px
    window: three metrics in a 1,024 px window cut "$2.13 per 1,000" to "$2.13 per...")."""
    row = st.container(horizontal=True, wrap=True, gap=TILE_GAP)
    return [row.container(width="content") for _ in range(n)]


def in_rows(items: Sequence[T]) -> Iterator[tuple[st.delta_generator.DeltaGenerator, T]]:
    """``(tile, item)`` for each item: :func:`tiles`, as many to a row as the page's width holds."""
    yield from zip(tiles(len(items)), items, strict=True)


def load_problems_box(tail_if_kept: str) -> None:
    """The error box of a file, text or link that was not loaded, with every problem; nothing when there is none.

    Parameters
    ----------
    tail_if_kept
        The sentence that says where the refused text waits (when it was kept).
    """
    ss = st.session_state
    problems = ss.get(state.LOAD_PROBLEMS)
    if not problems:
        return
    lines = "\n".join(f"- {md(p)}" for p in problems)
    tail = tail_if_kept if ss.get(state.REJECTED_TEXT) else ""
    st.error(
        f"**Not loaded: {md(problems[0].file or 'the text')}**, {len(problems)} "
        f"problem{'s' if len(problems) > 1 else ''}. "
        f"You are still working on *{md(state.get_at(ss[state.VALID], 'name'))}*.{tail}\n\n{lines}",
        icon=":material/block:",
    )


def lines_around(text: str, line: int, context: int = 2) -> str:
    """Lines ``line - context`` to ``line + context`` of a text, each after its number, the line itself marked ``>``.

    Examples
    --------
    >>> print(lines_around("a: 1\\nb: [\\nc: 3\\n", 2, 1))
       1   a: 1
       2 > b: [
       3   c: 3
    """
    lines = text.splitlines()
    first, last = max(1, line - context), min(len(lines), line + context)
    width = len(str(last))
    return "\n".join(f"{n:>{max(width, 4)}} {'>' if n == line else ' '} {lines[n - 1]}" for n in range(first, last + 1))


def shown_decision(key: str) -> Decision:
    """The scenario's decision (:func:`rackcost_app.compute.decision`, the one ``rackcost evaluate`` and the report
    lead with), found under a spinner where it needs the buying plan, and the reason shown where a scenario with a
    ``plan`` block has none. The one way the Answer and Buying plan pages find a plan."""
    if compute.scenario(key).plan is None:
        return compute.decision(key)
    with st.spinner("Finding the cheapest buying plan (seconds to tens of seconds, once per scenario)..."):
        found = compute.decision(key)
    st.session_state[state.PLAN_ASKED] = key  # found: the Buying plan page shows it without asking again
    if found.problem is not None:
        st.error(
            "No plan: "
            + " ".join(md(f"{p.path}: {p.message}" if p.path else p.message) for p in found.problem.problems),
            icon=":material/error:",
        )
    return found
