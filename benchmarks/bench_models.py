"""Several models on one fleet: the two-model document's evaluation against one model's (docs/model.md, Several
models, one fleet).

CPU time (``time.process_time``), least of several runs, each from the YAML text: ``rackcost.evaluate_models`` on
the bundled two-model document (DeepSeek R1 and GPT-OSS 120B on GB200 NVL72) against ``rackcost.evaluate`` of each
model's scenario alone, loaded from the same YAML the document makes of it (``scenario_to_yaml``). The goal: the two
models within 2.5x one model's time.

    .venv/bin/python benchmarks/bench_models.py [--runs N]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path

import rackcost
from rackcost.scenario.loading import scenario_from_yaml, scenario_to_yaml
from rackcost.scenario.models_doc import models_from_yaml

DOCUMENT = Path(__file__).resolve().parents[1] / "scenarios" / "models" / "deepseek-r1-and-gpt-oss-120b-on-gb200.yaml"


def least_cpu_s(fn: Callable[[], object], runs: int) -> float:
    """Least CPU time of ``fn()`` over ``runs`` calls [s]."""
    best = float("inf")
    for _ in range(runs):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    text = DOCUMENT.read_text(encoding="utf-8")
    _, models = models_from_yaml(text, DOCUMENT.name)
    singles = {m.name: scenario_to_yaml(m.scenario) for m in models}

    def both() -> object:
        return rackcost.evaluate_models(models_from_yaml(text, DOCUMENT.name))

    both()  # warm: imports and the first validation's schema build
    for one in singles.values():
        rackcost.evaluate(scenario_from_yaml(one))
    two_s = least_cpu_s(both, args.runs)
    print(f"two models, evaluate_models: {two_s * 1e3:.1f} ms (least of {args.runs}, CPU)")
    for name, one in singles.items():
        one_s = least_cpu_s(lambda one=one: rackcost.evaluate(scenario_from_yaml(one)), args.runs)
        print(f"{name} alone, evaluate: {one_s * 1e3:.1f} ms; two models / this one: {two_s / one_s:.2f}x (goal 2.5x)")


if __name__ == "__main__":
    main()
