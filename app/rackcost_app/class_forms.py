"""The Workload and SLO tab's request classes (``workload.classes``): an editable table, one row per class, and the
button that splits a workload without classes into one.

A class's token count is a number (its mean, the spread unstated) or a per-request length distribution
``{lengths: fixed | lognormal | gamma | cdf, ...}`` (:mod:`rackcost.scenario.class_blocks`): a row shows each as
its kind, its mean and its coefficient of variation, so every class reads alike whatever its kind (an empirical CDF's
mean and cv are derived from its table, which is edited in the YAML tab). An edit writes only the cells it changed
back into the class it was made on (:func:`classes_after_edit`), so what a row cannot show (a CDF's table, a
source) stays. The table writes through :func:`rackcost_app.fields.table` (``state.set_value``: validation, the
figures, "(edited)" and the URL follow), the split through ``state.apply_edit``.
"""

from __future__ import annotations

import copy
import math
from typing import Any

import streamlit as st
from pydantic import ValidationError

from rackcost.scenario.class_blocks import LENGTH_KINDS, Lengths
from rackcost.scenario.labels import label
from rackcost_app import fields, state

PATH = "workload.classes"
MEAN_ONLY = "mean only"
"""The kind of a token count given as a plain number: the mean, its spread unstated (the model's exponential
service)."""
KINDS = (MEAN_ONLY, *LENGTH_KINDS)
SIDES = {"input": "input_tokens", "output": "output_tokens"}
SLO_FIELDS = ("ttft_limit_ms", "tpot_limit_ms", "e2e_limit_ms", "attainment_fraction")
FIRST_CLASS = "all requests"
"""Name of the one class a workload is split into."""
WORKLOAD_LENGTHS = {
    "input_tokens_per_request": "input_tokens",
    "output_tokens_per_request": "output_tokens",
    "output_tokens_cv_fraction": "output_tokens",
}
"""The workload's own length fields, and the class field each becomes when it is split."""


def _number(value: Any) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    return None


def token_cells(count: Any) -> tuple[str | None, float | None, float | None]:
    """A token count as (kind, mean [tokens], cv [-]): a number is ``mean only`` without a cv; a length distribution
    its kind, mean and cv (a fixed count's cv is 0; a CDF's are derived from its table); a distribution with a
    problem the values it gives."""
    if (number := _number(count)) is not None:
        return MEAN_ONLY, number, None
    if not isinstance(count, dict):
        return None, None, None
    try:
        lengths = Lengths.model_validate(count)
    except ValidationError:  # a distribution with a problem (shown under the table): what it gives
        return count.get("lengths"), _number(count.get("mean", count.get("tokens"))), _number(count.get("cv"))
    mean, variance = lengths.moments()
    return lengths.lengths, mean, math.sqrt(variance) / mean


def class_rows(classes: list[Any]) -> list[dict[str, Any]]:
    """The table's rows of ``workload.classes`` as written (valid or not)."""
    rows = []
    for item in classes:
        c = item if isinstance(item, dict) else {}
        row: dict[str, Any] = {"name": c.get("name"), "share_fraction": c.get("share_fraction")}
        for side, name in SIDES.items():
            row[f"{side}_kind"], row[f"{side}_mean"], row[f"{side}_cv"] = token_cells(c.get(name))
        row["prefix_hit_fraction"] = c.get("prefix_hit_fraction")
        slo = c.get("slo") if isinstance(c.get("slo"), dict) else {}
        for name in SLO_FIELDS:
            row[f"slo_{name}"] = slo.get(name)
        rows.append(row)
    return rows


def token_count(kind: Any, mean: Any, cv: Any, was: Any = None) -> Any:
    """A token count from a row's kind, mean and cv (what a row can say; a CDF keeps the table it had).

    A kind that needs a value the row leaves empty is written without it, so validation names what is missing under
    the table (a ``lognormal`` without its cv; a ``cdf`` without a table, which is written in the YAML tab).
    """
    kind = kind or MEAN_ONLY
    mean, cv = _number(mean), _number(cv)
    if kind == MEAN_ONLY:
        return mean
    out: dict[str, Any] = {"lengths": kind}
    if isinstance(was, dict) and was.get("source"):
        out["source"] = was["source"]
    if kind == "fixed":
        out["tokens"] = mean
    elif kind == "cdf":
        if isinstance(was, dict) and was.get("lengths") == "cdf":
            return was
        out["table"] = None
    else:
        out |= {"mean": mean, "cv": cv}
    return {k: v for k, v in out.items() if v is not None}


