"""Entry point of the ``rackcost`` console script.

Imports the CLI with the garbage collector paused. Importing numpy, scipy, pydantic, PyYAML, Typer and Rich
allocates several hundred thousand long-lived objects and no garbage, so the full collections Python would
otherwise run during the imports (each one walking every object allocated so far) are pure cost: about 5 to 10%
of a cold start on a small machine. Once the imports are done those objects are moved to the permanent generation
(:func:`gc.freeze`) and collection resumes, so the command itself runs with the collector on and its collections
do not walk the libraries' objects again.
"""

from __future__ import annotations

import gc


def main() -> None:
    """Run the ``rackcost`` command (see :func:`rackcost.cli.entry.main`)."""
    gc.disable()
    try:
        from rackcost.cli.entry import main as cli_main
    finally:
        gc.freeze()
        gc.enable()
    cli_main()


if __name__ == "__main__":
    main()
