"""Speed of ``rackcost report`` as the scenario grows, printed as medians and ratios (never asserted as a timed test).

Run: ``.venv/bin/python benchmarks/bench_report.py`` (``--repeats N``, ``--only systems`` or ``--only points``,
``--sizes 2,30``). Against another checkout: ``PYTHONPATH=/path/to/checkout/src .venv/bin/python
benchmarks/bench_report.py``. ``--stages [SCENARIO]`` instead times each stage of one report (evaluating, uncertainty
samples, charts, writing: the stages ``rackcost report`` shows on a terminal) of a bundled scenario (default: the
default scenario), after the warm-up, as medians over the repeats.

The scenarios are made from the default scenario (two systems, three demand points, five uncertain inputs):

1. **Systems**: 2, 30, 60 and 300 systems, the extra ones copies of its second system (Jalapeño, whose capex is a
   distribution, so that every copy adds an uncertain input) under other names.
2. **Demand points**: 3, 1,000 and 10,000 demand points, arrival rates spread from 5% to 100% of the peak, the
   hours shared equally over the day.

Each is reported as HTML by the library (``rackcost.report(scenario, date=...)``, the samples at the report's
default), in this process, after one warm-up report of the default scenario (imports, vl-convert's start). It
prints the median wall time, its ratio to the smallest size of the series and the time per system or demand point,
so that a super-linear part shows as a growing time per item. A run that fails prints its error instead (a chart
over Altair's row limit, say).

Measured on this project's 2-core machine (shared, so ranges; docs/report.md, *Large scenarios*): before issue 19,
item 5, 2 / 30 / 60 systems took 1.2 / 47 / 271 s and 1,000 demand points raised MaxRowsError; after, 1.0-1.8 /
5.9-8.5 / 7.5-11.5 / 23-32 s for 2 / 30 / 60 / 300 systems and 7-10 / 23-31 s for 1,000 / 10,000 points.
"""

from __future__ import annotations

import argparse
import copy
import statistics
import sys
import time
from typing import Any

import yaml

import rackcost

SYSTEMS = (2, 30, 60, 300)
POINTS = (3, 1_000, 10_000)
DATE = "2026-01-01"


def default_data() -> dict[str, Any]:
    return yaml.safe_load(rackcost.bundled_scenario_path().read_text(encoding="utf-8"))


def many_systems(n: int, template: int = 1) -> rackcost.Scenario:
    """The default scenario with ``n`` systems: copies of system ``template`` named ``<name> #k``, with its
    figures' sources."""
    data = default_data()
    systems, figures = data["systems"], data.get("figures") or {}
    prefix = f"systems[{template}]"
    own = {k[len(prefix) :]: v for k, v in figures.items() if k.startswith(prefix)}
    for k in range(len(systems), n):
        copied = copy.deepcopy(systems[template])
        copied["name"] = f"{systems[template]['name']} #{k}"
        systems.append(copied)
        figures.update({f"systems[{k}]{rest}": v for rest, v in own.items()})
    return rackcost.scenario_from_dict(data, f"{n}-systems")


def many_points(n: int) -> rackcost.Scenario:
    """The default scenario with ``n`` demand points from 5% to 100% of its peak rate, equal hours."""
    data = default_data()
    peak = max(d["arrival_rps"] for d in data["demand"])
    data["demand"] = [
        {"name": f"point {i + 1}", "arrival_rps": peak * (0.05 + 0.95 * i / max(n - 1, 1)), "hours_per_day": 24 / n}
        for i in range(n)
    ]
    data["figures"] = {k: v for k, v in (data.get("figures") or {}).items() if not k.startswith("demand")}
    data.get("fleet", {}).pop("sizing_demand_point", None)
    return rackcost.scenario_from_dict(data, f"{n}-points")


def time_report(scenario: rackcost.Scenario, repeats: int) -> tuple[float | None, str]:
    """Median wall time of the HTML report [s] and its size, or None and the error."""
    times, size = [], 0
    for _ in range(repeats):
        start = time.perf_counter()
        try:
            html = rackcost.report(scenario, date=DATE)
        except Exception as exc:  # noqa: BLE001 - the benchmark says what failed and goes on
            return None, f"{type(exc).__name__}: {str(exc).splitlines()[0][:100]}"
        times.append(time.perf_counter() - start)
        size = len(html.encode("utf-8"))
    return statistics.median(times), f"{size / 1e6:.1f} MB"


def series(label: str, sizes: tuple[int, ...], make: Any, repeats: int) -> None:
    print(f"\n{label:>14} | median [s] | x smallest | ms per item | HTML")
    first = None
    for n in sizes:
        scenario = make(n)
        reps = repeats if n <= 100 else 1  # the largest once: it is the one the goal is about
        seconds, note = time_report(scenario, reps)
        if seconds is None:
            print(f"{n:>14,} | {'-':>10} | {'-':>10} | {'-':>11} | {note}", flush=True)
            continue
        first = first or seconds
        print(f"{n:>14,} | {seconds:10.2f} | {seconds / first:10.1f} | {1000 * seconds / n:11.1f} | {note}", flush=True)


def stages(name: str | None, repeats: int) -> None:
    """Median seconds of each stage of ``rackcost.report`` of a bundled scenario, written to a temporary file."""
    import tempfile
    from pathlib import Path

    path = rackcost.bundled_scenario_path(name) if name else rackcost.bundled_scenario_path()
    spent: dict[str, list[float]] = {}
    marks: list[tuple[str, float]] = []  # (stage, when) of every call of the progress

    def note(stage: str, done: int, total: int) -> None:
        marks.append((stage, time.perf_counter()))

    with tempfile.TemporaryDirectory() as folder:
        for _ in range(repeats):
            marks.clear()
            start = time.perf_counter()
            rackcost.report(path, date=DATE, output=Path(folder) / "r.html", force=True, progress=note)
            spent.setdefault("total", []).append(time.perf_counter() - start)
            for stage in dict.fromkeys(stage for stage, _ in marks):
                when = [t for s, t in marks if s == stage]
                spent.setdefault(stage, []).append(when[-1] - when[0])
    print(f"\n{path.name}: median of {repeats} [s]")
    for stage, seconds in spent.items():
        print(f"{stage:>20} | {statistics.median(seconds):6.2f}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3, help="runs per size up to 100 items (larger: one)")
    parser.add_argument("--only", choices=("systems", "points"), help="one series only")
    parser.add_argument("--sizes", help="comma-separated sizes instead of the defaults")
    parser.add_argument(
        "--stages", nargs="?", const="", metavar="SCENARIO", help="time each stage of one bundled scenario's report"
    )
    args = parser.parse_args(argv)
    sizes = tuple(int(s) for s in args.sizes.split(",")) if args.sizes else None
    print(f"rackcost {rackcost.__version__} from {rackcost.__file__}")
    rackcost.report(rackcost.bundled_scenario_path(), date=DATE)  # warm-up: imports, vl-convert
    if args.stages is not None:
        stages(args.stages or None, args.repeats)
        return
    if args.only in (None, "systems"):
        series("systems", sizes or SYSTEMS, many_systems, args.repeats)
    if args.only in (None, "points"):
        series("demand points", sizes or POINTS, many_points, args.repeats)


if __name__ == "__main__":
    sys.exit(main())
