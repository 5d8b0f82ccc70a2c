"""From a validated :class:`~rackcost.scenario.schema.Scenario` to the plain inputs of :mod:`rackcost.model.inputs`.

The only module of the model that reads the pydantic scenario, and the only one that knows which YAML path feeds
which input: the Monte Carlo hands it sampled values by YAML path (``values``) and gets arrays back, so the steps of
the model never see a path or a pydantic object.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator, Sequence
from contextvars import ContextVar
from dataclasses import replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from rackcost.model.energy.power import PEAK_TO_MEAN_POWER
from rackcost.model.energy.power_law import fit_for
from rackcost.model.inputs import CostInputs, FleetPolicy, SampledInputs, SloInputs, SystemInputs
from rackcost.model.queues.class_ttft import (
    MIN_SPREAD_CV_FRACTION,
    StratifiedLaw,
    cdf_law,
    fixed_law,
    gamma_law,
    lognormal_law,
    stack_laws,
)
from rackcost.model.queues.dispersion import effective_arrival_scv
from rackcost.model.replica.memory import (
    DEFAULT_KV_BYTES_PER_ELEMENT,
    KvMemory,
    kv_bytes_per_request,
    kv_bytes_per_token_gqa,
    kv_bytes_per_token_mla,
)
from rackcost.model.replica.operating_point import candidate_curve
from rackcost.model.replica.performance import Curve, build_curve
from rackcost.model.workload.classes import ClassMix, mix_curve_factors
from rackcost.scenario.class_blocks import Lengths, RequestClass, token_moments
from rackcost.scenario.hardware_blocks import FINANCE_TERMS, finance_term
from rackcost.scenario.schema import DemandPoint, Scenario, System
from rackcost.scenario.systems import OperatingPoint
from rackcost.scenario.unpack_grid import grid_inputs
from rackcost.units import BYTES_PER_GIB, W_PER_KW

__all__ = [
    "Samples",
    "api_inputs",
    "class_mix",
    "one_evaluation",
    "fleet_policy",
    "has_dispersion",
    "kv_memory",
    "point_arrival_scvs",
    "power_exponent",
    "sampled_inputs",
    "sizing_demand",
    "slo_inputs",
    "system_inputs",
]

Samples = dict[str, NDArray[np.float64]]
"""Sampled inputs: YAML path -> array of ``n`` values; inputs not in it keep their central value."""

FACILITY_FIELDS = {
    "pue": "pue",
    "electricity_usd_per_kwh": "price_usd_per_kwh",
    "colocation_usd_per_kw_month": "colocation_usd_per_kw_month",
    "build_usd_per_kw": "build_usd_per_kw",
    "build_life_years": "build_life_years",
    "carbon_g_per_kwh": "carbon_g_per_kwh",
    "carbon_usd_per_tonne": "carbon_usd_per_tonne",
}
"""Facility fields drawn per sample, and the :class:`SystemInputs` attribute holding each; a system may override
each but the carbon price (``systems[i].facility``)."""


def slo_inputs(scenario: Scenario) -> SloInputs:
    """The scenario's SLO and output length as plain numbers, and its request classes (:func:`class_mix`)."""
    slo = scenario.slo
    mix = class_mix(scenario)
    return SloInputs(
        ttft_limit_ms=slo.ttft_limit_ms,
        tpot_limit_ms=slo.tpot_limit_ms,
        e2e_limit_ms=slo.e2e_limit_ms,
        attainment_fraction=slo.attainment_fraction if mix is None else float(mix.attainment_fraction.max()),
        output_tokens=scenario.workload.output_tokens_per_request,
        output_tokens_cv_fraction=scenario.workload.output_tokens_cv_fraction,
        classes=mix,
    )


_ONE_EVALUATION: ContextVar[dict[int, tuple[Any, Any]] | None] = ContextVar("rackcost_one_evaluation", default=None)
"""The request classes unpacked so far in one evaluation (:func:`one_evaluation`), by the scenario's identity."""


