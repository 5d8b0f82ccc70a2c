"""Layout helpers shared by the pages: rows of columns that stay wide enough for what they hold."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TypeVar

import streamlit as st

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
