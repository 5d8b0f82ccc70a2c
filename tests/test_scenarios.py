"""Bundled scenarios: golden results, the published claim ratios, and sourced figures."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import yaml

import rackcost
from golden_results import GOLDEN, golden

SCENARIOS = rackcost.bundled_scenarios()
IDS = [p.stem for p in SCENARIOS]

# Relative tolerance against the golden files: the model is deterministic, so only floating-point noise across
# numpy/scipy builds (last few bits of gammaincc, summation order) may differ.
GOLDEN_RTOL = 1e-9


def test_the_four_issue_scenarios_are_bundled() -> None:
    assert {p.name for p in SCENARIOS} >= {
        "deepseek-r1-jalapeno-vs-gb300.yaml",
        "gpt-oss-120b-jalapeno-vs-gb200.yaml",
        "kimi-k2.5-jalapeno-vs-gb300.yaml",
        "deepseek-r1-b200-vs-gb200-inferencex.yaml",
    }


def _close(a, b, where: str) -> None:
    if isinstance(a, dict):
        assert set(a) == set(b), where
        for key in a:
            _close(a[key], b[key], f"{where}.{key}")
    elif isinstance(a, list):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _close(x, y, f"{where}[{i}]")
    elif isinstance(a, float) and not isinstance(b, bool):
        assert math.isclose(a, b, rel_tol=GOLDEN_RTOL, abs_tol=1e-12), f"{where}: {a} != golden {b}"
    else:
        assert a == b, f"{where}: {a!r} != golden {b!r}"


@pytest.mark.parametrize("path", SCENARIOS, ids=IDS)
def test_golden_result(path: Path) -> None:
    expected = json.loads((GOLDEN / f"{path.stem}.json").read_text(encoding="utf-8"))
    _close(golden(path), expected, path.stem)


@pytest.mark.parametrize(
    ("name", "system_claim", "baseline_claim"),
    [
        # docs/sources.md §1 (OpenAI "Jalapeño first results", 2026-08-25): peak mixed tok/s per kW on package power
        ("deepseek-r1-jalapeno-vs-gb300", 19_641, 11_781),  # 1.667x
        ("gpt-oss-120b-jalapeno-vs-gb200", 85_448, 44_960),  # 1.9x
        ("kimi-k2.5-jalapeno-vs-gb300", 18_195, 11_862),  # 1.5x
    ],
)
def test_claim_ratio_reproduces_the_published_headline(name: str, system_claim: int, baseline_claim: int) -> None:
    result = rackcost.evaluate(rackcost.load_scenario(name))
    (row,) = [r for r in result.records["comparison"] if r["kind"] == "claim"]
    assert row["advantage_ratio"] == pytest.approx(system_claim / baseline_claim, rel=1e-12)
    if name.startswith("deepseek"):
        assert round(row["advantage_ratio"], 3) == 1.667  # the ratio the issue quotes


def _numeric_leaves(data, path: str = ""):
    if isinstance(data, dict):
        for key, value in data.items():
            yield from _numeric_leaves(value, f"{path}.{key}" if path else str(key))
    elif isinstance(data, list):
        for i, value in enumerate(data):
            yield from _numeric_leaves(value, f"{path}[{i}]")
    elif isinstance(data, int | float) and not isinstance(data, bool):
        yield path


@pytest.mark.parametrize("path", SCENARIOS, ids=IDS)
def test_every_figure_has_a_source_and_provenance(path: Path) -> None:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    figures = data.get("figures", {})
    body = {k: v for k, v in data.items() if k != "figures"}
    uncovered = [
        leaf
        for leaf in _numeric_leaves(body)
        if not any(leaf == key or leaf.startswith(key + ".") or leaf.startswith(key + "[") for key in figures)
    ]
    assert uncovered == [], f"{path.name}: figures without a source: {uncovered}"
    for key, figure in figures.items():
        assert figure["provenance"] in {"vendor", "collaborative", "independent", "assumption"}, key
        if figure["provenance"] == "assumption":
            assert figure.get("why"), f"{path.name}: assumption {key} does not say why"


@pytest.mark.parametrize("path", SCENARIOS, ids=IDS)
def test_bundled_demand_is_realistic(path: Path) -> None:
    # docs/sources.md §7: peak about 1.5-1.7x the daily mean; quiet about a quarter of peak; hours add up to 24
    scenario = rackcost.load_scenario(path)
    rates = {d.name: d.arrival_rps for d in scenario.demand}
    mean = sum(d.arrival_rps * d.hours_per_day for d in scenario.demand) / 24
    assert 1.5 <= rates["peak"] / mean <= 1.7
    assert 0.15 <= rates["quiet"] / rates["peak"] <= 0.35
    result = rackcost.evaluate(scenario)
    assert all(row["racks"] >= 3 for row in result.records["systems"]), "a scale that needs several racks"