@contextlib.contextmanager
def one_evaluation(memo: dict[int, tuple[Any, Any]] | None = None) -> Iterator[None]:
    """Within the block, :func:`class_mix` unpacks each scenario once: an evaluation reads the classes at seven
    places (the checks, the plan, each system's inputs, the tables), and no scenario changes during one (a
    scenario is mutable, so nothing is kept once the block ends, unless the caller keeps ``memo``: an
    evaluation built part by part passes its own to each part). Nested blocks share the outer one's."""
    if _ONE_EVALUATION.get() is not None:
        yield
        return
    token = _ONE_EVALUATION.set({} if memo is None else memo)
    try:
        yield
    finally:
        _ONE_EVALUATION.reset(token)


def class_mix(scenario: Scenario) -> ClassMix | None:
    """The workload's request classes as plain arrays (:class:`rackcost.model.workload.classes.ClassMix`), or None
    without ``workload.classes`` (once per scenario inside :func:`one_evaluation`).

    A token count given as a number is the class's mean; its spread is stated only by a length distribution
    (``{lengths: ...}``), and a class that gives none keeps the model's exponential service (within-class SCV 1).
    Each class's SLO limit is its own where its ``slo`` gives it, else the scenario's.
    """
    classes = scenario.workload.classes
    if classes is None:
        return None
    memo = _ONE_EVALUATION.get()
    if memo is not None:
        held = memo.get(id(scenario))
        if held is not None and held[0] is scenario:  # the scenario itself is held, so its id is not reused
            return held[1]
    mix = _class_mix(scenario, classes)
    if memo is not None:
        memo[id(scenario)] = (scenario, mix)
    return mix


def _class_mix(scenario: Scenario, classes: Sequence[RequestClass]) -> ClassMix:
    """:func:`class_mix` of a scenario with ``workload.classes``."""
    slo = scenario.slo

    def own(c: RequestClass, name: str) -> float:
        value = None if c.slo is None else getattr(c.slo, name)
        value = getattr(slo, name) if value is None else value
        return np.inf if value is None else float(value)

    inputs = [token_moments(c.input_tokens) for c in classes]
    outputs = [token_moments(c.output_tokens) for c in classes]
    return ClassMix(
        names=tuple(c.name for c in classes),
        share_fraction=np.array([c.share_fraction for c in classes], dtype=float),
        input_tokens=np.array([m for m, _ in inputs]),
        output_tokens=np.array([m for m, _ in outputs]),
        prefix_hit_fraction=np.array([c.prefix_hit_fraction for c in classes], dtype=float),
        input_tokens_cv=np.array([cv or 0.0 for _, cv in inputs]),
        output_tokens_cv=np.array([cv or 0.0 for _, cv in outputs]),
        spread_stated=np.array([c.spread_stated for c in classes]),
        ttft_limit_ms=np.array([own(c, "ttft_limit_ms") for c in classes]),
        tpot_limit_ms=np.array([own(c, "tpot_limit_ms") for c in classes]),
        e2e_limit_ms=np.array([own(c, "e2e_limit_ms") for c in classes]),
        attainment_fraction=np.array([own(c, "attainment_fraction") for c in classes]),
        input_law=input_law(classes),
    )


def input_law(classes: Sequence[RequestClass]) -> StratifiedLaw | None:
    """Each class's input length over its mean as a stratified law (:mod:`rackcost.model.queues.class_ttft`), or None
    where every class has one input length (a plain number or ``{lengths: fixed}``)."""
    return _stacked_law(tuple(_law_key(c.input_tokens) for c in classes))


LawKey = tuple[str, float, tuple[tuple[float, float], ...]]


def _law_key(count: float | Lengths) -> LawKey:
    """What a token count's law depends on, hashable: its kind, cv and CDF table."""
    if not isinstance(count, Lengths) or count.lengths == "fixed":
        return ("fixed", 0.0, ())
    table = tuple((float(t), float(f)) for t, f in count.table) if count.table is not None else ()
    return (count.lengths, 0.0 if count.cv is None else float(count.cv), table)


