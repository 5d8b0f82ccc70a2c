"""Prefix reuse of a trace with block hashes, for ``rackcost trace``: the rows it prints and the share it writes into
a scenario (``--into``). The measurement is :mod:`rackcost.model.workload.prefix_cache`'s; this module picks the caches
and the fleets to measure (given, or read from a scenario) and edits the scenario as plain data.

- :func:`prefix_requests_of` reads the blocks of a trace that carries ``hash_ids`` (and ``block_tokens``, the tokens
  of a full block; 512 where it gives none), so the measurement never depends on the trace type.
- :func:`scenario_fleets` reads, per system of an evaluated scenario, what the measurement needs: the router, the
  serving replicas and slots at the sizing point, the slot holding time, and the cache a replica's free KV memory
  holds (:func:`rackcost.model.workload.prefix_cache.cache_tokens_from_memory`; none without a ``memory`` block).
- :func:`prefix_rows` measures one shared cache and per-replica caches at each cache size.
- :func:`measured_prefix_hits` writes a measured share where the scenario takes it: a request class's
  ``prefix_hit_fraction``, with a ``figures:`` entry naming the trace, the cache and the routing.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from rackcost.model.queues.routers import Router, router_of
from rackcost.model.workload import prefix_cache as pc
from rackcost.scenario.edits import set_at
from rackcost.scenario.schema import Scenario

__all__ = [
    "PREFIX_COLUMNS",
    "MAX_PREFIX_HIT_FRACTION",
    "PrefixFleet",
    "measured_prefix_hits",
    "prefix_requests_of",
    "prefix_rows",
    "scenario_fleets",
]

PREFIX_COLUMNS = ("system", "cache_tokens", "cache", "routing", "replicas", "requests", "hit_fraction")
"""The columns of :func:`prefix_rows`, in order: ``cache_tokens`` per cache (None: unbounded), ``cache`` shared or
per replica, ``hit_fraction`` the share of the input tokens served from cache [-]."""
MAX_PREFIX_HIT_FRACTION = 0.999
"""The largest ``prefix_hit_fraction`` a request class takes (a request always prefills its new tokens)."""


def prefix_requests_of(trace: Any) -> tuple[pc.PrefixRequests, np.ndarray | None]:
    """The prefix blocks of a trace that carries them, and its arrival times [s] (None where it has none).

    Parameters
    ----------
    trace
        An object with ``hash_ids`` (per request, its block ids) and ``input_tokens``; optionally ``block_tokens``
        (the tokens of a full block, 512 where absent or None) and ``arrival_s``.

    Raises
    ------
    ValueError
        The trace carries no block hashes, or they do not fit its input lengths.
    """
    hash_ids = getattr(trace, "hash_ids", None)
    if hash_ids is None:
        raise ValueError(
            "the trace carries no prefix block hashes (hash_ids, as Mooncake's traces do): prefix reuse cannot be "
            "measured from it"
        )
    size = getattr(trace, "block_tokens", None)
    size = pc.DEFAULT_BLOCK_SIZE_TOKENS if size is None else int(size)
    arrival = getattr(trace, "arrival_s", None)
    return pc.prefix_requests(hash_ids, trace.input_tokens, size), (
        None if arrival is None else np.asarray(arrival, dtype=float)
    )


@dataclass(frozen=True)
class PrefixFleet:
    """What the prefix measurement needs of one system of a scenario.

    Attributes
    ----------
    system
        The system's name.
    routing
        The scenario's router (``fleet.routing``).
    replicas
        Serving replicas at the sizing demand point [-].
    slots_per_replica
        Requests in flight a replica serves at its chosen point [-].
    service_s
        Slot holding time at that point [s].
    cache_tokens
        Tokens a replica's free KV memory holds; None without a ``memory`` block [tokens].
    arrival_rps
        The sizing demand point's arrival rate (None where the scenario names none) [requests/s]: per-replica
        caches see the traffic of the trace's rate spread over these replicas, so a trace far slower than this
        reads per-replica hits low (superpose it to this rate first, each copy's block ids its own).
    """

    system: str
    routing: str
    replicas: int
    slots_per_replica: int
    service_s: float
    cache_tokens: int | None
    arrival_rps: float | None


def scenario_fleets(scenario: Scenario) -> list[PrefixFleet]:
    """Per self-hosted system of a scenario with a served sizing point, what :func:`prefix_rows` needs of it.

    The scenario is evaluated (:func:`rackcost.evaluate`) for the replicas, the slots and the service time at the
    sizing demand point; the cache is the replica's KV-cache pool, ``free / (copies x KV bytes per token)``
    (docs/model.md, "Prefix reuse measured on a trace").
    """
    from rackcost.evaluation.chain import evaluate
    from rackcost.scenario.unpack import kv_memory

    systems = evaluate(scenario).systems
    by_name = {s.name: s for s in scenario.systems}
    out = []
    for row in systems.to_dict("records"):
        system = by_name.get(row["system"])
        values = [_finite(row.get(k)) for k in ("serving_replicas", "concurrency", "service_s")]
        replicas, slots, service = values
        if system is None or replicas is None or slots is None or service is None:
            continue  # an API, or a system the SLO or its memory leaves unserved
        memory = kv_memory(scenario, system)
        cache = (
            None
            if memory is None
            else pc.cache_tokens_from_memory(memory.free_bytes, memory.kv_bytes_per_token, memory.copies)
        )
        sizing = next((d for d in scenario.demand if d.name == row.get("sizing_demand_point")), None)
        out.append(
            PrefixFleet(
                system=system.name,
                routing=router_of(scenario.fleet.routing).name,
                replicas=max(int(replicas), 1),
                slots_per_replica=max(int(slots), 1),
                service_s=float(service),
                cache_tokens=cache,
                arrival_rps=None if sizing is None else float(sizing.arrival_rps),
            )
        )
    return out


def _finite(value: Any) -> float | None:
    """A table cell as a finite number, None where it is empty, NaN or not a number."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def prefix_rows(
    requests: pc.PrefixRequests,
    cache_tokens: Sequence[float | None] = (None,),
    replicas: Sequence[int] = (),
    routings: Sequence[Router | str] = (),
    arrival_s: ArrayLike | None = None,
    service_s: float | None = None,
    slots_per_replica: int | None = None,
    fleets: Sequence[PrefixFleet] = (),
    seed: int = 0,
) -> list[dict[str, Any]]:
    """The share of the input tokens served from cache, one row per cache size, routing and fleet.

    Each cache size gives a row for one cache of that size shared by the fleet, then one per router and replica
    count with a cache of that size on every replica. Each fleet of a scenario (:func:`scenario_fleets`) adds, for
    its system, rows at its own per-replica cache (the replica's free KV memory, where it has a ``memory`` block)
    and at each cache size as a per-replica size: one cache pooling every replica's (``replicas x`` the size), and
    a cache on each replica under the scenario's router with its serving replicas, slots and service time.

    Parameters
    ----------
    requests
        The trace's blocks (:func:`prefix_requests_of`).
    cache_tokens
        Cache sizes; None for an unbounded cache [tokens].
    replicas, routings
        Fleets of per-replica caches to measure besides the shared cache: every router with every count [-].
    arrival_s, service_s, slots_per_replica
        For the routers that look at the replicas (``least_outstanding``, ``power_of_two``, ``pooled``): the
        arrival times [s], the slot holding time [s] and the slots per replica (None: unlimited; ``pooled`` needs
        it) [-].
    fleets
        Systems of a scenario (:func:`scenario_fleets`).
    seed
        Seed of the random routers.

    Returns
    -------
    list of dict
        Rows of :data:`PREFIX_COLUMNS`; ``system`` is None for the rows not of a scenario's system.

    Raises
    ------
    ValueError
        A router that looks at the replicas without arrival times or a service time, a bad cache size.
    """
    shared_cache: dict[float | None, float] = {}

    def shared(capacity: float | None) -> float:
        if capacity not in shared_cache:
            shared_cache[capacity] = pc.hit_fraction(pc.lru_hit_tokens(requests, capacity), requests.input_tokens)
        return shared_cache[capacity]

    def routed(capacity: float | None, routing: str, n: int, service: float | None, slots: int | None) -> float:
        where = pc.route_requests(routing, n, requests.requests, arrival_s, service, slots, seed)
        return pc.hit_fraction(pc.routed_hit_tokens(requests, where, capacity), requests.input_tokens)

    def row(system: str | None, capacity: float | None, scope: str, routing: str, n: int, share: float) -> dict:
        tokens = None if capacity is None or math.isinf(capacity) else int(capacity)
        return dict(zip(PREFIX_COLUMNS, (system, tokens, scope, routing, n, requests.requests, share), strict=True))

    out = []
    for capacity in cache_tokens:
        out.append(row(None, capacity, "shared", "any", 1, shared(capacity)))
        for name in routings:
            routing = router_of(name).name
            for n in replicas:
                share = routed(capacity, routing, n, service_s, slots_per_replica)
                out.append(row(None, capacity, "per replica", str(routing), n, share))
    for fleet in fleets:
        # the replica's own KV cache first where the system gives its memory; every asked size (unbounded too)
        own = [] if fleet.cache_tokens is None else [fleet.cache_tokens]
        sizes = own + [c for c in cache_tokens if fleet.cache_tokens is None or c != fleet.cache_tokens]
        for capacity in sizes:  # per replica; the shared cache pools every replica's
            pooled = None if capacity is None else capacity * fleet.replicas
            out.append(row(fleet.system, pooled, "shared", "any", fleet.replicas, shared(pooled)))
            share = routed(capacity, fleet.routing, fleet.replicas, fleet.service_s, fleet.slots_per_replica)
            out.append(row(fleet.system, capacity, "per replica", str(fleet.routing), fleet.replicas, share))
    return out