def _with_cells(item: dict[str, Any], cells: dict[str, Any], row: dict[str, Any]) -> dict[str, Any]:
    """A class with the cells of its row that changed (``row``: the row's cells before the edit)."""
    out = copy.deepcopy(item)
    for name in ("name", "share_fraction", "prefix_hit_fraction"):
        if name in cells:
            value = cells[name]
            if value is None or value == "" or (isinstance(value, float) and math.isnan(value)):
                out.pop(name, None)
            else:
                out[name] = value
    for side, name in SIDES.items():
        changed = {c: cells[f"{side}_{c}"] for c in ("kind", "mean", "cv") if f"{side}_{c}" in cells}
        if changed:
            given = {c: changed.get(c, row.get(f"{side}_{c}")) for c in ("kind", "mean", "cv")}
            was = out.get(name)
            if given["kind"] == "cdf" and isinstance(was, dict) and was.get("lengths") == "cdf":
                # its mean and cv are its table's: one typed is kept as typed, and validation says under the table
                # that a cdf takes its table alone (edited in the YAML tab)
                out[name] = was | {c: v for c, v in changed.items() if c != "kind" and _number(v) is not None}
                continue
            count = token_count(given["kind"], given["mean"], given["cv"], out.get(name))
            if count is None:
                out.pop(name, None)
            else:
                out[name] = count
    slo = dict(out.get("slo") or {}) if isinstance(out.get("slo"), dict) else {}
    for name in SLO_FIELDS:
        if f"slo_{name}" in cells:
            value = _number(cells[f"slo_{name}"])
            if value is None:
                slo.pop(name, None)
            else:
                slo[name] = value
    if slo:
        out["slo"] = slo
    else:
        out.pop("slo", None)
    return out


def classes_after_edit(base: list[Any], delta: dict[str, Any]) -> list[Any]:
    """``workload.classes`` after a ``st.data_editor`` delta on the table of ``base``: edited cells by position
    (written into their class, which keeps what the row does not show), deleted rows, then added rows."""
    rows = class_rows(base)
    out = [copy.deepcopy(c) for c in base]
    for index, cells in (delta.get("edited_rows") or {}).items():
        i = int(index)
        out[i] = _with_cells(out[i] if isinstance(out[i], dict) else {}, cells, rows[i])
    deleted = {int(i) for i in delta.get("deleted_rows") or []}
    out = [c for i, c in enumerate(out) if i not in deleted]
    for added in delta.get("added_rows") or []:
        out.append(_with_cells({}, {k: v for k, v in added.items() if k != "_index"}, {}))
    return out


def split_into_classes(data: dict[str, Any]) -> dict[str, Any]:
    """The scenario with its workload as one request class of its own lengths (share 1): the same results, a row to
    start the mix from. The output spread becomes a gamma length distribution of that cv (the model reads its mean
    and variance alone, as it reads ``output_tokens_cv_fraction``); the lengths' figures move to the class's fields.
    """
    out = copy.deepcopy(data)
    workload = out.setdefault("workload", {})
    cv = workload.pop("output_tokens_cv_fraction", None)
    output = workload.pop("output_tokens_per_request", None)
    one: dict[str, Any] = {
        "name": FIRST_CLASS,
        "share_fraction": 1,
        "input_tokens": workload.pop("input_tokens_per_request", None),
        "output_tokens": output if cv is None else {"lengths": "gamma", "mean": output, "cv": cv},
    }
    workload["classes"] = [{k: v for k, v in one.items() if v is not None}]
    figures = out.get("figures")
    if isinstance(figures, dict):
        for name, field in WORKLOAD_LENGTHS.items():
            if f"workload.{name}" in figures:
                figure = figures.pop(f"workload.{name}")
                figures.setdefault(f"workload.classes[0].{field}", figure)
    return out


def scaled_shares(data: dict[str, Any]) -> dict[str, Any]:
    """The scenario with its classes' shares scaled to add up to 1 (each over their sum), rounded to 6 decimals."""
    out = copy.deepcopy(data)
    classes = out["workload"]["classes"]
    total = math.fsum(_number(c.get("share_fraction")) or 0.0 for c in classes)
    for c in classes:
        c["share_fraction"] = round((_number(c.get("share_fraction")) or 0.0) / total, 6)
    largest = max(classes, key=lambda c: c["share_fraction"])  # takes the rounding, so that they add up to 1
    largest["share_fraction"] = round(
        largest["share_fraction"] + 1.0 - math.fsum(c["share_fraction"] for c in classes), 6
    )
    return out


