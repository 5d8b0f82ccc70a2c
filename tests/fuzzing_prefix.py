"""The prefix-cache fuzzer: hypothesis strategies for small request sequences with prefix blocks, brute-force
references written here independently of :mod:`rackcost.model.workload.prefix_cache`, and the contract it keeps.

Used by ``tests/test_fuzz_prefix.py`` (a small budget in CI), ``tests/test_prefix_cache.py`` (the references on the
real trace) and ``benchmarks/fuzz_prefix.py`` (a large budget, with counts).

References:

- :func:`brute_force_hit_tokens`: the LRU cache as a plain Python list in recency order, re-scanned at every access
  (the rules of the module's docstring, written again the slow way).
- :func:`stack_distances_tokens`: Mattson's characterisation of LRU (Mattson, Gecsei, Slutz and Traiger,
  "Evaluation techniques for storage hierarchies", IBM Systems Journal 9(2), 1970): a reference hits a cache of
  ``C`` tokens exactly when the distinct blocks used since its block's last use, itself included, hold at most ``C``
  tokens (LRU keeps the most recent blocks that fit, as eviction only ever removes the least recent). Counted with a
  Fenwick tree over the references' positions, so one pass gives every cache size, fast enough for the whole
  Mooncake trace where the list would re-scan 20,000 blocks 288,500 times. It holds when no block is larger than
  the cache and a block's tokens do not change (true of Mooncake's trace, checked where it is used).

Contracts (:func:`check_shared`, :func:`check_routed`, :func:`check_routing`):

- the module's hit tokens per request equal the list's, for one shared cache and for per-replica caches, at every
  capacity (0, small, unbounded), with ``prefix_only`` or not; where the stack distance applies, they equal it too;
- every request's hits are between 0 and its input tokens, and a larger cache never hits fewer tokens in total
  (LRU is a stack algorithm: Mattson et al. 1970);
- a router returns one replica in ``[0, N)`` a request; ``round_robin`` is ``i mod N``; ``least_outstanding``
  always picks a replica with the fewest outstanding requests, recounted here from the finish times of a FIFO
  replay written with lists; ``pooled`` takes a replica with a free slot when there is one, the least occupied.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from hypothesis import strategies as st

from rackcost.model.workload import prefix_cache as pc

ROUTERS = ["random", "round_robin", "least_outstanding", "power_of_two", "pooled"]
"""Every router of :class:`rackcost.model.strategies.Routing`."""


# ---- references ----------------------------------------------------------------------------------------------


def brute_force_hit_tokens(
    block_ids: list[list[int]], block_tokens: list[list[int]], capacity_tokens: float | None, prefix_only: bool
) -> list[int]:
    """Hit tokens per request of an LRU cache kept as a list ``[[id, tokens], ...]``, least recent first."""
    capacity = math.inf if capacity_tokens is None else float(capacity_tokens)
    cache: list[list[int]] = []
    out = []
    for ids, tokens in zip(block_ids, block_tokens, strict=True):
        hit = 0
        for block, count in zip(ids, tokens, strict=True):
            found = [entry for entry in cache if entry[0] == block]
            if not found:
                if prefix_only:
                    break
                continue
            hit += min(count, found[0][1])
        out.append(hit)
        for block, count in zip(ids, tokens, strict=True):
            held = 0
            for k, entry in enumerate(cache):
                if entry[0] == block:
                    held = entry[1]
                    del cache[k]
                    break
            size = max(held, count)
            if size <= capacity:
                cache.append([block, size])
            while sum(entry[1] for entry in cache) > capacity:
                del cache[0]
    return out


class _Fenwick:
    """Prefix sums over positions with point updates (Fenwick, "A new data structure for cumulative frequency
    tables", Software: Practice and Experience 24(3), 1994)."""

    def __init__(self, n: int) -> None:
        self.tree = [0] * (n + 1)

    def add(self, position: int, value: int) -> None:
        k = position + 1
        while k < len(self.tree):
            self.tree[k] += value
            k += k & -k

    def total_below(self, position: int) -> int:
        """Sum over positions ``< position``."""
        k, s = position, 0
        while k > 0:
            s += self.tree[k]
            k -= k & -k
        return s


def stack_distances_tokens(block_ids: list[list[int]], block_tokens: list[list[int]]) -> list[list[float]]:
    """Per request and block, the tokens of the distinct blocks used since that block's last use, itself included,
    at the request's lookup (before its own insertions); infinity for a first use."""
    positions = sum(len(ids) for ids in block_ids)
    tree = _Fenwick(positions)
    last: dict[int, tuple[int, int]] = {}  # id -> (position of its last use, tokens)
    out: list[list[float]] = []
    position = 0
    for ids, tokens in zip(block_ids, block_tokens, strict=True):
        start = position
        row: list[float] = []
        for block in ids:
            seen = last.get(block)
            row.append(math.inf if seen is None else float(tree.total_below(start) - tree.total_below(seen[0])))
        out.append(row)
        for block, count in zip(ids, tokens, strict=True):
            seen = last.get(block)
            if seen is not None:
                tree.add(seen[0], -seen[1])
            tree.add(position, count)
            last[block] = (position, count)
            position += 1
    return out


def stack_hit_tokens(
    distances: list[list[float]], block_tokens: list[list[int]], capacity_tokens: float | None
) -> list[int]:
    """Hit tokens per request from the stack distances: a block hits when its distance is at most the capacity."""
    capacity = math.inf if capacity_tokens is None else float(capacity_tokens)
    return [
        sum(count for d, count in zip(row, tokens, strict=True) if math.isfinite(d) and d <= capacity)
        for row, tokens in zip(distances, block_tokens, strict=True)
    ]


def fifo_finish_s(arrival_s: list[float], service_s: float, replica_of: list[int], slots: int | None) -> list[float]:
    """Each request's finish time when every replica serves its own requests FIFO on ``slots`` slots, by lists."""
    free: dict[int, list[float]] = {}
    out = []
    for t, r in zip(arrival_s, replica_of, strict=True):
        if slots is None:
            out.append(t + service_s)
            continue
        slot_free = free.setdefault(r, [0.0] * slots)
        k = slot_free.index(min(slot_free))
        finish = max(t, slot_free[k]) + service_s
        slot_free[k] = finish
        out.append(finish)
    return out


# ---- strategies ----------------------------------------------------------------------------------------------


@st.composite
def request_sequences(draw: st.DrawFn) -> tuple[list[list[int]], list[float], int]:
    """Block ids, input tokens and the block size of up to 25 requests over a few distinct blocks: shared
    prefixes, repeats, a block seen partial in one request and full in another, ids repeated within a request,
    requests without blocks and inputs longer than their blocks."""
    size = draw(st.integers(1, 8))
    n = draw(st.integers(1, 25))
    pool = draw(st.integers(1, 10))
    ids_out: list[list[int]] = []
    inputs: list[float] = []
    for _ in range(n):
        blocks = draw(st.lists(st.integers(0, pool - 1), max_size=6))
        if blocks and draw(st.booleans()):  # a shared prefix: the first blocks of an earlier request
            earlier = draw(st.sampled_from(ids_out)) if ids_out else []
            blocks = earlier[: draw(st.integers(0, len(earlier)))] + blocks
            blocks = blocks[:8]
        covered = len(blocks) * size
        low = max(covered - size + 1, 1)
        length = draw(st.integers(low, covered + 2 * size)) if draw(st.booleans()) or not blocks else covered
        inputs.append(float(length))
        ids_out.append(blocks)
    return ids_out, inputs, size


def capacities() -> st.SearchStrategy[float | None]:
    """Cache capacities: none (unbounded), 0, a few blocks' worth, and fractions."""
    return st.one_of(st.none(), st.just(0.0), st.integers(1, 60).map(float), st.floats(0.0, 60.0))


# ---- contracts -----------------------------------------------------------------------------------------------


def _sizes_stable(requests: pc.PrefixRequests, capacity: float | None) -> bool:
    """Whether the stack distance applies: each block always the same tokens, none larger than the cache."""
    sizes: dict[int, int] = {}
    for ids, tokens in zip(requests.block_ids, requests.block_tokens, strict=True):
        for block, count in zip(ids, tokens, strict=True):
            if sizes.setdefault(block, count) != count or (capacity is not None and count > capacity):
                return False
    return True


def check_shared(sequence: tuple[list[list[int]], list[float], int], capacity: float | None, prefix_only: bool) -> str:
    """One shared cache: the module against the list, the stack distance where it applies, and the bounds."""
    ids, inputs, size = sequence
    requests = pc.prefix_requests(ids, inputs, size)
    got = pc.lru_hit_tokens(requests, capacity, prefix_only)
    tokens = [list(t) for t in requests.block_tokens]
    want = brute_force_hit_tokens([list(i) for i in requests.block_ids], tokens, capacity, prefix_only)
    assert got.tolist() == [float(w) for w in want], (got.tolist(), want)
    assert np.all(got >= 0) and np.all(got <= requests.input_tokens)
    outcome = "matched"
    if _sizes_stable(requests, capacity) and not prefix_only:
        distances = stack_distances_tokens([list(i) for i in requests.block_ids], tokens)
        assert got.tolist() == [float(h) for h in stack_hit_tokens(distances, tokens, capacity)]
        outcome = "matched (list and stack)"
        bigger = None if capacity is None else capacity + size
        # LRU is a stack algorithm: a larger cache holds a superset, so it never hits fewer tokens (Mattson 1970)
        assert pc.lru_hit_tokens(requests, bigger).sum() >= got.sum()
    share = pc.hit_fraction(got, requests.input_tokens)
    assert 0.0 <= share <= 1.0 and math.isfinite(share)
    return outcome


def check_routed(
    sequence: tuple[list[list[int]], list[float], int], capacity: float | None, replicas: int, seed: int
) -> str:
    """Per-replica caches: each replica's hits are those of the list over the requests routed to it."""
    ids, inputs, size = sequence
    requests = pc.prefix_requests(ids, inputs, size)
    replica_of = pc.route_requests("random", replicas, requests.requests, seed=seed)
    got = pc.routed_hit_tokens(requests, replica_of, capacity)
    for r in range(replicas):
        mine = [i for i in range(requests.requests) if replica_of[i] == r]
        want = brute_force_hit_tokens(
            [list(requests.block_ids[i]) for i in mine], [list(requests.block_tokens[i]) for i in mine], capacity, False
        )
        assert got[mine].tolist() == [float(w) for w in want]
    # one replica is the shared cache
    one = pc.routed_hit_tokens(requests, np.zeros(requests.requests, dtype=np.int64), capacity)
    assert one.tolist() == pc.lru_hit_tokens(requests, capacity).tolist()
    return "matched"


@st.composite
def timed_fleets(draw: st.DrawFn) -> tuple[Any, ...]:
    """A router, replicas, arrival times (ties included), a service time and slots per replica."""
    n = draw(st.integers(1, 40))
    gaps = draw(st.lists(st.sampled_from([0.0, 0.0, 0.5, 1.0, 3.0, 10.0]), min_size=n, max_size=n))
    arrivals = np.cumsum(gaps).tolist()
    routing = draw(st.sampled_from(ROUTERS))
    slots = draw(st.one_of(st.none(), st.integers(1, 4)))
    if routing == "pooled" and slots is None:
        slots = draw(st.integers(1, 4))
    return routing, draw(st.integers(1, 6)), arrivals, draw(st.sampled_from([0.0, 1.0, 2.5, 7.0])), slots


def check_routing(routing: str, replicas: int, arrival_s: list[float], service_s: float, slots: int | None) -> str:
    """A replica in range for each request; round robin in turn; least outstanding and pooled recounted."""
    n = len(arrival_s)
    got = pc.route_requests(routing, replicas, n, arrival_s, service_s, slots, seed=1).tolist()
    assert len(got) == n and all(0 <= r < replicas for r in got)
    if routing == "round_robin":
        assert got == [i % replicas for i in range(n)]
    if routing == "least_outstanding":
        finish = fifo_finish_s(arrival_s, service_s, got, slots)
        for i, t in enumerate(arrival_s):
            counts = [sum(1 for j in range(i) if got[j] == r and finish[j] > t) for r in range(replicas)]
            assert counts[got[i]] == min(counts), (i, counts, got)
    if routing == "pooled":
        assert slots is not None
        finish = _pooled_finish_s(arrival_s, service_s, got, replicas, slots)
        for i, t in enumerate(arrival_s):
            busy = [sum(1 for j in range(i) if got[j] == r and finish[j] > t) for r in range(replicas)]
            if min(busy) < slots:
                assert busy[got[i]] == min(busy), (i, busy, got)
    return routing


def _pooled_finish_s(
    arrival_s: list[float], service_s: float, replica_of: list[int], replicas: int, slots: int
) -> list[float]:
    """Finish times under one FIFO queue over every slot, each request on its given replica's earliest free slot
    (the recount of :func:`check_routing`)."""
    free = [[0.0] * slots for _ in range(replicas)]
    out = []
    for t, r in zip(arrival_s, replica_of, strict=True):
        k = free[r].index(min(free[r]))
        finish = max(t, free[r][k]) + service_s
        free[r][k] = finish
        out.append(finish)
    return out
