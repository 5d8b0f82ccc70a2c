"""A system the scenario cannot serve with never blocks the analyses of the others (issue 22, item 1).

The scenario: the synthetic A vs B fixture with a third system C (B's twin, 10% dearer per accelerator, its capex a
distribution) and a TPOT limit of 15 ms, which A's fastest point (TPOT 20 ms) cannot meet while B and C (10 ms)
can. A is ``systems[0]``: the analyses run on B and C, now ``systems[0]`` and ``systems[1]`` of the scenario they
evaluate, so every YAML path going in and out must be renumbered back to the file's.
"""

from __future__ import annotations

import copy
import json
import warnings
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

import rackcost
from rackcost.cli import app
from rackcost.evaluation.servable import UnservedSystemWarning, renumbered_path, servable

HERE = Path(__file__).resolve().parent
TWO = HERE / "data" / "two_systems.yaml"
C_CAPEX = "systems[2].costs.capex_usd_per_accelerator"


def data(tpot_limit_ms: float = 15.0) -> dict:
    d = yaml.safe_load(TWO.read_text(encoding="utf-8"))
    c = copy.deepcopy(d["systems"][1])
    c["name"] = "C"
    c["costs"]["capex_usd_per_accelerator"] = {"dist": "uniform", "low": 20_000, "high": 24_000}
    d["systems"].append(c)
    d["slo"]["tpot_limit_ms"] = tpot_limit_ms
    d["facility"]["electricity_usd_per_kwh"] = {"dist": "uniform", "low": 0.05, "high": 0.20}
    d["facility"]["max_it_power_kw"] = 500
    return d


@pytest.fixture
def scenario_file(tmp_path: Path) -> Path:
    path = tmp_path / "three.yaml"
    path.write_text(yaml.safe_dump(data(), sort_keys=False), encoding="utf-8")
    return path


def scenario(path: Path) -> rackcost.Scenario:
    return rackcost.load_scenario(path)


def test_the_fixture_rules_out_a_alone(scenario_file: Path) -> None:
    served, unserved, _ = servable(scenario(scenario_file))
    assert [u.system for u in unserved] == ["A"]
    assert [s.name for s in served.systems] == ["B", "C"]
    # without the tight limit nothing is left out: the checks below are about the limit, not the fixture
    assert not servable(rackcost.scenario_from_dict(data(50.0), "three.yaml"))[1]


def test_renumbered_path_maps_a_system_input_by_name(scenario_file: Path) -> None:
    given = scenario(scenario_file)
    served = servable(given)[0]
    assert renumbered_path(C_CAPEX, given, served) == "systems[1].costs.capex_usd_per_accelerator"
    assert renumbered_path("systems[1].costs.capex_usd_per_accelerator", served, given) == C_CAPEX
    assert renumbered_path("systems[0].hardware.accelerator_idle_w", given, served) is None  # A is not there
    assert renumbered_path("facility.pue", given, served) == "facility.pue"


def test_uncertainty_samples_the_others_and_lists_the_one_left_out(scenario_file: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnservedSystemWarning)  # the result lists it: no warning as well
        result = rackcost.uncertainty(scenario(scenario_file), samples=200, seed=1)
    assert [u["system"] for u in result.unserved] == ["A"]
    assert "TPOT" in result.unserved[0]["reason"]
    assert {r["system"] for r in result.percentiles} == {"B", "C"}
    # the same samples as the scenario without A: leaving a system out changes nothing for the others
    without_a = data()
    del without_a["systems"][0]
    alone = rackcost.uncertainty(rackcost.scenario_from_dict(without_a, "two.yaml"), samples=200, seed=1)
    assert result.percentiles == alone.percentiles
    assert alone.unserved == []


def test_tornado_ranks_the_others_warns_and_names_inputs_in_the_files_numbering(scenario_file: Path) -> None:
    with pytest.warns(UnservedSystemWarning, match="A is not evaluated"):
        rows = rackcost.tornado(scenario(scenario_file))
    assert {r["input"] for r in rows} == {C_CAPEX, "facility.electricity_usd_per_kwh"}
    assert all("A@low" not in r and "C@low" in r and "B@low" in r for r in rows)
    capex = next(r for r in rows if r["input"] == C_CAPEX)
    assert capex["B@swing"] == 0.0 and capex["C@swing"] > 0.0  # C's own capex moves C's cost only


