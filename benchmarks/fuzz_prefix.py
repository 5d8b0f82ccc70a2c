"""The prefix-cache fuzzer at scale: random small request sequences through the LRU cache (one shared, one per
replica) against a list re-scanned at every access, and every router's contract, with counts.

Run: ``.venv/bin/python benchmarks/fuzz_prefix.py [N]`` (default 2,000 examples of each surface).

The strategies and contracts are those of ``tests/test_fuzz_prefix.py`` (``tests/fuzzing_prefix.py``), which runs a
few dozen examples of each in CI. Prints how many examples of each surface matched (``matched (list and stack)``
where Mattson's stack distance applies as well: each block of one size, none larger than the cache); a broken
contract stops the run with hypothesis's shrunk example.
"""

from __future__ import annotations

from hypothesis import strategies as st

from fuzz_counts import Surface, count_surfaces, examples_from_argv, use_test_helpers

use_test_helpers()

from fuzzing_prefix import (  # noqa: E402
    capacities,
    check_routed,
    check_routing,
    check_shared,
    request_sequences,
    timed_fleets,
)


def main(n: int) -> None:
    count_surfaces(
        [
            Surface("shared LRU cache", st.tuples(request_sequences(), capacities(), st.booleans()), check_shared, n),
            Surface(
                "per-replica LRU caches",
                st.tuples(request_sequences(), capacities(), st.integers(1, 4), st.integers(0, 2**32 - 1)),
                check_routed,
                n,
            ),
            Surface("routers", timed_fleets(), check_routing, n),
        ]
    )


if __name__ == "__main__":
    main(examples_from_argv(2000))
