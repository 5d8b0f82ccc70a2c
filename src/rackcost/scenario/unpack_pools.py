"""A disaggregated system's pools as plain inputs: each pool unpacked as a system of its own.

Each pool is turned into the system it would be alone (:func:`pool_system`: its curve as operating points of one
replica, its hardware, costs or rent, and for the decode pool its memory, each the pool's own or else the
system's), and unpacked by the aggregated systems' own functions (:func:`rackcost.scenario.unpack.system_inputs`,
:func:`~rackcost.scenario.unpack.sampled_inputs`), so that derates, facility overrides, power laws, payment and the
KV-cache limit mean the same for a pool as for a system. Then:

- the prefill pool's curve holds a slot for the prefill time (``S = c / mu = T_p``) and its TTFT is the prefill
  time plus the KV transfer;
- the decode pool's curve holds a slot for ``c x OSL / output tokens/s`` (``OSL x TPOT`` by default) and its TTFT
  is 0: its part of the SLO is the TPOT limit;
- the system as the tables, warnings and feasibility checks read it is the decode pool with the TTFT of the fastest
  prefill and the transfer (:attr:`rackcost.model.inputs.SystemInputs.pools` holds the two pools).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from rackcost.model.fleets.disaggregation import kv_transfer_ms, prefill_service_s
from rackcost.model.inputs import PoolInputs, SampledInputs, SystemInputs
from rackcost.model.replica.memory import (
    DEFAULT_KV_BYTES_PER_ELEMENT,
    kv_bytes_per_request,
    kv_bytes_per_token_gqa,
    kv_bytes_per_token_mla,
)
from rackcost.model.replica.performance import Curve
from rackcost.scenario.pool_blocks import DecodePool, Pools, PrefillPool
from rackcost.scenario.schema import Scenario, System
from rackcost.scenario.systems import OperatingPoint, Performance, TokenBasis
from rackcost.scenario.unpack import Samples, sampled_inputs, system_inputs
from rackcost.units import MS_PER_S, W_PER_KW

__all__ = [
    "POOL_ROLES",
    "any_system_inputs",
    "pool_sampled_inputs",
    "pool_system",
    "pooled_system_inputs",
    "transfer_bytes_per_request",
]

POOL_ROLES = ("prefill", "decode")
"""The two pools of a disaggregated system, in the order the tables list them."""


def _lengths(scenario: Scenario, pools: Pools) -> tuple[float, float]:
    """ISL and OSL the pools' curves were measured at (default the workload's) [tokens]."""
    w = scenario.workload
    isl = pools.benchmark_input_tokens or w.input_tokens_per_request
    osl = pools.benchmark_output_tokens or w.output_tokens_per_request
    return float(isl), float(osl)


def _performance(scenario: Scenario, system: System, role: str) -> Performance:
    """A pool's curve as the operating points of one replica of an aggregated system (per replica, total tokens for
    the prefill pool and output tokens for the decode pool, so that ``c / mu`` is the pool's slot holding time)."""
    pools = system.pools
    assert pools is not None  # the caller unpacks disaggregated systems only
    pool = pools.pool(role)
    hardware = pool.hardware or system.hardware
    assert hardware is not None  # System._one_way_to_pay
    apr = hardware.accelerators_per_replica if pool.throughput_per == "accelerator" else 1
    isl, osl = _lengths(scenario, pools)
    points = []
    if isinstance(pool, PrefillPool):
        for p in pool.points:
            tps = None if p.input_tokens_per_s is None else p.input_tokens_per_s * apr
            service_s = float(prefill_service_s(p.concurrency, p.prefill_ms, tps, isl))
            points.append(
                OperatingPoint.model_construct(
                    concurrency=p.concurrency,
                    throughput_tokens_per_s=p.concurrency / service_s * (isl + osl),
                    tpot_ms=MS_PER_S,  # none of the prefill pool's: the decode pool's is set once it is chosen
                    interactivity_tokens_per_s=None,
                    ttft_ms=service_s * MS_PER_S,
                    power_w_per_accelerator=p.power_w_per_accelerator,
                    peak_power_w_per_accelerator=None,
                    energy_j_per_output_token=None,
                    output_throughput_tokens_per_s=None,
                )
            )
        basis = TokenBasis.total
    else:
        assert isinstance(pool, DecodePool)
        for d in pool.points:
            tpot = d.tpot_ms_value
            out = d.concurrency * MS_PER_S / tpot if d.output_tokens_per_s is None else d.output_tokens_per_s * apr
            points.append(
                OperatingPoint.model_construct(
                    concurrency=d.concurrency,
                    throughput_tokens_per_s=out,
                    tpot_ms=tpot,
                    interactivity_tokens_per_s=None,
                    ttft_ms=0.0,  # the decode pool adds no TTFT of its own (its wait budget is 0)
                    power_w_per_accelerator=d.power_w_per_accelerator,
                    peak_power_w_per_accelerator=None,
                    energy_j_per_output_token=None,
                    output_throughput_tokens_per_s=out,
                )
            )
        basis = TokenBasis.output
    return Performance.model_construct(
        token_basis=basis,
        throughput_per="replica",
        points=points,
        claim=None,
        benchmark_model=pools.benchmark_model,
        benchmark_revision=pools.benchmark_revision,
        benchmark_precision=pools.benchmark_precision,
        benchmark_input_tokens=isl,
        benchmark_output_tokens=osl,
        framework=pools.framework,
        speculative_decoding=pools.speculative_decoding,
        decode_accelerators_per_replica=None,
        roles=None,
    )


