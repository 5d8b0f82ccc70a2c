"""Layout helpers shared by the pages: rows of columns that stay wide enough for what they hold."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TypeVar

import streamlit as st

from rackcost_app import state
from rackcost_app.safe import md

T = TypeVar("T")

# at most this many metrics side by side: in a 1,100 px column each gets 360 px, enough for a system name such as
# "Gaudi 2.5 TP8 BF16" and a dollar figure; six in a row cut the labels ("Gaudi 2.5 TP8 BF16: bl...")
METRICS_PER_ROW = 3


def in_rows(
    items: Sequence[T], per_row: int = METRICS_PER_ROW
) -> Iterator[tuple[st.delta_generator.DeltaGenerator, T]]:
    """``(column, item)`` for each item, ``per_row`` columns to a row (a last, shorter row keeps the same widths)."""
    for start in range(0, len(items), per_row):
        cols = st.columns(per_row)
        yield from zip(cols, items[start : start + per_row], strict=False)


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
