"""The scenario in the URL: a reload, a new tab or a shared link opens the scenario as it was edited.

Three forms of query parameter, the shortest that holds the draft:

- ``?scenario=<file name>``: a bundled scenario, unedited.
- ``?s=<text>&file=<name>``: the draft as YAML, compressed (zlib) and base64url-encoded, when that is at most
  :data:`MAX_URL_CHARS` characters (8,000: the request-line limit of many proxies and servers is 8 KB; browsers take
  far more, but a link must survive being pasted through them). Needs nothing on the server: the link works on any
  rackcost dashboard.
- ``?id=<16 hex digits>&file=<name>``: a longer draft (the bundled scenarios, edited, compress to 7-12K characters)
  is written to a folder of the server's temporary directory (:data:`STORE_DIR`), named by the SHA-256 of its text;
  the folder keeps the :data:`STORE_MAX_FILES` most recently used copies and at most :data:`STORE_MAX_BYTES` in all
  (the oldest are deleted), so a link lasts as long as its scenario is among those, on that server.

Whatever the URL holds is read as an uploaded file is (:func:`rackcost_app.state.handle_upload`: the 1 MB limit, UTF-8,
YAML, validation, one message per problem, never a traceback); a compressed text that would inflate beyond 1 MB is
refused before it is inflated further. A draft with problems is written to the URL as well: opened again, it is
refused as such a file would be, and its text waits in the *YAML* tab, with its problems, to be fixed. The URL is
left as it is until the draft changes, so a reload does not lose that text either.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import copy
import hashlib
import os
import re
import tempfile
import zlib
from pathlib import Path
from typing import Any

import streamlit as st
import yaml

import rackcost
from rackcost.errors import Problem
from rackcost.scenario import system_edits
from rackcost.scenario.loading import MAX_SCENARIO_BYTES, SAFE_LOADER
from rackcost_app import state

__all__ = [
    "FILE_PARAM",
    "ID_PARAM",
    "MAX_URL_CHARS",
    "SCENARIO_PARAM",
    "STORE_DIR",
    "TEXT_PARAM",
    "decode_text",
    "encode_text",
    "params_for_draft",
    "restore",
    "sync",
]

SCENARIO_PARAM = "scenario"
TEXT_PARAM = "s"
ID_PARAM = "id"
FILE_PARAM = "file"
MAX_URL_CHARS = 8_000
"""Longest compressed draft put into the URL itself [characters]; longer ones are kept on the server."""
MAX_FILE_NAME_CHARS = 200
"""Longest file name kept from a URL (it is only shown, in messages)."""
STORE_DIR = Path(tempfile.gettempdir()) / "rackcost-dashboard-links"
STORE_MAX_FILES = 500
STORE_MAX_BYTES = 50_000_000
_ID = re.compile(r"[0-9a-f]{16}")
LINK = "the link"
URL_SYNC = "url_sync"
"""Session key: ``(revision, params)`` of the URL last computed for the draft."""
URL_HOLD = "url_hold"
"""Session key: ``(revision, params)`` of a URL whose scenario was refused, kept until the draft changes."""


def encode_text(text: str) -> str:
    """YAML text as a URL parameter: zlib at level 9, then base64url without padding.

    Examples
    --------
    >>> decode_text(encode_text("name: x\\n"))
    b'name: x\\n'
    """
    return base64.urlsafe_b64encode(zlib.compress(text.encode("utf-8"), 9)).decode("ascii").rstrip("=")


class LinkError(ValueError):
    """A URL parameter that is not a scenario this dashboard wrote."""


def decode_text(value: str) -> bytes:
    """The bytes a ``s=`` parameter holds; at most ``MAX_SCENARIO_BYTES + 1`` of them (more is refused later as a file
    over 1 MB is).

    Raises
    ------
    LinkError
        Not base64url, or not zlib data.
    """
    if not re.fullmatch(r"[A-Za-z0-9_-]*", value):
        raise LinkError("the link's scenario text is not base64url (letters, digits, - and _)")
    try:
        packed = base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
    except (binascii.Error, ValueError) as exc:
        raise LinkError("the link's scenario text is not base64url") from exc
    inflate = zlib.decompressobj()
    try:
        data = inflate.decompress(packed, MAX_SCENARIO_BYTES + 1)
    except zlib.error as exc:
        raise LinkError("the link's scenario text is not zlib-compressed YAML") from exc
    if len(data) <= MAX_SCENARIO_BYTES and not inflate.eof:
        raise LinkError("the link's scenario text is cut short (not a whole zlib stream)")
    return data


def _file_name(params: dict[str, str]) -> str:
    name = " ".join(str(params.get(FILE_PARAM) or "").split())[:MAX_FILE_NAME_CHARS]
    return name or LINK


def _refuse(message: str, name: str) -> None:
    st.session_state[state.LOAD_PROBLEMS] = [Problem("", message, name)]
    st.session_state[state.REJECTED_TEXT] = None
    st.session_state[state.NOTICE] = None


def restore() -> None:
    """Load the scenario the URL carries (first run of a session), as an uploaded file would be loaded."""
    params = {k: st.query_params.get(k) or "" for k in (SCENARIO_PARAM, TEXT_PARAM, ID_PARAM, FILE_PARAM)}
    ss = st.session_state
    loaded = False
    if params[TEXT_PARAM] or params[ID_PARAM]:
        name = _file_name(params)
        data = None
        if params[TEXT_PARAM]:
            try:
                data = decode_text(params[TEXT_PARAM])
            except LinkError as exc:
                _refuse(str(exc), name)
        else:
            data = _read_stored(params[ID_PARAM], name)
        if data is not None:
            loaded = state.handle_upload(data, name)
        if loaded:
            _set_baseline(name)
    elif params[SCENARIO_PARAM]:
        name = params[SCENARIO_PARAM]
        bundled = [p.name for p in rackcost.bundled_scenarios()]
        if name in bundled:
            loaded = state.load_bundled(name)
        else:
            _refuse(
                f"no bundled scenario is called {name[:MAX_FILE_NAME_CHARS]!r}; the bundled ones are "
                + ", ".join(bundled),
                LINK,
            )
    else:
        return
    if loaded:
        ss[state.NOTICE] = f"Opened {ss[state.FILE_NAME]} from the link."
    else:  # keep the URL (and its text) until the draft changes
        ss[URL_HOLD] = (ss[state.REVISION], dict(st.query_params.to_dict()))


def _set_baseline(name: str) -> None:
    """After restoring an edited bundled scenario, compare the edits with the bundled file (provenance, "(edited)").

    "(edited)" and *Discard my edits* compare with the bundled file itself. The provenance baseline is the bundled
    file too, system by system where the restored draft has the same system (a system of that name with the same
    blocks); a system added, paid another way or renamed is its own baseline, with the figures the draft gave it
    (a system copied, a starting value chosen for a switch), so that the reload does not relabel them as edits.
    """
    ss = st.session_state
    if name in {p.name for p in rackcost.bundled_scenarios()}:
        text = rackcost.bundled_scenario_path(name).read_text(encoding="utf-8")
        bundled = yaml.load(text, Loader=SAFE_LOADER)  # noqa: S506 - a safe loader
        ss[state.ORIGINAL] = baseline(bundled, ss[state.DRAFT])
        ss[state.LOADED] = copy.deepcopy(bundled)


def _shape(system: Any) -> tuple[Any, ...]:
    """A system's name and the blocks it gives."""
    if not isinstance(system, dict):
        return ()
    return system.get("name"), sorted(k for k, v in system.items() if v is not None)


