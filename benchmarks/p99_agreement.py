"""Does the model's p99 TTFT agree with ``rackcost simulate``? (issue 21, item 3: latency percentiles that include
load variation.)

Run: ``.venv/bin/python benchmarks/p99_agreement.py [--requests N] [--replications R] [--arrival-scv X
[--sized-for-scv]] [--routing R] [--only SUBSTRING]``.

``--routing R`` sizes and solves every fleet under that analytic router (``fleet.routing``), e.g. ``random``.
``--arrival-scv X`` simulates arrivals of that SCV (a balanced-means hyperexponential above 1): by default on the
fleet sized for Poisson arrivals (``rackcost simulate --arrival-scv X``, whose analytic side serves the same fleet
at SCV X), with ``--sized-for-scv`` on the fleet sized for it (every demand point's ``arrival_scv`` set to X).

For each bundled scenario and each system (a system whose fleet at peak repeats one already shown is skipped), at
the peak demand point, and for the synthetic two-system scenario (``tests/data/two_systems.yaml``) with its fleet
forced to 1, 2 and 4 replicas (``fleet.replicas``), three p99 TTFTs:

- ``before``: the TTFT at the mean occupancy plus the p99 queueing wait (the model before item 3);
- ``after``: the 99th percentile of TTFT at the occupancy a request starts at plus its wait
  (:mod:`rackcost.model.queues.occupancy`), what ``ttft_p99_ms`` now reports;
- ``simulated``: ``rackcost.simulate`` at the scenario's router (default ``least_outstanding``) and load-dependent
  service, with its 95% half-width over the replications.

"in CI" says whether each analytic figure lies within the simulated 95% interval. The p99 of a queue near
saturation converges slowly: at the default 200,000 requests the interval is often several hundred ms wide, hence
the larger default here.
"""

from __future__ import annotations

import argparse
import copy
import tempfile
import time
from pathlib import Path

import yaml

import rackcost
from rackcost.evaluation.chain import evaluate_systems

TWO_SYSTEMS = Path(__file__).resolve().parent.parent / "tests" / "data" / "two_systems.yaml"


def _with_scv(path: Path, scv: float | None, folder: Path, routing: str | None = None) -> rackcost.Scenario:
    """The scenario at ``path``, every demand point's ``arrival_scv`` set to ``scv`` and ``fleet.routing`` to
    ``routing`` when given (so the fleet is sized, and the analytic side solved, under that router)."""
    if scv is None and routing is None:
        return rackcost.load_scenario(path)
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    if routing is not None:
        data["fleet"] = dict(data.get("fleet") or {}, routing=routing)
    for point in data["demand"] if scv is not None else ():
        point["arrival_scv"] = scv
    out = folder / path.name
    out.write_text(yaml.safe_dump(data), encoding="utf-8")
    return rackcost.load_scenario(out)


