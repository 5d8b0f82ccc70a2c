"""``rackcost app``: start the dashboard with ``streamlit run app/streamlit_app.py``.

The app folder is found next to the package: inside an installed package (``rackcost/app``) or the repository's
``app/`` (an editable install), as :func:`rackcost.loading._scenario_dir` finds the scenarios.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from importlib import resources
from pathlib import Path
from typing import Annotated

import typer

__all__ = ["app_script", "run_app"]

INSTALL_HINT = "pip install -e '.[app]'"


def app_script() -> Path | None:
    """Path of ``streamlit_app.py``, or None when neither the package nor the repository holds it."""
    packaged = Path(str(resources.files("rackcost"))) / "app" / "streamlit_app.py"
    if packaged.is_file():
        return packaged
    repo = Path(__file__).resolve().parents[2] / "app" / "streamlit_app.py"
    return repo if repo.is_file() else None


def run_app(
    port: Annotated[int | None, typer.Option("--port", help="Port to serve on (default: Streamlit's, 8501).")] = None,
) -> None:
    """Start the dashboard in your browser (needs the package's app extra, with Streamlit)."""
    err = typer.echo
    if importlib.util.find_spec("streamlit") is None:
        err(f"error: the dashboard needs Streamlit, which is not installed: {INSTALL_HINT}", err=True)
        raise typer.Exit(code=1)
    script = app_script()
    if script is None:
        err("error: app/streamlit_app.py not found next to the rackcost package; run from a source checkout", err=True)
        raise typer.Exit(code=1)
    command = [sys.executable, "-m", "streamlit", "run", str(script)]
    if port is not None:
        command += ["--server.port", str(port)]
    try:
        code = subprocess.call(command)
    except KeyboardInterrupt:
        code = 0
    raise typer.Exit(code=code)
