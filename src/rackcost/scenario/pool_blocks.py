"""The scenario blocks of disaggregated prefill/decode serving (docs/model.md, Disaggregated prefill and decode): a
system's ``pools`` and a measured curve's ``roles``. Part of the scenario schema (:mod:`rackcost.scenario.schema`); the
numbers are :mod:`rackcost.model.fleets.disaggregation`'s.

``systems[i].pools`` makes a system disaggregated, in place of its ``performance``: a **prefill pool** and a
**decode pool**, each with its own curve and optionally its own ``hardware`` and ``costs`` or ``rent`` (else the
system's), and the **KV transfer** between them. Each pool is sized, powered and costed on its own; the system is
both together (docs/model.md, "Disaggregated prefill and decode").

``systems[i].performance.roles`` is something else: a *measured* curve of a whole disaggregated deployment (an
InferenceX multi-node row), kept as measured, and how its accelerators split between prefill and decode workers.
"""

from collections.abc import Sequence
from typing import Annotated, Any, Literal, Self

from pydantic import Field, model_validator

from rackcost.model.fleets.disaggregation import DEFAULT_DECODE_MISS_SHARE
from rackcost.scenario.distributions import NOT_BOOL
from rackcost.scenario.fields import (
    AcceleratorCount,
    AcceleratorW,
    BytesPerElement,
    Concurrency,
    Count,
    Interactivity,
    LatencyMs,
    ScenarioBlock,
    Source,
    Throughput,
    Tokens,
    raise_problems,
)
from rackcost.scenario.hardware_blocks import Costs, Hardware, Rent
from rackcost.scenario.memory_blocks import SHAPE_WORDS, Architecture, Memory, memory_problems

__all__ = [
    "DecodePoint",
    "DecodePool",
    "KvTransfer",
    "PoolRole",
    "Pools",
    "PrefillPoint",
    "PrefillPool",
    "Roles",
    "pool_problems",
]

BandwidthGbPerS = Annotated[float, Field(ge=0.001, le=100000.0, allow_inf_nan=False), NOT_BOOL]
"""Link bandwidth one KV transfer gets: a MB/s to 100 TB/s [GB/s]."""
TransferBytesPerToken = Annotated[float, Field(ge=0, le=1000000000.0, allow_inf_nan=False), NOT_BOOL]
"""KV bytes a token sends from prefill to decode: 0 (no transfer, e.g. one accelerator) to a GB."""
MissShare = Annotated[float, Field(ge=0.01, le=0.99, allow_inf_nan=False), NOT_BOOL]
"""A pool's share of the SLO's allowed misses: each pool keeps at least 1%."""


class PrefillPoint(ScenarioBlock):
    """One measured operating point of a prefill replica: how long a prefill takes at a batch."""

    concurrency: Concurrency = Field(
        default=1.0, description="Prefills in flight per replica (its batch); default 1; 1e-3 to 1e7 [requests]."
    )
    prefill_ms: LatencyMs | None = Field(
        default=None,
        description="Time of one prefill at this batch, without queueing (the prefill replica's TTFT); or give "
        "input_tokens_per_s; 1e-3 to 1e7 [ms].",
    )
    input_tokens_per_s: Throughput | None = Field(
        default=None,
        description="Input tokens per second at this batch, per replica or per accelerator (throughput_per); the "
        "prefill time is concurrency x ISL / this; 1e-3 to 1e10 [tokens/s].",
    )
    power_w_per_accelerator: AcceleratorW | None = Field(
        default=None, description="Measured accelerator (board) power at this point; 1 to 1e5 [W]."
    )

    @model_validator(mode="after")
    def _one_time_form(self) -> Self:
        if (self.prefill_ms is None) == (self.input_tokens_per_s is None):
            raise ValueError("give exactly one of prefill_ms and input_tokens_per_s")
        return self


