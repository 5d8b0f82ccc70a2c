"""Benchmark results uploaded on the Scenario page: read them into curves, then put a curve into the scenario.

Plain inputs, so AppTest can drive it through ``st.session_state`` as it drives the scenario upload:

- ``pending_import``: ``[(file name, bytes), ...]`` the uploader's callback leaves (tests put files here);
  :func:`process_pending` moves them to ``import_files``, the files the page reads (an empty list clears them).
- :func:`read_files` reads ``(file name, bytes)`` pairs with the library's importers
  (:func:`rackcost.importers.read_inferencex`, or :func:`rackcost.importers.read_csv_table` for one ``.csv``
  file) into a :class:`Reading`: the curves, what was skipped and why, and why nothing could be read (bad options,
  mixed files). It never raises.
- :func:`replace_points` and :func:`add_system` change the working scenario and validate it with
  :func:`rackcost_app.state.revalidate`, like any edit: an invalid result shows its problems by field and the
  results stay on the last valid scenario.

Provenance: the imported block becomes part of the baseline that edits are judged against (``original``), with
a ``figures:`` entry naming the files and the run date and the importer's provenance class; so the import is not
labelled as the user's edit, and a later edit of an imported point is (``the file gave ...``). Hardware and costs
copied to a new system are labelled ``assumption``, "copied ... to be reviewed".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any

import streamlit as st

from rackcost.importers import ImportedCurve, Skipped, into_scenario, read_csv_table, read_inferencex
from rackcost_app import state

PENDING_IMPORT = "pending_import"
IMPORT_FILES = "import_files"
IMPORT_MESSAGE = "import_message"

PROVENANCE_CLASSES = ("independent", "vendor", "collaborative", "assumption")
DEFAULT_CLASS = "importer's default"
OPTION_DEFAULTS: dict[str, Any] = {
    "import_percentile": "p99",
    "import_isl": None,
    "import_osl": None,
    "import_gpus": None,
    "import_class": DEFAULT_CLASS,
    "import_action": "replace",
}
"""The page's import options, kept in ``st.session_state`` under these keys across pages."""
MAX_IMPORT_MB = 50  # the InferenceX reader's limit per file (the CSV reader's is 20 MB)


@dataclass
class Reading:
    """What the uploaded files gave.

    Attributes
    ----------
    kind
        ``inferencex`` or ``csv`` ('' when nothing was read).
    curves
        The library's curves, in its order.
    skipped
        Files, rows or values not imported, each with the field and the reason.
    notes
        The importer's remarks that are not problems (e.g. CSV columns ignored).
    warnings
        What the importer warns about in what it read (a percentile standing in for the SLO's, say).
    errors
        Why nothing could be read at all (bad options, a mix of files); empty when the importer ran.
    """

    kind: str = ""
    curves: list[ImportedCurve] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def curve_rows(self) -> list[dict[str, Any]]:
        """One summary row per curve (plain values, for a table)."""
        rows = []
        for c in self.curves:
            k = c.key
            conc = c.concurrency_range
            rows.append(
                {
                    "curve": c.label,
                    "hardware": k.hardware or "unstated",
                    "model": k.model or "unstated",
                    "precision": k.precision or "unstated",
                    "framework": k.framework or "unstated",
                    "tp": k.tensor_parallel,
                    "gpus_per_replica": k.gpus_per_replica,
                    "isl_osl": f"{k.input_tokens}/{k.output_tokens}" if k.input_tokens is not None else "unstated",
                    "isl_osl_from": c.isl_osl_source,
                    "points": len(c.points),
                    "concurrency": "not given" if conc is None else f"{conc[0]:g} to {conc[1]:g}",
                    "board_power": "measured" if c.has_power else "no",
                    "date": c.provenance.get("date", ""),
                    "provenance": c.provenance.get("class", ""),
                    "files": ", ".join(PurePath(f).name for f in c.files),
                }
            )
        return rows

    def skipped_rows(self) -> list[dict[str, Any]]:
        """One row per skipped file, row or value: file, row, field and reason."""
        return [
            {
                "file": PurePath(s.file).name,
                "row": "" if s.row is None else str(s.row),
                "field": s.field,
                "reason": s.reason,
            }
            for s in self.skipped
        ]


