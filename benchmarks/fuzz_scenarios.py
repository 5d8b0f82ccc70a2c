"""The scenario fuzzer at scale: many mutated bundled scenarios through load and evaluate, with counts.

Run: ``.venv/bin/python benchmarks/fuzz_scenarios.py [N]`` (default 2,000 examples).

The strategies and the contract are those of ``tests/test_hostile_input.py`` (``tests/fuzzing.py``), which runs 150
examples in CI. Prints how many mutated scenarios evaluated, how many were refused, the most common first problems
and the slowest example; a broken contract (a non-finite result, accepted above offered, a problem that names no file
or path, any other exception) stops the run with hypothesis's shrunk example.
"""

from __future__ import annotations

import collections
import re
import sys
import time
import warnings
from pathlib import Path

from hypothesis import HealthCheck, given, settings

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import rackcost  # noqa: E402
from fuzzing import Case, check_outcome, mutated_scenarios  # noqa: E402


def _kind(message: str) -> str:
    """A problem message with its numbers and quoted values blanked, to count kinds of problem."""
    return re.sub(r"'[^']*'|\"[^\"]*\"|(?<![A-Za-z_])[-+]?\d[\d.e+-]*", "_", message)[:70]


def anchor_bombs() -> None:
    """Time to refuse an anchor bomb (each anchor a list repeating the previous one 9 times), by depth."""
    try:  # import the schema and the loader first: the refusal, not the import, is timed
        rackcost.scenario_from_yaml("name: x\n", "warm.yaml")
    except rackcost.ScenarioError:
        pass
    for levels in (7, 9, 12):
        rows = ["a0: &a0 [l,l,l,l,l,l,l,l,l]"]
        rows += [f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, levels)]
        text = "\n".join(rows)
        times = []
        for _ in range(20):
            start = time.perf_counter()
            try:
                rackcost.scenario_from_yaml(text, "bomb.yaml")
            except rackcost.ScenarioError:
                pass
            times.append(time.perf_counter() - start)
        times.sort()
        print(
            f"anchor bomb of {levels} levels ({len(text)} bytes): refused in {times[10] * 1000:.2f} ms (median of 20)"
        )


def main(n: int) -> None:
    warnings.simplefilter("error")  # as pytest runs the CI examples: a RuntimeWarning (overflow) breaks the contract
    counts: collections.Counter[str] = collections.Counter()
    kinds: collections.Counter[str] = collections.Counter()
    slowest = (0.0, "")

    @settings(max_examples=n, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(mutated_scenarios())
    def run(case: Case) -> None:
        nonlocal slowest
        name, text = case.name, case.text
        start = time.perf_counter()
        outcome = check_outcome(text)
        elapsed = time.perf_counter() - start
        slowest = max(slowest, (elapsed, name))
        counts[outcome] += 1
        if outcome == "refused":
            try:
                rackcost.scenario_from_yaml(text, "fuzz.yaml")
            except rackcost.ScenarioError as exc:
                kinds[_kind(exc.problems[0].message)] += 1

    start = time.perf_counter()
    run()
    total = time.perf_counter() - start
    print(
        f"{sum(counts.values()):,} examples in {total:.1f} s: {counts['ok']:,} evaluated, "
        f"{counts['refused']:,} refused with a clear error, 0 broke the contract"
    )
    print(f"slowest example: {slowest[0] * 1000:.0f} ms ({slowest[1]})")
    print("most common first problems:")
    for kind, count in kinds.most_common(12):
        print(f"  {count:6,}  {kind}")


if __name__ == "__main__":
    if len(sys.argv) > 1 and not sys.argv[1].isdigit():
        sys.exit(f"usage: {sys.argv[0]} [EXAMPLES]   (default 2000)")
    anchor_bombs()
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2000)
