"""The buying plan's inputs and bookkeeping (docs/model.md, The buying plan): capacity sources, demand blocks, the
problem, what no mix can cover, the optimal dispatch given the units held, and an independent check of a plan.

The solver is :mod:`rackcost.model.buying.plan` (it re-exports every name here); the brute-force referee is
:mod:`rackcost.model.buying.plan_brute`. The model is written out in docs/model.md, "The buying plan".

Conventions, shared by the solver, the referee and :func:`check_plan`:

- A source's units carry ``capacity_rps_per_unit x available_fraction`` requests/s each, within the SLO.
- A block's demand to cover is its highest hourly rate ``d_qb`` (so every hour of the block is covered); the
  requests served, which the variable cost counts, are its mean rate ``m_qb`` over its hours. A source that carries
  ``x`` of ``d_qb`` serves the share ``x / d_qb`` of the block's requests.
- Owned and reserved units are held for whole quarters (``hours_q = sum_b h_qb``); on-demand, spot and API units
  for each block's hours.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from rackcost.errors import Problem, ScenarioError
from rackcost.model.buying.source_kinds import Holding, SourceKind, kind_named, kind_names, kinds
from rackcost.units import HOURS_PER_DAY, SECONDS_PER_HOUR

__all__ = [
    "DemandBlocks",
    "PlanCheck",
    "PlanInfeasible",
    "PlanProblem",
    "PlanShortfall",
    "PlanSolution",
    "PlanSource",
    "check_plan",
    "coverage_shortfalls",
    "demand_blocks",
    "merit_order_dispatch",
    "most_units",
    "reserved_held",
]

Array = NDArray[np.float64]
COVER_RTOL = 1e-9
"""A block counts as covered when the dispatch reaches its demand within this share (float rounding) [-]."""
_SHOWN_SHORTFALLS = 10


@dataclass(frozen=True)
class PlanSource:
    """One source of capacity for the plan, as linear figures (the lead engineer's side computes them).

    Attributes
    ----------
    name
        Unique among the problem's sources.
    kind
        The name of a registered kind (:mod:`rackcost.model.buying.source_kinds`): ``owned`` (racks bought),
        ``reserved`` (rent committed for a term), ``on_demand``, ``spot`` or ``api``, or one registered since.
    capacity_rps_per_unit
        Requests/s one unit carries within the SLO (an owned rack, a rented replica; api: 1 unit = 1 request/s),
        > 0 [requests/s].
    usd_per_unit_hour
        Paid for every hour a unit is held (owned: levelised capital + fixed opex + idle energy; rent: price x
        accelerators) [USD/h].
    usd_per_request
        Marginal cost of each request served (owned: energy above idle; api: its token price per request) [USD].
    lead_time_quarters
        Owned only: the first quarter a bought rack can serve; none is bought before it [quarters].
    term_quarters
        Reserved only: a reservation started in quarter q is held and paid for quarters q..q+term-1, cut at the
        horizon's end [quarters].
    startup_hours
        On-demand only: a unit is started once a day on the days it is used and pays this many hours more per day
        (charged on the quarter's most units over its blocks, on every day of the quarter) [h].
    available_fraction
        The share of held time a unit serves (spot: preemption x refill), in (0, 1]; any kind may set it [-].
    max_units
        Most units held at once (api: its rate limit in requests/s when ``capacity_rps_per_unit`` is 1); None:
        unlimited [units].
    initial_units
        Owned or reserved units already held at the start. Owned: held throughout and paid like bought ones;
        reserved: a running term, held and paid for quarters 0..term-1 [units].
    """

    name: str
    kind: str
    capacity_rps_per_unit: float
    usd_per_unit_hour: float
    usd_per_request: float = 0.0
    lead_time_quarters: int = 0
    term_quarters: int = 1
    startup_hours: float = 0.0
    available_fraction: float = 1.0
    max_units: float | None = None
    initial_units: int = 0

    @property
    def source_kind(self) -> SourceKind:
        """The registered kind this source is (:func:`rackcost.model.buying.source_kinds.kind_named`)."""
        return kind_named(self.kind)

    @property
    def holding(self) -> Holding:
        """How its units are held in the program (its kind's)."""
        return self.source_kind.holding

    @property
    def rps_per_unit(self) -> float:
        """Requests/s a held unit carries: capacity x available share [requests/s]."""
        return self.capacity_rps_per_unit * self.available_fraction

    @property
    def unit_limit(self) -> float:
        """Most units held at once: ``max_units``, whole for the kinds held in whole units; inf if unlimited."""
        if self.max_units is None:
            return math.inf
        return math.floor(self.max_units + 1e-9) if self.holding.whole else float(self.max_units)


def _source_problems(index: int, s: PlanSource) -> list[str]:
    where = f"sources[{index}] ({s.name!r})"
    bad = []
    known = isinstance(s.kind, str) and s.kind in kind_names()
    if not known:
        bad.append(f"{where}.kind must be one of {', '.join(kind_names())}, got {s.kind!r}")
    for name, value, low, strict in (
        ("capacity_rps_per_unit", s.capacity_rps_per_unit, 0.0, True),
        ("usd_per_unit_hour", s.usd_per_unit_hour, 0.0, False),
        ("usd_per_request", s.usd_per_request, 0.0, False),
        ("startup_hours", s.startup_hours, 0.0, False),
        ("available_fraction", s.available_fraction, 0.0, True),
    ):
        if not (isinstance(value, int | float) and math.isfinite(value) and (value > low if strict else value >= low)):
            bad.append(f"{where}.{name} must be a finite number {'>' if strict else '>='} {low:g}, got {value!r}")
    if isinstance(s.available_fraction, int | float) and s.available_fraction > 1.0:
        bad.append(f"{where}.available_fraction must be <= 1, got {s.available_fraction!r}")
    for name, value, low in (("lead_time_quarters", s.lead_time_quarters, 0), ("term_quarters", s.term_quarters, 1)):
        if not (isinstance(value, int | np.integer) and not isinstance(value, bool) and value >= low):
            bad.append(f"{where}.{name} must be a whole number >= {low}, got {value!r}")
    if not (isinstance(s.initial_units, int | np.integer) and not isinstance(s.initial_units, bool)):
        bad.append(f"{where}.initial_units must be a whole number >= 0, got {s.initial_units!r}")
    elif s.initial_units < 0:
        bad.append(f"{where}.initial_units must be >= 0, got {s.initial_units!r}")
    if s.max_units is not None:
        if not (isinstance(s.max_units, int | float) and math.isfinite(s.max_units) and s.max_units >= 0):
            bad.append(f"{where}.max_units must be a finite number >= 0 or None, got {s.max_units!r}")
        elif isinstance(s.initial_units, int | np.integer) and s.initial_units > s.max_units + 1e-9:
            bad.append(f"{where}.initial_units ({s.initial_units}) must not exceed max_units ({s.max_units:g})")
    # a figure that does not apply to the kind is refused rather than silently ignored
    for name, value, default, reads in (
        ("lead_time_quarters", s.lead_time_quarters, 0, lambda k: k.holding is Holding.bought),
        ("term_quarters", s.term_quarters, 1, lambda k: k.holding is Holding.term),
        ("startup_hours", s.startup_hours, 0.0, lambda k: k.startup),
        ("initial_units", s.initial_units, 0, lambda k: k.holding.per_quarter),
    ):
        if known and not reads(s.source_kind) and value != default:
            which = " and ".join(k.name for k in kinds() if reads(k))
            bad.append(f"{where}.{name} applies to {which} sources only, got {value!r} for {s.kind}")
    return bad


@dataclass(frozen=True)
class DemandBlocks:
    """A horizon's demand in blocks of hours per quarter (axis 0: quarters, axis 1: blocks, the highest first).

    Attributes
    ----------
    hours
        Hours in each block, > 0 [h].
    demand_rps
        The demand to cover: the highest hourly rate among the block's hours [requests/s].
    mean_rps
        The mean rate over the block's hours, which the variable cost counts [requests/s].
    """

    hours: Array
    demand_rps: Array
    mean_rps: Array

    def __post_init__(self) -> None:
        arrays = [np.array(a, dtype=float, ndmin=2, copy=True) for a in (self.hours, self.demand_rps, self.mean_rps)]
        for name, a in zip(("hours", "demand_rps", "mean_rps"), arrays, strict=True):
            if a.ndim != 2 or a.shape != arrays[0].shape or a.size == 0:
                raise ValueError(f"DemandBlocks.{name} must be a non-empty (quarters, blocks) array like hours")
            if not np.isfinite(a).all() or (a < 0).any():
                raise ValueError(f"DemandBlocks.{name} must be finite and >= 0")
            a.setflags(write=False)
        hours, demand, mean = arrays
        if (hours <= 0).any():
            raise ValueError("DemandBlocks.hours must be > 0 in every block")
        if (mean > demand * (1 + 1e-12) + 1e-12).any():
            raise ValueError("DemandBlocks.mean_rps must not exceed demand_rps (the block's highest rate)")
        for name, a in zip(("hours", "demand_rps", "mean_rps"), arrays, strict=True):
            object.__setattr__(self, name, a)


def demand_blocks(
    hourly_rps: ArrayLike,
    quarter_of_hour: ArrayLike,
    blocks_per_quarter: int,
    *,
    spacing: Literal["equal", "top"] = "equal",
) -> tuple[DemandBlocks, NDArray[np.int64]]:
    """Cut each quarter's hours, sorted by rate, into blocks (a load-duration curve in steps), in one pass.

    Within each quarter the hours are sorted from the highest rate down and cut at the hour counts
    ``round(n_q (k / B)^p)``, k = 0..B: ``p = 1`` with ``spacing="equal"`` (the default: equal hour counts), ``p = 2``
    with ``"top"`` (finer near the top). Each block is at least one hour. Equal counts are the default because they
    measured better: on a weekly profile with growth, 24 equal blocks cover 2.7% more requests than the hours need
    against 3.5% for ``"top"``, and the plan is 0.05% cheaper (docs/model.md, "The buying plan").

    Parameters
    ----------
    hourly_rps
        Demand in each hour of the horizon, finite and >= 0 [requests/s].
    quarter_of_hour
        Quarter (0..Q-1) of each hour; every quarter has at least ``blocks_per_quarter`` hours.
    blocks_per_quarter
        Blocks B per quarter, >= 1.
    spacing
        ``"equal"`` or ``"top"`` (above).

    Returns
    -------
    blocks
        Hours, highest rate and mean rate of each (quarter, block), block 0 the highest.
    hour_to_block
        Block (0..B-1, within its quarter) of each hour.

    Examples
    --------
    >>> blocks, where = demand_blocks([1.0, 5.0, 3.0, 2.0], [0, 0, 0, 0], 2)
    >>> blocks.hours.tolist(), blocks.demand_rps.tolist(), blocks.mean_rps.tolist(), where.tolist()
    ([[2.0, 2.0]], [[5.0, 2.0]], [[4.0, 1.5]], [1, 0, 0, 1])
    """
    rate = np.asarray(hourly_rps, dtype=float)
    quarter = np.asarray(quarter_of_hour)
    if rate.ndim != 1 or rate.size == 0 or quarter.shape != rate.shape:
        raise ValueError("hourly_rps and quarter_of_hour must be 1-D arrays of the same, non-zero length")
    if not np.isfinite(rate).all() or (rate < 0).any():
        raise ValueError("hourly_rps must be finite and >= 0 in every hour")
    if not np.issubdtype(quarter.dtype, np.integer) or (quarter < 0).any():
        raise ValueError("quarter_of_hour must hold whole numbers >= 0")
    if isinstance(blocks_per_quarter, bool) or not isinstance(blocks_per_quarter, int | np.integer):
        raise ValueError(f"blocks_per_quarter must be a whole number >= 1, got {blocks_per_quarter!r}")
    if spacing not in ("top", "equal"):
        raise ValueError(f"spacing must be 'top' or 'equal', got {spacing!r}")
    n_blocks = int(blocks_per_quarter)
    counts = np.bincount(quarter)
    if n_blocks < 1 or counts.min() < n_blocks:
        raise ValueError(
            f"every quarter needs at least blocks_per_quarter = {blocks_per_quarter} hours (and blocks_per_quarter "
            f">= 1); the fewest hours in a quarter is {int(counts.min())} (quarters 0..{counts.size - 1})"
        )
    n_quarters = counts.size
    order = np.lexsort((-rate, quarter))  # by quarter, then the highest rate first (stable among equal rates)
    first = np.concatenate(([0], np.cumsum(counts)[:-1]))
    rank = np.empty(rate.size, dtype=np.int64)
    rank[order] = np.arange(rate.size) - first[quarter[order]]
    fraction = (np.arange(n_blocks + 1) / n_blocks) ** (2.0 if spacing == "top" else 1.0)
    edges = np.rint(counts[:, None] * fraction[None, :]).astype(np.int64)
    # at least one hour a block: each edge at least one past the one before (and so at most n_q - (B - k))
    steps = np.arange(n_blocks + 1)
    edges = np.maximum.accumulate(edges - steps, axis=1) + steps
    edges[:, -1] = counts
    span = int(counts.max()) + 1
    inner = (np.arange(n_quarters)[:, None] * span + edges[:, 1:n_blocks]).ravel()
    block = np.searchsorted(inner, quarter * span + rank, side="right") - quarter * (n_blocks - 1)
    flat = quarter * n_blocks + block
    hours = np.bincount(flat, minlength=n_quarters * n_blocks).astype(float)
    mean = np.bincount(flat, weights=rate, minlength=n_quarters * n_blocks) / hours
    top = rate[order][(first[:, None] + edges[:, :n_blocks]).ravel()]  # each block's first hour is its highest
    shape = (n_quarters, n_blocks)
    mean = np.minimum(mean, top)  # a mean of equal rates may round a hair above them
    blocks = DemandBlocks(hours.reshape(shape), top.reshape(shape), mean.reshape(shape))
    return blocks, block.astype(np.int64)


@dataclass(frozen=True)
class PlanProblem:
    """The cheapest-plan problem over quarters q = 0..Q-1 and their demand blocks.

    Attributes
    ----------
    sources
        The capacity sources, names unique.
    blocks
        Demand per (quarter, block) (:func:`demand_blocks`).
    discount_factor
        Present value of a USD spent in each quarter, (Q,), in (0, 1] typically [-].
    days
        Days in each quarter, (Q,); None: the quarter's hours / 24 [day].
    """

    sources: tuple[PlanSource, ...]
    blocks: DemandBlocks
    discount_factor: Array
    days: Array | None = None

    def __post_init__(self) -> None:
        sources = tuple(self.sources)
        if not sources:
            raise ValueError("a plan needs at least one source")
        bad = [p for i, s in enumerate(sources) for p in _source_problems(i, s)]
        names = [s.name for s in sources]
        bad += [
            f"sources: the name {n!r} is used more than once" for n in sorted({n for n in names if names.count(n) > 1})
        ]
        if bad:
            raise ValueError("\n".join(bad))
        n_quarters = self.blocks.hours.shape[0]
        discount = np.array(self.discount_factor, dtype=float, ndmin=1, copy=True)
        if discount.shape != (n_quarters,) or not np.isfinite(discount).all() or (discount <= 0).any():
            raise ValueError(f"discount_factor must be {n_quarters} finite numbers > 0 (one per quarter)")
        days = self.blocks.hours.sum(axis=1) / HOURS_PER_DAY if self.days is None else self.days
        days = np.array(days, dtype=float, ndmin=1, copy=True)
        if days.shape != (n_quarters,) or not np.isfinite(days).all() or (days < 0).any():
            raise ValueError(f"days must be {n_quarters} finite numbers >= 0 (one per quarter)")
        for a in (discount, days):
            a.setflags(write=False)
        object.__setattr__(self, "sources", sources)
        object.__setattr__(self, "discount_factor", discount)
        object.__setattr__(self, "days", days)

    @property
    def shape(self) -> tuple[int, int]:
        """(quarters, blocks per quarter)."""
        q, b = self.blocks.hours.shape
        return int(q), int(b)

    @property
    def quarter_hours(self) -> Array:
        """Hours in each quarter, the sum of its blocks' [h]."""
        return np.asarray(self.blocks.hours.sum(axis=1))

    @property
    def quarter_days(self) -> Array:
        """Days in each quarter [day]."""
        assert self.days is not None  # set by __post_init__
        return np.asarray(self.days)

    def source(self, name: str) -> PlanSource:
        """The source called ``name`` (a KeyError naming the sources otherwise)."""
        for s in self.sources:
            if s.name == name:
                return s
        raise KeyError(f"no source {name!r}; the sources are {', '.join(repr(s.name) for s in self.sources)}")

    def served_share_per_rps(self) -> Array:
        """Requests served per requests/s dispatched in each block: 3600 h m / d (0 where d = 0) [requests/(r/s)].

        A source carrying ``x`` of the block's demand ``d`` serves ``x / d`` of its ``3600 h m`` requests.
        """
        b = self.blocks
        with np.errstate(divide="ignore", invalid="ignore"):
            share = np.where(b.demand_rps > 0, b.mean_rps / b.demand_rps, 0.0)
        return np.asarray(SECONDS_PER_HOUR * b.hours * share)


def reserved_held(source: PlanSource, starts: ArrayLike, n_quarters: int) -> Array:
    """Reserved units held in each quarter: the initial running term (quarters 0..term-1) plus every start within
    its term, cut at the horizon's end [units].

    Examples
    --------
    >>> reserved_held(PlanSource("r", "reserved", 1.0, 1.0, term_quarters=2, initial_units=1), [2, 0, 1, 0], 4)
    array([3., 3., 1., 1.])
    """
    start = np.asarray(starts, dtype=float)
    cumulative = np.concatenate(([0.0], np.cumsum(start)))
    q = np.arange(n_quarters)
    window = cumulative[q + 1] - cumulative[np.maximum(q + 1 - source.term_quarters, 0)]
    return np.asarray(window + np.where(q < source.term_quarters, float(source.initial_units), 0.0))


@dataclass(frozen=True)
class PlanShortfall:
    """A block that no mix of the sources can cover.

    Attributes
    ----------
    quarter, block
        Where (block 0 is the quarter's highest).
    hours
        The block's hours [h].
    demand_rps
        Its demand to cover (its highest hourly rate) [requests/s].
    most_rps
        The most every source could carry in it together [requests/s].
    """

    quarter: int
    block: int
    hours: float
    demand_rps: float
    most_rps: float

    @property
    def shortfall_rps(self) -> float:
        """Demand minus the most the sources carry [requests/s]."""
        return self.demand_rps - self.most_rps


class PlanInfeasible(ScenarioError):
    """No plan covers the demand: ``shortfalls`` names every block short and by how much (one problem a block,
    the first ten shown, then a summary line)."""

    def __init__(
        self, shortfalls: list[PlanShortfall], *, who: str = "the sources together", path: str = "sources"
    ) -> None:
        self.shortfalls = tuple(shortfalls)
        problems = [
            Problem(
                path,
                f"quarter {s.quarter}, block {s.block} ({s.hours:,.0f} h): demand {s.demand_rps:,.6g} requests/s, "
                f"{who} carry at most {s.most_rps:,.6g}: {s.shortfall_rps:,.6g} requests/s short",
            )
            for s in self.shortfalls[:_SHOWN_SHORTFALLS]
        ]
        if len(self.shortfalls) > _SHOWN_SHORTFALLS:
            rest = self.shortfalls[_SHOWN_SHORTFALLS:]
            problems.append(
                Problem(
                    path,
                    f"and {len(rest)} more blocks short, by up to {max(s.shortfall_rps for s in rest):,.6g} requests/s",
                )
            )
        super().__init__(problems)


def most_units(problem: PlanProblem) -> Array:
    """The most units each source can hold in each block, (S, Q, B): its limit where it may add units (owned:
    from its lead time), its initial units where it may not [units]."""
    n_quarters, n_blocks = problem.shape
    most = np.empty((len(problem.sources), n_quarters, n_blocks))
    q = np.arange(n_quarters)
    for i, s in enumerate(problem.sources):
        limit = s.unit_limit
        if s.holding is Holding.bought:
            most[i] = np.where(q >= s.lead_time_quarters, max(limit, s.initial_units), s.initial_units)[:, None]
        else:
            most[i] = limit
    return most


def coverage_shortfalls(problem: PlanProblem) -> list[PlanShortfall]:
    """Every block whose demand exceeds the most all the sources could carry together (none: a plan exists).

    The test is exact: holding every source at its most in every block is itself a plan (owned racks bought at the
    lead time, reservations renewed at each term's end), so a block that passes it is covered by some plan.

    Examples
    --------
    >>> blocks = DemandBlocks([[10.0, 10.0]], [[30.0, 5.0]], [[20.0, 5.0]])
    >>> api = PlanSource("api", "api", 1.0, 0.0, 1e-3, max_units=25.0)
    >>> [(s.block, s.shortfall_rps) for s in coverage_shortfalls(PlanProblem((api,), blocks, [1.0]))]
    [(0, 5.0)]
    """
    rps = np.array([s.rps_per_unit for s in problem.sources])[:, None, None]
    with np.errstate(invalid="ignore"):  # inf x 0 never occurs: rps_per_unit > 0
        most = (most_units(problem) * rps).sum(axis=0)
    demand = problem.blocks.demand_rps
    short = demand > most * (1 + COVER_RTOL)
    return [
        PlanShortfall(int(q), int(b), float(problem.blocks.hours[q, b]), float(demand[q, b]), float(most[q, b]))
        for q, b in zip(*np.nonzero(short), strict=True)
    ]


def merit_order_dispatch(
    problem: PlanProblem, units: Array, serving: NDArray[np.bool_] | None = None
) -> tuple[Array, Array]:
    """The cheapest dispatch given the units held, (S, Q, B): each block filled in merit order of the cost of a
    requests/s carried, the API's held rate sized to what it carries.

    A requests/s from source s in block (q, b) costs ``usd_per_request x 3600 h m / d``, plus for the API (whose
    rate is continuous and paid per hour held) ``usd_per_unit_hour x h / rps_per_unit``. Given the units, the
    dispatch is a continuous knapsack with one equality (the block's demand), so the greedy fill is optimal.

    Parameters
    ----------
    units
        Units held per source and block, (S, Q, B); the API's entry is ignored (its limit applies) [units].
    serving
        (S,) the sources that may carry demand (None: all); the others carry none.

    Returns
    -------
    dispatch_rps
        Requests/s each source carries in each block [requests/s].
    api_units
        The units the dispatch holds (``units`` with the API's set to what it carries) [units].
    """
    rps = np.array([s.rps_per_unit for s in problem.sources])[:, None, None]
    is_api = np.array([s.holding is Holding.rate for s in problem.sources])[:, None, None]
    price = np.array([s.usd_per_unit_hour for s in problem.sources])[:, None, None]
    per_request = np.array([s.usd_per_request for s in problem.sources])[:, None, None]
    cost = per_request * problem.served_share_per_rps()[None] + np.where(
        is_api, price * problem.blocks.hours[None] / rps, 0.0
    )
    limit = np.array([s.unit_limit for s in problem.sources])[:, None, None]
    capacity = np.where(is_api, limit, units) * rps
    if serving is not None:
        capacity = np.where(np.asarray(serving)[:, None, None], capacity, 0.0)
    order = np.argsort(cost, axis=0, kind="stable")
    ordered = np.take_along_axis(capacity, order, axis=0)
    before = np.concatenate((np.zeros_like(ordered[:1]), np.cumsum(ordered, axis=0)[:-1]), axis=0)
    take = np.clip(problem.blocks.demand_rps[None] - before, 0.0, ordered)  # behind an unlimited API: -inf, so 0
    dispatch = np.empty_like(take)
    np.put_along_axis(dispatch, order, take, axis=0)
    held = np.where(is_api, dispatch / rps, units)
    return dispatch, held


@dataclass(frozen=True)
class PlanSolution:
    """The cheapest plan found, per source (dicts keyed by source name).

    Attributes
    ----------
    objective_usd
        Present value of every cost of the plan (its whole units with the optimal dispatch given them) [USD].
    solver_objective_usd
        The solver's own objective at its solution, before the integer units were rounded [USD].
    dual_bound_usd
        The solver's proven lower bound on the cheapest plan's present value [USD].
    relative_gap
        ``(objective - dual bound) / objective``, >= 0 [-].
    status
        ``optimal`` (within the gap asked) or ``time_limit`` (the best plan found when the time ran out).
    solve_s
        Wall time of the solver [s].
    quarter_units
        (Q,) per source: owned and reserved units held; on-demand: its most units over the quarter's blocks (the
        start-up count); spot and API: the most over the blocks [units].
    new_units
        (Q,) per source: owned racks bought that start serving in the quarter, reservations started; 0 for the
        others [units].
    block_units
        (Q, B) per source: units held in each block (the API: requests/s of its rate held) [units].
    dispatch_rps
        (Q, B) per source: requests/s carried of each block's demand [requests/s].
    cost_usd, cost_present_usd
        (Q,) per source: its cost in each quarter, as paid and at present value [USD].
    """

    objective_usd: float
    solver_objective_usd: float
    dual_bound_usd: float
    relative_gap: float
    status: str
    solve_s: float
    quarter_units: dict[str, Array] = field(default_factory=dict)
    new_units: dict[str, Array] = field(default_factory=dict)
    block_units: dict[str, Array] = field(default_factory=dict)
    dispatch_rps: dict[str, Array] = field(default_factory=dict)
    cost_usd: dict[str, Array] = field(default_factory=dict)
    cost_present_usd: dict[str, Array] = field(default_factory=dict)

    @property
    def total_cost_usd(self) -> float:
        """The plan's present value [USD] (``objective_usd``)."""
        return self.objective_usd


@dataclass(frozen=True)
class PlanCheck:
    """A plan's cost and feasibility recomputed from its units and dispatch (:func:`check_plan`).

    Attributes
    ----------
    objective_usd
        Present value of the plan's costs, recomputed [USD].
    cost_present_usd
        (Q,) per source, recomputed [USD].
    problems
        Every rule the plan breaks (empty: a feasible plan whose reported costs are its costs).
    """

    objective_usd: float
    cost_present_usd: dict[str, Array]
    problems: tuple[str, ...]

    @property
    def ok(self) -> bool:
        """No problem found."""
        return not self.problems


def check_plan(problem: PlanProblem, solution: PlanSolution, *, rtol: float = 1e-9) -> PlanCheck:
    """Recompute a plan's cost and check its feasibility from its units and dispatch alone, term by term from the
    problem's statement (not from the solver's matrices).

    Checks: whole units where the kind needs them, within ``max_units``; owned racks never sold, none bought before
    the lead time, the initial ones kept; reserved units equal to the running terms of their starts; on-demand's
    start-up count at least its units in every block; each source's dispatch within its units' capacity; each
    block's demand covered exactly; the reported costs equal to the recomputed ones within ``rtol``.
    """
    n_quarters, n_blocks = problem.shape
    b = problem.blocks
    disc = problem.discount_factor
    bad: list[str] = []
    present: dict[str, Array] = {}
    total_dispatch = np.zeros((n_quarters, n_blocks))
    tol = 1e-9
    for s in problem.sources:
        held = np.asarray(solution.block_units[s.name], dtype=float)
        quarter = np.asarray(solution.quarter_units[s.name], dtype=float)
        new = np.asarray(solution.new_units[s.name], dtype=float)
        x = np.asarray(solution.dispatch_rps[s.name], dtype=float)
        name = repr(s.name)
        if held.shape != (n_quarters, n_blocks) or x.shape != held.shape or quarter.shape != (n_quarters,):
            bad.append(f"{name}: the units and dispatch must be (quarters, blocks) arrays")
            continue
        if (held < -tol).any() or (x < -tol).any() or (new < -tol).any():
            bad.append(f"{name}: negative units or dispatch")
        if s.holding.whole and (np.abs(held - np.rint(held)) > tol).any():
            bad.append(f"{name}: {s.kind} units must be whole")
        if (held > s.unit_limit + tol).any():
            bad.append(f"{name}: more than max_units = {s.max_units} units held")
        if s.holding.per_quarter and (held != quarter[:, None]).any():
            bad.append(f"{name}: {s.kind} units must be the same in every block of a quarter")
        if s.holding is Holding.bought:
            before = np.concatenate(([float(s.initial_units)], quarter[:-1]))
            if (np.abs(new - (quarter - before)) > tol).any() or (quarter < before - tol).any():
                bad.append(f"{name}: owned racks are bought (new_units = the rise of the held units) and never sold")
            if (new[: s.lead_time_quarters] > tol).any():
                bad.append(f"{name}: racks bought before the lead time of {s.lead_time_quarters} quarters")
        if s.holding is Holding.term and (np.abs(quarter - reserved_held(s, new, n_quarters)) > tol).any():
            bad.append(f"{name}: reserved units must be the initial term plus the starts within their terms")
        if s.source_kind.startup and (quarter < held.max(axis=1) - tol).any():
            bad.append(f"{name}: the start-up count must be at least the units of every block")
        if (x > held * s.rps_per_unit * (1 + rtol) + tol).any():
            bad.append(f"{name}: carries more than its units' capacity")
        total_dispatch += x
        # the costs, from the statement: units held x hours x price, requests x price, start-ups
        if s.holding.per_quarter:
            holding = quarter * problem.quarter_hours * s.usd_per_unit_hour
        else:
            holding = (held * b.hours).sum(axis=1) * s.usd_per_unit_hour
        with np.errstate(divide="ignore", invalid="ignore"):
            requests = np.where(b.demand_rps > 0, x / b.demand_rps, 0.0) * SECONDS_PER_HOUR * b.hours * b.mean_rps
        cost = holding + requests.sum(axis=1) * s.usd_per_request
        if s.source_kind.startup:
            cost = cost + quarter * s.usd_per_unit_hour * s.startup_hours * problem.quarter_days
        present[s.name] = cost * disc
        for label, reported, recomputed in (
            ("cost_usd", solution.cost_usd[s.name], cost),
            ("cost_present_usd", solution.cost_present_usd[s.name], cost * disc),
        ):
            if not np.allclose(reported, recomputed, rtol=rtol, atol=1e-9):
                bad.append(f"{name}: reported {label} {np.round(reported, 2)} != recomputed {np.round(recomputed, 2)}")
    short = np.abs(total_dispatch - b.demand_rps) > COVER_RTOL * b.demand_rps + tol
    for q, k in zip(*np.nonzero(short), strict=True):
        bad.append(f"quarter {q}, block {k}: dispatch {total_dispatch[q, k]:.9g} != demand {b.demand_rps[q, k]:.9g}")
    objective = float(sum(float(c.sum()) for c in present.values()))
    if not math.isclose(objective, solution.objective_usd, rel_tol=rtol, abs_tol=1e-9):
        bad.append(f"objective {solution.objective_usd:.12g} != recomputed {objective:.12g}")
    return PlanCheck(objective, present, tuple(bad))
