"""Edits of a scenario as plain data: values at YAML paths and the provenance of changed values.

The dashboard's edits without the dashboard: each function takes the scenario as the plain dict YAML gives
(``yaml.safe_load`` of a scenario file) and returns a new dict, leaving its arguments untouched; none validates
(:func:`rackcost.scenario_from_dict` does that).

- :func:`get_at` and :func:`set_at` read and write one value at a YAML path (``systems[0].hardware.tdp_w``).
- :func:`sync_figures` keeps ``figures:`` true to the values: a number or distribution that differs from the
  scenario as loaded is relabelled as the user's assumption (:func:`edited_figure`), so an exported file never
  credits a source with a number it did not publish.

Putting an imported curve into a scenario is :mod:`rackcost.importers.into_scenario`'s.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from rackcost.scenario.hardware_blocks import FINANCE_TERMS
from rackcost.scenario.yaml_paths import MISSING, format_path, lookup, parse_path

__all__ = [
    "FINANCE_TERM_NAMES",
    "owned_finance_overrides",
    "share_finance_terms",
    "EDITED_SOURCE",
    "MISSING",
    "TEXT_LEAVES",
    "described",
    "edited_figure",
    "edited_paths",
    "figure_for",
    "get_at",
    "leaf_values",
    "set_at",
    "subset_systems",
    "sync_figures",
]


EDITED_SOURCE = "edited in the rackcost dashboard"
"""Start of the ``source`` of every figure the user changed (:func:`edited_figure`; the report counts them)."""

TEXT_LEAVES = frozenset({"name", "description", "source", "notes", "why", "reported_by", "date", "software_stack"})
"""Keys whose values are free text, not figures: changing them writes no ``figures:`` entry."""

# ---- values at YAML paths ------------------------------------------------------------------------------------


def _parts(path: str) -> tuple[str | int, ...]:
    """The parts of a YAML path, or ValueError when ``path`` is not one as :func:`format_path` writes it."""
    parts = parse_path(path)
    if not parts or format_path(parts) != path:
        raise ValueError(
            f"{path!r} is not a YAML path: keys joined by '.', list indices in brackets, "
            "e.g. 'systems[0].hardware.accelerator_idle_w'"
        )
    return parts


def get_at(data: Any, path: str, default: Any = None) -> Any:
    """The value at a YAML path, or ``default`` when the data does not give it.

    Parameters
    ----------
    data
        Plain data (mappings, lists, scalars), e.g. a scenario dict.
    path
        YAML path such as ``systems[0].hardware.accelerator_idle_w``.
    default
        Returned when a key is absent or an index is out of range.

    Returns
    -------
    Any
        The value itself, not a copy.

    Raises
    ------
    ValueError
        ``path`` is not a YAML path (e.g. ``systems[0`` or ``a..b``).
    """
    value = lookup(data, _parts(path))
    return default if value is MISSING else value


def set_at(data: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    """A copy of ``data`` with ``value`` at a YAML path; ``None`` removes the key, so the default applies.

    Missing mappings on the way are created; list items are not (an index must exist).

    Parameters
    ----------
    data
        A mapping, e.g. a scenario dict; not modified.
    path
        YAML path such as ``demand[1].arrival_rps``.
    value
        Plain data to put there (copied), or ``None`` to remove the key.

    Returns
    -------
    dict
        The edited copy.

    Raises
    ------
    ValueError
        ``path`` is not a YAML path.
    IndexError
        An index of ``path`` is beyond its list.
    TypeError
        ``path`` goes through a value that is not a mapping (for a key) or a list (for an index), or ``value``
        is ``None`` at a list index (an item cannot be removed this way).
    """
    parts = _parts(path)
    out = copy.deepcopy(data)
    node: Any = out
    for depth, part in enumerate(parts):
        here = format_path(parts[:depth]) or "the scenario"
        last = depth == len(parts) - 1
        if isinstance(part, int):
            if not isinstance(node, list):
                raise TypeError(f"{path}: {here} is {_kind(node)}, not a list, so it has no item [{part}]")
            if part >= len(node):
                raise IndexError(f"{path}: {here} has {len(node)} item(s), so there is no item [{part}]")
            if last and value is None:
                raise TypeError(f"{path}: None removes a key; a list item cannot be removed with set_at")
        elif not isinstance(node, dict):
            raise TypeError(f"{path}: {here} is {_kind(node)}, not a mapping, so it has no key {part!r}")
        if last:
            if value is None:
                node.pop(part, None)
            else:
                node[part] = copy.deepcopy(value)
        elif isinstance(part, str) and node.get(part) is None:
            if value is None:  # nothing to remove below a missing key: create nothing
                return out
            if isinstance(parts[depth + 1], int):
                raise IndexError(f"{path}: {format_path(parts[: depth + 1])} is not given, so it has no item")
            node[part] = {}
            node = node[part]
        else:
            node = node[part]
    return out


def _kind(value: Any) -> str:
    return "null" if value is None else f"a {type(value).__name__}"


def leaf_values(data: Any, prefix: str = "") -> dict[str, Any]:
    """Every value of a scenario by YAML path, a distribution (a mapping with ``dist``) counting as one value.

    Parameters
    ----------
    data
        A scenario dict (its top-level ``figures`` is left out) or any part of one.
    prefix
        YAML path of ``data``.

    Returns
    -------
    dict
        YAML path -> scalar or distribution, in document order.
    """
    out: dict[str, Any] = {}
    if isinstance(data, dict) and "dist" in data:
        out[prefix] = data
    elif isinstance(data, dict):
        for key, value in data.items():
            if prefix == "" and key == "figures":
                continue
            out |= leaf_values(value, f"{prefix}.{key}" if prefix else str(key))
    elif isinstance(data, list):
        for i, value in enumerate(data):
            out |= leaf_values(value, f"{prefix}[{i}]")
    else:
        out[prefix] = data
    return out


# ---- provenance of edited values -----------------------------------------------------------------------------


def edited_figure(was: Any, source: str | None) -> dict[str, str]:
    """The ``figures:`` entry of a value the user changed.

    Parameters
    ----------
    was
        The value as loaded; :data:`MISSING` or ``None`` when the file did not give it.
    source
        The ``source`` of the value's figure as loaded, if it had one.

    Returns
    -------
    dict
        ``{provenance: assumption, source: "edited in the rackcost dashboard; the file gave ...", why: ...}``.
    """
    if was is MISSING or was is None:
        what = "not given in the file"
    else:
        what = f"the file gave {described(was)}" + (f" ({source})" if source else "")
    return {
        "provenance": "assumption",
        "source": f"{EDITED_SOURCE}; {what}",
        "why": "set by the user of the dashboard",
    }


def described(value: Any) -> str:
    """A value as a figure's source names it: a distribution in words, anything else as Python writes it.

    Examples
    --------
    >>> described({"dist": "triangular", "low": 1.1, "mode": 1.15, "high": 1.3})
    'a triangular distribution (low 1.1, mode 1.15, high 1.3)'
    >>> described(0.081)
    '0.081'
    """
    if isinstance(value, dict) and "dist" in value:
        params = ", ".join(
            f"{k} {v:g}" if isinstance(v, int | float) and not isinstance(v, bool) else f"{k} {v}"
            for k, v in value.items()
            if k != "dist"
        )
        return f"a {value['dist']} distribution ({params})"
    return repr(value)


def sync_figures(draft: dict[str, Any], original: dict[str, Any]) -> dict[str, Any]:
    """The draft with ``figures:`` true to its values: a changed value is labelled as the user's assumption.

    A figure whose value is unchanged keeps its original entry (so setting a value back restores it); one whose
    value is gone loses its entry; a block-level entry (``systems[0].hardware``) stays while the block exists,
    and each value changed under it gets its own entry. Free text (:data:`TEXT_LEAVES`) is not a figure.

    Parameters
    ----------
    draft
        The scenario being edited.
    original
        The scenario as loaded (the baseline that says what changed), with its ``figures:``.

    Returns
    -------
    dict
        A copy of the draft whose ``figures`` is rebuilt (absent when neither has figures).
    """
    orig_figs = given if isinstance(given := original.get("figures"), dict) else {}
    new_leaves, old_leaves = leaf_values(draft), leaf_values(original)
    figures: dict[str, Any] = {}
    for key, fig in orig_figs.items():
        try:
            value = get_at(draft, key, MISSING)
        except ValueError:  # a key written unlike format_path ('systems.0.x') that validation let through: keep it
            figures[key] = fig
            continue
        if value is MISSING:
            continue
        is_block = isinstance(value, list) or (isinstance(value, dict) and "dist" not in value)
        if is_block or value == get_at(original, key, MISSING):
            figures[key] = fig
        else:
            figures[key] = edited_figure(get_at(original, key, MISSING), _figure_source(fig))
    for path, value in new_leaves.items():
        if parse_path(path)[-1] in TEXT_LEAVES or path in figures:
            continue
        if old_leaves.get(path, MISSING) != value:
            figures[path] = edited_figure(old_leaves.get(path, MISSING), _figure_source(orig_figs.get(path)))
    out = dict(draft)
    if figures or "figures" in draft:
        out["figures"] = figures  # where the draft had it, else last
    return copy.deepcopy(out)


def _figure_source(fig: Any) -> str | None:
    return fig.get("source") if isinstance(fig, dict) else None


def figure_for(scenario: dict[str, Any], path: str) -> tuple[str, dict[str, Any]] | None:
    """The ``figures:`` entry covering a path: its own, or its nearest ancestor's.

    Parameters
    ----------
    scenario
        A scenario dict.
    path
        YAML path of a value, e.g. ``systems[0].hardware.accelerator_idle_w``.

    Returns
    -------
    tuple or None
        ``(key, entry)`` (e.g. ``("systems[0].hardware", {...})``), or ``None`` when no entry covers the path.

    Raises
    ------
    ValueError
        ``path`` is not a YAML path.
    """
    figures = scenario.get("figures") or {}
    parts = _parts(path)
    for end in range(len(parts), 0, -1):
        key = format_path(parts[:end])
        if key in figures and isinstance(figures[key], dict):
            return key, figures[key]
    return None


def edited_paths(scenario: dict[str, Any]) -> list[str]:
    """The YAML paths of the figures the user changed (their ``figures:`` source is :data:`EDITED_SOURCE`), in
    the file's order."""
    figures = scenario.get("figures") or {}
    return [
        key
        for key, fig in figures.items()
        if isinstance(fig, dict) and str(fig.get("source", "")).startswith(EDITED_SOURCE)
    ]


def subset_systems(data: dict[str, Any], names: tuple[str, ...]) -> dict[str, Any]:
    """The scenario data with only the named systems (in the base's order); figures and baseline follow them.

    ``data`` is changed in place and returned (pass a copy to keep it); a ``figures:`` key of a system left out is
    dropped, the others are renumbered, and a ``baseline_system`` left out is removed (the first system is then
    the baseline).
    """
    old = [s["name"] for s in data["systems"]]
    keep = [i for i, name in enumerate(old) if name in names]
    renumber = {old_i: new_i for new_i, old_i in enumerate(keep)}
    data["systems"] = [data["systems"][i] for i in keep]
    if data.get("baseline_system") not in names:
        data.pop("baseline_system", None)
    figures = {}
    for key, figure in (data.get("figures") or {}).items():
        match = re.match(r"^systems\[(\d+)\](.*)$", key)
        if match is None:
            figures[key] = figure
        elif int(match.group(1)) in renumber:
            figures[f"systems[{renumber[int(match.group(1))]}]{match.group(2)}"] = figure
    if "figures" in data:
        data["figures"] = figures
    return data


FINANCE_TERM_NAMES = tuple(FINANCE_TERMS)
"""The financial terms a scenario's ``finance`` block gives every owned system."""


def owned_finance_overrides(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Each financial term the owned systems set for themselves: term -> {system name: its value as written}.

    Examples
    --------
    >>> owned_finance_overrides({"systems": [{"name": "A", "costs": {"service_life_years": 5}}, {"name": "B"}]})
    {'service_life_years': {'A': 5}}
    """
    out: dict[str, dict[str, Any]] = {}
    for system in data.get("systems") or []:
        costs = system.get("costs") if isinstance(system, dict) else None
        if not isinstance(costs, dict):
            continue
        for term in FINANCE_TERM_NAMES:
            if costs.get(term) is not None:
                out.setdefault(term, {})[str(system.get("name"))] = costs[term]
    return out


def share_finance_terms(data: dict[str, Any]) -> dict[str, Any]:
    """The scenario with every owned system on the scenario's financial terms: each term the systems set for
    themselves is removed from their ``costs`` and given once under ``finance`` (the scenario's own value where
    it has one, else the first system's), its ``figures:`` source moved with it.

    Examples
    --------
    >>> out = share_finance_terms({"systems": [{"name": "A", "costs": {"service_life_years": 4}},
    ...                                        {"name": "B", "costs": {"service_life_years": 6}}]})
    >>> out["finance"], [s["costs"] for s in out["systems"]]
    ({'service_life_years': 4}, [{}, {}])
    """
    out = copy.deepcopy(data)
    given = out.get("finance")
    finance: dict[str, Any] = given if isinstance(given, dict) else {}
    figures = out.get("figures") if isinstance(out.get("figures"), dict) else None
    for i, system in enumerate(out.get("systems") or []):
        costs = system.get("costs") if isinstance(system, dict) else None
        if not isinstance(costs, dict):
            continue
        for term in FINANCE_TERM_NAMES:
            if costs.get(term) is None:
                continue
            value = costs.pop(term)
            if finance.get(term) is None:
                finance[term] = value
                if figures is not None and f"systems[{i}].costs.{term}" in figures:
                    figures[f"finance.{term}"] = figures[f"systems[{i}].costs.{term}"]
            if figures is not None:
                figures.pop(f"systems[{i}].costs.{term}", None)
    out["finance"] = finance
    return out
