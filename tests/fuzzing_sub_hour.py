"""The sub-hour fuzzer: hypothesis strategies for ServeGen client folders, for the windows inside an hour, and for
demand points that carry them, and the contract each keeps.

Used by ``tests/test_fuzz_sub_hour.py`` (a small budget in CI) and ``benchmarks/fuzz_sub_hour.py`` (a large one,
with counts). Strategies:

- :func:`client_folders`: one to three client files of a few windows, each cell a number, a negative, NaN,
  infinity, huge, text or blank, rows of the wrong width, window starts that skip, repeat or differ between files.
- :func:`window_cases`: a pool (router, replicas, slots, service time, budget, miss target), a load, windows'
  ratios and two spreads of them.
- :func:`sub_hour_points`: the two-system scenario with a ``sub_hour`` on a demand point, valid or not.

Contracts: a client folder is read to finite rates and made a profile, or refused with one :class:`ServeGenError`
line that names a file or folder (never another exception). Windows accept a share in [0, 1]; more spread (the
same mean) never needs fewer replicas, never fewer than the constant rate, and the count found meets the target.
A scenario with windows evaluates to finite records in which no point accepts more than it is offered, or is
refused with a ScenarioError.
"""

from __future__ import annotations

import copy
import math
from pathlib import Path
from typing import Any

import numpy as np
import yaml
from hypothesis import strategies as st

import rackcost
from rackcost import ScenarioError
from rackcost.analysis.servegen_windows import ServeGenError, profile_of_windows, read_servegen_windows
from rackcost.model.queues import routing as routes
from rackcost.model.queues.rate_swing import RateShape, cycle_accepted_share, swing_replicas_needed
from reference import TWO_SYSTEMS, find_non_finite

BASE = yaml.safe_load(TWO_SYSTEMS.read_text(encoding="utf-8"))
CELLS = st.one_of(
    st.floats(0, 50).map(lambda x: f"{x:.4g}"),
    st.sampled_from(["-1", "nan", "inf", "-inf", "1e400", "1e9", "", "x", " 2 ", "0"]),
)


@st.composite
def client_folders(draw: st.DrawFn) -> list[list[list[str]]]:
    """Client files as rows of cells (see the module docstring): a few hostile windows, or a whole week of valid
    windows (drawn from a seed) with a few hostile cells or none."""
    clients = draw(st.integers(1, 3))
    if draw(st.booleans()):  # a week of 10-minute windows, so that a profile can be made
        rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
        out = [
            [[str(i * 600), f"{rng.uniform(0, 5):.4g}", "1.2", "Gamma", "1", "1"] for i in range(1008)]
            for _ in range(clients)
        ]
        for _ in range(draw(st.integers(0, 2))):  # hostile cells
            c, i, j = draw(st.integers(0, clients - 1)), draw(st.integers(0, 1007)), draw(st.integers(0, 2))
            out[c][i][j] = draw(CELLS)
        return out
    windows = draw(st.integers(0, 14))
    step = draw(st.sampled_from([600, 600, 600, 300, 0, 4000]))
    out = []
    for _ in range(clients):
        rows = []
        for i in range(windows):
            start = str(i * step) if draw(st.integers(0, 20)) else draw(CELLS)
            row = [start, draw(CELLS), draw(CELLS), draw(st.sampled_from(["Gamma", "Weibull", "", "x,y"])), "1", "1"]
            width = draw(st.sampled_from([6] * 12 + [5, 7, 1]))
            rows.append((row + ["1"])[:width])
        out.append(rows)
    return out


def check_client_folder(case: list[list[list[str]]], folder: Path) -> str:
    """The folder read and made a profile, or refused in one line naming a file or folder."""
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.iterdir():
        old.unlink()
    for c, rows in enumerate(case):
        (folder / f"chunk-{c}-trace.csv").write_text("".join(",".join(r) + "\n" for r in rows), encoding="utf-8")
    try:
        windows = read_servegen_windows(folder)
    except ServeGenError as exc:
        message = str(exc)
        assert "\n" not in message and message.startswith(str(folder)), message
        return "refused"
    assert np.all(np.isfinite(windows.arrival_rps)) and np.all(windows.arrival_rps >= 0)
    try:
        profile = profile_of_windows(windows)
    except ServeGenError as exc:
        assert "\n" not in str(exc) and str(folder) in str(exc)
        return "read, no profile"
    assert np.all(np.isfinite(profile.window_rps))
    return "profile"


