"""Tests for rackcost.analysis.reconcile and ``rackcost reconcile``: InferenceX's $/M tokens, its price tiers, and the
factors
that take it to rackcost's $/M accepted output tokens (issue 12, item 3; docs/model.md, Reconciling with InferenceX)."""

from __future__ import annotations

import copy
import csv
import io
import json
import math
from pathlib import Path

import pytest
from typer.testing import CliRunner

import inferencex_files
import rackcost
from rackcost.analysis.reconcile import inferencex_usd_per_million_tokens, reconcile
from rackcost.cli import app
from rackcost.evaluation.columns import BLENDED
from rackcost.importers import read_inferencex_paths
from rackcost.scenario.loading import bundled_scenario_path, bundled_scenarios, scenario_from_dict, scenario_to_data
from rackcost.scenario.price_tiers import DATA_DIR, PRICE_TIERS_FILE, price_tiers, resolve_price
from rackcost.scenario.schema import ProvenanceClass

runner = CliRunner()
# invented InferenceX-format fixtures (inferencex_files.py): an 8k/1k aggregate on MI355X, an array with an H100 row
AGG_8K1K = inferencex_files.AGG_32
ARRAY = inferencex_files.ARRAY
B200_GB200 = "deepseek-r1-b200-vs-gb200-inferencex"


def _scenario(name: str = B200_GB200) -> rackcost.Scenario:
    return rackcost.load_scenario(bundled_scenario_path(name))


def _product(rows) -> float:
    value = rows[0].usd_per_million_output_tokens
    for row in rows[1:]:
        value *= row.multiplier
    return value


# ---- InferenceX's formula ----------------------------------------------------------------------------------------


def test_the_inferencex_formula_is_price_over_million_tokens_per_gpu_hour():
    # $2.00 per GPU-hour; 1,000 tokens/s per GPU = 3.6 M tokens per GPU-hour: $0.5556 per M; 100 output tokens/s: $5.556
    total, output = inferencex_usd_per_million_tokens(1000.0, 100.0, 2.0)
    assert total == pytest.approx(2.0 / 3.6, rel=1e-15)
    assert output == pytest.approx(2.0 / 0.36, rel=1e-15)


@pytest.mark.parametrize("bad", [0.0, -1.0, math.nan, math.inf])
def test_the_inferencex_formula_refuses_a_figure_that_is_not_positive(bad):
    for args in ((bad, 1.0, 1.0), (1.0, bad, 1.0), (1.0, 1.0, bad)):
        with pytest.raises(ValueError, match="must be a finite number > 0"):
            inferencex_usd_per_million_tokens(*args)


def _imported_scenario(path: Path, gpus: int, **options) -> tuple[rackcost.Scenario, dict]:
    """The B200/GB200 scenario with its first system replaced by the curve imported from an InferenceX file."""
    (curve,) = read_inferencex_paths([path], **options).curves
    data = scenario_to_data(_scenario())
    data.pop("figures", None)
    data["slo"] = {"ttft_limit_ms": 60_000, "tpot_limit_ms": 300, "attainment_fraction": 0.99}
    data["demand"] = [
        {"name": "quiet", "arrival_rps": 1.0, "hours_per_day": 8},
        {"name": "normal", "arrival_rps": 2.8, "hours_per_day": 10},
        {"name": "peak", "arrival_rps": 4.0, "hours_per_day": 6},
    ]
    system = data["systems"][0]
    system["name"] = "imported"
    system["performance"] = copy.deepcopy(curve.performance)
    system["provenance"] = copy.deepcopy(curve.provenance)
    system["hardware"].update(accelerators_per_replica=gpus, accelerators_per_node=gpus)
    system.pop("memory", None)  # the B200's memory for DeepSeek R1: not the imported curve's model and GPUs
    return scenario_from_dict(data), curve.performance


