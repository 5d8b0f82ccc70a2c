"""``rackcost.report``: a decision report of a scenario, as one HTML file or as Markdown with PNG charts.

The content is :func:`rackcost.reporting.content.build_report`; the formats are :mod:`rackcost.reporting.html` and
:mod:`rackcost.reporting.markdown`. Files are written atomically (a temporary file in the same folder, then renamed),
so a failed or interrupted run never leaves a partial report, and an existing file is replaced only when asked.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from rackcost import files
from rackcost.errors import check_argument, check_count
from rackcost.files import write_atomically, write_folder_atomically
from rackcost.reporting.blocks import EVALUATING, WRITING, Report, ReportProgress
from rackcost.scenario.loading import load_scenario
from rackcost.scenario.schema import Scenario

if TYPE_CHECKING:
    from rackcost.evaluation.chain import Evaluation
    from rackcost.model.fleets.shared import AttributionRule

__all__ = [
    "FORMAT_OF_SUFFIX",
    "ReportPathError",
    "check_output",
    "default_output",
    "format_of",
    "images_dir_of",
    "models_report",
    "report",
]

FORMAT_OF_SUFFIX = {".html": "html", ".htm": "html", ".md": "markdown", ".markdown": "markdown"}
"""The format of a report file from its suffix."""


class ReportPathError(files.OutputPathError):
    """An output path a report cannot be written to: no such folder, not writable, the input, or taken (without
    force)."""


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


def check_output(
    output: str | os.PathLike[str], force: bool = False, inputs: Iterable[str | os.PathLike[str] | None] = ()
) -> Path:
    """Check that a report can be written at ``output`` before any work is done.

    Parameters
    ----------
    output
        The report's file (``.html`` or ``.md``).
    force
        Replace an existing file (and, for Markdown, its charts folder).
    inputs
        The scenario file the report is made of: never replaced.

    Returns
    -------
    Path

    Raises
    ------
    ReportPathError
        The suffix is neither HTML nor Markdown, or :func:`rackcost.files.check_output` refuses the file (or, for
        Markdown, its charts folder): it is the input, a folder, exists without ``force``, or its folder is
        missing or not writable.
    """
    output = Path(output)
    fmt = format_of(output)
    try:
        files.check_output(output, force, inputs)
        if fmt == "markdown":
            charts = images_dir_of(output)
            if charts.exists() and not charts.is_dir():
                raise ReportPathError(f"{charts}: exists and is not the report's charts folder")
            if charts.exists() and not force:
                raise ReportPathError(f"{charts}: exists; use {files.FORCE_WORDS} to replace it")
    except files.OutputPathError as exc:
        raise ReportPathError(str(exc)) from None
    return output


def report(
    scenario: Scenario | Evaluation | str | os.PathLike[str],
    *,
    samples: int | None = None,
    seed: int = 0,
    format: str = "html",
    date: str | None = None,
    output: str | os.PathLike[str] | None = None,
    force: bool = False,
    progress: ReportProgress | None = None,
) -> str:
    """A decision report of a scenario: the question, the answer, the numbers behind it and where each came from.

    Parameters
    ----------
    scenario
        A validated scenario, the path of a scenario file, or a scenario's
        :func:`rackcost.evaluation.chain.evaluation` (the report then words that evaluation, not a new one).
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
    progress
        Called as the work goes: ``progress(stage, done, total)`` with the stages of
        :data:`rackcost.reporting.blocks.STAGES` in order (``"evaluating"``, ``"uncertainty samples"`` with a Monte
        Carlo, ``"charts"`` as each is drawn, ``"writing"`` when there is an ``output``), ``done`` from 0 (begun) to
        ``total`` (finished). ``rackcost report`` shows it on a terminal.

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
    from rackcost.evaluation.chain import Evaluation  # (the chain's imports only when a report is written)

    fn = "rackcost.report"
    kinds = (Scenario, Evaluation, str, os.PathLike)
    check_argument(fn, "scenario", scenario, kinds, "a Scenario, its evaluation or a scenario file's path")
    if samples is not None:
        check_count(fn, "samples", samples, 1)
    check_count(fn, "seed", seed, 0)
    _check_written(fn, date, output, force)
    if progress is not None and not callable(progress):
        check_argument(fn, "progress", progress, type(None), "a function of (stage, done, total), or None")
    output = _checked_output(output, force, format, [scenario])
    say = progress or (lambda stage, done, total: None)
    say(EVALUATING, 0, 1)  # before the charts' imports (Altair, pandas: about a second on a small machine)
    from rackcost.reporting.content import build_report

    sc = scenario if isinstance(scenario, Scenario | Evaluation) else load_scenario(scenario)
    content = build_report(sc, samples=samples, seed=seed, date=date, progress=progress)
    return _rendered(content, format, output, progress)


