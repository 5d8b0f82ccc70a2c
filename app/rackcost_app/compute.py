"""Cached library calls. Each takes the scenario as its canonical JSON text (hashable), so an edit is a new key.

The pages call only these; nothing here computes a number of its own. The model runs once per edit, in the library's
one evaluation (:func:`evaluation`, :func:`rackcost.evaluation.chain.evaluation`): the result, the outcomes and the
report are read from it, so the dashboard gives the library's answer, table for table.
"""

from __future__ import annotations

import dataclasses
import json
import threading
from collections import OrderedDict
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any

import streamlit as st
from pydantic import BaseModel

import rackcost
from rackcost.analysis import explore
from rackcost.analysis.explore import cost_against_demand_scale, latency_cliff, operating_curves
from rackcost.evaluation.chain import Evaluation, Unpacked, unpack
from rackcost.evaluation.chain import evaluation as evaluate_once
from rackcost.model.outcomes import SystemOutcome
from rackcost.reporting import models_section
from rackcost.scenario.loading import bundled_file, bundled_files, scenario_to_data
from rackcost.scenario.models_doc import BUNDLED_KIND, models_from_yaml

if TYPE_CHECKING:
    from rackcost.analysis.hardware_mix import HardwareMix
    from rackcost.reporting.decision import Decision

CACHE_ENTRIES = 64


ORIGIN = "<dashboard>"
"""The file name of every scenario the cached calls compute from (their problems name it)."""
_VALIDATED: OrderedDict[str, tuple[rackcost.Scenario, Unpacked | None]] = OrderedDict()
"""Canonical JSON -> its validated scenario, and its :func:`rackcost.evaluation.chain.unpack` (the scenario served,
the systems unserved) when known; the :data:`CACHE_ENTRIES` most recent. Shared by the sessions (as ``st.cache_data``
is): the scenarios are never modified (nothing in the library or the app writes to a validated scenario)."""
_LOCK = threading.Lock()


def scenario(scenario_json: str) -> rackcost.Scenario:
    """The validated scenario of a canonical JSON text (it validated before, so this cannot fail).

    Validated once per text: every cached call and page of a script run, and the runs after it, read the same
    scenario (an edit used to validate it five times), and :func:`rackcost_app.state.revalidate` hands over the
    scenario it validated from the draft (:func:`remember`), so that an edit validates once.
    """
    with _LOCK:
        found = _VALIDATED.get(scenario_json)
        if found is not None:
            _VALIDATED.move_to_end(scenario_json)
            return found[0]
    out = rackcost.scenario_from_dict(json.loads(scenario_json), ORIGIN)
    _store(scenario_json, out, None)
    return out


def in_json_order(validated: rackcost.Scenario) -> None:
    """Every mapping of a validated scenario in the sorted key order of its canonical JSON (``json.dumps(...,
    sort_keys=True)``), in place, as :func:`scenario` would validate it from the text; no field is set, so its
    ``model_fields_set`` stays. :func:`rackcost_app.state.evaluable_json` orders the draft's scenario so before it
    splits it (:func:`remember`)."""
    _sort_mappings(validated)


def remember(scenario_json: str, unpacked: Unpacked) -> None:
    """Keep the scenario of a canonical JSON text validated elsewhere (from the draft), and its
    :func:`rackcost.evaluation.chain.unpack`.

    ``unpacked`` is the split of a scenario put :func:`in_json_order` first: its systems' inputs are then the ones
    the evaluation would unpack from the JSON's order, and are kept (the evaluation does not unpack them again; the
    draft's own order is the user's, and the order of a mapping can be the order of a sum). ``unpacked.given`` is
    given the origin :data:`ORIGIN` (and ``unpacked.scenario``, the systems served, when it is another scenario, the
    origin and the order), so that it is what :func:`scenario` would have validated from the text; a test checks
    the two are the same scenario, order and origin included. The caller must not use them after.
    """
    unpacked.given.remember_origin(ORIGIN, {})
    if unpacked.scenario is not unpacked.given:
        _as_validated_from_json(unpacked.scenario)
    _store(scenario_json, unpacked.given, unpacked)


