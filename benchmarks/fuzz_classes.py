"""The request-class and pool fuzzer at scale: random class mixes and random prefill/decode pools through load and
evaluate, with counts.

Run: ``.venv/bin/python benchmarks/fuzz_classes.py [N]`` (default 2,000 examples of each surface; an evaluation takes
20-300 ms, so the run takes several minutes).

The strategies and the contract are those of ``tests/test_fuzz_classes.py`` (``tests/fuzzing_classes.py``), which
runs a few dozen examples of each in CI: no exception but a ScenarioError; every figure finite or null; accepted <=
admitted <= offered; a fleet the model sized meets every class's attainment target at its sizing point. Prints how
many examples of each surface were evaluated and refused; a broken contract stops the run with hypothesis's shrunk
example.
"""

from __future__ import annotations

import collections
import sys
import time
import warnings
from pathlib import Path

from hypothesis import HealthCheck, given, settings

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from fuzzing_classes import check_scenario, class_mixes, pool_scenarios  # noqa: E402


def main(n: int) -> None:
    warnings.simplefilter("error")  # as pytest runs the CI examples
    quick = settings(max_examples=n, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    counts: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)

    @quick
    @given(class_mixes())
    def mixes(data: dict) -> None:
        counts["class mixes"][check_scenario(data)] += 1

    @quick
    @given(pool_scenarios())
    def pools(data: dict) -> None:
        counts["disaggregated pools"][check_scenario(data)] += 1

    for run in (mixes, pools):
        start = time.perf_counter()
        run()
        kind = next(reversed(counts))
        print(f"{kind}: {dict(counts[kind])} in {time.perf_counter() - start:.1f} s", flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2000)
