"""Cached library calls. Each takes the scenario as its canonical JSON text (hashable), so an edit is a new key.

The pages call only these; nothing here computes a number of its own.
"""

from __future__ import annotations

import json
from typing import Any

import streamlit as st

import rackcost
from rackcost.chain import SystemOutcome, evaluate_systems, result_tables
from rackcost.explore import latency_cliff, operating_curves

CACHE_ENTRIES = 64


def scenario(scenario_json: str) -> rackcost.Scenario:
    """The validated scenario of a canonical JSON text (it validated before, so this cannot fail)."""
    return rackcost.scenario_from_dict(json.loads(scenario_json), "<dashboard>")


@st.cache_data(max_entries=CACHE_ENTRIES, show_spinner=False)
def outcomes(scenario_json: str) -> list[SystemOutcome]:
    """:func:`rackcost.chain.evaluate_systems` of the scenario: the model runs once per edit, for every page."""
    return evaluate_systems(scenario(scenario_json))


@st.cache_data(max_entries=CACHE_ENTRIES, show_spinner=False)
def evaluate(scenario_json: str) -> rackcost.Result:
    """:func:`rackcost.evaluate` of the scenario (its tables, from the cached outcomes)."""
    return result_tables(scenario(scenario_json), outcomes(scenario_json))


@st.cache_data(max_entries=CACHE_ENTRIES, show_spinner=False)
def curves(scenario_json: str) -> list[dict[str, Any]]:
    """:func:`rackcost.explore.operating_curves` of the scenario."""
    return operating_curves(scenario(scenario_json), outcomes=outcomes(scenario_json))


@st.cache_data(max_entries=CACHE_ENTRIES, show_spinner=False)
def cliff(scenario_json: str) -> list[dict[str, Any]]:
    """:func:`rackcost.explore.latency_cliff` of the scenario."""
    return latency_cliff(scenario(scenario_json), outcomes=outcomes(scenario_json))


@st.cache_data(max_entries=CACHE_ENTRIES, show_spinner=False)
def scenario_yaml(scenario_json: str) -> str:
    """:func:`rackcost.scenario_to_yaml` of the scenario: loads back to the same scenario."""
    return rackcost.scenario_to_yaml(scenario(scenario_json))