def _assert_reproduces_inferencex(path: Path, tier: str) -> None:
    raw = json.loads(path.read_text())
    scenario, _ = _imported_scenario(path, raw["tp"])
    price = price_tiers()[tier].usd_per_gpu_hour
    r = reconcile(scenario, "imported", tier, output_tokens_per_s_per_gpu=raw["output_tput_per_gpu"])
    assert r.total_tokens_per_s_per_gpu == pytest.approx(raw["tput_per_gpu"], rel=1e-12)
    assert r.inferencex_usd_per_million_total_tokens == pytest.approx(
        price / (raw["tput_per_gpu"] * 3600 / 1e6), rel=1e-12
    )
    assert r.inferencex_usd_per_million_output_tokens == pytest.approx(
        price / (raw["output_tput_per_gpu"] * 3600 / 1e6), rel=1e-12
    )
    # the measured output share against the nominal 1024 / (8192 + 1024)
    (split,) = [row for row in r.rows_at("peak") if row.step == "token_split"]
    nominal = raw["tput_per_gpu"] * 1024 / (8192 + 1024)
    assert split.multiplier == pytest.approx(raw["output_tput_per_gpu"] / nominal, rel=1e-12)
    assert split.multiplier != pytest.approx(1.0, rel=1e-3)


@pytest.mark.parametrize("tier", ["mi355x:hyperscaler-owned", "mi355x:neocloud-owned", "mi355x:rental-3-year"])
def test_an_imported_inferencex_file_reproduces_inferencexs_figures_exactly(tier):
    _assert_reproduces_inferencex(AGG_8K1K, tier)


def test_the_imported_fixtures_figures_by_hand():
    # $1.48 per GPU-hour; the invented run's 830.019375 tokens/s per GPU are 2.98806975 M tokens per GPU-hour
    scenario, _ = _imported_scenario(AGG_8K1K, 8)
    r = reconcile(scenario, "imported", "mi355x:hyperscaler-owned", output_tokens_per_s_per_gpu=90.0)
    assert r.usd_per_gpu_hour == 1.48
    assert r.inferencex_usd_per_million_total_tokens == pytest.approx(1.48 / 2.98806975, rel=1e-12)
    # its output share, 90 of 830.019375 tokens/s, against the nominal 1024 / (8192 + 1024) = 1/9 of them
    (split,) = [row for row in r.rows_at("peak") if row.step == "token_split"]
    assert split.multiplier == pytest.approx(90 * 9 / 830.019375, rel=1e-12)


@pytest.mark.data
def test_an_imported_real_inferencex_file_reproduces_inferencexs_figures_exactly(real_inferencex: Path):
    # the measured output share of the real Kimi-K2.5 8k/1k run: 17.57 of 157.12 tokens/s
    _assert_reproduces_inferencex(real_inferencex / inferencex_files.REAL_AGG_32, "mi355x:neocloud-owned")


def test_a_stage_c_row_with_lengths_given_on_import_reproduces_inferencex_too():
    rows = json.loads(ARRAY.read_text())
    (h100,) = [row for row in rows if row["hw"] == "h100"]
    scenario, _ = _imported_scenario(ARRAY, h100["tp"], isl=1024, osl=1024, only=["hw=h100"])
    r = reconcile(scenario, "imported", "h100:neocloud-owned", output_tokens_per_s_per_gpu=h100["output_tput_per_gpu"])
    assert r.inferencex_usd_per_million_total_tokens == pytest.approx(1.69 / (h100["tput_per_gpu"] * 3.6e-3), rel=1e-12)
    assert r.inferencex_usd_per_million_output_tokens == pytest.approx(
        1.69 / (h100["output_tput_per_gpu"] * 3.6e-3), rel=1e-12
    )


# ---- the factors -------------------------------------------------------------------------------------------------