def read_files(
    files: list[tuple[str, bytes]],
    *,
    percentile: str = "p99",
    isl: int | None = None,
    osl: int | None = None,
    gpus_per_replica: int | None = None,
    provenance_class: str | None = None,
) -> Reading:
    """Read uploaded result files: several InferenceX JSON files, or one CSV table (by the ``.csv`` name).

    Parameters
    ----------
    files
        ``(file name, content)`` pairs.
    percentile
        ``p99`` or ``median``: TTFT and TPOT of InferenceX files are read at it (a CSV gives them as they are).
    isl, osl
        ISL and OSL for rows whose file does not give them [tokens]; both or neither.
    gpus_per_replica
        GPUs of one replica for files that do not give it [GPUs].
    provenance_class
        ``provenance.class`` of every curve; ``None`` for the importer's default (``independent`` for InferenceX,
        ``assumption`` for a CSV table).

    Returns
    -------
    Reading
        Never raises: bad options and unreadable files become messages.
    """
    if not files:
        return Reading()
    csvs = [name for name, _ in files if name.lower().endswith(".csv")]
    if csvs and len(files) > 1:
        return Reading(
            errors=[
                "Upload several InferenceX JSON files, or one CSV table, at a time; got "
                + ", ".join(PurePath(name).name for name, _ in files)
                + "."
            ]
        )
    options: dict[str, Any] = {
        "isl": None if isl is None else int(isl),
        "osl": None if osl is None else int(osl),
        "gpus_per_replica": None if gpus_per_replica is None else int(gpus_per_replica),
    }
    if provenance_class is not None:
        options["provenance_class"] = provenance_class
    kind = "csv" if csvs else "inferencex"
    try:
        if kind == "csv":
            ((name, data),) = files
            result = read_csv_table(name, data, **options)
        else:
            result = read_inferencex(files, percentile=percentile, **options)
    except ValueError as exc:  # bad options (the readers never raise for file content)
        return Reading(errors=[_option_message(str(exc))])
    return Reading(
        kind=kind, curves=result.curves, skipped=result.skipped, notes=result.notes, warnings=list(result.warnings)
    )


def _option_message(text: str) -> str:
    """The library's argument message in the page's words."""
    return "Options: " + text.replace("isl and osl", "ISL and OSL").replace("gpus_per_replica", "GPUs per replica")


def process_pending() -> None:
    """Take the files the uploader left in ``pending_import`` (once); an empty list clears the files."""
    pending = st.session_state.pop(PENDING_IMPORT, None)
    if pending is not None:
        st.session_state[IMPORT_FILES] = [(str(name), bytes(data)) for name, data in pending]
        st.session_state[IMPORT_MESSAGE] = None


def workload_differences(curve: ImportedCurve, workload: dict[str, Any]) -> list[str]:
    """How the curve's conditions differ from the scenario's workload (model, ISL/OSL), as short phrases."""
    out = []
    model = workload.get("model")
    if curve.key.model is not None and model is not None and curve.key.model != model:
        out.append(f"model ({curve.key.model} vs {model})")
    isl, osl = workload.get("input_tokens_per_request"), workload.get("output_tokens_per_request")
    if curve.key.input_tokens is not None and isinstance(isl, int | float) and isinstance(osl, int | float):
        if (curve.key.input_tokens, curve.key.output_tokens) != (isl, osl):
            out.append(f"ISL/OSL ({curve.key.input_tokens}/{curve.key.output_tokens} vs {isl:g}/{osl:g})")
    return out


# ---- putting a curve into the scenario ---------------------------------------------------------------------------


