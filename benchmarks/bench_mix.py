"""Time of ``rackcost.hardware_mix`` on the bundled request-class scenario, end to end.

Run: ``PYTHONPATH=src .venv/bin/python benchmarks/bench_mix.py [--rounds N] [--scenario NAME] [--slices N]``. Each
round runs the whole search in-process: every system on every cell (subset of the classes, or with ``--slices`` count
of each class's slices) cut from the scenario, validated and evaluated (2 systems x 7 subsets = 14 evaluations on the
bundled scenario; 2 x 26 = 52 with ``--slices 2``), then the exact assignment. It prints wall and CPU
time per round; the least of the rounds is what the machine can do (interference only adds time). Goal: under 10 s.

Measured on the 2-core VM (2026-12-07, other work running beside it): see docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import time

import rackcost


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--scenario", default="deepseek-r1-b200-vs-gb200-request-classes")
    parser.add_argument("--slices", type=int, default=1)
    args = parser.parse_args()
    scenario = rackcost.load_scenario(args.scenario)
    walls, cpus = [], []
    for _ in range(args.rounds):
        wall, cpu = time.perf_counter(), time.process_time()
        found = rackcost.hardware_mix(scenario, args.slices)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
        print(f"wall {walls[-1]:.3f} s, CPU {cpus[-1]:.3f} s; {found.evaluations} evaluations")
    best = next(a for a in found.alone if a.system == found.best_single) if found.best_single else None
    print(
        f"least wall {min(walls):.3f} s, least CPU {min(cpus):.3f} s (goal: under 10 s); mix "
        f"${found.usd_per_accepted_request * 1000:.3f} per 1,000 accepted requests ({found.assignment}), best single "
        f"{found.best_single} ${(best.usd_per_accepted_request or 0) * 1000 if best else float('nan'):.3f}, saving "
        f"{found.saving_fraction or 0:.2%}"
    )


if __name__ == "__main__":
    main()