@functools.lru_cache(maxsize=64)
def _stacked_law(keys: tuple[LawKey, ...]) -> StratifiedLaw | None:
    """The classes' laws stacked (:func:`rackcost.model.queues.class_ttft.stack_laws`), once per set of laws (a scenario
    is unpacked several times an evaluation)."""
    laws = [_length_law(*key) for key in keys]
    if all(law is None for law in laws):
        return None
    stacked = stack_laws([law or fixed_law() for law in laws])
    stacked.level_fraction.flags.writeable = stacked.value.flags.writeable = False  # cached: read only
    return stacked


def _length_law(kind: str, cv: float, table: tuple[tuple[float, float], ...]) -> StratifiedLaw | None:
    """A token count's law over its mean; None for one length."""
    if kind == "cdf":
        law = cdf_law([t for t, _ in table], [f for _, f in table])
        return law if bool(law.spread) else None
    if kind in ("lognormal", "gamma") and cv >= MIN_SPREAD_CV_FRACTION:  # (below it, one length)
        return lognormal_law(cv) if kind == "lognormal" else gamma_law(cv)
    return None


def fleet_policy(scenario: Scenario) -> FleetPolicy:
    """The scenario's fleet policy as plain values."""
    fleet = scenario.fleet
    names = [d.name for d in scenario.demand]
    return FleetPolicy(
        idle_policy=fleet.idle_policy,
        fixed_replicas=fleet.replicas,
        spare_replicas=fleet.spare_replicas,
        sizing_index=None if fleet.sizing_demand_point is None else names.index(fleet.sizing_demand_point),
        routing=fleet.routing,
        hours_per_day=tuple(d.hours_per_day for d in scenario.demand),
        arrival_scv=tuple(d.arrival_scv for d in scenario.demand),
        service_scv=service_scv(scenario),
        rate_swing_amplitude_fraction=tuple(_swing(d)[0] for d in scenario.demand),
        rate_swing_period_s=tuple(_swing(d)[1] for d in scenario.demand),
        sub_hour_rate_ratios=_sub_hour(scenario),
        sub_hour_sizing=fleet.sub_hour_sizing,
    )


def point_arrival_scvs(scenario: Scenario, service_s: float) -> tuple[float, ...]:
    """Each demand point's arrival SCV as a fleet whose requests hold a slot ``service_s`` on average sees it [-]:
    the point's ``arrival_scv``, or where it gives ``arrival_dispersion`` the measured index of dispersion averaged
    at that service time (:func:`rackcost.model.queues.dispersion.effective_arrival_scv`)."""
    return tuple(
        d.arrival_scv
        if d.arrival_dispersion is None
        else float(effective_arrival_scv(d.arrival_dispersion.time_scales_s, d.arrival_dispersion.index, service_s))
        for d in scenario.demand
    )


def has_dispersion(scenario: Scenario) -> bool:
    """Whether a demand point's burstiness is a measured dispersion, resolved per system at its service time."""
    return any(d.arrival_dispersion is not None for d in scenario.demand)


def service_scv(scenario: Scenario) -> float:
    """The slot holding time's squared coefficient of variation [-]: the output length's ``cv^2``, or 1
    (exponential service) where the workload gives no spread (docs/model.md, Routing: service-time spread)."""
    cv = scenario.workload.output_tokens_cv_fraction
    return 1.0 if cv is None else float(cv) ** 2


def _sub_hour(scenario: Scenario) -> tuple[tuple[float, ...], ...]:
    """Each demand point's sub-hour windows as rates over the hour's mean (an empty tuple where it has none); empty
    where no point has any, so a scenario without windows keeps its policy as it was."""
    ratios = tuple(
        () if d.sub_hour is None else tuple(float(r) for r in d.sub_hour.rate_ratios) for d in scenario.demand
    )
    return ratios if any(ratios) else ()


def _swing(point: DemandPoint) -> tuple[float, float]:
    """A demand point's rate swing as (amplitude [-], period [s]); (0, 0) without one."""
    swing = point.rate_swing
    return (0.0, 0.0) if swing is None else (float(swing.amplitude_fraction), float(swing.period_s))


