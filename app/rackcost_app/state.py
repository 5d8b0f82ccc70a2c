"""The working scenario in ``st.session_state``: what the user typed, and the last valid scenario.

Keys (all plain data):

- ``draft``: the scenario as the user is editing it, a plain dict (may be invalid; never thrown away).
- ``problems``: the :class:`rackcost.Problem` list of the draft ([] when it is valid).
- ``valid`` / ``valid_json``: the last draft that validated, and its canonical JSON (the cache key of every
  computation: results always come from it).
- ``original``: the scenario as loaded, with the benchmark curves imported since (:mod:`rackcost_app.imports`):
  the baseline that tells which values the user changed, for provenance.
- ``loaded``: the scenario as loaded (what *Discard my edits* goes back to).
- ``file_name``: where the scenario came from.
- ``generation``: bumped on every load, so that widgets of a new scenario start from its values.
- ``load_problems`` / ``rejected_text``: why the last file or YAML text was refused, and its text (kept so the
  user can fix it in the YAML editor).
- ``pending_upload``: ``(bytes, name)`` of a file waiting to be read; the uploader's callback puts it here and
  :func:`process_pending_upload` reads it (tests put bytes here directly: AppTest cannot drive the uploader).
- ``pending_replace``: a file or bundled scenario waiting for the user to confirm that it may replace their edits
  (:func:`ask_to_replace`, :func:`confirm_replace`, :func:`cancel_replace`).
- ``revision``: bumped on every change of the draft, so that the URL (:mod:`rackcost_app.links`) is written once per
  change.
- ``payment_stash`` / ``range_stash``: what a system had before its payment was switched (system name -> blocks),
  and the distribution a field had before it was given a fixed value (widget key -> distribution), so that switching
  back restores them (:mod:`rackcost_app.system_forms`, :func:`rackcost_app.fields.distribution`); forgotten when
  another scenario is loaded.

The scenario also lives in the URL (:mod:`rackcost_app.links`): :func:`init` restores a session from it.
"""

from __future__ import annotations

import copy
import json
import re
import unicodedata
from collections.abc import Callable
from typing import Any, Literal

import streamlit as st
import yaml

import rackcost
from rackcost.errors import Problem
from rackcost.scenario import edits, horizon_edits
from rackcost.scenario.loading import DEFAULT_SCENARIO, MAX_SCENARIO_BYTES, SAFE_LOADER, scenario_to_data

DRAFT = "draft"
PROBLEMS = "problems"
VALID = "valid"
VALID_JSON = "valid_json"
ORIGINAL = "original"
LOADED = "loaded"
FILE_NAME = "file_name"
GENERATION = "generation"
LOAD_PROBLEMS = "load_problems"
REJECTED_TEXT = "rejected_text"
PENDING_UPLOAD = "pending_upload"
NOTICE = "notice"
PENDING_REPLACE = "pending_replace"
REVISION = "revision"
PAYMENT_STASH = "payment_stash"
RANGE_STASH = "range_stash"
PLAN_ASKED = "plan_asked_for"
"""Session key: the scenario JSON whose buying plan was asked for (the Buying plan page's button) or found (the
Answer page leads with it); a plan, or why there is none, is kept with the scenario's evaluation
(:func:`rackcost_app.layout.shown_decision`), so no page runs a failing plan again on a rerun."""
# the uploader's own limit [MB], as server.maxUploadSize in app/.streamlit/config.toml: the 1 MB the app enforces, so
# that the uploader's "1MB per file" agrees with the label. Streamlit's frontend counts 1 MB as 1,000,000 bytes (2^20
# on Windows), the library's limit: a larger file gets the uploader's own message ("File must be 1.0MB or smaller")
MAX_UPLOAD_MB = 1