class DecodePoint(ScenarioBlock):
    """One measured operating point of a decode replica: its TPOT at a batch."""

    concurrency: Concurrency = Field(description="Requests decoding per replica (its batch); 1e-3 to 1e7 [requests].")
    tpot_ms: LatencyMs | None = Field(default=None, description="Time per output token; 1e-3 to 1e7 [ms].")
    interactivity_tokens_per_s: Interactivity | None = Field(
        default=None, description="Output tokens per second per user = 1000 / TPOT; 1e-4 to 1e6 [tokens/s]."
    )
    output_tokens_per_s: Throughput | None = Field(
        default=None,
        description="Output tokens per second at this batch, per replica or per accelerator (throughput_per); "
        "default concurrency x 1000 / TPOT (every slot decoding); 1e-3 to 1e10 [tokens/s].",
    )
    power_w_per_accelerator: AcceleratorW | None = Field(
        default=None, description="Measured accelerator (board) power at this point; 1 to 1e5 [W]."
    )

    @model_validator(mode="after")
    def _one_latency_form(self) -> Self:
        if (self.tpot_ms is None) == (self.interactivity_tokens_per_s is None):
            raise ValueError("give exactly one of tpot_ms and interactivity_tokens_per_s")
        return self

    @property
    def tpot_ms_value(self) -> float:
        """Time per output token [ms], whichever way it was given."""
        if self.tpot_ms is not None:
            return self.tpot_ms
        assert self.interactivity_tokens_per_s is not None  # _one_latency_form: one of the two is given
        return 1000.0 / self.interactivity_tokens_per_s


def _distinct_concurrencies(points: Sequence[PrefillPoint | DecodePoint]) -> None:
    known = [p.concurrency for p in points]
    if len(set(known)) != len(known):
        raise ValueError(f"points: operating points repeat a concurrency: {sorted(known)}")


def _one_way_to_pay(pool: "PrefillPool | DecodePool") -> None:
    if pool.costs is not None and pool.rent is not None:
        raise ValueError("rent: a pool is owned (costs) or rented (rent), not both")


class PrefillPool(ScenarioBlock):
    """The replicas that run prefills: their curve, and their hardware and costs where they differ from the system's."""

    points: list[PrefillPoint] = Field(min_length=1, description="Prefill time (or input throughput) at each batch.")
    throughput_per: Literal["replica", "accelerator"] = Field(
        default="replica", description="Whether input_tokens_per_s is per replica or per accelerator."
    )
    hardware: Hardware | None = Field(default=None, description="The prefill replicas' hardware; default the system's.")
    costs: Costs | None = Field(default=None, description="Owning them; default the system's costs or rent.")
    rent: Rent | None = Field(default=None, description="Renting them; default the system's costs or rent.")
    source: Source = None

    @model_validator(mode="after")
    def _checks(self) -> Self:
        _distinct_concurrencies(self.points)
        _one_way_to_pay(self)
        return self


class DecodePool(ScenarioBlock):
    """The replicas that decode: their curve, hardware, costs and memory where they differ from the system's."""

    points: list[DecodePoint] = Field(min_length=1, description="TPOT (and output throughput) at each batch.")
    throughput_per: Literal["replica", "accelerator"] = Field(
        default="replica", description="Whether output_tokens_per_s is per replica or per accelerator."
    )
    hardware: Hardware | None = Field(default=None, description="The decode replicas' hardware; default the system's.")
    costs: Costs | None = Field(default=None, description="Owning them; default the system's costs or rent.")
    rent: Rent | None = Field(default=None, description="Renting them; default the system's costs or rent.")
    memory: Memory | None = Field(
        default=None,
        description="The decode replicas' memory for the KV-cache limit; default the system's memory block.",
    )
    source: Source = None

    @model_validator(mode="after")
    def _checks(self) -> Self:
        _distinct_concurrencies(self.points)
        _one_way_to_pay(self)
        return self


