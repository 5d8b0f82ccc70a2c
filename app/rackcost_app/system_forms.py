"""The Scenario page's forms for a system as a whole: how it is paid for (owned, rented or an API), and adding,
duplicating and removing systems.

The edits are the library's (:mod:`rackcost.scenario.system_edits`: plain dict in, plain dict out); this module
keeps what they need in ``st.session_state`` and applies them with :func:`rackcost_app.state.apply_edit`, like any
structural edit: the draft and the provenance baseline change alike, widgets start afresh, the draft is validated,
"(edited)" and the URL follow.

Session keys (plain data):

- ``payment_stash`` (:data:`rackcost_app.state.PAYMENT_STASH`): system name -> the blocks it had before a switch
  (``costs``, ``rent``, ``api``, ``performance``, ``hardware``, ``facility``, ``provenance:hardware``,
  ``provenance:api``), so that switching back restores what the user had.
- ``payment_pending``: a switch (or a rented copy) that needs values the scenario cannot give: ``{"generation",
  "index", "payment", "add", "fields", "reason"}``; the page shows the reason and an input per missing value.
- ``remove_pending``: ``(generation, index)`` of a system waiting for the user to confirm its removal.
- ``system_message``: ``(kind, text, generation)`` of the last action, shown while the scenario's widgets are those
  it made.
"""

from __future__ import annotations

import copy
from typing import Any

import streamlit as st

from rackcost.scenario import edits, system_edits
from rackcost.scenario.labels import label
from rackcost.scenario.memory_blocks import Memory
from rackcost.scenario.system_edits import PAYMENT_BLOCK, Missing, Payment
from rackcost_app import compute, fields, state
from rackcost_app.safe import md

PENDING = "payment_pending"
NONCE = "payment_switch_nonce"  # bumped when a click leaves the switch as it was, so that it is drawn anew
REMOVE = "remove_pending"
MESSAGE = "system_message"
TAB_KEY = "scenario_tab"
TAB_LABELS = "scenario_tab_labels"
FIRST_SYSTEM_TAB = 3  # Workload and SLO, Demand, Facility and fleet, then one tab per system, then YAML

PAYMENT_WORDS: dict[str, str] = {"own": "Owned", "rent": "Rented", "api": "API"}
SWITCHED_TO: dict[str, str] = {"own": "owned", "rent": "rented", "api": "an API"}
SERVICE_LIFE_YEARS = 5.0  # the form's first value: hyperscalers use 4-6 years (docs/sources.md §3)


def tab_labels(system_names: list[str]) -> list[str]:
    """Tab labels, one per system; unique (a tab is selected by its label), so two systems of one name get a number."""
    counts: dict[str, int] = {}
    systems_tabs = []
    for n in system_names:
        counts[n] = counts.get(n, 0) + 1
        systems_tabs.append(f"System: {md(n)}" + (f" ({counts[n]})" if counts[n] > 1 else ""))
    return ["Workload and SLO", "Demand", "Facility and fleet", *systems_tabs, "YAML"]


def _names() -> list[str]:
    systems = st.session_state[state.DRAFT].get("systems") or []
    return [str(s.get("name", f"system {i + 1}")) if isinstance(s, dict) else "" for i, s in enumerate(systems)]


def _say(kind: str, text: str) -> None:
    """Keep the outcome for the page, tied to the widgets the action made (a later structural edit hides it)."""
    st.session_state[MESSAGE] = (kind, text, st.session_state.get(state.GENERATION, 0))


def _finish(text: str) -> None:
    problems = st.session_state[state.PROBLEMS]
    if problems:
        _say(
            "warning",
            text + f" The scenario now has {len(problems)} problem(s), listed at the top of the page; the results stay "
            "on the last valid scenario until they are fixed.",
        )
    else:
        _say("success", text)


def _open_system_tab(index: int) -> None:
    """Open system ``index``'s tab on the next run (its label as the page will draw it)."""
    labels = tab_labels(_names())
    st.session_state[TAB_KEY] = labels[FIRST_SYSTEM_TAB + index]


def _owned_prices() -> dict[str, float]:
    """What owning each owned system costs per accelerator-hour in the last valid results (the parity price)."""
    rows = compute.evaluate(st.session_state[state.VALID_JSON]).records["systems"]
    return system_edits.owned_usd_per_accelerator_hour(rows)


def _stash_for(name: str) -> dict[str, Any]:
    return dict((st.session_state.get(state.PAYMENT_STASH) or {}).get(name) or {})


