"""``rackcost.evaluate`` of a scenario of three request classes against the same scenario as one class, as a ratio
measured in the same run (issue 23: "evaluate of a 3-class scenario within 2x of a 1-class one"; never asserted).

Run: ``.venv/bin/python benchmarks/bench_classes.py [--rounds N]``

Each pair is the same systems, SLO and demand: the three-class workload (length distributions, prefix hits, a class
with its own SLO and one with its own attainment target), and one class of the same scenario's mean shape written
as the plain ``input_tokens_per_request`` / ``output_tokens_per_request`` (the path every scenario took before).
The two are evaluated in turns, ``REPEATS`` times a round after a warm-up, and each round's ratio is the median CPU
time (``time.process_time``: other jobs of a shared machine count less than in wall time) of the classes over
one; the figure is the median ratio over the rounds.

Pairs: ``tests/data/three_classes.yaml`` (two small systems), the bundled DeepSeek R1 DGX B200 vs GB200 NVL72
scenario (InferenceX curves of hundreds of points, the KV-cache limit) serving a chat / reasoning / agentic mix, and
``three_classes.yaml``'s systems serving one class of lognormal inputs (mean 1,000 tokens, cv 3; 500 output tokens):
a service SCV below 1, so sizing and the capacity at SLO search the rule acceptance reads
(:mod:`rackcost.model.queues.stretch_rule`), where the plain one class of the same mean shape (exponential service)
takes the routing's search alone; its ratio is the cost of that search and of one spread class's p99.

Measured with this script on the shared 2-core development machine: see docs/model.md, "Request classes", for the
figures. The last (``--rounds 7``, a quiet machine, issue 23's last speed pass): 1.71x +- 0.10 (three_classes.yaml,
12.2 against 7.2 ms) and 1.62x +- 0.07 (the DeepSeek mix, 11.7 against 7.2 ms). The lognormal class: see
docs/model.md, "Request classes", the measured cost of the stretch rule's searches.
"""

from __future__ import annotations

import argparse
import copy
import statistics
import time
from pathlib import Path
from typing import Any

import yaml

import rackcost
from rackcost.scenario.loading import bundled_scenario_path, scenario_from_dict

ROOT = Path(__file__).resolve().parents[1]
REPEATS = 7
"""Evaluations of each scenario per round, after one warm-up [-]."""
TARGET = 2.0
"""Issue 23's goal: three classes at most this many times as long as one [-]."""
LOGNORMAL_TARGET = 1.9
"""The lognormal class's goal: 1.3 times its ratio before sizing and the capacity read the point stretch (1.46-1.49
in three runs of this script; the stretch rule's bisection first put it at 3.50-3.63) [-]."""

DEEPSEEK_MIX = [
    {
        "name": "chat",
        "share_fraction": 0.6,
        "input_tokens": {"lengths": "lognormal", "mean": 4000, "cv": 1.0},
        "output_tokens": {"lengths": "gamma", "mean": 600, "cv": 0.8},
    },
    {
        "name": "reasoning",
        "share_fraction": 0.25,
        "input_tokens": 6000,
        "output_tokens": {"lengths": "lognormal", "mean": 2500, "cv": 0.6},
        "slo": {"ttft_limit_ms": 3000},
    },
    {
        "name": "agentic",
        "share_fraction": 0.15,
        "input_tokens": {"lengths": "cdf", "table": [[8000, 0.1], [16000, 0.5], [32000, 0.9], [48000, 1.0]]},
        "output_tokens": 200,
        "prefix_hit_fraction": 0.9,
        "slo": {"attainment_fraction": 0.95},
    },
]
"""A chat / reasoning / agentic mix for the DeepSeek scenario (assumed figures: timing only, not a finding)."""

LOGNORMAL_CLASS = {
    "name": "long",
    "share_fraction": 1.0,
    "input_tokens": {"lengths": "lognormal", "mean": 1000, "cv": 3},
    "output_tokens": 500,
}
"""One class whose service SCV is below 1 (the case of tests/test_stretch_rule.py): the stretch rule's searches."""


def _pairs() -> list[tuple[str, dict[str, Any], dict[str, Any], float]]:
    """(name, the classes, one class of the same mean shape, the goal of their ratio) per scenario."""
    three = yaml.safe_load((ROOT / "tests" / "data" / "three_classes.yaml").read_text(encoding="utf-8"))
    deepseek = yaml.safe_load(bundled_scenario_path("deepseek-r1-b200-vs-gb200-inferencex").read_text("utf-8"))
    mixed = copy.deepcopy(deepseek)
    for name in ("input_tokens_per_request", "output_tokens_per_request"):
        mixed["workload"].pop(name)
        mixed["figures"].pop(f"workload.{name}", None)
    mixed["workload"]["classes"] = DEEPSEEK_MIX
    lognormal = copy.deepcopy(three)
    lognormal["workload"]["classes"] = [LOGNORMAL_CLASS]
    return [
        ("three_classes.yaml", three, _one_class(three), TARGET),
        ("deepseek-r1-b200-vs-gb200", mixed, _one_class(mixed), TARGET),
        ("one lognormal class, cv 3", lognormal, _one_class(lognormal), LOGNORMAL_TARGET),
    ]


def _one_class(data: dict[str, Any]) -> dict[str, Any]:
    """The scenario with its classes replaced by one class of their mean shape, as a plain workload."""
    scenario = scenario_from_dict(data)
    one = copy.deepcopy(data)
    one["workload"].pop("classes")
    one["workload"]["input_tokens_per_request"] = scenario.workload.input_tokens_per_request
    one["workload"]["output_tokens_per_request"] = scenario.workload.output_tokens_per_request
    return one


def _cpu_s(scenario: rackcost.Scenario) -> float:
    start = time.process_time()
    rackcost.evaluate(scenario)
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="rounds of REPEATS evaluations each (default 5)")
    args = parser.parse_args()
    print(f"{'scenario':<28} {'1 class [ms]':>13} {'classes [ms]':>15} {'ratio':>7}  (target)")
    for name, three, one, target in _pairs():
        scenarios = (scenario_from_dict(one), scenario_from_dict(three))
        for s in scenarios:  # warm-up: imports, caches
            rackcost.evaluate(s)
        ratios, times = [], ([], [])
        for _ in range(args.rounds):
            runs: tuple[list[float], list[float]] = ([], [])
            for _ in range(REPEATS):
                for i, s in enumerate(scenarios):  # in turns, so that a busy spell hits both
                    runs[i].append(_cpu_s(s))
            medians = [statistics.median(r) for r in runs]
            ratios.append(medians[1] / medians[0])
            for i in range(2):
                times[i].append(medians[i])
        ratio = statistics.median(ratios)
        spread = max(ratios) - min(ratios)
        one_ms, three_ms = (1000 * statistics.median(t) for t in times)
        verdict = "ok" if ratio <= target else "OVER"
        print(
            f"{name:<28} {one_ms:>13.1f} {three_ms:>15.1f} {ratio:>7.2f}  +-{spread / 2:.2f} (<= {target:g}) {verdict}"
        )


if __name__ == "__main__":
    main()
