"""The cheapest buying plan over a horizon of quarters, as a mixed-integer linear program solved by HiGHS
(``scipy.optimize.milp``; docs/model.md, The buying plan).

Given per-source linear figures (:class:`PlanSource`) and the demand in blocks of hours per quarter
(:func:`demand_blocks`), :func:`solve_plan` finds how many owned racks to buy in which quarter, how many
reservations to start in which quarter, and how many on-demand and spot units and how much API rate to hold in
each block, with each block's demand dispatched over them, at the lowest present value. The program is written
out in docs/model.md, "The buying plan"; :mod:`rackcost.model.buying.plan_brute` is its brute-force referee on small
instances, and :func:`check_plan` recomputes any plan's cost and feasibility from its statement.

Every name of :mod:`rackcost.model.buying.plan_problem` (the sources, blocks, problem and solution containers) is
re-exported here.
"""

from __future__ import annotations

import contextlib
import ctypes
import math
import os
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy.sparse import coo_array

from rackcost.model.buying.plan_problem import (
    COVER_RTOL,
    DemandBlocks,
    PlanCheck,
    PlanInfeasible,
    PlanProblem,
    PlanShortfall,
    PlanSolution,
    PlanSource,
    check_plan,
    coverage_shortfalls,
    demand_blocks,
    merit_order_dispatch,
    reserved_held,
)
from rackcost.model.buying.source_kinds import Holding
from rackcost.units import SECONDS_PER_HOUR

__all__ = [
    "DEFAULT_MIP_REL_GAP",
    "DemandBlocks",
    "PlanCheck",
    "PlanInfeasible",
    "PlanProblem",
    "PlanShortfall",
    "PlanSolution",
    "PlanSource",
    "PlanUnsolved",
    "best_single_source",
    "check_plan",
    "coverage_shortfalls",
    "demand_blocks",
    "merit_order_dispatch",
    "reserved_held",
    "single_source_shortfalls",
    "solve_plan",
    "solve_single_source",
    "started_units",
]

Array = NDArray[np.float64]
DEFAULT_MIP_REL_GAP = 1e-4
"""HiGHS stops when its plan is within this share of its proven lower bound [-]."""


def started_units(units: ArrayLike) -> Array:
    """Units started at each hour of a plan's schedule: those held but not held the hour before (the first hour is
    settled: its units were running before it) [units].

    A schedule is known ahead, so a unit that must load before it serves (a spot unit's refill minutes) is started
    that long before its hour and paid while it loads: its start-up cost is ``started x minutes / 60 x`` the unit's
    price per hour.

    Examples
    --------
    >>> started_units([2, 3, 3, 1, 4]).tolist()
    [0.0, 1.0, 0.0, 0.0, 3.0]
    """
    held = np.asarray(units, dtype=float).reshape(-1)
    return np.maximum(np.diff(held, prepend=held[:1]), 0.0)


class PlanUnsolved(RuntimeError):
    """The solver stopped without a plan (its time limit before a first plan, or a numerical failure)."""


