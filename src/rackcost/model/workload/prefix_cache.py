"""Prefix reuse measured on a trace: the share of input tokens a prefix cache would have served.

A trace with prefix block hashes (Mooncake's ``hash_ids``: one id per block of ``block_size_tokens`` prompt tokens,
equal ids the same prefix block) is replayed, request by request in arrival order, through a least-recently-used
(LRU) cache whose capacity counts tokens::

    hit share = sum over requests of the tokens of its blocks found in the cache / sum of input tokens

- **Block tokens.** Block ``j`` of a request of ``L`` input tokens holds ``min(B, L - j B)`` of them: every block
  is full but the last, which holds what is left (``L`` need not be a multiple of ``B``). Input tokens beyond the
  last block (a trace that hashes only part of the prompt) are never hits; a block past the input is refused.
- **One request.** Its blocks are looked up in order (a block is a hit when present; with ``prefix_only`` the hits
  stop at the first missing block, as an engine that reuses only the longest cached prefix counts them), then all
  inserted or refreshed in order, each becoming the most recently used; inserting evicts least recently used blocks
  until the cache's tokens fit its capacity (a request's own earlier blocks included). A block larger than the
  whole capacity is not kept. A hit counts the request's tokens of the block, at most those the cached copy holds;
  a block seen again with more tokens keeps the larger count.
- **Caches and routers.** One cache shared by the fleet, or one cache per replica with the requests routed as the
  fleet's router would (:func:`route_requests`, each router's own :meth:`rackcost.model.queues.routers.Router.replay`):
  the state-blind ones (``random``, ``round_robin``) need no timing; the others (``power_of_two``,
  ``least_outstanding``, ``pooled``, any registered one) are replayed through their picker from the arrival times
  with each request holding a slot for a given service time (the replicas' queues FIFO, as in
  :mod:`rackcost.model.sim.sim_engines`).
- **Cache size from memory.** A replica's prefix cache is its KV-cache pool: the free memory of
  :mod:`rackcost.model.replica.memory` divided by the bytes one cached token keeps (:func:`cache_tokens_from_memory`).

Plain Python over an :class:`collections.OrderedDict` (the standard library's LRU building block): Mooncake's
conversation hour (12,031 requests, 288,500 block references) replays in about a second a cache size.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from rackcost.model.queues.routers import Replay, Router, router_of

__all__ = [
    "DEFAULT_BLOCK_SIZE_TOKENS",
    "PrefixRequests",
    "cache_tokens_from_memory",
    "hit_fraction",
    "lru_hit_tokens",
    "prefix_requests",
    "route_requests",
    "routed_hit_tokens",
]

DEFAULT_BLOCK_SIZE_TOKENS = 512
"""Prompt tokens of one hashed block in Mooncake's traces (Qin et al., "Mooncake", FAST 2025; the released traces'
``hash_ids``, one per 512 tokens) [tokens]."""


@dataclass(frozen=True)
class PrefixRequests:
    """A request sequence's prefix blocks, in arrival order.

    Attributes
    ----------
    block_ids
        Each request's block ids, in prompt order [-].
    block_tokens
        Tokens of each of those blocks, every one at least 1 [tokens].
    input_tokens
        Each request's input tokens, at least those of its blocks [tokens].
    """

    block_ids: tuple[tuple[int, ...], ...]
    block_tokens: tuple[tuple[int, ...], ...]
    input_tokens: NDArray[np.float64]

    @property
    def requests(self) -> int:
        """Requests in the sequence [-]."""
        return len(self.block_ids)

    @property
    def block_references(self) -> int:
        """Block ids over every request [-]."""
        return sum(len(ids) for ids in self.block_ids)


def prefix_requests(
    block_ids: Sequence[ArrayLike], input_tokens: ArrayLike, block_size_tokens: int = DEFAULT_BLOCK_SIZE_TOKENS
) -> PrefixRequests:
    """Each request's blocks and their tokens: ``min(B, L - j B)`` for block ``j`` of a request of ``L`` tokens.

    Parameters
    ----------
    block_ids
        Per request, in arrival order, the ids of its prompt's blocks in order (Mooncake's ``hash_ids``) [-].
    input_tokens
        Per request, its input tokens [tokens].
    block_size_tokens
        Tokens of a full block [tokens].

    Returns
    -------
    PrefixRequests
        The blocks with their tokens.

    Raises
    ------
    ValueError
        The two sequences differ in length, a token count is not a positive finite number, the block size is not
        a positive integer, or a request has a block past its input (the message names the request, from 0).

    Examples
    --------
    1,100 tokens in blocks of 512: two full blocks and one of 76 tokens.

    >>> prefix_requests([[7, 8, 9]], [1100]).block_tokens
    ((512, 512, 76),)
    """
    if isinstance(block_size_tokens, bool) or not isinstance(block_size_tokens, int | np.integer):
        raise ValueError(f"the block size must be a whole number of tokens, got {block_size_tokens!r}")
    if block_size_tokens < 1:
        raise ValueError(f"the block size must be at least 1 token, got {block_size_tokens}")
    size = int(block_size_tokens)
    inputs = np.asarray(input_tokens, dtype=float).reshape(-1)
    if inputs.size != len(block_ids):
        raise ValueError(f"{len(block_ids):,} requests' block ids but {inputs.size:,} input token counts")
    bad = np.flatnonzero(~np.isfinite(inputs) | (inputs <= 0))
    if bad.size:
        raise ValueError(f"request {bad[0]}: input tokens must be a positive finite number, got {inputs[bad[0]]:g}")
    ids_out: list[tuple[int, ...]] = []
    tokens_out: list[tuple[int, ...]] = []
    for i, (ids, length) in enumerate(zip(block_ids, inputs.tolist(), strict=True)):
        row = np.asarray(ids).reshape(-1)
        if row.size and not np.issubdtype(row.dtype, np.integer):
            raise ValueError(f"request {i}: block ids must be integers, got {row.dtype}")
        whole = int(math.ceil(length / size))
        if row.size > whole:
            raise ValueError(
                f"request {i}: {row.size} blocks of {size} tokens, but its {length:g} input tokens fill only "
                f"{whole}: block {whole} would hold no token"
            )
        starts = np.arange(row.size) * size
        ids_out.append(tuple(row.tolist()))
        tokens_out.append(tuple(np.minimum(size, np.ceil(length - starts)).astype(np.int64).tolist()))
    return PrefixRequests(tuple(ids_out), tuple(tokens_out), inputs)


def _check_capacity(capacity_tokens: float | None) -> float:
    """A cache capacity in tokens: None or infinity for an unbounded cache, else a number >= 0."""
    if capacity_tokens is None:
        return math.inf
    capacity = float(capacity_tokens)
    if math.isnan(capacity) or capacity < 0:
        raise ValueError(f"a cache capacity must be 0 or more tokens (None: unbounded), got {capacity_tokens!r}")
    return capacity


class _LruCache:
    """An LRU cache of blocks whose capacity counts tokens (module docstring for the rules)."""

    def __init__(self, capacity_tokens: float) -> None:
        self.capacity = capacity_tokens
        self.used = 0
        self.blocks: OrderedDict[int, int] = OrderedDict()  # id -> tokens held, least recently used first

    def serve(self, ids: tuple[int, ...], tokens: tuple[int, ...], prefix_only: bool) -> int:
        """Look one request's blocks up, then insert or refresh them in order; its hit tokens [tokens]."""
        blocks = self.blocks
        hit = 0
        for block, count in zip(ids, tokens, strict=True):
            held = blocks.get(block)
            if held is None:
                if prefix_only:
                    break
                continue
            hit += min(count, held)
        capacity = self.capacity
        for block, count in zip(ids, tokens, strict=True):
            held = blocks.get(block)
            if held is not None:
                blocks.move_to_end(block)
                if count <= held:
                    continue
                del blocks[block]  # grown: held again below at its new count, if it fits
                self.used -= held
            if count > capacity:
                continue
            blocks[block] = count
            self.used += count
            while self.used > capacity:
                _, evicted = blocks.popitem(last=False)
                self.used -= evicted
        return hit