class KvTransfer(ScenarioBlock):
    """How a request's KV cache goes from its prefill replica to its decode replica."""

    bandwidth_gb_per_s: BandwidthGbPerS = Field(
        description="Link bandwidth one request's transfer gets end to end (e.g. one 400 Gb/s NIC: 50); 1e-3 to "
        "1e5 [GB/s, 10^9 bytes/s]."
    )
    kv_bytes_per_token: TransferBytesPerToken | None = Field(
        default=None,
        description="KV bytes one input token sends (0: no transfer); default the decode pool's memory block, else "
        "the shape of workload.architecture at kv_bytes_per_element; 0 to 1e9 [bytes/token].",
    )
    kv_bytes_per_element: BytesPerElement | None = Field(
        default=None,
        description="Bytes of one sent key or value element, for the shape of workload.architecture; default the "
        "decode memory block's, else 2 (a 16-bit cache); 0.05 to 16 [bytes].",
    )
    source: Source = None

    @model_validator(mode="after")
    def _one_size(self) -> Self:
        if self.kv_bytes_per_token is not None and self.kv_bytes_per_element is not None:
            raise ValueError(
                "kv_bytes_per_element: kv_bytes_per_token already counts the cache's precision: give one of the two"
            )
        return self


class Pools(ScenarioBlock):
    """A disaggregated system's two pools and the KV transfer between them (in place of ``performance``)."""

    prefill: PrefillPool | None = Field(default=None, description="The prefill pool (needs a decode pool).")
    decode: DecodePool | None = Field(default=None, description="The decode pool (needs a prefill pool).")
    kv_transfer: KvTransfer | None = Field(default=None, description="The link from prefill to decode replicas.")
    decode_miss_share_fraction: MissShare = Field(
        default=DEFAULT_DECODE_MISS_SHARE,
        description="Share of the SLO's allowed misses (1 - attainment) the decode pool is sized for (a request "
        "that finds no free decode slot misses); the prefill pool has the rest; default 0.5; 0.01 to 0.99 [-].",
    )
    benchmark_model: str | None = Field(default=None, description="Model the pools' curves were measured on.")
    benchmark_revision: str | None = None
    benchmark_precision: str | None = None
    benchmark_input_tokens: Tokens | None = Field(
        default=None, description="ISL the curves were measured at; default the workload's; 1 to 1e7 [tokens]."
    )
    benchmark_output_tokens: Tokens | None = Field(
        default=None, description="OSL the curves were measured at; default the workload's; 1 to 1e7 [tokens]."
    )
    framework: str | None = None
    speculative_decoding: str | None = None
    source: Source = None

    @model_validator(mode="after")
    def _both_pools(self) -> Self:
        problems = []
        if self.prefill is not None and self.decode is None:
            problems.append(
                (
                    "decode",
                    "a prefill pool needs a decode pool to hand its requests to: give pools.decode with its points "
                    "(concurrency and tpot_ms), or remove pools and give performance for an aggregated system",
                )
            )
        if self.decode is not None and self.prefill is None:
            problems.append(
                (
                    "prefill",
                    "a decode pool needs a prefill pool in front of it: give pools.prefill with its points "
                    "(concurrency and prefill_ms), or remove pools and give performance for an aggregated system",
                )
            )
        if self.prefill is None and self.decode is None:
            problems.append(("prefill", "give a prefill pool and a decode pool (pools.prefill and pools.decode)"))
        if self.kv_transfer is None:
            problems.append(
                (
                    "kv_transfer",
                    "the KV transfer from prefill to decode is missing: give kv_transfer.bandwidth_gb_per_s (and "
                    "kv_bytes_per_token: 0 for none)",
                )
            )
        raise_problems(problems)
        return self

    def pool(self, role: str) -> PrefillPool | DecodePool:
        """The ``prefill`` or ``decode`` pool (both are given once the block is valid)."""
        pool = self.prefill if role == "prefill" else self.decode
        assert pool is not None  # _both_pools
        return pool