def sizing_demand(scenario: Scenario) -> tuple[str, float]:
    """Name and arrival rate of the demand point the fleet is sized for [-, requests/s]."""
    d = scenario.sizing_point
    return d.name, d.arrival_rps


def system_inputs(scenario: Scenario, system: System) -> SystemInputs:
    """Unpack one system of a scenario into plain numbers (the only place the core's central inputs are read)."""
    perf, hw = system.hardware_blocks()
    isl = perf.benchmark_input_tokens or scenario.workload.input_tokens_per_request
    osl = perf.benchmark_output_tokens or scenario.workload.output_tokens_per_request
    curve, derived = _system_curve(scenario, system, isl, osl)
    mix = class_mix(scenario)
    if mix is not None:  # the curve as the class mix sees it
        curve = mix_curve(curve, mix, isl, osl)
    if perf.claim is not None:
        headline, basis, is_claim = perf.claim.tokens_per_s_per_kw, perf.claim.power_basis, True
    else:
        # no claim: the curve's peak total throughput per kW of rated accelerator power, labelled as derived
        peak = float(np.max(curve.total_tokens_per_s))
        headline = peak / (hw.accelerators_per_replica * hw.accelerator_rated_w / W_PER_KW)
        basis, is_claim = "rated accelerator power (derived from the curve)", False

    def facility(name: str) -> float:
        value = getattr(system.facility, name) if system.facility is not None else None
        return float(getattr(scenario.facility, name) if value is None else value)

    return SystemInputs(
        name=system.name,
        curve=curve,
        coarse=candidate_curve(curve),
        concurrency_derived=derived,
        accelerators_per_replica=hw.accelerators_per_replica,
        accelerators_per_node=hw.accelerators_per_node,
        nodes_per_rack=hw.nodes_per_rack,
        rated_w=hw.accelerator_rated_w,
        busy_w=hw.accelerator_busy_w,
        idle_w=hw.accelerator_idle_w,
        parked_w=hw.accelerator_idle_w if hw.accelerator_parked_w is None else hw.accelerator_parked_w,
        host_w=hw.host_w_per_node,
        host_rated_w=hw.host_w_per_node if hw.host_rated_w_per_node is None else hw.host_rated_w_per_node,
        host_parked_w=hw.host_w_per_node if hw.host_parked_w_per_node is None else hw.host_parked_w_per_node,
        rack_overhead_w=hw.rack_overhead_w,
        pue=facility("pue"),
        price_usd_per_kwh=facility("electricity_usd_per_kwh"),
        rack_power_limit_w=facility("rack_power_limit_kw") * W_PER_KW,
        colocation_usd_per_kw_month=facility("colocation_usd_per_kw_month"),
        build_usd_per_kw=facility("build_usd_per_kw"),
        build_life_years=facility("build_life_years"),
        headline_tokens_per_s_per_kw=headline,
        headline_power_basis=basis,
        headline_is_claim=is_claim,
        payment=system.payment,
        rent_includes_power_and_facility=system.rent is None or system.rent.includes_power_and_facility,
        rent_minimum_hours_per_day=0.0 if system.rent is None else system.rent.minimum_hours_per_day,
        carbon_g_per_kwh=facility("carbon_g_per_kwh"),
        carbon_usd_per_tonne=scenario.facility.carbon_usd_per_tonne,
        peak_to_mean_power=_peak_to_mean(perf.points),
        kv_memory=kv_memory(scenario, system, mix),
    )


