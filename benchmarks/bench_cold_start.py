"""Cold start of the ``rackcost`` command against the bare imports of the libraries it stands on (never asserted).

Run: ``.venv/bin/python benchmarks/bench_cold_start.py [--rounds N]`` (the ``rackcost`` console script beside the
interpreter; without one, the same entry point through ``python -c``).

Three commands, each a new process, run in turn in every round (the order rotating from round to round, so that
none always follows another) after one warm-up round that fills the file cache:

1. the floor: ``python -c 'import numpy, scipy.special, pydantic, yaml, typer, rich'``, the libraries a cold
   ``rackcost evaluate`` cannot do without;
2. ``rackcost --help`` (its output read and thrown away);
3. ``rackcost evaluate``, the bundled default scenario, its table written to ``/dev/null``.

Printed: each command's least wall time and least CPU time (user + system, from the kernel's accounting of the
finished child: other processes on a shared machine add less to it than to wall time) over ``--rounds`` rounds (the
least, as ``timeit`` advises: interference only ever adds time), and the ratio of each least to the floor's least;
also the median over rounds of the per-round ratio (each command against the floor of its own round). Goal: both
commands within 1.15x the floor.

Measured (this script, 11 rounds, a shared 2-core machine, CPU time, least): before the commands loaded lazily
``--help`` 2.02x and ``evaluate`` 1.98x the floor; after, 0.34x and 1.41x (1.21x the wider floor below). Later (5 to 11
rounds on a machine loaded by other work, the floor 0.45 to 0.72 s): ``evaluate`` 1.5x to 1.6x. Four changes then took
20 to 30 ms of CPU time off a cold ``rackcost evaluate`` (medians of 20 to 30 runs paired with the tree before them, in
four sessions: 19, 25, 31 and 71 ms; this script's ratios moved less than their noise there, 1.41x to 1.48x least
against 1.37x to 1.59x before; ``--help`` unchanged at 0.3x): the tables measure each column once and build only the
table they print (10 ms), the scenario schema's modules do without ``from __future__ import annotations`` (pydantic
compiled about 320 annotation strings; 9 ms), the console script turns pydantic's plugins off (pydantic read every
installed distribution's entry points; 8 ms) and the CLI's consoles leave emoji codes alone (Rich's emoji table; 4 ms).
What remains over the floor (about 0.25 s; ``time.process_time`` around each stage, modules loaded in order): creating
the 54 dataclasses of ``rackcost.model`` (about 50 ms) and the rest of its modules and the evaluation's (about 40 ms),
the 52 model classes of the scenario schema (about 55 ms) and pydantic building its validator on the first load (about
26 ms), Rich drawing the tables (about 30 ms), the evaluation itself (about 15 ms). The goal of 1.15x is at the wider
floor below (1.1x to 1.2x), which a command that validates with pydantic models and prints Rich tables already pays.

``import pydantic`` alone loads little of pydantic (its names load on first use), so a second, wider floor is printed
for reference: ``from pydantic import BaseModel`` and ``rich.table``, as a command that validates and prints a table
must load them (the floor of ``bench_core.py``).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

FLOOR = "import numpy, scipy.special, pydantic, yaml, typer, rich"
"""The bare imports the cold start is measured against."""
WIDER_FLOOR = "import numpy, scipy.special, yaml, typer, rich.table; from pydantic import BaseModel"
"""The same libraries as a validating, table-printing command loads them (for reference)."""


def rackcost_command() -> list[str]:
    """The ``rackcost`` console script of this interpreter's environment, or its entry point through ``python -c``."""
    script = shutil.which("rackcost", path=str(Path(sys.executable).parent))
    if script is not None:
        return [script]
    return [sys.executable, "-c", "import sys; from rackcost.cli.console import main; sys.argv[0] = 'rackcost'; main()"]


def child_environment() -> dict[str, str]:
    """This process's environment without ``PYTHONDONTWRITEBYTECODE``: the warm-up round writes the bytecode of
    rackcost's modules, so the rounds read it, as from an installed wheel (pip compiles it on install). Without
    bytecode, every cold start compiles rackcost's sources first (about 0.2 s here), which is not what a user waits
    for after the first run."""
    return {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}


def run_once(argv: list[str]) -> tuple[float, float]:
    """Wall and CPU (user + system) seconds of one run of ``argv`` as a new process, output to ``/dev/null``."""
    with open(os.devnull, "wb") as sink:
        start = time.perf_counter()
        child = subprocess.Popen(argv, stdout=sink, stderr=subprocess.PIPE, env=ENVIRONMENT)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
        err = child.stderr.read() if child.stderr is not None else b""
        if child.stderr is not None:
            child.stderr.close()
    if child.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} exited {child.returncode}: {err.decode(errors='replace')}")
    return wall, usage.ru_utime + usage.ru_stime


ENVIRONMENT = child_environment()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=15, help="rounds of the three (four) commands (default 15)")
    args = parser.parse_args()
    rackcost = rackcost_command()
    commands = {
        "floor (bare imports)": [sys.executable, "-c", FLOOR],
        "rackcost --help": [*rackcost, "--help"],
        "rackcost evaluate": [*rackcost, "evaluate"],
        "wider floor (BaseModel, rich.table)": [sys.executable, "-c", WIDER_FLOOR],
    }
    names = list(commands)
    for name in names:  # warm-up: the file cache, the .pyc files
        run_once(commands[name])
    wall: dict[str, list[float]] = {name: [] for name in names}
    cpu: dict[str, list[float]] = {name: [] for name in names}
    for i in range(args.rounds):
        for name in names[i % len(names) :] + names[: i % len(names)]:
            w, c = run_once(commands[name])
            wall[name].append(w)
            cpu[name].append(c)
    floor = names[0]
    print(f"cold start, {args.rounds} interleaved rounds, least of each (the ratio to the floor's least), ")
    print(f"and the median over rounds of the ratio to the same round's floor; {' '.join(rackcost)}")
    for name in names:
        paired_wall = statistics.median(w / f for w, f in zip(wall[name], wall[floor], strict=True))
        paired_cpu = statistics.median(c / f for c, f in zip(cpu[name], cpu[floor], strict=True))
        print(
            f"   {name:<36} wall {min(wall[name]):6.3f} s ({min(wall[name]) / min(wall[floor]):.2f}x, paired "
            f"{paired_wall:.2f}x)   cpu {min(cpu[name]):6.3f} s ({min(cpu[name]) / min(cpu[floor]):.2f}x, paired "
            f"{paired_cpu:.2f}x)"
        )


if __name__ == "__main__":
    main()
