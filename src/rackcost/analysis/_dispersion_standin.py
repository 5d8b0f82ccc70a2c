"""TEMPORARY stand-in for rackcost.model.dispersion (the lead's), with its signatures; deleted once it is on main."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

DEFAULT_TIME_SCALES_S = (0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 60.0, 120.0, 300.0, 600.0, 1200.0, 3600.0)


def index_of_dispersion(arrival_s: ArrayLike, time_scales_s: ArrayLike) -> NDArray[np.float64]:
    t = np.sort(np.asarray(arrival_s, dtype=float))
    t = t - t[0]
    span = float(t[-1])
    out = []
    for w in np.asarray(time_scales_s, dtype=float):
        m = int(span // w) if w > 0 else 0
        if m < 8:
            out.append(np.nan)
            continue
        counts = np.bincount(np.minimum((t[t < m * w] / w).astype(np.int64), m - 1), minlength=m)
        out.append(counts.var() / counts.mean())
    return np.asarray(out, dtype=float)


def effective_arrival_scv(time_scales_s: ArrayLike, index: ArrayLike, service_s: float) -> float:
    w = np.asarray(time_scales_s, dtype=float)
    i = np.asarray(index, dtype=float)
    ok = np.isfinite(i)
    w, i = w[ok], i[ok]
    tau = np.geomspace(service_s * 1e-3, service_s * 30, 2000)
    idc = np.interp(np.log(tau), np.log(w), i)
    weight = tau / service_s**2 * np.exp(-tau / service_s)
    return float(np.trapezoid(idc * weight, tau) / np.trapezoid(weight, tau))