def baseline(bundled: dict[str, Any], draft: dict[str, Any]) -> dict[str, Any]:
    """The provenance baseline of a draft restored from a link to a bundled file: the file, with each of the draft's
    systems taken from the file where it has the same system (name and blocks), else from the draft, figures and all.
    """
    out = copy.deepcopy(bundled)
    mine = draft.get("systems") if isinstance(draft.get("systems"), list) else []
    theirs = bundled.get("systems") if isinstance(bundled.get("systems"), list) else []
    if [_shape(s) for s in mine] == [_shape(s) for s in theirs]:
        return out
    by_name = {s.get("name"): k for k, s in enumerate(theirs) if isinstance(s, dict)}
    out["systems"] = []
    figures = out.get("figures") if isinstance(out.get("figures"), dict) else {}
    out["figures"] = {k: v for k, v in figures.items() if not str(k).startswith("systems[")}
    for j, system in enumerate(mine):
        k = by_name.get(system.get("name")) if isinstance(system, dict) else None
        if k is not None and _shape(theirs[k]) == _shape(system):
            out = system_edits.copy_system(out, k, str(system["name"]), source=bundled)
        else:
            out = system_edits.copy_system(out, j, str(system.get("name")), source=draft)
    return out


def _read_stored(link_id: str, name: str) -> bytes | None:
    if not _ID.fullmatch(link_id):
        _refuse("the link's id is not one this dashboard writes (16 hexadecimal digits)", name)
        return None
    path = STORE_DIR / f"{link_id}.yaml"
    try:
        if not path.is_file():
            raise FileNotFoundError(path)
        size = path.stat().st_size
        if size > MAX_SCENARIO_BYTES:
            return b"\0" * (MAX_SCENARIO_BYTES + 1)  # refused by handle_upload's size check, with its message
        data = path.read_bytes()
        os.utime(path)  # in use: the last to be deleted
    except OSError:
        _refuse(
            "the link's scenario is no longer kept on this server (it keeps the "
            f"{STORE_MAX_FILES} most recently used); open the scenario file instead",
            name,
        )
        return None
    return data


