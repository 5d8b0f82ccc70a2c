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

import tempfile
from pathlib import Path

from hypothesis import strategies as st

from fuzz_counts import Surface, count_surfaces, examples_from_argv, use_test_helpers

use_test_helpers()

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
    folder = Path(tempfile.mkdtemp())
    count_surfaces(
        [
            Surface("hostile names", st.tuples(named_scenarios()), check_named_scenario, n),
            Surface("CSV tables", csv_tables(), check_csv_table, n),
            Surface("traces", st.tuples(traces(), st.just(folder)), check_trace, n),
            Surface("sweep files", st.tuples(sweep_files(), st.just(folder)), check_sweep, n),
        ]
    )


if __name__ == "__main__":
    main(examples_from_argv(1000))
