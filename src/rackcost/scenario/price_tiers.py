"""InferenceX's published prices per GPU-hour (three tiers per GPU), read from the data file the package ships,
``rackcost/data/inferencex_price_tiers.yaml``, and a tier name or a number resolved to a price.

File reading and lookup only: :mod:`rackcost.analysis.reconcile` does the arithmetic with the price, and a sweep's
payment variants (:mod:`rackcost.analysis.sweep.design`) put a tier's price into a scenario.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

__all__ = [
    "DATA_DIR",
    "MAX_USD_PER_GPU_HOUR",
    "MIN_USD_PER_GPU_HOUR",
    "PRICE_TIERS_FILE",
    "PriceTier",
    "price_tiers",
    "resolve_price",
]

DATA_DIR = Path(str(resources.files("rackcost"))) / "data"
"""Folder of the data files the package ships (the wheel carries it with the modules)."""

MIN_USD_PER_GPU_HOUR = 1e-4
"""Lowest price per GPU-hour taken [USD/GPU-h]: a hundredth of a cent; below it the factors lose their digits (a
price of 5e-324 made them infinite)."""
MAX_USD_PER_GPU_HOUR = 1e5
"""Highest price per GPU-hour taken [USD/GPU-h]: a thousand times any published rate (1e308 overflowed)."""

PRICE_TIERS_FILE = "inferencex_price_tiers.yaml"
"""Name of the price-tier data file in the ``rackcost.data`` folder."""


@dataclass(frozen=True)
class PriceTier:
    """One of InferenceX's published prices: a GPU at a tier.

    Attributes
    ----------
    gpu
        InferenceX's base GPU key (``b200``, ``gb200``, ``mi355x``...).
    tier
        ``hyperscaler-owned``, ``neocloud-owned`` or ``rental-3-year``.
    usd_per_gpu_hour
        The price [USD/GPU-h].
    meaning
        What the tier stands for.
    publisher, document, date
        Where the figure was published.
    provenance
        rackcost's provenance class of the figure (``independent``: SemiAnalysis is independent of the vendors).
    tag
        docs/sources.md's tag (``E`` estimate, ``D`` derived).
    note
        Where the figure departs from the others (a temporary price), or None.
    """

    gpu: str
    tier: str
    usd_per_gpu_hour: float
    meaning: str
    publisher: str
    document: str
    date: str
    provenance: str
    tag: str
    note: str | None = None

    @property
    def name(self) -> str:
        """``gpu:tier``, the name ``--tier`` takes."""
        return f"{self.gpu}:{self.tier}"

    @property
    def source(self) -> str:
        """Publisher, document and date in one line."""
        return f"{self.publisher}, {self.document}, {self.date}"


def _bad(file: str, path: str, expected: str, got: Any) -> ValueError:
    return ValueError(f"{file}: {path}: expected {expected}, got {got!r}")


def _text(data: dict[str, Any], key: str, file: str, path: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value.strip():
        raise _bad(file, f"{path}{key}", "non-empty text", value)
    return value


def _mapping(value: Any, file: str, path: str) -> dict[str, Any]:
    if not isinstance(value, dict) or not value:
        raise _bad(file, path, "a mapping", value)
    return value


def _parse_tiers(data: Any, file: str) -> dict[str, PriceTier]:
    root = _mapping(data, file, "(top level)")
    source = _mapping(root.get("source"), file, "source")
    publisher, document = _text(source, "publisher", file, "source."), _text(source, "document", file, "source.")
    date = _text(source, "date", file, "source.")
    provenance, tag = _text(root, "provenance", file, ""), _text(root, "tag", file, "")
    meanings = _mapping(root.get("tiers"), file, "tiers")
    out: dict[str, PriceTier] = {}
    for gpu, entry in _mapping(root.get("gpus"), file, "gpus").items():
        entry = _mapping(entry, file, f"gpus.{gpu}")
        prices = _mapping(entry.get("usd_per_gpu_hour"), file, f"gpus.{gpu}.usd_per_gpu_hour")
        for tier, price in prices.items():
            path = f"gpus.{gpu}.usd_per_gpu_hour.{tier}"
            if tier not in meanings:
                raise _bad(file, path, f"a tier named under tiers ({', '.join(meanings)})", tier)
            if isinstance(price, bool) or not isinstance(price, int | float) or not math.isfinite(price) or price <= 0:
                raise _bad(file, path, "a price > 0 [USD/GPU-h]", price)
            out[f"{gpu}:{tier}"] = PriceTier(
                gpu=str(gpu),
                tier=str(tier),
                usd_per_gpu_hour=float(price),
                meaning=str(meanings[tier]),
                publisher=publisher,
                document=document,
                date=str(date),
                provenance=provenance,
                tag=str(entry.get("tag", tag)),
                note=entry.get("note"),
            )
    return out


@lru_cache(maxsize=4)
def _load_tiers(path: str | None) -> dict[str, PriceTier]:
    file = path if path is not None else PRICE_TIERS_FILE
    try:
        text = Path(path if path is not None else DATA_DIR / PRICE_TIERS_FILE).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"{file}: cannot read: {getattr(exc, 'strerror', None) or exc}") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ValueError(f"{file}: not valid YAML: {str(exc).splitlines()[0]}") from None
    return _parse_tiers(data, file)


def price_tiers(path: str | Path | None = None) -> dict[str, PriceTier]:
    """InferenceX's published price tiers, by name (``b200:hyperscaler-owned``).

    Parameters
    ----------
    path
        A tier file of the same form; default the one the package ships (``rackcost/data/{PRICE_TIERS_FILE}``).

    Returns
    -------
    dict of str to PriceTier
        Every GPU's tiers, with their source and provenance.

    Raises
    ------
    ValueError
        If the file is not of the expected form (one line naming the file, the YAML path and what was expected).

    Examples
    --------
    >>> price_tiers()["b200:hyperscaler-owned"].usd_per_gpu_hour
    1.95
    """
    return dict(_load_tiers(None if path is None else str(path)))


def _words(text: str) -> set[str]:
    return set(re.split(r"[^a-z0-9]+", text.lower())) - {""}


def resolve_price(tier_or_price: str | float, system_name: str = "") -> tuple[float, str, PriceTier | None]:
    """The $/GPU-hour a tier name or a number stands for.

    Parameters
    ----------
    tier_or_price
        ``GPU:TIER`` (``b200:neocloud-owned``; ``/`` or a space also separate them, case does not matter), a bare
        ``TIER`` when ``system_name`` names exactly one InferenceX GPU as a word (``DGX B200`` -> ``b200``), or a
        price [USD/GPU-h].
    system_name
        The system the price is for, to find the GPU of a bare tier name.

    Returns
    -------
    usd_per_gpu_hour, label, tier
        The price [USD/GPU-h], how to name it, and the tier (None for a number).

    Raises
    ------
    ValueError
        An unknown tier or GPU, a bare tier for a system that names no GPU (or several), a price outside
        :data:`MIN_USD_PER_GPU_HOUR` to :data:`MAX_USD_PER_GPU_HOUR`.
    """
    if not isinstance(tier_or_price, str):
        price = tier_or_price
        if (
            isinstance(price, bool)
            or not isinstance(price, int | float)
            or not math.isfinite(price)
            or not MIN_USD_PER_GPU_HOUR <= price <= MAX_USD_PER_GPU_HOUR
        ):
            raise ValueError(
                f"the price per GPU-hour must be a number from {MIN_USD_PER_GPU_HOUR:g} to {MAX_USD_PER_GPU_HOUR:g} "
                f"[USD/GPU-h], got {price!r}"
            )
        return float(price), f"${float(price):g} per GPU-hour (given)", None
    tiers = price_tiers()
    gpus = sorted({t.gpu for t in tiers.values()})
    tier_names = list(dict.fromkeys(t.tier for t in tiers.values()))
    text = tier_or_price.strip().lower()
    parts = [p for p in re.split(r"[:/\s]+", text) if p]
    if len(parts) == 1 and parts[0] in tier_names:
        named = sorted(_words(system_name) & set(gpus))
        if len(named) != 1:
            which = "names no InferenceX GPU" if not named else f"names several ({', '.join(named)})"
            raise ValueError(
                f"tier {tier_or_price!r}: the system {system_name!r} {which}; give GPU:TIER, e.g. "
                f"{gpus[0]}:{parts[0]} (GPUs: {', '.join(gpus)})"
            )
        parts = [named[0], parts[0]]
    key = ":".join(parts)
    if len(parts) != 2 or key not in tiers:
        gpu_ok = len(parts) == 2 and parts[0] in gpus
        hint = (
            f"{parts[0]} has {', '.join(t.tier for t in tiers.values() if t.gpu == parts[0])}"
            if gpu_ok
            else f"GPUs: {', '.join(gpus)}; tiers: {', '.join(tier_names)}"
        )
        raise ValueError(f"unknown price tier {tier_or_price!r}: give GPU:TIER ({hint})")
    tier = tiers[key]
    return tier.usd_per_gpu_hour, f"InferenceX {tier.name} ${tier.usd_per_gpu_hour:g} per GPU-hour", tier
