"""What no pydantic field check can see, in two kinds.

- **Problems of the scenario** (:func:`feasibility_problems`): a router the model has no analytic form for, a
  curve whose latency falls as the load rises, a replica whose memory cannot hold the weights or one request's KV
  cache. The loader (:mod:`rackcost.scenario.loading`) reports them beside the field checks, so a scenario that
  loads can be evaluated; the chain checks them again for scenarios built in code.
- **Systems the scenario cannot serve with** (:func:`unserved_systems`): an SLO no operating point of a system
  meets, no SLO-feasible point whose KV cache fits the replica's memory, a node too big for a rack. These are
  findings, not input errors ("system X cannot meet a 5 ms TPOT" is itself the answer a buyer needs):
  the scenario loads, and the evaluation leaves the system out, marks it with why (which limit, by how much) and
  evaluates the others.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from rackcost.model.fleets.sizing import nodes_per_rack_allowed
from rackcost.model.inputs import SloInputs, SystemInputs
from rackcost.model.queues.routing import RoutingNotAnalytic, check_routing
from rackcost.model.replica.memory import KvMemory, gib
from rackcost.model.replica.operating_point import e2e_ms, slo_feasible
from rackcost.model.workload.classes import class_feasible, class_ttft_ms
from rackcost.scenario.schema import Scenario
from rackcost.scenario.unpack import slo_inputs
from rackcost.scenario.unpack_pools import any_system_inputs
from rackcost.scenario.yaml_paths import YamlPath
from rackcost.units import W_PER_KW

__all__ = ["UNSERVED_LIMITS", "UNSERVED_WORDS", "UnservedSystem", "feasibility_problems", "unserved_systems"]

UNSERVED_LIMITS = ("slo", "kv_cache", "rack_power")
"""Why a system can be unserved: no operating point meets the SLO; none that does fits its KV cache in the
replica's memory; one node is over the rack power limit."""
UNSERVED_WORDS = {
    "slo": "cannot meet the SLO",
    "kv_cache": "cannot hold the KV cache of any operating point that meets the SLO",
    "rack_power": "does not fit the rack power limit",
}
"""Each limit of :data:`UNSERVED_LIMITS` in words, after the system's name (the CLI and the report say it so)."""


@dataclass(frozen=True)
class UnservedSystem:
    """A hardware system the scenario cannot serve with, and why.

    Attributes
    ----------
    index
        Its index in ``systems`` [-].
    system
        Its name.
    path, loc
        The YAML path of the block at fault (``systems[2].performance``) and its location tuple.
    limit
        ``slo``, ``kv_cache`` or ``rack_power`` (:data:`UNSERVED_LIMITS`).
    reason
        One sentence: which limit, by how much.
    """

    index: int
    system: str
    path: str
    loc: YamlPath
    limit: str
    reason: str

    def to_dict(self) -> dict[str, Any]:
        """``{system, path, limit, reason}``, as :class:`rackcost.Result` lists it."""
        return {"system": self.system, "path": self.path, "limit": self.limit, "reason": self.reason}


def _inputs(scenario: Scenario, inputs: list[SystemInputs] | None) -> list[SystemInputs]:
    if inputs is None:
        return [any_system_inputs(scenario, scenario.systems[i]) for i in scenario.hardware_indices]
    return inputs


def feasibility_problems(
    scenario: Scenario, inputs: list[SystemInputs] | None = None
) -> list[tuple[YamlPath, str, str]]:
    """Problems of a validated scenario that only the model can see.

    Parameters
    ----------
    scenario
        A scenario that passed the schema's checks.
    inputs
        Its systems' inputs (:func:`rackcost.scenario.unpack.system_inputs`), when the caller has them already.

    Returns
    -------
    list of (loc, path, message)
        YAML location tuple, its path as text, and the message.
    """
    slo = slo_inputs(scenario)
    out: list[tuple[YamlPath, str, str]] = []
    try:
        check_routing(scenario.fleet.routing)
    except RoutingNotAnalytic as exc:
        out.append((("fleet", "routing"), "fleet.routing", str(exc)))
    for i, inp in zip(scenario.hardware_indices, _inputs(scenario, inputs), strict=True):
        cand = inp.coarse  # the curve where the operating-point search looks: every integer concurrency
        ok = slo_feasible(slo, cand.ttft_ms, cand.tpot_ms)
        if ok.any():
            falling = _latency_falls_with_load(scenario.systems[i].name, inp, ok, slo)
            if falling:
                out.append((("systems", i, "performance"), f"systems[{i}].performance", falling))
        no_room = None if inp.kv_memory is None else _no_room(inp.kv_memory)
        if no_room:
            out.append((("systems", i, "memory"), f"systems[{i}].memory", no_room))
    return out