def init() -> None:
    """On the first run of a session: load the bundled default scenario, then the one the URL carries, if any.

    A scenario in the URL (:func:`rackcost_app.links.restore`) is read exactly as an uploaded file is; when it is
    refused, the default stays and the refused text waits in the *YAML* tab with its problems.
    """
    if DRAFT not in st.session_state:
        from rackcost_app import links

        st.session_state[GENERATION] = 0
        st.session_state[REVISION] = 0
        load_bundled(DEFAULT_SCENARIO)
        links.restore()


def is_edited() -> bool:
    """Whether the draft differs from the scenario as loaded (the sidebar says "(edited)"; loading asks first)."""
    ss = st.session_state
    return bool(ss.get(DRAFT) != ss.get(LOADED))


def bump_revision() -> None:
    """Mark the draft as changed (the URL is rewritten once per change)."""
    st.session_state[REVISION] = st.session_state.get(REVISION, 0) + 1


def ask_to_replace(kind: Literal["upload", "bundled"], payload: Any, name: str) -> None:
    """Replace the working scenario with a file or a bundled scenario, asking first when the draft has edits.

    A file that would be refused is refused at once (nothing is replaced, nothing to ask).

    Parameters
    ----------
    kind
        ``"upload"`` (``payload`` is the file's bytes) or ``"bundled"`` (``payload`` is the bundled file name).
    payload
        What to load.
    name
        The name the message gives it.
    """
    if kind == "upload":
        text = upload_text(payload, name)
        if text is None:
            return
        if is_edited():
            try:
                rackcost.scenario_from_yaml(text, name)
            except rackcost.ScenarioError as exc:
                _refuse(exc.problems, text, name)
                return
            st.session_state[PENDING_REPLACE] = (kind, text, name)
            return
        load_text(text, name)
    elif is_edited():
        st.session_state[PENDING_REPLACE] = (kind, payload, name)
    else:
        load_bundled(payload)


def _replace(kind: str, payload: Any, name: str) -> None:
    if kind == "upload":
        load_text(payload, name)
    else:
        load_bundled(payload)


def confirm_replace() -> None:
    """The user agreed: load what was waiting, replacing the edits."""
    pending = st.session_state.pop(PENDING_REPLACE, None)
    if pending is not None:
        _replace(*pending)


def cancel_replace() -> None:
    """The user kept their edits: forget what was waiting."""
    st.session_state.pop(PENDING_REPLACE, None)
    st.session_state[NOTICE] = "Kept your edits."


def canonical_json(scenario: rackcost.Scenario) -> str:
    """The validated scenario as JSON text, distributions included: hashable, the argument of every cached call."""
    from rackcost.scenario.loading import scenario_to_data

    return json.dumps(scenario_to_data(scenario), sort_keys=True, ensure_ascii=False)


def evaluable_json(scenario: rackcost.Scenario) -> str:
    """The canonical JSON of a scenario just validated (from the draft or a file) that at least one system can serve.

    A system that cannot meet the SLO (or fit a rack) is not a problem of the input: the scenario is evaluated with
    the others and the pages list it with why (``Result.unserved``). Only when *no* system is left is there nothing
    to show: then :class:`rackcost.ScenarioError`, each system's reason at its YAML path, and the draft's problems
    are those.

    The scenario, and the one of the systems served, are handed to the cached calls
    (:func:`rackcost_app.compute.remember`), so that they do not validate the text again: one validation per edit.
    ``scenario`` is not to be used after (it is given the cached calls' origin and key order).
    """
    from rackcost.evaluation.chain import unpack
    from rackcost_app import compute

    compute.in_json_order(scenario)  # split in the JSON's order, the inputs it unpacks are the evaluation's
    unpacked = unpack(scenario)  # its problems name the file, the YAML path and the line
    valid_json = canonical_json(scenario)
    compute.remember(valid_json, unpacked)
    return valid_json


def load_bundled(name: str) -> bool:
    """Load a bundled scenario by file name; True when it loaded."""
    path = rackcost.bundled_scenario_path(name)
    return load_text(path.read_text(encoding="utf-8"), path.name)