def models_report(
    document: str | os.PathLike[str],
    *,
    rule: AttributionRule | None = None,
    placement: str | None = None,
    format: str = "html",
    date: str | None = None,
    output: str | os.PathLike[str] | None = None,
    force: bool = False,
    text: str | None = None,
) -> str:
    """The decision report of several models on one fleet (:func:`rackcost.evaluate_models`): the answer in a
    sentence, each model's cost per accepted request, the fleet, the warnings, and the document as given
    (:mod:`rackcost.reporting.models_report`).

    Parameters
    ----------
    document
        A models document's path, or a bundled one's name.
    rule, placement
        As :func:`rackcost.evaluate_models`'s: default the document's.
    format, date, output, force
        As :func:`report`'s.
    text
        The document's YAML text, read instead of a file (an upload: ``document`` is then the name its problems
        and the report give it).

    Returns
    -------
    str
        The HTML or Markdown text.

    Raises
    ------
    rackcost.ScenarioError
        The document is not valid, or a model cannot be served (every problem with its file, YAML path and line).
    ReportPathError
        ``output`` cannot be written (:func:`check_output`), or Markdown without ``output``.

    Examples
    --------
    >>> import rackcost
    >>> html = rackcost.models_report("deepseek-r1-and-gpt-oss-120b-on-gb200", date="2026-01-01")  # doctest: +SKIP
    """
    fn = "rackcost.models_report"
    check_argument(fn, "document", document, (str, os.PathLike), "a models document's path or a bundled name")
    _check_written(fn, date, output, force)
    check_argument(fn, "text", text, (str, type(None)), "a models document's YAML text, or None")
    output = _checked_output(output, force, format, [document] if text is None else [])
    from rackcost.evaluation.models import evaluate_models
    from rackcost.reporting.models_report import models_report_content, remake_command
    from rackcost.scenario.models_doc import models_from_yaml, read_models_text

    name, text = read_models_text(document) if text is None else (str(document), text)
    result = evaluate_models(models_from_yaml(text, name), rule, placement)
    remake = remake_command(rule, placement, Path(output).name if output is not None else "report.html")
    return _rendered(models_report_content(result, text, remake, date), format, output, None)


def _check_written(fn: str, date: object, output: object, force: object) -> None:
    """The arguments every report function takes for how it is dated and written, checked (TypeError naming ``fn``)."""
    check_argument(fn, "date", date, (str, type(None)), "an ISO 8601 date such as '2026-12-01', or None")
    check_argument(fn, "output", output, (str, os.PathLike, type(None)), "a file path or None")
    check_argument(fn, "force", force, bool, "True or False")


def _checked_output(
    output: str | os.PathLike[str] | None, force: bool, format: str, inputs: list[object]
) -> Path | None:
    """``output`` checked before any work (:func:`check_output`), its suffix against ``format``; None without one
    (HTML only: a Markdown report's charts are files)."""
    if format not in ("html", "markdown"):
        raise ValueError(f"format must be 'html' or 'markdown', got {format!r}")
    if output is None:
        if format == "markdown":
            raise ReportPathError("a Markdown report needs an output path: its charts are PNG files beside it")
        return None
    paths = [i for i in inputs if isinstance(i, str | os.PathLike)]
    checked = check_output(output, force, paths)
    if format_of(checked) != format:
        raise ReportPathError(f"{checked}: the suffix says {format_of(checked)}, the format asked is {format}")
    return checked


def _rendered(content: Report, format: str, output: Path | None, progress: ReportProgress | None) -> str:
    """The report rendered as ``format`` and, with an ``output``, written there atomically (a Markdown report's charts
    in :func:`images_dir_of` first)."""
    say = progress or (lambda stage, done, total: None)
    if format == "html":
        from rackcost.reporting.html import render_html

        text = render_html(content, progress)
        if output is not None:
            say(WRITING, 0, 1)
            write_atomically(output, text.encode("utf-8"))
            say(WRITING, 1, 1)
        return text
    from rackcost.reporting.markdown import render_markdown

    assert output is not None
    folder = images_dir_of(output)
    text, files = render_markdown(content, folder.name, progress)
    say(WRITING, 0, 1)
    if files:  # (a report without charts, a models document's, leaves no empty folder beside it)
        write_folder_atomically(folder, files)
    write_atomically(output, text.encode("utf-8"))
    say(WRITING, 1, 1)
    return text
