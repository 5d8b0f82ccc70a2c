"""The catalogue (rackcost.scenario.catalog, rackcost/data/catalog.yaml): a valid file whose every figure names its
source and provenance class, a scenario's system filled from an entry (its own figures win), an unknown entry's
did-you-mean, and ``rackcost catalog``."""

from __future__ import annotations

import copy
import json

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from rackcost.cli.entry import app
from rackcost.errors import ScenarioError
from rackcost.scenario.catalog import (
    CatalogEntry,
    apply_catalog,
    catalog,
    catalog_entry,
    entry_price_tiers,
    figure_rows,
    unknown_entry,
)
from rackcost.scenario.loading import bundled_scenario_path, scenario_from_dict, scenario_from_yaml, scenario_to_yaml
from rackcost.scenario.systems import ProvenanceClass

pytestmark = pytest.mark.unit

REQUIRED = ["h100", "h200", "b200", "b300", "gb200-nvl72", "gb300-nvl72", "mi300x", "mi325x", "mi355x", "gaudi3"]
ENTRIES = sorted(catalog().entries.items())
HARDWARE_FILLED = [p.split(".")[1] for p in catalog_entry("b200").figures if p.startswith("hardware.")]


def _scenario_with_catalog(entry: str = "b200", **hardware: float) -> dict:
    """The bundled B200-vs-GB200 scenario with its B200's hardware reduced to ``hardware`` and ``catalog: entry``."""
    data = yaml.safe_load(bundled_scenario_path("deepseek-r1-b200-vs-gb200-inferencex.yaml").read_text("utf-8"))
    system = data["systems"][0]
    system["catalog"] = entry
    system["hardware"] = {"accelerators_per_replica": 8, **hardware}
    kept = {f"systems[0].hardware.{k}" for k in system["hardware"]}
    data["figures"] = {
        k: v for k, v in data["figures"].items() if not k.startswith("systems[0].hardware.") or k in kept
    }
    return data


# ---- the file ----------------------------------------------------------------------------------------------------


def test_the_catalogue_has_every_entry_the_buyer_starts_from():
    assert set(REQUIRED) <= set(catalog().entries)


@pytest.mark.parametrize(("key", "entry"), ENTRIES, ids=[k for k, _ in ENTRIES])
def test_every_figure_names_its_source_and_provenance_and_an_assumption_says_why(key, entry):
    for path, figure in entry.figures.items():
        assert figure.provenance in set(ProvenanceClass), (key, path)
        for part in (figure.source.publisher, figure.source.document, figure.source.date):
            assert part.strip(), (key, path)
        if figure.provenance is ProvenanceClass.assumption:
            assert figure.why and figure.why.strip(), (key, path)
    assert entry.inferencex_hardware, key
    # the required blocks of a hardware system: an entry that leaves one out says why
    for path in ("hardware.accelerator_rated_w", "hardware.accelerator_idle_w", "hardware.accelerators_per_node"):
        assert path in entry.figures or path in entry.not_given, (key, path)


@pytest.mark.parametrize(("key", "entry"), ENTRIES, ids=[k for k, _ in ENTRIES])
def test_every_entry_fills_a_system_that_validates_or_says_what_it_lacks(key, entry):
    data = _scenario_with_catalog(key, accelerator_busy_w=100.0)
    data["systems"][0]["hardware"]["accelerator_idle_w"] = 50.0  # below any rating: the order rule holds
    if "hardware.accelerator_rated_w" in entry.not_given:
        data["systems"][0]["hardware"]["accelerator_rated_w"] = 1000.0
    scenario = scenario_from_dict(data)
    hardware = scenario.systems[0].hardware
    for path, figure in entry.figures.items():
        block, field = path.split(".")
        if block == "hardware" and field not in ("accelerator_busy_w", "accelerator_idle_w"):
            assert getattr(hardware, field) == figure.value, (key, path)


def test_published_values_the_catalogue_carries():
    # NVIDIA, DGX B200 datasheet (2024): 1,440 GB of GPU memory over 8 GPUs = 180 GB each; NVIDIA GB200 NVL72
    # specifications: 13.4 TB over 72 GPUs, 372 GB per 2-GPU superchip = 186 GB each; 18 trays of 4 GPUs = 72
    assert catalog_entry("b200").figures["memory.hbm_gib_per_accelerator"].value == 1440 / 8
    assert catalog_entry("gb200-nvl72").figures["memory.hbm_gib_per_accelerator"].value == 372 / 2
    nvl = catalog_entry("gb200-nvl72").figures
    assert nvl["hardware.accelerators_per_node"].value * nvl["hardware.nodes_per_rack"].value == 72
    # NVIDIA DGX B200 system maximum 14.3 kW less 8 x 1.0 kW of GPUs: the host's 6.3 kW nameplate
    b200 = catalog_entry("b200").figures
    assert b200["hardware.host_rated_w_per_node"].value == pytest.approx(14_300 - 8 * 1_000)
    # InferenceX's B200 tiers (SemiAnalysis, InferenceX-app src/lib/constants.ts, snapshot 2026-04): 1.95/2.34/2.90
    tiers = {t.tier: t.usd_per_gpu_hour for t in entry_price_tiers(catalog_entry("b200"))}
    assert tiers == {"hyperscaler-owned": 1.95, "neocloud-owned": 2.34, "rental-3-year": 2.90}
    assert entry_price_tiers(catalog_entry("gaudi3")) == []