def pool_system(scenario: Scenario, system: System, role: str) -> System:
    """One pool of a disaggregated system as the aggregated system it would be alone: its curve, its hardware,
    costs or rent (the pool's own, else the system's) and, for the decode pool, its memory (likewise)."""
    pools = system.pools
    assert pools is not None  # the caller unpacks disaggregated systems only
    pool = pools.pool(role)
    own_payment = pool.costs is not None or pool.rent is not None
    memory = None
    if isinstance(pool, DecodePool):
        memory = pool.memory if pool.memory is not None else system.memory
    return system.model_copy(
        update={
            "name": f"{system.name}: {role} pool",
            "performance": _performance(scenario, system, role),
            "hardware": pool.hardware or system.hardware,
            "costs": pool.costs if own_payment else system.costs,
            "rent": pool.rent if own_payment else system.rent,
            "memory": memory,
            "pools": None,
        }
    )


def transfer_bytes_per_request(scenario: Scenario, system: System) -> float:
    """KV bytes of one request's input sent from prefill to decode [bytes].

    ``kv_transfer.kv_bytes_per_token``, else the decode pool's memory block's ``kv_bytes_per_token``, else the shape
    of ``workload.architecture`` (MLA or grouped-query, sliding-window layers sending only their window) at
    ``kv_transfer.kv_bytes_per_element`` (else the memory block's, else 2), times the input tokens.
    """
    pools = system.pools
    assert pools is not None and pools.kv_transfer is not None and pools.decode is not None  # Pools._both_pools
    isl = float(scenario.workload.input_tokens_per_request)
    transfer = pools.kv_transfer
    memory = pools.decode.memory if pools.decode.memory is not None else system.memory
    if transfer.kv_bytes_per_token is not None:
        return float(transfer.kv_bytes_per_token) * isl
    if memory is not None and memory.kv_bytes_per_token is not None:
        return float(memory.kv_bytes_per_token) * isl
    arch = scenario.workload.architecture
    assert arch is not None and arch.layers is not None  # pool_blocks.pool_problems
    element = transfer.kv_bytes_per_element
    if element is None:
        element = memory.kv_bytes_per_element if memory is not None else None
    element = DEFAULT_KV_BYTES_PER_ELEMENT if element is None else element

    def per_layers(layers: int) -> float:
        if arch.kv_lora_rank is not None and arch.qk_rope_head_dim is not None:
            return float(kv_bytes_per_token_mla(layers, arch.kv_lora_rank, arch.qk_rope_head_dim, element))
        assert arch.kv_heads is not None and arch.head_dim is not None  # Architecture._one_shape
        return float(kv_bytes_per_token_gqa(layers, arch.kv_heads, arch.head_dim, element))

    windowed = arch.sliding_window_layers or 0
    window_bytes = per_layers(windowed) if windowed else 0.0
    window_tokens = float(arch.sliding_window_tokens or 0.0)
    return float(kv_bytes_per_request(isl, per_layers(arch.layers - windowed), window_bytes, window_tokens))


