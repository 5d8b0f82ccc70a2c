"""Sub-hour peaks in a profile against a 10-minute replay: ServeGen's busiest hour through the fleets rackcost sizes.

Run: ``.venv/bin/python benchmarks/sub_hour_agreement.py [--replications 5] [--seed 0]`` (about 40 s a replication
and fleet on the 2-core machine; 4 fleets).

ServeGen's 162 client streams of one large language model (Alibaba ServeGen, Xiang et al. 2025, Apache-2.0;
the shared data folder's ``traces/servegen-m-large``), 14 days of 10-minute windows, are summed per window and made a
two-week profile (``rackcost profile servegen --peak-rps 240``): every window scaled so the busiest hour's mean is
240 requests/s, the peak of ``deepseek-r1-b200-vs-gb200-inferencex``, whose systems serve it. Two fleets per system:
sized by rackcost from the profile with its sub-hour windows (the named peak point carries the busiest hour's), and
sized from the hourly means alone (no windows). Each is replayed through the busiest hour's six windows
(:func:`rackcost.analysis.referee_windows.replay_windows`: Poisson arrivals at each window's rate, the hour's
preceding window as the warm-up, admission control at the stationary capacity at SLO) beside the model's accepted
share of that hour (the pointwise stationary average over the windows, for the same fleet). Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from rackcost.analysis.referee_windows import servegen_check

TRACES = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "traces" / "servegen-m-large"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replications", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--traces", type=Path, default=TRACES)
    args = parser.parse_args()
    start = time.perf_counter()
    print("| system | fleet sized for | replicas x slots | analytic accepted | replayed accepted | difference |")
    print("|---|---|---|---|---|---|")
    for row in servegen_check(args.traces, replications=args.replications, seed=args.seed):
        r = row.replay
        print(
            f"| {r.system} | {row.sized_for} | {r.replicas} x {r.slots_per_replica} | "
            f"{r.analytic_accepted_fraction:.4f} | {r.replayed_accepted_fraction:.4f} +- {r.halfwidth_fraction:.4f} | "
            f"{100 * (r.analytic_accepted_fraction - r.replayed_accepted_fraction):+.2f} points |",
            flush=True,
        )
    print(f"\n({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
