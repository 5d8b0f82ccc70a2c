"""Disaggregated prefill/decode serving: the numbers of two pools behind one system (docs/model.md).

A disaggregated system runs each request's prefill on a replica of its **prefill pool**, sends the KV cache of the
input over a link to a replica of its **decode pool**, and decodes the output there. Each pool is its own queue of
``N x c`` slots (Erlang C, or G/G/c as the aggregated pool, :mod:`rackcost.model.queues.routing`):

- the prefill pool holds a slot for the prefill time ``S_p = T_p(c_p)`` (the prefill replica's TTFT at its batch);
- the KV transfer takes ``T_kv = ISL x KV bytes per token / bandwidth`` and holds no slot of either pool;
- the decode pool holds a slot for ``S_d = c_d / mu_d(c_d)``, about ``OSL x TPOT(c_d)``.

So ``TTFT = W_p + T_p + T_kv`` and TPOT is the decode pool's at its batch. **How the SLO is split:** the TTFT limit
(and the end-to-end limit) apply to the prefill pool, whose queueing budget is ``TTFT limit - T_p - T_kv`` (or the
end-to-end slack with the decode pool's TPOT, when smaller); the TPOT limit applies to the decode pool, which has
no wait budget: a request that finds no free decode slot is a miss. The SLO's misses, ``1 - attainment``, are shared
between the pools (``decode_miss_share``, default half each), each pool sized to its share, so that by the union
bound the system's attainment is at least the target; a request is accepted when it meets both pools' parts, taken
as independent: ``accepted = admitted (1 - miss_p) (1 - miss_d)``. The system admits what both pools can carry
within their shares (the smaller capacity at SLO).

Pure numpy; the pools' queues are :mod:`rackcost.model.queues.routing`'s, the same functions as the aggregated pool.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from rackcost.model.fleets.sizing import sized_replicas
from rackcost.model.queues import routing as routes
from rackcost.model.strategies import DEFAULT_ROUTING
from rackcost.units import MS_PER_S

__all__ = [
    "BYTES_PER_GB",
    "DEFAULT_DECODE_MISS_SHARE",
    "decode_service_s",
    "harmonic_tokens_per_kwh",
    "joint_accepted_rps",
    "kv_transfer_ms",
    "pool_replicas",
    "prefill_budget_s",
    "prefill_service_s",
    "split_miss_target",
    "system_ttft_ms",
]

Array = NDArray[np.float64]

BYTES_PER_GB = 1e9
"""Bytes in a GB of link bandwidth (decimal, as network and interconnect rates are quoted) [bytes]."""
DEFAULT_DECODE_MISS_SHARE = 0.5
"""Share of the SLO's allowed misses given to the decode pool by default; the prefill pool has the rest [-]."""


def kv_transfer_ms(kv_bytes_per_request: ArrayLike, bandwidth_gb_per_s: ArrayLike) -> Array:
    """Time to send one request's KV cache from its prefill replica to its decode replica [ms].

    ``T_kv = bytes / bandwidth``, the bandwidth one request's transfer gets end to end.

    Parameters
    ----------
    kv_bytes_per_request
        KV bytes of the request's input (ISL x KV bytes per token,
        :func:`rackcost.model.replica.memory.kv_bytes_per_request` at the input length) [bytes].
    bandwidth_gb_per_s
        Link bandwidth one transfer gets [GB/s, 10^9 bytes/s].

    Examples
    --------
    DeepSeek R1's MLA cache keeps 70,272 B per token (BF16); 8,192 input tokens are 575.7 MB, over a 50 GB/s link
    11.51 ms:

    >>> round(float(kv_transfer_ms(8192 * 70272, 50.0)), 2)
    11.51
    """
    return (
        np.asarray(kv_bytes_per_request, dtype=float)
        / (np.asarray(bandwidth_gb_per_s, dtype=float) * BYTES_PER_GB)
        * MS_PER_S
    )


