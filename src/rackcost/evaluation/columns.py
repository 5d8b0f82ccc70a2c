"""The registry of result columns: each column's name, unit, table and meaning, defined once."""

from __future__ import annotations

__all__ = ["BLENDED"]

BLENDED = "blended"
"""The demand point of figures blended over the day (hour-weighted), where a table has a demand-point column."""
