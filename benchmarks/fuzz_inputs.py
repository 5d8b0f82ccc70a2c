"""The input fuzzer at scale: hostile names, CSV tables, traces and sweep files through their readers, with counts.

Run: ``.venv/bin/python benchmarks/fuzz_inputs.py [N]`` (default 1,000 examples of each; a sweep that runs takes
0.1-0.5 s, so the sweeps take a few minutes at the default).

The strategies and contracts are those of ``tests/test_fuzz_inputs.py`` (``tests/fuzzing_inputs.py``), which runs
a few dozen examples of each in CI. Prints how many examples of each kind were accepted and refused; a broken
contract (an executable CSV cell, a formula in an imported curve, a non-finite figure, a trace refused without
naming its file, a sweep that raises anything but ScenarioError or SweepError, any other exception) stops the run
with hypothesis's shrunk example.
"""

from __future__ import annotations

import collections
import sys
import tempfile
import time
import warnings
from pathlib import Path

from hypothesis import HealthCheck, given, settings

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from fuzzing_inputs import (  # noqa: E402
    check_csv_table,
    check_named_scenario,
    check_sweep,
    check_trace,
    csv_tables,
    named_scenarios,
    sweep_files,
    traces,
)


def main(n: int) -> None:
    warnings.simplefilter("error")  # as pytest runs the CI examples
    quick = settings(max_examples=n, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    folder = Path(tempfile.mkdtemp())
    counts: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)

    @quick
    @given(named_scenarios())
    def names(text: str) -> None:
        counts["hostile names"][check_named_scenario(text)] += 1

    @quick
    @given(csv_tables())
    def tables(table: tuple[str, bytes]) -> None:
        counts["CSV tables"][check_csv_table(*table)] += 1

    @quick
    @given(traces())
    def trace_files(text: str) -> None:
        counts["traces"][check_trace(text, folder)] += 1

    @quick
    @given(sweep_files())
    def sweeps(text: str) -> None:
        counts["sweep files"][check_sweep(text, folder)] += 1

    for run in (names, tables, trace_files, sweeps):
        start = time.perf_counter()
        run()
        kind = next(reversed(counts))
        print(f"{kind}: {dict(counts[kind])} in {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000)
