"""Tests for rackcost.model.fleets.sizing: utilisation ceiling, redundancy, rack limits and packing (DESIGN.md step
5)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rackcost
from rackcost.model.fleets.sizing import nodes_per_rack_allowed, pack_racks, provisioned_replicas, sized_replicas
from reference import TWO_SYSTEMS

SETTINGS = settings(max_examples=100, deadline=None)


# --------------------------------------------------------------------------- utilisation ceiling


def test_sized_replicas_ceiling_binds() -> None:
    # lambda S / (c u_max) = 10 x 1 / (4 x 0.5) = 5 replicas, more than the 3 the SLO needs.
    assert int(sized_replicas(3, 10.0, 1.0, 4.0, 0.5)) == 5


def test_sized_replicas_slo_binds() -> None:
    # the ceiling alone needs 5, the SLO 7: the larger wins.
    assert int(sized_replicas(7, 10.0, 1.0, 4.0, 0.5)) == 7


def test_sized_replicas_exact_multiple_is_not_rounded_up() -> None:
    # 0.3 rps x 10 s = 3 erlang exactly on 1-slot replicas at u_max = 1: 3 replicas, not 4 (0.3 * 10 is
    # 3.0000000000000004 in binary floating point; the ceiling must not turn rounding noise into a replica).
    assert int(sized_replicas(0, 0.3, 10.0, 1.0, 1.0)) == 3
    # 2.5 erlang needs ceil(2.5) = 3.
    assert int(sized_replicas(0, 2.5, 1.0, 1.0, 1.0)) == 3


def test_sized_replicas_vectorised() -> None:
    got = sized_replicas(np.array([1, 1, 9]), np.array([10.0, 20.0, 10.0]), 1.0, 4.0, 0.5)
    # ceil(10/2) = 5, ceil(20/2) = 10, max(9, 5) = 9
    np.testing.assert_array_equal(got, [5, 10, 9])


@SETTINGS
@given(
    st.integers(0, 50),
    st.floats(0.01, 1000.0),
    st.floats(0.1, 30.0),
    st.floats(1.0, 256.0),
    st.floats(0.05, 1.0),
)
def test_property_sized_replicas_is_smallest_under_ceiling(
    slo: int, lam: float, s: float, c: float, u_max: float
) -> None:
    n = int(sized_replicas(slo, lam, s, c, u_max))
    load = lam * s
    assert n >= slo
    # meets the ceiling (1e-9 relative: the function's own tolerance on rounding of lambda S / (c u))
    assert n * c * u_max >= load * (1 - 1e-9)
    # and is the smallest that does, unless the SLO asked for more
    if n > slo:
        assert (n - 1) * c * u_max < load * (1 + 1e-9)


# --------------------------------------------------------------------------- redundancy


@pytest.mark.parametrize(
    ("serving", "availability", "spares", "expected"),
    [
        (19, 0.95, 1, 21),  # ceil(19 / 0.95) = ceil(20) = 20, + 1 spare
        (10, 0.9, 0, 12),  # ceil(11.11) = 12
        (10, 1.0, 2, 12),  # spares only
        (10, 1.0, 0, 10),  # nothing added
        (1, 0.5, 0, 2),  # ceil(2) = 2 exactly
    ],
)
def test_provisioned_replicas(serving: int, availability: float, spares: int, expected: int) -> None:
    assert int(provisioned_replicas(serving, availability, spares)) == expected


# --------------------------------------------------------------------------- rack limits


def test_nodes_per_rack_slot_bound() -> None:
    # 4 slots; power allows floor((40,000 - 1,000) / 7,600) = 5 nodes: slots bind -> 4.
    assert int(nodes_per_rack_allowed(4, 7_600.0, 1_000.0, 40_000.0)) == 4


def test_nodes_per_rack_power_bound() -> None:
    # 4 slots; power allows floor((20,000 - 1,000) / 7,600) = floor(2.5) = 2 -> 2.
    assert int(nodes_per_rack_allowed(4, 7_600.0, 1_000.0, 20_000.0)) == 2


def test_nodes_per_rack_exact_fit_counts() -> None:
    # (16,200 - 1,000) / 7,600 = 2 exactly: two nodes fit at the limit.
    assert int(nodes_per_rack_allowed(4, 7_600.0, 1_000.0, 16_200.0)) == 2


@pytest.mark.parametrize(("node_w", "overhead_w"), [(50_000.0, 0.0), (30_000.0, 15_000.0), (1_000.0, 45_000.0)])
def test_nodes_per_rack_zero_when_a_node_exceeds_the_limit(node_w: float, overhead_w: float) -> None:
    # limit 40 kW: a 50 kW node, or a 30 kW node beside 15 kW of overhead, or overhead alone over the limit.
    assert int(nodes_per_rack_allowed(8, node_w, overhead_w, 40_000.0)) == 0


def test_rack_limit_uses_rated_not_busy_power_in_the_chain() -> None:
    # System A of tests/data/two_systems.yaml: node rated = 8 x 700 + 1,500 = 7,100 W; node busy = 8 x 600 +
    # 1,500 = 6,300 W; rack overhead 1,000 W. With a 15 kW rack limit:
    #   rated: floor((15,000 - 1,000) / 7,100) = 1 node per rack;  busy would allow floor(14,000 / 6,300) = 2.
    # A's fleet is one node per replica, so racks must equal nodes (DESIGN.md step 5: rated, not busy power).
    scenario = rackcost.load_scenario(TWO_SYSTEMS)
    scenario.facility.rack_power_limit_kw = 15.0
    row = next(r for r in rackcost.evaluate(scenario).records["systems"] if r["system"] == "A")
    assert row["nodes"] == row["provisioned_replicas"]
    assert row["racks"] == row["nodes"]
    assert row["nodes"] >= 2  # otherwise rated and busy packing would agree and the test would prove nothing


# --------------------------------------------------------------------------- packing


def test_pack_racks_hand_example() -> None:
    # 10 replicas x 8 accelerators = 80; 4 per node -> 20 nodes; 18 per rack -> 2 racks.
    nodes, racks = pack_racks(10, 8, 4, 18)
    assert (int(nodes), int(racks)) == (20, 2)


def test_pack_racks_partial_nodes_round_up() -> None:
    # 3 replicas x 4 accelerators = 12 on 8-accelerator nodes -> ceil(1.5) = 2 nodes; 2 per rack -> 1 rack.
    nodes, racks = pack_racks(3, 4, 8, 2)
    assert (int(nodes), int(racks)) == (2, 1)


def test_pack_racks_vectorised() -> None:
    nodes, racks = pack_racks(np.array([1, 9, 10]), 4, 4, 4)
    np.testing.assert_array_equal(nodes, [1, 9, 10])
    np.testing.assert_array_equal(racks, [1, 3, 3])


@SETTINGS
@given(
    st.integers(1, 5000),
    st.integers(1, 72),
    st.integers(1, 16),
    st.integers(1, 40),
    st.floats(500.0, 20_000.0),
    st.floats(0.0, 20_000.0),
    st.floats(20_000.0, 200_000.0),
)
def test_property_racks_are_max_of_slot_and_power_counts(
    replicas: int, apr: int, apn: int, slots: int, node_w: float, overhead_w: float, limit_w: float
) -> None:
    per_rack = int(nodes_per_rack_allowed(slots, node_w, overhead_w, limit_w))
    if per_rack < 1:
        return  # a node over the limit is reported at load (feasibility_problems); packing is undefined
    nodes, racks = (int(x) for x in pack_racks(replicas, apr, apn, per_rack))
    accelerators = replicas * apr
    # smallest node count that holds every accelerator
    assert nodes * apn >= accelerators > (nodes - 1) * apn
    by_power = math.floor((limit_w - overhead_w) / node_w + 1e-9)
    # DESIGN.md step 5: racks = max(count by slots, count by power limit)
    assert racks == max(-(-nodes // slots), -(-nodes // by_power))
    # every rack within its rated power limit
    assert min(nodes, per_rack) * node_w + overhead_w <= limit_w * (1 + 1e-9)