def _system_curve(scenario: Scenario, system: System, isl: float, osl: float) -> tuple[Curve, bool]:
    """A system's measured points (or its claim as one point) as a curve of one replica, its throughput per replica
    and derated by its provenance; and whether its concurrency was derived by Little's law."""
    perf, hw = system.hardware_blocks()
    derate = scenario.uncertainty.throughput_derate.get(system.provenance.provenance_class, 1.0)
    scale = (hw.accelerators_per_replica if perf.throughput_per == "accelerator" else 1) * derate
    if perf.points:
        pts = perf.points
        # Performance._has_a_point: every point gives a concurrency or none does
        conc = None if pts[0].concurrency is None else [p.concurrency for p in pts if p.concurrency is not None]
        powers = [p.power_w_per_accelerator for p in pts if p.power_w_per_accelerator is not None]
        curve = build_curve(
            conc,
            [p.throughput_tokens_per_s * scale for p in pts],
            perf.token_basis.value,
            [p.tpot_ms_value for p in pts],
            [p.ttft_ms for p in pts],
            isl,
            osl,
            powers if len(powers) == len(pts) else None,
        )
        derived = conc is None
    else:
        claim = perf.claim
        assert claim is not None and claim.tpot_ms is not None and claim.ttft_ms is not None  # schema guarantees
        tps = claim.tokens_per_s_per_kw * claim.power_basis_kw_per_accelerator * hw.accelerators_per_replica * derate
        curve = build_curve(
            None if claim.concurrency is None else [claim.concurrency],
            [tps],
            claim.token_basis.value,
            [claim.tpot_ms],
            [claim.ttft_ms],
            isl,
            osl,
        )
        derived = claim.concurrency is None
    return curve, derived


def mix_curve(curve: Curve, mix: ClassMix, benchmark_input_tokens: float, benchmark_output_tokens: float) -> Curve:
    """A curve measured at the benchmark's shape as the class mix sees it (:mod:`rackcost.model.workload.classes`): at
    each measured point the mix's mean slot holding time ``E[S] = S x sum_k p_k e_k / e`` (the request rate divided by
    that factor), its mean TTFT ``r_mean x TTFT``, the same TPOT (one batch), and the token throughputs of the mix's
    mean request. Between the measured points it is interpolated linearly in concurrency, as every curve is.

    A single class of the benchmark's shape leaves every figure as it was, bit for bit (both factors are exactly 1).
    """
    factor, ttft_factor = mix_curve_factors(
        mix, curve.ttft_ms, curve.tpot_ms, benchmark_input_tokens, benchmark_output_tokens
    )
    rps = curve.request_rps / factor
    return replace(
        curve,
        request_rps=rps,
        total_tokens_per_s=rps * (mix.mean_input_tokens + mix.mean_output_tokens),
        output_tokens_per_s=rps * mix.mean_output_tokens,
        ttft_ms=curve.ttft_ms * ttft_factor,
    )


def kv_memory(scenario: Scenario, system: System, mix: ClassMix | None = None) -> KvMemory | None:
    """A system's memory for the KV cache at the workload's context, or None without a ``memory`` block.

    The context is ``workload.input_tokens_per_request + output_tokens_per_request``, a request's length by its
    last token; with an output spread (``output_tokens_cv_fraction``) it is the mean length: at a concurrency of
    ``c`` the caches in flight add up to about ``c`` times the mean (docs/model.md, "KV-cache memory"). The KV
    bytes per token are the memory block's own ``kv_bytes_per_token``, else the shape of ``workload.architecture``
    at ``kv_bytes_per_element``; the schema checks that one of them is given (and the weights). With request
    classes (``mix``, else :func:`class_mix`) each class's mean context gives its bytes per request, and the limit
    reads their share-weighted mean (the caches in flight are a mix of the classes in their shares).
    """
    memory = system.memory
    if memory is None:
        return None
    workload = scenario.workload
    arch = workload.architecture
    mix = class_mix(scenario) if mix is None else mix
    # with classes, each class's mean context; the memory limit reads the share-weighted mean bytes per request
    contexts = (
        np.array([workload.input_tokens_per_request + workload.output_tokens_per_request], dtype=float)
        if mix is None
        else mix.input_tokens + mix.output_tokens
    )
    shares = np.ones(1) if mix is None else mix.share_fraction
    context = float(np.sum(shares * contexts))
    window_bytes, window_tokens = 0.0, 0.0
    if memory.kv_bytes_per_token is not None:
        per_token = float(memory.kv_bytes_per_token)
    else:
        assert arch is not None and arch.layers is not None  # the schema's memory_problems
        element = DEFAULT_KV_BYTES_PER_ELEMENT if memory.kv_bytes_per_element is None else memory.kv_bytes_per_element
        windowed = arch.sliding_window_layers or 0

        def per_layers(layers: int) -> float:
            if arch.kv_lora_rank is not None and arch.qk_rope_head_dim is not None:
                return float(kv_bytes_per_token_mla(layers, arch.kv_lora_rank, arch.qk_rope_head_dim, element))
            assert arch.kv_heads is not None and arch.head_dim is not None  # Architecture._one_shape
            return float(kv_bytes_per_token_gqa(layers, arch.kv_heads, arch.head_dim, element))

        per_token = per_layers(arch.layers - windowed)
        if windowed:
            window_bytes, window_tokens = per_layers(windowed), float(arch.sliding_window_tokens or 0.0)
    if memory.weights_gib is not None:
        weights = float(memory.weights_gib) * BYTES_PER_GIB
    else:
        assert arch is not None and arch.parameters is not None and memory.weight_bytes_per_parameter is not None
        weights = float(arch.parameters) * float(memory.weight_bytes_per_parameter)
    hw = system.hardware_blocks()[1]
    copies = memory.kv_cache_copies
    return KvMemory(
        hbm_bytes=float(memory.hbm_gib_per_accelerator) * BYTES_PER_GIB * hw.accelerators_per_replica,
        weights_bytes=weights,
        reserve_fraction=float(memory.reserve_fraction),
        context_tokens=context,
        kv_bytes_per_token=per_token,
        kv_bytes_per_request=float(
            np.sum(shares * kv_bytes_per_request(contexts, per_token, window_bytes, window_tokens, copies))
        ),
        copies=copies,
    )


