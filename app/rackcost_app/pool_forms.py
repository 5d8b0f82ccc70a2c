"""The Scenario page's form of a disaggregated system's pools (``systems[i].pools``, docs/model.md, Disaggregated
prefill and decode): each pool's operating points as an editable table (its columns from the schema), its own
hardware and costs or rent where it has them (else a note that it uses the system's, and a button to give it its
own), the KV transfer and the pools' own fields.

Every edit goes through the page's one edit path (:mod:`rackcost_app.fields`, :func:`rackcost_app.state.apply_edit`):
the draft is validated, results and "(edited)" follow.
"""

from __future__ import annotations

import copy
from typing import Any

import streamlit as st

from rackcost.scenario import edits, schema
from rackcost.scenario.pool_blocks import DecodePoint, DecodePool, KvTransfer, Pools, PrefillPoint, PrefillPool
from rackcost_app import fields, state

ROLES: dict[str, tuple[str, type[PrefillPool] | type[DecodePool], type[PrefillPoint] | type[DecodePoint]]] = {
    "prefill": ("Prefill pool", PrefillPool, PrefillPoint),
    "decode": ("Decode pool", DecodePool, DecodePoint),
}
"""Each role: its heading, its block and its point's block."""
OWN_BLOCKS: dict[str, tuple[str, type[Any]]] = {
    "hardware": ("hardware and power", schema.Hardware),
    "costs": ("costs (owned)", schema.Costs),
    "rent": ("rent", schema.Rent),
}
"""A pool's blocks that default to the system's: words and schema block."""


def _own_copy(path: str, block: str) -> None:
    """Give the pool at ``path`` its own ``block``, a copy of the system's (the draft's and the baseline's alike, so
    the copied values keep their sources and only later changes read as the user's)."""
    system_path = path.split(".pools.", 1)[0]

    def change(data: dict[str, Any]) -> dict[str, Any]:
        return edits.set_at(data, f"{path}.{block}", copy.deepcopy(edits.get_at(data, f"{system_path}.{block}")))

    state.apply_edit(change)


def _drop_own(path: str, block: str) -> None:
    """The pool at ``path`` uses the system's ``block`` again."""

    def change(data: dict[str, Any]) -> dict[str, Any]:
        out = copy.deepcopy(data)
        pool = edits.get_at(out, path)
        if isinstance(pool, dict):
            pool.pop(block, None)
        return out

    state.apply_edit(change)


def _pool(system_path: str, role: str, system: dict[str, Any]) -> None:
    heading, block, point = ROLES[role]
    path = f"{system_path}.pools.{role}"
    pool = edits.get_at(system, f"pools.{role}")
    st.subheader(f"{heading}: operating points")
    if not isinstance(pool, dict):
        st.caption(f"No {role} pool: give one in the YAML tab (a disaggregated system needs both).")
        fields.block_problems(path)
        return
    columns, texts, wholes = fields.schema_columns(point)
    fields.table(
        f"{path}.points",
        columns,
        text_columns=texts,
        whole_columns=wholes,
        help_text=(
            "Per replica (or per accelerator: throughput per, below). Give prefill time or input throughput on each "
            "row; the prefill time is interpolated linearly in the batch, never extrapolated."
            if role == "prefill"
            else "Give TPOT or interactivity on each row; output throughput defaults to concurrency x 1000 / TPOT "
            "(every slot decoding). Interpolated linearly in the batch, never extrapolated."
        ),
    )
    fields.block(block, path, columns=2, covered=("points", *OWN_BLOCKS, "memory"))
    for name, (words, model) in OWN_BLOCKS.items():
        if name == "rent" and "costs" in pool and "rent" not in pool:
            continue  # a pool is owned or rented: an owned pool's rent is the system's question, not two blocks
        if name == "costs" and "rent" in pool and "costs" not in pool:
            continue
        own = pool.get(name)
        if isinstance(own, dict):
            problems = bool(state.problems_at(f"{path}.{name}", exact=False) + state.problems_at(f"{path}.{name}"))
            with st.expander(f"The {role} pool's own {words}", expanded=problems):
                fields.block(model, f"{path}.{name}", columns=4)
                st.button(
                    f"Use the system's {words} instead",
                    key=f"{state.widget_key(path)}|drop|{name}",
                    on_click=_drop_own,
                    args=(path, name),
                )
        elif isinstance(system.get(name), dict):
            left, right = st.columns([3, 1])
            left.caption(f"The {role} pool uses the system's {words} (below).")
            right.button(
                f"Give it its own {name}",
                key=f"{state.widget_key(path)}|own|{name}",
                on_click=_own_copy,
                args=(path, name),
                help=f"Copies the system's {words} into the {role} pool, to change what differs.",
            )
    if role == "decode":
        st.caption(
            "The decode pool's memory (the KV-cache limit) is the system's memory block unless the pool gives its own "
            "(pools.decode.memory, in the YAML tab)."
            if "memory" not in pool
            else "The decode pool gives its own memory block (pools.decode.memory, in the YAML tab)."
        )


def pools_form(index: int) -> None:
    """The pools of system ``index`` (a disaggregated system): in place of its operating points."""
    system_path = f"systems[{index}]"
    system = st.session_state[state.DRAFT]["systems"][index]
    st.caption(
        "A disaggregated system: a prefill pool and a decode pool, each sized, powered and costed on its own curve, "
        "and the KV cache sent from one to the other (docs/model.md, Disaggregated prefill and decode). The system's "
        "hardware and costs (below) are each pool's unless the pool gives its own."
    )
    for role in ROLES:
        _pool(system_path, role, system)
    st.subheader("KV transfer from prefill to decode")
    fields.block(KvTransfer, f"{system_path}.pools.kv_transfer", columns=3)
    st.subheader("Both pools")
    fields.block(Pools, f"{system_path}.pools", columns=3, covered=("prefill", "decode", "kv_transfer"))
