"""Reconciling with InferenceX: its $/M tokens at a benchmark point, taken step by step to rackcost's figure.

InferenceX (SemiAnalysis's open inference benchmark) prices every benchmark point as

    $/M tokens = $/GPU-hour / (tokens per GPU per second x 3600 / 1e6)

at 100% utilisation, with a published price per GPU-hour in three tiers (:func:`price_tiers`, from the data file
``rackcost/data/inferencex_price_tiers.yaml``, read by
:mod:`rackcost.scenario.price_tiers`). rackcost answers a different question: what a fleet sized for the
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
from dataclasses import asdict, dataclass, field
from typing import Any

from rackcost.evaluation.chain import Evaluation, evaluation_for
from rackcost.evaluation.columns import BLENDED
from rackcost.model.outcomes import SystemOutcome
from rackcost.scenario.price_tiers import PriceTier, resolve_price
from rackcost.scenario.schema import Scenario
from rackcost.units import SECONDS_PER_HOUR, TOKENS_PER_MILLION

__all__ = [
    "ReconcileRow",
    "Reconciliation",
    "inferencex_usd_per_million_tokens",
    "reconcile",
]

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
        usd_per_gpu_hour / (total_tokens_per_s_per_gpu * SECONDS_PER_HOUR / TOKENS_PER_MILLION),
        usd_per_gpu_hour / (output_tokens_per_s_per_gpu * SECONDS_PER_HOUR / TOKENS_PER_MILLION),
    )


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
    if scenario.systems[index].pools is not None:
        raise ValueError(
            f"{system!r} is disaggregated (pools): it is modelled from two curves, and InferenceX prices one measured "
            "deployment; reconcile a measured disaggregated curve (performance with roles) instead"
        )
    return index


def _benchmark_index(concurrency: Any, target: float) -> int:
    """The measured point nearest ``target`` in log concurrency (the lower one on a tie)."""
    gaps = [abs(math.log(float(c) / target)) for c in concurrency]
    return min(range(len(gaps)), key=lambda k: (gaps[k], k))


def reconcile(
    scenario: Scenario | Evaluation,
    system: str | int,
    tier_or_price: str | float,
    point: float | None = None,
    output_tokens_per_s_per_gpu: float | None = None,
) -> Reconciliation:
    """InferenceX's $/M tokens for a system, and the factors that take it to rackcost's $/M accepted output tokens.

    Parameters
    ----------
    scenario
        A validated scenario (:func:`rackcost.load_scenario`), or its evaluation.
    system
        The system's name (or index in ``systems``).
    tier_or_price
        A published tier (``b200:hyperscaler-owned``, or a bare tier name when the system's name names the GPU:
        :func:`resolve_price`), or a price [USD/GPU-h].
    point
        Read InferenceX's figure at the measured point nearest this concurrency [requests]; default the one
        nearest rackcost's chosen operating point (nearest in log concurrency; the lower on a tie).
    output_tokens_per_s_per_gpu
        The benchmark's measured output throughput at that point (InferenceX's ``output_tput_per_gpu``: per decode
        GPU on a disaggregated row) [tokens/s]; default the point's imported ``output_throughput_tokens_per_s``
        (per decode GPU where ``performance.decode_accelerators_per_replica`` is given), else the nominal ISL/OSL
        split, as rackcost counts.

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
    given = scenario.given if isinstance(scenario, Evaluation) else scenario
    index = _find_system(given, system)
    spec = given.systems[index]
    usd_per_gpu_hour, label, tier = resolve_price(tier_or_price, spec.name)
    if point is not None and not (math.isfinite(point) and 1e-3 <= point <= 1e7):
        raise ValueError(f"the benchmark concurrency must be a number from 0.001 to 1e7, got {point!r}")
    if output_tokens_per_s_per_gpu is not None and not (
        math.isfinite(output_tokens_per_s_per_gpu) and 1e-3 <= output_tokens_per_s_per_gpu <= 1e10
    ):
        raise ValueError(
            "the measured output tokens/s per GPU must be a number from 0.001 to 1e10 (the schema's throughput "
            f"range), got {output_tokens_per_s_per_gpu!r}"
        )
    # only this system matters: any other the scenario cannot serve with is left out, this one must be servable
    found = evaluation_for(scenario, "reconcile", (spec.name,), warn=False)
    scenario = found.scenario
    index = [s.name for s in scenario.systems].index(spec.name)
    outcome = next(o for o in found.outcomes if o.inputs.name == spec.name)
    return _reconcile(scenario, index, outcome, usd_per_gpu_hour, label, tier, point, output_tokens_per_s_per_gpu)


