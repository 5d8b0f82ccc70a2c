"""Site power budget (issue 12, item 6): :mod:`rackcost.model.energy.site`, :func:`rackcost.site_budget`, ``rackcost
site`` and the ``facility.max_it_power_kw`` warning of evaluate.

Closed forms from the test scenario (tests/data/two_systems.yaml): system A's node is rated 8 x 700 + 1,500 =
7,100 W, four a rack (the 40 kW limit allows five slots' worth, the rack has four), a rack's overhead 1,000 W, one
node a replica, so ``P_A(N) = 7,100 N + 1,000 ceil(N / 4)``; system B's node 4 x 500 + 800 = 2,800 W, eight a rack:
``P_B(N) = 2,800 N + 1,000 ceil(N / 8)``. Evaluated as sized, A is 3 replicas (22.3 kW), B 5 (15.0 kW).
"""

from __future__ import annotations

import ast
import copy
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import rackcost
from rackcost.cli import app
from rackcost.model.energy.site import (
    best_pool_split,
    fleet_rated_w,
    max_replicas_within_power,
    per_megawatt,
    serving_replicas_within,
    serving_within_many,
    unserved_rps,
)
from rackcost.model.fleets.sizing import provisioned_replicas
from rackcost.model.queues import routing
from reference import TWO_SYSTEMS

BASE: dict[str, Any] = yaml.safe_load(TWO_SYSTEMS.read_text(encoding="utf-8"))
runner = CliRunner()


def p_a(n: int) -> float:
    return 7100.0 * n + 1000.0 * math.ceil(n / 4)


def p_b(n: int) -> float:
    return 2800.0 * n + 1000.0 * math.ceil(n / 8)


A = (8, 8, 4, 700.0, 1500.0, 1000.0)  # packaging and rated power of system A, as max_replicas_within_power takes it
B = (4, 4, 8, 500.0, 800.0, 1000.0)


def scenario(**facility: Any) -> rackcost.Scenario:
    data = copy.deepcopy(BASE)
    data["facility"].update(facility)
    return rackcost.scenario_from_dict(data, "test.yaml")


# --------------------------------------------------------------------------- the pure functions, closed forms


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 8, 9, 40, 1001])
@pytest.mark.parametrize(("packaging", "power"), [(A, p_a), (B, p_b)])
def test_a_limit_equal_to_the_rated_power_of_n_replicas_fits_exactly_n(n: int, packaging: tuple, power: Any) -> None:
    assert float(fleet_rated_w(n, *packaging)) == power(n)
    assert max_replicas_within_power(power(n), *packaging) == n
    assert max_replicas_within_power(power(n) - 1.0, *packaging) == n - 1  # one watt short drops a replica
    assert max_replicas_within_power(power(n + 1) - 1.0, *packaging) == n  # up to the next replica's power


def test_a_replica_of_many_nodes_counts_them_all() -> None:
    # an NVL72-style replica: 72 accelerators on 18 four-GPU trays, one rack a replica:
    # 72 x 1,200 + 18 x 600 + 10,000 = 107,200 W each
    nvl = (72, 4, 18, 1200.0, 600.0, 10_000.0)
    assert max_replicas_within_power(10 * 107_200.0, *nvl) == 10
    assert max_replicas_within_power(10 * 107_200.0 - 1.0, *nvl) == 9
    assert max_replicas_within_power(107_199.0, *nvl) == 0


def test_a_bad_limit_is_refused() -> None:
    for bad in (0.0, -1.0, math.inf, math.nan):
        with pytest.raises(ValueError, match="positive finite"):
            max_replicas_within_power(bad, *A)


@settings(max_examples=60, deadline=None)
@given(
    apr=st.integers(1, 16),
    apn=st.integers(1, 16),
    npr=st.integers(1, 20),
    rated=st.floats(1.0, 2000.0),
    host=st.floats(0.0, 5000.0),
    overhead=st.floats(0.0, 50_000.0),
    limit=st.floats(1.0, 5e6),
)
def test_the_largest_fleet_fits_and_one_more_does_not(apr, apn, npr, rated, host, overhead, limit) -> None:
    packaging = (apr, apn, npr, rated, host, overhead)
    n = max_replicas_within_power(limit, *packaging)
    assert float(fleet_rated_w(n, *packaging)) <= limit * (1 + 1e-12)
    assert float(fleet_rated_w(n + 1, *packaging)) > limit


