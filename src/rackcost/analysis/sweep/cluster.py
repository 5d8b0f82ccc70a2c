"""The sweep's own ``distributed.LocalCluster``: started with SIGINT held off, its workers ending as soon as they close.

Imported only where a sweep runs on a cluster (``distributed`` is imported with it). A worker process of a
``LocalCluster`` that has closed (its scheduler told, its tasks and files let go) then ends as any Python program
does: it finalises the interpreter, tearing down the 1,200 or so modules a chunk imports (numpy, scipy, pandas,
pydantic, rackcost), while its nanny waits to join it. That took 0.5 to 1.5 s per worker on this project's 2-core
machine (measured from the worker's ``atexit`` to its exit), most of the time ``LocalCluster.close`` took; with the
worker ending at its ``atexit`` instead, the close took 0.06 to 0.13 s (``benchmarks/bench_sweep.py``, docs/sweeps.md).
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from distributed import Client, LocalCluster, WorkerPlugin

__all__ = ["FAST_EXIT_PLUGIN", "FastExit", "close_cluster", "interrupts_held_off", "start_local_cluster"]

FAST_EXIT_PLUGIN = "rackcost-sweep-fast-exit"
"""The name :class:`FastExit` is registered under on the sweep's own cluster."""


def _exit_now() -> None:
    """End the process at once, its output flushed: what interpreter finalisation would still do is nothing the
    closed worker needs (its threads are joined before ``atexit`` runs, its files released when it closed)."""
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(AttributeError, OSError, ValueError):  # closed or replaced: nothing to flush
            stream.flush()
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


@contextmanager
def interrupts_held_off() -> Iterator[None]:
    """SIGINT ignored while the block runs (in the main thread; elsewhere nothing changes).

    Around the start of a :class:`distributed.LocalCluster`: its worker processes inherit the ignored SIGINT (an
    ignored signal stays ignored across ``exec``, and Python keeps it so), so the Ctrl-C a terminal sends to the whole
    process group reaches only this process, which stops the workers itself; and the cluster is never left half
    started by an interrupt, its processes running on. An interrupt while the workers start (about a second) is
    lost: press Ctrl-C again.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def start_local_cluster(workers: int, environment: dict[str, Any]) -> tuple[Any, Any]:
    """A new ``LocalCluster`` of ``workers`` single-threaded worker processes and its client, SIGINT held off while
    it starts (:func:`interrupts_held_off`), with ``environment`` as Dask configuration while it starts and
    :class:`FastExit` registered on its workers."""
    import dask

    with interrupts_held_off(), dask.config.set(environment):
        cluster = LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            # distributed always serves HTTP (health checks; the dashboard with bokeh), on 8787 when no address
            # is given, warning when that port is taken: a free port of the loopback, found by the system
            dashboard_address="127.0.0.1:0",
            # the workers' own logs: a worker that loses its scheduler while the cluster closes logs an error
            silence_logs=logging.CRITICAL,
        )
        try:
            client = Client(cluster, set_as_default=False)
            client.register_plugin(FastExit())
        except BaseException:
            cluster.close()
            raise
    return cluster, client


def close_cluster(started: tuple[Any, Any]) -> None:
    """Close a cluster of :func:`start_local_cluster`: its client, then the cluster (both may be closed already)."""
    cluster, client = started
    client.close()
    cluster.close()