def _remember(index: int, system: dict[str, Any], payment: Payment) -> None:
    """Stash the blocks a switch to ``payment`` removes from the system, by its name; and the baseline's provenance
    (``baseline:provenance:...``), which crossing between hardware and an API replaces, for the way back."""
    current = system_edits.payment_of(system)
    if payment == "api":
        gone = (*system_edits.HARDWARE_BLOCKS, PAYMENT_BLOCK[current])
        provenance = "provenance:hardware"
    elif current == "api":
        gone, provenance = ("api",), "provenance:api"
    else:
        gone, provenance = (PAYMENT_BLOCK[current],), ""
    kept = {b: copy.deepcopy(system[b]) for b in gone if isinstance(system.get(b), dict)}
    if provenance and isinstance(system.get("provenance"), dict):
        kept[provenance] = copy.deepcopy(system["provenance"])
        baseline = state.get_at(st.session_state[state.ORIGINAL], f"systems[{index}].provenance")
        if isinstance(baseline, dict):
            kept[f"baseline:{provenance}"] = copy.deepcopy(baseline)
    stash = dict(st.session_state.get(state.PAYMENT_STASH) or {})
    stash[str(system.get("name"))] = _stash_for(str(system.get("name"))) | kept
    st.session_state[state.PAYMENT_STASH] = stash


def _pend(index: int, payment: Payment, missing: Missing, *, add: bool) -> None:
    st.session_state[PENDING] = {
        "generation": st.session_state.get(state.GENERATION, 0),
        "index": index,
        "payment": payment,
        "add": add,
        "fields": list(missing.fields),
        "reason": missing.reason,
    }


def _pending(index: int, *, add: bool | None = None) -> dict[str, Any] | None:
    pending = st.session_state.get(PENDING)
    if not pending or pending["generation"] != st.session_state.get(state.GENERATION, 0) or pending["index"] != index:
        return None
    return pending if add is None or pending["add"] == add else None


# ---- actions (button and widget callbacks) ----------------------------------------------------------------------


def switch_payment(index: int, payment: Payment, given: dict[str, float] | None = None) -> None:
    """Switch system ``index`` to ``payment``; when values are missing, ask for them (``payment_pending``)."""
    ss = st.session_state
    draft = ss[state.DRAFT]
    system = (draft.get("systems") or [None] * (index + 1))[index]
    if not isinstance(system, dict):
        _say("error", f"systems[{index}] is not a system (see its problems): fix it in the YAML tab first.")
        return
    name = str(system.get("name"))
    plan = system_edits.plan_payment(
        draft,
        index,
        payment,
        given=given,
        stash=_stash_for(name),
        loaded=ss.get(state.LOADED),
        owned_usd_per_accelerator_hour=_owned_prices(),
    )
    if isinstance(plan, Missing):
        _pend(index, payment, plan, add=False)
        return
    ss.pop(PENDING, None)
    if not plan.blocks:
        return
    stash = _stash_for(name)
    _remember(index, system, payment)
    base = plan.baseline_only()
    kept = stash.get("baseline:provenance:" + ("api" if payment == "api" else "hardware"))
    if "provenance" in plan.blocks and "provenance" not in plan.baseline and isinstance(kept, dict):
        # the provenance the system had comes back: so does the baseline's, which the way there replaced
        base = system_edits.Switch(base.blocks | {"provenance": kept}, base.figures, base.baseline, base.said)
    state.apply_edit(
        lambda data: system_edits.with_payment(data, index, payment, plan),
        lambda data: system_edits.with_payment(data, index, payment, base, keep=True),
    )
    _finish(f"{name} is now {SWITCHED_TO[payment]}: " + "; ".join(plan.said) + ".")


def add_rented(index: int, given: dict[str, float] | None = None) -> None:
    """Add a rented copy of system ``index`` (its curve and hardware), named ``<name> (rented)``, and open its tab."""
    ss = st.session_state
    state.sync_figures()  # the copy takes the draft's figures as they stand
    draft = ss[state.DRAFT]
    names = _names()
    source = draft["systems"][index]
    name = system_edits.unique_name(names[index], names, "rented")
    copied = system_edits.copy_system(draft, index, name)
    new = len(names)
    said = [f"Added {name}, a copy of {names[index]} (the same operating points and hardware)"]
    if system_edits.payment_of(source) == "rent":
        state.apply_edit(lambda data: system_edits.copy_system(data, index, name, source=draft))
    else:
        plan = system_edits.plan_payment(
            copied,
            new,
            "rent",
            given=given,
            owned_usd_per_accelerator_hour=_owned_prices(),
            priced_like=names[index],
        )
        if isinstance(plan, Missing):
            _pend(index, "rent", plan, add=True)
            return
        state.apply_edit(
            lambda data: system_edits.with_payment(
                system_edits.copy_system(data, index, name, source=draft), new, "rent", plan
            ),
            lambda data: system_edits.with_payment(
                system_edits.copy_system(data, index, name, source=draft), new, "rent", plan.baseline_only(), keep=True
            ),
        )
        said.append(", rented: " + "; ".join(plan.said))
    ss.pop(PENDING, None)
    _open_system_tab(new)
    _finish("".join(said) + ".")


