"""Form widgets generated from the scenario schema: one widget per field, its unit in the label, its source beside it.

Every widget reads its value from the draft (``st.session_state["draft"]``) and writes back through a callback
that revalidates; a problem at the widget's YAML path is shown right under it.
"""

from __future__ import annotations

import copy
import enum
import math
import types
import typing
from typing import Any

import pandas as pd
import streamlit as st
from pydantic import BaseModel

from rackcost.scenario.distributions import central_of
from rackcost.scenario.labels import label
from rackcost.scenario.schema import is_uncertain_path
from rackcost_app import state
from rackcost_app.safe import md

INPUT_TABLE_FORMAT = "localized"
"""Number format of an editable table's columns (demand points, operating points): thousands separators and at most
three decimals, as the browser's locale writes them (a demand point derived from a profile reads ``66.5``, not
``66.50019731703927``; ``printf``'s ``%g`` without a precision writes every digit, and ``%.4g`` writes ``2.000e+4``
from 10,000). Only the display: a cell being edited shows its value in full, and the value is kept as it is.
"""


def _base_type(annotation: Any) -> tuple[Any, bool]:
    """(type inside Optional/Annotated, whether None is allowed)."""
    optional = False
    while True:
        origin = typing.get_origin(annotation)
        if origin is typing.Annotated:
            annotation = typing.get_args(annotation)[0]
        elif origin in (typing.Union, types.UnionType):
            args = [a for a in typing.get_args(annotation) if a is not type(None)]
            optional = optional or len(args) < len(typing.get_args(annotation))
            annotation = args[0]
        else:
            return annotation, optional


def _step(value: float | None, integer: bool) -> float | int:
    if integer:
        return 1
    if value is None or value == 0 or not math.isfinite(value):
        return 0.1
    return 10.0 ** (math.floor(math.log10(abs(value))) - 1)


def figure_note(path: str) -> tuple[str, str] | None:
    """The provenance class of the figure covering a path, and 'provenance: source (why)' for help texts and
    captions; both Markdown, the figure's texts escaped (:func:`rackcost_app.safe.md`)."""
    found = state.figure_for(path)
    if found is None:
        return None
    key, fig = found
    provenance = md(fig.get("provenance", "?"))
    note = f"{provenance}: {md(fig.get('source', ''))}"
    if fig.get("why"):
        note += f" (why: {md(fig['why'])})"
    if key != path:
        note += f" [entry for {md(key)}]"
    return provenance, note


def _on_change(path: str, key: str, kind: str, optional: bool) -> None:
    value = st.session_state[key]
    if kind == "text":
        value = value if value not in (None, "") else (None if optional else "")
    elif kind == "choice":
        value = None if value == NOT_SET else value
    elif kind == "int" and value is not None and float(value).is_integer():
        value = int(value)
    state.set_value(path, value)


NOT_SET = "(default)"


def field(model: type[BaseModel], name: str, path: str, *, choices: list[str] | None = None) -> None:
    """One widget for one field of a scenario block, with its unit, source, and any problem right under it.

    Parameters
    ----------
    model
        The pydantic block the field belongs to (for its type, default and description).
    name
        The field's name in the YAML file (the alias when it has one).
    path
        YAML path of the field in the scenario, e.g. ``facility.pue``.
    choices
        Allowed values of a text field (e.g. demand point names), shown as a select box.
    """
    info = next(f for n, f in model.model_fields.items() if (f.alias or n) == name)
    base, optional = _base_type(info.annotation)
    optional = optional or not info.is_required()
    current = state.get_at(state.st.session_state[state.DRAFT], path)
    default = None if info.is_required() else info.get_default(call_default_factory=True)
    key = state.widget_key(path)
    help_text = info.description or ""
    found = figure_note(path)
    if found:
        help_text += f"\n\nSource ({found[1]})"
    if not info.is_required() and default is not None:
        help_text += f"\n\nDefault when not set: {default}"
    text = label(name)
    if found:
        text += f" · {found[0]}"
    if isinstance(current, dict) and "dist" in current:
        distribution(text, path, current, help_text, label(name))
        return
    common = {"key": key, "help": help_text or None}
    if isinstance(base, type) and issubclass(base, bool):
        value = bool(current if current is not None else default)
        st.checkbox(text, value=value, on_change=_on_change, args=(path, key, "bool", optional), **common)
    elif (
        choices is not None
        or typing.get_origin(base) is typing.Literal
        or (isinstance(base, type) and issubclass(base, enum.Enum))
    ):
        if choices is None:
            choices = [e.value for e in base] if isinstance(base, type) else [str(a) for a in typing.get_args(base)]
        options = ([NOT_SET] if optional else []) + list(choices)
        shown = current if current is not None else (NOT_SET if optional else default)
        shown = getattr(shown, "value", shown)
        if shown not in options:
            options.append(shown)
        st.selectbox(
            text,
            options,
            index=options.index(shown),
            on_change=_on_change,
            args=(path, key, "choice", optional),
            **common,
        )
    elif isinstance(base, type) and issubclass(base, int | float):
        integer = issubclass(base, int)
        value: Any = current if isinstance(current, int | float) and not isinstance(current, bool) else None
        if value is None and not optional and default is not None:
            value = default
        if value is not None:
            value = int(value) if integer and float(value).is_integer() else float(value)
        integer = integer and (value is None or isinstance(value, int))
        st.number_input(
            text,
            value=value,
            step=_step(value, integer),
            format="%d" if integer else "%g",
            placeholder=f"default: {default}" if default is not None else "not set",
            on_change=_on_change,
            args=(path, key, "int" if integer else "float", optional),
            **common,
        )
        if range_to_restore(path) is not None:
            fixed_switch(path, fixed=True)
    else:
        st.text_input(
            text,
            value="" if current is None else str(current),
            placeholder="not set" if optional else "required",
            on_change=_on_change,
            args=(path, key, "text", optional),
            **common,
        )
    for problem in state.problems_at(path):
        st.error(md(problem.message), icon=":material/error:")