def split_miss_target(
    miss_target_fraction: float, decode_miss_share: float = DEFAULT_DECODE_MISS_SHARE
) -> tuple[float, float]:
    """The SLO's allowed misses shared between the pools: (prefill pool's, decode pool's) [-, -].

    Each pool is sized so that at most its share of requests misses its part of the SLO; by the union bound, at
    most ``prefill + decode = miss_target`` miss either.

    Examples
    --------
    >>> split_miss_target(0.01)
    (0.005, 0.005)
    >>> tuple(round(x, 6) for x in split_miss_target(0.01, 0.8))
    (0.002, 0.008)
    """
    decode = miss_target_fraction * decode_miss_share
    return miss_target_fraction - decode, decode


def prefill_service_s(
    concurrency: ArrayLike,
    prefill_ms: ArrayLike | None = None,
    input_tokens_per_s: ArrayLike | None = None,
    input_tokens: ArrayLike | None = None,
) -> Array:
    """How long a prefill holds a slot of its replica, ``S_p`` [s]: its prefill time, given or from throughput.

    Given the prefill time at the batch, ``S_p = T_p``; given the replica's input throughput at that batch,
    Little's law on the replica, ``S_p = c x ISL / input tokens/s``.

    Examples
    --------
    A batch of 4 prefills of 8,192 tokens at 65,536 input tokens/s: each holds its slot 0.5 s.

    >>> float(prefill_service_s(4.0, input_tokens_per_s=65536.0, input_tokens=8192.0))
    0.5
    >>> float(prefill_service_s(1.0, prefill_ms=250.0))
    0.25
    """
    if prefill_ms is not None:
        return np.asarray(prefill_ms, dtype=float) / MS_PER_S
    if input_tokens_per_s is None or input_tokens is None:
        raise ValueError("give prefill_ms, or input_tokens_per_s with input_tokens")
    c = np.asarray(concurrency, dtype=float)
    return c * np.asarray(input_tokens, dtype=float) / np.asarray(input_tokens_per_s, dtype=float)


def decode_service_s(
    concurrency: ArrayLike,
    output_tokens: ArrayLike,
    tpot_ms: ArrayLike,
    output_tokens_per_s: ArrayLike | None = None,
) -> Array:
    """How long a request holds a slot of its decode replica, ``S_d`` [s].

    Given the replica's output throughput at the batch, Little's law on the replica: ``S_d = c x OSL / output
    tokens/s``; without it every slot decodes one token per TPOT: ``S_d = OSL x TPOT``.

    Examples
    --------
    1,024 output tokens at 25 ms each: 25.6 s; a batch of 64 at 2,048 output tokens/s: 32 s.

    >>> float(decode_service_s(64.0, 1024.0, 25.0)), float(decode_service_s(64.0, 1024.0, 25.0, 2048.0))
    (25.6, 32.0)
    """
    osl = np.asarray(output_tokens, dtype=float)
    if output_tokens_per_s is None:
        return osl * np.asarray(tpot_ms, dtype=float) / MS_PER_S
    return np.asarray(concurrency, dtype=float) * osl / np.asarray(output_tokens_per_s, dtype=float)


def system_ttft_ms(prefill_ms: ArrayLike, transfer_ms: ArrayLike) -> Array:
    """TTFT of a disaggregated request before queueing: prefill time plus KV transfer [ms].

    >>> float(system_ttft_ms(180.0, 11.5))
    191.5
    """
    return np.asarray(prefill_ms, dtype=float) + np.asarray(transfer_ms, dtype=float)