POOLS = st.tuples(
    st.sampled_from(["pooled", "random", "least_outstanding"]),
    st.integers(1, 40),
    st.integers(1, 200),
    st.floats(0.5, 30.0),
    st.one_of(st.just(0.0), st.floats(0.01, 3.0)),
    st.sampled_from([0.01, 0.05, 0.1]),
)


def window_cases() -> st.SearchStrategy[tuple[Any, ...]]:
    """(pool, load, ratios, spread 1, spread 2)."""
    ratios = st.lists(st.floats(0.0, 3.0), min_size=2, max_size=60).filter(lambda r: sum(r) / len(r) >= 1e-6)
    return st.tuples(POOLS, st.floats(0.05, 2.0), ratios, st.floats(0.0, 1.0), st.floats(0.0, 1.0))


def shape(ratios: list[float], k: float) -> RateShape:
    """The windows with their deviations from the mean scaled by ``k``, as a :class:`RateShape`."""
    r = np.asarray(ratios) / np.mean(ratios)
    m = 1.0 + k * (r - 1.0)
    return RateShape(m, np.full(m.shape, 1.0 / m.size), np.asarray(np.any(m != m[0])), np.asarray(m.max()))


def check_windows(pool: tuple[Any, ...], load: float, ratios: list[float], k1: float, k2: float) -> str:
    """The share lies in [0, 1]; more spread never needs fewer replicas; the count meets the target."""
    routing, n, c, s, t, eps = pool
    lam = load * n * c / s
    for k in (k1, k2):
        share = float(cycle_accepted_share(routing, lam, n, float(c), s, t, eps, shape(ratios, k)))
        assert 0.0 <= share <= 1.0 + 1e-12 and math.isfinite(share), share
    lo, hi = sorted((k1, k2))
    n_lo = int(swing_replicas_needed(routing, lam, s, float(c), t, eps, shape(ratios, lo)))
    n_hi = int(swing_replicas_needed(routing, lam, s, float(c), t, eps, shape(ratios, hi)))
    assert int(routes.replicas_needed(routing, lam, s, float(c), t, eps)) <= n_lo <= n_hi, (n_lo, n_hi)
    assert float(cycle_accepted_share(routing, lam, n_hi, float(c), s, t, eps, shape(ratios, hi))) >= 1 - eps - 1e-8
    return "more replicas" if n_hi > n_lo else "same replicas"


def sub_hour_points() -> st.SearchStrategy[tuple[Any, ...]]:
    """(point index, window length [s], ratios) for the two-system scenario: mostly valid windows, or anything."""
    valid = st.sampled_from([600.0, 300.0, 900.0, 1200.0]).flatmap(
        lambda w: st.tuples(
            st.integers(0, 2),
            st.just(w),
            st.lists(st.floats(0.0, 5.0), min_size=round(3600 / w), max_size=round(3600 / w)),
        )
    )
    anything = st.tuples(
        st.integers(0, 2),
        st.sampled_from([600.0, 300.0, 900.0, 700.0, 30.0]),
        st.lists(st.one_of(st.floats(0.0, 5.0), st.sampled_from([-1.0, 1e4])), min_size=0, max_size=13),
    )
    return st.one_of(valid, valid, anything)


def check_sub_hour_point(index: int, window_s: float, ratios: list[float]) -> str:
    """Finite records where no point accepts more than offered, or a ScenarioError."""
    data = copy.deepcopy(BASE)
    data["demand"][index]["sub_hour"] = {"window_s": window_s, "rate_ratios": ratios}
    try:
        result = rackcost.evaluate(rackcost.scenario_from_dict(data))
    except ScenarioError:
        return "refused"
    assert not find_non_finite(result.records)
    for row in result.records["points"]:
        assert row["accepted_rps"] <= row["offered_rps"] * (1 + 1e-12)
    return "evaluated"