# ---- a distribution or a fixed value ----------------------------------------------------------------------------


def range_to_restore(path: str) -> dict[str, Any] | None:
    """The distribution a field given a fixed value had (this session's, else the scenario's as loaded), if any."""
    if not is_uncertain_path(path):
        return None
    kept = (st.session_state.get(state.RANGE_STASH) or {}).get(state.widget_key(path))
    if isinstance(kept, dict):
        return kept
    loaded = state.get_at(st.session_state[state.ORIGINAL], path)
    return loaded if isinstance(loaded, dict) and "dist" in loaded else None


def _first_number(value: dict[str, Any]) -> float | None:
    """A distribution's central value, or for one with a problem its most central parameter given."""
    central = central_of(value)
    if central is not None:
        return central
    for key in ("mode", "median", "mean", "low", "high"):
        if isinstance(value.get(key), int | float) and not isinstance(value.get(key), bool):
            return float(value[key])
    return None


def _on_fixed(path: str, key: str) -> None:
    ss = st.session_state
    current = state.get_at(ss[state.DRAFT], path)
    if ss[key] and isinstance(current, dict):
        number = _first_number(current)
        if number is not None:
            ss[state.RANGE_STASH] = dict(ss.get(state.RANGE_STASH) or {}) | {state.widget_key(path): current}
            state.set_value(path, number)
    elif not ss[key] and not isinstance(current, dict):
        back = range_to_restore(path)
        if back is not None:
            state.set_value(path, back)


def fixed_switch(path: str, *, fixed: bool) -> None:
    """The *fixed value* switch of a field that is (or was) a distribution: on, one plain number (the central
    value to start with, any value the field allows after); off, the distribution again.

    Its key holds its value (``...|fixed|on``): a switch drawn after the draft changed is a new widget, drawn with
    the draft's state, never one the browser still holds in the other position.
    """
    key = f"{state.widget_key(path)}|fixed|{'on' if fixed else 'off'}"
    st.toggle(
        "fixed value",
        value=fixed,
        key=key,
        on_change=_on_fixed,
        args=(path, key),
        help="On: one plain number instead of the range, starting at its central value; any value the field allows "
        "may then be typed (a range's own ends no longer bound it), and the Uncertainty page leaves it out. Off: the "
        "range comes back (the one it had, or the file's).",
    )


def distribution(text: str, path: str, value: dict[str, Any], help_text: str, short: str) -> None:
    """A field given as a distribution: one number input per parameter; results use its central value. A *fixed
    value* switch above them turns it into one plain number (:func:`fixed_switch`).

    Lists (``choice`` values and weights) are edited in the YAML tab.
    """
    params = [k for k, v in value.items() if k != "dist" and isinstance(v, int | float) and not isinstance(v, bool)]
    st.markdown(f"{text}  \n:violet-badge[{md(value['dist'])} distribution] :gray[(results use its central value)]")
    if _first_number(value) is not None:
        fixed_switch(path, fixed=False)
    # one parameter under the other, each labelled by its name alone: side by side in a form column, each input
    # was a few dozen pixels wide and its label ("electricity price [USD/kWh]: mode") broke in the middle of words
    for param in params:
        key = state.widget_key(f"{path}.{param}")
        st.number_input(
            md(param),
            value=float(value[param]),
            step=_step(float(value[param]), False),
            format="%g",
            key=key,
            help=f"{md(param)} of {short}" + (f"\n\n{help_text}" if help_text else ""),
            on_change=_on_change,
            args=(f"{path}.{param}", key, "float", False),
        )
    for problem in state.problems_at(path) + state.problems_at(path, exact=False):
        where = problem.path.removeprefix(path).lstrip(".") or "distribution"
        st.error(f"{md(where)}: {md(problem.message)}", icon=":material/error:")


