"""The prefix-cache fuzzer (tests/fuzzing_prefix.py) at a small budget: random small request sequences through the
LRU cache, shared and per replica, against a list re-scanned at every access, and every router's contract.
``benchmarks/fuzz_prefix.py`` runs the same strategies at a large budget, with counts."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from fuzzing_prefix import capacities, check_routed, check_routing, check_shared, request_sequences, timed_fleets


@settings(max_examples=60, deadline=None)
@given(request_sequences(), capacities(), st.booleans())
def test_one_shared_lru_cache_hits_what_a_list_rescanned_at_every_access_hits(sequence, capacity, prefix_only) -> None:
    assert check_shared(sequence, capacity, prefix_only).startswith("matched")


@settings(max_examples=40, deadline=None)
@given(request_sequences(), capacities(), st.integers(1, 4), st.integers(0, 2**32 - 1))
def test_per_replica_caches_hit_what_each_replica_s_own_list_hits(sequence, capacity, replicas, seed) -> None:
    assert check_routed(sequence, capacity, replicas, seed) == "matched"


@settings(max_examples=60, deadline=None)
@given(timed_fleets())
def test_every_router_returns_a_replica_each_and_the_balancing_ones_pick_the_least_loaded(fleet) -> None:
    assert check_routing(*fleet) in {"random", "round_robin", "least_outstanding", "power_of_two", "pooled"}