def _every_bundled_system():
    for path in bundled_scenarios():
        scenario = rackcost.load_scenario(path)
        for system in scenario.systems:
            # an API system has no GPUs to reconcile (its refusal is tested below); a disaggregated one is modelled
            # from two curves where InferenceX prices one measured deployment (its refusal is tested below too)
            if system.api is None and system.pools is None:
                yield pytest.param(path.stem, system.name, id=f"{path.stem}:{system.name}")


@pytest.mark.parametrize(("name", "system"), list(_every_bundled_system()))
def test_the_factors_multiply_to_rackcosts_own_figure_at_every_demand_point_and_blended(name, system):
    scenario = _scenario(name)
    result = rackcost.evaluate(scenario)
    r = reconcile(scenario, system, 2.0)
    points = result.points[result.points["system"] == system]
    expected = dict(zip(points["demand_point"], points["usd_per_million_accepted_output_tokens"], strict=True))
    (blended,) = result.systems.loc[
        result.systems["system"] == system, "blended_usd_per_million_accepted_output_tokens"
    ]
    expected[BLENDED] = blended
    assert list(r.rackcost_usd_per_million_accepted_output_tokens) == list(expected)
    for point, value in expected.items():
        rows = r.rows_at(point)
        assert rows[0].usd_per_million_output_tokens == r.inferencex_usd_per_million_output_tokens
        assert _product(rows) == pytest.approx(value, rel=1e-9)
        assert r.rackcost_usd_per_million_accepted_output_tokens[point] == pytest.approx(value, rel=1e-12)
        # every cost line of an owned system is itemised: no residual
        assert "residual" not in [row.step for row in rows]
        assert all(math.isfinite(row.multiplier) and row.multiplier > 0 for row in rows)


def test_each_factor_is_the_ratio_of_the_figures_it_names():
    scenario = _scenario()
    result = rackcost.evaluate(scenario)
    price = 1.95
    r = reconcile(scenario, "DGX B200", "b200:hyperscaler-owned")
    assert r.usd_per_gpu_hour == price
    sys_row = result.systems[result.systems["system"] == "DGX B200"].iloc[0]
    points = result.points[result.points["system"] == "DGX B200"].set_index("demand_point")
    gpus = sys_row["provisioned_replicas"] * 8
    for point in ("quiet", "normal", "peak"):
        p = points.loc[point]
        f = {row.step: row.multiplier for row in r.rows_at(point)}
        for step in ("token_split", "output_length", "throughput_derate"):  # none of these differ here
            assert f[step] == pytest.approx(1.0, rel=1e-12)
        assert f["utilisation"] == pytest.approx(240.0 / p["offered_rps"], rel=1e-12)
        assert f["accepted"] == pytest.approx(p["offered_rps"] / p["accepted_rps"], rel=1e-12)
        assert f["capital"] == pytest.approx(p["capital_usd_per_hour"] / (price * gpus), rel=1e-12)
        own = p["capital_usd_per_hour"] + p["fixed_opex_usd_per_hour"]
        assert f["fixed_opex"] == pytest.approx(own / p["capital_usd_per_hour"], rel=1e-12)
        assert f["energy"] == pytest.approx(p["total_usd_per_hour"] / own, rel=1e-12)
    f = {row.step: row.multiplier for row in r.rows_at("peak")}
    o = rackcost.evaluation.chain.evaluate_systems(scenario)[0]
    assert f["redundancy"] == pytest.approx(o.provisioned_replicas / o.serving_replicas, rel=1e-12)
    # the SLO's point against the benchmark's: request rates per replica (Little's law on the measured point)
    assert f["slo_operating_point"] == pytest.approx(
        (2558 * 8 / 9216) / float(o.chosen.point.request_rps[0]), rel=1e-12
    )
    assert f["sizing_headroom"] == pytest.approx(
        o.serving_replicas * float(o.fleet.request_rps[0, 0]) / 240.0, rel=1e-12
    )