def _store(scenario_json: str, validated: rackcost.Scenario, unpacked: Unpacked | None) -> None:
    with _LOCK:
        _VALIDATED[scenario_json] = validated, unpacked
        _VALIDATED.move_to_end(scenario_json)
        while len(_VALIDATED) > CACHE_ENTRIES:
            _VALIDATED.popitem(last=False)


def _as_validated_from_json(validated: rackcost.Scenario) -> None:
    """Give a validated scenario the origin and the mapping order it would have if validated from its canonical
    JSON text (``json.dumps(..., sort_keys=True)``), in place: no field is set, so its ``model_fields_set`` stays."""
    validated.remember_origin(ORIGIN, {})
    _sort_mappings(validated)


_LEAVES = (str, int, float, Enum, type(None))
"""Values in a validated model that hold no mapping (bool is an int)."""


def _sort_mappings(value: Any) -> None:
    """Every dict in a validated model, sorted by key in place (as the canonical JSON sorts them).

    A model's fields are read from its ``__dict__`` (where pydantic keeps them) and plain values are not visited:
    an edit sorts every scenario once, and a call on every value, through ``getattr``, took about a third of the
    dashboard's own time per edit (cProfile, benchmarks/bench_app.py).
    """
    if isinstance(value, BaseModel):
        fields = value.__dict__
        children: Any = [fields[name] for name in type(value).model_fields]
    elif isinstance(value, list | tuple):
        children = value
    elif isinstance(value, dict):
        keys = [_json_key(key) for key in value]
        if keys != sorted(keys):
            items = sorted(value.items(), key=lambda item: _json_key(item[0]))
            value.clear()
            value.update(items)
        children = value.values()
    else:
        return
    for child in children:
        if not isinstance(child, _LEAVES):
            _sort_mappings(child)


def _json_key(key: Any) -> str:
    """A mapping key as the JSON text of the scenario writes it (an enum as its value)."""
    return str(key.value) if isinstance(key, Enum) else str(key)


def _unpacked(scenario_json: str) -> Unpacked:
    """:func:`rackcost.evaluation.chain.unpack` of the scenario, once per text."""
    validated = scenario(scenario_json)
    with _LOCK:
        found = _VALIDATED.get(scenario_json)
    if found is not None and found[1] is not None:
        return found[1]
    unpacked = unpack(validated)
    _store(scenario_json, validated, unpacked)
    return unpacked


@st.cache_data(max_entries=CACHE_ENTRIES, show_spinner=False)
def served(scenario_json: str) -> tuple[str, tuple[Any, ...]]:
    """:func:`rackcost.evaluation.chain.unpack` of the scenario: the canonical JSON of the scenario without the
    systems it cannot serve with (the same text when it can serve with all), and those systems with why.

    Raises :class:`rackcost.ScenarioError` (not cached) when no system is left; :func:`rackcost_app.state.revalidate`
    calls this first, so such a draft never becomes the valid scenario.
    """
    unpacked = _unpacked(scenario_json)
    kept, unserved = unpacked.scenario, unpacked.unserved
    if not unserved:
        return scenario_json, ()
    kept_json = json.dumps(scenario_to_data(kept), sort_keys=True, ensure_ascii=False)
    _as_validated_from_json(kept)  # (its figures were renumbered: their order is no longer the sorted one)
    _store(kept_json, kept, Unpacked(kept, kept, ()))  # the scenario of the systems served: not validated again
    return kept_json, unserved


def served_json(scenario_json: str) -> str:
    """The canonical JSON of the systems the scenario can serve with (the key of the Uncertainty and Sweep pages)."""
    return served(scenario_json)[0]