def _no_room(memory: KvMemory) -> str | None:
    """Why a replica's memory holds not even one request (a bad input: no SLO or curve could change it), or None."""
    if memory.free_bytes <= 0:
        usable = memory.hbm_bytes - memory.reserve_bytes
        return (
            f"the weights ({gib(memory.weights_bytes)} GiB) do not fit the replica's memory: HBM "
            f"{gib(memory.hbm_bytes)} GiB (hbm_gib_per_accelerator x hardware.accelerators_per_replica) less the "
            f"{memory.reserve_fraction:.0%} reserve leaves {gib(usable)} GiB"
        )
    if memory.requests_held < 1:
        return (
            f"KV cache: one request of {memory.context_tokens:,.0f} tokens needs {gib(memory.kv_bytes_per_request)} "
            f"GiB per replica, {gib(memory.free_bytes)} GiB free ({memory.summary()}): the replica cannot hold one "
            "request"
        )
    return None


def unserved_systems(scenario: Scenario, inputs: list[SystemInputs] | None = None) -> list[UnservedSystem]:
    """The hardware systems no operating point of which meets the SLO, or whose node is over the rack limit.

    Parameters
    ----------
    scenario
        A validated scenario.
    inputs
        Its systems' inputs (:func:`rackcost.scenario.unpack.system_inputs`), when the caller has them already.

    Returns
    -------
    list of UnservedSystem
        In the scenario's order; for one system an SLO miss comes first (and alone), then a KV cache that no
        SLO-feasible point fits (alone), then a rack limit. A replica that holds not even one request is a problem
        of the scenario (:func:`feasibility_problems`), not an unserved system.
    """
    slo = slo_inputs(scenario)
    out: list[UnservedSystem] = []
    for i, inp in zip(scenario.hardware_indices, _inputs(scenario, inputs), strict=True):
        name = scenario.systems[i].name
        cand = inp.coarse
        ok = slo_feasible(slo, cand.ttft_ms, cand.tpot_ms)
        if not ok.any():
            block = "performance" if inp.pools is None else "pools"  # a disaggregated system's curves: its pools'
            loc = ("systems", i, block)
            reason = _slo_reason(name, inp, slo) if slo.classes is None else _class_slo_reason(name, inp, slo)
            out.append(UnservedSystem(i, name, f"systems[{i}].{block}", loc, "slo", reason))
            continue
        memory = inp.kv_memory
        if memory is not None and memory.requests_held >= 1 and not (ok & memory.fits(cand.concurrency)).any():
            loc = ("systems", i, "memory")
            reason = _kv_reason(memory, float(cand.concurrency[ok].min()))
            out.append(UnservedSystem(i, name, f"systems[{i}].memory", loc, "kv_cache", reason))
            continue
        # a disaggregated system packs each pool's nodes: each must fit a rack
        pools = scenario.systems[i].pools
        packed = [(inp, "hardware")]
        if inp.pools is not None and pools is not None:
            packed = [
                (part, f"pools.{role}.hardware" if pools.pool(role).hardware is not None else "hardware")
                for part, role in ((inp.pools.prefill, "prefill"), (inp, "decode"))
            ]
        for part, block in packed:
            allowed = nodes_per_rack_allowed(
                part.nodes_per_rack, part.node_rated_w, part.rack_overhead_w, part.rack_power_limit_w
            )
            if allowed < 1:
                need_kw = (part.node_rated_w + part.rack_overhead_w) / W_PER_KW
                limit_kw = part.rack_power_limit_w / W_PER_KW
                reason = (
                    f"one node of {part.name!r} is rated {part.node_rated_w / W_PER_KW:.3g} kW and the rack overhead "
                    f"{part.rack_overhead_w / W_PER_KW:.3g} kW, over the rack power limit of {limit_kw:.3g} kW "
                    f"(facility.rack_power_limit_kw) by {need_kw - limit_kw:.3g} kW"
                )
                at: YamlPath = ("systems", i, *block.split("."))
                out.append(UnservedSystem(i, name, f"systems[{i}].{block}", at, "rack_power", reason))
                break
    return out


def _kv_reason(memory: KvMemory, lowest: float) -> str:
    """Why no operating point that meets the SLO fits the KV cache: what the least demanding one needs, what is free."""
    copies = "" if memory.copies == 1 else f" ({memory.copies} copies)"
    return (
        f"KV cache: needs {gib(memory.need_bytes(lowest))} GiB per replica at concurrency {lowest:g}, "
        f"{gib(memory.free_bytes)} GiB free ({memory.summary()}): one request of {memory.context_tokens:,.0f} tokens "
        f"keeps {gib(memory.kv_bytes_per_request)} GiB{copies}, so a replica holds at most {memory.max_concurrency} "
        f"requests in flight, and the lowest concurrency that meets the SLO is {lowest:g}"
    )