def _measured_output_per_gpu(
    scenario: Scenario, index: int, outcome: SystemOutcome, k: int
) -> tuple[float, str] | None:
    """InferenceX's output tokens/s per GPU at curve point ``k`` from the point's measured output throughput.

    InferenceX divides a run's output throughput by its GPUs, and a disaggregated run's by its decode GPUs alone
    (SemiAnalysisAI/InferenceX ``utils/process_result.py`` at 77f3e680: ``output_tput_per_gpu = output_throughput
    / decode_gpus``, ``tput_per_gpu = total / (prefill_gpus + decode_gpus)``); its dashboard then prices output
    tokens as $/GPU-h / (``output_tput_per_gpu`` x 3600 / 1e6) (InferenceX-app ``lib/chart-utils.ts``,
    ``costhOutput``). So the output tokens of a disaggregated replica are charged to
    ``performance.decode_accelerators_per_replica`` GPUs, or to ``performance.roles.decode.accelerators`` where only
    the roles are given. ``None`` when the point has no measured output.
    """
    perf, hw = scenario.systems[index].hardware_blocks()
    if not perf.points:
        return None
    source_index = outcome.inputs.curve.source_index
    assert source_index is not None  # build_curve numbers the measured points; only interpolation drops it
    out = perf.points[int(source_index[k])].output_throughput_tokens_per_s
    if out is None:
        return None
    if perf.token_basis.value == "output":  # the throughput counts output tokens already: _measured_per_gpu has it
        return None
    if perf.throughput_per == "accelerator":
        return out, "measured (the point's output_throughput_tokens_per_s, per accelerator)"
    decode = perf.decode_accelerators_per_replica
    if decode is None and perf.roles is not None:  # the measured replica's decode workers' GPUs
        decode = perf.roles.decode.accelerators
    apr = hw.accelerators_per_replica
    if decode is not None:
        if decode > apr:
            raise ValueError(
                f"performance.decode_accelerators_per_replica ({decode}) exceeds hardware.accelerators_per_replica "
                f"({apr}) of {scenario.systems[index].name!r}"
            )
        return out / decode, f"measured, per decode GPU ({decode} of the replica's {apr}, as InferenceX charges them)"
    return out / apr, "measured (the point's output_throughput_tokens_per_s)"


def _measured_per_gpu(scenario: Scenario, index: int, outcome: SystemOutcome, k: int) -> tuple[float, float, str]:
    """Total and output tokens/s per GPU at curve point ``k`` as the scenario gives it (not derated).

    The output figure is the nominal ISL/OSL split of the total (or the throughput itself on an output basis).
    """
    perf, hw = scenario.systems[index].hardware_blocks()
    apr = hw.accelerators_per_replica
    isl = perf.benchmark_input_tokens or scenario.workload.input_tokens_per_request
    osl = perf.benchmark_output_tokens or scenario.workload.output_tokens_per_request
    if perf.points:
        source_index = outcome.inputs.curve.source_index
        assert source_index is not None  # build_curve numbers the measured points; only interpolation drops it
        raw = perf.points[int(source_index[k])].throughput_tokens_per_s
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


@dataclass(frozen=True)
class _PointFigures:
    """The figures of one demand point (or the day's blend) that the per-point steps are ratios of."""

    name: str
    where: str
    offered_rps: float
    accepted_rps: float
    energy_usd_per_hour: float
    final_usd_per_million_output_tokens: float


@dataclass(frozen=True)
class _Figures:
    """Every number of one reconciliation, before any sentence is made of them (:func:`_figures`)."""

    price: float
    accelerators_per_replica: int
    benchmark_osl: float
    osl: float
    derate: float
    benchmark_concurrency: float
    chosen_concurrency: float
    total_gpu: float
    nominal_out_gpu: float
    out_gpu: float
    output_basis: str
    ix_total: float
    ix_output: float
    r_bench: float
    r_chosen: float
    r_derated: float
    serving: int
    provisioned: int
    gpus: int
    sizing_name: str
    sizing_rps: float
    rent: float
    capital: float
    fixed: float
    points: list[_PointFigures]


def _per_million(usd_per_hour: float, output_tokens_per_s: float) -> float:
    """USD per million output tokens of a cost per hour spread over an output rate [USD/M tokens]."""
    return usd_per_hour / (output_tokens_per_s * SECONDS_PER_HOUR) * TOKENS_PER_MILLION