@dataclass
class _Program:
    """The MILP under construction: columns (cost, bounds, integrality, whose cost they are) and rows."""

    n_quarters: int
    cost_usd: list[Array] = field(default_factory=list)
    discount: list[Array] = field(default_factory=list)
    lower: list[Array] = field(default_factory=list)
    upper: list[Array] = field(default_factory=list)
    integer: list[Array] = field(default_factory=list)
    owner: list[Array] = field(default_factory=list)  # source index x quarters + quarter: whose cost a column is
    size: int = 0
    rows: list[tuple[NDArray[np.int64], NDArray[np.int64], Array]] = field(default_factory=list)  # row, col, coef
    row_lower: list[Array] = field(default_factory=list)
    row_upper: list[Array] = field(default_factory=list)
    n_rows: int = 0

    def columns(
        self,
        source: int,
        quarter: ArrayLike,
        cost_usd: ArrayLike,
        discount: ArrayLike,
        lower: ArrayLike,
        upper: ArrayLike,
        integer: bool,
    ) -> NDArray[np.int64]:
        """Add columns of one shape (any), one per entry of ``quarter``; their indices in that shape."""
        shape = np.shape(quarter)
        n = int(np.prod(shape))
        for target, value in (
            (self.cost_usd, cost_usd),
            (self.discount, discount),
            (self.lower, lower),
            (self.upper, upper),
        ):
            target.append(np.broadcast_to(np.asarray(value, dtype=float), shape).ravel())
        self.integer.append(np.full(n, 1.0 if integer else 0.0))
        self.owner.append((source * self.n_quarters + np.asarray(quarter)).ravel())
        index = np.arange(self.size, self.size + n).reshape(shape)
        self.size += n
        return index

    def constrain(self, terms: list[tuple[NDArray[np.int64], ArrayLike]], lower: ArrayLike, upper: ArrayLike) -> None:
        """Add rows ``lower <= sum coefficient x column <= upper``, one per entry of ``lower`` (terms broadcast)."""
        shape = np.shape(lower)
        rows = np.arange(self.n_rows, self.n_rows + int(np.prod(shape))).reshape(shape)
        for column, coefficient in terms:
            r, c, k = np.broadcast_arrays(rows, column, np.asarray(coefficient, dtype=float))
            self.rows.append((r.ravel(), c.ravel(), k.ravel()))
        self.row_lower.append(np.asarray(lower, dtype=float).ravel())
        self.row_upper.append(np.broadcast_to(np.asarray(upper, dtype=float), shape).ravel())
        self.n_rows += rows.size


@dataclass(frozen=True)
class _Columns:
    """Where each source's variables are in the program (index arrays; None where the kind has none)."""

    dispatch: NDArray[np.int64]  # (Q, B)
    quarter: NDArray[np.int64] | None = None  # owned: held; reserved: held (Q,)
    starts: NDArray[np.int64] | None = None  # reserved (Q,)
    block: NDArray[np.int64] | None = None  # on-demand, spot, API units (Q, B)
    startup: NDArray[np.int64] | None = None  # on-demand start-up count (Q,)


@contextlib.contextmanager
def _silent_stdout() -> Iterator[None]:
    """File descriptor 1 pointed at the null device while HiGHS runs, then restored.

    HiGHS prints some messages with C's ``printf`` whatever its output options say (``disp=False``; its
    ``output_flag`` is not offered by ``scipy.optimize.milp``), e.g.
    ``HighsMipSolverData::transformNewIntegerFeasibleSolution tmpSolver.run();`` near a time limit, and they would
    land in a command's JSON or table on stdout. Python's ``contextlib.redirect_stdout`` only replaces
    ``sys.stdout``, not the descriptor C writes to, so the descriptor itself is redirected (``os.dup2``); both C's
    and Python's buffers are flushed before it is restored, so nothing the solver wrote leaks after. Another
    thread writing to stdout during a solve would be silenced too (rackcost prints nothing while it plans).
    """
    sys.stdout.flush()
    try:
        saved = os.dup(1)
    except OSError:  # no descriptor 1 (closed): nothing to protect
        yield
        return
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, 1)
        yield
    finally:
        _flush_c_stdout()
        os.dup2(saved, 1)
        os.close(saved)
        os.close(null)


def _flush_c_stdout() -> None:
    """Flush C's stdio buffers (``fflush(NULL)``), so that what a C library printed goes where fd 1 points now."""
    with contextlib.suppress(OSError, AttributeError, TypeError):  # no C library found: its buffers go unflushed
        ctypes.CDLL(None).fflush(None)


def _units_needed(demand_rps: Array, rps_per_unit: float) -> Array:
    """Whole units that carry ``demand_rps`` alone: more are never cheaper (every cost is >= 0) [units]."""
    return np.ceil(demand_rps / rps_per_unit)


