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
"""

from __future__ import annotations

import copy
import json
from typing import Any

import streamlit as st
import yaml

import rackcost
from rackcost.errors import Problem
from rackcost.loading import DEFAULT_SCENARIO, MAX_SCENARIO_BYTES, SAFE_LOADER, parse_path

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

# leaves whose change is not a figure (free text): no provenance entry is written for them
_TEXT_LEAVES = {"name", "description", "source", "notes", "why", "reported_by", "date", "software_stack"}


def init() -> None:
    """Load the bundled default scenario on the first run of a session."""
    if DRAFT not in st.session_state:
        st.session_state[GENERATION] = 0
        load_bundled(DEFAULT_SCENARIO)


def canonical_json(scenario: rackcost.Scenario) -> str:
    """The validated scenario as JSON text, distributions included: hashable, the argument of every cached call."""
    from rackcost.loading import scenario_to_data

    return json.dumps(scenario_to_data(scenario), sort_keys=True, ensure_ascii=False)


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
        return False
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        _refuse([Problem("", "not a UTF-8 text file; a scenario is a YAML text file", name)], None, name)
        return False
    return load_text(text, name)


def process_pending_upload() -> None:
    """Read the file the uploader left in ``pending_upload``, once."""
    pending = st.session_state.pop(PENDING_UPLOAD, None)
    if pending is not None:
        data, name = pending
        handle_upload(data, name)


def load_text(text: str, name: str) -> bool:
    """Replace the working scenario with YAML text if it is a valid scenario; otherwise keep everything as it was.

    A refused text is kept (``rejected_text``) with its problems, so that nothing the user wrote is lost.
    """
    try:
        scenario = rackcost.scenario_from_yaml(text, name)
    except rackcost.ScenarioError as exc:
        _refuse(exc.problems, text, name)
        return False
    data = yaml.load(text, Loader=SAFE_LOADER)  # noqa: S506 - a safe loader (CSafeLoader or SafeLoader)
    ss = st.session_state
    ss[DRAFT] = data
    ss[ORIGINAL] = copy.deepcopy(data)
    ss[LOADED] = copy.deepcopy(data)
    ss[FILE_NAME] = name
    ss[GENERATION] = ss.get(GENERATION, 0) + 1
    ss[PROBLEMS] = []
    ss[VALID] = copy.deepcopy(data)
    ss[VALID_JSON] = canonical_json(scenario)
    ss[LOAD_PROBLEMS] = []
    ss[REJECTED_TEXT] = None
    ss[NOTICE] = f"Loaded {name}."
    return True


def _refuse(problems: list[Problem], text: str | None, name: str) -> None:
    st.session_state[LOAD_PROBLEMS] = list(problems)
    st.session_state[REJECTED_TEXT] = None if text is None else (name, text)
    st.session_state[NOTICE] = None


def revalidate() -> None:
    """Validate the draft; when it is valid it becomes the scenario the results are computed from."""
    ss = st.session_state
    sync_figures()
    try:
        scenario = rackcost.scenario_from_dict(copy.deepcopy(ss[DRAFT]), ss[FILE_NAME])
    except rackcost.ScenarioError as exc:
        ss[PROBLEMS] = exc.problems
        return
    ss[PROBLEMS] = []
    ss[VALID] = copy.deepcopy(ss[DRAFT])
    ss[VALID_JSON] = canonical_json(scenario)


# ---- values at YAML paths ------------------------------------------------------------------------------------

_MISSING = object()


def get_at(data: Any, path: str, default: Any = None) -> Any:
    """Value at a YAML path (``systems[0].hardware.accelerator_idle_w``), or ``default``."""
    for part in parse_path(path):
        if isinstance(part, int) and isinstance(data, list) and part < len(data):
            data = data[part]
        elif isinstance(part, str) and isinstance(data, dict) and part in data:
            data = data[part]
        else:
            return default
    return data


def set_at(data: dict, path: str, value: Any) -> None:
    """Set the value at a YAML path, creating mappings on the way; ``None`` removes the key (the default applies)."""
    parts = parse_path(path)
    node: Any = data
    for part, nxt in zip(parts[:-1], parts[1:], strict=True):
        child = node[part] if isinstance(part, int) else node.get(part)
        if child is None:
            child = [] if isinstance(nxt, int) else {}
            node[part] = child
        node = child
    last = parts[-1]
    if value is None:
        if isinstance(node, dict):
            node.pop(last, None)
    else:
        node[last] = value


def set_value(path: str, value: Any) -> None:
    """Write one edited value into the draft and revalidate."""
    set_at(st.session_state[DRAFT], path, value)
    revalidate()


# ---- provenance of edited values -----------------------------------------------------------------------------


def _leaves(data: Any, prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    if isinstance(data, dict) and "dist" in data:  # a distribution is one figure
        out[prefix] = data
    elif isinstance(data, dict):
        for key, value in data.items():
            if prefix == "" and key == "figures":
                continue
            out |= _leaves(value, f"{prefix}.{key}" if prefix else str(key))
    elif isinstance(data, list):
        for i, value in enumerate(data):
            out |= _leaves(value, f"{prefix}[{i}]")
    else:
        out[prefix] = data
    return out


def edited_figure(was: Any, source: str | None) -> dict[str, str]:
    """The ``figures:`` entry of a value the user changed in the dashboard."""
    if was is _MISSING or was is None:
        what = "not given in the file"
    else:
        what = f"the file gave {was!r}" + (f" ({source})" if source else "")
    return {
        "provenance": "assumption",
        "source": f"edited in the rackcost dashboard; {what}",
        "why": "set by the user of the dashboard",
    }


def sync_figures() -> None:
    """Keep ``figures:`` true to the draft: an edited value is labelled as the user's, a removed one loses its entry.

    A figure whose value is unchanged keeps its original entry; a block-level entry (``systems[0].hardware``)
    stays while the block exists, and each value the user changed under it gets its own entry.
    """
    ss = st.session_state
    draft, original = ss[DRAFT], ss[ORIGINAL]
    orig_figs = original.get("figures") if isinstance(original.get("figures"), dict) else {}
    new_leaves, old_leaves = _leaves(draft), _leaves(original)
    figures: dict[str, Any] = {}
    for key, fig in orig_figs.items():
        value = get_at(draft, key, _MISSING)
        if value is _MISSING:
            continue
        is_block = isinstance(value, list) or (isinstance(value, dict) and "dist" not in value)
        if is_block or value == get_at(original, key, _MISSING):
            figures[key] = fig
        else:
            figures[key] = edited_figure(get_at(original, key, _MISSING), _figure_source(fig))
    for path, value in new_leaves.items():
        if parse_path(path)[-1] in _TEXT_LEAVES or path in figures:
            continue
        if old_leaves.get(path, _MISSING) != value:
            fig = orig_figs.get(path)
            figures[path] = edited_figure(old_leaves.get(path, _MISSING), _figure_source(fig))
    if figures or "figures" in draft:
        draft["figures"] = figures


def _figure_source(fig: Any) -> str | None:
    return fig.get("source") if isinstance(fig, dict) else None


def figure_for(path: str) -> tuple[str, dict[str, Any]] | None:
    """The ``figures:`` entry covering a path (its own, or its nearest ancestor's), with the key it is under."""
    figures = st.session_state[DRAFT].get("figures") or {}
    parts = parse_path(path)
    from rackcost.loading import format_path

    for end in range(len(parts), 0, -1):
        key = format_path(parts[:end])
        if key in figures and isinstance(figures[key], dict):
            return key, figures[key]
    return None


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
