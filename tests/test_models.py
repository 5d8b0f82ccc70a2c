"""Several models on one fleet (docs/model.md, "Several models, one fleet"): the models document, the packing of
their nodes onto shared racks, the attribution of the racks' cost, the simulator serving each model, the command."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import rackcost
from rackcost.cli import app
from rackcost.errors import ScenarioError
from rackcost.evaluation.models import evaluate_models, rack_day
from rackcost.model.costs.finance import capital_recovery_factor
from rackcost.model.fleets.shared import attributed_usd, shared_racks
from rackcost.scenario.loading import A_MODELS_DOCUMENT
from rackcost.scenario.models_doc import models_from_dict, models_from_yaml
from rackcost.units import HOURS_PER_DAY, HOURS_PER_YEAR, MONTHS_PER_YEAR
from scenario_leaves import numeric_leaves

ROOT = Path(__file__).resolve().parents[1]
BUNDLED = ROOT / "scenarios" / "models" / "deepseek-r1-and-gpt-oss-120b-on-gb200.yaml"
runner = CliRunner()


def _data() -> dict[str, Any]:
    return yaml.safe_load(BUNDLED.read_text(encoding="utf-8"))


def _evaluate(data: dict[str, Any], rule: Any = None, placement: str | None = None) -> Any:
    return evaluate_models(models_from_dict(data, "two.yaml"), rule, placement)


@pytest.fixture(scope="module")
def bundled() -> dict[str, Any]:
    return {rule: evaluate_models(str(BUNDLED), rule) for rule in ("reservation", "usage")}


# ---- the document ------------------------------------------------------------------------------------------------


def test_the_bundled_document_gives_each_model_its_cost_per_accepted_request(bundled):
    models = bundled["reservation"].models
    assert list(models["model"]) == ["DeepSeek R1", "GPT-OSS 120B"]
    assert (models["system"] == "GB200 NVL72").all()
    assert (models["blended_usd_per_accepted_request"] > 0).all()
    assert bundled["reservation"].rule == "reservation"  # the document's attribution, itself the default


def test_a_model_alone_is_the_single_workload_scenario_it_came_from():
    """DeepSeek R1's figures and the GB200 NVL72 block are those of deepseek-r1-b200-vs-gb200-inferencex.yaml: its
    day alone is that scenario's GB200 NVL72 row, to the last digit (the same chain runs both)."""
    result = evaluate_models(str(BUNDLED))
    single = rackcost.evaluate(rackcost.load_scenario("deepseek-r1-b200-vs-gb200-inferencex"))
    row = single.systems.set_index("system").loc["GB200 NVL72"]
    mine = result.models.set_index("model").loc["DeepSeek R1"]
    assert mine["usd_per_day_alone"] == row["usd_per_day"]
    assert mine["accepted_requests_per_day"] == row["accepted_requests_per_day"]


def test_one_rack_costs_the_closed_form_a_day():
    """Rack capex with networking (2.55 M USD x 1.13) at the capital recovery factor of 8% over 5 years, 4%
    maintenance, 60,000 USD of operations a year, colocation of 190 USD per kW-month on the 8 kW overhead, and the
    overhead's energy at PUE 1.15 and 0.081 USD/kWh (the bundled document's figures)."""
    fleet = evaluate_models(str(BUNDLED)).fleet_models[0]
    capex = 2_550_000 * 1.13
    per_year = capex * float(capital_recovery_factor(0.08, 5)) + capex * 0.04 + 60_000 + 8 * 190 * MONTHS_PER_YEAR
    expected = per_year / HOURS_PER_YEAR * HOURS_PER_DAY + 8 * 1.15 * 0.081 * HOURS_PER_DAY
    usd, kwh = rack_day(fleet.evaluation, fleet.outcome)
    assert usd == pytest.approx(expected, rel=1e-12)
    assert kwh == pytest.approx(8 * 1.15 * HOURS_PER_DAY, rel=1e-12)


