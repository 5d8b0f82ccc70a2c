"""Sweeps run: every configuration of a sweep file evaluated, in vectorised chunks scheduled by Dask.

:func:`sweep` is the library's entry: a sweep (file, bundled name or :class:`~rackcost.analysis.sweep.spec.SweepSpec`)
in, a tidy :class:`pandas.DataFrame` out, one row per configuration x system x demand point. :func:`run_sweep` returns
the same with what was left out and which chunks failed (:class:`SweepResult`).

How (see :mod:`rackcost.analysis.sweep.design` for the two kinds of axes): configurations are split into groups that
share a scenario (the structural axes' values), and each group's configurations into chunks of at most
``chunk_configs``. A chunk is one call of :func:`rackcost.analysis.montecarlo.evaluate_samples` with the vector axes as
its sample axis (times the Monte Carlo draws when ``samples`` is given). Chunks are Dask tasks:

- by default Dask's local threaded scheduler (numpy and scipy release the GIL in their array loops);
- ``scheduler="processes"`` for Dask's local process pool;
- ``workers=N``: a :class:`distributed.LocalCluster` of N single-threaded worker processes;
- ``address="tcp://host:8786"``: an existing ``distributed`` scheduler.

Every step is elementwise along the sample axis and a configuration's draws never straddle chunks, and the rows
are put in configuration order at the end, so the result is the same bit for bit whatever the chunking and the
scheduler (a test checks the local scheduler against a 2-worker ``LocalCluster``).
"""

from __future__ import annotations

import os
import queue
import signal
import threading
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from rackcost.analysis.sweep.bounds import SweepError, check_size, check_workers, sweep_size
from rackcost.analysis.sweep.chunks import Chunk, evaluate_chunk, plan_chunks
from rackcost.analysis.sweep.design import Design, design
from rackcost.analysis.sweep.spec import SweepSpec, bundled_sweep_path, load_sweep, sweep_from_dict
from rackcost.analysis.sweep.table import TableBuilder, check_column_names, table_layout
from rackcost.errors import check_argument

if TYPE_CHECKING:
    import pandas as pd

    from rackcost.scenario.schema import Scenario

__all__ = [
    "CONNECT_TIMEOUT_S",
    "SweepError",  # defined in rackcost.analysis.sweep.bounds, raised here too
    "SweepResult",
    "run_sweep",
    "sweep",
]