@st.cache_resource(max_entries=CACHE_ENTRIES, show_spinner=False)
def evaluation(scenario_json: str) -> Evaluation:
    """:func:`rackcost.evaluation.chain.evaluation` of the scenario: the model runs once per edit, for every page.

    Shared by the sessions, not copied (nothing reads it to modify it); its scenario served is the one
    :func:`served_json` names. Its buying plan is kept with it once found (:func:`decision`): at most
    :data:`CACHE_ENTRIES` evaluations, and only those of a scenario with a ``plan`` block whose plan was found hold
    one (9 MB pickled for the bundled three-year plan). Raises :class:`rackcost.ScenarioError` (not cached) when no
    system can serve."""
    kept_json = served_json(scenario_json)
    unpacked, kept = _unpacked(scenario_json), scenario(kept_json)
    if unpacked.scenario is not kept:  # (it left the cache and came back): the one validated from its JSON
        unpacked = dataclasses.replace(unpacked, scenario=kept, inputs=None)
    return evaluate_once(unpacked)


def outcomes(scenario_json: str) -> list[SystemOutcome]:
    """The outcomes of the systems the scenario can serve with (steps 1 to 8), of its one :func:`evaluation`."""
    return list(evaluation(scenario_json).outcomes)


@st.cache_data(max_entries=CACHE_ENTRIES, show_spinner=False)
def evaluate(scenario_json: str) -> rackcost.Result:
    """:func:`rackcost.evaluate` of the scenario: the result of its one :func:`evaluation` (``unserved`` the systems
    left out, with why; the ``years`` and ``horizon`` tables of a demand profile), a copy per page."""
    return evaluation(scenario_json).result


@st.cache_data(max_entries=CACHE_ENTRIES, show_spinner=False)
def kv_limit_notes(scenario_json: str) -> list[str]:
    """:func:`rackcost.reporting.breakdowns.kv_limit_notes` of the systems served: where KV-cache memory caps an
    operating point."""
    from rackcost.reporting.breakdowns import kv_limit_notes as notes

    return notes(scenario(served_json(scenario_json)), outcomes(scenario_json))


@st.cache_data(max_entries=CACHE_ENTRIES, show_spinner=False)
def curves(scenario_json: str) -> list[dict[str, Any]]:
    """:func:`rackcost.analysis.explore.operating_curves` of the scenario's one :func:`evaluation`."""
    return operating_curves(evaluation(scenario_json))


@st.cache_data(max_entries=CACHE_ENTRIES, show_spinner=False)
def cliff(scenario_json: str) -> list[dict[str, Any]]:
    """:func:`rackcost.analysis.explore.latency_cliff` of the scenario's one :func:`evaluation`."""
    return latency_cliff(evaluation(scenario_json))


@st.cache_data(max_entries=CACHE_ENTRIES, show_spinner=False)
def demand_scale(scenario_json: str) -> list[dict[str, Any]]:
    """:func:`rackcost.analysis.explore.cost_against_demand_scale` of the scenario's one :func:`evaluation`."""
    return cost_against_demand_scale(evaluation(scenario_json))


@st.cache_data(max_entries=CACHE_ENTRIES, show_spinner=False)
def how_sure(scenario_json: str) -> str | None:
    """How sure the answer is, in words (:func:`rackcost.reporting.how_sure.how_sure` of the evaluation: the
    scenario's distributions, else the model's default spreads; 2,000 samples, seed 0), or None for one system."""
    from rackcost.reporting.how_sure import how_sure as worded  # the Monte Carlo: loaded on the Answer page only

    if len(evaluate(scenario_json).records["systems"]) < 2:
        return None
    return worded(evaluation(scenario_json))


@st.cache_data(max_entries=CACHE_ENTRIES, show_spinner=False)
def scenario_yaml(scenario_json: str) -> str:
    """:func:`rackcost.scenario_to_yaml` of the scenario: loads back to the same scenario."""
    return rackcost.scenario_to_yaml(scenario(scenario_json))