@pytest.mark.parametrize("rule", ["reservation", "usage"])
@pytest.mark.parametrize("placement", ["shared", "separate"])
def test_the_models_costs_add_up_to_the_fleets(rule, placement):
    """Each model's direct cost plus its share is its total; the models' totals are the fleet's, which is the models'
    days alone less the racks the sharing saves (closed form)."""
    result = evaluate_models(str(BUNDLED), rule, placement)
    models, fleet = result.models, result.fleets.iloc[0]
    assert models["usd_per_day"].sum() == pytest.approx(fleet["usd_per_day"], rel=1e-12)
    assert fleet["direct_usd_per_day"] + fleet["shared_usd_per_day"] == pytest.approx(fleet["usd_per_day"], rel=1e-12)
    saved = (fleet["racks_apart"] - fleet["racks"]) * fleet["rack_usd_per_day"]
    assert fleet["usd_per_day"] == pytest.approx(models["usd_per_day_alone"].sum() - saved, rel=1e-12)
    assert (models["shared_usd_per_day"] >= 0).all()


def test_sharing_saves_whole_racks_when_both_models_leave_a_rack_part_full():
    """DeepSeek R1 on 8-GPU replicas (102 trays: 12 in its last rack) and GPT-OSS 120B at a 2,500 rps peak (111
    trays: 3 in its last rack): together they fill one rack fewer, and the fleet's day is one rack's day less."""
    data = _data()
    data["workloads"][0]["systems"][0]["accelerators_per_replica"] = 8
    data["workloads"][0]["systems"][0]["memory"]["kv_cache_copies"] = 8
    data["workloads"][1]["demand"][2]["arrival_rps"] = 2500
    result = _evaluate(data)
    fleet = result.fleets.iloc[0]
    nodes = result.models["nodes"]
    assert fleet["racks"] == -(-nodes.sum() // 18)
    assert fleet["racks_apart"] == sum(-(-n // 18) for n in nodes)
    assert fleet["racks"] == fleet["racks_apart"] - 1
    assert fleet["usd_per_day_apart"] - fleet["usd_per_day"] == pytest.approx(fleet["rack_usd_per_day"], rel=1e-9)


def test_a_model_whose_demand_is_a_profile_is_priced_on_its_named_points_day():
    """A model's demand may be an hourly profile (here the three-year buying plan's): its day is its scenario's
    named points' (as `rackcost evaluate`'s systems table), and the sums still hold."""
    data = _data()
    plan = yaml.safe_load((ROOT / "scenarios" / "deepseek-r1-three-year-buying-plan.yaml").read_text(encoding="utf-8"))
    data["workloads"][0]["demand"] = plan["demand"]
    data["figures"] = {k: v for k, v in data["figures"].items() if not k.startswith("workloads[0].demand")}
    result = _evaluate(data)
    single = rackcost.evaluate(result.fleet_models[0].evaluation.scenario).systems.iloc[0]
    assert result.models["usd_per_day_alone"].iloc[0] == single["usd_per_day"]
    assert result.models["usd_per_day"].sum() == pytest.approx(result.fleets["usd_per_day"].sum(), rel=1e-12)
    assert np.isfinite(result.models.select_dtypes("number").to_numpy()).all()


def test_the_shared_fleets_day_is_the_fleet_costed_whole():
    """The shared fleet costed as one fleet with the finance functions (its accelerators, nodes and shared racks;
    provisioned kW less the overheads of the racks saved) plus its energy (the models' less the saved racks'
    overhead) is the fleet's day the decomposition gives."""
    from rackcost.model.costs import finance

    data = _data()
    data["workloads"][0]["systems"][0]["accelerators_per_replica"] = 8
    data["workloads"][0]["systems"][0]["memory"]["kv_cache_copies"] = 8
    data["workloads"][1]["demand"][2]["arrival_rps"] = 2500
    result = _evaluate(data)
    fleet = result.fleets.iloc[0]
    outcomes = [m.outcome for m in result.fleet_models]
    saved = int(fleet["racks_apart"] - fleet["racks"])
    accelerators = sum(int(o.fleet.provisioned_replicas[0, 0]) * o.inputs.accelerators_per_replica for o in outcomes)
    nodes, racks = int(fleet["nodes"]), int(fleet["racks"])
    provisioned_kw = sum(float(o.fleet.provisioned_it_kw[0, 0]) for o in outcomes) - saved * 8.0
    capex = finance.fleet_capex_usd(accelerators, nodes, racks, 0.0, 0.0, 2_550_000.0, 0.13)
    per_hour = finance.capital_usd_per_hour(capex, 0.08, 5) + finance.fixed_opex_usd_per_hour(
        capex, 0.04, accelerators, 0.0, racks, 60_000.0, provisioned_kw, 190.0, 0.0, 0.08, 20.0
    )
    energy_kwh = sum(float(o.metrics.facility_energy_kwh_per_day[0]) for o in outcomes)
    energy_kwh -= saved * 8.0 * 1.15 * HOURS_PER_DAY
    expected = float(per_hour) * HOURS_PER_DAY + energy_kwh * 0.081
    assert saved == 1
    assert fleet["usd_per_day"] == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("rule", ["reservation", "usage"])
def test_two_identical_models_split_the_shared_racks_half_and_half(rule):
    data = _data()
    twin = copy.deepcopy(data["workloads"][1])
    twin["name"] = "GPT-OSS 120B, twin"
    data["workloads"] = [data["workloads"][1], twin]
    data["figures"] = {k: v for k, v in data["figures"].items() if not k.startswith("workloads")}
    models = _evaluate(data, rule).models
    assert models["shared_usd_per_day"].iloc[0] == pytest.approx(models["shared_usd_per_day"].iloc[1], rel=1e-12)
    fleet_shared = models["shared_usd_per_day"].sum()
    assert models["shared_usd_per_day"].iloc[0] == pytest.approx(fleet_shared / 2, rel=1e-12)


def test_every_figure_of_the_bundled_document_has_a_source_and_provenance():
    data = _data()
    figures = data["figures"]
    body = {k: v for k, v in data.items() if k != "figures"}
    uncovered = [
        leaf
        for leaf in numeric_leaves(body)
        if not any(leaf == key or leaf.startswith((key + ".", key + "[")) for key in figures)
    ]
    assert uncovered == []
    for key, figure in figures.items():
        assert figure["provenance"] in {"vendor", "collaborative", "independent", "assumption"}, key
        assert figure["source"], key
        if figure["provenance"] == "assumption":
            assert figure.get("why"), key


def test_each_models_scenario_carries_the_documents_figures_at_its_own_paths():
    _, models = rackcost.load_models(str(BUNDLED))
    gpt = models[1].scenario
    assert gpt.figures["systems[0].hardware.accelerators_per_replica"].provenance == "assumption"
    assert gpt.figures["systems[0].costs.capex_usd_per_rack"].provenance == "independent"
    assert "systems[0].memory.kv_cache_copies" not in gpt.figures  # DeepSeek R1's, not GPT-OSS 120B's
    assert models[0].scenario.figures["systems[0].memory.kv_cache_copies"].provenance == "assumption"


# ---- the numeric core: closed forms and properties ---------------------------------------------------------------


@given(
    st.lists(st.integers(0, 10_000), min_size=1, max_size=6),
    st.integers(1, 72),
)
def test_shared_racks_never_need_more_racks_than_the_models_apart(nodes, per_rack):
    together = int(shared_racks(nodes, per_rack))
    apart = sum(-(-n // per_rack) for n in nodes)
    assert together <= apart
    assert together * per_rack >= sum(nodes) > (together - 1) * per_rack or sum(nodes) == together == 0


@given(
    st.lists(st.floats(0, 1e6), min_size=1, max_size=6),
    st.floats(0, 1e7),
    st.lists(st.floats(0, 1e6), min_size=6, max_size=6),
)
def test_attributed_shares_are_non_negative_and_add_up_to_the_total(direct, shared, weights):
    got = attributed_usd(direct, shared, weights[: len(direct)])
    assert np.all(got - np.asarray(direct) >= 0)
    assert float(np.sum(got)) == pytest.approx(sum(direct) + shared, rel=1e-9, abs=1e-6)


def test_attribution_by_hand():
    assert attributed_usd([10.0, 20.0], 30.0, [1.0, 2.0]).tolist() == [20.0, 40.0]
    assert attributed_usd([1.0, 1.0], 4.0, [0.0, 0.0]).tolist() == [3.0, 3.0]  # nothing used: split equally
    with pytest.raises(ValueError, match="non-negative"):
        attributed_usd([1.0], 1.0, [-1.0])


@settings(max_examples=6, deadline=None)
@given(st.floats(1.0, 3.0))
def test_more_demand_for_one_model_never_lowers_the_fleets_total(factor):
    base = _data()
    more = copy.deepcopy(base)
    for point in more["workloads"][1]["demand"]:
        point["arrival_rps"] = point["arrival_rps"] * factor
    more["figures"] = {k: v for k, v in more["figures"].items() if "arrival_rps" not in k}
    before = _evaluate(base).fleets["usd_per_day"].sum()
    after = _evaluate(more).fleets["usd_per_day"].sum()
    assert after >= before


# ---- the simulator -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("sizing", [None, "normal"])
def test_the_simulator_agrees_on_each_models_accepted_share_within_2_points(sizing):
    """As bundled (every request accepted) and sized for the normal hour (the peak over capacity: admission
    control sheds about a tenth of each model's day)."""
    from rackcost.analysis.models_sim import simulate_models

    data = _data()
    if sizing is not None:
        data["fleet"]["sizing_demand_point"] = sizing
    result = _evaluate(data)
    sim = simulate_models(result, requests=30_000, replications=2, seed=1)
    assert list(sim["model"]) == list(result.models["model"])
    assert np.allclose(sim["analytic_accepted_fraction"], result.models["accepted_fraction"], rtol=1e-9)
    assert (sim["difference_points"].abs() <= 2.0).all(), sim
    if sizing is not None:
        assert (result.models["accepted_fraction"] < 0.95).all()


# ---- bad input ---------------------------------------------------------------------------------------------------


def _problems(data: Any) -> list[str]:
    with pytest.raises(ScenarioError) as caught:
        models_from_dict(data, "two.yaml")
    return [str(p) for p in caught.value.problems]


def test_a_system_name_no_system_has_is_refused_at_its_path():
    data = _data()
    data["workloads"][1]["systems"][0]["name"] = "GB300 NVL72"
    (problem,) = _problems(data)
    assert problem.startswith("two.yaml: workloads[1].systems[0].name: no system of that name")
    assert "'GB200 NVL72'" in problem


@pytest.mark.parametrize("name", [{"a": 1}, [1], 5, None, True, ""])
def test_a_shared_system_whose_name_is_not_text_is_refused_at_its_name(name: Any):
    # a mapping or a list was a TypeError (unhashable) before; a number or null was blamed on the models naming it
    data = _data()
    data["systems"][0]["name"] = name
    problems = _problems(data)
    assert problems and all(p.startswith("two.yaml: systems[0].name: must ") for p in problems), problems


def test_two_shared_systems_of_one_name_are_refused():
    # the models ran on whichever came last, silently
    data = _data()
    data["systems"].append(copy.deepcopy(data["systems"][0]))
    data["systems"][1]["hardware"]["nodes_per_rack"] = 9
    (problem,) = _problems(data)
    assert problem == "two.yaml: systems: system names must differ; given twice: ['GB200 NVL72']"


def test_a_model_naming_a_system_twice_is_refused_at_its_own_list():
    data = _data()
    data["workloads"][1]["systems"].append(copy.deepcopy(data["workloads"][1]["systems"][0]))
    problems = _problems(data)
    expected = "two.yaml: workloads[1].systems: system names must be unique"
    assert problems and all(p.startswith(expected) for p in problems), problems


def test_a_shared_systems_problem_every_model_finds_is_said_once():
    data = _data()
    data["systems"][0]["hardware"]["nodes_per_rack"] = -3
    problems = _problems(data)
    assert len(problems) == len(set(problems)) == 1, problems


def test_a_system_no_model_names_is_a_warning_and_changes_nothing():
    data = _data()
    data["systems"].append({"name": "B200 spare", "hardware": "not evaluated"})
    with_spare, without = _evaluate(data), _evaluate(_data())
    assert with_spare.warnings[0] == (
        "systems[1] ('B200 spare'): no model names it under its `systems`, so it is not evaluated"
    )
    assert with_spare.warnings[1:] == without.warnings
    assert with_spare.models.equals(without.models) and with_spare.fleets.equals(without.fleets)


def test_a_model_none_of_whose_systems_can_serve_it_is_refused_at_the_documents_paths():
    # the reasons were at the paths of the model's own scenario: its systems[0] was the document's systems[1]
    data = _data()
    hot = copy.deepcopy(data["systems"][0])
    hot["name"] = "GB200 NVL72 (hot)"
    hot["hardware"]["accelerator_rated_w"] = 40_000  # one tray rated 161.5 kW, over the rack's 140 kW
    data["systems"].append(hot)
    data["workloads"][1]["systems"][0]["name"] = hot["name"]
    with pytest.raises(ScenarioError) as caught:
        _evaluate(data)
    (problem,) = caught.value.problems
    assert problem.path == "systems[1].hardware" and "over the rack power limit" in problem.message, problem
    assert problem.file == "two.yaml"


def test_a_bad_figure_of_a_models_curve_is_refused_at_the_documents_path():
    data = _data()
    data["workloads"][0]["systems"][0]["performance"]["points"][1]["throughput_tokens_per_s"] = -5
    problems = _problems(data)
    assert any(p.startswith("two.yaml: workloads[0].systems[0].performance.points[1]") for p in problems), problems


def test_a_bad_shared_figure_is_refused_at_the_shared_systems_path_with_its_line():
    text = BUNDLED.read_text(encoding="utf-8").replace("nodes_per_rack: 18", "nodes_per_rack: -18")
    with pytest.raises(ScenarioError) as caught:
        models_from_yaml(text, "two.yaml")
    problems = caught.value.problems
    assert problems and all(p.path == "systems[0].hardware.nodes_per_rack" for p in problems), problems
    assert problems[0].file == "two.yaml" and problems[0].line is not None


def test_a_figure_of_a_value_not_given_is_refused_at_the_documents_key():
    data = _data()
    data["figures"]["workloads[1].systems[0].memory.kv_cache_copies"] = {"provenance": "assumption", "source": "x"}
    problems = _problems(data)
    assert any(p.startswith("two.yaml: figures.workloads[1].systems[0].memory.kv_cache_copies:") for p in problems)


def test_a_document_without_workloads_or_with_a_model_twice_is_refused():
    data = _data()
    del data["workloads"]
    assert any("workloads" in p for p in _problems(data))
    data = _data()
    data["workloads"][1]["name"] = "DeepSeek R1"
    assert any("workloads: model names must differ" in p for p in _problems(data))


def test_a_single_workload_scenario_is_told_apart_from_a_models_document():
    result = runner.invoke(app, ["models", str(ROOT / "scenarios" / "gpt-oss-120b-jalapeno-vs-gb200.yaml")])
    assert result.exit_code == 1
    assert "gpt-oss-120b-jalapeno-vs-gb200.yaml: a single-workload scenario, not a models document" in result.stderr


@pytest.mark.parametrize("command", ["evaluate", "compare"])
def test_a_models_document_given_as_a_scenario_is_told_apart_in_one_line(command: str):
    # validated as a scenario it listed every difference (workloads and placement unknown, each system's missing
    # fields): one line says what the file is and which commands read it (rackcost report writes its own report:
    # test_models_report.py; rackcost validate checks it: below)
    result = runner.invoke(app, [command, str(BUNDLED)])
    assert result.exit_code == 1
    assert result.stderr.strip().splitlines() == [f"error: {BUNDLED}: {A_MODELS_DOCUMENT}"]
    with pytest.raises(ScenarioError) as info:
        rackcost.load_scenario(BUNDLED)
    assert [p.message for p in info.value.problems] == [A_MODELS_DOCUMENT]
    assert evaluate_models(str(BUNDLED)).models.shape[0] == 2  # the same file, read by what it is


def test_validate_checks_a_models_document_as_what_it_is(tmp_path):
    good = runner.invoke(
        app, ["validate", str(BUNDLED), str(ROOT / "scenarios" / "deepseek-r1-jalapeno-vs-gb300.yaml")]
    )
    assert good.exit_code == 0, good.output
    assert good.stdout.splitlines()[0] == f"ok {BUNDLED}"
    bad = tmp_path / "bad.yaml"
    bad.write_text(BUNDLED.read_text(encoding="utf-8").replace("nodes_per_rack: 18", "nodes_per_rack: -18"))
    refused = runner.invoke(app, ["validate", str(bad)])
    assert refused.exit_code == 1
    line = next(i for i, t in enumerate(bad.read_text().splitlines(), 1) if "nodes_per_rack: -18" in t)
    assert refused.stderr.strip() == f"error: {bad}:{line}: systems[0].hardware.nodes_per_rack: must be >= 1, got -18"


def test_validate_notes_what_evaluating_a_models_document_would_leave_out(tmp_path):
    data = _data()
    slow = copy.deepcopy(data["systems"][0])
    slow["name"] = "GB200 NVL72 (slow curve)"
    data["systems"] += [slow, {"name": "B200 spare", "hardware": "not evaluated"}]
    curve = copy.deepcopy(data["workloads"][1]["systems"][0])
    curve["name"] = slow["name"]
    for point in curve["performance"]["points"]:
        point["tpot_ms"] = 500.0  # above the model's TPOT limit of 200 ms: no point of the curve meets the SLO
    data["workloads"][1]["systems"].append(curve)
    path = tmp_path / "notes.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    result = runner.invoke(app, ["validate", str(path)])
    assert result.exit_code == 0, result.output
    notes = [line for line in result.stdout.splitlines() if line.startswith("note: ")]
    assert len(notes) == 2, result.stdout
    assert notes[0].startswith("note: workloads[1].systems[1].performance: GPT-OSS 120B: no operating point")
    assert notes[1] == "note: systems[2] ('B200 spare'): no model names it under its `systems`, so it is not evaluated"


def test_the_library_refuses_a_rule_or_a_document_it_does_not_know():
    with pytest.raises(ValueError, match="rule must be one of"):
        evaluate_models(str(BUNDLED), "by_headcount")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="document must be a models document's path"):
        evaluate_models(42)  # type: ignore[arg-type]


def test_the_command_names_the_file_and_path_without_a_traceback(tmp_path):
    bad = tmp_path / "bad.yaml"
    data = _data()
    data["workloads"][0]["slo"]["tpot_limit_ms"] = "fast"
    bad.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    result = runner.invoke(app, ["models", str(bad)])
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    assert "bad.yaml" in result.stderr and "workloads[0].slo.tpot_limit_ms" in result.stderr


# ---- the command -------------------------------------------------------------------------------------------------


def test_the_command_writes_each_models_cost_and_the_fleet_as_json():
    result = runner.invoke(app, ["models", "deepseek-r1-and-gpt-oss-120b-on-gb200", "--rule", "usage", "-f", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["rule"] == "usage" and data["placement"] == "shared"
    total = sum(m["usd_per_day"] for m in data["models"])
    assert total == pytest.approx(sum(f["usd_per_day"] for f in data["fleets"]), rel=1e-12)


def test_the_command_sets_the_simulated_share_beside_the_models_and_writes_csv(tmp_path):
    out = tmp_path / "models.csv"
    result = runner.invoke(app, ["models", str(BUNDLED), "--simulate", "-f", "csv", "-o", str(out)])
    assert result.exit_code == 0, result.output
    lines = out.read_text(encoding="utf-8").splitlines()
    assert "simulated_accepted_fraction" in lines[0] and len(lines) == 3


def test_the_command_prints_both_tables():
    result = runner.invoke(app, ["models", str(BUNDLED), "--placement", "separate"])
    assert result.exit_code == 0, result.output
    assert "separate racks" in result.stdout and "GPT-OSS 120B" in result.stdout and "racks apart" in result.stdout


def test_the_command_prints_the_cells_of_the_librarys_tables():
    """``rackcost models`` prints rackcost.reporting.models_section's tables (the dashboard's Several models page
    shows the same): every cell of each model's and each system type's row is in the output."""
    from rackcost.reporting import models_section

    found = evaluate_models(BUNDLED, rule="usage")
    result = runner.invoke(app, ["models", str(BUNDLED), "--rule", "usage"], env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    tables = [
        models_section.model_table(models_section.model_rows(found)),
        models_section.fleet_table(models_section.fleet_rows(found)),
    ]
    for table in tables:
        for row in table.rows:
            line = next(line for line in result.stdout.splitlines() if f" {row[0]} " in line and row[-1] in line)
            assert all(cell in line for cell in row), (row, line)
    assert models_section.models_title(found.name, "shared", "usage") in " ".join(result.stdout.split())