def _store(text: str) -> str:
    """Keep a draft's text on the server; its id. Evicts the least recently used copies beyond the bounds."""
    data = text.encode("utf-8")
    link_id = hashlib.sha256(data).hexdigest()[:16]
    STORE_DIR.mkdir(mode=0o700, parents=True, exist_ok=True)
    path = STORE_DIR / f"{link_id}.yaml"
    if not path.is_file():
        partial = path.with_suffix(f".{os.getpid()}.part")
        partial.write_bytes(data)
        partial.replace(path)
    else:
        os.utime(path)
    _evict()
    return link_id


def _evict() -> None:
    entries = []
    for entry in os.scandir(STORE_DIR):
        if entry.name.endswith(".yaml") and entry.is_file():
            stat = entry.stat()
            entries.append((stat.st_mtime, stat.st_size, entry.path))
    entries.sort(reverse=True)
    total = 0
    for i, (_mtime, size, path) in enumerate(entries):
        total += size
        if i >= STORE_MAX_FILES or total > STORE_MAX_BYTES:
            # another session may have removed it first: the store is bounded either way
            with contextlib.suppress(OSError):
                os.remove(path)


def params_for_draft() -> dict[str, str]:
    """The query parameters that hold the draft (see the module's docstring for the three forms)."""
    ss = st.session_state
    name = ss[state.FILE_NAME]
    if not state.is_edited() and name in {p.name for p in rackcost.bundled_scenarios()}:
        return {SCENARIO_PARAM: name}
    text = state.draft_yaml()
    packed = encode_text(text)
    file_name = str(name)[:MAX_FILE_NAME_CHARS]
    if len(packed) <= MAX_URL_CHARS:
        return {TEXT_PARAM: packed, FILE_PARAM: file_name}
    return {ID_PARAM: _store(text), FILE_PARAM: file_name}


def sync() -> None:
    """Make the URL hold the draft (once per change of the draft; again after a page switch drops the parameters)."""
    ss = st.session_state
    revision = ss.get(state.REVISION, 0)
    hold = ss.get(URL_HOLD)
    if hold is not None and hold[0] == revision:
        wanted = hold[1]
    else:
        ss.pop(URL_HOLD, None)
        cached = ss.get(URL_SYNC)
        if cached is None or cached[0] != revision:
            try:
                cached = (revision, params_for_draft())
            except OSError:  # the server's temporary folder is full or read-only: no link, the session goes on
                cached = (revision, {})
            ss[URL_SYNC] = cached
        wanted = cached[1]
    if st.query_params.to_dict() != wanted:
        st.query_params.from_dict(wanted)
