"""The sweep-folder and demand-profile fuzzer at scale, with counts.

Run: ``.venv/bin/python benchmarks/fuzz_sweeps_profiles.py [N]`` (default 2,000 examples of each surface; a sweep
case takes 20-100 ms, a profile case 0.1-0.5 s, so the run takes about 15 minutes on a quiet machine).

The strategies and contracts are those of ``tests/test_fuzz_sweeps_profiles.py`` (``tests/fuzzing_sweeps_profiles.py``),
which runs a few dozen examples of each in CI. Prints how many examples of each kind were read/evaluated and refused;
a broken contract (a file opened outside a sweep's folder without allow_outside, a reference outside not refused, a
valid CSV inside refused, a secret quoted, a non-finite figure, JSON with NaN, any exception but ScenarioError) stops
the run with hypothesis's shrunk example.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import strategies as st

from fuzz_counts import Surface, count_surfaces, examples_from_argv, use_test_helpers

use_test_helpers()

from fuzzing_sweeps_profiles import (  # noqa: E402
    check_profile,
    check_sweep_folder,
    make_layout,
    profiles,
    sweep_folders,
)


def main(n: int) -> None:
    root = Path(tempfile.mkdtemp())
    make_layout(root / "layout")
    count_surfaces(
        [
            Surface("sweep folders", st.tuples(sweep_folders(), st.just(root / "layout")), check_sweep_folder, n),
            Surface("demand profiles", st.tuples(profiles(), st.just(root / "profile")), check_profile, n),
        ]
    )


if __name__ == "__main__":
    main(examples_from_argv(2000))