def _build(problem: PlanProblem, only: int | None = None) -> tuple[_Program, list[_Columns]]:
    """The program; with ``only``, every other source keeps its initial units (paid) and carries nothing."""
    n_quarters, n_blocks = problem.shape
    b = problem.blocks
    disc_q = problem.discount_factor
    disc_qb = np.broadcast_to(disc_q[:, None], (n_quarters, n_blocks))
    quarter_q = np.arange(n_quarters)
    quarter_qb = np.broadcast_to(quarter_q[:, None], (n_quarters, n_blocks))
    # the dispatch in shares of each block's demand, f = x / d in [0, 1]: every block's rows on one scale whatever its
    # demand (1e-6 requests/s or 1e6), and the capacity rows tightened to it (_capacity_coefficient)
    demand = b.demand_rps
    positive = demand > 0
    safe = np.where(positive, demand, 1.0)
    requests = SECONDS_PER_HOUR * b.hours * b.mean_rps  # the block's requests served per share carried
    peak = float(b.demand_rps.max())
    program = _Program(n_quarters)
    where: list[_Columns] = []
    for i, s in enumerate(problem.sources):
        rps = s.rps_per_unit
        serves = only is None or only == i
        limit = s.unit_limit if serves else 0.0
        most = np.where(positive, 1.0, 0.0) if serves else 0.0
        x = program.columns(i, quarter_qb, s.usd_per_request * requests, disc_qb, 0.0, most, False)
        per_unit = _capacity_coefficient(rps, safe, integral=s.holding.whole)
        hold_q = s.usd_per_unit_hour * problem.quarter_hours
        hold_qb = s.usd_per_unit_hour * b.hours
        top = min(limit, float(_units_needed(np.asarray(peak), rps)))
        if s.holding is Holding.bought:
            # held racks: the initial ones, then non-decreasing from the lead time on
            held_top = max(float(s.initial_units), top)
            upper = np.where((quarter_q >= s.lead_time_quarters) & serves, held_top, float(s.initial_units))
            held = program.columns(i, quarter_q, hold_q, disc_q, float(s.initial_units), upper, True)
            if n_quarters > 1:
                program.constrain([(held[1:], 1.0), (held[:-1], -1.0)], np.zeros(n_quarters - 1), np.inf)
            program.constrain([(x, 1.0), (held[:, None], -per_unit)], np.full((n_quarters, n_blocks), -np.inf), 0.0)
            where.append(_Columns(x, quarter=held))
        elif s.holding is Holding.term:
            starts = program.columns(i, quarter_q, 0.0, disc_q, 0.0, top, True)
            held = program.columns(i, quarter_q, hold_q, disc_q, 0.0, max(limit, float(s.initial_units)), False)
            initial = np.where(quarter_q < s.term_quarters, float(s.initial_units), 0.0)
            # held_q - (starts within their term) = the initial running term
            lag = quarter_q[:, None] - quarter_q[None, :]
            in_term = (lag >= 0) & (lag < s.term_quarters)
            rows_q, cols_t = np.nonzero(in_term)
            terms: list[tuple[NDArray[np.int64], ArrayLike]] = [(held, 1.0)]
            program.constrain(terms, initial, initial)
            first_row = program.n_rows - n_quarters
            program.rows.append((first_row + rows_q, starts[cols_t], np.full(rows_q.size, -1.0)))
            program.constrain([(x, 1.0), (held[:, None], -per_unit)], np.full((n_quarters, n_blocks), -np.inf), 0.0)
            where.append(_Columns(x, quarter=held, starts=starts))
        elif s.holding is Holding.per_block:
            upper = np.minimum(limit, _units_needed(b.demand_rps, rps))
            units = program.columns(i, quarter_qb, hold_qb, disc_qb, 0.0, upper, True)
            program.constrain([(x, 1.0), (units, -per_unit)], np.full((n_quarters, n_blocks), -np.inf), 0.0)
            startup = None
            daily = s.usd_per_unit_hour * s.startup_hours * problem.quarter_days
            if s.source_kind.startup and (daily > 0).any():
                startup = program.columns(i, quarter_q, daily, disc_q, 0.0, upper.max(axis=1), False)
                program.constrain(
                    [(units, 1.0), (startup[:, None], -1.0)], np.full((n_quarters, n_blocks), -np.inf), 0.0
                )
            where.append(_Columns(x, block=units, startup=startup))
        else:  # Holding.rate (an API): a continuous rate held
            rate = program.columns(i, quarter_qb, hold_qb, disc_qb, 0.0, limit, False)
            program.constrain([(x, 1.0), (rate, -per_unit)], np.full((n_quarters, n_blocks), -np.inf), 0.0)
            where.append(_Columns(x, block=rate))
    # every block's demand carried exactly (its requests then count once in the variable cost)
    cover = np.where(positive, 1.0, 0.0)
    program.constrain([(w.dispatch, 1.0) for w in where], cover, cover)
    return program, where