def _peak_to_mean(points: list[OperatingPoint]) -> float:
    """The mean of the measured peak / mean power ratios of ``points``, else the cited default."""
    ratios = [
        p.peak_power_w_per_accelerator / p.power_w_per_accelerator
        for p in points
        if p.peak_power_w_per_accelerator is not None and p.power_w_per_accelerator is not None
    ]
    return float(np.mean(ratios)) if ratios else PEAK_TO_MEAN_POWER


def _cost_term(scenario: Scenario, system: System, prefix: str, name: str) -> tuple[str, float]:
    """An owned system's cost figure and the YAML path its samples are drawn under: a financial term is the
    system's own, else the scenario's ``finance`` (one draw for every system that inherits it)."""
    assert system.costs is not None
    if name in FINANCE_TERMS:
        value, block = finance_term(system.costs, scenario.finance, name)
        assert value is not None  # the schema requires a service life of every owned system
        return (f"finance.{name}" if block == "finance" else f"{prefix}.costs.{name}"), value
    return f"{prefix}.costs.{name}", getattr(system.costs, name)


def sampled_inputs(scenario: Scenario, index: int, inp: SystemInputs, values: Samples, n: int) -> SampledInputs:
    """One system's per-sample inputs: the sampled value where ``values`` has its YAML path, else the central one.

    Parameters
    ----------
    scenario
        The scenario.
    index
        The system's index in ``scenario.systems``.
    inp
        The system's central inputs (:func:`system_inputs`).
    values
        Sampled inputs by YAML path.
    n
        Samples [-].
    """
    system = scenario.systems[index]
    prefix = f"systems[{index}]"

    def column(value: float) -> NDArray[np.float64]:
        """``value`` for every sample, ``(n, 1)`` (one sample, a central evaluation's ~60 of them: np.array of a
        nested tuple, the same array as np.full for a fraction of its cost)."""
        return np.array(((value,),)) if n == 1 else np.full((n, 1), value)

    def get(path: str, central: float) -> NDArray[np.float64]:
        sample = values.get(path) if values else None
        return column(float(central)) if sample is None else np.asarray(sample, float).reshape(n, 1)

    def facility(name: str) -> NDArray[np.float64]:
        override = system.facility is not None and getattr(system.facility, name, None) is not None
        path = f"{prefix}.facility.{name}" if override else f"facility.{name}"
        return get(path, getattr(inp, FACILITY_FIELDS[name]))

    def hardware(name: str, central: float) -> NDArray[np.float64]:
        return get(f"{prefix}.hardware.{name}", central)

    def cost(name: str) -> NDArray[np.float64]:
        if system.costs is None:  # rented: no capex or opex of the owner's (a life of 1 year keeps the CRF defined)
            return column(1.0 if name == "service_life_years" else 0.0)
        return get(*_cost_term(scenario, system, prefix, name))

    def facility_cost(name: str) -> NDArray[np.float64]:
        """A facility figure, or nothing where a rental price already covers power and facility."""
        if system.rent is not None and system.rent.includes_power_and_facility and name != "pue":
            return column(1.0 if name == "build_life_years" else 0.0)
        return facility(name)

    def along_curve(name: str) -> NDArray[np.float64]:
        """Sampled / central value of a figure at each measured point, in the curve's order, ``(n, K)``; ones
        ``(n, 1)`` where no point's figure is sampled (each ratio is then ``x / x``, exactly 1: the same figures
        without a column per point)."""
        pts = system.hardware_blocks()[0].points
        if not values or not any(f"{prefix}.performance.points[{k}].{name}" in values for k in range(len(pts))):
            return column(1.0)
        ratios = [
            get(f"{prefix}.performance.points[{k}].{name}", getattr(p, name)) / getattr(p, name)
            for k, p in enumerate(pts)
        ]
        source_index = inp.curve.source_index
        assert source_index is not None  # build_curve numbers the measured points; only interpolation drops it
        return np.hstack([ratios[k] for k in source_index])

    cls = system.provenance.provenance_class
    derate = scenario.uncertainty.throughput_derate.get(cls, 1.0)
    derate_ratio = get(f"uncertainty.throughput_derate.{cls.value}", derate) / derate
    service_s = inp.curve.service_s[None, :] / derate_ratio
    power_w = None
    if system.hardware_blocks()[0].points:
        service_s = service_s / along_curve("throughput_tokens_per_s")
        if inp.curve.power_w_per_accelerator is not None:
            power_w = inp.curve.power_w_per_accelerator[None, :] * along_curve("power_w_per_accelerator")
    fleet = scenario.fleet
    return SampledInputs(
        n=n,
        arrival_rps=np.hstack([get(f"demand[{j}].arrival_rps", d.arrival_rps) for j, d in enumerate(scenario.demand)]),
        availability_fraction=get("fleet.replica_availability_fraction", fleet.replica_availability_fraction),
        max_utilization_fraction=get("fleet.max_utilization_fraction", fleet.max_utilization_fraction),
        power_utilization_exponent=_power_exponent(scenario, index, get),
        service_s_points=service_s,
        power_w_points=power_w,
        busy_w=hardware("accelerator_busy_w", inp.busy_w),
        idle_w=hardware("accelerator_idle_w", inp.idle_w),
        parked_w=hardware("accelerator_parked_w", inp.parked_w),
        host_w=hardware("host_w_per_node", inp.host_w),
        host_parked_w=hardware("host_parked_w_per_node", inp.host_parked_w),
        rack_overhead_w=hardware("rack_overhead_w", inp.rack_overhead_w),
        pue=facility("pue"),
        colocation_usd_per_kw_month=facility_cost("colocation_usd_per_kw_month"),
        build_usd_per_kw=facility_cost("build_usd_per_kw"),
        build_life_years=facility_cost("build_life_years"),
        costs=CostInputs(**{name: cost(name) for name in CostInputs.__dataclass_fields__}),
        rent_usd_per_accelerator_hour=None
        if system.rent is None
        else get(f"{prefix}.rent.usd_per_accelerator_hour", system.rent.usd_per_accelerator_hour),
        **grid_inputs(scenario, index, inp, facility, facility_cost),
    )