CONNECT_TIMEOUT_S = 5.0
"""How long to wait for a ``distributed`` scheduler to answer, its handshake included [s]."""
CONNECT_GRACE_S = 1.0
"""Time given past :data:`CONNECT_TIMEOUT_S` for ``distributed``'s own timeout to report, and for a half-made
client to close [s]."""
RETRIES = 2
"""Times ``distributed`` reruns a chunk whose worker died [-]."""
WORKER_ENVIRONMENT = {"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None}
"""Dask configuration while the sweep's own LocalCluster starts: its workers keep glibc's default heap.

``distributed`` starts workers with ``MALLOC_TRIM_THRESHOLD_=65536`` so that they give freed memory back to the
system; that also fixes glibc's threshold for serving a block by ``mmap``, so each of a chunk's many temporary arrays
(megabytes each) is mapped afresh and its pages faulted in again: a chunk of the 10^6 sweep took 0.54 s with it
instead of 0.30 s in one process (benchmarks/bench_sweep.py). The cluster lives for one sweep, so the memory given
back was never worth it. (Workers of an existing scheduler, ``address``, are started by whoever runs them.)"""
HANDOFF_QUEUE = 1
"""Results waiting for the thread that takes them (:class:`_InOrder`), besides the one it is taking [-]."""
INTERRUPT_POLL_S = 0.05
"""How often the wait for a distributed sweep's chunks looks whether Ctrl-C was pressed [s]."""


@dataclass
class SweepResult:
    """What :func:`run_sweep` returns.

    Attributes
    ----------
    design
        The resolved sweep.
    frame
        One row per configuration x system x demand point (see :func:`sweep`).
    skipped
        Rows ``{configurations, system, reason}``: systems left out of some configurations (their scenario cannot
        evaluate them there), each reason once with the number of configurations.
    failed_chunks
        ``(chunk number, first configuration, last configuration, error)`` of chunks that failed after retries;
        their configurations have no rows.
    rows
        Rows of the table: ``len(frame)``, or, when the table was streamed to a ``sink``, the rows handed to it
        (``frame`` then has the table's columns and no rows).
    """

    design: Design
    frame: pd.DataFrame
    skipped: list[dict[str, Any]] = field(default_factory=list)
    failed_chunks: list[tuple[int, int, int, str]] = field(default_factory=list)
    rows: int = 0


def sweep(
    spec: SweepSpec | str | Path | dict[str, Any],
    *,
    scheduler: str = "threads",
    workers: int | None = None,
    address: str | None = None,
    chunk_configs: int | None = None,
    confirm: bool = False,
    allow_outside: bool = False,
) -> pd.DataFrame:
    """Evaluate every configuration of a sweep.

    Parameters
    ----------
    spec
        A sweep file or bundled sweep name, its plain data, or a :class:`SweepSpec`.
    scheduler, workers, address, chunk_configs, confirm, allow_outside
        As :func:`run_sweep`.

    Returns
    -------
    pandas.DataFrame
        One row per configuration x system x demand point, in that order: ``configuration`` (its number), one
        column per axis (its value; the label of a variant or a subset), ``system``, ``payment``,
        ``demand_point``, the :data:`~rackcost.analysis.sweep.chunks.POINT_COLUMNS`, ``interactivity_tokens_per_s``
        (tokens per second per user, 1000 / TPOT) and the :data:`~rackcost.analysis.sweep.chunks.SYSTEM_COLUMNS`.
        With Monte Carlo draws, each is the mean over the draws, with ``_p5`` / ``_p95`` of the cost columns and
        ``probability_cheapest_fraction``. API systems have ``<NA>`` where they have no value (latency, power,
        fleet).

    Raises
    ------
    ScenarioError
        A sweep or base scenario that does not validate, or an axis that does not fit the scenario.
    SweepError
        A scheduler that does not answer; a sweep over the bounds of :mod:`rackcost.analysis.sweep.bounds`
        unconfirmed, or over the machine's memory at all; more workers than the machine has room for; a sweep in
        which no configuration can be evaluated (every system left out of each); a chunk that failed.

    Examples
    --------
    >>> import rackcost
    >>> frame = rackcost.sweep({
    ...     "name": "electricity", "scenario": "deepseek-r1-jalapeno-vs-gb300",
    ...     "axes": [{"axis": "facility.electricity_usd_per_kwh", "values": [0.05, 0.10]}]})
    >>> len(frame)  # 2 configurations x 2 systems x 3 demand points
    12
    """
    _check_arguments("rackcost.sweep", spec, scheduler, workers, address, chunk_configs, confirm, allow_outside)
    result = run_sweep(
        spec,
        scheduler=scheduler,
        workers=workers,
        address=address,
        chunk_configs=chunk_configs,
        confirm=confirm,
        allow_outside=allow_outside,
    )
    if result.failed_chunks:
        number, first, last, error = result.failed_chunks[0]
        raise SweepError(
            f"{len(result.failed_chunks)} chunk(s) failed; chunk {number} (configurations {first}-{last}): {error}"
        )
    return result.frame


def resolve(
    spec: SweepSpec | str | Path | dict[str, Any], base: Scenario | None = None, *, allow_outside: bool = False
) -> Design:
    """The :class:`Design` of a sweep given as a file, bundled name, plain data or :class:`SweepSpec`.

    ``base``, when given, is the base scenario in place of the one the sweep names. The files a sweep names (its
    scenario, imports) must lie under the sweep file's folder (the current folder for plain data), after symlinks
    and ``..`` are resolved, or the scenario be a bundled name; ``allow_outside=True`` lifts that.
    """
    if isinstance(spec, SweepSpec):
        d = design(spec, base=base, allow_outside=allow_outside)
    elif isinstance(spec, dict):
        d = design(sweep_from_dict(spec), base=base, allow_outside=allow_outside)
    else:
        loaded, folder = load_sweep(spec)
        d = design(loaded, folder, str(spec), base, allow_outside)
        file = Path(spec) if Path(spec).exists() else bundled_sweep_path(str(spec), missing_ok=True)
        d = replace(d, inputs=(file, *d.inputs)) if file is not None else d
    check_column_names(d)
    return d


def run_sweep(
    spec: SweepSpec | str | Path | dict[str, Any] | Design,
    *,
    scheduler: str = "threads",
    workers: int | None = None,
    address: str | None = None,
    chunk_configs: int | None = None,
    confirm: bool = False,
    allow_outside: bool = False,
    progress: Callable[[int], None] | None = None,
    evaluate: Callable[[Chunk], dict[str, NDArray[Any]]] | None = None,
    sink: Callable[[pd.DataFrame], None] | None = None,
) -> SweepResult:
    """Evaluate every configuration of a sweep, keeping what a failed chunk did not take with it.

    Parameters
    ----------
    spec
        A sweep (as :func:`sweep`) or its resolved :class:`Design`.
    scheduler
        Dask's local scheduler: ``threads`` (default), ``processes`` or ``synchronous``; ignored with ``workers`` or
        ``address``.
    workers
        Run on a new :class:`distributed.LocalCluster` of this many worker processes (closed afterwards), at most
        :data:`~rackcost.analysis.sweep.bounds.WORKERS_PER_CPU` per CPU this process may use.
    address
        Run on the ``distributed`` scheduler at this address (``tcp://host:8786``).
    chunk_configs
        Configurations per chunk; default about :data:`~rackcost.analysis.sweep.chunks.CHUNK_ELEMENTS` elements per
        chunk. The result does not depend on it.
    confirm
        Run a sweep over the bounds (rows, evaluations, groups, estimated memory:
        :func:`rackcost.analysis.sweep.bounds.check_size`); one whose estimate exceeds the machine's memory is
        refused even so.
    allow_outside
        Let the sweep read files outside its own folder (see :func:`resolve`).
    progress
        Called with the number of configurations done after each chunk.
    evaluate
        The chunk function (default :func:`~rackcost.analysis.sweep.chunks.evaluate_chunk`; tests pass one that fails).
    sink
        Called with each chunk's rows (a :class:`pandas.DataFrame`, the table's columns and types), in
        configuration order, as soon as the chunk and those before it are done: the whole table is never held
        (the CLI writes the pieces to its output file). Without it, each chunk's figures are copied into the
        table as the chunk finishes, so the table is the one copy
        (:class:`~rackcost.analysis.sweep.table.TableBuilder`).

    Raises
    ------
    ScenarioError, SweepError
        As :func:`sweep` (a failed chunk is reported in the result instead).
    """
    fn = "rackcost.analysis.sweep.run.run_sweep"
    _check_arguments(fn, spec, scheduler, workers, address, chunk_configs, confirm, allow_outside, accept_design=True)
    for name, value, described in (
        ("progress", progress, "a function of the configurations done, or None"),
        ("evaluate", evaluate, "a function of a Chunk, or None"),
        ("sink", sink, "a function of a DataFrame, or None"),
    ):
        if value is not None and not callable(value):
            raise TypeError(f"{fn}: {name} must be {described}, got {type(value).__name__}")
    d = spec if isinstance(spec, Design) else resolve(spec, allow_outside=allow_outside)
    check_workers(workers)
    if chunk_configs is not None and chunk_configs < 1:
        raise SweepError(f"chunk_configs must be >= 1, got {chunk_configs}")
    size = sweep_size(d, scheduler=scheduler, workers=workers, address=address, chunk_configs=chunk_configs)
    check_size(size, d.source, confirm)
    if workers is None or address is not None:
        chunks, skipped = plan_chunks(d, chunk_configs)
        return _run_planned(d, chunks, skipped, evaluate or evaluate_chunk, scheduler, None, address, progress, sink)
    started = None  # the sweep's own cluster, started while the chunks are planned
    # Ctrl-C only sets a flag from the cluster's start to its close (_interrupt_flag): checked where the planning is
    # waited for and while the chunks run, never a KeyboardInterrupt in a garbage-collector callback of distributed's
    with _interrupt_flag() as interrupted:
        try:
            chunks, skipped, started = _plan_while_cluster_starts(d, chunk_configs, workers, interrupted)
            return _run_planned(
                d, chunks, skipped, evaluate or evaluate_chunk, scheduler, started, address, progress, sink
            )
        finally:
            if started is not None:  # closed already, unless the run failed before it reached the cluster
                from rackcost.analysis.sweep.cluster import close_cluster

                close_cluster(started)


def _plan_while_cluster_starts(
    d: Design, chunk_configs: int | None, workers: int, interrupted: threading.Event
) -> tuple[list[Chunk], list[dict[str, Any]], tuple[Any, Any]]:
    """:func:`plan_chunks` on a thread of its own while this thread starts the sweep's LocalCluster
    (:func:`rackcost.analysis.sweep.cluster.start_local_cluster`): the workers' start (processes spawned, modules
    imported) overlaps the planning (1.7 s at 10^6 configurations). The cluster is closed if the planning fails or
    ``interrupted`` is set (Ctrl-C) while it is waited for."""
    from rackcost.analysis.sweep.cluster import close_cluster, start_local_cluster

    outcome: dict[str, Any] = {}

    def planning() -> None:
        try:
            outcome["planned"] = plan_chunks(d, chunk_configs)
        except BaseException as exc:  # noqa: BLE001 - raised again in this thread
            outcome["error"] = exc

    thread = threading.Thread(target=planning, name="rackcost-sweep-plan", daemon=True)
    thread.start()
    started = start_local_cluster(workers, WORKER_ENVIRONMENT)
    try:
        while thread.is_alive():  # Ctrl-C ends the wait; the planning, left alone, ends on its own
            thread.join(INTERRUPT_POLL_S)
            if interrupted.is_set():
                raise KeyboardInterrupt
        if "error" in outcome:
            raise outcome["error"]
    except BaseException:
        close_cluster(started)
        raise
    chunks, skipped = outcome["planned"]
    return chunks, skipped, started


def _run_planned(
    d: Design,
    chunks: list[Chunk],
    skipped: list[dict[str, Any]],
    evaluate: Callable[[Chunk], dict[str, NDArray[Any]]],
    scheduler: str,
    started: tuple[Any, Any] | None,
    address: str | None,
    progress: Callable[[int], None] | None,
    sink: Callable[[pd.DataFrame], None] | None,
) -> SweepResult:
    """:func:`run_sweep` once the chunks are planned (and its own cluster, if any, ``started``)."""
    if not chunks:
        raise SweepError(_nothing_to_evaluate(d.source, skipped))
    layout = table_layout(d, chunks)
    if sink is None:
        builder = TableBuilder(d, chunks, layout)
        failed = _schedule(chunks, evaluate, scheduler, started, address, progress, builder.add)
        frame = builder.frame()
        return SweepResult(d, frame, skipped, failed, len(frame))
    streamed = [0]

    def piece(chunk: Chunk, result: dict[str, NDArray[Any]]) -> None:
        one = TableBuilder(d, [chunk], layout)
        one.add(chunk, result)
        rows = one.frame()
        streamed[0] += len(rows)
        sink(rows)

    failed = _schedule(chunks, evaluate, scheduler, started, address, progress, piece, in_order=True)
    return SweepResult(d, TableBuilder(d, [], layout).frame(), skipped, failed, streamed[0])


def _check_arguments(
    function: str,
    spec: Any,
    scheduler: Any,
    workers: Any,
    address: Any,
    chunk_configs: Any,
    confirm: Any,
    allow_outside: Any,
    accept_design: bool = False,
) -> None:
    """Refuse, at the edge, an argument of :func:`sweep` or :func:`run_sweep` of the wrong type, saying what was
    expected (:func:`rackcost.errors.check_argument`); the ranges are checked where they are used."""
    kinds: tuple[type, ...] = (SweepSpec, str, os.PathLike, dict, *((Design,) if accept_design else ()))
    described = "a sweep file's path, a bundled sweep's name, its data (a dict) or a SweepSpec"
    check_argument(function, "spec", spec, kinds, described + (" or a Design" if accept_design else ""))
    check_argument(function, "scheduler", scheduler, str, "threads, processes or synchronous")
    whole = (int, np.integer, type(None))
    check_argument(function, "workers", workers, whole, "a whole number of worker processes, or None")
    check_argument(function, "address", address, (str, type(None)), "a scheduler's address (tcp://host:8786) or None")
    check_argument(function, "chunk_configs", chunk_configs, whole, "a whole number of configurations, or None")
    check_argument(function, "confirm", confirm, bool, "True or False")
    check_argument(function, "allow_outside", allow_outside, bool, "True or False")


SHOWN_REASONS = 3
"""Reasons named when no configuration can be evaluated; the others are counted [-]."""


def _nothing_to_evaluate(source: str, skipped: list[dict[str, Any]]) -> str:
    """The message of a sweep in which every system is left out of every configuration, with the first reasons."""
    reasons = [
        f"{left_out['system']} in {left_out['configurations']:,} configuration(s): {left_out['reason']}"
        for left_out in skipped[:SHOWN_REASONS]
    ]
    more = f"; and {len(skipped) - SHOWN_REASONS:,} more" if len(skipped) > SHOWN_REASONS else ""
    return (
        f"{source}: no configuration can be evaluated: every system is left out of every configuration "
        f"({'; '.join(reasons) or 'no system'}{more})"
    )


Take = Callable[[Chunk, dict[str, NDArray[Any]]], None]
"""What is done with a chunk's result as it comes (:func:`_schedule`)."""


class _InOrder:
    """Hands the chunks' results to ``take`` as they come, or, ``in_order``, in the chunks' order: a result that
    comes before those of the chunks ahead of it waits here till they have come (a failed chunk's never does).

    ``take`` runs on a thread of its own (:meth:`close` waits for it and raises what it raised), behind a queue of
    :data:`HANDOFF_QUEUE` results: so the scheduler keeps the workers busy while a piece is laid out and written,
    and a slow writer holds the scheduler back instead of results piling up in memory.
    """

    def __init__(self, chunks: list[Chunk], take: Take, in_order: bool) -> None:
        self._take, self._in_order = take, in_order
        self._order = [c.number for c in chunks]
        self._next = 0
        self._waiting: dict[int, tuple[Chunk, dict[str, NDArray[Any]] | None]] = {}
        self._queue: queue.Queue[tuple[Chunk, dict[str, NDArray[Any]]] | None] = queue.Queue(HANDOFF_QUEUE)
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="rackcost-sweep-take", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while (item := self._queue.get()) is not None:
            if self._error is None:  # after a failure, the rest is only drained: put never blocks for good
                try:
                    self._take(*item)
                except BaseException as exc:  # noqa: BLE001 - raised again in the scheduling thread
                    self._error = exc
            del item

    def put(self, chunk: Chunk, result: dict[str, NDArray[Any]] | None) -> None:
        """A chunk's result, or None for a chunk that failed."""
        self._raise()
        if not self._in_order:
            if result is not None:
                self._queue.put((chunk, result))
            return
        self._waiting[chunk.number] = (chunk, result)
        while self._next < len(self._order) and self._order[self._next] in self._waiting:
            ready, value = self._waiting.pop(self._order[self._next])
            self._next += 1
            if value is not None:
                self._queue.put((ready, value))

    def close(self) -> None:
        """Wait for the results handed on so far to be taken; raise what ``take`` raised."""
        self._queue.put(None)
        self._thread.join()
        self._raise()

    def close_quietly(self) -> None:
        """Stop taking (what is queued is dropped) and wait for the thread: the run has failed already."""
        self._error = self._error or SweepError("the sweep stopped")
        self._queue.put(None)
        self._thread.join()

    def _raise(self) -> None:
        if self._error is not None:
            raise self._error


def _schedule(
    chunks: list[Chunk],
    evaluate: Callable[[Chunk], dict[str, NDArray[Any]]],
    scheduler: str,
    started: tuple[Any, Any] | None,
    address: str | None,
    progress: Callable[[int], None] | None,
    take: Take,
    in_order: bool = False,
) -> list[tuple[int, int, int, str]]:
    """Run the chunks on Dask (the local scheduler, the cluster ``started`` or the scheduler at ``address``),
    handing each result to ``take`` as it comes (in the chunks' order when ``in_order``) and keeping none; the
    chunks that failed."""
    if not chunks:
        return []
    feed = _InOrder(chunks, take, in_order)
    try:
        if started is None and address is None:
            _run_local(chunks, evaluate, scheduler, progress, feed)
            failed = []
        else:
            failed = _run_distributed(chunks, evaluate, started, address, progress, feed)
    except BaseException:
        feed.close_quietly()
        raise
    feed.close()
    return failed


def task_keys(chunks: list[Chunk]) -> dict[str, Chunk]:
    """Dask's key of each chunk's task: numbers counting down to 0 at the last chunk, zero-padded.

    Dask's local scheduler runs independent tasks in the order of :func:`dask.order.order`, which breaks their ties
    by key, greatest first; so these keys make it run the chunks in their order, and a result streamed in order
    (``sink``) seldom waits for one before it (a test checks the order the chunks start in).
    """
    last = len(chunks) - 1
    return {f"sweep-chunk-{last - k:09d}": c for k, c in enumerate(chunks)}


def _run_local(
    chunks: list[Chunk],
    evaluate: Callable[[Chunk], dict[str, NDArray[Any]]],
    scheduler: str,
    progress: Callable[[int], None] | None,
    feed: _InOrder,
) -> None:
    """Dask's local scheduler: one task per chunk, each result handed on as it comes, and then dropped from
    Dask's cache (which otherwise keeps every result asked for till the end)."""
    from dask.callbacks import Callback

    if scheduler not in ("threads", "processes", "synchronous"):
        raise SweepError(f"scheduler must be threads, processes or synchronous, got {scheduler!r}")
    keys = task_keys(chunks)
    graph = {key: (evaluate, chunk) for key, chunk in keys.items()}
    done = [0]

    class _Progress(Callback):
        def _posttask(self, key: Any, result: Any, dsk: Any, state: Any, id: Any) -> None:  # noqa: A002
            if key in keys:
                state["cache"][key] = None  # handed on: Dask keeps None in its place
                feed.put(keys[key], result)
                done[0] += keys[key].configurations
                if progress is not None:
                    progress(done[0])

    from dask.local import get_sync
    from dask.multiprocessing import get as get_processes
    from dask.threaded import get as get_threads

    getters: dict[str, Callable[..., Any]] = {
        "threads": get_threads,
        "processes": get_processes,
        "synchronous": get_sync,
    }
    get = getters[scheduler]
    with _Progress():
        get(graph, list(keys))


@contextmanager
def _interrupt_flag() -> Iterator[threading.Event]:
    """SIGINT sets the event this yields, instead of raising :class:`KeyboardInterrupt` wherever it lands.

    Python runs a signal handler between any two bytecodes of the main thread: also inside a garbage-collector
    callback (``distributed`` installs one) or a ``__del__``, where a :class:`KeyboardInterrupt` is printed as
    "Exception ignored in ..." with a traceback and then lost. So while the cluster works, Ctrl-C only sets this
    flag, and the loop that waits for the chunks raises the interrupt itself, in one known place. Outside the main
    thread (the dashboard) there are no signals: the event is never set.
    """
    global _ACTIVE_FLAG
    if _ACTIVE_FLAG is not None:  # inside another: the same flag (an interrupt already caught stays caught)
        yield _ACTIVE_FLAG
        return
    flag = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        yield flag
        return
    previous = signal.signal(signal.SIGINT, lambda signum, frame: flag.set())
    _ACTIVE_FLAG = flag
    try:
        yield flag
    finally:
        _ACTIVE_FLAG = None
        signal.signal(signal.SIGINT, previous)


_ACTIVE_FLAG: threading.Event | None = None
"""The flag of the :func:`_interrupt_flag` that holds SIGINT in the main thread, while one does."""


def _silence_distributed() -> None:
    """No more log output from ``distributed`` and the event loops under it: after an interrupt, what it would say
    while its connections close (heartbeats missed, streams closed, tracebacks) is noise to a user who asked it to
    stop; the command prints its own line."""
    import logging

    for name in ("distributed", "tornado", "asyncio"):
        logging.getLogger(name).setLevel(logging.CRITICAL + 1)


def _connect(address: str) -> Any:
    """A ``distributed`` client of the scheduler at ``address``, ready within :data:`CONNECT_TIMEOUT_S`.

    ``Client(address, timeout=...)`` bounds the TCP connect but not Dask's handshake after it: a listener that
    accepts and never speaks (a plain ``socket.listen()``, ``python -m http.server``) held the sweep for over
    400 s, and one that answers with other bytes is read as a frame of any length (an allocation of exabytes). So
    the client is made on a thread of its own; when it is not ready in time, or fails in any way, the half-made
    client is closed (its event loop thread and socket with it) and the sweep ends with a :class:`SweepError`.
    """
    from distributed import Client

    made: list[Any] = []  # the client, as soon as it exists: so that it can be closed while it still connects
    outcome: dict[str, Any] = {}

    def connect() -> None:
        try:
            client = Client.__new__(Client)
            made.append(client)
            client.__init__(address, timeout=f"{CONNECT_TIMEOUT_S}s", set_as_default=False)  # type: ignore[misc]
            outcome["client"] = client
        except BaseException as exc:  # noqa: BLE001 - any failure to connect is the one error below
            outcome["error"] = exc

    thread = threading.Thread(target=connect, name="rackcost-sweep-connect", daemon=True)
    thread.start()
    try:
        thread.join(CONNECT_TIMEOUT_S + CONNECT_GRACE_S)
    finally:
        if thread.is_alive() or "client" not in outcome:
            for client in made:
                with suppress(Exception):
                    client.close(timeout=CONNECT_GRACE_S)
            thread.join(CONNECT_GRACE_S)
    if "client" in outcome:
        return outcome["client"]
    exc = outcome.get("error")
    if exc is None:
        why = "it accepted the connection but did not complete Dask's handshake: is it a Dask scheduler?"
    elif isinstance(exc, OSError | TimeoutError | ValueError):
        why = str(exc) or type(exc).__name__
    else:  # bytes that are not Dask's, read as a frame (a MemoryError of exabytes, a decoding error)
        why = f"it answered, but not as a Dask scheduler does ({type(exc).__name__})"
    raise SweepError(
        f"the Dask scheduler at {address} did not answer within {CONNECT_TIMEOUT_S:g} s ({why}); start it with "
        "`dask scheduler` and workers with `dask worker ADDRESS`, or run without --scheduler"
    )


def _run_distributed(
    chunks: list[Chunk],
    evaluate: Callable[[Chunk], dict[str, NDArray[Any]]],
    started: tuple[Any, Any] | None,
    address: str | None,
    progress: Callable[[int], None] | None,
    feed: _InOrder,
) -> list[tuple[int, int, int, str]]:
    """A ``distributed`` cluster: the sweep's own LocalCluster and its client, ``started``
    (:func:`rackcost.analysis.sweep.cluster.start_local_cluster`), or the scheduler at ``address``; each result is
    fetched as it comes, handed on, and released on the cluster.

    Ctrl-C raises :class:`KeyboardInterrupt` here (:func:`_interrupt_flag`); the cluster and its workers are closed
    before it leaves, and nothing of ``distributed`` is printed (:func:`_silence_distributed`).
    """
    import logging

    from distributed import as_completed

    cluster = None
    logging.getLogger("distributed").setLevel(logging.ERROR)
    if address is not None:
        client = _connect(address)
    else:
        assert started is not None  # started by run_sweep while it planned the chunks
        cluster, client = started
    futures: dict[Any, Any] = {}
    completed: Any = None
    batch: Any = []
    future: Any = None
    with _interrupt_flag() as interrupted:  # around the closing too: a second Ctrl-C must not cut it short
        try:
            with warnings.catch_warnings():  # each chunk carries its groups' scenarios and plans, by design
                warnings.filterwarnings("ignore", message="Sending large graph", category=UserWarning)
                futures = {
                    client.submit(evaluate, c, key=f"sweep-chunk-{c.number}", retries=RETRIES, pure=False): c
                    for c in chunks
                }  # submitted in the chunks' order: distributed runs them so (its priority is the order of submission)
            failed = []
            done = 0
            with client.as_current():  # as_completed finds the client it waits on here
                completed = as_completed(futures)
                while not completed.is_empty():
                    batch = completed.next_batch(block=False)
                    if interrupted.is_set():
                        raise KeyboardInterrupt
                    if not batch:
                        interrupted.wait(INTERRUPT_POLL_S)
                    for future in batch:
                        chunk = futures.pop(future)  # the last reference: the cluster lets the result go
                        try:
                            result = future.result()
                        except Exception as exc:  # noqa: BLE001 - any failure of a chunk is reported, the rest kept
                            configs = np.concatenate([p[2] for p in chunk.parts])
                            first, last = int(configs.min()), int(configs.max())
                            failed.append((chunk.number, first, last, f"{type(exc).__name__}: {exc}"))
                            result = None
                        done += chunk.configurations
                        if progress is not None:
                            progress(done)
                        feed.put(chunk, result)
            return sorted(failed)
        except KeyboardInterrupt:
            _silence_distributed()
            raise
        finally:
            # the futures still held are let go here, while Ctrl-C only sets the flag: a Future's __del__ that a
            # SIGINT lands in once the default handler is back prints "Exception ignored" with a traceback
            futures.clear()
            completed = batch = future = None  # noqa: F841 - released, not read
            client.close()
            if cluster is not None:
                cluster.close()
