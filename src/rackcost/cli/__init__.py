"""Command-line face: the ``rackcost`` command (Typer), one module per group of commands.

``entry`` holds the Typer app and :func:`main`; ``common`` what every command shares; ``console`` the console-script
entry (it imports the rest with the garbage collector paused, which is why this file imports nothing itself);
``launch`` starts the dashboard (``rackcost app``). ``app`` and ``main`` are loaded from ``entry`` on first use.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__all__ = ["app", "main"]

if TYPE_CHECKING:
    from rackcost.cli.entry import app, main


def __getattr__(name: str) -> Any:
    """``app`` and ``main`` from :mod:`rackcost.cli.entry`, imported on first use."""
    if name in __all__:
        return getattr(importlib.import_module("rackcost.cli.entry"), name)
    raise AttributeError(f"module 'rackcost.cli' has no attribute {name!r}")