def measured_prefix_hits(
    scenario: dict[str, Any],
    hit_fraction: float,
    trace_name: str,
    cache_tokens: float | None,
    routing: str,
    replicas: int,
    class_name: str | None = None,
) -> dict[str, Any]:
    """A request class's ``prefix_hit_fraction`` measured from a trace, with a ``figures:`` entry naming it.

    The share goes where the scenario takes a prefix hit: a class of ``workload.classes`` (``class_name``; the
    only class where there is one). A workload without classes has no such field for a self-hosted system, so it
    becomes one class of its ``input_tokens_per_request`` and ``output_tokens_per_request`` (named ``all``,
    share 1, their ``figures:`` entries moved with them): one class gives the numbers of the plain workload bit
    for bit (docs/model.md, "Request classes"), so only the measured hit moves them. An API system then bills that
    share of the input at its cached price, in place of its ``cached_input_fraction``. Refused where that class
    cannot stand: an output spread (``output_tokens_cv_fraction``; give classes with length distributions) or a
    disaggregated system (``pools``, not modelled with classes). The entry's provenance is ``independent`` (the
    operator's own traffic, measured), its source the trace, the cache and the routing.

    Parameters
    ----------
    scenario
        A scenario dict; not modified.
    hit_fraction
        The measured share of the input tokens served from cache, 0 to 1 (capped at 0.999) [-].
    trace_name
        The trace's file name, for the source.
    cache_tokens
        The cache the share was measured at, None for unbounded [tokens].
    routing
        ``shared`` for one cache over the fleet, else the router of the per-replica caches.
    replicas
        Replicas the per-replica caches were measured over [-].
    class_name
        The class to set; None where the workload has at most one.

    Returns
    -------
    dict
        The edited copy.

    Raises
    ------
    ValueError
        The share is not in [0, 1], the class is not named or not found, or the workload cannot take one class.
    """
    if not (isinstance(hit_fraction, int | float) and 0.0 <= hit_fraction <= 1.0):
        raise ValueError(f"a prefix hit share is between 0 and 1, got {hit_fraction!r}")
    workload = scenario.get("workload")
    if not isinstance(workload, dict):
        raise ValueError("the scenario has no workload block to take the prefix hit share")
    out = scenario
    figures_moved: dict[str, str] = {}
    classes = workload.get("classes")
    if not classes:
        out = _one_class(scenario, figures_moved)
        index = 0
    else:
        names = [c.get("name") if isinstance(c, dict) else None for c in classes]
        if class_name is None and len(names) > 1:
            raise ValueError(
                f"the workload has {len(names)} request classes ({', '.join(map(str, names))}): name the one the "
                "trace measures"
            )
        if class_name is not None and class_name not in names:
            raise ValueError(f"no request class named {class_name!r}; the workload has: {', '.join(map(str, names))}")
        index = 0 if class_name is None else names.index(class_name)
    path = f"workload.classes[{index}].prefix_hit_fraction"
    value = min(float(f"{hit_fraction:.4g}"), MAX_PREFIX_HIT_FRACTION)
    out = set_at(out, path, value)
    cache = "an unbounded cache" if cache_tokens is None or math.isinf(cache_tokens) else f"{cache_tokens:,.0f} tokens"
    where = (
        "one LRU cache shared by the fleet"
        if routing in ("shared", "any")
        else f"an LRU cache on each of {replicas:,} replicas under {routing} routing"
    )
    figures = dict(out.get("figures") or {})
    figures.update(figures_moved)
    figures[path] = {
        "provenance": "independent",
        "source": f"measured by rackcost trace from {trace_name}: share of the input tokens in prefix blocks found "
        f"in {where}, {cache} each" + (" (capped at 0.999)" if value < float(f"{hit_fraction:.4g}") else ""),
    }
    out["figures"] = figures
    return out