def block(
    model: type[BaseModel],
    path: str,
    *,
    skip: tuple[str, ...] = (),
    shown: tuple[str, ...] = (),
    covered: tuple[str, ...] = (),
    columns: int = 2,
    **choices: list[str],
) -> None:
    """Widgets for every scalar field of a block, in ``columns`` columns, then the block's own problems.

    ``shown``: fields skipped here that the page shows with widgets of its own (their problems are theirs).
    ``covered``: nested blocks or lists the page shows with forms of their own, problems under them included.
    """
    names = []
    for n, f in model.model_fields.items():
        name = f.alias or n
        base, _ = _base_type(f.annotation)
        if name in skip or name == "source" or typing.get_origin(base) in (list, dict):
            continue
        if isinstance(base, type) and issubclass(base, BaseModel):
            continue
        names.append(name)
    cols = st.columns(columns)
    for i, name in enumerate(names):
        with cols[i % columns]:
            field(model, name, f"{path}.{name}", choices=choices.get(name))
    source = state.get_at(state.st.session_state[state.DRAFT], f"{path}.source")
    if source:
        st.caption(f"Source of this block: {md(source)}")
    block_problems(path, [*names, *shown], covered=covered)


def block_problems(path: str, shown_fields: list[str] | tuple[str, ...] = (), *, covered: tuple[str, ...] = ()) -> None:
    """Problems under ``path`` that no field widget of the block shows (cross-field rules, nested values), but for
    those at or under the ``covered`` sub-paths (shown by forms of their own)."""
    shown = [f"{path}.{n}" for n in shown_fields]
    inside = tuple(f"{path}.{n}" for n in covered)
    for problem in state.problems_at(path, exact=False) + state.problems_at(path):
        if problem.path in inside or problem.path.startswith(tuple(f"{c}{sep}" for c in inside for sep in ".[")):
            continue
        # a field's own problems, and those under it (a distribution's parameters, a table's rows), are its own
        if not any(problem.path == f or problem.path.startswith((f + ".", f + "[")) for f in shown):
            where = problem.path.removeprefix(path).lstrip(".") or "this block"
            st.error(f"{md(where)}: {md(problem.message)}", icon=":material/error:")


# ---- SLO limits: a number and a slider -------------------------------------------------------------------------

TPOT_STEPS_MS = (1, 1.5, 2, 3, 4, 5, 6, 7, 8, 10, 12, 15, 20, 25, 30, 40, 50, 60, 80, 100, 120, 150, 200, 300, 500)
"""The TPOT limit slider's values [ms]: round values, closer together where limits are tight."""
TTFT_STEPS_MS = (
    50, 100, 150, 200, 300, 400, 500, 750, 1000, 1500, 2000, 3000, 4000, 5000, 7500, 10000, 15000, 20000, 30000, 60000
)  # fmt: skip
"""The TTFT limit slider's values [ms]."""


SLIDER_MOVES = "slider_moves"
"""Session key: YAML path -> how many times its slider moved (a part of the number input's key)."""


def _on_slider(path: str, slider_key: str) -> None:
    ss = st.session_state
    ss[SLIDER_MOVES] = dict(ss.get(SLIDER_MOVES) or {}) | {path: (ss.get(SLIDER_MOVES) or {}).get(path, 0) + 1}
    state.set_value(path, float(ss[slider_key]))


