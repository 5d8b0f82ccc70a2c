"""Start the dashboard with ``streamlit run`` on a free loopback port, and Debian's Chromium driven by Playwright.

Shared by ``tests/test_browser.py`` and ``scripts/screenshots.py``.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
APP = ROOT / "app" / "streamlit_app.py"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
HOST = "127.0.0.1"
START_TIMEOUT_S = 120.0
"""A hang guard: the server answers in a few seconds, more on a busy machine [s]."""


def free_port() -> int:
    """A TCP port free on the loopback interface."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def missing_chromium_message() -> str:
    return f"{CHROMIUM} is missing: run `bash scripts/bootstrap` (it installs Debian's chromium with apt-get)"


@contextlib.contextmanager
def streamlit_app(log_path: Path | None = None) -> Iterator[str]:
    """Run the dashboard in a subprocess; yield its URL once ``/_stcore/health`` answers; stop it at the end."""
    port = free_port()
    command = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        str(APP),
        "--server.headless",
        "true",
        "--server.port",
        str(port),
        "--server.address",
        HOST,
        "--browser.gatherUsageStats",
        "false",
    ]
    log = open(log_path, "wb") if log_path else subprocess.DEVNULL  # noqa: SIM115 - closed below
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT, env=env)
    url = f"http://{HOST}:{port}"
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            if process.poll() is not None:
                raise RuntimeError(
                    f"streamlit exited with code {process.returncode} before answering (log: {log_path})"
                )
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                    if response.status == 200:
                        break
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"streamlit did not answer {url}/_stcore/health within {START_TIMEOUT_S:.0f} s")
            time.sleep(0.25)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
        if log_path:
            log.close()


def launch_chromium(playwright):
    """Debian's Chromium, headless, with no network features of its own."""
    return playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