def lru_hit_tokens(
    requests: PrefixRequests, capacity_tokens: float | None, prefix_only: bool = False
) -> NDArray[np.float64]:
    """Each request's input tokens found in one LRU prefix cache of ``capacity_tokens`` (module docstring).

    Parameters
    ----------
    requests
        The request sequence (:func:`prefix_requests`).
    capacity_tokens
        Tokens the cache holds; None (or infinity) for an unbounded cache [tokens].
    prefix_only
        Count a request's hits only up to its first missing block (an engine reuses the longest cached prefix).

    Returns
    -------
    ndarray
        Hit tokens per request [tokens].

    Examples
    --------
    One prompt of two blocks, three times: the second and third find it.

    >>> r = prefix_requests([[1, 2]] * 3, [1024] * 3)
    >>> lru_hit_tokens(r, None).tolist()
    [0.0, 1024.0, 1024.0]
    """
    cache = _LruCache(_check_capacity(capacity_tokens))
    pairs = zip(requests.block_ids, requests.block_tokens, strict=True)
    return np.array([cache.serve(ids, tokens, prefix_only) for ids, tokens in pairs], dtype=float)


def routed_hit_tokens(
    requests: PrefixRequests,
    replica_of: ArrayLike,
    capacity_tokens_per_replica: float | None,
    prefix_only: bool = False,
) -> NDArray[np.float64]:
    """Each request's hit tokens when every replica keeps its own LRU cache and serves the requests routed to it.

    Parameters
    ----------
    requests
        The request sequence (:func:`prefix_requests`).
    replica_of
        Each request's replica, from 0 (:func:`route_requests`) [-].
    capacity_tokens_per_replica
        Tokens each replica's cache holds; None for unbounded [tokens].
    prefix_only
        As :func:`lru_hit_tokens`.

    Returns
    -------
    ndarray
        Hit tokens per request [tokens].

    Examples
    --------
    Two replicas in turn: the prompt reaches each replica's cache once before it hits there.

    >>> r = prefix_requests([[1, 2]] * 4, [1024] * 4)
    >>> routed_hit_tokens(r, [0, 1, 0, 1], None).tolist()
    [0.0, 0.0, 1024.0, 1024.0]
    """
    replicas = np.asarray(replica_of).reshape(-1)
    if replicas.size != requests.requests:
        raise ValueError(f"{replicas.size:,} replica indices for {requests.requests:,} requests")
    if replicas.size and (not np.issubdtype(replicas.dtype, np.integer) or replicas.min() < 0):
        raise ValueError("replica indices must be integers from 0")
    capacity = _check_capacity(capacity_tokens_per_replica)
    caches: dict[int, _LruCache] = {}
    out = np.zeros(requests.requests)
    for i, r in enumerate(replicas.tolist()):
        cache = caches.get(r)
        if cache is None:
            cache = caches[r] = _LruCache(capacity)
        out[i] = cache.serve(requests.block_ids[i], requests.block_tokens[i], prefix_only)
    return out


