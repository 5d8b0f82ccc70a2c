"""The sweep's own ``distributed.LocalCluster``: its worker processes end as soon as they have closed.

Imported only where a sweep runs on a cluster (``distributed`` is imported with it). A worker process of a
``LocalCluster`` that has closed (its scheduler told, its tasks and files let go) then ends as any Python program
does: it finalises the interpreter, tearing down the 1,200 or so modules a chunk imports (numpy, scipy, pandas,
pydantic, rackcost), while its nanny waits to join it. That took 0.5 to 1.5 s per worker on this project's 2-core
machine (measured from the worker's ``atexit`` to its exit), most of the time ``LocalCluster.close`` took; with the
worker ending at its ``atexit`` instead, the close took 0.06 to 0.13 s (``benchmarks/bench_sweep.py``, docs/sweeps.md).
"""

from __future__ import annotations

import atexit
import logging
import os
import sys
from typing import Any

from distributed import WorkerPlugin

__all__ = ["FAST_EXIT_PLUGIN", "FastExit"]

FAST_EXIT_PLUGIN = "rackcost-sweep-fast-exit"
"""The name :class:`FastExit` is registered under on the sweep's own cluster."""


def _exit_now() -> None:
    """End the process at once, its output flushed: what interpreter finalisation would still do is nothing the
    closed worker needs (its threads are joined before ``atexit`` runs, its files released when it closed)."""
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (AttributeError, OSError, ValueError):  # closed or replaced streams: nothing to flush
            pass
    os._exit(0)


class FastExit(WorkerPlugin):
    """A worker plugin that, when its worker closes, makes the worker's process end at its first ``atexit`` call
    (:func:`os._exit` after flushing its logs and output) instead of finalising the interpreter.

    Registered only on the sweep's own ``LocalCluster`` (never on the workers of a scheduler given by address,
    which others may own). ``atexit`` runs after Python has joined the process's threads; handlers registered
    before this one (the last registered runs first) are skipped: the worker has closed already.
    """

    name = FAST_EXIT_PLUGIN
    idempotent = True

    def teardown(self, worker: Any) -> None:
        """Called as the worker closes: end its process at exit."""
        atexit.register(_exit_now)
