"""The power law's section of ``docs/validation.md``: fitted on some models, tested on the others.

The curves are the ML.ENERGY leaderboard's measured board power against batch size
(``mlenergy/power_vs_batch.csv`` in the shared data folder; :mod:`rackcost.importers.power_csv` reads it, the CLI
passes it in). For each GPU: the packaged law's error on every measured point, each curve anchored at its fitted
top power, and the same law anchored at each curve's largest batch alone (what ``rackcost power check`` prints), the
error of a law refitted on a random half of the models and measured on the other half, over 20 halves (what
``rackcost power fit`` prints), and the linear law it replaced.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from rackcost.analysis.validation.sections import SectionTable, ValidationContext, ValidationSection
from rackcost.model.energy.power_law import (
    FITTED,
    LINEAR_EXPONENT,
    MEASUREMENTS_SOURCE,
    PowerCurve,
    fit_family,
    fit_for,
    mean_absolute_percentage_error,
)

__all__ = ["HELD_OUT_SPLITS", "MEASUREMENTS_FILE", "power_law_rows", "power_law_section"]

MEASUREMENTS_FILE = "mlenergy/power_vs_batch.csv"
"""Where in the shared data folder the measurements are."""
HELD_OUT_SPLITS = 20
"""Random halves of the models for the held-out error [-]."""

_HEADERS = {
    "gpu": "GPU",
    "curves": "curves",
    "points": "points",
    "exponent": "packaged exponent",
    "mape": "MAPE, packaged law",
    "top_anchored_mape": "MAPE, anchored at the largest batch",
    "refit_exponent": "refitted exponent",
    "held_out_mape": "held-out MAPE (mean of 20 halves)",
    "held_out_worst": "held-out MAPE, worst half",
    "linear_mape": "MAPE, linear law",
    "goal": "goal (held out)",
}
_FORMATS = {
    "exponent": "{:.4f}",
    "refit_exponent": "{:.4f}",
    "mape": "{:.1%}",
    "top_anchored_mape": "{:.1%}",
    "held_out_mape": "{:.1%}",
    "held_out_worst": "{:.1%}",
    "linear_mape": "{:.1%}",
    "goal": "{:.0%}",
}
_GOALS = {"H100": 0.08, "B200": 0.12}
"""The project's goals for models left out of the fit [-]."""


def power_law_rows(curves: Sequence[PowerCurve], *, seed: int = 0) -> list[dict[str, Any]]:
    """One row per GPU of ``curves``: the packaged law's error, the held-out error of a refit, the linear law's.

    Examples
    --------
    >>> import numpy as np
    >>> from rackcost.model.energy.power_law import PowerCurve
    >>> n = np.array([16.0, 64.0, 256.0])
    >>> def law(m, a):
    ...     return PowerCurve((m, "chat", "H100", "1"), "H100", "H100", n, 75 + 625 * (n / 256) ** a, 75.0)
    >>> (row,) = power_law_rows([law("a", 0.2), law("b", 0.2), law("c", 0.2)])
    >>> round(row["refit_exponent"], 3), row["held_out_mape"] < 1e-5, row["points"]
    (0.2, True, 9)
    """
    groups: dict[str, list[PowerCurve]] = defaultdict(list)
    for c in curves:
        groups[c.accelerator].append(c)
    rows: list[dict[str, Any]] = []
    for gpu, mine in sorted(groups.items()):
        law = fit_for(gpu)
        refit = fit_family(mine, gpu, splits=HELD_OUT_SPLITS, seed=seed) if len({c.key[0] for c in mine}) > 1 else None
        rows.append(
            {
                "gpu": gpu,
                "curves": len(mine),
                "points": int(sum(c.in_service.size for c in mine)),
                "exponent": law.exponent,
                "mape": mean_absolute_percentage_error(mine, law.exponent),
                "top_anchored_mape": mean_absolute_percentage_error(mine, law.exponent, top_anchored=True),
                "refit_exponent": None if refit is None else refit.exponent,
                "held_out_mape": None if refit is None else refit.mape_held_out,
                "held_out_worst": None if refit is None else refit.mape_held_out_max,
                "linear_mape": mean_absolute_percentage_error(mine, LINEAR_EXPONENT),
                "goal": _GOALS.get(gpu),
            }
        )
    return rows


def power_law_section(context: ValidationContext) -> ValidationSection:
    """The power law against the ML.ENERGY measurements (module docstring), or skipped where they are absent."""
    if not context.power_curves:
        return ValidationSection(
            "power_law",
            "",
            "skipped",
            "not measured: the ML.ENERGY measurements are absent",
            f"The measurements ({MEASUREMENTS_FILE} in the shared data folder, {context.data_label}) were not found: "
            "nothing was measured. Run `rackcost validation --data FOLDER` with the folder that holds them.",
        )
    rows = power_law_rows(context.power_curves, seed=context.seed)
    frame = pd.DataFrame(rows, columns=list(_HEADERS))
    met = {r["gpu"]: r["held_out_mape"] for r in rows if r["goal"] is not None and r["held_out_mape"] is not None}
    headline = "board power predicted from idle and a curve's fitted top power: " + ", ".join(
        f"{gpu} {float(r['mape']):.1%} (held out {float(r['held_out_mape'] or np.nan):.1%})"
        for gpu, r in ((str(r["gpu"]), r) for r in rows)
    )
    goals = "; ".join(
        f"{gpu}: {'met' if float(value) <= _GOALS[gpu] else 'not met'} ({float(value):.1%} against {_GOALS[gpu]:.0%})"
        for gpu, value in sorted(met.items())
    )
    text = [
        f"Measurements: {MEASUREMENTS_SOURCE}. Each curve (model x task x GPU x GPUs) is predicted at every measured "
        "batch by idle + (top - idle) x (n / n_top)^alpha (docs/model.md, step 7), with the GPU's idle power and "
        "the top power that fits the curve's points best (the weighted median of the tops its points imply, so one "
        "noisy point does not decide it); the error is |predicted - measured| / measured, and MAPE its mean over "
        "every point. The same law anchored at each curve's largest batch alone (the anchor a scenario's single busy "
        "figure gives) is shown beside it.",
        f"Held out: the exponent is refitted on a random half of the models and measured on the other half, "
        f"{HELD_OUT_SPLITS} halves (seed {context.seed}); a model's curves are never on both sides. The packaged "
        f"exponents are {', '.join(f'{k} {v.exponent:.4f}' for k, v in FITTED.items())}.",
        f"The project's goals on held-out models: {goals or 'no GPU with a goal in the data'}. B200's curves are not "
        "monotone (9 of 29 draw less at their largest batches than below them): a law anchored at the largest batch "
        "alone inherits that point's error at every other batch.",
    ]
    return ValidationSection(
        "power_law",
        "",
        "measured",
        headline,
        "\n\n".join(text),
        (SectionTable("Per GPU", frame, _HEADERS, _FORMATS),),
        {"measurements": f"{MEASUREMENTS_FILE} in {context.data_label}", "splits": str(HELD_OUT_SPLITS)},
    )