def _apply(change: Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]]) -> None:
    """Apply an edit of :mod:`rackcost.scenario.edits` to the draft and to the provenance baseline alike, then validate.

    ``change(data, draft)`` returns the edited ``data``; ``draft`` is the draft with its figures up to date, the
    one to copy values from. Editing the baseline too keeps the import from reading as the user's edit.
    """
    state.sync_figures()
    draft = st.session_state[state.DRAFT]
    state.apply_edit(lambda data: change(data, draft))


def _say(kind: str, text: str) -> str:
    """Keep the outcome for the page, tied to the scenario's generation (a newly loaded scenario hides it)."""
    st.session_state[IMPORT_MESSAGE] = (kind, text, st.session_state.get(state.GENERATION, 0))
    return text


def message() -> tuple[str, str] | None:
    """``(kind, text)`` of the last import action while it concerns the scenario on screen, else ``None``."""
    kept = st.session_state.get(IMPORT_MESSAGE)
    if not kept or kept[2] != st.session_state.get(state.GENERATION, 0):
        return None
    return kept[0], kept[1]


def _finish(text: str) -> str:
    problems = st.session_state[state.PROBLEMS]
    if problems:
        text += (
            f" The scenario now has {len(problems)} problem(s), listed at the top of the page and under "
            "each field; the results stay on the last valid scenario until they are fixed."
        )
        return _say("warning", text)
    return _say("success", text)


def replace_points(curve: ImportedCurve, index: int) -> str:
    """Replace system ``index``'s performance block and provenance with the curve's; keep its hardware and costs.

    The system's vendor claim (``performance.claim``) is kept: it is the vendor's headline, not an operating point.
    ``hardware.accelerators_per_replica`` becomes the benchmark's GPUs per replica when the curve gives it, since
    the curve's throughput is per replica of that many GPUs.

    Returns
    -------
    str
        What was done (also in ``import_message``).
    """
    ss = st.session_state
    systems = ss[state.DRAFT].get("systems") or []
    if not 0 <= index < len(systems):
        return _say("error", f"No system {index + 1} in the scenario: nothing changed.")
    name = str(systems[index].get("name", f"system {index + 1}"))
    old_gpus = state.get_at(systems[index], "hardware.accelerators_per_replica")
    gpus = into_scenario.curve_gpus_per_replica(curve)
    _apply(lambda data, _draft: into_scenario.replace_points(data, index, curve))
    text = f"Replaced the operating points of {name} with {curve.label} ({len(curve.points)} points)"
    text += "; its provenance is now the curve's"
    if gpus is not None and gpus != old_gpus:
        text += f"; accelerators per replica {old_gpus} -> {gpus} (the benchmark's)"
    return _finish(text + ". Hardware, power and costs are unchanged.")


def add_system(curve: ImportedCurve, name: str, template: int) -> str:
    """Add the curve as a new system; hardware, costs and facility override copied from system ``template``.

    The copied figures are labelled ``assumption`` ("copied ... to be reviewed"); the performance block and the
    provenance are the curve's, and ``hardware.accelerators_per_replica`` the benchmark's when the curve gives it.
    The template's vendor claim is not copied.

    Returns
    -------
    str
        What was done (also in ``import_message``).
    """
    ss = st.session_state
    name = name.strip()
    systems = ss[state.DRAFT].get("systems") or []
    if not 0 <= template < len(systems):
        return _say("error", f"No system {template + 1} to copy hardware and costs from: nothing changed.")
    template_name = str(systems[template].get("name", f"system {template + 1}"))
    gpus = into_scenario.curve_gpus_per_replica(curve)
    # the template's values and figures are the draft's, in the draft and in the baseline alike
    _apply(lambda data, draft: into_scenario.add_system(data, curve, name, template, source=draft))
    text = (
        f"Added the system {name or '(no name)'} with {curve.label} ({len(curve.points)} points). Its hardware, "
        f"power and costs are copied from {template_name} as a starting point: review them in its tab "
        "(they are labelled as assumptions)."
    )
    if gpus is not None:
        text += f" Accelerators per replica: {gpus} (the benchmark's)."
    return _finish(text)