def test_an_entry_with_a_figure_the_schema_does_not_have_is_refused_with_the_field_it_means():
    entry = catalog_entry("h100").model_dump(mode="json")
    entry["figures"]["hardware.accelerator_rated_W"] = entry["figures"].pop("hardware.accelerator_rated_w")
    with pytest.raises(ValueError, match="did you mean `hardware.accelerator_rated_w`"):
        CatalogEntry.model_validate(entry)
    entry = catalog_entry("h100").model_dump(mode="json")
    entry["figures"]["hardware.nodes_per_rack"]["value"] = -4
    with pytest.raises(ValueError, match="hardware.nodes_per_rack"):
        CatalogEntry.model_validate(entry)
    entry = catalog_entry("h100").model_dump(mode="json")
    entry["figures"]["hardware.rack_overhead_w"]["why"] = None
    with pytest.raises(ValueError, match="must say why"):
        CatalogEntry.model_validate(entry)


# ---- a scenario filled from an entry -------------------------------------------------------------------------------


def test_the_scenario_value_wins_and_the_entry_fills_the_rest_each_with_its_source():
    data = _scenario_with_catalog(accelerator_busy_w=500.0)
    scenario = scenario_from_dict(data)
    hardware = scenario.systems[0].hardware
    entry = catalog_entry("b200").figures
    assert hardware.accelerator_busy_w == 500.0  # the scenario's
    assert hardware.accelerator_rated_w == entry["hardware.accelerator_rated_w"].value
    assert hardware.host_rated_w_per_node == entry["hardware.host_rated_w_per_node"].value
    filled = scenario.figures["systems[0].hardware.accelerator_rated_w"]
    assert filled.provenance.value == entry["hardware.accelerator_rated_w"].provenance.value
    assert filled.source.startswith("rackcost catalogue entry b200: ")
    # the scenario's own figure stays where it gives the value
    assert not scenario.figures["systems[0].hardware.accelerator_busy_w"].source.startswith("rackcost catalogue")
    # the memory block the scenario gives keeps its own HBM; the other system names no entry and is untouched
    assert scenario.systems[0].memory.hbm_gib_per_accelerator == 180
    assert scenario.systems[1].catalog is None and scenario.systems[1].hardware.accelerator_rated_w == 1200


def test_a_figures_entry_of_the_scenario_wins_over_the_catalogues():
    data = _scenario_with_catalog(accelerator_busy_w=500.0)
    own = {"provenance": "independent", "source": "our own measurement of the rack"}
    data["figures"]["systems[0].hardware.rack_overhead_w"] = own
    scenario = scenario_from_dict(data)
    assert scenario.figures["systems[0].hardware.rack_overhead_w"].source == own["source"]


def test_the_entry_fills_a_memory_block_the_system_gives_and_never_adds_one():
    data = _scenario_with_catalog(accelerator_busy_w=500.0)
    del data["systems"][0]["memory"]["hbm_gib_per_accelerator"]
    data["figures"].pop("systems[0].memory.hbm_gib_per_accelerator")
    scenario = scenario_from_dict(data)
    assert scenario.systems[0].memory.hbm_gib_per_accelerator == 180
    assert "systems[0].memory.hbm_gib_per_accelerator" in scenario.figures
    data = _scenario_with_catalog(accelerator_busy_w=500.0)
    del data["systems"][0]["memory"]
    data["figures"] = {k: v for k, v in data["figures"].items() if not k.startswith("systems[0].memory")}
    assert scenario_from_dict(data).systems[0].memory is None


def test_a_filled_scenario_written_back_loads_to_the_same_scenario():
    scenario = scenario_from_dict(_scenario_with_catalog(accelerator_busy_w=500.0))
    text = scenario_to_yaml(scenario)
    assert "catalog: b200" in text
    assert scenario_from_yaml(text) == scenario


def test_an_unknown_entry_is_one_problem_naming_the_file_the_path_and_the_entry_it_means():
    data = _scenario_with_catalog("b20", accelerator_busy_w=500.0)
    with pytest.raises(ScenarioError) as caught:
        scenario_from_dict(data, "fleet.yaml")
    problems = [str(p) for p in caught.value.problems]
    assert problems == [
        "fleet.yaml: systems[0].catalog: no catalogue entry 'b20'; did you mean `b200`? (`rackcost catalog` lists them)"
    ]
    assert "the entries are h100" in unknown_entry("quantum")


