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

import tempfile
from pathlib import Path

from hypothesis import strategies as st

from fuzz_counts import Surface, count_surfaces, examples_from_argv, use_test_helpers

use_test_helpers()

from fuzzing_traces import (  # noqa: E402
    DEMAND_SCALES,
    HOWS,
    ROUTERS,
    check_simulated_trace,
    check_trace_command,
    hostile_traces,
)


def _command(text: str, folder: Path, how: str) -> str:
    """The trace command's outcome, labelled with the output it was asked for."""
    return f"{check_trace_command(text, folder, how)} ({how})"


def main(n: int) -> None:
    folder = Path(tempfile.mkdtemp())
    hows = st.sampled_from(HOWS)
    simulated = st.tuples(
        hostile_traces(),
        st.just(folder),
        st.sampled_from(ROUTERS),
        st.integers(2, 5),
        st.sampled_from(DEMAND_SCALES),
    )
    count_surfaces(
        [
            Surface("rackcost trace", st.tuples(hostile_traces(), st.just(folder), hows), _command, n),
            Surface("simulate --trace", simulated, check_simulated_trace, n),
        ]
    )


if __name__ == "__main__":
    main(examples_from_argv(2000))
