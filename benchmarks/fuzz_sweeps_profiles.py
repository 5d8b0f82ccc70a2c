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

import collections
import sys
import tempfile
import time
import warnings
from pathlib import Path

from hypothesis import HealthCheck, given, settings

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from fuzzing_sweeps_profiles import (  # noqa: E402
    check_profile,
    check_sweep_folder,
    make_layout,
    profiles,
    sweep_folders,
)


def main(n: int) -> None:
    warnings.simplefilter("error")  # as pytest runs the CI examples
    many = settings(max_examples=n, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    root = Path(tempfile.mkdtemp())
    make_layout(root / "layout")
    counts: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)

    @many
    @given(sweep_folders())
    def folders(case: dict) -> None:
        counts["sweep folders"][check_sweep_folder(case, root / "layout")] += 1

    @many
    @given(profiles())
    def demand(case: dict) -> None:
        counts["demand profiles"][check_profile(case, root / "profile")] += 1

    for run in (folders, demand):
        start = time.perf_counter()
        run()
        kind = next(reversed(counts))
        print(f"{kind}: {dict(counts[kind])} in {time.perf_counter() - start:.1f} s", flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2000)