def test_the_derate_and_the_workloads_output_length_are_factors_of_their_own():
    data = scenario_to_data(_scenario())
    data["uncertainty"] = {"throughput_derate": {"independent": 0.8}}
    data["workload"]["output_tokens_per_request"] = 2048  # the curves stay measured at 1,024 (benchmark_*_tokens)
    data["slo"]["ttft_limit_ms"] = 3000
    data.pop("figures")
    scenario = scenario_from_dict(data)
    r = reconcile(scenario, "DGX B200", 2.0)
    f = {row.step: row.multiplier for row in r.rows_at("peak")}
    assert f["throughput_derate"] == pytest.approx(1 / 0.8, rel=1e-12)
    assert f["output_length"] == pytest.approx(1024 / 2048, rel=1e-12)
    result = rackcost.evaluate(scenario)
    (value,) = result.points.query("system == 'DGX B200' and demand_point == 'peak'")[
        "usd_per_million_accepted_output_tokens"
    ]
    assert _product(r.rows_at("peak")) == pytest.approx(value, rel=1e-9)


def test_a_system_without_capex_folds_the_zero_step_instead_of_dividing_by_it():
    data = scenario_to_data(_scenario())
    data["systems"][0]["costs"].update(capex_usd_per_node=0, capex_usd_per_rack=0)
    data.pop("figures")
    scenario = scenario_from_dict(data)
    r = reconcile(scenario, "DGX B200", 2.0)
    steps = [row.step for row in r.rows_at("quiet")]
    assert "capital+fixed_opex" in steps and "capital" not in steps
    value = rackcost.evaluate(scenario).points.query("system == 'DGX B200' and demand_point == 'quiet'")
    assert _product(r.rows_at("quiet")) == pytest.approx(float(value["usd_per_million_accepted_output_tokens"].iloc[0]))
    assert all(math.isfinite(row.multiplier) and row.multiplier > 0 for row in r.rows)


def test_the_benchmark_point_is_the_measured_one_nearest_the_chosen_point_or_a_given_concurrency():
    scenario = _scenario()
    chosen = reconcile(scenario, "GB200 NVL72", 3.3)
    assert chosen.benchmark_concurrency == pytest.approx(chosen.chosen_concurrency, rel=1e-2)
    concurrencies = sorted(
        float(c) for c in rackcost.evaluation.chain.evaluate_systems(scenario)[1].inputs.curve.concurrency
    )
    low = reconcile(scenario, "GB200 NVL72", 3.3, point=1.0)
    assert low.benchmark_concurrency == concurrencies[0]
    assert low.total_tokens_per_s_per_gpu == 818  # the measured point at 164 tok/s per user
    assert low.inferencex_usd_per_million_total_tokens == pytest.approx(3.3 / (818 * 3.6e-3), rel=1e-12)


# ---- the price tiers ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("gpu", "prices"),
    [
        ("b200", (1.95, 2.34, 2.90)),
        ("gb200", (2.21, 2.75, 3.30)),
        ("h100", (1.30, 1.69, 1.30)),
        ("mi355x", (1.48, 1.90, 2.10)),
    ],
)
def test_the_tiers_are_inferencexs_published_constants(gpu, prices):
    tiers = price_tiers()
    got = tuple(tiers[f"{gpu}:{t}"].usd_per_gpu_hour for t in ("hyperscaler-owned", "neocloud-owned", "rental-3-year"))
    assert got == prices


def test_every_tier_names_its_source_and_provenance():
    tiers = price_tiers()
    assert len(tiers) >= 19
    for tier in tiers.values():
        assert tier.publisher and tier.document and tier.date and tier.meaning
        assert tier.provenance in {c.value for c in ProvenanceClass}
        assert tier.tag in {"E", "D"}
    assert tiers["gb300:hyperscaler-owned"].note and "temporary" in tiers["gb300:hyperscaler-owned"].note
    assert (DATA_DIR / PRICE_TIERS_FILE).is_file()  # inside the package folder, so the wheel carries it