@settings(max_examples=60, deadline=None)
@given(
    serving=st.integers(0, 10_000),
    availability=st.floats(0.01, 1.0),
    spares=st.integers(0, 50),
    extra=st.integers(0, 5),
)
def test_serving_replicas_invert_the_redundancy_rule(serving, availability, spares, extra) -> None:
    provisioned = int(provisioned_replicas(serving, availability, spares)) + extra
    s = serving_replicas_within(provisioned, availability, spares)
    assert s >= serving
    assert int(provisioned_replicas(s, availability, spares)) <= provisioned
    assert int(provisioned_replicas(s + 1, availability, spares)) > provisioned


def test_serving_replicas_closed_forms() -> None:
    assert serving_replicas_within(21, 0.95, 1) == 19  # 19 / 0.95 = 20, plus a spare
    assert serving_replicas_within(10) == 10
    assert serving_replicas_within(2, 1.0, 2) == 0  # the spares fill the site


def test_per_megawatt_and_unserved() -> None:
    assert float(per_megawatt(30.0, 1500.0)) == 20.0
    assert unserved_rps([5.0, 12.0, 20.0], 12.0).tolist() == [0.0, 0.0, 8.0]


@settings(max_examples=40, deadline=None)
@given(
    apr=st.integers(1, 8),
    npr=st.integers(1, 8),
    slots=st.integers(1, 64),
    service=st.floats(0.5, 20.0),
    # a subnormal budget (1e-308 s) overflows a warning in queueing.capacity_at_slo: reported, outside this module
    budget=st.one_of(st.just(0.0), st.floats(1e-6, 2.0)),
    limits=st.lists(st.floats(5_000.0, 2e6), min_size=2, max_size=2),
)
def test_a_bigger_budget_never_serves_less(apr, npr, slots, service, budget, limits) -> None:
    small, big = sorted(limits)
    packaging = (apr, apr, npr, 700.0, 1500.0, 1000.0)
    n_small, n_big = (max_replicas_within_power(x, *packaging) for x in (small, big))
    assert n_small <= n_big
    if n_small == 0:
        return
    cap_small, cap_big = (
        float(routing.capacity_at_slo("pooled", n, slots, service, budget, 0.01)) for n in (n_small, n_big)
    )
    assert cap_small <= cap_big * (1 + 1e-9)
    demand = [0.5 * cap_small, cap_small, 2 * cap_big]
    assert np.all(unserved_rps(demand, cap_big) <= unserved_rps(demand, cap_small) + 1e-9)


def test_the_pure_module_imports_only_the_numeric_core() -> None:
    source = Path(rackcost.__file__).parent.joinpath("model", "energy", "site.py").read_text(encoding="utf-8")
    imported = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module)
        elif isinstance(node, ast.Import):
            imported.update(a.name for a in node.names)
    standard = {"__future__", "collections.abc", "dataclasses"}  # the standard library's pure parts
    assert imported <= standard | {
        "numpy",
        "numpy.typing",
        "rackcost.model.energy.power",
        "rackcost.model.fleets.sizing",
    }


# --------------------------------------------------------------------------- rackcost.site_budget


def test_site_budget_of_the_test_scenario() -> None:
    rows = {r["system"]: r for r in rackcost.site_budget(scenario(max_it_power_kw=22.3))}
    a, b = rows["A"], rows["B"]
    # A: P_A(3) = 22,300 W exactly; P_A(4) = 29,400 W. B: P_B(7) = 20,600 W; P_B(8) = 23,400 W
    assert (a["max_replicas"], a["accelerators"], a["nodes"], a["racks"], a["rated_it_kw"]) == (3, 24, 3, 1, 22.3)
    assert (b["max_replicas"], b["accelerators"], b["nodes"], b["racks"], b["rated_it_kw"]) == (7, 28, 7, 1, 20.6)
    assert a["serving_replicas"] == 3 and b["serving_replicas"] == 7  # no redundancy in the test scenario
    assert a["sized_rated_it_kw"] == 22.3 and b["sized_rated_it_kw"] == 15.0
    # A's site fleet is its sized fleet: the same capacity at SLO as evaluate reports
    result = rackcost.evaluate(scenario())
    a_cap = next(r["capacity_at_slo_rps"] for r in result.records["points"] if r["system"] == "A")
    assert a["capacity_at_slo_rps"] == pytest.approx(a_cap, rel=1e-9)
    for row in (a, b):
        assert row["accepted_rps_per_mw"] == pytest.approx(row["capacity_at_slo_rps"] / 0.0223, rel=1e-12)
        assert row["output_tokens_per_s_per_mw"] == pytest.approx(row["accepted_rps_per_mw"] * 500, rel=1e-12)
        cap = row["capacity_at_slo_rps"]
        assert row["unserved_rps"] == {
            "quiet": max(5 - cap, 0.0),
            "normal": max(12 - cap, 0.0),
            "peak": max(20 - cap, 0.0),
        }


