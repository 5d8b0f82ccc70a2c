"""Measured board power against batch size, from a CSV of the ML.ENERGY leaderboard's columns.

The columns read (others are ignored): ``model``, ``task``, ``gpu``, ``num_gpus`` (accelerators per replica),
``avg_batch_size`` (measured mean requests in the batch) and ``avg_power_w_all_gpus`` (measured mean board power
summed over the replica's accelerators, W). One curve is one model x task x GPU x GPUs; a curve's points are divided
by its accelerators, so that the law (:mod:`rackcost.model.energy.power_law`) sees requests in service and power per
accelerator. Bad rows are refused with the file, the CSV line and the column: a batch or power of 0 or less, or
not a number, is not a measurement.
"""

from __future__ import annotations

import csv
import io
import math
import os
from collections import defaultdict
from collections.abc import Mapping

import numpy as np

from rackcost.files import InputFileError, describe_value, read_regular_file
from rackcost.model.energy.power_law import PowerCurve, family_of

__all__ = ["MAX_POWER_CSV_BYTES", "REQUIRED_COLUMNS", "PowerCsvError", "read_power_curves"]

MAX_POWER_CSV_BYTES = 50 * 10**6
"""Largest power CSV read [bytes] (the ML.ENERGY compilation is about 80 kB)."""
REQUIRED_COLUMNS = ("model", "task", "gpu", "num_gpus", "avg_batch_size", "avg_power_w_all_gpus")
"""The columns a power CSV must have."""


class PowerCsvError(InputFileError):
    """A power CSV that cannot be read: the message names the file, the line and the column."""


def _number(text: str, where: str, column: str, *, integer: bool = False) -> float:
    try:
        value = float(text)
    except ValueError:
        raise PowerCsvError(f"{where}: column {column}: expected a number, got {describe_value(text)}") from None
    if not math.isfinite(value) or value <= 0:
        raise PowerCsvError(f"{where}: column {column}: expected a number > 0, got {describe_value(text)}")
    if integer and value != int(value):
        got = describe_value(text)
        raise PowerCsvError(f"{where}: column {column}: expected a whole number of accelerators, got {got}")
    return value


def read_power_curves(path: str | os.PathLike[str], idle_w: Mapping[str, float]) -> list[PowerCurve]:
    """The curves of a power CSV, each with its accelerator's idle power.

    Parameters
    ----------
    path
        The CSV file.
    idle_w
        Idle power per accelerator by the CSV's ``gpu`` name (case-insensitive) [W]; a GPU without one is refused.

    Returns
    -------
    list of PowerCurve
        In the order the curves first appear, points by ascending batch.

    Raises
    ------
    PowerCsvError
        A missing column, a bad value (file, line, column), no rows, or a GPU without an idle power.
    """
    name = os.fspath(path)
    text = read_regular_file(name, MAX_POWER_CSV_BYTES, "power CSV").decode("utf-8-sig", errors="replace")
    reader = csv.DictReader(io.StringIO(text))
    missing = [c for c in REQUIRED_COLUMNS if c not in (reader.fieldnames or [])]
    if missing:
        raise PowerCsvError(
            f"{name}: missing column{'s' if len(missing) > 1 else ''} {', '.join(missing)}; "
            f"expected {', '.join(REQUIRED_COLUMNS)}"
        )
    idle = {k.upper(): float(v) for k, v in idle_w.items()}
    points: dict[tuple[str, ...], list[tuple[float, float]]] = defaultdict(list)
    gpus: dict[tuple[str, ...], str] = {}
    for row in reader:
        where = f"{name}:{reader.line_num}"
        gpu = (row["gpu"] or "").strip()
        if not gpu:
            raise PowerCsvError(f"{where}: column gpu: expected an accelerator name, got nothing")
        accelerators = _number(row["num_gpus"] or "", where, "num_gpus", integer=True)
        batch = _number(row["avg_batch_size"] or "", where, "avg_batch_size")
        power = _number(row["avg_power_w_all_gpus"] or "", where, "avg_power_w_all_gpus")
        if gpu.upper() not in idle:
            raise PowerCsvError(f"{where}: no idle power for GPU {gpu!r}; give one with --idle-w {gpu}=WATTS")
        key: tuple[str, ...] = ((row["model"] or "").strip(), (row["task"] or "").strip(), gpu, str(int(accelerators)))
        points[key].append((batch / accelerators, power / accelerators))
        gpus[key] = gpu
    if not points:
        raise PowerCsvError(f"{name}: no rows; expected one row per measured batch")
    curves = []
    for key, pts in points.items():
        pts.sort()
        n = np.array([p[0] for p in pts])
        w = np.array([p[1] for p in pts])
        gpu = gpus[key]
        curves.append(PowerCurve(key, family_of(gpu), gpu, n, w, idle[gpu.upper()]))
    return curves