def test_breakeven_takes_the_files_path_and_finds_the_root_among_the_others(scenario_file: Path) -> None:
    sc = scenario(scenario_file)
    assert sc.baseline_name == "A"
    # A is the baseline and cannot be served: a break-even against it has no answer, and says why
    with pytest.raises(rackcost.ScenarioError, match="break-even needs 'A', which is not evaluated"):
        rackcost.breakeven(sc, C_CAPEX, system="C")
    d = data()
    d["baseline_system"] = "B"
    sc = rackcost.scenario_from_dict(d, "three.yaml")
    found = rackcost.breakeven(sc, C_CAPEX, system="C", low=1_000, high=40_000)
    assert found.input == C_CAPEX and found.value is not None
    assert C_CAPEX in found.message
    # C is B's twin but for its capex: they cost the same where C's capex is B's, 20,000 per accelerator
    assert found.value == pytest.approx(20_000, rel=1e-6)


def test_site_and_simulate_leave_a_out_with_a_warning_and_refuse_to_simulate_it(scenario_file: Path) -> None:
    sc = scenario(scenario_file)
    with pytest.warns(UnservedSystemWarning):
        rows = rackcost.site_budget(sc)
    assert [r["system"] for r in rows] == ["B", "C"]
    with pytest.warns(UnservedSystemWarning):
        sim = rackcost.simulate(sc, system="B", demand_point="peak", requests=2_000, replications=2)
    assert [r["system"] for r in sim] == ["B"]
    with pytest.raises(rackcost.ScenarioError, match="simulate needs 'A'"):
        rackcost.simulate(sc, system="A", demand_point="peak", requests=2_000, replications=2)


runner = CliRunner()


def invoke(*args: str):
    return runner.invoke(app, list(args), env={"COLUMNS": "120"})


@pytest.mark.parametrize(
    "command",
    [
        ("uncertainty", "-n", "200"),
        ("tornado",),
        ("site",),
        ("breakeven", "--input", C_CAPEX, "--system", "C"),
    ],
    ids=lambda c: c[0],
)
def test_cli_analyses_mark_the_system_and_exit_0(scenario_file: Path, command: tuple[str, ...]) -> None:
    d = data()
    d["baseline_system"] = "B"
    scenario_file.write_text(yaml.safe_dump(d, sort_keys=False), encoding="utf-8")
    result = invoke(command[0], str(scenario_file), *command[1:])
    assert result.exit_code == 0, result.output
    assert "A: cannot meet the SLO" in " ".join(result.output.split())
    assert "Traceback" not in result.output and "UnservedSystemWarning" not in result.output
    if command[0] != "breakeven":
        out = invoke(command[0], str(scenario_file), *command[1:], "--format", "json")
        assert out.exit_code == 0, out.output
        parsed = json.loads(out.stdout)
        assert [u["system"] for u in parsed["unserved"]] == ["A"]


def test_reconcile_needs_its_system_servable_and_ignores_the_others(scenario_file: Path) -> None:
    from rackcost.analysis.reconcile import reconcile

    sc = scenario(scenario_file)
    with pytest.raises(rackcost.ScenarioError, match="reconcile needs 'A'"):
        reconcile(sc, "A", 2.0)
    d = data()
    del d["systems"][0]
    alone = reconcile(rackcost.scenario_from_dict(d, "two.yaml"), "C", 2.0)
    assert reconcile(sc, "C", 2.0).to_dict() == alone.to_dict()  # A left out changes nothing for C


def test_the_charts_leave_a_out_with_a_warning_and_draw_the_others(scenario_file: Path) -> None:
    """The charts' data (rackcost.analysis.explore) read the one evaluation, as the other analyses do: A is left out
    with a warning, not an error that blocks B and C."""
    from rackcost.analysis import explore

    sc = scenario(scenario_file)
    for rows_of in (explore.operating_curves, explore.latency_cliff, explore.cost_against_demand_scale):
        with pytest.warns(UnservedSystemWarning, match="^A is not evaluated"):
            rows = rows_of(sc)
        assert {r["system"] for r in rows} == {"B", "C"}, rows_of.__name__


def test_an_analysis_handed_the_evaluation_reads_it_and_warns_no_more(scenario_file: Path) -> None:
    """Each analysis takes the scenario's one evaluation as well as the scenario, with the same rows: the caller who
    split the scenario has its unserved systems (``Evaluation.unserved``), so no warning is given again."""
    from rackcost.analysis import explore
    from rackcost.evaluation.chain import evaluation

    sc = scenario(scenario_file)
    once = evaluation(sc)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        curves = explore.operating_curves(once)
        site = rackcost.site_budget(once)
        mc = rackcost.uncertainty(once, 300, seed=1)
    with pytest.warns(UnservedSystemWarning):
        assert explore.operating_curves(sc) == curves
    with pytest.warns(UnservedSystemWarning):
        assert rackcost.site_budget(sc) == site
    again = rackcost.uncertainty(sc, 300, seed=1)
    assert (mc.percentiles, mc.unserved) == (again.percentiles, again.unserved)
