"""What this machine can hold: its memory and its cores, for the checks that refuse work before it starts.

A leaf: the simulator (``rackcost simulate --requests``), the sweeps (``--workers``, their estimated memory) and the
Monte Carlo read their bounds here, so that a request the machine cannot hold is refused with a clear message
instead of running out of memory half-way.
"""

from __future__ import annotations

import contextlib
import os

__all__ = [
    "MAX_CELLS",
    "MAX_SAMPLES",
    "available_memory_bytes",
    "cpu_count",
    "gigabytes",
    "physical_memory_bytes",
]

MAX_SAMPLES = 1_000_000
"""Most samples a Monte Carlo run may draw [-]: P5 and P95 are stable to well under 1% by 100,000 samples."""
MAX_CELLS = 5_000_000
"""Default cap of a Monte Carlo run's samples x demand points x systems [-] (the CLI's ``--max-cells``): each cell
keeps about 112 bytes of samples (0.56 GB at the cap) and takes about 1 us to evaluate. Here rather than in
:mod:`rackcost.analysis.montecarlo` (which re-exports both) so that the commands' help texts name them without
loading the analysis at start-up."""
FALLBACK_MEMORY_BYTES = 8 * 1024**3
"""Memory assumed where the system does not say (not Linux, no ``sysconf``) [bytes]."""


def physical_memory_bytes() -> int:
    """The machine's memory [bytes] (``sysconf``), or :data:`FALLBACK_MEMORY_BYTES` where it cannot be read."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, OSError, ValueError):
        return FALLBACK_MEMORY_BYTES


def available_memory_bytes() -> int:
    """Memory available to a new allocation now [bytes]: Linux's ``MemAvailable``, else the physical memory.

    Examples
    --------
    >>> 0 < available_memory_bytes() <= physical_memory_bytes()
    True
    """
    # no /proc (not Linux) or an unreadable line: fall back to physical memory, the looser bound
    with contextlib.suppress(OSError, ValueError, IndexError), open("/proc/meminfo", encoding="ascii") as f:
        for line in f:
            if line.startswith("MemAvailable:"):
                return min(int(line.split()[1]) * 1024, physical_memory_bytes())
    return physical_memory_bytes()


def cpu_count() -> int:
    """Cores this process may run on (its affinity where the system tells, else ``os.cpu_count()``; at least 1)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def gigabytes(n_bytes: float) -> str:
    """Bytes for a message, in GB with one decimal (decimal GB, as file managers show).

    >>> gigabytes(11.6e9), gigabytes(2.6e8)
    ('11.6 GB', '0.3 GB')
    """
    return f"{n_bytes / 1e9:.1f} GB"
