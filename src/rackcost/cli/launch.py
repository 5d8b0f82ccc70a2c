"""``rackcost app``: start the dashboard with ``streamlit run .../streamlit_app.py``.

The wheel carries the app inside the package (``rackcost/app/streamlit_app.py``, its ``app_pages/`` and its
``rackcost_app`` helpers; see ``pyproject.toml``), so an installed ``rackcost app`` needs no checkout and works from
any directory. An editable install has no packaged copy and runs the repository's ``app/``, as
:func:`rackcost.scenario.loading.bundled_scenario_path` finds the scenarios. ``streamlit run`` puts the script's folder
on ``sys.path``, which is how the pages import ``rackcost_app``.
"""

from __future__ import annotations

import contextlib
import importlib.util
import signal
import subprocess
import sys
from importlib import resources
from pathlib import Path
from typing import Annotated

import typer

__all__ = ["app_script", "packaged_script", "run_app", "serve", "streamlit_command"]

INSTALL_HINT = "pip install 'rackcost[app]' (in a checkout: pip install -e '.[app]')"
# signals that end ``rackcost app`` and are passed on to the Streamlit server (SIGINT, Ctrl-C, reaches both anyway)
FORWARDED_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))
STOP_TIMEOUT_S = 10.0


def packaged_script() -> Path:
    """Where the wheel puts ``streamlit_app.py``: inside the installed package."""
    return Path(str(resources.files("rackcost"))) / "app" / "streamlit_app.py"


def app_script() -> Path | None:
    """Path of ``streamlit_app.py``: the packaged one, else the repository's; None when neither exists."""
    packaged = packaged_script()
    if packaged.is_file():
        return packaged
    repo = Path(__file__).resolve().parents[3] / "app" / "streamlit_app.py"
    return repo if repo.is_file() else None


def streamlit_command(
    script: Path, *, port: int | None = None, headless: bool = False, address: str | None = None
) -> list[str]:
    """The ``streamlit run`` command line of the dashboard.

    Parameters
    ----------
    script
        The app's ``streamlit_app.py``.
    port
        TCP port to serve on; Streamlit's default (8501) when None.
    headless
        Do not open a browser (``--server.headless true``): for servers and CI.
    address
        Address to listen on, e.g. ``127.0.0.1``; Streamlit's default (every interface) when None.

    Returns
    -------
    list of str
        The command, run with this interpreter. Streamlit's usage statistics are off
        (``--browser.gatherUsageStats false``): the dashboard sends nothing anywhere, and Streamlit no longer
        prints "Collecting usage statistics" at start. The packaged app is not watched for changes
        (``--server.fileWatcherType none``): nobody edits site-packages, and watching it costs CPU.
    """
    command = [sys.executable, "-m", "streamlit", "run", str(script), "--browser.gatherUsageStats", "false"]
    if headless:
        command += ["--server.headless", "true"]
    if address is not None:
        command += ["--server.address", address]
    if script == packaged_script():
        command += ["--server.fileWatcherType", "none"]
    if port is not None:
        command += ["--server.port", str(port)]
    return command


def serve(command: list[str]) -> int:
    """Run the Streamlit server as a child process until it exits; the signals that stop us stop it too.

    SIGTERM and SIGHUP sent to ``rackcost app`` (a service manager, ``kill``, a closed terminal) are forwarded to
    the child, so that the server never outlives its launcher; Ctrl-C reaches both (same process group), and we
    wait for the child. If the child has not exited when we leave (an error of ours), it is terminated, then killed
    after :data:`STOP_TIMEOUT_S` seconds.

    Parameters
    ----------
    command
        The ``streamlit run`` command line (:func:`streamlit_command`).

    Returns
    -------
    int
        The child's exit code (0 after Ctrl-C; a negative signal number when a signal ended it).
    """
    child = subprocess.Popen(command)

    def forward(signum: int, _frame: object) -> None:
        child.send_signal(signum)

    previous = {sig: signal.signal(sig, forward) for sig in FORWARDED_SIGNALS}
    try:
        while True:
            try:
                return child.wait()
            except KeyboardInterrupt:
                continue  # the child got the same Ctrl-C: wait for it to shut down
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if child.poll() is None:
            child.terminate()
            try:
                child.wait(timeout=STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                child.kill()
                with contextlib.suppress(subprocess.TimeoutExpired):
                    child.wait(timeout=STOP_TIMEOUT_S)


def run_app(
    port: Annotated[int | None, typer.Option("--port", help="Port to serve on (default: Streamlit's, 8501).")] = None,
    headless: Annotated[
        bool, typer.Option("--headless", help="Serve without opening a browser (for a server or CI).")
    ] = False,
    address: Annotated[
        str | None, typer.Option("--address", help="Address to listen on, e.g. 127.0.0.1 (default: all).")
    ] = None,
) -> None:
    """Start the dashboard in your browser (needs the package's app extra, with Streamlit)."""
    err = typer.echo
    if importlib.util.find_spec("streamlit") is None:
        err(f"error: the dashboard needs Streamlit, which is not installed: {INSTALL_HINT}", err=True)
        raise typer.Exit(code=1)
    script = app_script()
    if script is None:
        err(
            f"error: the dashboard is missing: neither {packaged_script()} (the wheel's copy) nor the repository's "
            "app/streamlit_app.py exists; reinstall the package",
            err=True,
        )
        raise typer.Exit(code=1)
    code = serve(streamlit_command(script, port=port, headless=headless, address=address))
    raise typer.Exit(code=0 if code in (0, -signal.SIGINT) else code)