def _capacity_coefficient(rps_per_unit: float, demand_rps: Array, *, integral: bool) -> Array:
    """(Q, B) share of each block's demand one unit carries: ``a / d``, cut to 1 for units held whole.

    The cut is valid for whole units (coefficient tightening of ``f <= (a / d) n``: with n >= 1 a unit carrying the
    whole block leaves ``f <= 1 <= n``), and it matters at tiny demand: HiGHS holds an integer within 1e-6 of a
    whole number, so without it a demand below 1e-6 of a unit's capacity (the floor of 1e-6 requests/s) rode on a
    unit of 1e-7 that rounds to none; with it such a unit carries 1e-7 of the block, so HiGHS holds a whole one.
    """
    share = rps_per_unit / demand_rps
    return np.minimum(share, 1.0) if integral else share


def _share(problem: PlanProblem, dispatch_rps: Array) -> Array:
    """Requests/s carried as shares of each block's demand (0 where it has none) [-]."""
    d = problem.blocks.demand_rps
    return np.where(d > 0, dispatch_rps / np.where(d > 0, d, 1.0), 0.0)


def _clean_units(problem: PlanProblem, where: list[_Columns], solution: Array) -> tuple[Array, Array]:
    """The solver's units rounded to whole ones, as (S, Q, B) held units and (S, Q) new units."""
    n_quarters, n_blocks = problem.shape
    units = np.zeros((len(problem.sources), n_quarters, n_blocks))
    new = np.zeros((len(problem.sources), n_quarters))
    for i, (s, w) in enumerate(zip(problem.sources, where, strict=True)):
        if s.holding is Holding.bought:
            assert w.quarter is not None
            held = np.maximum.accumulate(np.rint(solution[w.quarter]))
            units[i] = held[:, None]
            new[i] = np.diff(held, prepend=float(s.initial_units))
        elif s.holding is Holding.term:
            assert w.starts is not None
            new[i] = np.rint(solution[w.starts])
            units[i] = reserved_held(s, new[i], n_quarters)[:, None]
        elif s.holding is Holding.per_block:
            assert w.block is not None
            units[i] = np.rint(solution[w.block])
    return units, new


def _costs(
    problem: PlanProblem,
    program: _Program,
    where: list[_Columns],
    units: Array,
    new: Array,
    serving: NDArray[np.bool_] | None,
) -> tuple[Array, Array, Array, Array]:
    """The program's own costs at whole units and their merit-order dispatch: (dispatch, held units, cost as paid
    and at present value per source and quarter), the first two (S, Q, B), the others (S, Q)."""
    dispatch, held = merit_order_dispatch(problem, units, serving)
    value = np.zeros(program.size)
    for i, w in enumerate(where):
        value[w.dispatch] = _share(problem, dispatch[i])
        if w.quarter is not None:
            value[w.quarter] = held[i, :, 0]
        if w.starts is not None:
            value[w.starts] = new[i]
        if w.block is not None:
            value[w.block] = held[i]
        if w.startup is not None:
            value[w.startup] = held[i].max(axis=1)
    cost_usd = np.concatenate(program.cost_usd)
    cost_pv = cost_usd * np.concatenate(program.discount)
    owner = np.concatenate(program.owner).astype(np.int64)
    n_sources, size = len(problem.sources), len(problem.sources) * problem.shape[0]
    paid = np.asarray(np.bincount(owner, weights=cost_usd * value, minlength=size), dtype=float)
    present = np.asarray(np.bincount(owner, weights=cost_pv * value, minlength=size), dtype=float)
    return dispatch, held, paid.reshape(n_sources, -1), present.reshape(n_sources, -1)