def power_exponent(scenario: Scenario, index: int) -> tuple[float, str]:
    """The central exponent of slot utilisation in system ``index``'s accelerator power, and where it comes from.

    The system's own ``hardware.power_exponent``, else ``fleet.power_utilization_exponent``, else the law fitted
    to public measurements for its ``hardware.accelerator`` (:func:`rackcost.model.energy.power_law.fit_for`). Measured
    power at the curve's points takes precedence over all three above its lowest point (the exponent then shapes
    only the rise from idle to that point).
    """
    hw = scenario.systems[index].hardware_blocks()[1]
    if hw.power_exponent is not None:
        return float(hw.power_exponent), f"systems[{index}].hardware.power_exponent"
    if scenario.fleet.power_utilization_exponent is not None:
        return float(scenario.fleet.power_utilization_exponent), "fleet.power_utilization_exponent"
    law = fit_for(hw.accelerator)
    return law.exponent, f"fitted law ({law.family})"


def _power_exponent(
    scenario: Scenario, index: int, get: Callable[[str, float], NDArray[np.float64]]
) -> NDArray[np.float64]:
    """:func:`power_exponent` per sample: drawn where its source is a field given as a distribution; a fitted law's
    is drawn at the system's own ``hardware.power_exponent`` (unset, so only a default spread is ever there:
    :mod:`rackcost.analysis.default_spreads`), else it keeps its central value."""
    central, source = power_exponent(scenario, index)
    return get(f"systems[{index}].hardware.power_exponent" if source.startswith("fitted law") else source, central)