def cases(sized_scv: float | None = None, routing: str | None = None) -> list[tuple[str, rackcost.Scenario, str]]:
    """(label, scenario, demand point) of every case: each bundled scenario at peak, then the small fleets (every
    demand point at ``sized_scv`` when given)."""
    out = []
    folder = Path(tempfile.mkdtemp())
    for path in rackcost.bundled_scenarios():
        scenario = _with_scv(Path(path), sized_scv, folder, routing)
        names = [d.name for d in scenario.demand]
        out.append((path.stem, scenario, "peak" if "peak" in names else scenario.sizing_point.name))
    base = yaml.safe_load(TWO_SYSTEMS.read_text(encoding="utf-8"))
    for replicas in (1, 2, 4):
        data = copy.deepcopy(base)
        data["fleet"] = dict(data.get("fleet") or {}, replicas=replicas)
        if sized_scv is not None:
            for point in data["demand"]:
                point["arrival_scv"] = sized_scv
        if routing is not None:
            data["fleet"]["routing"] = routing
        path = folder / f"two_systems_{replicas}.yaml"
        path.write_text(yaml.safe_dump(data), encoding="utf-8")
        out.append((f"two_systems, {replicas} replica(s)", rackcost.load_scenario(path), "peak"))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=2_000_000)
    parser.add_argument("--replications", type=int, default=10)
    parser.add_argument("--arrival-scv", type=float, default=None, help="simulate arrivals of this SCV")
    parser.add_argument("--sized-for-scv", action="store_true", help="size the fleets for --arrival-scv")
    parser.add_argument(
        "--routing", default=None, help="size and solve every fleet under this analytic router (default the scenario's)"
    )
    parser.add_argument("--only", default="", help="only systems whose name contains this")
    args = parser.parse_args()
    sized = args.arrival_scv if args.sized_for_scv else None
    served = None if sized is not None else args.arrival_scv
    print(
        f"p99 TTFT at peak [ms]: rackcost.simulate, {args.requests:,} requests in {args.replications} replications, "
        f"arrival SCV {args.arrival_scv or 1:g} ({'fleets sized for it' if sized else 'Poisson-sized fleets'}), "
        f"routing {args.routing or 'the scenario s'}"
    )
    print(
        f"{'scenario':<34} {'system':<26} {'N':>4} {'c':>5} {'util':>5} {'before':>8} {'after':>8} "
        f"{'simulated':>9} {'± 95%':>7} {'err before':>10} {'err after':>9} {'in CI b/a':>9} {'s':>5}"
    )
    seen = set()
    tally = {"before": [], "after": []}
    for label, scenario, point in cases(sized, args.routing):
        names = [d.name for d in scenario.demand]
        j = names.index(point)
        for o in evaluate_systems(scenario, () if served is None else (served,)):
            if args.only not in o.inputs.name:
                continue
            d = o.demand
            shape = (int(d.active_replicas[j]), o.chosen.concurrency, float(d.admitted_rps[j]), float(d.service_s[j]))
            if shape in seen:
                continue
            seen.add(shape)
            ttft = float(d.ttft_ms[j]) if d.ttft_ms is not None else float(o.chosen.ttft_ms)
            before = ttft + float(d.wait_p99_ms[j])
            t = time.perf_counter()
            (row,) = rackcost.simulate(
                scenario,
                system=o.inputs.name,
                demand_point=point,
                requests=args.requests,
                replications=args.replications,
                arrival_scv=served,
            )
            elapsed = time.perf_counter() - t
            if served is not None:  # the same fleet's analytic p99 before item 3 at that SCV
                dd = o.fleet.served_at_scv[served].first_sample()
                base = float(dd.ttft_ms[j]) if dd.ttft_ms is not None else float(o.chosen.ttft_ms)
                before = base + float(dd.wait_p99_ms[j])
            after, sim = row["analytic_ttft_p99_ms"], row["simulated_ttft_p99_ms"]
            half = row["simulated_ttft_p99_ms_ci95_halfwidth"] or 0.0
            err_b, err_a = before / sim - 1.0, after / sim - 1.0
            tally["before"].append(abs(err_b))
            tally["after"].append(abs(err_a))
            inside = "/".join("y" if abs(x - sim) <= half else "n" for x in (before, after))
            print(
                f"{label[:34]:<34} {o.inputs.name[:26]:<26} {row['replicas_serving']:4d} {row['slots_per_replica']:5d} "
                f"{row['analytic_utilization_fraction']:5.3f} {before:8.1f} {after:8.1f} {sim:9.1f} {half:7.1f} "
                f"{err_b:+10.3f} {err_a:+9.3f} {inside:>9} {elapsed:5.0f}",
                flush=True,
            )
    for key, errors in tally.items():
        errors.sort()
        print(
            f"|analytic / simulated - 1| {key}: median {errors[len(errors) // 2]:.3f}, max {errors[-1]:.3f} "
            f"over {len(errors)} fleets"
        )


if __name__ == "__main__":
    main()
