"""The YAML paths of a scenario's (or a models document's) numbers, for the tests that check each has a source."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any


def numeric_leaves(data: Any, path: str = "") -> Iterator[str]:
    """The YAML path of every number in ``data`` (booleans are not numbers here), depth first."""
    if isinstance(data, dict):
        for key, value in data.items():
            yield from numeric_leaves(value, f"{path}.{key}" if path else str(key))
    elif isinstance(data, list):
        for i, value in enumerate(data):
            yield from numeric_leaves(value, f"{path}[{i}]")
    elif isinstance(data, int | float) and not isinstance(data, bool):
        yield path
