"""How sure, in words (rackcost.reporting.how_sure, docs/uncertainty.md "How sure, in words")."""

from __future__ import annotations

import re

import numpy as np
import pytest

import rackcost
from rackcost import display
from rackcost.analysis.montecarlo import UncertaintyResult
from rackcost.evaluation.chain import evaluation
from rackcost.reporting.how_sure import LIKELY, UNLIKELY, likelihood
from two_systems import two_systems_scenario as scenario


@pytest.mark.parametrize(
    ("probability", "word"),
    [
        (1.0, "virtually certain"),
        (0.99, "virtually certain"),
        (0.9899, "extremely likely"),
        (0.95, "extremely likely"),
        (0.94, "very likely"),
        (0.90, "very likely"),
        (0.66, "likely"),
        (0.6599, "about as likely as not"),
        (0.5, "about as likely as not"),
        (0.3301, "about as likely as not"),
        (0.33, "unlikely"),
        (0.10, "very unlikely"),
        (0.05, "extremely unlikely"),
        (0.01, "exceptionally unlikely"),
        (0.0, "exceptionally unlikely"),
    ],
)
def test_the_words_are_the_ipcc_likelihood_scale(probability: float, word: str) -> None:
    """Mastrandrea et al. (IPCC AR5 guidance note, 2010, table 1): virtually certain 99-100%, extremely likely
    95-100%, very likely 90-100%, likely 66-100%, about as likely as not 33-66%, unlikely 0-33%, very unlikely
    0-10%, extremely unlikely 0-5%, exceptionally unlikely 0-1%; the narrowest range that holds it."""
    assert likelihood(probability) == word
    assert [low for low, _ in LIKELY] == [0.99, 0.95, 0.90, 0.66]
    assert [high for high, _ in UNLIKELY] == [0.01, 0.05, 0.10, 0.33]
    with pytest.raises(ValueError, match="in \\[0, 1\\]"):
        likelihood(1.5)


def test_the_sentence_names_the_pair_the_share_the_draws_and_the_word() -> None:
    sc = scenario()
    result = rackcost.uncertainty(sc, 2_000, seed=0)
    share = rackcost.probability_cheaper(result, "B", "A")
    cheapest = min(result.central, key=lambda name: result.central[name])
    other = next(name for name in result.central if name != cheapest)
    sentence = rackcost.how_sure(result)
    assert sentence.startswith(f"{cheapest} is cheaper per accepted request than {other} over the demand day in ")
    assert "of 2,000 draws of the inputs' spreads (default spreads from each figure's provenance" in sentence
    shown = re.search(r" in ([\d.]+)% of 2,000 draws ", sentence).group(1)
    assert sentence.endswith(f": {likelihood(float(shown) / 100)}.")
    asked = rackcost.how_sure(result, ("B", "A"), demand_point="peak")
    assert asked.startswith("B is cheaper per accepted request than A at peak demand in ")
    assert f" in {display.pct(rackcost.probability_cheaper(result, 'B', 'A', 'peak'))} of 2,000 draws " in asked
    assert 0.0 < share < 1.0


def test_how_sure_runs_a_scenario_or_an_evaluation_itself() -> None:
    """From an Evaluation (what the report and the dashboard hold): 2,000 samples, seed 0, the same sentence."""
    sc = scenario()
    from_run = rackcost.how_sure(rackcost.uncertainty(sc, 2_000, seed=0))
    assert rackcost.how_sure(evaluation(sc)) == from_run
    assert rackcost.how_sure(sc) == from_run


@pytest.mark.parametrize("cheaper", [9_895, 9_899, 9_900, 6_600, 3_300, 9_499])
def test_the_word_is_that_of_the_share_as_shown(cheaper: int) -> None:
    """A run of 10,000 samples in which A is cheaper in ``cheaper`` of them: the sentence's percentage and its word
    agree at the scale's boundaries (98.95% shows as 99.0% or 98.9%, and takes the word of what is shown)."""
    n = 10_000
    a = np.where(np.arange(n) < cheaper, 1.0, 3.0)
    samples = {
        "A": {"usd_per_accepted_request": a[:, None], "blended_usd_per_accepted_request@system": a},
        "B": {
            "usd_per_accepted_request": np.full((n, 1), 2.0),
            "blended_usd_per_accepted_request@system": np.full(n, 2.0),
        },
    }
    result = UncertaintyResult([], [], samples, n, 0, distributions=["facility.pue"], central={"A": 1.0, "B": 2.0})
    sentence = rackcost.how_sure(result)
    shown = re.search(r" in ([\d.]+)% of 10,000 draws ", sentence).group(1)
    assert shown == f"{100 * cheaper / n:.1f}"
    assert sentence.endswith(f": {likelihood(float(shown) / 100)}.")


def test_certain_and_lone_answers_are_said_plainly() -> None:
    def dear(data: dict) -> None:
        data["systems"][1]["costs"]["capex_usd_per_accelerator"] = {"dist": "uniform", "low": 200_000, "high": 400_000}

    result = rackcost.uncertainty(scenario(dear), 500, seed=0)
    assert rackcost.how_sure(result).startswith(
        "A is cheaper per accepted request than B over the demand day in all 500"
    )
    assert "(the scenario's distributions)" in rackcost.how_sure(result)
    assert " in none of 500 draws " in rackcost.how_sure(result, ("B", "A"))

    def alone(data: dict) -> None:
        data["systems"] = data["systems"][:1]

    assert rackcost.how_sure(scenario(alone), samples=200) == (
        "A is the only system evaluated: there is nothing to compare it with."
    )