def decision(scenario_json: str) -> Decision:
    """:func:`rackcost.reporting.decision.decision` of the scenario's one :func:`evaluation`: what the Answer page
    leads with, as ``rackcost evaluate`` and the report do. For a scenario with a ``plan`` block it finds the buying
    plan the first time (seconds to tens of seconds; :func:`rackcost.evaluation.planning.plan_of`), which is then
    kept with the evaluation, or why there is none: the Buying plan page reads the same."""
    from rackcost.reporting.decision import decision as decided

    return decided(evaluation(scenario_json))


@st.cache_data(max_entries=8, show_spinner=False)
def report_html(scenario_json: str, samples: int | None, seed: int, date: str) -> bytes:
    """:func:`rackcost.report` of the scenario's one :func:`evaluation` as HTML bytes (the same bytes as the
    library's for the same date)."""
    return rackcost.report(evaluation(scenario_json), samples=samples, seed=seed, date=date).encode("utf-8")


# ---- uncertainty, tornado, break-even ---------------------------------------------------------------------------

UNCERTAINTY_ENTRIES = 16
HISTOGRAM_BINS = explore.HISTOGRAM_BINS
# columns summarised for the page (the library summarises every column; the page shows these)
SUMMARY_POINT_COLUMNS = ("usd_per_accepted_request", "accepted_rps", "facility_power_kw", "total_usd_per_hour")
SUMMARY_SYSTEM_COLUMNS = ("blended_usd_per_accepted_request",)


def distributions(scenario_json: str) -> list[dict[str, Any]]:
    """The scenario's uncertain inputs: path, distribution parameters, central value, P5 and P95 (sorted by path)."""
    rows = []
    for path, dist in sorted(scenario(scenario_json).distributions.items()):
        params = dist.model_dump(mode="json", exclude_none=True)
        rows.append(
            {
                "input": path,
                "dist": params.pop("dist"),
                "parameters": params,
                "central": float(dist.central),
                "p5": float(dist.ppf(0.05)),
                "p95": float(dist.ppf(0.95)),
            }
        )
    return rows


@st.cache_data(max_entries=UNCERTAINTY_ENTRIES, show_spinner=False)
def uncertainty_summary(scenario_json: str, samples: int, seed: int) -> dict[str, Any]:
    """:func:`rackcost.uncertainty` of the scenario, reduced to what the page shows (plain, picklable data).

    Returns
    -------
    dict
        ``percentiles``: the library's rows for :data:`SUMMARY_POINT_COLUMNS` and :data:`SUMMARY_SYSTEM_COLUMNS`;
        ``probability_cheaper``: the library's rows; ``pairs``: every ordered pair of systems at each demand point
        and blended (:func:`rackcost.analysis.pairs.pair_rows`); ``default_spreads``: the library's rows (empty
        where the scenario gives distributions); ``how_sure``: the sentence; ``histogram``: rows ``system``,
        ``demand_point`` (a point or ``blended``), ``x0``, ``x1`` [USD per accepted request], ``density``
        [1/USD], a histogram of the cost per accepted request over the central 99% of the samples (not the samples
        themselves); ``n``, ``seed``.
    """
    sc = scenario(scenario_json)
    result = rackcost.uncertainty(sc, samples, seed)
    keep = set(SUMMARY_POINT_COLUMNS) | set(SUMMARY_SYSTEM_COLUMNS)
    percentiles = [
        {k: (float(v) if isinstance(v, int | float) else v) for k, v in row.items()}
        for row in result.percentiles
        if row["column"] in keep
    ]
    histogram = explore.cost_histograms(
        result.samples, [s.name for s in sc.systems], [d.name for d in sc.demand], HISTOGRAM_BINS
    )
    from rackcost.analysis.pairs import pair_rows
    from rackcost.reporting.how_sure import how_sure as worded

    names = [s.name for s in sc.systems if s.name in result.samples]
    pairs = [(a, b) for a in names for b in names if a != b]
    return {
        "percentiles": percentiles,
        "probability_cheaper": [dict(r) for r in result.probability_cheaper],
        # every ordered pair at each demand point and blended: the page's "any two systems"
        "pairs": [dict(r) for r in pair_rows(result.samples, result.points, pairs)] if pairs else [],
        "default_spreads": [dict(r) for r in result.default_spreads],
        "how_sure": worded(result) if len(names) > 1 else "One system only: nothing to compare it with.",
        "histogram": histogram,
        "n": result.n,
        "seed": result.seed,
    }