def limit(model: type[BaseModel], name: str, path: str, steps: tuple[float, ...]) -> None:
    """A latency limit as a number input and, under it, a slider over round values (``steps``, plus the value
    itself); either writes the one value. Its problems right under them.

    Each moves the other through new widgets, not through session state: the slider's key holds its value, so it is
    drawn anew at the draft's value whenever that changes; the number input's key (``g<generation>.<moves>|<path>``)
    changes when the slider moves. (A widget keyed as before keeps the value the browser holds, whatever ``value=``
    says; and a widget given its value through session state only is drawn at its default if the browser misses that
    run.)
    """
    ss = st.session_state
    info = next(f for n, f in model.model_fields.items() if (f.alias or n) == name)
    text, help_text = label(name), info.description or ""
    found = figure_note(path)
    if found:
        text += f" · {found[0]}"
        help_text += f"\n\nSource ({found[1]})"
    moves = (ss.get(SLIDER_MOVES) or {}).get(path, 0)
    key = state.widget_key(path)
    if moves:
        key = key.replace("|", f".{moves}|", 1)
    current = state.get_at(ss[state.DRAFT], path)
    number = float(current) if isinstance(current, int | float) and not isinstance(current, bool) else None
    st.number_input(
        text,
        value=number,
        key=key,
        step=_step(number, False),
        format="%g",
        placeholder="required",
        help=help_text or None,
        on_change=_on_change,
        args=(path, key, "float", False),
    )
    if number is not None and math.isfinite(number) and number > 0:
        slider_key = f"{state.widget_key(path)}|slider|{number:g}"
        st.select_slider(
            f"{label(name)} (slider)",
            options=sorted({float(v) for v in steps} | {number}),
            value=number,
            key=slider_key,
            format_func=lambda v: f"{v:,g} ms",
            on_change=_on_slider,
            args=(path, slider_key),
            label_visibility="collapsed",
        )
    for problem in state.problems_at(path):
        st.error(md(problem.message), icon=":material/error:")


# ---- tables (demand points, operating points) ------------------------------------------------------------------


def apply_editor_delta(base: list[dict[str, Any]], delta: dict[str, Any], columns: list[str]) -> list[dict[str, Any]]:
    """Rows after a ``st.data_editor`` edit: ``edited_rows`` by position, ``deleted_rows``, then ``added_rows``.

    Empty cells (None, NaN, '') remove the key, so the library's default applies.
    """
    rows = [dict(r) for r in base]
    for index, changes in (delta.get("edited_rows") or {}).items():
        rows[int(index)].update(changes)
    deleted = {int(i) for i in delta.get("deleted_rows") or []}
    rows = [r for i, r in enumerate(rows) if i not in deleted]
    rows += [dict(r) for r in delta.get("added_rows") or []]
    out = []
    for r in rows:
        clean = {}
        for key, value in r.items():
            if key not in columns and key in ("_index",):
                continue
            if value is None or value == "" or (isinstance(value, float) and math.isnan(value)):
                continue
            if isinstance(value, float) and value.is_integer() and key in ("concurrency",):
                value = float(value)
            clean[key] = value
        out.append(clean)
    return out


def schema_columns(
    model: type[BaseModel], *, skip: tuple[str, ...] = (), **choices: list[str]
) -> tuple[dict[str, Any], tuple[str, ...], tuple[str, ...]]:
    """The columns of an editable table of ``model``'s rows, from the schema: one per scalar field (its label with
    its unit, its description as help, required where the schema requires it); the names of those that hold text or
    yes/no rather than numbers (:func:`table`'s ``text_columns``), and of those that hold whole numbers
    (``whole_columns``).

    A text field with ``choices`` (or a Literal, an Enum, a registered kind) is a select box; a yes/no field a
    check box; a whole-number field takes whole numbers.
    """
    columns: dict[str, Any] = {}
    texts: list[str] = []
    wholes: list[str] = []
    for n, info in model.model_fields.items():
        name = info.alias or n
        base, _ = _base_type(info.annotation)
        if name in skip or name == "source" or typing.get_origin(base) in (list, dict):
            continue
        if isinstance(base, type) and issubclass(base, BaseModel):
            continue
        common: dict[str, Any] = {"help": info.description, "required": info.is_required()}
        options = choices.get(name)
        if options is None and typing.get_origin(base) is typing.Literal:
            options = [str(a) for a in typing.get_args(base)]
        elif options is None and isinstance(base, type) and issubclass(base, enum.Enum):
            options = [e.value for e in base]
        if options is not None:
            # shown as the CLI writes an enumerated word (on demand, not on_demand); the value stays the schema's
            words = {"format_func": lambda v: str(v).replace("_", " ")}
            columns[name] = st.column_config.SelectboxColumn(label(name), options=options, **words, **common)
            texts.append(name)
        elif isinstance(base, type) and issubclass(base, bool):
            columns[name] = st.column_config.CheckboxColumn(label(name), **common)
            texts.append(name)
        elif isinstance(base, type) and issubclass(base, int | float):
            whole = issubclass(base, int)
            wholes += [name] if whole else []
            columns[name] = st.column_config.NumberColumn(
                label(name), format=INPUT_TABLE_FORMAT, step=1 if whole else None, **common
            )
        else:
            columns[name] = st.column_config.TextColumn(label(name), **common)
            texts.append(name)
    return columns, tuple(texts), tuple(wholes)