def duplicate(index: int) -> None:
    """Add a copy of system ``index`` named ``<name> (copy)``, with its figures, and open its tab."""
    state.sync_figures()
    draft = st.session_state[state.DRAFT]
    names = _names()
    name = system_edits.unique_name(names[index], names, "copy")
    state.apply_edit(lambda data: system_edits.copy_system(data, index, name, source=draft))
    _open_system_tab(len(names))
    _finish(f"Added {name}, a copy of {names[index]} with the same figures and sources; edit what differs.")


def ask_to_remove(index: int) -> None:
    st.session_state[REMOVE] = (st.session_state.get(state.GENERATION, 0), index)


def remove(index: int) -> None:
    """Remove system ``index`` (never the last one): from the draft and the baseline, figures renumbered."""
    ss = st.session_state
    ss.pop(REMOVE, None)
    names = _names()
    if len(names) <= 1:
        _say("error", "A scenario needs at least one system: nothing was removed.")
        return
    state.apply_edit(lambda data: system_edits.remove_system(data, index))
    stash = dict(ss.get(state.PAYMENT_STASH) or {})
    stash.pop(names[index], None)
    ss[state.PAYMENT_STASH] = stash
    _finish(f"Removed {names[index]}. Discard my edits (YAML tab) goes back to the file as loaded.")


def _on_payment(index: int, key: str, current: Payment) -> None:
    chosen = st.session_state.get(key)
    if chosen is None or chosen == current:  # the selected option clicked again, or back to the current one
        st.session_state.pop(PENDING, None)
        st.session_state[NONCE] = st.session_state.get(NONCE, 0) + 1  # a new switch, showing the current one
        return
    switch_payment(index, chosen)


def _given(pending: dict[str, Any]) -> dict[str, float] | None:
    values = {}
    for path in pending["fields"]:
        value = st.session_state.get(_given_key(pending, path))
        if not isinstance(value, int | float):
            return None
        values[path.split(".", 1)[1]] = float(value)
    return values


def _given_key(pending: dict[str, Any], path: str) -> str:
    return f"payment_given|g{pending['generation']}|{pending['index']}|{'add' if pending['add'] else 'switch'}|{path}"


def _with_given() -> None:
    pending = st.session_state.get(PENDING)
    if not pending:
        return
    given = _given(pending)
    if given is None:
        _say("error", "Give every value asked for, then press the button again.")
        return
    if pending["add"]:
        add_rented(pending["index"], given)
    else:
        switch_payment(pending["index"], pending["payment"], given)


def _cancel() -> None:
    st.session_state.pop(PENDING, None)
    st.session_state.pop(REMOVE, None)


# ---- the form -----------------------------------------------------------------------------------------------