def hit_fraction(hit_tokens: ArrayLike, input_tokens: ArrayLike) -> float:
    """Share of the input tokens served from the cache: ``sum(hits) / sum(input)`` [-].

    Raises
    ------
    ValueError
        Without a request (the share is undefined).

    Examples
    --------
    >>> hit_fraction([0, 1024, 1024], [1024, 1024, 1024])
    0.6666666666666666
    """
    total = float(np.sum(np.asarray(input_tokens, dtype=float)))
    if not total > 0:
        raise ValueError("the hit share needs at least one request with input tokens")
    return float(np.sum(np.asarray(hit_tokens, dtype=float))) / total


def route_requests(
    routing: Router | str,
    replicas: int,
    requests: int,
    arrival_s: ArrayLike | None = None,
    service_s: ArrayLike | None = None,
    slots_per_replica: int | None = None,
    seed: int = 0,
) -> NDArray[np.int64]:
    """Each request's replica under a router, from 0.

    ``round_robin``: request ``i`` to replica ``i mod N``. ``random``: a uniform draw each. The routers that look at
    the replicas replay the arrivals with each request holding a slot for its service time, each replica queueing
    FIFO for its ``slots_per_replica`` slots (unbounded: no queue): ``least_outstanding`` to the replica with the
    fewest requests in service or queued (the lowest index on a tie), ``power_of_two`` the one with fewer of two
    drawn at random (the first on a tie), ``pooled`` one FIFO queue over every slot, a free slot on the least
    occupied replica taking an arrival and the earliest slot to free up a waiting one. A request that finishes at
    an arrival's instant is no longer outstanding. The service time is taken as given: a prefix hit that shortens a
    prefill does not shorten it here. The router replays itself (:meth:`rackcost.model.queues.routers.Router.replay`),
    so a router added to the registry is replayed by its own picker, as the simulator runs it.

    Parameters
    ----------
    routing
        The router: a name registered in :mod:`rackcost.model.queues.routers`, or a router.
    replicas
        Replicas of the fleet, at least 1 [-].
    requests
        Requests to route [-].
    arrival_s
        Arrival times, sorted (the timed routers) [s].
    service_s
        Each request's slot holding time, or one for all (the timed routers) [s].
    slots_per_replica
        Requests a replica serves at once (required for ``pooled``); None: no limit [-].
    seed
        Seed of the random draws.

    Returns
    -------
    ndarray
        The replica of each request [-].

    Examples
    --------
    >>> route_requests("round_robin", 3, 5).tolist()
    [0, 1, 2, 0, 1]

    Least outstanding with requests that last 10 s arriving a second apart: each replica in turn while all are
    busy, then back to replica 0 once its first request ends at 10 s.

    >>> route_requests("least_outstanding", 2, 4, [0, 1, 2, 10], 10.0).tolist()
    [0, 1, 0, 0]
    """
    router = router_of(routing)
    if isinstance(replicas, bool) or not isinstance(replicas, int | np.integer) or replicas < 1:
        raise ValueError(f"the fleet needs at least 1 replica, got {replicas!r}")
    n = int(requests)
    rng = np.random.default_rng(seed)
    if router.state_blind:
        return router.replay(Replay(n, int(replicas), rng))
    if arrival_s is None or service_s is None:
        raise ValueError(f"{router} routing looks at the replicas' state: it needs arrival times and a service time")
    arrivals = np.asarray(arrival_s, dtype=float).reshape(-1)
    service = np.broadcast_to(np.asarray(service_s, dtype=float), (n,)) if n else np.zeros(0)
    if arrivals.size != n:
        raise ValueError(f"{arrivals.size:,} arrival times for {n:,} requests")
    if not (np.all(np.isfinite(arrivals)) and np.all(np.isfinite(service)) and np.all(service >= 0)):
        raise ValueError("arrival times and service times must be finite, service times 0 or more")
    if np.any(np.diff(arrivals) < 0):
        raise ValueError("arrival times must be sorted")
    if slots_per_replica is not None and slots_per_replica < 1:
        raise ValueError(f"a replica needs at least 1 slot, got {slots_per_replica}")
    slots = None if slots_per_replica is None else int(slots_per_replica)
    return router.replay(Replay(n, int(replicas), rng, arrivals, service, slots))


