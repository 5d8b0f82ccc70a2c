"""rackcost.scenario.edits: values at YAML paths, provenance of edited values, imported curves put into a scenario."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

import rackcost
from rackcost.importers import CurveKey, ImportedCurve
from rackcost.scenario import edits

TWO_SYSTEMS = Path(__file__).parent / "data" / "two_systems.yaml"
EIA = "EIA Electric Power Monthly, table 5.6.A"


def scenario_with_figures() -> dict:
    """The synthetic two-system scenario with figures: one per value, one per block, one per system."""
    data = yaml.safe_load(TWO_SYSTEMS.read_text(encoding="utf-8"))
    data["figures"] = {
        "facility.electricity_usd_per_kwh": {"provenance": "independent", "source": EIA},
        "systems[0].hardware": {"provenance": "independent", "source": "A's datasheet"},
        "systems[0].costs.capex_usd_per_accelerator": {"provenance": "vendor", "source": "A's price list"},
        "systems[1]": {"provenance": "vendor", "source": "B's launch deck"},
        "systems[1].performance.claim": {"provenance": "vendor", "source": "B's headline"},
        "systems[1].performance": {"provenance": "vendor", "source": "B's benchmark page"},
        "systems[1].costs.capex_usd_per_node": {"provenance": "assumption", "source": "guess", "why": "no price"},
    }
    rackcost.scenario_from_dict(copy.deepcopy(data), "fixture")  # the fixture itself is a valid scenario
    return data


@pytest.fixture
def scenario() -> dict:
    """:func:`scenario_with_figures`, a new copy for each test."""
    return scenario_with_figures()


def curve(
    *, provenance_class: str = "independent", gpus: int | None = 2, throughput_per: str = "replica"
) -> ImportedCurve:
    """A three-point curve as the InferenceX importer returns it."""
    return ImportedCurve(
        key=CurveKey(
            hardware="acme1",
            model="example/model",
            precision="fp8",
            framework="vllm",
            tensor_parallel=gpus,
            gpus_per_replica=gpus,
            input_tokens=1000,
            output_tokens=500,
            throughput_per=throughput_per,
        ),
        performance={
            "token_basis": "total",
            "throughput_per": throughput_per,
            "benchmark_model": "example/model",
            "benchmark_precision": "fp8",
            "points": [
                {"concurrency": 4, "throughput_tokens_per_s": 400.0, "tpot_ms": 20.0, "ttft_ms": 250.0},
                {"concurrency": 16, "throughput_tokens_per_s": 1400.0, "tpot_ms": 25.0, "ttft_ms": 400.0},
                {"concurrency": 64, "throughput_tokens_per_s": 4000.0, "tpot_ms": 40.0, "ttft_ms": 900.0},
            ],
        },
        provenance={
            "class": provenance_class,
            "date": "2025-10-15",
            "source": "InferenceX results run-42.json",
            "software_stack": "vllm 0.10",
        },
        percentile="p99",
        isl_osl_source="file",
        gpus_source="file",
        stages=["A"],
        files=["run-42.json"],
    )


# ---- values at YAML paths ------------------------------------------------------------------------------------


def test_get_at_follows_keys_and_list_indices(scenario):
    assert edits.get_at(scenario, "systems[1].hardware.accelerator_idle_w") == 80
    assert edits.get_at(scenario, "demand[2].name") == "peak"
    assert edits.get_at(scenario, "systems[0].performance.points[1].tpot_ms") == 30
    assert edits.get_at(scenario, "systems[1]") is scenario["systems"][1]


def test_get_at_gives_the_default_where_the_scenario_gives_no_value(scenario):
    assert edits.get_at(scenario, "facility.capex_usd_per_kw") is None
    assert edits.get_at(scenario, "demand[3].name", "none") == "none"  # three demand points
    assert edits.get_at(scenario, "name.first", edits.MISSING) is edits.MISSING  # through a string
    assert edits.get_at(scenario, "facility[0]", edits.MISSING) is edits.MISSING  # an index into a mapping


def test_set_at_returns_an_edited_copy_and_leaves_its_argument_alone(scenario):
    before = copy.deepcopy(scenario)
    edited = edits.set_at(scenario, "demand[1].arrival_rps", 15)
    assert scenario == before
    assert edited["demand"][1] == {"name": "normal", "arrival_rps": 15, "hours_per_day": 10}
    assert edits.set_at(edited, "demand[1].arrival_rps", 12) == before
    listed = edits.set_at(scenario, "systems[0].performance.points[2].ttft_ms", 1400)
    assert listed["systems"][0]["performance"]["points"][2]["ttft_ms"] == 1400
    assert listed["systems"][1] == before["systems"][1]


def test_set_at_copies_the_value_it_puts(scenario):
    points = [{"concurrency": 1, "throughput_tokens_per_s": 10.0}]
    edited = edits.set_at(scenario, "systems[0].performance.points", points)
    points[0]["concurrency"] = 99
    assert edited["systems"][0]["performance"]["points"][0]["concurrency"] == 1


def test_set_at_creates_missing_mappings_and_none_removes_the_key(scenario):
    edited = edits.set_at(scenario, "systems[0].facility.pue", 1.4)
    assert edited["systems"][0]["facility"] == {"pue": 1.4}
    assert edits.set_at(edited, "systems[0].facility.pue", None)["systems"][0]["facility"] == {}
    assert "idle_policy" not in edits.set_at(scenario, "fleet.idle_policy", None)["fleet"]
    # removing what is not there changes nothing, and creates no empty mapping on the way
    assert edits.set_at(scenario, "systems[0].facility.pue", None) == scenario


@pytest.mark.parametrize("path", ["", "systems[0", "systems[-1].name", "facility..pue", ".name", "systems[0]]"])
def test_a_malformed_path_is_a_value_error_naming_it(scenario, path):
    with pytest.raises(ValueError, match="is not a YAML path"):
        edits.get_at(scenario, path)
    with pytest.raises(ValueError, match="is not a YAML path"):
        edits.set_at(scenario, path, 1)


@pytest.mark.parametrize(
    ("path", "error", "message"),
    [
        ("demand[3].arrival_rps", IndexError, r"demand\[3\]\.arrival_rps: demand has 3 item\(s\)"),
        ("systems[2]", IndexError, r"systems has 2 item\(s\), so there is no item \[2\]"),
        ("systems.name", TypeError, "systems is a list, not a mapping"),
        ("facility[0]", TypeError, "facility is a dict, not a list"),
        ("name.first", TypeError, "name is a str, not a mapping"),
        ("demand[0]", TypeError, "a list item cannot be removed"),
        ("uncertainty.runs[0]", IndexError, "uncertainty.runs is not given"),
    ],
)
def test_set_at_says_why_a_path_cannot_be_written(scenario, path, error, message):
    value = None if path == "demand[0]" else 1
    with pytest.raises(error, match=message):
        edits.set_at(scenario, path, value)


def test_leaf_values_lists_every_value_by_path_with_a_distribution_as_one(scenario):
    data = edits.set_at(scenario, "facility.pue", {"dist": "uniform", "low": 1.1, "high": 1.3})
    leaves = edits.leaf_values(data)
    assert leaves["facility.pue"] == {"dist": "uniform", "low": 1.1, "high": 1.3}
    assert "facility.pue.low" not in leaves
    assert leaves["systems[0].performance.points[2].ttft_ms"] == 1500
    assert leaves["demand[0].name"] == "quiet"
    assert not [p for p in leaves if p.startswith("figures")]


# ---- provenance of edited values -----------------------------------------------------------------------------


def test_an_edited_figure_names_the_old_value_and_its_source():
    assert edits.edited_figure(0.1, EIA) == {
        "provenance": "assumption",
        "source": f"edited in the rackcost dashboard; the file gave 0.1 ({EIA})",
        "why": "set by the user of the dashboard",
    }
    assert edits.edited_figure(80, None)["source"] == "edited in the rackcost dashboard; the file gave 80"
    assert (
        edits.edited_figure(edits.MISSING, EIA)["source"] == "edited in the rackcost dashboard; not given in the file"
    )


def test_sync_figures_of_an_unedited_scenario_keeps_every_entry(scenario):
    before = copy.deepcopy(scenario)
    synced = edits.sync_figures(scenario, scenario)
    assert synced == before and scenario == before
    assert synced["figures"] is not scenario["figures"]  # a copy: editing it does not edit the baseline
    bare = {k: v for k, v in scenario.items() if k != "figures"}
    assert "figures" not in edits.sync_figures(bare, bare)


def test_a_changed_number_is_relabelled_as_the_users_and_set_back_gets_its_source_again(scenario):
    draft = edits.set_at(scenario, "facility.electricity_usd_per_kwh", 0.081)
    synced = edits.sync_figures(draft, scenario)
    assert synced["facility"]["electricity_usd_per_kwh"] == 0.081
    assert synced["figures"]["facility.electricity_usd_per_kwh"] == edits.edited_figure(0.10, EIA)
    assert {k: v for k, v in synced["figures"].items() if k != "facility.electricity_usd_per_kwh"} == {
        k: v for k, v in scenario["figures"].items() if k != "facility.electricity_usd_per_kwh"
    }
    back = edits.sync_figures(edits.set_at(synced, "facility.electricity_usd_per_kwh", 0.10), scenario)
    assert back["figures"] == scenario["figures"]


def test_a_number_changed_under_a_block_entry_gets_its_own_entry_and_the_block_keeps_its(scenario):
    draft = edits.set_at(scenario, "systems[0].hardware.accelerator_idle_w", 120)
    figures = edits.sync_figures(draft, scenario)["figures"]
    assert figures["systems[0].hardware"] == scenario["figures"]["systems[0].hardware"]
    assert figures["systems[0].hardware.accelerator_idle_w"]["provenance"] == "assumption"
    assert figures["systems[0].hardware.accelerator_idle_w"]["source"].endswith("the file gave 100")


def test_free_text_is_not_a_figure(scenario):
    draft = edits.set_at(scenario, "name", "My comparison")
    draft = edits.set_at(draft, "systems[1].provenance.source", "B's white paper")
    draft = edits.set_at(draft, "description", "What we will buy.")
    assert edits.sync_figures(draft, scenario)["figures"] == scenario["figures"]


def test_a_value_not_in_the_file_is_labelled_as_not_given(scenario):
    draft = edits.set_at(scenario, "facility.capex_usd_per_kw", 9000)
    figure = edits.sync_figures(draft, scenario)["figures"]["facility.capex_usd_per_kw"]
    assert figure["source"] == "edited in the rackcost dashboard; not given in the file"


def test_a_removed_value_loses_its_entry(scenario):
    draft = edits.set_at(scenario, "systems[0].costs.capex_usd_per_accelerator", None)
    assert "systems[0].costs.capex_usd_per_accelerator" not in edits.sync_figures(draft, scenario)["figures"]


def test_a_changed_distribution_parameter_relabels_the_whole_distribution(scenario):
    original = edits.set_at(
        scenario, "facility.electricity_usd_per_kwh", {"dist": "uniform", "low": 0.08, "high": 0.12}
    )
    draft = edits.set_at(original, "facility.electricity_usd_per_kwh.high", 0.2)
    figures = edits.sync_figures(draft, original)["figures"]
    assert "facility.electricity_usd_per_kwh.high" not in figures
    assert figures["facility.electricity_usd_per_kwh"]["source"].startswith(
        "edited in the rackcost dashboard; the file gave a uniform distribution (low 0.08, high 0.12)"
    )


def test_sync_figures_keeps_the_place_of_figures_in_the_file(scenario):
    figures_first = {"figures": scenario["figures"]} | {k: v for k, v in scenario.items() if k != "figures"}
    draft = edits.set_at(figures_first, "facility.pue", 1.3)
    assert next(iter(edits.sync_figures(draft, figures_first))) == "figures"


def test_figure_for_gives_the_own_entry_else_the_nearest_ancestors(scenario):
    own = edits.figure_for(scenario, "facility.electricity_usd_per_kwh")
    assert own == ("facility.electricity_usd_per_kwh", scenario["figures"]["facility.electricity_usd_per_kwh"])
    assert edits.figure_for(scenario, "systems[0].hardware.accelerator_idle_w")[0] == "systems[0].hardware"
    assert edits.figure_for(scenario, "systems[1].hardware.host_w_per_node")[0] == "systems[1]"
    assert edits.figure_for(scenario, "facility.pue") is None
    top = edits.set_at(scenario, "figures", {"facility": {"provenance": "vendor", "source": "hall"}})
    assert edits.figure_for(top, "facility.pue") == ("facility", {"provenance": "vendor", "source": "hall"})
    tenth = edits.set_at(scenario, "figures", {"systems[1]": {"provenance": "vendor", "source": "deck"}})
    assert edits.figure_for(tenth, "systems[10].name") is None  # systems[1] does not cover systems[10]


# ---- imported curves -------------------------------------------------------------------------------------------
