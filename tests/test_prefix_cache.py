"""Prefix reuse measured on a trace (rackcost.model.workload.prefix_cache): closed forms, refusals, and Mooncake's
conversation trace against two independent references (tests/fuzzing_prefix.py).

The trace: Moonshot AI / kvcache-ai, Mooncake, ``FAST25-release/traces/conversation_trace.jsonl`` (Qin et al.,
"Mooncake: A KVCache-centric Disaggregated Architecture for LLM Serving", FAST 2025; Apache-2.0), read from the
shared data folder beside the repository where it is present.
"""

from __future__ import annotations

import functools
import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fuzzing_prefix import brute_force_hit_tokens, stack_distances_tokens, stack_hit_tokens
from rackcost.model.workload import prefix_cache as pc

MOONCAKE = Path("traces") / "mooncake_conversation_trace.jsonl"
"""Where the trace sits in the shared data folder."""


def read_mooncake(path: Path) -> tuple[list[list[int]], list[int], np.ndarray]:
    """Block ids, input lengths and arrival times [s] of a Mooncake JSONL trace (``timestamp`` in ms)."""
    ids, lengths, times = [], [], []
    with path.open() as fh:
        for line in fh:
            row = json.loads(line)
            ids.append(row["hash_ids"])
            lengths.append(row["input_length"])
            times.append(row["timestamp"] / 1000.0)
    return ids, lengths, np.array(times)


# ---- closed forms ----------------------------------------------------------------------------------------------


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 6), st.integers(1, 12), st.integers(1, 511), st.sampled_from([None, math.inf, 1e9]))
def test_one_prompt_repeated_n_times_is_served_from_cache_n_minus_1_times_of_n(blocks, n, last, capacity) -> None:
    # the first request fills the cache, each of the n - 1 others finds every block: (n - 1) / n of the input,
    # whatever the last block's tokens (blocks - 1 full ones and one of `last`)
    length = (blocks - 1) * 512 + last
    requests = pc.prefix_requests([list(range(blocks))] * n, [length] * n)
    share = pc.hit_fraction(pc.lru_hit_tokens(requests, capacity), requests.input_tokens)
    assert share == pytest.approx((n - 1) / n, rel=1e-12)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 8), st.integers(1, 8), st.integers(1, 12), st.data())
def test_a_cache_smaller_than_a_cyclic_scan_never_hits(cycle, per_request, requests_n, data) -> None:
    # LRU's worst case: cycling over B blocks with room for fewer evicts each block just before it is needed again
    # (Belady, "A study of replacement algorithms for a virtual-storage computer", IBM Systems Journal 5(2), 1966).
    # Requests of m consecutive blocks of the cycle (wrapping): a request looks its blocks up before inserting any,
    # so block j of a request was last used B - j blocks of the scan before its lookup; below B - m + 1 blocks of
    # room, nothing hits (m = 1: the textbook scan; m = B: one prompt repeated, which needs under one block)
    per_request = min(per_request, cycle)
    capacity = data.draw(st.floats(0.0, (cycle - per_request + 1) * 512.0, exclude_max=True))
    ids = [[(k * per_request + j) % cycle for j in range(per_request)] for k in range(requests_n)]
    requests = pc.prefix_requests(ids, [per_request * 512] * requests_n)
    assert pc.lru_hit_tokens(requests, capacity).sum() == 0
    # and one more block of room makes the scan hit from its second pass on (the closed form's other side)
    room = (cycle - per_request + 1) * 512.0 + (per_request - 1) * 512.0
    passes = requests_n * per_request // cycle
    if passes >= 2:
        assert pc.lru_hit_tokens(requests, room).sum() > 0


def test_the_last_block_counts_its_own_tokens_only() -> None:
    # 1,100 tokens: blocks of 512, 512 and 76; a second request sharing the first two blocks hits 1,024 tokens
    # of its 1,300, and one sharing all three hits 1,100
    requests = pc.prefix_requests([[1, 2, 3], [1, 2, 4], [1, 2, 3]], [1100, 1300, 1100])
    assert requests.block_tokens == ((512, 512, 76), (512, 512, 276), (512, 512, 76))
    assert pc.lru_hit_tokens(requests, None).tolist() == [0.0, 1024.0, 1100.0]