def test_a_bad_tier_file_is_one_line_naming_the_file_the_path_and_what_was_expected(tmp_path):
    text = (DATA_DIR / PRICE_TIERS_FILE).read_text().replace("rental-3-year: 2.90", "rental-3-year: -2.90")
    bad = tmp_path / "tiers.yaml"
    bad.write_text(text)
    with pytest.raises(ValueError) as info:
        price_tiers(bad)
    message = str(info.value)
    assert "\n" not in message
    assert str(bad) in message and "gpus.b200.usd_per_gpu_hour.rental-3-year" in message and "> 0" in message


def test_a_tier_is_found_by_gpu_and_tier_in_any_case_or_by_tier_alone_from_the_systems_name():
    assert resolve_price("B200:Neocloud-Owned")[0] == 2.34
    assert resolve_price("gb200/rental-3-year")[0] == 3.30
    assert resolve_price("hyperscaler-owned", "DGX B200")[0] == 1.95
    assert resolve_price("hyperscaler-owned", "GB200 NVL72")[0] == 2.21  # GB200 is not B200
    price, label, tier = resolve_price(2.5)
    assert (price, tier) == (2.5, None) and "given" in label


@pytest.mark.parametrize(
    ("given", "system", "message"),
    [
        ("b200:cheapest", "x", "unknown price tier 'b200:cheapest': give GPU:TIER (b200 has hyperscaler-owned"),
        ("tpu9:hyperscaler-owned", "x", "unknown price tier 'tpu9:hyperscaler-owned': give GPU:TIER (GPUs: b200"),
        ("gb300:rental-3-year", "x", "gb300 has hyperscaler-owned)"),
        ("hyperscaler-owned", "Jalapeño", "the system 'Jalapeño' names no InferenceX GPU; give GPU:TIER"),
        ("hyperscaler-owned", "B200 and H100 mix", "names several (b200, h100)"),
        (0.0, "x", "must be a number from 0.0001 to 100000 [USD/GPU-h], got 0.0"),
        (math.nan, "x", "must be a number from 0.0001 to 100000"),
    ],
)
def test_a_bad_tier_or_price_is_a_clear_error(given, system, message):
    with pytest.raises(ValueError) as info:
        resolve_price(given, system)
    assert message in str(info.value) and "\n" not in str(info.value)


def test_an_unknown_system_or_a_bad_concurrency_is_a_clear_error():
    scenario = _scenario()
    with pytest.raises(ValueError, match="no system named 'TPU'; the scenario has: DGX B200, GB200 NVL72"):
        reconcile(scenario, "TPU", 2.0)
    with pytest.raises(ValueError, match="concurrency must be a number from 0.001 to 1e7"):
        reconcile(scenario, "DGX B200", 2.0, point=0.0)


# ---- the command -------------------------------------------------------------------------------------------------


def test_the_command_prints_the_table_for_a_tier():
    result = runner.invoke(app, ["reconcile", B200_GB200, "--system", "DGX B200", "--tier", "b200:hyperscaler-owned"])
    assert result.exit_code == 0, result.output
    out = result.stdout
    r = reconcile(_scenario(), "DGX B200", "b200:hyperscaler-owned")
    assert "InferenceX b200:hyperscaler-owned $1.95 per GPU-hour" in out and "SemiAnalysis" in out
    assert f"${r.inferencex_usd_per_million_output_tokens:.4g}" in out
    assert f"${r.rackcost_usd_per_million_accepted_output_tokens[BLENDED]:.4g}" in out
    factors = " ".join(line.split("│")[1].strip() for line in out.splitlines() if line.startswith("│"))
    for words in ("utilisation", "redundancy", "capital recovery factor", "energy at PUE"):
        assert words in factors  # the factor column, its lines joined (it wraps to fit the width)
    assert "blended" in out


