"""YAML paths such as ``systems[1].hardware.accelerator_idle_w``: the one way rackcost names a place in a scenario.

Problems, ``figures:`` keys, uncertain inputs and the dashboard's fields all address a value by its YAML path.
This module turns a path into a location tuple and back, and reads the value at a path in plain data.
No numpy, no pydantic: it is imported by the schema and the loader, whose cold start matters.
"""

from __future__ import annotations

import re
from typing import Any, Final

__all__ = ["MISSING", "YamlPath", "format_path", "lookup", "parse_path"]

YamlPath = tuple[str | int, ...]
"""A location in a document: mapping keys (str) and list indices (int), outermost first."""


class _Missing:
    """Type of :data:`MISSING`."""

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Final[Any] = _Missing()
"""What :func:`lookup` returns where the data has no value (``None`` is a value: YAML's ``null``)."""

_PARTS = re.compile(r"[^.\[\]]+|\[\d+\]")


def format_path(loc: YamlPath) -> str:
    """Format a location tuple as a YAML path.

    Examples
    --------
    >>> format_path(("systems", 1, "hardware", "accelerator_idle_w"))
    'systems[1].hardware.accelerator_idle_w'
    >>> format_path(())
    ''
    """
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def parse_path(path: str) -> YamlPath:
    """Inverse of :func:`format_path`.

    Examples
    --------
    >>> parse_path("systems[1].performance.points[0].throughput_tokens_per_s")
    ('systems', 1, 'performance', 'points', 0, 'throughput_tokens_per_s')
    """
    return tuple(int(part[1:-1]) if part.startswith("[") else part for part in _PARTS.findall(path))


def lookup(data: Any, path: str | YamlPath) -> Any:
    """The value at a YAML path in plain data (mappings and lists), or :data:`MISSING`.

    Examples
    --------
    >>> lookup({"demand": [{"arrival_rps": 300}]}, "demand[0].arrival_rps")
    300
    >>> lookup({"demand": []}, "demand[0].arrival_rps") is MISSING
    True
    """
    for part in parse_path(path) if isinstance(path, str) else path:
        if isinstance(data, dict) and part in data:
            data = data[part]
        elif isinstance(data, list) and isinstance(part, int) and part < len(data):
            data = data[part]
        else:
            return MISSING
    return data
