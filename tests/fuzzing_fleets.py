"""The fuzzer of fleets as they are run: models documents (several models on one fleet) and autoscaling over a demand
profile, and the contract every outcome keeps.

Used by ``tests/test_fuzz_fleets.py`` (a small budget in CI) and ``benchmarks/fuzz_fleets.py`` (a large one, with
counts). Strategies:

- :func:`mutated_models_documents`: the bundled models documents with one to three mutations, as the scenario fuzzer
  mutates scenarios (:func:`fuzzing.mutated_scenarios`: a key deleted, a value of the wrong type, an extreme or
  scaled number, a block shared through an alias, an anchor bomb, a duplicate key);
- :func:`models_documents`: well-formed documents of random shape, built from the bundled one: one to three system
  types (racks of 1 to 18 nodes of 1 to 8 accelerators, other prices and overheads), one to four models (each one of
  the bundled models, its demand scaled by 1e-4 to 1e3, its replica size any of 1 to 144 accelerators), each naming a
  random subset of the systems, at a random placement, attribution rule and rack power limit;
- :func:`scaling_scenarios`: the weekly profile of ``tests/data/profile_week.yaml`` with a random ``fleet.scaling``
  block (delays and forecast leads from 0 to a day, minimum replicas up to 1e6, target utilisations, warm-up power),
  a random idle policy and availability, and sometimes hours of the profile at extreme rates.

Contracts:

- :func:`check_models_outcome`: the document is refused with problems, each naming the file and a YAML path (or the
  whole file), never another exception; or, under both attribution rules and both placements, every figure of both
  tables is finite or an explicit null, each model accepts no more than it is offered, every attributed cost is at
  least the model's direct cost and the models' costs add up to the fleets', shared racks are never more than the
  models' racks apart, and on separate racks each model costs what it costs alone.
- :func:`fuzzing.check_outcome` for the scaling scenarios, and on the years of the horizon: every cost, rate and lost
  rate non-negative, and no year accepting more than it is offered.
"""

from __future__ import annotations

import copy
import math
from pathlib import Path
from typing import Any

import yaml
from hypothesis import strategies as st

from fuzzing import check_problems, checked_result, mutated_scenarios
from rackcost import ScenarioError
from rackcost.evaluation.models import ModelsResult, evaluate_models
from rackcost.scenario.models_doc import models_from_dict, models_from_yaml
from rackcost.scenario.yaml_paths import parse_path
from reference import DATA, find_non_finite

MODELS_FOLDER = Path(__file__).resolve().parents[1] / "scenarios" / "models"
MODELS: dict[str, Any] = {
    path.name: yaml.safe_load(path.read_text(encoding="utf-8")) for path in sorted(MODELS_FOLDER.glob("*.yaml"))
}
"""Plain data of each bundled models document, by file name."""
PROFILE_WEEK = yaml.safe_load((DATA / "profile_week.yaml").read_text(encoding="utf-8"))
SLACK = 1e-9
"""Rounding allowed where the contract adds costs up [-]."""


def mutated_models_documents() -> st.SearchStrategy[Any]:
    """A bundled models document with one to three mutations (see :func:`fuzzing.mutated_scenarios`)."""
    return mutated_scenarios(MODELS)


@st.composite
def models_documents(draw: st.DrawFn) -> dict[str, Any]:
    """A well-formed models document of random shape (see the module docstring)."""
    base = copy.deepcopy(MODELS[sorted(MODELS)[0]])
    template = base["systems"][0]
    systems = []
    for k in range(draw(st.integers(1, 3))):
        system = copy.deepcopy(template)
        system["name"] = f"S{k}"
        hardware, costs = system["hardware"], system["costs"]
        hardware["accelerators_per_node"] = draw(st.sampled_from([1, 2, 4, 8]))
        hardware["nodes_per_rack"] = draw(st.integers(1, 18))
        hardware["rack_overhead_w"] = draw(st.sampled_from([0, 500, 8000]))
        costs["capex_usd_per_rack"] = draw(st.sampled_from([0, 10_000, 2_550_000, 1e9]))
        costs["capex_usd_per_accelerator"] = draw(st.sampled_from([0, 30_000]))
        systems.append(system)
    models = []
    for i in range(draw(st.integers(1, 4))):
        entry = copy.deepcopy(draw(st.sampled_from(base["workloads"])))
        entry["name"] = f"M{i}"
        scale = draw(st.sampled_from([1e-4, 0.01, 0.3, 1.0, 7.0, 1e3]))
        for point in entry["demand"]:
            point["arrival_rps"] = max(point["arrival_rps"] * scale, 1e-6)
        curve = entry["systems"][0]
        size = draw(st.sampled_from([None, 1, 2, 3, 4, 8, 18, 72, 144]))
        names = draw(st.lists(st.sampled_from([s["name"] for s in systems]), min_size=1, unique=True))
        entry["systems"] = []
        for name in names:
            mine = copy.deepcopy(curve)
            mine["name"] = name
            mine["accelerators_per_replica"] = size if size is not None else curve.get("accelerators_per_replica")
            if mine["accelerators_per_replica"] is None:
                del mine["accelerators_per_replica"]
            entry["systems"].append(mine)
        models.append(entry)
    base["systems"], base["workloads"], base["figures"] = systems, models, {}
    base["placement"] = draw(st.sampled_from(["shared", "separate"]))
    base["attribution"] = draw(st.sampled_from(["reservation", "usage"]))
    base["facility"]["rack_power_limit_kw"] = draw(st.sampled_from([20, 60, 140, 1000]))
    return base