def _one_class(scenario: dict[str, Any], figures_moved: dict[str, Any]) -> dict[str, Any]:
    """The scenario with its plain workload as one class (:func:`measured_prefix_hits`); the moved ``figures:``
    entries are put in ``figures_moved`` (and taken out of the copy's figures)."""
    workload = scenario["workload"]
    if workload.get("output_tokens_cv_fraction") is not None:
        raise ValueError(
            "the workload has no request classes and gives output_tokens_cv_fraction: a prefix hit share is a "
            "request class's, and a class gives its output spread as a length distribution; write "
            "workload.classes (e.g. one class with output_tokens: {lengths: gamma, mean: ..., cv: ...})"
        )
    systems = scenario.get("systems") or []
    pooled = [s.get("name") for s in systems if isinstance(s, dict) and s.get("pools") is not None]
    if pooled:
        raise ValueError(
            f"the workload has no request classes, and a prefix hit share is a request class's; disaggregated "
            f"systems ({', '.join(map(str, pooled))}: pools) are not modelled with classes"
        )
    out = copy.deepcopy(scenario)
    plain = out["workload"]
    plain["classes"] = [
        {
            "name": "all",
            "share_fraction": 1.0,
            "input_tokens": plain.pop("input_tokens_per_request", None),
            "output_tokens": plain.pop("output_tokens_per_request", None),
        }
    ]
    figures = out.get("figures")
    if isinstance(figures, dict):
        for old, new in (
            ("workload.input_tokens_per_request", "workload.classes[0].input_tokens"),
            ("workload.output_tokens_per_request", "workload.classes[0].output_tokens"),
        ):
            if old in figures:
                figures_moved[new] = figures.pop(old)
    return out