def _figures(
    scenario: Scenario, index: int, o: SystemOutcome, price: float, point: float | None, measured_output: float | None
) -> _Figures:
    """The numbers of the reconciliation: the benchmark point's, the fleet's, and each demand point's."""
    spec = scenario.systems[index]
    perf = spec.hardware_blocks()[0]
    apr = o.inputs.accelerators_per_replica
    curve = o.inputs.curve
    k = _benchmark_index(curve.concurrency, o.chosen.concurrency if point is None else point)
    total_gpu, nominal_out_gpu, output_basis = _measured_per_gpu(scenario, index, o, k)
    out_gpu = nominal_out_gpu
    if measured_output is not None:
        out_gpu, output_basis = measured_output, "measured (given)"
    elif (imported := _measured_output_per_gpu(scenario, index, o, k)) is not None:
        out_gpu, output_basis = imported
    ix_total, ix_output = inferencex_usd_per_million_tokens(total_gpu, out_gpu, price)
    osl_bench = float(perf.benchmark_output_tokens or scenario.workload.output_tokens_per_request)
    derate = float(scenario.uncertainty.throughput_derate.get(spec.provenance.provenance_class, 1.0))
    provisioned = o.provisioned_replicas
    d, m = o.demand, o.metrics
    hours = [p.hours_per_day for p in scenario.demand]
    points = [
        _PointFigures(
            p.name,
            f"{p.name}",
            float(d.offered_rps[j]),
            float(d.accepted_rps[j]),
            float(o.energy_usd_per_hour[j]),
            float(m.usd_per_million_accepted_output_tokens[0, j]),
        )
        for j, p in enumerate(scenario.demand)
    ]
    points.append(
        _PointFigures(
            BLENDED,
            "the day's mean, demand points weighted by their hours",
            sum(float(d.offered_rps[i]) * h for i, h in enumerate(hours)) / sum(hours),
            sum(float(d.accepted_rps[i]) * h for i, h in enumerate(hours)) / sum(hours),
            sum(float(o.energy_usd_per_hour[i]) * h for i, h in enumerate(hours)) / sum(hours),
            float(m.blended_usd_per_million_accepted_output_tokens[0]),
        )
    )
    return _Figures(
        price=price,
        accelerators_per_replica=apr,
        benchmark_osl=osl_bench,
        osl=float(scenario.workload.output_tokens_per_request),
        derate=derate,
        benchmark_concurrency=float(curve.concurrency[k]),
        chosen_concurrency=o.chosen.concurrency,
        total_gpu=total_gpu,
        nominal_out_gpu=nominal_out_gpu,
        out_gpu=out_gpu,
        output_basis=output_basis,
        ix_total=ix_total,
        ix_output=ix_output,
        # request rates per replica [requests/s]: at the benchmark point and the chosen point as measured, derated
        r_bench=nominal_out_gpu * apr / osl_bench,
        r_chosen=float(o.chosen.point.request_rps[0]) / derate,
        r_derated=float(o.fleet.request_rps[0, 0]),
        serving=o.serving_replicas,
        provisioned=provisioned,
        gpus=provisioned * apr,
        sizing_name=scenario.sizing_point.name,
        sizing_rps=scenario.sizing_point.arrival_rps,
        rent=price * provisioned * apr,
        capital=o.capital_usd_per_hour,
        fixed=o.fixed_opex_usd_per_hour,
        points=points,
    )


def _start_step(f: _Figures) -> _Step:
    """InferenceX's own figure, where every chain starts."""
    return _Step(
        "inferencex",
        f"InferenceX $/M output tokens at the benchmark point (concurrency {f.benchmark_concurrency:g}), "
        f"100% utilisation",
        f.ix_output,
        f"${f.price:g}/GPU-h / ({f.out_gpu:.6g} output tokens/s per GPU x 3600 / 1e6)",
    )


def _fleet_steps(f: _Figures, provenance_class: str) -> list[_Step]:
    """The steps every demand point shares: from the benchmark point to the provisioned fleet at the sizing demand."""
    apr, osl = f.accelerators_per_replica, f.osl
    return [
        _Step(
            "token_split",
            "token split: the nominal ISL/OSL share of output tokens rackcost counts with",
            f.price / (f.nominal_out_gpu * SECONDS_PER_HOUR) * TOKENS_PER_MILLION,
            f"{f.out_gpu:.6g} output tokens/s per GPU ({f.output_basis}) -> {f.nominal_out_gpu:.6g} (nominal)",
        ),
        _Step(
            "output_length",
            "output length: the workload's output tokens per request against the benchmark's",
            _per_million(f.price * apr, f.r_bench * osl),
            f"{f.benchmark_osl:g} -> {osl:g} output tokens per request",
        ),
        _Step(
            "slo_operating_point",
            "SLO: the operating point the SLO chose against the benchmark point",
            _per_million(f.price * apr, f.r_chosen * osl),
            f"concurrency {f.benchmark_concurrency:g} -> {f.chosen_concurrency:g}: "
            f"{f.r_bench:.6g} -> {f.r_chosen:.6g} requests/s per replica",
        ),
        _Step(
            "throughput_derate",
            f"throughput derate of {provenance_class} figures (uncertainty.throughput_derate)",
            _per_million(f.price * apr, f.r_derated * osl),
            f"x {f.derate:g} on throughput",
        ),
        _Step(
            "sizing_headroom",
            f"headroom at the sizing demand ({f.sizing_name}): SLO queueing, utilisation ceiling, whole replicas",
            _per_million(f.price * apr * f.serving, f.sizing_rps * osl),
            f"{f.serving:,} serving replicas x {f.r_derated:.6g} requests/s flat out for {f.sizing_rps:g} requests/s",
        ),
        _Step(
            "redundancy",
            "redundancy: replicas installed (availability, spares) against replicas serving",
            _per_million(f.rent, f.sizing_rps * osl),
            f"{f.serving:,} -> {f.provisioned:,} replicas ({f.gpus:,} GPUs, all paid for)",
        ),
    ]