def test_prefix_only_stops_at_the_first_missing_block() -> None:
    # block 2 is new in the second request: its block 3 is present but past the miss
    requests = pc.prefix_requests([[1, 2, 3], [1, 9, 3]], [1536, 1536])
    assert pc.lru_hit_tokens(requests, None).tolist() == [0.0, 1024.0]
    assert pc.lru_hit_tokens(requests, None, prefix_only=True).tolist() == [0.0, 512.0]


def test_a_block_larger_than_the_cache_is_not_kept_and_evicts_nothing() -> None:
    requests = pc.prefix_requests([[1], [2], [1]], [100, 512, 100], block_size_tokens=512)
    assert pc.lru_hit_tokens(requests, 300).tolist() == [0.0, 0.0, 100.0]


def test_round_robin_splits_a_repeated_prompt_over_the_replicas_caches() -> None:
    # n requests of one prompt over N replicas in turn: each replica misses once, so (n - N) / n is served
    n, replicas = 12, 4
    requests = pc.prefix_requests([[5, 6]] * n, [1024] * n)
    where = pc.route_requests("round_robin", replicas, n)
    share = pc.hit_fraction(pc.routed_hit_tokens(requests, where, None), requests.input_tokens)
    assert share == pytest.approx((n - replicas) / n, rel=1e-12)


def test_the_timed_routers_follow_the_replicas_occupancy() -> None:
    # two replicas of one slot, requests of 10 s at 0, 1 and 12 s: the second finds replica 0 busy; at 12 s both
    # are free again (least outstanding: the lowest index; pooled: the least occupied, the lowest index)
    for routing in ("least_outstanding", "pooled"):
        assert pc.route_requests(routing, 2, 3, [0.0, 1.0, 12.0], 10.0, 1).tolist() == [0, 1, 0]
    # all slots busy under pooled: the request waits for the earliest slot to free up (replica 1's, at 3 s)
    assert pc.route_requests("pooled", 2, 3, [0.0, 1.0, 2.0], [10.0, 2.0, 1.0], 1).tolist() == [0, 1, 1]


def test_the_cache_size_from_a_replica_s_free_kv_memory() -> None:
    # 10 GiB free at 70,272 bytes a token (DeepSeek R1's MLA cache at BF16) kept once: floor(10 x 2^30 / 70,272)
    assert pc.cache_tokens_from_memory(10 * 2**30, 70272.0) == 152_797
    assert pc.cache_tokens_from_memory(10 * 2**30, 70272.0, copies=8) == 19_099
    assert pc.cache_tokens_from_memory(-5.0, 70272.0) == 0


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: pc.prefix_requests([[1, 2, 3]], [1000]), "request 0: 3 blocks of 512 tokens"),
        (lambda: pc.prefix_requests([[1]], [0]), "request 0: input tokens must be a positive"),
        (lambda: pc.prefix_requests([[1]], [1, 2]), "1 requests' block ids but 2 input token counts"),
        (lambda: pc.prefix_requests([[1.5]], [100]), "block ids must be integers"),
        (lambda: pc.prefix_requests([[1]], [100], block_size_tokens=0), "at least 1 token"),
        (lambda: pc.lru_hit_tokens(pc.prefix_requests([[1]], [5]), -1.0), "0 or more tokens"),
        (lambda: pc.hit_fraction([], []), "at least one request"),
        (lambda: pc.route_requests("pooled", 2, 2, [0, 1], 1.0), "needs the slots per replica"),
        (lambda: pc.route_requests("least_outstanding", 2, 2), "needs arrival times and a service time"),
        (lambda: pc.route_requests("least_outstanding", 2, 2, [1, 0], 1.0), "must be sorted"),
        (lambda: pc.route_requests("random", 0, 2), "at least 1 replica"),
        (lambda: pc.routed_hit_tokens(pc.prefix_requests([[1]], [5]), [-1], None), "integers from 0"),
    ],
)
def test_bad_inputs_are_refused_with_what_was_expected(call, message) -> None:
    with pytest.raises(ValueError, match=message):
        call()