def shares_total(classes: list[Any]) -> float | None:
    """The classes' shares added up, None when one is not a number."""
    shares = [_number(c.get("share_fraction")) if isinstance(c, dict) else None for c in classes]
    return None if None in shares else math.fsum(s for s in shares if s is not None)


def mix_means(classes: list[Any]) -> tuple[float | None, float | None]:
    """The mix's mean input and output tokens per request (each class's mean by its share), None where a class
    does not give it."""
    rows = class_rows(classes)
    out = []
    for side in SIDES:
        terms = [(_number(r["share_fraction"]), r[f"{side}_mean"]) for r in rows]
        given = [(s, m) for s, m in terms if s is not None and m is not None]
        out.append(math.fsum(s * m for s, m in given) if len(given) == len(terms) else None)
    return out[0], out[1]


# ---- the form ---------------------------------------------------------------------------------------------------


def _columns() -> dict[str, Any]:
    col = st.column_config
    fmt = fields.INPUT_TABLE_FORMAT
    out: dict[str, Any] = {
        "name": col.TextColumn("name", required=True, pinned=True),
        "share_fraction": col.NumberColumn(
            label("share_fraction"), required=True, min_value=0, max_value=1, format=fmt
        ),
    }
    for side in SIDES:
        out[f"{side}_kind"] = col.SelectboxColumn(
            f"{side} lengths",
            options=list(KINDS),
            help="mean only: a number, the spread unstated; fixed; lognormal or gamma by mean and cv; cdf: an "
            "empirical table (in the YAML tab)",
        )
        out[f"{side}_mean"] = col.NumberColumn(f"{side} mean [tokens]", format=fmt)
        out[f"{side}_cv"] = col.NumberColumn(f"{side} cv [-]", format=fmt)
    out["prefix_hit_fraction"] = col.NumberColumn(label("prefix_hit_fraction"), format=fmt)
    for name in SLO_FIELDS:
        out[f"slo_{name}"] = col.NumberColumn(f"own SLO: {label(name)}", format=fmt)
    return out


def classes_form() -> None:
    """The request classes of the draft's workload as an editable table, or the button that makes one."""
    ss = st.session_state
    classes = state.get_at(ss[state.DRAFT], PATH)
    if not isinstance(classes, list):
        st.caption(
            "One kind of request: every request has the lengths above. Split it into classes (chat, reasoning, "
            "agentic ...) to give each its share of the arrivals, its own lengths and its own SLO."
        )
        st.button(
            "Split the workload into request classes",
            key="split_classes",
            icon=":material/call_split:",
            on_click=state.apply_edit,
            args=(split_into_classes,),
            help="Starts from the workload's own lengths as one class, share 1: the results stay the same. Add a "
            "row per class, then make the shares add up to 1.",
        )
        return
    fields.table(
        PATH,
        _columns(),
        text_columns=("name", "input_kind", "output_kind"),
        help_text="One row per class: its share of the arrivals (the shares add up to 1), the lengths of its input "
        "and output as a kind, a mean and a coefficient of variation (mean only: a number, the spread unstated; "
        "a cdf's mean and cv are its table's, edited in the YAML tab), the share of its input served from the "
        "prefix cache, and its own SLO (empty: the scenario's). Add or delete rows with the table's controls.",
        rows_of=class_rows,
        edit=classes_after_edit,
    )
    total = shares_total(classes)
    if total is not None and total > 0 and not math.isclose(total, 1.0, abs_tol=1e-6):
        st.button(
            f"Scale the shares to add up to 1 (they add up to {total:g})",
            key="scale_shares",
            on_click=state.apply_edit,
            args=(scaled_shares,),
        )


def mix_lengths() -> None:
    """With classes, the workload's lengths are the mix's (derived): shown, not edited."""
    means = mix_means(state.get_at(st.session_state[state.DRAFT], PATH) or [])
    cols = st.columns(3)
    for col, name, mean in zip(cols, ("input_tokens_per_request", "output_tokens_per_request"), means, strict=False):
        col.number_input(
            label(name),
            value=mean,
            format="%.0f",
            disabled=True,
            key=f"{state.widget_key(f'workload.{name}')}|mix|{mean}",  # drawn anew when the mix changes
            placeholder="-",
            help="With request classes: the mix's mean (each class's mean by its share), derived from the table below.",
        )