def test_the_argument_overrides_the_scenario_and_redundancy_holds_replicas_back() -> None:
    data = copy.deepcopy(BASE)
    data["facility"]["max_it_power_kw"] = 1000
    data["fleet"].update(replica_availability_fraction=0.95, spare_replicas=1)
    sc = rackcost.scenario_from_dict(data, "test.yaml")
    a = next(r for r in rackcost.site_budget(sc, 22.3) if r["system"] == "A")
    assert a["max_it_power_kw"] == 22.3 and a["max_replicas"] == 3
    assert a["serving_replicas"] == 1  # ceil(2 / 0.95) + 1 = 4 > 3; ceil(1 / 0.95) + 1 = 3


def test_a_site_of_only_spares_serves_nothing() -> None:
    data = copy.deepcopy(BASE)
    data["fleet"]["spare_replicas"] = 3
    sc = rackcost.scenario_from_dict(data, "test.yaml")
    a = next(r for r in rackcost.site_budget(sc, 22.3) if r["system"] == "A")
    assert (a["max_replicas"], a["serving_replicas"], a["capacity_at_slo_rps"]) == (3, 0, 0.0)
    assert a["unserved_rps"] == {"quiet": 5.0, "normal": 12.0, "peak": 20.0}


def test_a_budget_below_one_replica_is_a_clear_message() -> None:
    with pytest.raises(rackcost.ScenarioError) as info:
        rackcost.site_budget(scenario(max_it_power_kw=5))
    problems = info.value.problems
    assert [p.path for p in problems] == ["facility.max_it_power_kw"]  # only A: B's replica is 3.8 kW
    assert problems[0].message == (
        "5 kW holds no replica of A: one replica (8 accelerators, its nodes and rack) is rated 8.1 kW"
    )


def test_no_budget_is_a_clear_message() -> None:
    with pytest.raises(rackcost.ScenarioError, match=r"facility\.max_it_power_kw: not set"):
        rackcost.site_budget(scenario())


@pytest.mark.parametrize("name", ["deepseek-r1-b200-vs-gb200-inferencex", "deepseek-r1-jalapeno-vs-gb300"])
def test_a_bigger_site_never_serves_less_on_a_bundled_scenario(name: str) -> None:
    sc = rackcost.load_scenario(name)
    previous: dict[str, dict[str, Any]] = {}
    for kw in (300.0, 1000.0, 1001.0, 4000.0):
        for row in rackcost.site_budget(sc, kw):
            before = previous.get(row["system"])
            if before is not None:
                assert row["max_replicas"] >= before["max_replicas"]
                assert row["capacity_at_slo_rps"] >= before["capacity_at_slo_rps"]
                assert all(row["unserved_rps"][p] <= before["unserved_rps"][p] for p in row["unserved_rps"])
            assert row["rated_it_kw"] <= kw
            previous[row["system"]] = row


# --------------------------------------------------------------------------- the warning in evaluate


def site_warnings(result: rackcost.Result) -> list[str]:
    return [w for w in result.warnings if "facility.max_it_power_kw" in w]


def test_a_sized_fleet_over_the_site_budget_is_warned_about() -> None:
    result = rackcost.evaluate(scenario(max_it_power_kw=20))
    assert site_warnings(result) == [
        "A: the fleet is provisioned for 22.3 kW of rated IT power and its peak IT power is 22.3 kW at quiet (serving "
        "accelerators at their peak: mean x 1.45, held at rated power); the site has 20 kW "
        "(facility.max_it_power_kw); rackcost site gives the largest fleet that fits"
    ]  # B's 15 kW fits
    assert result.records == rackcost.evaluate(scenario()).records  # a warning, not a change


@pytest.mark.parametrize("kw", [22.3, 1000])
def test_a_fleet_within_the_budget_gets_no_warning(kw: float) -> None:
    result = rackcost.evaluate(scenario(max_it_power_kw=kw))
    assert site_warnings(result) == []
    assert result.warnings == rackcost.evaluate(scenario()).warnings


@pytest.mark.parametrize("bad", [0, 0.5, -3, 2e7, "lots"])
def test_a_budget_out_of_range_is_refused_with_its_path(bad: Any) -> None:
    with pytest.raises(rackcost.ScenarioError) as info:
        scenario(max_it_power_kw=bad)
    assert [p.path for p in info.value.problems] == ["facility.max_it_power_kw"]
    assert info.value.problems[0].file == "test.yaml"


# --------------------------------------------------------------------------- rackcost site


