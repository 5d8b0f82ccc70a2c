"""``rackcost.report``: a decision report of a scenario, as one HTML file or as Markdown with PNG charts.

The content is :func:`rackcost.reporting.content.build_report`; the formats are :mod:`rackcost.reporting.html` and
:mod:`rackcost.reporting.markdown`. Files are written atomically (a temporary file in the same folder, then renamed),
so a failed or interrupted run never leaves a partial report, and an existing file is replaced only when asked.
"""

from __future__ import annotations

import os
import secrets
import shutil
from pathlib import Path

from rackcost.reporting.content import build_report
from rackcost.scenario.loading import load_scenario
from rackcost.scenario.schema import Scenario

__all__ = [
    "FORMAT_OF_SUFFIX",
    "ReportPathError",
    "check_output",
    "default_output",
    "format_of",
    "images_dir_of",
    "report",
    "writable",
    "write_atomically",
]

FORMAT_OF_SUFFIX = {".html": "html", ".htm": "html", ".md": "markdown", ".markdown": "markdown"}
"""The format of a report file from its suffix."""


class ReportPathError(ValueError):
    """An output path a report cannot be written to: no such folder, not writable, or taken (without force)."""


def format_of(output: str | os.PathLike[str]) -> str:
    """``html`` or ``markdown`` from the suffix of a report's file name (:data:`FORMAT_OF_SUFFIX`).

    Examples
    --------
    >>> format_of("report.html"), format_of("docs/decision.md")
    ('html', 'markdown')
    """
    suffix = Path(output).suffix.lower()
    if suffix not in FORMAT_OF_SUFFIX:
        known = ", ".join(FORMAT_OF_SUFFIX)
        raise ReportPathError(f"{output}: a report is written as {known}; the suffix {suffix or '(none)'!r} is not")
    return FORMAT_OF_SUFFIX[suffix]


def default_output(scenario_file: str | os.PathLike[str] | None, name: str = "scenario") -> Path:
    """Where ``rackcost report`` writes without ``--output``: ``<scenario file stem>-report.html`` here (the current
    folder).

    Examples
    --------
    >>> default_output("scenarios/deepseek-r1-jalapeno-vs-gb300.yaml").as_posix()
    'deepseek-r1-jalapeno-vs-gb300-report.html'
    """
    stem = Path(scenario_file).stem if scenario_file is not None else name
    return Path(f"{stem}-report.html")


def images_dir_of(output: str | os.PathLike[str]) -> Path:
    """The folder of a Markdown report's charts: ``<stem>_files`` beside it (as a browser saves a page).

    >>> images_dir_of("out/report.md").as_posix()
    'out/report_files'
    """
    output = Path(output)
    return output.with_name(f"{output.stem}_files")


def check_output(output: str | os.PathLike[str], force: bool = False) -> Path:
    """Check that a report can be written at ``output`` before any work is done.

    Parameters
    ----------
    output
        The report's file (``.html`` or ``.md``).
    force
        Replace an existing file (and, for Markdown, its charts folder).

    Returns
    -------
    Path

    Raises
    ------
    ReportPathError
        The suffix is neither HTML nor Markdown, the folder does not exist or is not writable, the path is a
        folder, or the file (or its charts folder) exists and ``force`` is false.
    """
    output = Path(output)
    fmt = format_of(output)
    folder = output.parent
    if not folder.is_dir():
        raise ReportPathError(f"{output}: the folder {folder} does not exist")
    if not writable(folder):
        raise ReportPathError(f"{output}: the folder {folder} is not writable")
    taken = [output] + ([images_dir_of(output)] if fmt == "markdown" else [])
    for path in taken:
        if path.is_dir() and path == output:
            raise ReportPathError(f"{output}: is a folder")
        if path.exists() and not force:
            raise ReportPathError(f"{path} exists: use --force (force=True) to overwrite it")
    return output


def writable(folder: Path) -> bool:
    """Whether this process may create files in ``folder`` (``os.access``; root may write anywhere)."""
    return os.access(folder, os.W_OK | os.X_OK)


def _temporary(near: Path) -> Path:
    return near.with_name(f".{near.name}.{secrets.token_hex(4)}.tmp")


def write_atomically(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder and a rename: never a partial file.

    The file gets the usual permissions (0666 less the umask), not a temporary file's 0600.
    """
    temporary = _temporary(path)
    try:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def _write_folder(folder: Path, files: dict[str, bytes]) -> None:
    """Write ``files`` (relative paths, all inside ``folder``: only their names are used) into a new folder, then
    swap it in for ``folder`` (an old one is removed after)."""
    temporary = _temporary(folder)
    old = _temporary(folder)
    try:
        temporary.mkdir()
        for relative, data in files.items():
            (temporary / Path(relative).name).write_bytes(data)
        if folder.exists():
            folder.rename(old)
        temporary.rename(folder)
    except BaseException:
        shutil.rmtree(temporary, ignore_errors=True)
        if old.exists() and not folder.exists():
            old.rename(folder)
        raise
    shutil.rmtree(old, ignore_errors=True)


def report(
    scenario: Scenario | str | os.PathLike[str],
    *,
    samples: int | None = None,
    seed: int = 0,
    format: str = "html",
    date: str | None = None,
    output: str | os.PathLike[str] | None = None,
    force: bool = False,
) -> str:
    """A decision report of a scenario: the question, the answer, the numbers behind it and where each came from.

    Parameters
    ----------
    scenario
        A validated scenario, or the path of a scenario file.
    samples
        Monte Carlo samples for the uncertainty section [-]; default 10,000 when the scenario has distributions
        (:data:`rackcost.reporting.content.DEFAULT_SAMPLES`).
    seed
        Seed of the Monte Carlo: the same scenario, samples, seed and date give the same bytes.
    format
        ``html`` (one self-contained file) or ``markdown`` (text, charts as PNG files beside it).
    date
        The date printed in the report (ISO 8601); default today.
    output
        Write the report here too (atomically; for Markdown the charts go to :func:`images_dir_of`). Markdown needs
        it, since its charts are files.
    force
        Replace an existing ``output``.

    Returns
    -------
    str
        The HTML or Markdown text.

    Raises
    ------
    rackcost.ScenarioError
        The scenario file is not valid (every problem with its file, YAML path and line).
    ReportPathError
        ``output`` cannot be written (:func:`check_output`), or Markdown without ``output``.

    Examples
    --------
    >>> import rackcost
    >>> html = rackcost.report("scenarios/deepseek-r1-jalapeno-vs-gb300.yaml", date="2026-01-01")  # doctest: +SKIP
    """
    if format not in ("html", "markdown"):
        raise ValueError(f"format must be 'html' or 'markdown', got {format!r}")
    if output is not None:
        output = check_output(output, force)
        if format_of(output) != format:
            raise ReportPathError(f"{output}: the suffix says {format_of(output)}, the format asked is {format}")
    elif format == "markdown":
        raise ReportPathError("a Markdown report needs an output path: its charts are PNG files beside it")
    sc = scenario if isinstance(scenario, Scenario) else load_scenario(scenario)
    content = build_report(sc, samples=samples, seed=seed, date=date)
    if format == "html":
        from rackcost.reporting.html import render_html

        text = render_html(content)
        if output is not None:
            write_atomically(output, text.encode("utf-8"))
        return text
    from rackcost.reporting.markdown import render_markdown

    assert output is not None
    folder = images_dir_of(output)
    text, files = render_markdown(content, folder.name)
    _write_folder(folder, files)
    write_atomically(output, text.encode("utf-8"))
    return text
