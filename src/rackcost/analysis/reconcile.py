"""Reconciling with InferenceX: its $/M tokens at a benchmark point, taken step by step to rackcost's figure.

InferenceX (SemiAnalysis's open inference benchmark) prices every benchmark point as

    $/M tokens = $/GPU-hour / (tokens per GPU per second x 3600 / 1e6)

at 100% utilisation, with a published price per GPU-hour in three tiers (:func:`price_tiers`, from the data file
``rackcost/data/inferencex_price_tiers.yaml``). rackcost answers a different question: what a fleet sized for the
peak under a latency SLO costs per million *accepted* output tokens at each demand point. :func:`reconcile` starts
from the first figure and multiplies it by one named factor per difference until it lands exactly on the second
(docs/model.md, "Reconciling with InferenceX"):

1. token split: the benchmark's measured output share against the nominal ISL/OSL split rackcost counts with;
2. output length: the workload's OSL against the benchmark's;
3. SLO operating point: the point the SLO chose against the benchmark point;
4. throughput derate of the system's provenance class;
5. headroom at the sizing demand: SLO queueing, utilisation ceiling and whole replicas;
6. redundancy: replicas installed against replicas serving;
7. utilisation at the demand point: a fleet sized for the peak idles at quiet;
8. accepted against offered: requests the SLO rejects earn nothing;
9. owning instead of paying the $/GPU-hour price: capital through the capital recovery factor;
10. fixed opex (maintenance, software, operations, facility space);
11. wall power and facility: energy at PUE.

Each factor is a ratio of two figures the model computed, so the product of the factors and the InferenceX figure is
rackcost's own figure to rounding; a cost line none of them itemises (a payment model added later) appears as an
explicit residual row, never hidden in another factor.
"""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from rackcost.evaluation.chain import evaluate_systems
from rackcost.model.metrics import PER_MILLION
from rackcost.model.outcomes import SystemOutcome
from rackcost.scenario.schema import Scenario
from rackcost.units import SECONDS_PER_HOUR

__all__ = [
    "BLENDED",
    "DATA_DIR",
    "PRICE_TIERS_FILE",
    "PriceTier",
    "ReconcileRow",
    "Reconciliation",
    "inferencex_usd_per_million_tokens",
    "price_tiers",
    "reconcile",
    "resolve_price",
]

DATA_DIR = Path(__file__).resolve().parents[1] / "data"
"""Folder of the data files the package ships (the wheel carries it with the modules)."""

PRICE_TIERS_FILE = "inferencex_price_tiers.yaml"
"""Name of the price-tier data file in the ``rackcost.data`` folder."""

BLENDED = "blended"
"""Name of the day's blended figure beside the demand points."""

RESIDUAL_TOLERANCE = 1e-9
"""Relative gap between the itemised cost and rackcost's total above which a residual row is shown [-]."""


# ---- InferenceX's formula ----------------------------------------------------------------------------------------


def inferencex_usd_per_million_tokens(
    total_tokens_per_s_per_gpu: float, output_tokens_per_s_per_gpu: float, usd_per_gpu_hour: float
) -> tuple[float, float]:
    """InferenceX's cost per million total and output tokens at one benchmark point, at 100% utilisation.

    ``$/GPU-h / (tokens per GPU per s x 3600 / 1e6)``, as the InferenceX dashboard computes it.

    Parameters
    ----------
    total_tokens_per_s_per_gpu
        Input + output tokens per second per GPU at the point (InferenceX's ``tput_per_gpu``) [tokens/s].
    output_tokens_per_s_per_gpu
        Output tokens per second per GPU (``output_tput_per_gpu``) [tokens/s].
    usd_per_gpu_hour
        Price of one GPU-hour [USD/h].

    Returns
    -------
    usd_per_million_total_tokens, usd_per_million_output_tokens : float
        [USD/M tokens].

    Raises
    ------
    ValueError
        If a figure is not a finite number > 0.

    Examples
    --------
    At $2.00 per GPU-hour, 1,000 total and 100 output tokens/s per GPU are 3.6 M and 0.36 M tokens per GPU-hour:

    >>> [round(x, 6) for x in inferencex_usd_per_million_tokens(1000.0, 100.0, 2.0)]
    [0.555556, 5.555556]
    """
    for name, value in (
        ("total_tokens_per_s_per_gpu", total_tokens_per_s_per_gpu),
        ("output_tokens_per_s_per_gpu", output_tokens_per_s_per_gpu),
        ("usd_per_gpu_hour", usd_per_gpu_hour),
    ):
        if not (isinstance(value, int | float) and math.isfinite(value) and value > 0):
            raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
    return (
        usd_per_gpu_hour / (total_tokens_per_s_per_gpu * SECONDS_PER_HOUR / PER_MILLION),
        usd_per_gpu_hour / (output_tokens_per_s_per_gpu * SECONDS_PER_HOUR / PER_MILLION),
    )