def test_the_command_writes_json_and_csv_with_the_librarys_figures():
    args = ["reconcile", B200_GB200, "--system", "GB200 NVL72", "--usd-per-gpu-hour", "3.3"]
    r = reconcile(_scenario(), "GB200 NVL72", 3.3)
    as_json = runner.invoke(app, [*args, "--format", "json"])
    assert as_json.exit_code == 0, as_json.output
    data = json.loads(as_json.stdout)
    assert data["inferencex_usd_per_million_output_tokens"] == r.inferencex_usd_per_million_output_tokens
    assert data["rackcost_usd_per_million_accepted_output_tokens"] == r.rackcost_usd_per_million_accepted_output_tokens
    assert data["tier"] is None and len(data["rows"]) == len(r.rows)
    as_csv = runner.invoke(app, [*args, "--format", "csv"])
    assert as_csv.exit_code == 0, as_csv.output
    rows = list(csv.DictReader(io.StringIO(as_csv.stdout)))
    assert list(rows[0]) == ["demand_point", "step", "factor", "multiplier", "usd_per_million_output_tokens", "detail"]
    assert [float(row["multiplier"]) for row in rows] == [row.multiplier for row in r.rows]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--system", "DGX B200", "--tier", "b200:cheapest"], "error: unknown price tier 'b200:cheapest'"),
        (["--system", "DGX B200"], "give exactly one of --tier NAME and --usd-per-gpu-hour X"),
        (["--system", "DGX B200", "--tier", "b200:neocloud-owned", "--usd-per-gpu-hour", "2"], "exactly one of"),
        (["--tier", "b200:neocloud-owned"], "give the system to reconcile: --system NAME"),
        (["--system", "TPU", "--usd-per-gpu-hour", "2"], "no system named 'TPU'"),
        (["--system", "DGX B200", "--usd-per-gpu-hour", "-1"], "must be a number from 0.0001 to 100000"),
    ],
)
def test_a_user_mistake_is_one_error_line_and_exit_code_1(args, message):
    result = runner.invoke(app, ["reconcile", B200_GB200, *args])
    assert result.exit_code == 1, result.output
    assert message in result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.output


def test_the_worked_example_in_docs_model_md_is_what_the_code_gives():
    text = (Path(__file__).resolve().parents[1] / "docs" / "model.md").read_text(encoding="utf-8")
    r = reconcile(_scenario(), "DGX B200", "b200:hyperscaler-owned")
    quiet = {row.step: row.multiplier for row in r.rows_at("quiet")}
    figures = r.rackcost_usd_per_million_accepted_output_tokens
    example = (
        f"InferenceX's ${r.inferencex_usd_per_million_output_tokens:.2f} per M output tokens (at "
        f"{r.output_tokens_per_s_per_gpu:.0f} output tokens/s per GPU) becomes ${figures['peak']:.2f} at peak and "
        f"${figures['quiet']:.2f} at quiet:\nx{quiet['utilisation']:.0f} of it is the quiet hours' utilisation, "
        f"x{quiet['fixed_opex']:.2f} the fixed opex"
    )
    assert example in text


def test_an_api_system_is_refused_with_a_reason():
    scenario = rackcost.load_scenario(rackcost.bundled_scenario_path("deepseek-r1-own-vs-rent-vs-api.yaml"))
    with pytest.raises(ValueError, match="API system"):
        reconcile(scenario, "DeepSeek API (deepseek-reasoner)", 3.3)


def test_a_disaggregated_bundled_system_is_refused_with_a_reason():
    # docs/model.md, "Disaggregated prefill and decode": InferenceX prices one measured deployment, a system of pools
    # is modelled from two curves; its aggregated neighbour in the same file reconciles
    scenario = rackcost.load_scenario(bundled_scenario_path("deepseek-r1-b200-aggregated-vs-disaggregated"))
    with pytest.raises(ValueError, match=r"disaggregated \(pools\)"):
        reconcile(scenario, "DGX B200 disaggregated", 2.34)
    assert reconcile(scenario, "DGX B200 aggregated", 2.34) is not None