def _check_result(result: ModelsResult) -> None:
    for table in (result.models, result.fleets):
        records = table.to_dict("records")
        assert find_non_finite(records) == [], find_non_finite(records)
    for row in result.models.to_dict("records"):
        assert 0.0 <= row["accepted_requests_per_day"] <= row["offered_requests_per_day"] * (1 + 1e-12), row
        assert row["shared_usd_per_day"] >= -SLACK * max(1.0, abs(row["usd_per_day"])), row
        if result.placement == "separate":
            assert math.isclose(row["usd_per_day"], row["usd_per_day_alone"], rel_tol=SLACK, abs_tol=SLACK), row
    total, attributed = float(result.fleets["usd_per_day"].sum()), float(result.models["usd_per_day"].sum())
    assert math.isclose(total, attributed, rel_tol=SLACK, abs_tol=SLACK), (total, attributed)
    assert (result.fleets["racks"] <= result.fleets["racks_apart"]).all(), result.fleets


def _in_document(data: Any, path: str) -> bool:
    """Whether a problem's YAML path names a model's or a system type's block of the document (its first two or four
    parts, ``systems[1]`` or ``workloads[0].systems[2]``, are there)."""
    loc = parse_path(path)
    head = loc[:4] if loc[:1] == ("workloads",) and loc[2:3] == ("systems",) else loc[:2]
    if head[:1] not in (("workloads",), ("systems",)):
        return False
    node = data
    for part in head:
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            return False
    return True


def check_models_outcome(document: str | dict[str, Any], file: str = "fuzz.yaml") -> str:
    """Load a models document (YAML text or plain data) and evaluate it under every rule and placement; assert the
    contract (module docstring). Returns ``ok``, ``refused`` (at load) or ``unserved`` (no system of a model can
    serve it, or a model on a system that cannot share racks)."""
    try:
        models = models_from_yaml(document, file) if isinstance(document, str) else models_from_dict(document, file)
    except ScenarioError as exc:
        check_problems(exc, file)
        return "refused"
    for rule in ("reservation", "usage"):
        for placement in ("shared", "separate"):
            try:
                result = evaluate_models(models, rule, placement)
            except ScenarioError as exc:
                check_problems(exc, file)
                data = yaml.safe_load(document) if isinstance(document, str) else document
                assert all(_in_document(data, p.path) for p in exc.problems), exc.problems
                return "unserved"
            _check_result(result)
    return "ok"


@st.composite
def scaling_scenarios(draw: st.DrawFn) -> str:
    """The weekly profile with a random ``fleet.scaling`` block, as YAML text (see the module docstring)."""
    data = copy.deepcopy(PROFILE_WEEK)
    delay = st.one_of(st.sampled_from([0, 1, 59.9, 600, 3600, 86_400]), st.floats(0, 86_400))
    scaling: dict[str, Any] = {"scale_up_delay_s": draw(delay)}
    optional = {
        "scale_down_delay_s": delay,
        "min_replicas": st.one_of(st.sampled_from([0, 1, 5, 1000, 10**6]), st.integers(0, 10**6)),
        "target_utilization_fraction": st.one_of(st.sampled_from([0.01, 0.5, 1.0]), st.floats(0.01, 1.0)),
        "forecast_lead_s": delay,
        "warmup_w_per_accelerator": st.one_of(st.sampled_from([0, 1e5]), st.floats(0, 1e5)),
    }
    for key, values in optional.items():
        if draw(st.booleans()):
            scaling[key] = draw(values)
    data["fleet"] = {"idle_policy": draw(st.sampled_from(["park", "powered"])), "scaling": scaling}
    if draw(st.booleans()):
        data["fleet"]["replica_availability_fraction"] = draw(st.sampled_from([0.5, 0.97, 1.0]))
    if draw(st.integers(0, 3)) == 0:  # some hours at extreme rates: a spike, a lull
        hours = data["demand"]["profile"]["hourly_arrival_rps"]
        spikes = draw(st.lists(st.tuples(st.integers(0, len(hours) - 1), st.sampled_from([1e-6, 5, 1e4, 1e6]))))
        for hour, rate in spikes:
            hours[hour] = rate
    return yaml.safe_dump(data, sort_keys=False)


def check_scaling_outcome(text: str, file: str = "fuzz.yaml") -> str:
    """:func:`fuzzing.checked_result` of a scaling scenario, and its years' figures (module docstring); returns
    ``ok`` or ``refused``."""
    result = checked_result(text, file)
    if result is None:
        return "refused"
    for row in result.records["years"]:
        for key in ("cost_usd", "offered_rps", "accepted_rps", "rejected_rps", "ramp_lost_rps"):
            assert row[key] is None or row[key] >= 0.0, (key, row)
        assert row["accepted_rps"] <= row["offered_rps"] * (1 + 1e-12), row
    return "ok"
