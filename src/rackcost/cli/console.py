"""Entry point of the ``rackcost`` console script.

Imports the CLI with the garbage collector paused. Importing numpy, scipy, pydantic, PyYAML, Typer and Rich
allocates several hundred thousand long-lived objects and no garbage, so the full collections Python would
otherwise run during the imports (each one walking every object allocated so far) are pure cost: about 5 to 10%
of a cold start on a small machine. Once the imports are done those objects are moved to the permanent generation
(:func:`gc.freeze`) and collection resumes, so the command itself runs with the collector on and its collections
do not walk the libraries' objects again.

The command runs without pydantic's plugins (:func:`without_pydantic_plugins`): the first schema pydantic builds
otherwise reads the entry points of every installed distribution to look for one, about 9 ms of CPU time of a cold
``rackcost evaluate`` here (102 distributions; more in a larger environment), and rackcost uses none.
"""

from __future__ import annotations

import gc
import os
from collections.abc import MutableMapping

PYDANTIC_PLUGINS = "PYDANTIC_DISABLE_PLUGINS"
"""pydantic's documented switch: ``__all__`` turns every plugin off, an empty value leaves them on."""


def without_pydantic_plugins(environ: MutableMapping[str, str] = os.environ) -> None:
    """Turn pydantic's plugins off for this process and its children, unless ``PYDANTIC_DISABLE_PLUGINS`` is set
    already (set it empty to keep the plugins on, or to a list of names to turn off only those)."""
    environ.setdefault(PYDANTIC_PLUGINS, "__all__")


def main() -> None:
    """Run the ``rackcost`` command (see :func:`rackcost.cli.entry.main`)."""
    without_pydantic_plugins()
    gc.disable()
    try:
        from rackcost.cli.entry import main as cli_main
    finally:
        gc.freeze()
        gc.enable()
    cli_main()


if __name__ == "__main__":
    main()
