"""A scenario's request classes cut down to some of them, as plain data (the hardware mix's sub-scenarios,
:mod:`rackcost.analysis.hardware_mix`).

A fleet that serves only some of a workload's classes sees only their arrivals: the kept classes' share of every
demand point's rate, each kept class's share of that renormalised. Requests of the workload are split among classes
at random, so the kept stream is a random thinning of the whole with probability ``p`` (the kept share), and its
burstiness follows by the law of total variance: a count ``N`` thinned binomially has variance ``p^2 Var N + p (1 - p)
E N``, so an index of dispersion ``I`` becomes ``p I + 1 - p``; a renewal stream's kept gap is a geometric sum of
gaps (``1/p`` of them on average), whose SCV ``c^2`` becomes ``p c^2 + 1 - p`` alike. Each curve keeps the shape it
was measured at: a system that leaves its benchmark shape to the workload's mean gets the whole mix's means written
in.
"""

from __future__ import annotations

import copy
import math
import re
from collections.abc import Mapping
from typing import Any

__all__ = ["scaled_demand", "subset_classes", "thinned_index"]

_CLASS_KEY = re.compile(r"^workload\.classes\[(\d+)\](.*)$")


def thinned_index(index: float, kept_fraction: float) -> float:
    """Index of dispersion (or arrival SCV) of a stream thinned at random to ``kept_fraction`` of its arrivals [-].

    Examples
    --------
    A Poisson stream stays Poisson; a stream of index 5 kept at a quarter is 0.25 x 5 + 0.75 = 2:

    >>> thinned_index(1.0, 0.3), thinned_index(5.0, 0.25)
    (1.0, 2.0)
    """
    return kept_fraction * index + 1.0 - kept_fraction


def scaled_demand(data: dict[str, Any], kept_fraction: float) -> dict[str, Any]:
    """The scenario data with a random ``kept_fraction`` of its arrivals: every demand point's ``arrival_rps``
    times it, its arrival SCV and index of dispersion thinned (:func:`thinned_index`). ``data`` is changed in place
    and returned; its rates must be numbers."""
    for point in data["demand"]:
        point["arrival_rps"] = float(point["arrival_rps"]) * kept_fraction
        if "arrival_scv" in point:
            point["arrival_scv"] = thinned_index(float(point["arrival_scv"]), kept_fraction)
        dispersion = point.get("arrival_dispersion")
        if dispersion is not None:
            dispersion["index"] = [thinned_index(float(v), kept_fraction) for v in dispersion["index"]]
    return data


def subset_classes(
    data: dict[str, Any], kept: Mapping[str, float], mean_tokens: tuple[float, float] | None = None
) -> dict[str, Any]:
    """The scenario data serving only some of its workload's classes, or part of their load, with their share of the
    demand.

    Parameters
    ----------
    data
        A scenario's plain data with ``workload.classes`` and named demand points whose rates are numbers (no
        profile, no distribution on a rate: the mix is evaluated on central values); not changed.
    kept
        Class name -> the fraction of its load kept, above 0 to 1 [-]; the classes not named are left out.
    mean_tokens
        The whole mix's mean input and output tokens: written as the benchmark shape of each system's curve that
        does not give its own (a curve's default shape is the workload's mean, which the subset would move).

    Returns
    -------
    dict
        A new dict: the kept classes, each share ``share x fraction / p`` with ``p = sum(share x fraction)`` the kept
        share of the arrivals; the demand scaled to ``p`` (:func:`scaled_demand`); ``figures`` of the classes
        renumbered, those of classes left out dropped.

    Raises
    ------
    ValueError
        If a fraction is outside (0, 1], or the kept share of the arrivals is 0.
    """
    bad = {name: f for name, f in kept.items() if not 0.0 < f <= 1.0}
    if bad:
        raise ValueError(f"the fraction of a class's load kept must be above 0 to 1, got {bad}")
    out = copy.deepcopy(data)
    classes = out["workload"]["classes"]
    kept_index = [i for i, c in enumerate(classes) if c["name"] in kept]
    weights = [float(classes[i]["share_fraction"]) * kept[classes[i]["name"]] for i in kept_index]
    kept_fraction = math.fsum(weights)
    if kept_fraction <= 0.0:
        raise ValueError(f"the classes kept must have a share above 0, got {dict(kept)}")
    out["workload"]["classes"] = [
        {**classes[i], "share_fraction": w / kept_fraction} for i, w in zip(kept_index, weights, strict=True)
    ]
    for name in ("input_tokens_per_request", "output_tokens_per_request"):
        out["workload"].pop(name, None)  # the mix's means, derived again from the kept classes
    scaled_demand(out, kept_fraction)
    if mean_tokens is not None:
        for system in out["systems"]:
            performance = system.get("performance")
            if isinstance(performance, dict):
                performance.setdefault("benchmark_input_tokens", mean_tokens[0])
                performance.setdefault("benchmark_output_tokens", mean_tokens[1])
    renumber = {old: new for new, old in enumerate(kept_index)}
    if isinstance(out.get("figures"), dict):
        figures = {}
        for key, figure in out["figures"].items():
            match = _CLASS_KEY.match(key)
            if match is None:
                figures[key] = figure
            elif int(match.group(1)) in renumber:
                figures[f"workload.classes[{renumber[int(match.group(1))]}]{match.group(2)}"] = figure
        out["figures"] = figures
    return out