@st.cache_data(max_entries=CACHE_ENTRIES, show_spinner=False)
def tornado(scenario_json: str) -> list[dict[str, Any]]:
    """:func:`rackcost.tornado` of the scenario (rows ranked by swing, numbers as plain floats)."""
    return [
        {k: (float(v) if isinstance(v, int | float) else v) for k, v in row.items()}
        for row in rackcost.tornado(scenario(scenario_json))
    ]


@st.cache_data(max_entries=CACHE_ENTRIES, show_spinner=False)
def breakeven(
    scenario_json: str,
    input_path: str,
    system: str | None,
    point: str,
    low: float | None = None,
    high: float | None = None,
) -> dict[str, Any]:
    """:func:`rackcost.breakeven` as a dict (``value`` is None when no value in the range makes the costs equal).

    Raises :class:`rackcost.ScenarioError` (not cached) when the input, system or point is not one of the
    scenario's.
    """
    found = rackcost.breakeven(scenario(scenario_json), input_path, system, point, low, high)
    return dataclasses.asdict(found)


@st.cache_data(max_entries=CACHE_ENTRIES, show_spinner=False)
def hardware_mix(scenario_json: str, slices: int) -> HardwareMix:
    """:func:`rackcost.hardware_mix` of the scenario, each class's load cut into ``slices``.

    Raises :class:`rackcost.ScenarioError` (not cached) when the scenario cannot be mixed (``fleet.replicas`` given,
    too many cells).
    """
    return rackcost.hardware_mix(scenario(scenario_json), slices)


def bundled_models() -> list[Path]:
    """The bundled models documents (``scenarios/models``), sorted by name."""
    return bundled_files(BUNDLED_KIND)


@st.cache_data(max_entries=CACHE_ENTRIES, show_spinner=False)
def models_report_html(name: str, text: str | None, rule: str | None, placement: str | None) -> str:
    """:func:`rackcost.models_report` of a bundled models document (``text`` None) or of an uploaded one's YAML
    ``text``, with the page's rule and placement (None: the document's), as HTML.

    Raises :class:`rackcost.ScenarioError` (not cached): a bad document.
    """
    return rackcost.models_report(name, rule=rule, placement=placement, text=text)  # type: ignore[arg-type]


@st.cache_data(max_entries=CACHE_ENTRIES, show_spinner=False)
def evaluate_models(name: str, text: str | None, rule: str | None, placement: str | None) -> dict[str, Any]:
    """:func:`rackcost.evaluate_models` of a bundled models document (``text`` None: ``name`` is its file name) or
    of an uploaded one's YAML ``text`` (``name`` its file name), as plain data: the document's name, placement and
    rule, each model's and each system type's rows, and the warnings.

    Raises :class:`rackcost.ScenarioError` (not cached): a bad document, each problem at its YAML path and line.
    """
    document = bundled_file(BUNDLED_KIND, name) if text is None else models_from_yaml(text, name)
    result = rackcost.evaluate_models(document, rule, placement)
    return {
        "name": result.name,
        "placement": result.placement,
        "rule": result.rule,
        "models": models_section.model_rows(result),
        "fleets": models_section.fleet_rows(result),
        "warnings": list(result.warnings),
    }