def system_actions(index: int) -> None:
    """The top of a system's tab: how it is paid for (a switch), and duplicate / add a rented copy / remove."""
    ss = st.session_state
    system = ss[state.DRAFT]["systems"][index]
    names = _names()
    name = names[index]
    current = system_edits.payment_of(system)
    pending = _pending(index, add=False)
    wanted = pending["payment"] if pending else current  # the draft's payment, or the one waiting for values
    # its key holds what it shows: drawn anew whenever that changes, never left as the browser last held it
    key = f"{state.widget_key(f'systems[{index}]')}|payment|{wanted}|{ss.get(NONCE, 0)}"
    st.segmented_control(
        "Paid as",
        list(system_edits.PAYMENTS),
        default=wanted,
        format_func=lambda p: PAYMENT_WORDS[p],
        key=key,
        on_change=_on_payment,
        args=(index, key, current),
        help="Owned: capex and opex (costs). Rented: a price per accelerator-hour (rent). API: prices per million "
        "tokens, no hardware. Switching keeps what the system had, to come back to; a value the scenario cannot "
        "give is asked for, and a starting value chosen for you is labelled as an assumption to be reviewed.",
    )
    c1, c2, c3 = st.columns(3)
    c1.button(
        "Duplicate this system",
        key=f"duplicate|{index}",
        on_click=duplicate,
        args=(index,),
        icon=":material/content_copy:",
        width="stretch",
        help=f"Adds a copy named {md(name)} (copy), with the same figures and sources.",
    )
    c2.button(
        "Add a rented system from this curve",
        key=f"add_rented|{index}",
        on_click=add_rented,
        args=(index,),
        icon=":material/add:",
        width="stretch",
        disabled=current == "api",
        help="An API system has no curve to rent hardware for."
        if current == "api"
        else "Adds a copy with the same operating points and hardware, rented instead of owned; its price starts at "
        "a published rental price of the accelerator, else at what owning it costs (an assumption to be reviewed).",
    )
    c3.button(
        "Remove this system",
        key=f"remove|{index}",
        on_click=ask_to_remove,
        args=(index,),
        icon=":material/delete:",
        width="stretch",
        disabled=len(names) <= 1,
        help="A scenario needs at least one system." if len(names) <= 1 else "Asks first.",
    )
    _pending_form(_pending(index))
    removing = ss.get(REMOVE)
    if removing == (ss.get(state.GENERATION, 0), index):
        with st.container(border=True):
            st.warning(
                f"**Remove {md(name)}?** Its operating points, hardware, costs and figures go with it. *Discard my "
                "edits* (YAML tab) goes back to the file as loaded.",
                icon=":material/warning:",
            )
            yes, no = st.columns(2)
            yes.button(f"Remove {md(name)}", key=f"remove_yes|{index}", on_click=remove, args=(index,))
            no.button("Keep it", key=f"remove_no|{index}", on_click=_cancel, type="primary")
    said = ss.get(MESSAGE)
    if said and said[2] == ss.get(state.GENERATION, 0):
        {"success": st.success, "warning": st.warning}.get(said[0], st.error)(md(said[1]))
    to_review = [
        key
        for key, fig in (ss[state.DRAFT].get("figures") or {}).items()
        if key.startswith(f"systems[{index}].")
        and isinstance(fig, dict)
        and str(fig.get("source", "")).startswith(system_edits.DEFAULT_SOURCE)
    ]
    if to_review:
        st.warning(
            "**To be reviewed:** starting values chosen by the dashboard when this system was switched or added: "
            + ", ".join(f"`{md(k.removeprefix(f'systems[{index}].'))}`" for k in to_review)
            + " (their sources below say why). Each value you change is labelled as yours.",
            icon=":material/rate_review:",
        )


def _pending_form(pending: dict[str, Any] | None) -> None:
    """The values a switch or a rented copy waits for, with the reason; nothing when none waits."""
    if pending is None:
        return
    with st.container(border=True):
        st.warning(md(pending["reason"]), icon=":material/edit:")
        for path in pending["fields"]:
            key = _given_key(pending, path)
            field = path.split(".", 1)[1]
            st.number_input(
                label(field),
                key=key,
                value=SERVICE_LIFE_YEARS if field == "service_life_years" else None,
                step=1.0 if field == "service_life_years" else 0.01,
                format="%g",
                placeholder="required",
                help="Service life: hyperscalers use 4-6 years (docs/sources.md §3)."
                if field == "service_life_years"
                else None,
            )
        go, cancel = st.columns(2)
        if pending["fields"]:
            action = "Add the rented system" if pending["add"] else f"Switch to {SWITCHED_TO[pending['payment']]}"
            go.button(action, key="payment_given_go", on_click=_with_given, type="primary")
        cancel.button("Cancel", key="payment_given_cancel", on_click=_cancel)


# ---- the KV-cache memory limit ------------------------------------------------------------------------------


def with_memory(index: int, block: dict[str, Any] | None) -> Any:
    """The edit that gives system ``index`` a ``memory`` block (None: removes it)."""
    return lambda data: edits.set_at(data, f"systems[{index}].memory", block)


def memory_form(index: int) -> None:
    """A system's KV-cache memory (``systems[i].memory``) as a form, with *Remove the memory limit*; without one,
    *Add a memory limit*, which starts an empty block whose required fields the form then asks for (an HBM size and
    the weights have no neutral default)."""
    path = f"systems[{index}].memory"
    st.subheader("KV-cache memory")
    if isinstance(state.get_at(st.session_state[state.DRAFT], path), dict):
        st.caption(
            "The KV cache each request in flight keeps must fit in the replica's HBM beside the weights: operating "
            "points of a higher concurrency are left out, and the Results page says where memory binds. The KV bytes "
            "per token come from here or from the model's shape (Workload and SLO tab)."
        )
        fields.block(Memory, path, columns=4)
        st.button(
            "Remove the memory limit",
            key=f"memory_remove|{index}",
            icon=":material/delete:",
            on_click=state.apply_edit,
            args=(with_memory(index, None),),
            help="The operating points are then limited by the measured curve alone.",
        )
    else:
        st.caption("No memory limit: the operating points are limited by the measured curve alone.")
        st.button(
            "Add a memory limit",
            key=f"memory_add|{index}",
            icon=":material/memory:",
            on_click=state.apply_edit,
            args=(with_memory(index, {}),),
            help="Give the HBM per accelerator, the weights (or their bytes per parameter) and the KV bytes per "
            "token (or the model's shape on the Workload and SLO tab); until then the results stay on the last "
            "valid scenario.",
        )
