"""Speed of the core, printed as medians and ratios (never asserted as a timed test).

Run: ``.venv/bin/python benchmarks/bench_core.py``

1. ``rackcost.evaluate`` in-process on every bundled scenario: median over repeats (target: under 10 ms).
2. ``rackcost evaluate`` from a cold start (a new process running the console script): median over runs
   (target: under 1 s).
3. Fleet sizing at k = 100 vs k = 10**6 slots: the median time of a vectorised ``replicas_needed`` call of the
   same size, and their ratio (target: about 1, the same time for both).
4. The fitted power law's cost (issue 20): ``rackcost.evaluate`` of every bundled scenario with its default law
   (``u ** alpha``) against the same scenario with ``fleet.power_utilization_exponent: 1`` (the linear law, the
   default before; ``u ** 1`` skips the power), interleaved, and their ratio (target: at most 1.10).
5. The burstiness check's cost (issue 21): ``rackcost.evaluate`` of every bundled scenario as it is (each fleet
   served again at arrival SCV 2 and 4) against the same steps without that check (``run_samples`` with no
   ``fragility_scvs``), interleaved, and their ratio. Issue 21's target is for the whole of evaluate against the
   code before it (at most 1.5): ``bench_evaluate.py`` measures that, the old code taken from git history.
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
from pathlib import Path

import numpy as np
import yaml

import rackcost
from rackcost.model.queues import queueing
from timing import median_s


def main() -> None:
    print("1. evaluate in-process (median of 50)")
    for path in rackcost.bundled_scenarios():
        scenario = rackcost.load_scenario(path)
        rackcost.evaluate(scenario)  # warm-up
        print(f"   {path.name:<48} {median_s(lambda s=scenario: rackcost.evaluate(s), 50) * 1e3:7.2f} ms")

    exe = shutil.which("rackcost", path=str(Path(sys.executable).parent)) or "rackcost"
    # the libraries the command needs, and nothing of ours ('import pydantic' alone is lazy: import BaseModel)
    libraries = "import numpy, scipy.special, yaml, typer, rich.table; from pydantic import BaseModel"
    floor_cmd = [sys.executable, "-c", libraries]
    runs, floor = [], []
    for _ in range(15):  # interleaved, so both see the same machine (this one's speed varies by +-20%)
        runs.append(median_s(lambda: subprocess.run([exe, "evaluate"], check=True, capture_output=True), 1))
        floor.append(median_s(lambda: subprocess.run(floor_cmd, check=True, capture_output=True), 1))
    print(
        f"2. `rackcost evaluate` cold start, median of 15 runs: {statistics.median(runs):.3f} s "
        f"(min {min(runs):.3f}, max {max(runs):.3f}); importing the required libraries alone: "
        f"{statistics.median(floor):.3f} s"
    )

    # the same number of sizing problems at two scales: offered load a ~ 0.9 k, slots per replica c = 8
    n = 64
    rng = np.random.default_rng(0)
    timings = {}
    for slots in (100, 10**6):
        service_s = rng.uniform(5.0, 20.0, n)
        arrival = 0.9 * slots / service_s
        budget = rng.uniform(0.1, 2.0, n)

        def call(arrival=arrival, service_s=service_s, budget=budget):
            return queueing.replicas_needed(arrival, service_s, 8.0, budget, 0.01)

        call()
        timings[slots] = median_s(call, 30)
    ratio = timings[10**6] / timings[100]
    print(
        f"3. fleet sizing, {n} problems per call (median of 30): k=100 {timings[100] * 1e3:.2f} ms, "
        f"k=10^6 {timings[10**6] * 1e3:.2f} ms, ratio {ratio:.2f}"
    )

    print("4. evaluate with the fitted power law / with the linear law (medians of 9 x 20, interleaved)")
    for path in rackcost.bundled_scenarios():
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        fitted = rackcost.scenario_from_dict(data)
        data["fleet"]["power_utilization_exponent"] = 1.0
        linear = rackcost.scenario_from_dict(data)
        law, floor_s = [], []
        for _ in range(9):
            law.append(median_s(lambda s=fitted: rackcost.evaluate(s), 20))
            floor_s.append(median_s(lambda s=linear: rackcost.evaluate(s), 20))
        ratio = statistics.median(law) / statistics.median(floor_s)
        print(
            f"   {path.name:<48} fitted {statistics.median(law) * 1e3:6.2f} ms, "
            f"linear {statistics.median(floor_s) * 1e3:6.2f} ms, ratio {ratio:.3f}"
        )


def fragility_cost() -> None:
    from rackcost.evaluation import chain
    from rackcost.model.queues.burstiness import FRAGILITY_SCVS

    print("5. steps 1-8 with the SCV 2 / 4 check / without it (plan + run_samples, medians of 9 x 20, interleaved)")
    for path in rackcost.bundled_scenarios():
        scenario = rackcost.load_scenario(path)

        def steps(s=scenario, scvs=FRAGILITY_SCVS):
            return chain.run_samples(s, chain.choose_points(s), {}, 1, resize=False, fragility_scvs=scvs)

        steps()
        checked, floor_s = [], []
        for _ in range(9):
            checked.append(median_s(steps, 20))
            floor_s.append(median_s(lambda: steps(scvs=()), 20))
        ratio = statistics.median(checked) / statistics.median(floor_s)
        print(
            f"   {path.name:<48} checked {statistics.median(checked) * 1e3:6.2f} ms, "
            f"without {statistics.median(floor_s) * 1e3:6.2f} ms, ratio {ratio:.3f}"
        )


if __name__ == "__main__":
    main()
    fragility_cost()