def _point_steps(f: _Figures, p: _PointFigures) -> list[_Step]:
    """The steps of one demand point: its load, its accepted requests, and owning instead of renting."""
    osl, accepted = f.osl, p.accepted_rps
    own = f.capital + f.fixed + p.energy_usd_per_hour
    steps = [
        _Step(
            "utilisation",
            "utilisation: the fleet sized for the peak serves the offered load of this demand point",
            _per_million(f.rent, p.offered_rps * osl),
            f"{f.sizing_rps:g} -> {p.offered_rps:.6g} offered requests/s ({p.where})",
        ),
        _Step(
            "accepted",
            "SLO: only accepted requests count (rejected and late ones earn nothing)",
            _per_million(f.rent, accepted * osl),
            f"{p.offered_rps:.6g} offered -> {accepted:.6g} accepted requests/s",
        ),
        _Step(
            "capital",
            "owning instead of paying the $/GPU-h price: capital through the capital recovery factor",
            _per_million(f.capital, accepted * osl),
            f"${f.rent:,.2f}/h at ${f.price:g}/GPU-h -> ${f.capital:,.2f}/h capital",
        ),
        _Step(
            "fixed_opex",
            "owning: fixed opex (maintenance, software, operations, facility space)",
            _per_million(f.capital + f.fixed, accepted * osl),
            f"plus ${f.fixed:,.2f}/h",
        ),
        _Step(
            "energy",
            "owning: wall power and facility (energy at PUE)",
            _per_million(own, accepted * osl),
            f"plus ${p.energy_usd_per_hour:,.2f}/h",
        ),
    ]
    final = p.final_usd_per_million_output_tokens
    if abs(final - steps[-1].value) > RESIDUAL_TOLERANCE * abs(final):
        steps.append(
            _Step(
                "residual",
                "residual: cost lines of the system none of the factors above itemises",
                final,
                f"rackcost's total ${final * accepted * osl * SECONDS_PER_HOUR / TOKENS_PER_MILLION:,.2f}/h against "
                f"${own:,.2f}/h itemised",
            )
        )
    return steps


def _notes(f: _Figures, tier: PriceTier | None, measured_output: float | None) -> list[str]:
    """What a reader must know to read the table."""
    notes = [
        "InferenceX prices one benchmark point at 100% utilisation of every GPU; rackcost prices a fleet sized for the "
        "peak under the SLO, per accepted output token, at each demand point.",
    ]
    if f.output_basis.startswith("nominal"):
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
    return notes


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
    """The figures (:func:`_figures`), worded step by step, at each demand point and blended."""
    spec = scenario.systems[index]
    f = _figures(scenario, index, o, price, point, measured_output)
    start = _start_step(f)
    head = _fleet_steps(f, spec.provenance.provenance_class.value)
    rows: list[ReconcileRow] = []
    for p in f.points:
        final = p.final_usd_per_million_output_tokens
        if not (p.accepted_rps > 0 and math.isfinite(final)):
            raise ValueError(f"{spec.name} accepts no request at {p.name}: there is no cost per accepted token there")
        rows.extend(_chain(p.name, start, [*head, *_point_steps(f, p)]))
    return Reconciliation(
        scenario=scenario.name,
        system=spec.name,
        usd_per_gpu_hour=price,
        price_label=label,
        tier=tier,
        benchmark_concurrency=f.benchmark_concurrency,
        chosen_concurrency=f.chosen_concurrency,
        total_tokens_per_s_per_gpu=f.total_gpu,
        output_tokens_per_s_per_gpu=f.out_gpu,
        output_basis=f.output_basis,
        inferencex_usd_per_million_total_tokens=f.ix_total,
        inferencex_usd_per_million_output_tokens=f.ix_output,
        rows=rows,
        rackcost_usd_per_million_accepted_output_tokens={
            p.name: p.final_usd_per_million_output_tokens for p in f.points
        },
        notes=_notes(f, tier, measured_output),
    )