def _short(problem: PlanProblem, dispatch: Array) -> Array:
    """(Q, B) demand the dispatch leaves uncovered, 0 where covered within :data:`COVER_RTOL` [requests/s]."""
    demand = problem.blocks.demand_rps
    short = demand - dispatch.sum(axis=0)
    return np.where(short > COVER_RTOL * demand + 1e-9, short, 0.0)


def _with_more(problem: PlanProblem, units: Array, new: Array, i: int, q: int, b: int, k: float) -> tuple[Array, Array]:
    """``k`` more units of source ``i`` carrying block (q, b): in the block (on-demand, spot), held from quarter q
    on (owned), or started in quarter q (reserved)."""
    s = problem.sources[i]
    units, new = units.copy(), new.copy()
    if s.holding is Holding.bought:
        held = units[i, :, 0].copy()
        held[q:] = np.maximum(held[q:], held[q] + k)
        units[i] = held[:, None]
        new[i] = np.diff(held, prepend=float(s.initial_units))
    elif s.holding is Holding.term:
        new[i, q] += k
        units[i] = reserved_held(s, new[i], problem.shape[0])[:, None]
    else:
        units[i, q, b] += k
    return units, new


def _room(problem: PlanProblem, units: Array, i: int, q: int, b: int) -> float:
    """Whole units source ``i`` may add to carry block (q, b) within its limit (and owned: from its lead time)."""
    s = problem.sources[i]
    if s.holding is Holding.rate:  # its whole rate limit is always offered (merit_order_dispatch)
        return 0.0
    if s.holding is Holding.bought:
        return 0.0 if q < s.lead_time_quarters else s.unit_limit - units[i, q, 0]
    if s.holding is Holding.term:
        return s.unit_limit - float(units[i, q : q + s.term_quarters, 0].max())
    return s.unit_limit - units[i, q, b]


def _covered(
    problem: PlanProblem,
    program: _Program,
    where: list[_Columns],
    units: Array,
    new: Array,
    serving: NDArray[np.bool_] | None,
) -> tuple[Array, Array]:
    """The rounded units, with whole units added where they leave a block short.

    HiGHS holds an integer within its feasibility tolerance (1e-6 absolute), so a block whose demand is below
    1e-6 of a unit's capacity (a flat 1e-6 requests/s, the floor) can be "covered" by a unit of 1e-7 that rounds to
    none. Each short block takes the addition of the least present cost per requests/s it covers, among the serving
    sources with room (the units it lacks, or all the room the source has): each step covers the block or exhausts
    a source's room in it, so it ends, and since :func:`coverage_shortfalls` found every block coverable by the
    sources at their most, it ends covered.
    """
    allowed = np.ones(len(problem.sources), dtype=bool) if serving is None else np.asarray(serving)
    for _ in range((len(problem.sources) + 1) * problem.blocks.demand_rps.size):
        dispatch, _, _, present = _costs(problem, program, where, units, new, serving)
        short = _short(problem, dispatch)
        if not short.any():
            return units, new
        q, b = (int(v) for v in np.argwhere(short)[0])
        base = float(present.sum())
        best: tuple[float, Array, Array] | None = None
        for i, s in enumerate(problem.sources):
            room = np.floor(_room(problem, units, i, q, b) + 1e-9) if allowed[i] else 0.0  # inf: unlimited
            if room < 1:
                continue
            k = min(float(room), max(1.0, math.ceil(short[q, b] / s.rps_per_unit * (1 - 1e-12))))
            more_units, more_new = _with_more(problem, units, new, i, q, b, k)
            cost = float(_costs(problem, program, where, more_units, more_new, serving)[3].sum()) - base
            per_rps = cost / min(k * s.rps_per_unit, float(short[q, b]))
            if best is None or per_rps < best[0]:
                best = (per_rps, more_units, more_new)
        if best is None:
            break
        units, new = best[1], best[2]
    raise PlanUnsolved("the solver's units, rounded to whole ones, leave a block short that no unit added covers")


