"""The trace fuzzer at scale: traces at every scale through ``rackcost trace`` and the simulator, with counts.

Run: ``.venv/bin/python benchmarks/fuzz_traces.py [N]`` (default 2,000 examples of each surface; the ``trace``
command takes 10-50 ms an example, a simulation of a few dozen requests 0.1-0.5 s, so the default takes about 15
minutes on the 2-core machine).

The strategies and contracts are those of ``tests/test_fuzz_traces.py`` (``tests/fuzzing_traces.py``), which runs a
few dozen examples of each in CI. Prints how many examples of each surface were measured, simulated and refused (by
the reader, naming the file, or by the work estimate); a broken contract (a traceback, a non-finite figure, JSON
with NaN, a refusal that names no file or more than one line, a simulation whose traced memory passes its estimate)
stops the run with hypothesis's shrunk example.
"""

from __future__ import annotations

import collections
import sys
import tempfile
import time
import warnings
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from fuzzing_traces import (  # noqa: E402
    DEMAND_SCALES,
    ROUTERS,
    check_simulated_trace,
    check_trace_command,
    hostile_traces,
)


def main(n: int) -> None:
    warnings.simplefilter("error")  # as pytest runs the CI examples
    quick = settings(max_examples=n, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    folder = Path(tempfile.mkdtemp())
    counts: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)

    @quick
    @given(hostile_traces(), st.sampled_from(["table", "json", "csv", "into"]))
    def command(text: str, how: str) -> None:
        counts["rackcost trace"][f"{check_trace_command(text, folder, how)} ({how})"] += 1

    @quick
    @given(hostile_traces(), st.sampled_from(ROUTERS), st.integers(2, 5), st.sampled_from(DEMAND_SCALES))
    def simulated(text: str, routing: str, replications: int, scale: float) -> None:
        counts["simulate --trace"][check_simulated_trace(text, folder, routing, replications, scale)] += 1

    for name, run in (("rackcost trace", command), ("simulate --trace", simulated)):
        start = time.perf_counter()
        run()
        total = sum(counts[name].values())
        print(f"{name}: {total:,} examples {dict(sorted(counts[name].items()))} in {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2000)
