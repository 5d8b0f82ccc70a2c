"""P(cheaper) for any pair of systems (rackcost.analysis.pairs, docs/uncertainty.md "Monte Carlo"): against closed
forms, from one run's samples."""

from __future__ import annotations

import copy
import math

import pytest

import rackcost
from rackcost.analysis.pairs import every_pair
from two_systems import two_systems_scenario as scenario


def with_twin(data: dict) -> None:
    """A third system, an exact copy of A under another name: the same figures, its own draws."""
    twin = copy.deepcopy(data["systems"][0])
    twin["name"] = "A twin"
    data["systems"].append(twin)


def test_a_symmetric_pair_is_a_coin_toss_within_the_binomial_bound() -> None:
    """A and its twin have the same default spreads on their own figures and share the facility's and the demand's
    draws: exchangeable, and a tie needs every one of their own draws equal (probability 0), so P(A < twin) = 1/2.
    The share of n draws has standard error sqrt(0.25 / n); 4 of them allowed (seeded: it never flakes)."""
    n = 4_000
    result = rackcost.uncertainty(scenario(with_twin), n, seed=11)
    share = rackcost.probability_cheaper(result, "A", "A twin")
    reverse = rackcost.probability_cheaper(result, "A twin", "A")
    assert abs(share - 0.5) <= 4 * math.sqrt(0.25 / n)
    assert share + reverse == pytest.approx(1.0)
    for point in ("quiet", "normal", "peak"):
        assert abs(rackcost.probability_cheaper(result, "A", "A twin", point) - 0.5) <= 4 * math.sqrt(0.25 / n)


def test_spreads_that_cannot_overlap_give_exactly_one_and_zero() -> None:
    """Only B's accelerator price is uncertain, uniform on [10x, 20x] its value. The cost rises with the price (the
    fleet is sized without it), so every draw costs B at least what it costs at 10x; that is above A's cost, so A is
    cheaper in every sample: exactly 1, and B in none: exactly 0."""

    def dear(data: dict) -> None:
        data["systems"][1]["costs"]["capex_usd_per_accelerator"] = {"dist": "uniform", "low": 200_000, "high": 400_000}

    sc = scenario(dear)

    def at_low(data: dict) -> None:
        data["systems"][1]["costs"]["capex_usd_per_accelerator"] = 200_000

    cheapest_b = rackcost.evaluate(scenario(at_low)).records["systems"]
    assert cheapest_b[0]["blended_usd_per_accepted_request"] < cheapest_b[1]["blended_usd_per_accepted_request"]
    result = rackcost.uncertainty(sc, 1_000, seed=0)
    assert result.default_spreads == []  # the scenario has a distribution: only it is drawn
    assert rackcost.probability_cheaper(result, "A", "B") == 1.0
    assert rackcost.probability_cheaper(result, "B", "A") == 0.0
    assert {(r["system"], r["other"]): r["probability_fraction"] for r in result.pairs} == {
        ("A", "B"): 1.0,
        ("B", "A"): 0.0,
    }


def test_every_pair_is_in_the_result_and_the_baseline_rows_agree() -> None:
    sc = scenario(with_twin)
    result = rackcost.uncertainty(sc, 600, seed=3)
    assert [(r["system"], r["other"]) for r in result.pairs] == every_pair(["A", "B", "A twin"])
    assert all(r["demand_point"] == "blended" for r in result.pairs)
    for row in result.probability_cheaper:  # the baseline (A) rows are the same comparison
        assert row["probability_fraction"] == rackcost.probability_cheaper(
            result, row["system"], "A", row["demand_point"]
        )


def test_a_pair_not_in_the_run_is_refused_naming_the_choices() -> None:
    result = rackcost.uncertainty(scenario(), 200, seed=0)
    with pytest.raises(ValueError, match=r"'C' is not a system of this run; systems: \['A', 'B'\]"):
        rackcost.probability_cheaper(result, "A", "C")
    with pytest.raises(ValueError, match="two different systems"):
        rackcost.probability_cheaper(result, "A", "A")
    with pytest.raises(ValueError, match=r"'rush' is not a demand point of this run; points: \['quiet'"):
        rackcost.probability_cheaper(result, "A", "B", "rush")