def solve_plan(
    problem: PlanProblem, *, mip_rel_gap: float = DEFAULT_MIP_REL_GAP, time_limit_s: float | None = None
) -> PlanSolution:
    """The cheapest plan: owned racks bought per quarter, reservations started per quarter, on-demand and spot
    units and API rate per block, and the dispatch of each block's demand, at the lowest present value.

    After HiGHS, the integer units are rounded (HiGHS keeps them whole within its 1e-6 tolerance) and each block is
    re-dispatched in merit order over them (:func:`merit_order_dispatch`, optimal given the units), so the reported
    plan is exactly feasible and its costs are exactly its costs; ``solver_objective_usd`` keeps HiGHS's own.

    Parameters
    ----------
    problem
        The sources, the demand blocks and the discount factors.
    mip_rel_gap
        HiGHS stops when ``(plan - bound) / plan <= mip_rel_gap``, in [0, 1) [-].
    time_limit_s
        HiGHS stops after this wall time with its best plan so far (``status == "time_limit"``); None: no limit [s].

    Raises
    ------
    PlanInfeasible
        Some block's demand exceeds what every source together can carry (found before the solver).
    PlanUnsolved
        The solver stopped without a plan.

    Examples
    --------
    >>> blocks = DemandBlocks(hours=[[2190.0]], demand_rps=[[45.0]], mean_rps=[[45.0]])
    >>> rack = PlanSource("rack", "owned", capacity_rps_per_unit=20.0, usd_per_unit_hour=100.0)
    >>> plan = solve_plan(PlanProblem((rack,), blocks, discount_factor=[1.0]))
    >>> plan.quarter_units["rack"].tolist(), plan.objective_usd  # 3 racks x 2,190 h x $100/h
    ([3.0], 657000.0)
    """
    shortfalls = coverage_shortfalls(problem)
    if shortfalls:
        raise PlanInfeasible(shortfalls)
    return _solve(problem, None, mip_rel_gap, time_limit_s)


