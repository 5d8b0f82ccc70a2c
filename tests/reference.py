"""Independent textbook formulas used as oracles by the tests (never imported from rackcost).

Each function cites where it comes from. Kept deliberately naive (plain loops, exact sums) so that it shares no
code or numerical tricks with the library.
"""

from __future__ import annotations

import math
from pathlib import Path

DATA = Path(__file__).parent / "data"
TWO_SYSTEMS = DATA / "two_systems.yaml"


def crf(rate: float, life: float) -> float:
    """Capital recovery factor A/P = r(1+r)^n / ((1+r)^n - 1), 1/n at r = 0.

    Source: Grant, Ireson & Leavenworth, Principles of Engineering Economy, 8th ed. (1990), A/P factor;
    computed here with expm1/log1p (Goldberg 1991, "What every computer scientist should know about
    floating-point arithmetic") so the reference itself does not lose digits for small r.
    """
    if rate == 0:
        return 1.0 / life
    growth_minus_1 = math.expm1(life * math.log1p(rate))
    return rate * (growth_minus_1 + 1.0) / growth_minus_1


def erlang_b(k: int, a: float) -> float:
    """Erlang B by the recursion B(0)=1, B(n) = a B(n-1) / (n + a B(n-1)).

    Source: Kleinrock (1975), Queueing Systems Vol. 1, Sec. 3.6; Iversen (2015), Teletraffic Engineering and
    Network Planning, Eq. (4.29).
    """
    b = 1.0
    for n in range(1, k + 1):
        b = a * b / (n + a * b)
    return b


def erlang_c(k: int, a: float) -> float:
    """Erlang C from Erlang B: C = k B / (k - a (1 - B)), a < k.

    Source: Iversen (2015), Eq. (9.9); Kleinrock (1975), Eq. (3.40).
    """
    if a >= k:
        return 1.0
    b = erlang_b(k, a)
    return k * b / (k - a * (1.0 - b))


def wait_exceedance(t: float, k: int, lam: float, s: float) -> float:
    """M/M/k P(W > t) = C(k, a) exp(-(k/S - lambda) t), 1 when unstable.

    Source: Kleinrock (1975), Sec. 3.5, waiting-time distribution of M/M/m; DESIGN.md section 2 step 4.
    """
    a = lam * s
    if a >= k:
        return 1.0
    return erlang_c(k, a) * math.exp(-(k / s - lam) * t)


def wait_quantile(q: float, k: int, lam: float, s: float) -> float:
    """q-quantile of the M/M/k wait: 0 when C <= 1 - q, else S/(k - a) ln(C / (1 - q)).

    Source: inverse of the Kleinrock (1975) Sec. 3.5 waiting-time distribution.
    """
    a = lam * s
    c = erlang_c(k, a)
    if c <= 1.0 - q:
        return 0.0
    return s / (k - a) * math.log(c / (1.0 - q))


def smallest_replicas(lam: float, s: float, c: int, t: float, eps: float, n_max: int = 10_000) -> int:
    """Smallest N >= 1 whose N*c slots keep P(W > t) <= eps, by linear search (DESIGN.md step 5)."""
    for n in range(1, n_max + 1):
        if n * c > lam * s and wait_exceedance(t, n * c, lam, s) <= eps:
            return n
    raise AssertionError("no replica count found")


def find_non_finite(obj: object, where: str = "result") -> list[str]:
    """Paths of every float in a nested dict/list that is NaN or infinite."""
    bad: list[str] = []
    if isinstance(obj, dict):
        for key, value in obj.items():
            bad += find_non_finite(value, f"{where}.{key}")
    elif isinstance(obj, list | tuple):
        for i, value in enumerate(obj):
            bad += find_non_finite(value, f"{where}[{i}]")
    elif isinstance(obj, float) and not math.isfinite(obj):
        bad.append(where)
    return bad