# ---- Mooncake's conversation hour ------------------------------------------------------------------------------


@functools.cache
def _mooncake(path: Path) -> tuple[pc.PrefixRequests, np.ndarray]:
    ids, lengths, times = read_mooncake(path)
    return pc.prefix_requests(ids, lengths), times


@pytest.fixture
def mooncake(shared_data: Path) -> tuple[pc.PrefixRequests, np.ndarray]:
    """Mooncake's conversation hour, read once a session, or a skip saying where it was looked for."""
    path = shared_data / MOONCAKE
    if not path.is_file():
        pytest.skip(f"needs {MOONCAKE} in the shared data folder (Mooncake's conversation trace)")
    return _mooncake(path)


@pytest.mark.data
def test_mooncake_hit_share_at_1m_and_10m_tokens_equals_the_stack_distance_count(mooncake) -> None:
    requests, _ = mooncake
    ids = [list(i) for i in requests.block_ids]
    tokens = [list(t) for t in requests.block_tokens]
    # the stack distance applies: every block id has one token count in this trace, and none passes 1M
    sizes: dict[int, set[int]] = {}
    for row_ids, row_tokens in zip(ids, tokens, strict=True):
        for block, count in zip(row_ids, row_tokens, strict=True):
            sizes.setdefault(block, set()).add(count)
    assert all(len(s) == 1 for s in sizes.values())
    assert (requests.requests, requests.block_references) == (12_031, 288_500)
    distances = stack_distances_tokens(ids, tokens)
    shares = {}
    for capacity in (None, 10_000_000, 1_000_000):
        got = pc.lru_hit_tokens(requests, capacity)
        assert got.tolist() == [float(h) for h in stack_hit_tokens(distances, tokens, capacity)]
        shares[capacity] = pc.hit_fraction(got, requests.input_tokens)
    # the figures the shared data's README gives (about 0.37, 0.29 and 0.05), to the digits measured here
    assert round(shares[None], 4) == 0.3736
    assert round(shares[10_000_000], 4) == 0.2936
    assert round(shares[1_000_000], 4) == 0.0551


@pytest.mark.data
def test_mooncake_first_requests_match_the_list_rescanned_at_every_access(mooncake) -> None:
    # the list re-scans the whole cache at every access: the first 600 requests at a 250,000-token cache (about
    # 490 blocks), which evicts most of the 14,000 blocks they bring and still hits some
    requests, _ = mooncake
    head, capacity = 600, 250_000
    ids = [list(i) for i in requests.block_ids[:head]]
    tokens = [list(t) for t in requests.block_tokens[:head]]
    sub = pc.prefix_requests(ids, requests.input_tokens[:head])
    for prefix_only in (False, True):
        want = brute_force_hit_tokens(ids, tokens, capacity, prefix_only)
        got = pc.lru_hit_tokens(sub, capacity, prefix_only)
        assert got.tolist() == [float(w) for w in want]
        assert 0 < got.sum() < pc.lru_hit_tokens(sub, None).sum()


@pytest.mark.data
def test_mooncake_per_replica_caches_hit_less_than_one_shared_cache(mooncake) -> None:
    # the same total memory split over replicas: each replica sees a share of the requests, so a prefix must
    # reach each replica's cache before it hits there; more replicas, fewer hits, under every router
    requests, times = mooncake
    shared = pc.hit_fraction(pc.lru_hit_tokens(requests, None), requests.input_tokens)
    for routing in ("random", "round_robin", "least_outstanding", "power_of_two", "pooled"):
        previous = shared
        for replicas in (2, 8):
            where = pc.route_requests(routing, replicas, requests.requests, times, 20.0, 32)
            share = pc.hit_fraction(pc.routed_hit_tokens(requests, where, None), requests.input_tokens)
            assert share < previous
            previous = share