def _table_base_key(key: str) -> str:
    return f"base|{key}"


def _table_applied_key(key: str) -> str:
    return f"applied|{key}"


Rows = list[dict[str, Any]]
RowsOf = typing.Callable[[Rows], Rows]
"""The rows a table shows of the draft's list (by default its items themselves)."""
EditOf = typing.Callable[[Rows, dict[str, Any]], Rows]
"""The draft's list after an editor's delta (``edited_rows``, ``added_rows``, ``deleted_rows``) on its base items."""


def _on_table_change(
    path: str, key: str, columns: list[str], edit: EditOf | None = None, whole_columns: tuple[str, ...] = ()
) -> None:
    base = st.session_state[_table_base_key(key)]
    delta = st.session_state[key]
    rows = edit(base, delta) if edit is not None else apply_editor_delta(base, delta, columns)
    for row in rows:  # the editor gives every number as a float: a whole-number field keeps an int (3, not 3.0)
        for name in whole_columns:
            if isinstance(row.get(name), float) and row[name].is_integer():
                row[name] = int(row[name])
    st.session_state[_table_applied_key(key)] = copy.deepcopy(delta)
    state.set_value(path, rows)


def _has_edits(delta: Any) -> bool:
    return isinstance(delta, dict) and any(delta.get(k) for k in ("edited_rows", "added_rows", "deleted_rows"))


def table(
    path: str,
    columns: dict[str, Any],
    text_columns: tuple[str, ...] = (),
    help_text: str | None = None,
    *,
    rows_of: RowsOf | None = None,
    edit: EditOf | None = None,
    whole_columns: tuple[str, ...] = (),
) -> None:
    """An editable table of a list of mappings (rows can be added and deleted), its problems under it.

    Parameters
    ----------
    path
        YAML path of the list, e.g. ``demand`` or ``systems[0].performance.points``.
    columns
        Field name -> ``st.column_config`` column (label with unit, format).
    text_columns
        Columns that hold text (or yes/no) rather than numbers.
    help_text
        A caption under the table.
    rows_of, edit
        For a list whose items are not flat rows (request classes: a token count is a number or a length
        distribution): the rows shown of its items, and its items after the editor's delta (default: the items are
        the rows, and the delta is applied with :func:`apply_editor_delta`).
    whole_columns
        Columns of whole numbers (written back as ints).
    """
    key = state.widget_key(path)
    items = state.get_at(state.st.session_state[state.DRAFT], path) or []
    names = list(columns)
    # the editor's state holds edits relative to the data it was first given: keep that data while it lives
    if key not in st.session_state or _table_base_key(key) not in st.session_state:
        st.session_state[_table_base_key(key)] = copy.deepcopy(items) if edit else [dict(r) for r in items]
    base = st.session_state[_table_base_key(key)]
    shown_rows = rows_of(base) if rows_of is not None else base
    frame = pd.DataFrame([{n: r.get(n) for n in names} for r in shown_rows], columns=names)
    for n in names:
        if n not in text_columns:
            frame[n] = pd.to_numeric(frame[n], errors="coerce").astype("float64")
        else:
            frame[n] = frame[n].astype("object")
    st.data_editor(
        frame,
        key=key,
        column_config=columns,
        num_rows="dynamic",
        hide_index=True,
        on_change=_on_table_change,
        args=(path, key, names, edit, whole_columns),
        width="stretch",
    )
    if _has_edits(delta := st.session_state.get(key)) and delta != st.session_state.get(_table_applied_key(key)):
        # an edit state the callback did not see (set through session state, as AppTest does: it cannot drive the
        # editor's cells): applied now, as the callback would have, and drawn anew
        _on_table_change(path, key, names, edit, whole_columns)
        st.rerun()
    if help_text:
        st.caption(help_text)
    for problem in state.problems_at(path) + state.problems_at(path, exact=False):
        where = problem.path.removeprefix(path)
        row = where[1:].split("]")[0] if where.startswith("[") else None
        column = where.split("].", 1)[1] if "]." in where else None
        if row is not None and row.isdigit():
            label_text = f"row {int(row) + 1}"
            if column:  # a nested one (a class's input_tokens.mean) part by part: "input tokens [tokens] · mean"
                label_text += ", " + " · ".join(label(part) for part in column.split("."))
        else:
            label_text = "table"
        st.error(f"{md(label_text)}: {md(problem.message)}", icon=":material/error:")
