"""The fuzzer of the analyses beyond evaluate at scale: scenarios at the edges of their ranges through the Monte
Carlo, "how sure", the tornado, break-even, the site budget and the simulator, with counts.

Run: ``.venv/bin/python benchmarks/fuzz_faces.py [N]`` (default 300 examples; six analyses an example, 1-5 s, so the
default takes 10 to 20 minutes on the 2-core machine).

The strategy and contract are those of ``tests/test_fuzz_faces.py`` (``tests/fuzzing_faces.py``), which runs a dozen
examples in CI. Prints how often each analysis evaluated, refused and was too large to simulate; a broken contract
stops the run with hypothesis's shrunk example.
"""

from __future__ import annotations

import collections

from hypothesis import strategies as st

from fuzz_counts import Surface, count_surfaces, examples_from_argv, use_test_helpers

use_test_helpers()

from fuzzing import nudged_scenarios  # noqa: E402
from fuzzing_faces import SITE_KW, check_faces  # noqa: E402
from rackcost.model.queues.routers import router_names  # noqa: E402

EACH: collections.Counter[str] = collections.Counter()
"""Each analysis's outcomes over the run."""


def _counted(text: str, site_kw: float, routing: str) -> str:
    outcome = check_faces(text, site_kw, routing)
    EACH.update(outcome.split(", "))
    return "refused" if outcome == "refused" else "analysed"


def main(n: int) -> None:
    cases = st.tuples(
        nudged_scenarios().map(lambda case: case.text), st.sampled_from(SITE_KW), st.sampled_from(router_names())
    )
    count_surfaces([Surface("scenarios at their edges, every analysis", cases, _counted, n)])
    for outcome, count in sorted(EACH.items()):
        print(f"   {outcome}: {count:,}")


if __name__ == "__main__":
    main(examples_from_argv(300))