# ---- the price tiers ---------------------------------------------------------------------------------------------


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
        An unknown tier or GPU, a bare tier for a system that names no GPU (or several), a price that is not > 0.
    """
    if not isinstance(tier_or_price, str):
        price = tier_or_price
        if isinstance(price, bool) or not isinstance(price, int | float) or not math.isfinite(price) or price <= 0:
            raise ValueError(f"the price per GPU-hour must be a finite number > 0, got {price!r}")
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


# ---- the reconciliation ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ReconcileRow:
    """One step of the reconciliation at one demand point (or ``blended``).

    Attributes
    ----------
    demand_point
        The demand point's name, or :data:`BLENDED` for the day.
    step
        Short identifier of the factor (``slo_operating_point``), the same at every demand point.
    factor
        What the factor is, in words.
    multiplier
        The running figure after this step over the one before [-].
    usd_per_million_output_tokens
        The running figure after this step [USD/M output tokens]: accepted ones from the utilisation steps on.
    detail
        The two figures the multiplier is the ratio of.
    """

    demand_point: str
    step: str
    factor: str
    multiplier: float
    usd_per_million_output_tokens: float
    detail: str


@dataclass(frozen=True)
class Reconciliation:
    """InferenceX's $/M tokens for a system, and the factors that take it to rackcost's (:func:`reconcile`).

    Attributes
    ----------
    scenario, system
        Names.
    usd_per_gpu_hour, price_label
        The price InferenceX's figure is computed at [USD/GPU-h] and how it was chosen.
    tier
        The published tier, or None for a given price.
    benchmark_concurrency, chosen_concurrency
        Concurrency of the benchmark point InferenceX's figure is read at, and of rackcost's chosen operating
        point [requests].
    total_tokens_per_s_per_gpu, output_tokens_per_s_per_gpu
        Throughput per GPU at the benchmark point, as measured (not derated) [tokens/s].
    output_basis
        Where the output throughput came from: ``measured`` or the nominal ISL/OSL split.
    inferencex_usd_per_million_total_tokens, inferencex_usd_per_million_output_tokens
        InferenceX's figures at the benchmark point [USD/M tokens].
    rows
        The steps at each demand point, then the day's blended steps.
    rackcost_usd_per_million_accepted_output_tokens
        rackcost's figure at each demand point and blended (:data:`BLENDED`) [USD/M tokens].
    notes
        What a reader must know to read the table.
    """

    scenario: str
    system: str
    usd_per_gpu_hour: float
    price_label: str
    tier: PriceTier | None
    benchmark_concurrency: float
    chosen_concurrency: float
    total_tokens_per_s_per_gpu: float
    output_tokens_per_s_per_gpu: float
    output_basis: str
    inferencex_usd_per_million_total_tokens: float
    inferencex_usd_per_million_output_tokens: float
    rows: list[ReconcileRow]
    rackcost_usd_per_million_accepted_output_tokens: dict[str, float]
    notes: list[str] = field(default_factory=list)

    def rows_at(self, demand_point: str) -> list[ReconcileRow]:
        """The steps at one demand point (or :data:`BLENDED`)."""
        return [r for r in self.rows if r.demand_point == demand_point]

    def records(self) -> list[dict[str, Any]]:
        """One plain record per row, the InferenceX figure first at each demand point (for CSV)."""
        return [asdict(r) for r in self.rows]

    def to_dict(self) -> dict[str, Any]:
        """Everything as plain JSON-ready data."""
        out = {k: v for k, v in asdict(self).items() if k not in ("rows", "tier")}
        out["tier"] = None if self.tier is None else {**asdict(self.tier), "name": self.tier.name}
        out["rows"] = self.records()
        return out


@dataclass(frozen=True)
class _Step:
    step: str
    factor: str
    value: float
    detail: str


def _chain(demand_point: str, start: _Step, steps: list[_Step]) -> list[ReconcileRow]:
    """Rows from running figures: each multiplier is a figure over the one before.

    A step whose figure is 0 (a system with no capex) is folded into the next one, so that no multiplier is 0/0
    or infinite.
    """
    rows = [ReconcileRow(demand_point, start.step, start.factor, 1.0, start.value, start.detail)]
    previous = start.value
    pending: list[_Step] = []
    for k, s in enumerate(steps):
        if s.value == 0 and k < len(steps) - 1:
            pending.append(s)
            continue
        merged = [*pending, s]
        rows.append(
            ReconcileRow(
                demand_point,
                "+".join(p.step for p in merged),
                "; ".join(p.factor for p in merged),
                s.value / previous,
                s.value,
                "; ".join(p.detail for p in merged),
            )
        )
        previous, pending = s.value, []
    return rows


def _find_system(scenario: Scenario, system: str | int) -> int:
    names = [s.name for s in scenario.systems]
    if isinstance(system, int) and not isinstance(system, bool):
        if not 0 <= system < len(names):
            raise ValueError(f"no systems[{system}]: the scenario has {len(names)} system(s)")
        return system
    if system not in names:
        raise ValueError(f"no system named {system!r}; the scenario has: {', '.join(names)}")
    index = names.index(system)
    if scenario.systems[index].api is not None:
        raise ValueError(f"{system!r} is an API system: it has no GPUs or benchmark point to reconcile")
    return index


def _benchmark_index(concurrency: Any, target: float) -> int:
    """The measured point nearest ``target`` in log concurrency (the lower one on a tie)."""
    gaps = [abs(math.log(float(c) / target)) for c in concurrency]
    return min(range(len(gaps)), key=lambda k: (gaps[k], k))


def reconcile(
    scenario: Scenario,
    system: str | int,
    tier_or_price: str | float,
    point: float | None = None,
    output_tokens_per_s_per_gpu: float | None = None,
) -> Reconciliation:
    """InferenceX's $/M tokens for a system, and the factors that take it to rackcost's $/M accepted output tokens.

    Parameters
    ----------
    scenario
        A validated scenario (:func:`rackcost.load_scenario`).
    system
        The system's name (or index in ``systems``).
    tier_or_price
        A published tier (``b200:hyperscaler-owned``, or a bare tier name when the system's name names the GPU:
        :func:`resolve_price`), or a price [USD/GPU-h].
    point
        Read InferenceX's figure at the measured point nearest this concurrency [requests]; default the one
        nearest rackcost's chosen operating point (nearest in log concurrency; the lower on a tie).
    output_tokens_per_s_per_gpu
        The benchmark's measured output throughput at that point (InferenceX's ``output_tput_per_gpu``), when
        known [tokens/s]; without it the output share follows the nominal ISL/OSL, as rackcost counts.

    Returns
    -------
    Reconciliation
        The InferenceX figures, the steps at each demand point and blended, and rackcost's figures.

    Raises
    ------
    ScenarioError
        If the scenario cannot be evaluated.
    ValueError
        An unknown system or tier, a price or concurrency that is not > 0, or a demand point where nothing is
        accepted (no cost per accepted token exists there).
    """
    index = _find_system(scenario, system)
    spec = scenario.systems[index]
    usd_per_gpu_hour, label, tier = resolve_price(tier_or_price, spec.name)
    if point is not None and not (math.isfinite(point) and point > 0):
        raise ValueError(f"the benchmark concurrency must be a finite number > 0, got {point!r}")
    if output_tokens_per_s_per_gpu is not None and not (
        math.isfinite(output_tokens_per_s_per_gpu) and output_tokens_per_s_per_gpu > 0
    ):
        raise ValueError(f"the measured output tokens/s per GPU must be > 0, got {output_tokens_per_s_per_gpu!r}")
    outcome = evaluate_systems(scenario)[index]
    return _reconcile(scenario, index, outcome, usd_per_gpu_hour, label, tier, point, output_tokens_per_s_per_gpu)


def _measured_per_gpu(scenario: Scenario, index: int, outcome: SystemOutcome, k: int) -> tuple[float, float, str]:
    """Total and output tokens/s per GPU at curve point ``k`` as the scenario gives it (not derated)."""
    spec = scenario.systems[index]
    perf = spec.performance
    apr = spec.hardware.accelerators_per_replica
    isl = perf.benchmark_input_tokens or scenario.workload.input_tokens_per_request
    osl = perf.benchmark_output_tokens or scenario.workload.output_tokens_per_request
    if perf.points:
        raw = perf.points[int(outcome.inputs.curve.source_index[k])].throughput_tokens_per_s
        per_gpu = raw if perf.throughput_per == "accelerator" else raw / apr
        basis = perf.token_basis.value
    else:  # a vendor's per-kW claim: its one point
        claim = perf.claim
        assert claim is not None  # schema: points or a claim
        per_gpu = claim.tokens_per_s_per_kw * claim.power_basis_kw_per_accelerator
        basis = claim.token_basis.value
    if basis == "total":
        return per_gpu, per_gpu * osl / (isl + osl), f"nominal split of {isl:g}/{osl:g} tokens per request"
    return per_gpu * (isl + osl) / osl, per_gpu, "measured (the scenario's throughput counts output tokens)"


def _reconcile(
    scenario: Scenario,
    index: int,
    o: SystemOutcome,
    price: float,
    label: str,
    tier: PriceTier | None,
    point: float | None,
    measured_output: float | None,
) -> Reconciliation:
    spec = scenario.systems[index]
    perf = spec.performance
    apr = o.inputs.accelerators_per_replica
    osl_bench = float(perf.benchmark_output_tokens or scenario.workload.output_tokens_per_request)
    osl = float(scenario.workload.output_tokens_per_request)
    derate = float(scenario.uncertainty.throughput_derate.get(spec.provenance.provenance_class, 1.0))
    curve = o.inputs.curve
    k = _benchmark_index(curve.concurrency, o.chosen.concurrency if point is None else point)
    total_gpu, nominal_out_gpu, output_basis = _measured_per_gpu(scenario, index, o, k)
    out_gpu = nominal_out_gpu if measured_output is None else measured_output
    if measured_output is not None:
        output_basis = "measured (given)"
    ix_total, ix_output = inferencex_usd_per_million_tokens(total_gpu, out_gpu, price)

    def per_m(usd_per_hour: float, output_tokens_per_s: float) -> float:
        return usd_per_hour / (output_tokens_per_s * SECONDS_PER_HOUR) * PER_MILLION

    # request rates per replica [requests/s]: at the benchmark point and the chosen point as measured, then derated
    r_bench = nominal_out_gpu * apr / osl_bench
    r_chosen = float(o.chosen.point.request_rps[0]) / derate
    r_derated = float(o.fleet.request_rps[0, 0])
    serving, provisioned = o.serving_replicas, o.provisioned_replicas
    gpus = provisioned * apr
    sizing_name, sizing_rps = scenario.sizing_point.name, scenario.sizing_point.arrival_rps
    rent = price * gpus
    capital, fixed = o.capital_usd_per_hour, o.fixed_opex_usd_per_hour
    d = o.demand
    hours = [p.hours_per_day for p in scenario.demand]
    m = o.metrics

    start = _Step(
        "inferencex",
        f"InferenceX $/M output tokens at the benchmark point (concurrency {float(curve.concurrency[k]):g}), "
        f"100% utilisation",
        ix_output,
        f"${price:g}/GPU-h / ({out_gpu:.6g} output tokens/s per GPU x 3600 / 1e6)",
    )
    head = [
        _Step(
            "token_split",
            "token split: the nominal ISL/OSL share of output tokens rackcost counts with",
            price / (nominal_out_gpu * SECONDS_PER_HOUR) * PER_MILLION,
            f"{out_gpu:.6g} output tokens/s per GPU ({output_basis}) -> {nominal_out_gpu:.6g} (nominal)",
        ),
        _Step(
            "output_length",
            "output length: the workload's output tokens per request against the benchmark's",
            per_m(price * apr, r_bench * osl),
            f"{osl_bench:g} -> {osl:g} output tokens per request",
        ),
        _Step(
            "slo_operating_point",
            "SLO: the operating point the SLO chose against the benchmark point",
            per_m(price * apr, r_chosen * osl),
            f"concurrency {float(curve.concurrency[k]):g} -> {o.chosen.concurrency:g}: "
            f"{r_bench:.6g} -> {r_chosen:.6g} requests/s per replica",
        ),
        _Step(
            "throughput_derate",
            f"throughput derate of {spec.provenance.provenance_class.value} figures (uncertainty.throughput_derate)",
            per_m(price * apr, r_derated * osl),
            f"x {derate:g} on throughput",
        ),
        _Step(
            "sizing_headroom",
            f"headroom at the sizing demand ({sizing_name}): SLO queueing, utilisation ceiling, whole replicas",
            per_m(price * apr * serving, sizing_rps * osl),
            f"{serving:,} serving replicas x {r_derated:.6g} requests/s flat out for {sizing_rps:g} requests/s",
        ),
        _Step(
            "redundancy",
            "redundancy: replicas installed (availability, spares) against replicas serving",
            per_m(rent, sizing_rps * osl),
            f"{serving:,} -> {provisioned:,} replicas ({gpus:,} GPUs, all paid for)",
        ),
    ]
    rows: list[ReconcileRow] = []
    rackcost_figures: dict[str, float] = {}
    points = [(p.name, j) for j, p in enumerate(scenario.demand)] + [(BLENDED, None)]
    for name, j in points:
        if j is None:
            offered = sum(float(d.offered_rps[i]) * h for i, h in enumerate(hours)) / sum(hours)
            accepted = sum(float(d.accepted_rps[i]) * h for i, h in enumerate(hours)) / sum(hours)
            energy = sum(float(o.energy_usd_per_hour[i]) * h for i, h in enumerate(hours)) / sum(hours)
            final = float(m.blended_usd_per_million_accepted_output_tokens[0])
            where = "the day's mean, demand points weighted by their hours"
        else:
            offered, accepted = float(d.offered_rps[j]), float(d.accepted_rps[j])
            energy = float(o.energy_usd_per_hour[j])
            final = float(m.usd_per_million_accepted_output_tokens[0, j])
            where = f"{name}"
        if not (accepted > 0 and math.isfinite(final)):
            raise ValueError(f"{spec.name} accepts no request at {name}: there is no cost per accepted token there")
        own = capital + fixed + energy
        steps = [
            *head,
            _Step(
                "utilisation",
                "utilisation: the fleet sized for the peak serves the offered load of this demand point",
                per_m(rent, offered * osl),
                f"{sizing_rps:g} -> {offered:.6g} offered requests/s ({where})",
            ),
            _Step(
                "accepted",
                "SLO: only accepted requests count (rejected and late ones earn nothing)",
                per_m(rent, accepted * osl),
                f"{offered:.6g} offered -> {accepted:.6g} accepted requests/s",
            ),
            _Step(
                "capital",
                "owning instead of paying the $/GPU-h price: capital through the capital recovery factor",
                per_m(capital, accepted * osl),
                f"${rent:,.2f}/h at ${price:g}/GPU-h -> ${capital:,.2f}/h capital",
            ),
            _Step(
                "fixed_opex",
                "owning: fixed opex (maintenance, software, operations, facility space)",
                per_m(capital + fixed, accepted * osl),
                f"+ ${fixed:,.2f}/h",
            ),
            _Step(
                "energy",
                "owning: wall power and facility (energy at PUE)",
                per_m(own, accepted * osl),
                f"+ ${energy:,.2f}/h",
            ),
        ]
        if abs(final - steps[-1].value) > RESIDUAL_TOLERANCE * abs(final):
            steps.append(
                _Step(
                    "residual",
                    "residual: cost lines of the system none of the factors above itemises",
                    final,
                    f"rackcost's total ${final * accepted * osl * SECONDS_PER_HOUR / PER_MILLION:,.2f}/h against "
                    f"${own:,.2f}/h itemised",
                )
            )
        rows.extend(_chain(name, start, steps))
        rackcost_figures[name] = final
    notes = [
        "InferenceX prices one benchmark point at 100% utilisation of every GPU; rackcost prices a fleet sized for the "
        "peak under the SLO, per accepted output token, at each demand point.",
    ]
    if measured_output is None and output_basis.startswith("nominal"):
        notes.append(
            "InferenceX's own output figure uses the measured output throughput (output_tput_per_gpu); without it the "
            "nominal ISL/OSL split stands in and the token-split factor is 1 (give the measured value to see it)."
        )
    if tier is not None and tier.note:
        notes.append(f"{tier.name}: {tier.note}")
    if tier is not None and "owned" in tier.tier:
        notes.append(
            f"{tier.name} is InferenceX's own TCO of owning the GPU (power and facility included); the owning "
            "factors compare rackcost's cost of ownership, itemised, against it."
        )
    return Reconciliation(
        scenario=scenario.name,
        system=spec.name,
        usd_per_gpu_hour=price,
        price_label=label,
        tier=tier,
        benchmark_concurrency=float(curve.concurrency[k]),
        chosen_concurrency=o.chosen.concurrency,
        total_tokens_per_s_per_gpu=total_gpu,
        output_tokens_per_s_per_gpu=out_gpu,
        output_basis=output_basis,
        inferencex_usd_per_million_total_tokens=ix_total,
        inferencex_usd_per_million_output_tokens=ix_output,
        rows=rows,
        rackcost_usd_per_million_accepted_output_tokens=rackcost_figures,
        notes=notes,
    )