def test_cli_site_table_json_and_csv(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    data = copy.deepcopy(BASE)
    data["facility"]["max_it_power_kw"] = 22.3
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    table = runner.invoke(app, ["site", str(path)])
    assert table.exit_code == 0, table.output
    assert "unserved at peak [requests/s]" in table.output and "22.3 kW" in table.output
    js = runner.invoke(app, ["site", str(path), "--max-it-power-kw", "1000", "-f", "json"])
    assert js.exit_code == 0, js.output
    rows = json.loads(js.output)["site"]
    assert [r["max_it_power_kw"] for r in rows] == [1000.0, 1000.0]
    csv_out = runner.invoke(app, ["site", str(path), "-f", "csv"])
    header = csv_out.output.splitlines()[0].split(",")
    assert header[-3:] == ["unserved_rps[quiet]", "unserved_rps[normal]", "unserved_rps[peak]"]


def test_cli_site_below_one_replica_is_one_line_per_system_and_exit_1(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(TWO_SYSTEMS.read_text(encoding="utf-8"), encoding="utf-8")
    out = runner.invoke(app, ["site", str(path), "--max-it-power-kw", "3"])
    assert out.exit_code == 1
    lines = out.output.strip().splitlines()
    assert len(lines) == 2 and all(line.startswith(f"error: {path}: facility.max_it_power_kw: ") for line in lines)
    assert "Traceback" not in out.output
    unset = runner.invoke(app, ["site", str(path)])
    assert unset.exit_code == 1 and "not set" in unset.output


# --------------------------------------------------------------------------- a disaggregated system's two pools

_packing = st.tuples(
    st.integers(1, 4),  # accelerators per replica
    st.sampled_from([4, 8]),  # accelerators per node
    st.integers(1, 4),  # nodes per rack
    st.floats(300.0, 1200.0),  # accelerator rated W
    st.floats(0.0, 3000.0),  # host W
    st.floats(0.0, 5000.0),  # rack overhead W
)


@settings(max_examples=60, deadline=None)
@given(
    _packing,
    _packing,
    st.floats(5_000.0, 60_000.0),
    st.floats(0.5, 3.0),
    st.floats(0.5, 3.0),
    st.sampled_from([1.0, 0.9]),
    st.integers(0, 1),
)
def test_the_pool_split_is_the_best_of_every_pair_within_the_limit(
    prefill, decode, limit_w, per_prefill, per_decode, availability, spares
) -> None:
    """Brute force over every (prefill, decode) pair whose rated power fits: none carries more than the split, and
    the split itself fits. Capacities concave in the serving replicas, as M/M/k capacities at SLO are."""

    def cap_p(n: np.ndarray) -> np.ndarray:
        return per_prefill * np.sqrt(n) * n

    def cap_d(n: np.ndarray) -> np.ndarray:
        return per_decode * n

    split = best_pool_split(limit_w, prefill, decode, cap_p, cap_d, availability, spares)
    best = 0.0
    fits_any = False
    for n_p in range(1, 200):
        if float(fleet_rated_w(n_p, *prefill)) > limit_w * (1 + 1e-12):
            break
        for n_d in range(1, 200):
            rated = float(fleet_rated_w(n_p, *prefill)) + float(fleet_rated_w(n_d, *decode))
            if rated > limit_w * (1 + 1e-12):
                break
            fits_any = True
            s_p = serving_replicas_within(n_p, availability, spares)
            s_d = serving_replicas_within(n_d, availability, spares)
            if s_p > 0 and s_d > 0:
                best = max(best, min(float(cap_p(np.array(s_p))), float(cap_d(np.array(s_d)))))
    if not fits_any:
        assert split is None
        return
    assert split is not None
    assert split.rated_w <= limit_w * (1 + 1e-12)
    assert split.capacity_rps == pytest.approx(best, rel=1e-12, abs=0.0)
    assert split.prefill_serving == serving_replicas_within(split.prefill_replicas, availability, spares)


def test_a_larger_site_never_carries_less_for_two_pools() -> None:
    one = (1, 1, 1, 1000.0, 0.0, 0.0)
    carried = [
        best_pool_split(kw * 1000.0, one, one, lambda n: 2.0 * n, lambda n: 3.0 * n).capacity_rps  # type: ignore[union-attr]
        for kw in range(2, 40)
    ]
    assert all(b >= a for a, b in zip(carried, carried[1:], strict=False))
    assert best_pool_split(1999.0, one, one, lambda n: 2.0 * n, lambda n: 3.0 * n) is None  # no pair fits


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 500), st.floats(0.5, 1.0), st.integers(0, 3))
def test_serving_within_many_is_the_scalar_rule(provisioned: int, availability: float, spares: int) -> None:
    many = serving_within_many(np.array([provisioned]), availability, spares)
    assert int(many[0]) == serving_replicas_within(provisioned, availability, spares)