def handle_upload(data: bytes, name: str) -> bool:
    """Read an uploaded file: refuse it with a message (keeping the current scenario) unless it is a valid scenario.

    Parameters
    ----------
    data
        The file's bytes.
    name
        The file's name, used in messages.
    """
    text = upload_text(data, name)
    return text is not None and load_text(text, name)


def upload_text(data: bytes, name: str) -> str | None:
    """The text of an uploaded file, or None after refusing it (over 1 MB, not UTF-8) with its message."""
    if len(data) > MAX_SCENARIO_BYTES:
        _refuse(
            [
                Problem(
                    "",
                    f"file is {len(data):,} bytes; scenarios are limited to 1 MB ({MAX_SCENARIO_BYTES:,} bytes)",
                    name,
                )
            ],
            None,
            name,
        )
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        _refuse([Problem("", "not a UTF-8 text file; a scenario is a YAML text file", name)], None, name)
        return None


def process_pending_upload() -> None:
    """Read the file the uploader left in ``pending_upload``, once."""
    pending = st.session_state.pop(PENDING_UPLOAD, None)
    if pending is not None:
        data, name = pending
        ask_to_replace("upload", data, name)


def load_text(text: str, name: str, *, edit: bool = False) -> bool:
    """Replace the working scenario with YAML text if it is a valid scenario; otherwise keep everything as it was.

    A refused text is kept (``rejected_text``) with its problems, so that nothing the user wrote is lost.

    Parameters
    ----------
    text
        The YAML text.
    name
        Where it comes from (a file name), for messages and exports.
    edit
        The text is an edit of the scenario (the *YAML* tab's *Apply*): the scenario as loaded stays what
        *Discard my edits* goes back to, and what "(edited)" and the URL compare with.
    """
    try:
        scenario = rackcost.scenario_from_yaml(text, name)
        valid_json = evaluable_json(scenario)
    except rackcost.ScenarioError as exc:
        _refuse(exc.problems, text, name)
        return False
    data = yaml.load(text, Loader=SAFE_LOADER)  # noqa: S506 - a safe loader (CSafeLoader or SafeLoader)
    if isinstance(data.get("demand"), dict):  # a profile: edited as its three points, the profile kept beside them
        data = scenario_to_data(scenario)
    ss = st.session_state
    ss[DRAFT] = data
    ss[ORIGINAL] = copy.deepcopy(data)
    if not edit or LOADED not in ss:
        ss[LOADED] = copy.deepcopy(data)
    ss[FILE_NAME] = name
    ss[GENERATION] = ss.get(GENERATION, 0) + 1
    ss[PROBLEMS] = []
    ss[VALID] = copy.deepcopy(data)
    ss[VALID_JSON] = valid_json
    ss[LOAD_PROBLEMS] = []
    ss[REJECTED_TEXT] = None
    ss[NOTICE] = "Applied your YAML." if edit else f"Loaded {name}."
    ss.pop(PAYMENT_STASH, None)
    ss.pop(RANGE_STASH, None)
    ss.pop(PENDING_REPLACE, None)
    bump_revision()
    return True


def _refuse(problems: list[Problem], text: str | None, name: str) -> None:
    st.session_state[LOAD_PROBLEMS] = list(problems)
    st.session_state[REJECTED_TEXT] = None if text is None else (name, text)
    st.session_state[NOTICE] = None


def revalidate() -> None:
    """Validate the draft; when it is valid it becomes the scenario the results are computed from.

    A draft with a demand profile has its ``demand`` points derived from it first, as the loader derives them
    (:func:`rackcost.scenario.horizon_edits.points_follow_profile`): an edit of the profile moves the points."""
    ss = st.session_state
    ss[DRAFT] = horizon_edits.points_follow_profile(ss[DRAFT])  # a profile's named points follow its every edit
    sync_figures()
    bump_revision()
    try:
        valid_json = evaluable_json(rackcost.scenario_from_dict(copy.deepcopy(ss[DRAFT]), ss[FILE_NAME]))
    except rackcost.ScenarioError as exc:
        ss[PROBLEMS] = exc.problems
        return
    ss[PROBLEMS] = []
    ss[VALID] = copy.deepcopy(ss[DRAFT])
    ss[VALID_JSON] = valid_json


