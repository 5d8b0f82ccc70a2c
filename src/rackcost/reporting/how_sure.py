"""How sure the answer is, in words: one sentence from a Monte Carlo run, the first line of ``rackcost uncertainty``
and a sentence the report and the dashboard can lead their uncertainty with (docs/uncertainty.md, "How sure, in
words"). No chart library is imported.

The words are the calibrated likelihood language of the IPCC (Mastrandrea et al., "Guidance Note for Lead Authors
of the IPCC Fifth Assessment Report on Consistent Treatment of Uncertainties", IPCC, 2010, table 1), a scale
written for readers who are not statisticians, each word for a range of probability (:data:`LIKELIHOOD`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rackcost import display
from rackcost.analysis.montecarlo import UncertaintyResult, uncertainty
from rackcost.analysis.pairs import probability_cheaper
from rackcost.evaluation.columns import BLENDED

if TYPE_CHECKING:
    from rackcost.evaluation.chain import Evaluation
    from rackcost.scenario.schema import Scenario

__all__ = ["HOW_SURE_SAMPLES", "LIKELY", "UNLIKELY", "how_sure", "likelihood"]

LIKELY = ((0.99, "virtually certain"), (0.95, "extremely likely"), (0.90, "very likely"), (0.66, "likely"))
"""(lowest probability, word), narrowest first: the upper half of the IPCC's likelihood scale (module docstring).
Its ranges nest (very likely is 90-100%, likely 66-100%): a probability takes the narrowest word that holds it [-]."""
UNLIKELY = (
    (0.01, "exceptionally unlikely"),
    (0.05, "extremely unlikely"),
    (0.10, "very unlikely"),
    (0.33, "unlikely"),
)
"""(highest probability, word), narrowest first: the lower half; between 0.33 and 0.66, both excluded, "about as
likely as not" [-]."""
HOW_SURE_SAMPLES = 2_000
"""Samples :func:`how_sure` draws when given a scenario or an evaluation [-]: a probability's binomial standard error
is then at most 1.1 points (``0.5 / sqrt(2,000)``), finer than the scale's narrowest band (4 points)."""


def likelihood(probability: float) -> str:
    """The word of the likelihood scale for a probability (:data:`LIKELY`, :data:`UNLIKELY`).

    Examples
    --------
    >>> likelihood(0.94), likelihood(0.5), likelihood(0.99), likelihood(0.66), likelihood(0.33), likelihood(0.1)
    ('very likely', 'about as likely as not', 'virtually certain', 'likely', 'unlikely', 'very unlikely')
    """
    if not 0.0 <= probability <= 1.0:
        raise ValueError(f"likelihood: a probability is in [0, 1], got {probability!r}")
    for low, word in LIKELY:
        if probability >= low:
            return word
    for high, word in UNLIKELY:
        if probability <= high:
            return word
    return "about as likely as not"


def how_sure(
    source: UncertaintyResult | Evaluation | Scenario,
    pair: tuple[str, str] | None = None,
    demand_point: str = BLENDED,
    samples: int = HOW_SURE_SAMPLES,
    seed: int = 0,
) -> str:
    """How sure a Monte Carlo run is that one system is cheaper per accepted request than another, in one sentence.

    "GB200 NVL72 is cheaper per accepted request than DGX B200 over the demand day in 94.0% of 2,000 draws of the
    inputs' spreads (default spreads from each figure's provenance and the model's fitted errors): very likely."
    The share is shown as :func:`rackcost.display.pct` shows it, and the word is that of the share as shown.

    Parameters
    ----------
    source
        A run of :func:`rackcost.uncertainty`; or a scenario or its evaluation (``rackcost.evaluation.chain.
        evaluation``), which is run first with ``samples`` and ``seed``, default spreads where it has no
        distribution (``rackcost.uncertainty``'s ``default_spreads=None``).
    pair
        ``(system, other)``: the sentence says how often ``system`` is cheaper than ``other``. Default: the system
        cheapest at the inputs' central values (the one the answer names) against the next cheapest.
    demand_point
        A demand point's name, or ``"blended"`` (over the day).
    samples, seed
        The run's size and seed, when ``source`` is not a run.

    Returns
    -------
    str
        The sentence, ending in the likelihood word (:func:`likelihood`, thresholds in docs/uncertainty.md, "How
        sure, in words"); for a run of one system, that there is nothing to compare it with.

    Raises
    ------
    ValueError
        When a system of ``pair`` or ``demand_point`` is not in the run.
    """
    result = source if isinstance(source, UncertaintyResult) else uncertainty(source, samples, seed)
    names = [name for name in result.samples if name != "inputs"]
    if pair is None:
        if len(names) < 2:
            return f"{names[0]} is the only system evaluated: there is nothing to compare it with."
        pair = _default_pair(result, names)
    system, other = pair
    share = probability_cheaper(result, system, other, demand_point)
    where = "over the demand day" if demand_point == BLENDED else f"at {demand_point} demand"
    shown = display.pct(share)
    if share == 1.0:
        how_often = f"in all {result.n:,} draws"
    elif share == 0.0:
        how_often = f"in none of {result.n:,} draws"
    else:
        how_often = f"in {shown} of {result.n:,} draws"
    # the word of the share as shown, so that the two never disagree at a boundary (98.95% shown as 99.0%)
    word = likelihood(float(shown.strip("<>%").replace(",", "")) / 100.0)
    return (
        f"{system} is cheaper per accepted request than {other} {where} {how_often} of the inputs' spreads "
        f"({_drawn(result)}): {word}."
    )


def _default_pair(result: UncertaintyResult, names: list[str]) -> tuple[str, str]:
    """The cheapest system at the central values and the next cheapest (undefined costs last); by the median where
    the run has no central values."""
    cost = dict(result.central)
    if not cost:
        cost = {
            r["system"]: r["p50"]
            for r in result.percentiles
            if r["demand_point"] == "system" and r["column"] == "blended_usd_per_accepted_request"
        }
    ranked = sorted(names, key=lambda name: display.cost_order(cost.get(name)))
    return ranked[0], ranked[1]


def _drawn(result: UncertaintyResult) -> str:
    """What the run drew, in words."""
    defaults = "default spreads from each figure's provenance and the model's fitted errors"
    if result.distributions and result.default_spreads:
        return f"the scenario's distributions, and {defaults} for the other inputs"
    return defaults if result.default_spreads else "the scenario's distributions"
