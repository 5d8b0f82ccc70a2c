"""Analytic against simulated per request class (issue 23, items 2 and 6): the agreement fixture
(``tests/data/class_agreement.yaml``: one fleet of 2 replicas, three classes of fixed inputs) with every class's
output lengths drawn from one family at a time, light (gamma, cv 0.5), heavy-tailed (lognormal, cv 1 and cv 2) and
bimodal (a CDF table of two modes), each class keeping its mean, at the fixture's demand points (about 52%, 77% and
88% utilisation); then the three-class test scenario (``tests/data/three_classes.yaml``), whose chat and agentic
classes' *inputs* spread (lognormal cv 1, a CDF of 2,000 to 16,000 tokens), on both its systems at every point.

For each family, point and class it prints the analytic and simulated accepted share, p99 TTFT (with the
simulation's 95% half-width) and the relative error ``(analytic - simulated) / simulated`` of the p99 TTFT, the
figure the issue's "Done when" bounds by 10%.

Usage::

    PYTHONPATH=src python benchmarks/class_agreement.py [--requests 2000000] [--replications 10] [--seed 1]
        [--families light,heavy-tailed,very-heavy-tailed,bimodal,spread-inputs]
"""

from __future__ import annotations

import argparse
import copy
import time
from pathlib import Path
from typing import Any

import rackcost
from rackcost.scenario.loading import scenario_from_dict, scenario_to_data

FIXTURE = Path(__file__).resolve().parents[1] / "tests" / "data" / "class_agreement.yaml"
THREE_CLASSES = FIXTURE.parent / "three_classes.yaml"
FAMILIES = ("light", "heavy-tailed", "very-heavy-tailed", "bimodal", "spread-inputs")
BIMODAL = ((0.04, 0.0), (0.12, 0.6), (2.4, 0.6), (3.2, 1.0))
"""A bimodal CDF in units of a scale: 60% of requests short (uniform on 0.04 to 0.12), 40% long (2.4 to 3.2)."""


def _bimodal_mean() -> float:
    """Mean of :data:`BIMODAL` in its units (the CDF's first row a point mass, later rows uniform)."""
    mean, (t0, f0) = BIMODAL[0][0] * BIMODAL[0][1], BIMODAL[0]
    for t, f in BIMODAL[1:]:
        mean += (f - f0) * (t0 + t) / 2.0
        t0, f0 = t, f
    return mean


def family(mean: float, name: str) -> dict[str, Any]:
    """An output length of ``mean`` tokens drawn from the family ``name``."""
    if name == "light":
        return {"lengths": "gamma", "mean": mean, "cv": 0.5}
    if name == "heavy-tailed":
        return {"lengths": "lognormal", "mean": mean, "cv": 1.0}
    if name == "very-heavy-tailed":
        return {"lengths": "lognormal", "mean": mean, "cv": 2.0}
    scale = mean / _bimodal_mean()
    return {"lengths": "cdf", "table": [[round(t * scale, 3), f] for t, f in BIMODAL]}


def variant(data: dict[str, Any], name: str) -> Any:
    """The fixture with every class's output lengths of family ``name``, their means kept."""
    out = copy.deepcopy(data)
    base = rackcost.load_scenario(FIXTURE)
    assert base.workload.classes is not None
    for c, given in zip(out["workload"]["classes"], base.workload.classes, strict=True):
        mean = given.output_tokens.moments()[0] if hasattr(given.output_tokens, "moments") else given.output_tokens
        c["output_tokens"] = family(float(mean), name)
    out["workload"].pop("input_tokens_per_request", None)
    out["workload"].pop("output_tokens_per_request", None)
    return scenario_from_dict(out, f"{FIXTURE.name} ({name})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=2_000_000, help="simulated requests per point")
    parser.add_argument("--replications", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--families", default=",".join(FAMILIES), help="comma-separated, of " + ", ".join(FAMILIES))
    args = parser.parse_args()
    data = scenario_to_data(rackcost.load_scenario(FIXTURE))
    print(f"{args.requests:,} requests per point in {args.replications} replications, seed {args.seed}")
    print(
        f"{'family':17} {'point':8} {'util':>5} {'class':9} {'accepted a/s':>15} "
        f"{'p99 TTFT analytic':>17} {'simulated':>15} {'a/s - 1':>8}"
    )
    for name in args.families.split(","):
        scenario = rackcost.load_scenario(THREE_CLASSES) if name == "spread-inputs" else variant(data, name)
        points = rackcost.evaluate(scenario).records["points"]
        utilisation = {(p["system"], p["demand_point"]): p["utilization_fraction"] for p in points}
        t = time.process_time()
        rows = rackcost.simulate(scenario, requests=args.requests, replications=args.replications, seed=args.seed)
        for r in rows:
            a, s, h = r["analytic_ttft_p99_ms"], r["simulated_ttft_p99_ms"], r["simulated_ttft_p99_ms_ci95_halfwidth"]
            label = name if name != "spread-inputs" else f"inputs, {r['system']}"
            print(
                f"{label:17} {r['demand_point']:8} {utilisation[(r['system'], r['demand_point'])]:5.1%} "
                f"{r['class'] or 'mix':9} {r['analytic_accepted_fraction']:.4f}/{r['simulated_accepted_fraction']:.4f} "
                f"{a:17,.0f} {s:8,.0f} ± {h or 0:5,.0f} {a / s - 1:+8.1%}"
            )
        print(f"  ({time.process_time() - t:.1f} s CPU)")


if __name__ == "__main__":
    main()