class PoolRole(ScenarioBlock):
    """The workers of one role in a measured disaggregated deployment."""

    workers: Count = Field(description="Workers (engine instances) of this role in one replica; 1 to 1e6.")
    accelerators: AcceleratorCount = Field(
        description="Accelerators of this role in one replica, all its workers together; 1 to 1e5."
    )

    @model_validator(mode="after")
    def _whole_workers(self) -> Self:
        if self.accelerators % self.workers:
            raise ValueError(
                f"accelerators: {self.accelerators} accelerators do not split evenly over {self.workers} workers"
            )
        return self

    @property
    def accelerators_per_worker(self) -> int:
        """Accelerators of one worker [-]."""
        return self.accelerators // self.workers


class Roles(ScenarioBlock):
    """How a measured disaggregated replica's accelerators split between its prefill and decode workers."""

    prefill: PoolRole
    decode: PoolRole
    source: Source = None


def pool_problems(
    architecture: Architecture | None, systems: Sequence[Any], fixed_replicas: int | None = None
) -> list[tuple[str, str]]:
    """What a disaggregated system's pools need from the rest of the scenario, and miss.

    The KV bytes per token of the transfer (its own, the decode memory's, or ``workload.architecture``'s shape), and
    what the decode pool's own ``memory`` block needs (:func:`rackcost.scenario.memory_blocks.memory_problems`); a
    measured curve's ``roles`` add up to its replica.

    Parameters
    ----------
    architecture
        ``workload.architecture``, or None.
    systems
        The scenario's systems.
    fixed_replicas
        ``fleet.replicas``: one count for every system, which a disaggregated system (two pools) cannot take.

    Returns
    -------
    list of (path, message)
        Paths relative to the scenario (``systems[1].pools.kv_transfer``).
    """
    out = []
    shaped = architecture is not None and architecture.has_shape
    for i, system in enumerate(systems):
        at = f"systems[{i}]"
        perf, hw = getattr(system, "performance", None), getattr(system, "hardware", None)
        roles = None if perf is None else perf.roles
        if perf is not None and roles is not None and hw is not None:
            total = roles.prefill.accelerators + roles.decode.accelerators
            if total != hw.accelerators_per_replica:
                out.append(
                    (
                        f"{at}.performance.roles",
                        f"{roles.prefill.accelerators} prefill + {roles.decode.accelerators} decode accelerators "
                        f"make {total}, but hardware.accelerators_per_replica is {hw.accelerators_per_replica}",
                    )
                )
            decode = perf.decode_accelerators_per_replica
            if decode is not None and decode != roles.decode.accelerators:
                out.append(
                    (
                        f"{at}.performance.decode_accelerators_per_replica",
                        f"is {decode}, but roles.decode.accelerators is {roles.decode.accelerators}: give one",
                    )
                )
        pools = getattr(system, "pools", None)
        if pools is None or pools.decode is None or pools.kv_transfer is None:
            continue
        if fixed_replicas is not None:
            out.append(
                (
                    "fleet.replicas",
                    f"{system.name!r} ({at}) is disaggregated: its prefill and decode pools are sized each on its "
                    "own, and one replica count cannot fix both; remove fleet.replicas to size every fleet",
                )
            )
        memory = pools.decode.memory if pools.decode.memory is not None else system.memory
        out += [
            (path.replace("systems[0].memory", f"{at}.pools.decode.memory"), message)
            for path, message in memory_problems(architecture, [pools.decode.memory])
        ]
        given = pools.kv_transfer.kv_bytes_per_token is not None
        from_memory = memory is not None and memory.kv_bytes_per_token is not None
        if not (given or from_memory or shaped):
            out.append(
                (
                    f"{at}.pools.kv_transfer",
                    "the KV bytes per token the transfer sends are missing: give kv_bytes_per_token, or a decode "
                    f"memory block with kv_bytes_per_token, or workload.architecture with {SHAPE_WORDS}",
                )
            )
    return out