def cache_tokens_from_memory(free_bytes: float, kv_bytes_per_token: float, copies: int = 1) -> int:
    """Tokens a replica's KV-cache pool holds: ``floor(free / (copies x B_token))``, 0 when nothing is free [tokens].

    The prefix cache of a serving engine is its KV-cache pool: vLLM keeps the blocks of finished requests in the
    pool and evicts the least recently used of them only when a new block needs room (vLLM, "Automatic Prefix
    Caching" design), and the requests in flight, whose blocks are the most recently used, share the same pool.
    So the pool's tokens are the LRU capacity. ``B_token`` counts the full-attention layers only: a model with
    sliding-window layers keeps their window besides, so its pool holds somewhat fewer tokens than this.

    Parameters
    ----------
    free_bytes
        A replica's memory left for the KV cache (:func:`rackcost.model.replica.memory.free_bytes`) [bytes].
    kv_bytes_per_token
        KV bytes one token keeps, one copy [bytes/token].
    copies
        Accelerators that each keep a copy of a request's cache [-].

    Examples
    --------
    DeepSeek R1 (671e9 parameters at 0.5625 bytes, 70,272 KV bytes a token) as the bundled InferenceX scenario
    serves it: a GB200 NVL72 rack (72 x 186 GiB, 10% reserved, one copy) holds about 179 million tokens, a DGX B200
    (8 x 180 GiB, every GPU a copy under plain TP8) about 1.8 million.

    >>> cache_tokens_from_memory(72 * 186 * 2**30 * 0.9 - 671e9 * 0.5625, 70272.0)
    178793231
    >>> cache_tokens_from_memory(8 * 180 * 2**30 * 0.9 - 671e9 * 0.5625, 70272.0, copies=8)
    1803940
    """
    per_token = float(kv_bytes_per_token) * float(copies)
    if not (math.isfinite(per_token) and per_token > 0):
        raise ValueError(f"KV bytes per token and copies must be positive, got {kv_bytes_per_token!r} x {copies!r}")
    return int(max(float(free_bytes), 0.0) // per_token)