def _solve(problem: PlanProblem, only: int | None, mip_rel_gap: float, time_limit_s: float | None) -> PlanSolution:
    if not (isinstance(mip_rel_gap, int | float) and 0.0 <= mip_rel_gap < 1.0):
        raise ValueError(f"mip_rel_gap must be a number in [0, 1), got {mip_rel_gap!r}")
    if time_limit_s is not None and not (isinstance(time_limit_s, int | float) and time_limit_s > 0):
        raise ValueError(f"time_limit_s must be a number > 0 or None, got {time_limit_s!r}")
    program, where = _build(problem, only)
    cost_usd = np.concatenate(program.cost_usd)
    cost_pv = cost_usd * np.concatenate(program.discount)
    rows = [np.concatenate(parts) for parts in zip(*program.rows, strict=True)]
    matrix = coo_array((rows[2], (rows[0], rows[1])), shape=(program.n_rows, program.size))
    started = time.perf_counter()
    with _silent_stdout():
        result = milp(
            cost_pv,
            integrality=np.concatenate(program.integer),
            bounds=Bounds(np.concatenate(program.lower), np.concatenate(program.upper)),
            constraints=LinearConstraint(
                matrix.tocsr(), np.concatenate(program.row_lower), np.concatenate(program.row_upper)
            ),
            options={
                "disp": False,
                "mip_rel_gap": float(mip_rel_gap),
                "time_limit": math.inf if time_limit_s is None else float(time_limit_s),
            },
        )
    solve_s = time.perf_counter() - started
    if result.x is None or result.status not in (0, 1):
        raise PlanUnsolved(f"HiGHS stopped without a plan (status {result.status}): {result.message}")
    units, new = _clean_units(problem, where, np.asarray(result.x))
    serving = None if only is None else np.arange(len(problem.sources)) == only
    units, new = _covered(problem, program, where, units, new, serving)
    dispatch, held, paid, present = _costs(problem, program, where, units, new, serving)
    names = [s.name for s in problem.sources]
    quarter_units = {
        s.name: held[i, :, 0].copy() if s.holding.per_quarter else held[i].max(axis=1)
        for i, s in enumerate(problem.sources)
    }
    objective = float(present.sum())
    bound = getattr(result, "mip_dual_bound", None)
    dual_bound = float(result.fun) if bound is None or not math.isfinite(bound) else float(bound)
    gap = max(0.0, (objective - dual_bound) / objective) if objective > 0 else 0.0
    return PlanSolution(
        objective_usd=objective,
        solver_objective_usd=float(result.fun),
        dual_bound_usd=dual_bound,
        relative_gap=gap,
        status="optimal" if result.status == 0 else "time_limit",
        solve_s=solve_s,
        quarter_units=quarter_units,
        new_units={n: new[i] for i, n in enumerate(names)},
        block_units={n: held[i] for i, n in enumerate(names)},
        dispatch_rps={n: dispatch[i] for i, n in enumerate(names)},
        cost_usd={n: paid[i] for i, n in enumerate(names)},
        cost_present_usd={n: present[i] for i, n in enumerate(names)},
    )


def _alone(problem: PlanProblem, name: str) -> PlanProblem:
    return PlanProblem((problem.source(name),), problem.blocks, problem.discount_factor, problem.days)


def single_source_shortfalls(problem: PlanProblem, name: str) -> list[PlanShortfall]:
    """Every block the source called ``name`` cannot cover alone (none: :func:`solve_single_source` has a plan)."""
    return coverage_shortfalls(_alone(problem, name))


def solve_single_source(
    problem: PlanProblem, name: str, *, mip_rel_gap: float = DEFAULT_MIP_REL_GAP, time_limit_s: float | None = None
) -> PlanSolution:
    """The cheapest plan that may use only the source called ``name`` to carry demand and add units.

    The other sources' initial units (owned racks already held, reservations running) are still held and paid, as
    they are in every plan, but carry nothing: the plan compares with :func:`solve_plan` on the same commitments.

    Raises
    ------
    PlanInfeasible
        The source alone cannot cover some block (a rate-limited API, owned racks behind their lead time, ...): the
        message names the blocks and the shortfall.
    """
    shortfalls = coverage_shortfalls(_alone(problem, name))
    if shortfalls:
        raise PlanInfeasible(shortfalls, who=f"the source {name!r} alone can")
    index = [s.name for s in problem.sources].index(name)
    return _solve(problem, index, mip_rel_gap, time_limit_s)


def best_single_source(
    problem: PlanProblem, *, mip_rel_gap: float = DEFAULT_MIP_REL_GAP, time_limit_s: float | None = None
) -> tuple[str, float] | None:
    """The source that covers the demand alone (:func:`solve_single_source`) at the lowest present value, and that
    value [USD]; None when no source can cover it alone. Ties go to the source listed first."""
    best: tuple[str, float] | None = None
    for s in problem.sources:
        if coverage_shortfalls(_alone(problem, s.name)):
            continue
        cost = solve_single_source(problem, s.name, mip_rel_gap=mip_rel_gap, time_limit_s=time_limit_s).objective_usd
        if best is None or cost < best[1]:
            best = (s.name, cost)
    return best