def api_inputs(
    scenario: Scenario, index: int, values: Samples, n: int
) -> tuple[NDArray[np.float64], NDArray[np.float64], float | None, NDArray[np.float64] | None]:
    """An API system's inputs per sample: offered load ``(n, points)``, price per request ``(n, 1)``, rate limit,
    and with request classes each class's price per request ``(n, K)`` (else None); the price is their
    share-weighted mean.

    Parameters
    ----------
    scenario
        The scenario.
    index
        The API system's index in ``scenario.systems``.
    values
        Sampled inputs by YAML path (demand rates and the API's prices may be sampled).
    n
        Samples [-].
    """
    from rackcost.model.costs.api import api_usd_per_request

    system = scenario.systems[index]
    api = system.api
    assert api is not None  # the caller iterates API systems only
    prefix = f"systems[{index}].api"

    def get(path: str, central: float) -> NDArray[np.float64]:
        sample = values.get(path)
        return np.full((n, 1), float(central)) if sample is None else np.asarray(sample, float).reshape(n, 1)

    offered = np.hstack([get(f"demand[{j}].arrival_rps", d.arrival_rps) for j, d in enumerate(scenario.demand)])
    cached = api.usd_per_million_cached_input_tokens
    input_price = get(f"{prefix}.usd_per_million_input_tokens", api.usd_per_million_input_tokens)
    output_price = get(f"{prefix}.usd_per_million_output_tokens", api.usd_per_million_output_tokens)
    cached_fraction = get(f"{prefix}.cached_input_fraction", api.cached_input_fraction)
    classes = scenario.workload.classes
    if classes is None:
        price = api_usd_per_request(
            scenario.workload.input_tokens_per_request,
            scenario.workload.output_tokens_per_request,
            input_price,
            output_price,
            get(f"{prefix}.usd_per_million_cached_input_tokens", 0.0 if cached is None else cached),
            cached_fraction,
        )
        return offered, price, api.rate_limit_rps, None
    # with classes: each class's tokens at the prices, its own prefix hits billed at the cached price (the input
    # price where the API states none: no discount), the API's cached_input_fraction for a class that gives none
    mix = class_mix(scenario)
    assert mix is not None
    cached_price = input_price if cached is None else get(f"{prefix}.usd_per_million_cached_input_tokens", cached)
    fraction = np.hstack(
        [
            np.full((n, 1), c.prefix_hit_fraction) if "prefix_hit_fraction" in c.model_fields_set else cached_fraction
            for c in classes
        ]
    )
    per_class = api_usd_per_request(
        mix.input_tokens, mix.output_tokens, input_price, output_price, cached_price, fraction
    )
    price = np.sum(mix.share_fraction * per_class, axis=1, keepdims=True)
    return offered, price, api.rate_limit_rps, per_class
