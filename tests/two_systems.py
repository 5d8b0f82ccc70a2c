"""The small two-system scenario (tests/data/two_systems.yaml) as the Monte Carlo tests vary it: a fresh copy of
its data, changed by the caller, then validated."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import yaml

import rackcost
from reference import TWO_SYSTEMS

BASE = yaml.safe_load(TWO_SYSTEMS.read_text(encoding="utf-8"))


def two_systems_scenario(mutate: Callable[[dict[str, Any]], Any] | None = None) -> rackcost.Scenario:
    """The two-system scenario, its data first passed to ``mutate`` (which changes it in place)."""
    data = copy.deepcopy(BASE)
    if mutate is not None:
        mutate(data)
    return rackcost.scenario_from_dict(data)