def _class_slo_reason(name: str, inp: SystemInputs, slo: SloInputs) -> str:
    """Why no operating point of a system meets every request class's SLO: the classes no point serves, each with
    its fastest TTFT and TPOT against its limits; or that each is met somewhere but never all at once."""
    mix = slo.classes
    assert mix is not None
    cand = inp.coarse
    each = class_feasible(mix, cand.ttft_ms, cand.tpot_ms)
    ttft = class_ttft_ms(mix, cand.ttft_ms)
    short = [
        f"class {mix.names[k]!r} (TTFT < {mix.ttft_limit_ms[k]:g} ms, TPOT <= {mix.tpot_limit_ms[k]:g} ms"
        + ("" if not np.isfinite(mix.e2e_limit_ms[k]) else f", end-to-end < {mix.e2e_limit_ms[k]:g} ms")
        + f"): its fastest TTFT is {ttft[:, k].min():.4g} ms and TPOT {cand.tpot_ms.min():.4g} ms"
        for k in range(len(mix))
        if not each[:, k].any()
    ]
    if not short:
        short.append("each class's SLO is met at some point but none meets every class's at once")
    return f"no operating point of {name!r} meets the SLO of every request class: {'; '.join(short)}"


def _slo_reason(name: str, inp: SystemInputs, slo: SloInputs) -> str:
    """Why no operating point of a system meets the SLO: each limit no point meets, by how much."""
    osl = slo.output_tokens
    cand, measured = inp.coarse, inp.curve
    e2e = "" if slo.e2e_limit_ms is None else f", end-to-end < {slo.e2e_limit_ms:g} ms"
    short = [
        f"its fastest {what} is {best:.4g} ms, {best / limit - 1:.0%} over the {limit:g} ms limit"
        for what, best, limit in (
            ("TPOT", float(cand.tpot_ms.min()), slo.tpot_limit_ms),
            ("TTFT", float(cand.ttft_ms.min()), slo.ttft_limit_ms),
            (
                "end-to-end",
                float(e2e_ms(cand.ttft_ms, cand.tpot_ms, osl).min()) if slo.e2e_limit_ms is not None else 0.0,
                slo.e2e_limit_ms if slo.e2e_limit_ms is not None else np.inf,
            ),
        )
        if (best > limit if what == "TPOT" else best >= limit)
    ]
    if not short:
        short.append(
            "each limit is met by some point but none meets all at once "
            f"(its points span TPOT {cand.tpot_ms.min():.3g}-{cand.tpot_ms.max():.3g} ms and TTFT "
            f"{cand.ttft_ms.min():.4g}-{cand.ttft_ms.max():.4g} ms)"
        )
    measured_ok = slo_feasible(slo, measured.ttft_ms, measured.tpot_ms)
    c = measured.concurrency
    between = (
        f"; measured points at concurrency {', '.join(f'{x:.4g}' for x in c[measured_ok])} do, but a "
        "serving engine's concurrency limit is an integer and no integer in the measured range "
        f"({c[0]:.4g}-{c[-1]:.4g}) does"
        if measured_ok.any()
        else ""
    )
    return (
        f"no operating point of {name!r} meets the SLO (TPOT <= {slo.tpot_limit_ms:g} ms, TTFT < "
        f"{slo.ttft_limit_ms:g} ms{e2e}): {'; '.join(short)}{between}"
    )


def _latency_falls_with_load(name: str, inp: SystemInputs, ok_coarse: np.ndarray, slo: SloInputs) -> str | None:
    """A point that misses the SLO at a lower concurrency than one that meets it, or None.

    A lighter demand runs the fleet at a lower concurrency than the chosen one (step 6): on a curve whose latency
    falls as the load rises, it would land on a point that misses the SLO and accept nothing there, a cost per
    accepted request without end. Real serving curves do not do this: the operating points are then wrong (a TTFT
    or a concurrency mistyped), and saying so beats a result with an infinite cost in it.
    """
    for curve, ok, what in (
        (inp.curve, slo_feasible(slo, inp.curve.ttft_ms, inp.curve.tpot_ms), "measured point"),
        (inp.coarse, ok_coarse, "interpolated point"),
    ):
        feasible_at = np.flatnonzero(ok)
        if feasible_at.size == 0:
            continue
        below = np.flatnonzero(~ok[: feasible_at[-1]])
        if below.size:
            j, k = below[0], feasible_at[-1]
            return (
                f"{name!r} misses the SLO at the {what} of concurrency {curve.concurrency[j]:.4g} (TTFT "
                f"{curve.ttft_ms[j]:.4g} ms, TPOT {curve.tpot_ms[j]:.3g} ms) but meets it at concurrency "
                f"{curve.concurrency[k]:.4g} (TTFT {curve.ttft_ms[k]:.4g} ms, TPOT {curve.tpot_ms[k]:.3g} ms): latency "
                "that falls as load rises is not a serving curve, and a lighter demand would run at the missing point; "
                "check the operating points' concurrency and latencies"
            )
    return None