def export_stem(name: str | None) -> str:
    """File name stem for downloads of a scenario called ``name``: ``"Jalapeño vs GB300"`` -> ``"jalapeno-vs-gb300"``.

    Accents are transliterated (Unicode NFKD, combining marks dropped), so the name stays ASCII where the script is
    Latin; other letters and digits (``"推理"``) are kept as they are; every other run of characters becomes one
    ``-`` (``.``, ``_`` and ``-`` stay). Lower case; ``"scenario"`` when nothing is left.
    """
    decomposed = unicodedata.normalize("NFKD", str(name or ""))
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    stem = re.sub(r"[^\w.-]+", "-", unicodedata.normalize("NFC", plain))
    stem = re.sub(r"-{2,}", "-", stem).strip("-.").lower()
    return stem or "scenario"


# ---- the draft, edited with the library's pure edits (rackcost.scenario.edits)
# ----------------------------------------

get_at = edits.get_at  # the pages and fields read values of the draft through this module


def set_value(path: str, value: Any) -> None:
    """Write one edited value into the draft and revalidate."""
    st.session_state[DRAFT] = edits.set_at(st.session_state[DRAFT], path, value)
    revalidate()


def apply_edit(
    change: Callable[[dict[str, Any]], dict[str, Any]],
    baseline_change: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
) -> None:
    """An edit of the scenario's structure (a system added, removed, paid another way, a curve imported): the draft
    and the provenance baseline (``original``) changed alike, new widgets, then validation.

    ``change`` edits the draft (with its figures up to date); ``baseline_change`` edits ``original`` (default: the
    same change), so that values the edit puts in with their own figures do not read as the user's edits. When the
    baseline does not have what the change needs (a system the draft has and it lacks), it stays as it is. Widget
    keys change (``generation``), so every widget starts from the new values: a widget keyed by a path keeps its
    state otherwise, and a path may now hold another system's value.
    """
    ss = st.session_state
    sync_figures()
    ss[DRAFT] = change(ss[DRAFT])
    try:
        baseline = (baseline_change or change)(ss[ORIGINAL])
    except (IndexError, KeyError, TypeError):  # the baseline lacks the system: it keeps labelling what it has
        baseline = ss[ORIGINAL]
    ss[ORIGINAL] = baseline
    ss[GENERATION] = ss.get(GENERATION, 0) + 1
    revalidate()


def sync_figures() -> None:
    """Keep the draft's ``figures:`` true to its values (:func:`rackcost.scenario.edits.sync_figures` against
    ``original``)."""
    ss = st.session_state
    ss[DRAFT] = edits.sync_figures(ss[DRAFT], ss[ORIGINAL])


def figure_for(path: str) -> tuple[str, dict[str, Any]] | None:
    """The draft's ``figures:`` entry covering a path, with its key (:func:`rackcost.scenario.edits.figure_for`)."""
    return edits.figure_for(st.session_state[DRAFT], path)


def problems_at(path: str, *, exact: bool = True) -> list[Problem]:
    """Problems of the draft at a path (``exact``) or anywhere under it."""
    out = []
    for p in st.session_state.get(PROBLEMS, []):
        if p.path == path or (not exact and (p.path.startswith(path + ".") or p.path.startswith(path + "["))):
            out.append(p)
    return out


def widget_key(path: str) -> str:
    """Key of the widget editing ``path``; new for every loaded scenario, so widgets start from its values."""
    return f"g{st.session_state[GENERATION]}|{path}"


def draft_yaml() -> str:
    """YAML text of the draft as typed (valid or not)."""
    return yaml.safe_dump(st.session_state[DRAFT], sort_keys=False, allow_unicode=True, width=120)
