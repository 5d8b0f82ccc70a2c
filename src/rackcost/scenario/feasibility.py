"""Problems no pydantic field check can see: an SLO no operating point meets, a node too big for a rack, a router
the model has no analytic form for.

The loader (:mod:`rackcost.scenario.loading`) reports these beside the field checks, so a scenario that loads can be
evaluated; the chain checks them again for scenarios built in code.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rackcost.model.inputs import SystemInputs
from rackcost.model.operating_point import feasible
from rackcost.model.routing import RoutingNotAnalytic, check_routing
from rackcost.model.sizing import nodes_per_rack_allowed
from rackcost.scenario.schema import Scenario
from rackcost.scenario.unpack import system_inputs
from rackcost.scenario.yaml_paths import YamlPath
from rackcost.units import W_PER_KW

__all__ = ["feasibility_problems"]


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
    slo, osl = scenario.slo, scenario.workload.output_tokens_per_request
    out: list[tuple[YamlPath, str, str]] = []
    try:
        check_routing(scenario.fleet.routing.value)
    except RoutingNotAnalytic as exc:
        out.append((("fleet", "routing"), "fleet.routing", str(exc)))
    if inputs is None:
        inputs = [system_inputs(scenario, scenario.systems[i]) for i in scenario.hardware_indices]
    for i, inp in zip(scenario.hardware_indices, inputs, strict=True):
        system = scenario.systems[i]
        cand = inp.coarse  # the curve where the operating-point search looks: every integer concurrency
        ok = feasible(cand.ttft_ms, cand.tpot_ms, osl, slo.ttft_limit_ms, slo.tpot_limit_ms, slo.e2e_limit_ms)
        if not ok.any():
            e2e = "" if slo.e2e_limit_ms is None else f", end-to-end < {slo.e2e_limit_ms:g} ms"
            c, measured = inp.curve.concurrency, inp.curve
            measured_ok = feasible(
                measured.ttft_ms, measured.tpot_ms, osl, slo.ttft_limit_ms, slo.tpot_limit_ms, slo.e2e_limit_ms
            )
            between = (
                f"; measured points at concurrency {', '.join(f'{x:.4g}' for x in c[measured_ok])} do, but a "
                "serving engine's concurrency limit is an integer and no integer in the measured range "
                f"({c[0]:.4g}-{c[-1]:.4g}) does"
                if measured_ok.any()
                else ""
            )
            out.append(
                (
                    ("systems", i, "performance"),
                    f"systems[{i}].performance",
                    f"no operating point of {system.name!r} meets the SLO (TPOT <= {slo.tpot_limit_ms:g} ms, "
                    f"TTFT < {slo.ttft_limit_ms:g} ms{e2e}); its points span TPOT {cand.tpot_ms.min():.3g}-"
                    f"{cand.tpot_ms.max():.3g} ms and TTFT {cand.ttft_ms.min():.4g}-{cand.ttft_ms.max():.4g} ms"
                    f"{between}",
                )
            )
        else:
            falling = _latency_falls_with_load(system.name, inp, ok, slo, osl)
            if falling:
                out.append((("systems", i, "performance"), f"systems[{i}].performance", falling))
        allowed = nodes_per_rack_allowed(
            inp.nodes_per_rack, inp.node_rated_w, inp.rack_overhead_w, inp.rack_power_limit_w
        )
        if allowed < 1:
            out.append(
                (
                    ("systems", i, "hardware"),
                    f"systems[{i}].hardware",
                    f"one node of {system.name!r} is rated {inp.node_rated_w / W_PER_KW:.3g} kW and the rack overhead "
                    f"{inp.rack_overhead_w / W_PER_KW:.3g} kW, over the rack power limit of "
                    f"{inp.rack_power_limit_w / W_PER_KW:.3g} kW (facility.rack_power_limit_kw)",
                )
            )
    return out


def _latency_falls_with_load(name: str, inp: SystemInputs, ok_coarse: np.ndarray, slo: Any, osl: float) -> str | None:
    """A point that misses the SLO at a lower concurrency than one that meets it, or None.

    A lighter demand runs the fleet at a lower concurrency than the chosen one (step 6): on a curve whose latency
    falls as the load rises, it would land on a point that misses the SLO and accept nothing there, a cost per
    accepted request without end. Real serving curves do not do this: the operating points are then wrong (a TTFT
    or a concurrency mistyped), and saying so beats a result with an infinite cost in it.
    """
    for curve, ok, what in (
        (inp.curve, feasible(inp.curve.ttft_ms, inp.curve.tpot_ms, osl, *_limits(slo)), "measured point"),
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


def _limits(slo: Any) -> tuple[float, float, float | None]:
    return slo.ttft_limit_ms, slo.tpot_limit_ms, slo.e2e_limit_ms