def prefill_budget_s(
    ttft_limit_ms: float,
    prefill_ms: ArrayLike,
    transfer_ms: ArrayLike,
    decode_tpot_ms: ArrayLike,
    output_tokens: float,
    e2e_limit_ms: float | None = None,
) -> Array:
    """The prefill pool's queueing budget: what the TTFT limit leaves after prefill and transfer [s].

    ``TTFT limit - T_p - T_kv``, or the end-to-end slack ``e2e limit - T_p - T_kv - (OSL - 1) x TPOT_d`` when
    smaller. Negative where the pools cannot meet the SLO at these points.

    Examples
    --------
    A 2 s TTFT limit, 300 ms prefill, 12 ms transfer: 1.688 s of queueing; a 30 s end-to-end limit with 1,024
    tokens at 25 ms leaves 30 - 0.312 - 25.575 = 4.113 s, so the TTFT limit binds:

    >>> float(prefill_budget_s(2000.0, 300.0, 12.0, 25.0, 1024, 30000.0))
    1.688
    """
    ttft = system_ttft_ms(prefill_ms, transfer_ms)
    budget_ms = ttft_limit_ms - ttft
    if e2e_limit_ms is not None:
        budget_ms = np.minimum(
            budget_ms, e2e_limit_ms - ttft - (output_tokens - 1.0) * np.asarray(decode_tpot_ms, float)
        )
    return np.asarray(budget_ms, dtype=float) / MS_PER_S


def pool_replicas(
    arrival_rps: ArrayLike,
    service_s: ArrayLike,
    concurrency: ArrayLike,
    budget_s: ArrayLike,
    miss_target_fraction: float,
    max_utilization_fraction: ArrayLike = 1.0,
    routing: str = DEFAULT_ROUTING,
) -> NDArray[np.int64]:
    """Replicas one pool needs: the fewest whose share of requests waiting past the budget is at most its miss
    share, and whose slot utilisation stays under the ceiling [-].

    The aggregated pool's rule (:func:`rackcost.model.queues.routing.replicas_needed`, then
    :func:`rackcost.model.fleets.sizing.sized_replicas`) on the pool's own service time, budget and share of the misses.

    Examples
    --------
    A decode pool, no wait budget: 1 request/s holding a one-slot replica 1 s; at most 10% may wait. Erlang C with 2
    slots at 1 erlang is 1/3, with 3 slots 1/11: 3 replicas.

    >>> int(pool_replicas(1.0, 1.0, 1.0, 0.0, 0.1))
    3
    """
    needed = routes.replicas_needed(routing, arrival_rps, service_s, concurrency, budget_s, miss_target_fraction)
    return sized_replicas(needed, arrival_rps, service_s, concurrency, max_utilization_fraction)


def joint_accepted_rps(
    admitted_rps: ArrayLike, prefill_miss_fraction: ArrayLike, decode_miss_fraction: ArrayLike
) -> Array:
    """Requests that meet both pools' parts of the SLO, the two misses taken as independent [requests/s].

    ``admitted x (1 - miss_p) x (1 - miss_d)``: never more than admitted, and at least ``admitted x (1 - miss_p -
    miss_d)``, the union bound the sizing relies on.

    >>> float(joint_accepted_rps(100.0, 0.01, 0.02))
    97.02
    """
    p = np.asarray(prefill_miss_fraction, dtype=float)
    d = np.asarray(decode_miss_fraction, dtype=float)
    return np.asarray(admitted_rps, dtype=float) * (1.0 - p) * (1.0 - d)


def harmonic_tokens_per_kwh(prefill_tokens_per_kwh: ArrayLike, decode_tokens_per_kwh: ArrayLike) -> Array:
    """Tokens per kWh of the two pools serving the same requests: each request spends energy in both [tokens/kWh].

    With ``X`` tokens per kWh in each pool on the same tokens, a request of ``t`` tokens takes ``t / X_p + t / X_d``
    kWh, so together ``1 / (1 / X_p + 1 / X_d)``.

    >>> round(float(harmonic_tokens_per_kwh(3.0e6, 1.5e6)), 6)
    1000000.0
    """
    p = np.asarray(prefill_tokens_per_kwh, dtype=float)
    d = np.asarray(decode_tokens_per_kwh, dtype=float)
    return 1.0 / (1.0 / p + 1.0 / d)