def test_an_entry_on_an_api_system_is_refused():
    data = yaml.safe_load(bundled_scenario_path("deepseek-r1-own-vs-rent-vs-api.yaml").read_text("utf-8"))
    api = next(i for i, s in enumerate(data["systems"]) if "api" in s)
    data["systems"][api]["catalog"] = "h100"
    with pytest.raises(ScenarioError, match=rf"systems\[{api}\]\.catalog: an API system runs no hardware"):
        scenario_from_dict(data)


def test_apply_catalog_leaves_its_argument_and_a_scenario_without_entries_alone():
    data = _scenario_with_catalog(accelerator_busy_w=500.0)
    before = copy.deepcopy(data)
    apply_catalog(data)
    assert data == before
    plain = yaml.safe_load(bundled_scenario_path("deepseek-r1-jalapeno-vs-gb300.yaml").read_text("utf-8"))
    assert apply_catalog(plain)[0] is plain


@settings(max_examples=25, deadline=None)
@given(st.dictionaries(st.sampled_from(HARDWARE_FILLED), st.integers(1, 9), max_size=len(HARDWARE_FILLED)))
def test_each_given_field_is_the_scenarios_and_each_other_the_entrys(given_fields):
    """Whatever subset of the entry's hardware figures a system gives, those are its own and the rest the entry's."""
    data = _scenario_with_catalog(accelerator_busy_w=500.0)
    hardware = data["systems"][0]["hardware"]
    values = {k: (f"Accelerator {v}" if k == "accelerator" else v * 10) for k, v in given_fields.items()}
    values.pop("accelerator_busy_w", None)
    hardware.update(values)
    if "accelerator_rated_w" in values or "accelerator_idle_w" in values:  # keep idle <= busy <= rated
        hardware.update({"accelerator_idle_w": 10, "accelerator_busy_w": 50, "accelerator_rated_w": 100})
    filled, problems, _ = apply_catalog(data)
    assert problems == []
    out = filled["systems"][0]["hardware"]
    for path, figure in catalog_entry("b200").figures.items():
        block, field = path.split(".")
        if block != "hardware":
            continue
        assert out[field] == (hardware[field] if field in hardware else figure.value)
        assert (f"systems[0].{path}" in filled["figures"]) == (
            field not in hardware or f"systems[0].{path}" in data["figures"]
        )


# ---- rackcost catalog ----------------------------------------------------------------------------------------------


def test_rackcost_catalog_lists_every_entry_and_its_sources():
    result = CliRunner().invoke(app, ["catalog"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    for key in REQUIRED:
        assert key in result.stdout
    assert "SemiAnalysis" in result.stdout and "NVIDIA" in result.stdout


def test_rackcost_catalog_entry_shows_its_figures_with_sources_and_what_it_leaves_out():
    result = CliRunner().invoke(app, ["catalog", "GAUDI3"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "memory.hbm_gib_per_accelerator" in result.stdout and "Intel" in result.stdout
    assert "not given: hardware.accelerator_rated_w: published figures disagree" in result.stdout


def test_rackcost_catalog_json_and_csv_carry_every_figure_and_price_tier():
    runner = CliRunner()
    data = json.loads(runner.invoke(app, ["catalog", "--format", "json"]).stdout)
    assert sorted(data) == sorted(catalog().entries)
    rows = data["b200"]["figures"]
    assert len(rows) == len(catalog_entry("b200").figures) + 3
    assert all(r["publisher"] and r["document"] and r["date"] and r["provenance"] for r in rows)
    csv_out = runner.invoke(app, ["catalog", "h100", "--format", "csv"]).stdout.splitlines()
    assert csv_out[0] == "entry,path,value,provenance,publisher,document,date,note,why"
    assert len(csv_out) == 1 + len(figure_rows("h100", catalog_entry("h100")))


def test_rackcost_catalog_unknown_entry_is_one_error_line_with_the_entry_it_means():
    result = CliRunner().invoke(app, ["catalog", "mi350x"])
    assert result.exit_code == 1
    assert "did you mean `mi300x`?" in result.stderr or "did you mean `mi355x`?" in result.stderr
    assert "Traceback" not in result.output


def test_rackcost_catalog_writes_to_a_file_and_replaces_it_only_with_force(tmp_path):
    out = tmp_path / "catalog.csv"
    runner = CliRunner()
    assert runner.invoke(app, ["catalog", "--format", "csv", "--output", str(out)]).exit_code == 0
    rows = out.read_text(encoding="utf-8").splitlines()
    assert len(rows) == 1 + sum(len(figure_rows(k, e)) for k, e in ENTRIES)
    again = runner.invoke(app, ["catalog", "b200", "--output", str(out)])
    assert again.exit_code == 1 and "--force" in again.stderr
    assert runner.invoke(app, ["catalog", "b200", "--output", str(out), "--force"]).exit_code == 0
    assert "hardware.accelerator_rated_w" in out.read_text(encoding="utf-8")
