"""The sub-hour fuzzer at scale: ServeGen client folders, windows inside an hour and demand points with windows,
with counts.

Run: ``.venv/bin/python benchmarks/fuzz_sub_hour.py [N]`` (default 2,000 examples of each surface).

The strategies and contracts are those of ``tests/test_fuzz_sub_hour.py`` (``tests/fuzzing_sub_hour.py``), which runs
a few dozen examples of each in CI. A broken contract stops the run with hypothesis's shrunk example.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import strategies as st

from fuzz_counts import Surface, count_surfaces, examples_from_argv, use_test_helpers

use_test_helpers()

from fuzzing_sub_hour import (  # noqa: E402
    check_client_folder,
    check_sub_hour_point,
    check_windows,
    client_folders,
    sub_hour_points,
    window_cases,
)


def main(n: int) -> None:
    folder = Path(tempfile.mkdtemp()) / "clients"
    count_surfaces(
        [
            Surface("ServeGen client folders", st.tuples(client_folders(), st.just(folder)), check_client_folder, n),
            Surface("windows inside an hour", window_cases(), check_windows, n),
            Surface("demand points with windows", sub_hour_points(), check_sub_hour_point, n),
        ]
    )


if __name__ == "__main__":
    main(examples_from_argv(2000))
