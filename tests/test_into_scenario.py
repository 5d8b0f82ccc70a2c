"""Imported curves put into a scenario (rackcost.importers.into_scenario): replace a system's points, add a system."""

from __future__ import annotations

import copy

import pytest

import rackcost
from rackcost.importers import into_scenario
from rackcost.scenario import edits
from test_edits import curve, scenario_with_figures


@pytest.fixture
def scenario() -> dict:
    """The two-system scenario of the edits' tests, with a figure per value, per block and per system."""
    return scenario_with_figures()


def test_the_figure_of_a_curve_names_its_class_file_date_and_percentile():
    figure = into_scenario.curve_figure(curve())
    assert figure == {
        "provenance": "independent",
        "source": "InferenceX results run-42.json; run date 2025-10-15; curve acme1 model fp8 vllm tp2 1000/500, "
        "TTFT and TPOT at p99; imported in the rackcost dashboard",
    }
    assumed = into_scenario.curve_figure(curve(provenance_class="assumption"))
    assert assumed["provenance"] == "assumption" and "set the provenance class when you know it" in assumed["why"]


def test_curve_gpus_per_replica_is_given_only_for_per_replica_throughput():
    assert into_scenario.curve_gpus_per_replica(curve(gpus=2)) == 2
    assert into_scenario.curve_gpus_per_replica(curve(gpus=None)) is None
    assert into_scenario.curve_gpus_per_replica(curve(gpus=2, throughput_per="accelerator")) is None


def test_replace_points_swaps_the_curve_in_and_keeps_the_claim_hardware_costs_and_other_system(scenario):
    before = copy.deepcopy(scenario)
    c = curve(gpus=2)
    edited = into_scenario.replace_points(scenario, 1, c)
    assert scenario == before
    system = edited["systems"][1]
    assert system["performance"] == c.performance | {"claim": before["systems"][1]["performance"]["claim"]}
    assert system["provenance"] == c.provenance
    assert system["hardware"] == before["systems"][1]["hardware"] | {"accelerators_per_replica": 2}
    assert system["costs"] == before["systems"][1]["costs"]
    assert edited["systems"][0] == before["systems"][0]
    assert {k: v for k, v in edited.items() if k not in ("systems", "figures")} == {
        k: v for k, v in before.items() if k not in ("systems", "figures")
    }
    rackcost.scenario_from_dict(copy.deepcopy(edited), "replaced")


def test_replace_points_records_the_curves_provenance_and_drops_the_old_performance_entries(scenario):
    c = curve(gpus=2)
    figures = into_scenario.replace_points(scenario, 1, c)["figures"]
    assert figures["systems[1].performance"] == into_scenario.curve_figure(c)
    assert figures["systems[1].performance.claim"] == scenario["figures"]["systems[1].performance.claim"]
    gpus = figures["systems[1].hardware.accelerators_per_replica"]
    assert gpus["provenance"] == "independent" and gpus["source"].startswith("GPUs per replica of the benchmark run")
    untouched = {k for k in scenario["figures"] if k != "systems[1].performance"}
    assert {k: figures[k] for k in untouched} == {k: scenario["figures"][k] for k in untouched}


def test_replace_points_keeps_the_replica_size_when_the_curve_does_not_give_it(scenario):
    edited = into_scenario.replace_points(scenario, 0, curve(gpus=None))
    assert edited["systems"][0]["hardware"] == scenario["systems"][0]["hardware"]
    assert "systems[0].hardware.accelerators_per_replica" not in edited["figures"]
    assert "claim" not in edited["systems"][0]["performance"]  # A has no claim: none is made up


def test_replace_points_of_a_missing_system_is_an_index_error(scenario):
    with pytest.raises(
        IndexError, match=r"replace_points: the scenario has 2 system\(s\), so there is no systems\[2\]"
    ):
        into_scenario.replace_points(scenario, 2, curve())


def test_add_system_copies_the_templates_hardware_and_costs_and_their_figures_under_the_new_index(scenario):
    before = copy.deepcopy(scenario)
    c = curve(gpus=2)
    edited = into_scenario.add_system(scenario, c, "Acme TP2", 0)
    assert scenario == before
    assert edited["systems"][:2] == before["systems"]
    new = edited["systems"][2]
    assert new["name"] == "Acme TP2"
    assert new["performance"] == c.performance and new["provenance"] == c.provenance
    assert new["hardware"] == before["systems"][0]["hardware"] | {"accelerators_per_replica": 2}
    assert new["costs"] == before["systems"][0]["costs"]
    figures = edited["figures"]
    assert figures["systems[2].performance"] == into_scenario.curve_figure(c)
    hardware, costs = figures["systems[2].hardware"], figures["systems[2].costs"]
    assert hardware["provenance"] == costs["provenance"] == "assumption"
    assert hardware["source"] == f"{into_scenario.COPIED} A (its figure: independent, A's datasheet)"
    assert costs["source"] == f"{into_scenario.COPIED} A"  # no entry covered A's costs as a whole
    assert "to be reviewed" in costs["why"]
    capex = figures["systems[2].costs.capex_usd_per_accelerator"]
    assert capex["provenance"] == "assumption" and "(its figure: vendor, A's price list)" in capex["source"]
    assert {k: figures[k] for k in before["figures"]} == before["figures"]
    rackcost.scenario_from_dict(copy.deepcopy(edited), "added")


def test_add_system_does_not_copy_the_templates_claim_and_cites_a_system_wide_entry(scenario):
    edited = into_scenario.add_system(scenario, curve(gpus=None), "Acme", 1)
    new = edited["systems"][2]
    assert "claim" not in new["performance"]
    assert new["hardware"] == scenario["systems"][1]["hardware"]
    assert edited["figures"]["systems[2].hardware"]["source"].endswith("(its figure: vendor, B's launch deck)")
    assert "systems[2].hardware.accelerators_per_replica" not in edited["figures"]
    copied = edited["figures"]["systems[2].costs.capex_usd_per_node"]
    assert copied["source"] == f"{into_scenario.COPIED} B (its figure: assumption, guess)"


def test_add_system_to_a_baseline_copies_the_template_from_the_source(scenario):
    draft = edits.set_at(scenario, "systems[0].hardware.accelerator_idle_w", 120)
    baseline = into_scenario.add_system(scenario, curve(), "Acme", 0, source=draft)
    assert baseline["systems"][2]["hardware"]["accelerator_idle_w"] == 120
    assert baseline["systems"][0]["hardware"]["accelerator_idle_w"] == 100


def test_add_system_from_a_missing_template_is_an_index_error(scenario):
    with pytest.raises(IndexError, match=r"add_system: the scenario has 2 system\(s\), so there is no systems\[5\]"):
        into_scenario.add_system(scenario, curve(), "Acme", 5)