def _with_ttft(curve: Curve, ttft_ms: np.ndarray | float) -> Curve:
    return replace(curve, ttft_ms=np.broadcast_to(np.asarray(ttft_ms, dtype=float), curve.ttft_ms.shape).copy())


def _headline(prefill: SystemInputs, decode: SystemInputs) -> float:
    """Peak tokens/s per kW of rated accelerator power of the two pools serving the same requests: each request
    takes ``1 / mu_max`` of a replica of each pool at its peak [tokens/s/kW]."""
    tokens = float(decode.curve.total_tokens_per_s[0] / decode.curve.request_rps[0])
    kw_s_per_request = sum(
        inp.accelerators_per_replica * inp.rated_w / W_PER_KW / float(np.max(inp.curve.request_rps))
        for inp in (prefill, decode)
    )
    return tokens / kw_s_per_request


def pooled_system_inputs(scenario: Scenario, system: System) -> SystemInputs:
    """A disaggregated system's inputs: the system as the tables read it, with its two pools in ``pools``.

    See the module docstring for what each curve holds.
    """
    pools = system.pools
    assert pools is not None and pools.kv_transfer is not None  # the caller unpacks disaggregated systems only
    prefill = system_inputs(scenario, pool_system(scenario, system, "prefill"))
    decode = system_inputs(scenario, pool_system(scenario, system, "decode"))
    kv_bytes = transfer_bytes_per_request(scenario, system)
    transfer = float(kv_transfer_ms(kv_bytes, pools.kv_transfer.bandwidth_gb_per_s))
    prefill = replace(
        prefill,
        curve=_with_ttft(prefill.curve, prefill.curve.ttft_ms + transfer),
        coarse=_with_ttft(prefill.coarse, prefill.coarse.ttft_ms + transfer),
    )
    fastest_ms = float(np.min(prefill.coarse.ttft_ms))
    two = PoolInputs(
        prefill=prefill,
        decode=decode,
        transfer_ms=transfer,
        kv_bytes_per_request=kv_bytes,
        bandwidth_gb_per_s=float(pools.kv_transfer.bandwidth_gb_per_s),
        decode_miss_share=float(pools.decode_miss_share_fraction),
    )
    return replace(
        decode,
        name=system.name,
        curve=_with_ttft(decode.curve, fastest_ms),
        coarse=_with_ttft(decode.coarse, fastest_ms),
        headline_tokens_per_s_per_kw=_headline(prefill, decode),
        headline_power_basis="rated accelerator power of both pools (derived from their curves)",
        headline_is_claim=False,
        pools=two,
    )


def any_system_inputs(scenario: Scenario, system: System) -> SystemInputs:
    """A hardware system's inputs, aggregated (:func:`rackcost.scenario.unpack.system_inputs`) or disaggregated
    (:func:`pooled_system_inputs`): what the chain, the feasibility checks and the servable systems read."""
    return system_inputs(scenario, system) if system.pools is None else pooled_system_inputs(scenario, system)


def pool_sampled_inputs(
    scenario: Scenario, index: int, role: str, inp: SystemInputs, values: Samples, n: int
) -> SampledInputs:
    """One pool's per-sample inputs (:func:`rackcost.scenario.unpack.sampled_inputs` of :func:`pool_system`).

    A pool that gives its own hardware, costs or rent does not take the system's sampled figures of that block
    (a distribution stands only at the system's blocks, :data:`rackcost.scenario.schema.UNCERTAIN_PATHS`).
    """
    system = scenario.systems[index]
    pools = system.pools
    assert pools is not None
    pool = pools.pool(role)
    own = []
    if pool.hardware is not None:
        own.append("hardware")
    if pool.costs is not None or pool.rent is not None:
        own += ["costs", "rent"]
    prefix = f"systems[{index}]."
    kept = {k: v for k, v in values.items() if not any(k.startswith(f"{prefix}{block}.") for block in own)}
    systems = list(scenario.systems)
    systems[index] = pool_system(scenario, system, role)
    return sampled_inputs(scenario.model_copy(update={"systems": systems}), index, inp, kept, n)
