"""The power law fitted to public measurements (issue 20, item 3): its closed form, its fit, its check and its
effect on the default scenario.

Source of the measurements: the ML.ENERGY leaderboard's compiled data (ML.ENERGY initiative,
github.com/ml-energy/leaderboard, public/data/models/*.json, Apache-2.0); tests of the real file (marked ``data``)
read it through the ``shared_data`` fixture and skip where it is absent. The always-run tests use small curves
written here.
"""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path

import numpy as np
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import rackcost
from rackcost.cli.entry import app
from rackcost.importers.power_csv import PowerCsvError, read_power_curves
from rackcost.model.energy import power_law
from rackcost.model.energy.power import accelerator_power_w
from rackcost.model.energy.power_law import FITTED, GENERIC, PowerCurve, family_of, fit_exponent, fit_for

runner = CliRunner()
MEASUREMENTS = Path("mlenergy") / "power_vs_batch.csv"
COLUMNS = "model,task,gpu,num_gpus,max_num_seqs,avg_batch_size,avg_power_w_all_gpus\n"


def law_curve(model: str, alpha: float, idle: float = 75.0, top: float = 600.0, gpus: int = 1) -> list[str]:
    """CSV rows of a curve that follows the law exactly, with ``gpus`` accelerators per replica."""
    rows = []
    for batch in (1, 4, 16, 64, 256):
        power = idle + (top - idle) * (batch / 256) ** alpha
        rows.append(f"{model},chat,H100,{gpus},{batch},{batch * gpus},{power * gpus}")
    return rows


def write_csv(tmp_path: Path, rows: list[str], name: str = "power.csv") -> Path:
    path = tmp_path / name
    path.write_text(COLUMNS + "\n".join(rows) + "\n", encoding="utf-8")
    return path


def test_the_law_is_idle_at_zero_and_the_top_power_at_the_operating_point():
    # closed form: idle + (top - idle) * u ** alpha
    assert accelerator_power_w(0.0, 75.0, 700.0, 0.1) == 75.0
    assert accelerator_power_w(1.0, 75.0, 700.0, 0.1) == 700.0
    assert float(accelerator_power_w(0.25, 75.0, 700.0, 0.5)) == pytest.approx(75.0 + 625.0 * 0.5, rel=1e-15)


@settings(max_examples=60, deadline=None)
@given(
    u=st.floats(0.0, 1.0),
    du=st.floats(0.0, 1.0),
    alpha=st.floats(0.0, 3.0),
    idle=st.floats(0.0, 500.0),
    rise=st.floats(0.0, 1000.0),
)
def test_more_requests_in_service_never_draw_less_power(u, du, alpha, idle, rise):
    low = float(accelerator_power_w(u, idle, idle + rise, alpha))
    high = float(accelerator_power_w(min(1.0, u + du), idle, idle + rise, alpha))
    assert idle - 1e-9 <= low <= high + 1e-9 <= idle + rise + 2e-9


def test_a_smaller_exponent_draws_more_power_below_the_operating_point():
    # the fitted laws are concave: at a batch of 8 of 256 the H100 fit draws 74% of the way from idle to the top,
    # the linear law 3%
    u = 8 / 256
    fitted = float(accelerator_power_w(u, 75.0, 700.0, FITTED["H100"].exponent))
    linear = float(accelerator_power_w(u, 75.0, 700.0, 1.0))
    assert (fitted - 75.0) / 625.0 == pytest.approx(u ** FITTED["H100"].exponent, rel=1e-12)
    assert fitted > 0.7 * 700.0 and linear < 0.2 * 700.0


def test_families_of_accelerator_names():
    assert [family_of(n) for n in ("H100", "h200 SXM", "GH200", "B200", "GB300 NVL72", "MI355X", "", None)] == [
        "H100",
        "H100",
        "H100",
        "B200",
        "B200",
        "generic",
        "generic",
        "generic",
    ]
    assert fit_for("Jalapeño") is GENERIC and fit_for("GB200") is FITTED["B200"]


def test_the_fit_recovers_the_exponent_of_curves_that_follow_the_law(tmp_path):
    rows = law_curve("m1", 0.2) + law_curve("m2", 0.2, top=500.0, gpus=8)
    curves = read_power_curves(write_csv(tmp_path, rows), {"H100": 75.0})
    assert [c.key for c in curves] == [("m1", "chat", "H100", "1"), ("m2", "chat", "H100", "8")]
    assert curves[1].in_service.tolist() == [1, 4, 16, 64, 256]  # per accelerator: divided by the 8 GPUs
    assert fit_exponent(curves) == pytest.approx(0.2, abs=1e-4)
    assert power_law.mean_absolute_percentage_error(curves, 0.2) == pytest.approx(0.0, abs=1e-12)


def test_the_error_of_a_wrong_exponent_is_the_closed_form():
    n = np.array([128.0, 256.0])
    curve = PowerCurve(("m", "t", "H100", "1"), "H100", "H100", n, np.array([400.0, 700.0]), 100.0)
    # linear law at half the top batch: 100 + 600 * 0.5 = 400, exact, whichever the anchor
    assert power_law.curve_errors(curve, 1.0).tolist() == [0.0, 0.0]
    assert power_law.top_anchored_errors(curve, 1.0).tolist() == [0.0, 0.0]
    # alpha = 0, anchored at the top: 700 everywhere, |700 - 400| / 400. The fitted anchor is the weighted median
    # of the measured powers, weights 1 / P: 1/400 is more than half of 1/400 + 1/700, so 400, off by 300 / 700
    assert power_law.top_anchored_errors(curve, 0.0).tolist() == [0.75, 0.0]
    assert power_law.anchor_power_w(curve, 0.0) == 400.0
    assert power_law.curve_errors(curve, 0.0).tolist() == pytest.approx([0.0, 3 / 7], rel=1e-15)


# ------------------------------------------------------------------ the anchor: fitted on every measured point


def _curve(n, power, idle=75.0, model="m"):
    n, power = np.asarray(n, dtype=float), np.asarray(power, dtype=float)
    return PowerCurve((model, "chat", "H100", "1"), "H100", "H100", n, power, idle)


BATCHES = np.array([1.0, 4.0, 16.0, 64.0, 256.0])


def test_a_curve_of_one_point_is_anchored_at_that_point():
    # a scenario's single busy figure, measured with every slot busy, is the anchor itself: n = n_top, u = 1
    for alpha in (0.0, 0.1, 1.0):
        assert power_law.anchor_power_w(_curve([256.0], [612.5]), alpha) == 612.5
        assert power_law.curve_errors(_curve([256.0], [612.5]), alpha).tolist() == [0.0]


def test_two_points_of_equal_weight_are_anchored_at_their_midpoint():
    # every top between the two minimises the sum of weighted distances: the midpoint is the one taken
    assert power_law._weighted_median(np.array([500.0, 700.0]), np.array([1.0, 1.0])) == 600.0
    assert power_law._weighted_median(np.array([700.0, 500.0, 600.0]), np.array([1.0, 1.0, 1.0])) == 600.0


@pytest.mark.parametrize("factor", [0.6, 0.8, 1.25, 1.5])
def test_one_noisy_top_point_moves_neither_the_anchor_nor_the_exponent(factor):
    # three curves exactly on the law (alpha 0.2, tops 500-600 W), one of them with its largest batch off by
    # `factor`: the fitted anchor stays at that curve's true top and the exponent at 0.2 (to the minimiser's
    # tolerance); the top-anchored law inherits the noise at every batch of that curve
    tops = (500.0, 550.0, 600.0)
    curves = [_curve(BATCHES, 75 + (t - 75) * (BATCHES / 256) ** 0.2, model=f"m{k}") for k, t in enumerate(tops)]
    noisy = curves[1].power_w.copy()
    noisy[-1] *= factor
    curves[1] = _curve(BATCHES, noisy, model="m1")
    assert power_law.anchor_power_w(curves[1], 0.2) == pytest.approx(550.0, rel=1e-12)
    assert fit_exponent(curves) == pytest.approx(0.2, abs=1e-4)
    fitted, top = power_law.curve_errors(curves[1], 0.2), power_law.top_anchored_errors(curves[1], 0.2)
    assert fitted[:-1] == pytest.approx(np.zeros(4), abs=1e-12)
    assert fitted[-1] == pytest.approx(abs(1 / factor - 1), rel=1e-9)  # only the noisy point is off
    assert top[:-1].min() > 0.5 * abs(factor - 1)  # anchored on the noise: every other batch off by about as much


def test_the_fit_recovers_exponent_and_anchor_of_curves_that_follow_the_law_off_the_top():
    # closed form: curves on the law whose largest batch is not the top of the law's range (u runs to 1 anyway,
    # n_top being the largest measured batch), with different tops and idles: the exponent is recovered, each anchor
    # is its curve's power at its largest batch and no point has an error
    curves = [
        _curve(BATCHES * k, idle + (top - idle) * (BATCHES / 256) ** 0.35, idle=idle, model=f"m{k}")
        for k, (idle, top) in enumerate([(60.0, 450.0), (75.0, 700.0), (110.0, 950.0)], start=1)
    ]
    assert fit_exponent(curves) == pytest.approx(0.35, abs=1e-4)
    for c in curves:
        assert power_law.anchor_power_w(c, 0.35) == pytest.approx(float(c.power_w[-1]), rel=1e-12)
    assert power_law.mean_absolute_percentage_error(curves, 0.35) == pytest.approx(0.0, abs=1e-12)


powers = st.lists(st.floats(80.0, 2000.0), min_size=1, max_size=8)


@settings(max_examples=60, deadline=None)
@given(watts=powers, alpha=st.floats(0.0, 1.5), idle=st.floats(0.0, 75.0), step=st.floats(-0.1, 0.1))
def test_the_anchor_is_the_top_of_least_error_and_within_the_implied_tops(watts, alpha, idle, step):
    # the weighted median minimises the curve's mean absolute percentage error over the top power: no other top
    # does better (the top-anchored law is one of them), and it lies among the tops the points imply
    n = 2.0 ** np.arange(len(watts))
    curve = _curve(n, watts, idle=idle)
    anchor = power_law.anchor_power_w(curve, alpha)
    implied = idle + (curve.power_w - idle) / (n / n[-1]) ** alpha
    assert implied.min() - 1e-9 * anchor <= anchor <= implied.max() + 1e-9 * anchor
    best = float(power_law.curve_errors(curve, alpha).mean())
    other = float(power_law._errors(curve, alpha, anchor * (1.0 + step)).mean())
    assert best <= other + 1e-12
    assert best <= float(power_law.top_anchored_errors(curve, alpha).mean()) + 1e-12


@settings(max_examples=40, deadline=None)
@given(watts=powers, alpha=st.floats(0.0, 1.5), scale=st.floats(0.1, 10.0))
def test_the_anchor_scales_with_the_powers_and_the_error_does_not(watts, alpha, scale):
    # a relative error: the same curve in other units (powers and idle times k) has its anchor times k, same errors
    n = 2.0 ** np.arange(len(watts))
    one, other = _curve(n, watts, idle=50.0), _curve(n, np.asarray(watts) * scale, idle=50.0 * scale)
    assert power_law.anchor_power_w(other, alpha) == pytest.approx(power_law.anchor_power_w(one, alpha) * scale)
    np.testing.assert_allclose(power_law.curve_errors(other, alpha), power_law.curve_errors(one, alpha), atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(watts=st.lists(st.floats(100.0, 1500.0), min_size=2, max_size=6), alpha=st.floats(0.0, 1.0))
def test_the_fitted_law_rises_from_idle_to_its_anchor(watts, alpha):
    # with the anchor at or above idle, the law's prediction along the curve is monotone in the batch and between
    # idle and the anchor (what the scenario's accelerator_power_w draws between idle and busy power)
    n = 2.0 ** np.arange(len(watts))
    curve = _curve(n, watts, idle=75.0)
    anchor = power_law.anchor_power_w(curve, alpha)
    predicted = accelerator_power_w(n / n[-1], 75.0, anchor, alpha)
    assert anchor >= 75.0
    assert np.all(np.diff(predicted) >= -1e-9) and 75.0 - 1e-9 <= predicted.min() <= predicted.max() <= anchor + 1e-9


def test_the_held_out_error_is_zero_when_every_model_follows_one_law(tmp_path):
    rows = [r for k in range(6) for r in law_curve(f"m{k}", 0.15, top=500.0 + 20 * k)]
    curves = read_power_curves(write_csv(tmp_path, rows), {"H100": 75.0})
    held = power_law.held_out_errors(curves, splits=5, seed=1)
    assert held.shape == (5,) and float(held.max()) < 1e-5


@pytest.mark.parametrize(
    ("row", "expected"),
    [
        ("m,chat,H100,1,8,0,300", "column avg_batch_size: expected a number > 0, got zero"),
        ("m,chat,H100,1,8,8,-5", "column avg_power_w_all_gpus: expected a number > 0, got a negative number"),
        ("m,chat,H100,1,8,8,", "column avg_power_w_all_gpus: expected a number, got nothing (empty)"),
        ("m,chat,H100,1.5,8,8,300", "column num_gpus: expected a whole number of accelerators, got a fraction"),
        ("m,chat,TPU,1,8,8,300", "no idle power for GPU 'TPU'; give one with --idle-w TPU=WATTS"),
    ],
)
def test_a_bad_row_names_the_file_the_line_and_the_column(tmp_path, row, expected):
    path = write_csv(tmp_path, [*law_curve("ok", 0.1), row])
    with pytest.raises(PowerCsvError) as info:
        read_power_curves(path, {"H100": 75.0})
    assert str(info.value) == f"{path}:7: {expected}"


def test_missing_columns_are_named(tmp_path):
    path = tmp_path / "p.csv"
    path.write_text("model,task,gpu,num_gpus\nm,chat,H100,1\n", encoding="utf-8")
    result = runner.invoke(app, ["power", "check", str(path)])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "missing columns avg_batch_size, avg_power_w_all_gpus" in result.output


def test_power_check_prints_the_error_per_gpu_as_json(tmp_path):
    # curves that follow the H100 fit exactly have no error; one at the linear law has the closed-form error
    alpha = FITTED["H100"].exponent
    rows = law_curve("a", alpha) + law_curve("b", alpha)
    result = runner.invoke(app, ["power", "check", str(write_csv(tmp_path, rows)), "--format", "json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)
    assert payload["points_by_gpu"] == {"H100": 10}
    assert payload["mape_by_gpu"]["H100"] == pytest.approx(0.0, abs=1e-12)
    linear = law_curve("c", 1.0)
    result = runner.invoke(app, ["power", "check", str(write_csv(tmp_path, linear, "lin.csv")), "-f", "json"])
    u = np.array([1, 4, 16, 64, 256]) / 256
    measured = 75.0 + 525.0 * u
    # anchored at the largest batch (600 W): the closed form at each batch
    top_anchored = np.abs(75.0 + 525.0 * u**alpha - measured) / measured
    payload = json.loads(result.output)
    assert payload["mape_top_anchored_by_gpu"]["H100"] == pytest.approx(float(top_anchored.mean()), rel=1e-12)
    # anchored at the best top: by brute force, the least mean error over the tops the points imply (a weighted
    # median is one of them), against the anchor the command fitted
    implied = 75.0 + (measured - 75.0) / u**alpha
    best = min(float(np.mean(np.abs(75.0 + (t - 75.0) * u**alpha - measured) / measured)) for t in implied)
    assert payload["mape_by_gpu"]["H100"] == pytest.approx(best, rel=1e-12)
    assert best < 0.2 * float(top_anchored.mean())


def test_an_idle_power_option_that_is_not_gpu_equals_watts_is_one_line(tmp_path):
    path = write_csv(tmp_path, law_curve("a", 0.1))
    result = runner.invoke(app, ["power", "check", str(path), "--idle-w", "H100:75"])
    assert result.exit_code == 1 and "expected GPU=WATTS" in result.output and "Traceback" not in result.output


@pytest.mark.data
def test_the_packaged_coefficients_are_what_power_fit_gives_on_the_measurements(shared_data):
    result = runner.invoke(app, ["power", "fit", str(shared_data / MEASUREMENTS), "--format", "json"])
    assert result.exit_code == 0, result.output
    fits = {f["family"]: f for f in json.loads(result.output)["fits"]}
    for family, law in FITTED.items():
        assert fits[family]["exponent"] == pytest.approx(law.exponent, abs=5e-5)
        assert fits[family]["exponent_high"] == pytest.approx(law.exponent_high, abs=5e-5)
        assert (fits[family]["curves"], fits[family]["points"]) == (law.curves, law.points)
        assert fits[family]["mape_held_out"] == pytest.approx(law.mape_held_out, abs=5e-5)
    assert fits["all"]["exponent"] == pytest.approx(GENERIC.exponent, abs=5e-5)


@pytest.mark.data
def test_power_fit_on_the_measurements_meets_the_held_out_goals(shared_data):
    # the goal: at most 12% on B200 and 8% on H100 for models left out of the fit (mean of 20 random halves of the
    # models, seed 0), from the command. Anchored at each curve's largest batch the law missed it on B200 (13.9%):
    # 9 of its 29 curves draw less at their largest batch than below it; with the fitted anchor 7.8% (H100 4.9%)
    result = runner.invoke(app, ["power", "fit", str(shared_data / MEASUREMENTS), "--format", "json"])
    assert result.exit_code == 0, result.output
    fits = {f["family"]: f for f in json.loads(result.output)["fits"]}
    assert fits["B200"]["mape_held_out"] <= 0.12
    assert fits["H100"]["mape_held_out"] <= 0.08
    # the anchor is what moved it: the same exponent anchored at the largest batch alone is worse on both
    for family in ("B200", "H100"):
        assert fits[family]["mape_top_anchored"] > fits[family]["mape"] + 0.02


@pytest.mark.data
def test_power_check_on_the_measurements_states_the_error_per_gpu(shared_data):
    result = runner.invoke(app, ["power", "check", str(shared_data / MEASUREMENTS), "--format", "json"])
    payload = json.loads(result.output)
    assert payload["points_by_gpu"] == {"B200": 241, "H100": 242}
    assert payload["mape_by_gpu"]["H100"] == pytest.approx(FITTED["H100"].mape, abs=5e-5)
    assert payload["mape_by_gpu"]["B200"] == pytest.approx(FITTED["B200"].mape, abs=5e-5)
    assert FITTED["H100"].mape_held_out <= 0.08 and FITTED["B200"].mape_held_out <= 0.12
    # the linear law it replaces (with its own best anchors) is several times worse on the same points
    curves = read_power_curves(shared_data / MEASUREMENTS, power_law.DEFAULT_IDLE_W)
    for gpu in ("H100", "B200"):
        mine = [c for c in curves if c.accelerator == gpu]
        linear = power_law.mean_absolute_percentage_error(mine, 1.0)
        assert linear > 3 * power_law.mean_absolute_percentage_error(mine, FITTED[gpu].exponent)


# ------------------------------------------------------------------- the default scenario, before and after


def _default(exponent: float | None) -> rackcost.Result:
    data = yaml.safe_load(rackcost.bundled_scenario_path().read_text(encoding="utf-8"))
    data = copy.deepcopy(data)
    if exponent is not None:
        data["fleet"]["power_utilization_exponent"] = exponent
    return rackcost.evaluate(rackcost.scenario_from_dict(data))


def test_quiet_hour_power_and_tokens_per_kwh_on_the_default_scenario_before_and_after():
    # Before: the linear law (exponent 1, rackcost 0.x's default). After: the fitted law (GB300 takes the B200 fit,
    # u ** 0.0306; Jalapeño, an accelerator without a fit, the fit of both, u ** 0.0589). At the quiet hour a
    # replica's slots are 4.5-4.8% busy: the linear law put its accelerators at 5% of the way from idle to busy,
    # the fitted law at 83-91%, so the quiet hour's facility power about doubles and its tokens per kWh halve.
    before, after = _default(1.0), _default(None)

    def quiet(result, system):
        (row,) = [r for r in result.records["points"] if r["system"] == system and r["demand_point"] == "quiet"]
        return row

    figures = {
        # system: (facility kW before, after, output tokens per kWh before, after)
        "GB300 NVL72": (540.528, 1043.845, 2_046_000, 1_059_467),
        "Jalapeño": (382.783, 771.927, 2_889_154, 1_432_674),
    }
    for system, (kw_before, kw_after, tok_before, tok_after) in figures.items():
        b, a = quiet(before, system), quiet(after, system)
        assert b["facility_power_kw"] == pytest.approx(kw_before, rel=1e-5)
        assert a["facility_power_kw"] == pytest.approx(kw_after, rel=1e-5)
        assert b["output_tokens_per_kwh"] == pytest.approx(tok_before, rel=1e-5)
        assert a["output_tokens_per_kwh"] == pytest.approx(tok_after, rel=1e-5)
        # the same fleet serves the same requests: only the power moved
        assert (a["accepted_rps"], a["provisioned_replicas"]) == (b["accepted_rps"], b["provisioned_replicas"])
        # and the closed form: the serving accelerators' share of the rise is u ** alpha instead of u
        alpha = fit_for("GB300" if system.startswith("GB300") else "Jalapeño").exponent
        assert a["utilization_fraction"] ** alpha > 0.83
    assert math.isclose(FITTED["B200"].exponent, 0.0306) and math.isclose(GENERIC.exponent, 0.0589)


def test_a_systems_own_exponent_overrides_the_fleets_and_the_fitted_law():
    data = yaml.safe_load(rackcost.bundled_scenario_path().read_text(encoding="utf-8"))
    data["fleet"]["power_utilization_exponent"] = 1.0
    data["systems"][0]["hardware"]["power_exponent"] = 0.5
    mixed = rackcost.evaluate(rackcost.scenario_from_dict(data))
    linear, half = _default(1.0), _default(0.5)

    def power(result, system):
        return [r["facility_power_kw"] for r in result.records["points"] if r["system"] == system]

    assert power(mixed, "GB300 NVL72") == power(half, "GB300 NVL72")
    assert power(mixed, "Jalapeño") == power(linear, "Jalapeño")


def test_the_exponent_may_be_a_distribution_the_monte_carlo_draws():
    # the law's spread: the 5th-95th percentiles of the exponents fitted to each curve alone (B200: 0 to 0.288)
    data = yaml.safe_load(rackcost.bundled_scenario_path().read_text(encoding="utf-8"))
    law = FITTED["B200"]
    data["systems"][0]["hardware"]["power_exponent"] = {
        "dist": "triangular",
        "low": law.exponent_low,
        "mode": law.exponent,
        "high": law.exponent_high,
    }
    sc = rackcost.scenario_from_dict(data)
    assert "systems[0].hardware.power_exponent" in sc.distributions
    rows = rackcost.tornado(sc)
    (row,) = [r for r in rows if r["input"] == "systems[0].hardware.power_exponent"]
    assert row["GB300 NVL72@swing"] > 0 and row["Jalapeño@swing"] == 0


# ------------------------------------------------------------------------------------- peak power (item 4)


def test_peak_power_is_the_mean_times_the_ratio_held_at_rated_power():
    from rackcost.model.energy.power import PEAK_TO_MEAN_POWER, peak_accelerator_power_w

    # InferenceX's measured B200 DeepSeek-R1 FP4 peaks over means at concurrency 16 / 64 / 128 / 256:
    # 626.4 / 429.7, 741.0 / 497.0, 770.9 / 571.7, 862.7 / 566.9; the default is their mean
    ratios = [626.4 / 429.7, 741.0 / 497.0, 770.9 / 571.7, 862.7 / 566.9]
    assert PEAK_TO_MEAN_POWER == pytest.approx(sum(ratios) / 4, abs=0.005)
    assert peak_accelerator_power_w(400.0, 1000.0).tolist() == pytest.approx(580.0)
    assert float(peak_accelerator_power_w(900.0, 1000.0)) == 1000.0  # the board's power limit
    assert float(peak_accelerator_power_w(1100.0, 1000.0)) == 1100.0  # a measured mean above the rating stands


def test_peak_it_power_adds_each_serving_accelerators_rise_to_its_peak():
    # closed form: peak IT - mean IT = serving accelerators x (min(m x 1.45, max(rated, m)) - m), m the mean power
    # of a serving accelerator at the point (the fitted law at its utilisation); idle, hosts, racks unchanged
    from rackcost.model.energy.power import PEAK_TO_MEAN_POWER

    data = yaml.safe_load(rackcost.bundled_scenario_path().read_text(encoding="utf-8"))
    result = rackcost.evaluate(rackcost.scenario_from_dict(data))
    for system in data["systems"]:
        hw = system["hardware"]
        idle, busy, rated = hw["accelerator_idle_w"], hw["accelerator_busy_w"], hw["accelerator_rated_w"]
        alpha = fit_for(hw["accelerator"]).exponent
        rows = [r for r in result.records["points"] if r["system"] == system["name"]]
        for r in rows:
            m = idle + (busy - idle) * r["utilization_fraction"] ** alpha
            rise = min(m * PEAK_TO_MEAN_POWER, max(rated, m)) - m
            serving = r["active_replicas"] * hw["accelerators_per_replica"]
            assert (r["peak_it_power_kw"] - r["it_power_kw"]) * 1000 == pytest.approx(serving * rise, rel=1e-9)
            pue = r["facility_power_kw"] / r["it_power_kw"]
            assert r["peak_facility_power_kw"] == pytest.approx(r["peak_it_power_kw"] * pue, rel=1e-12)
            assert r["peak_it_power_kw_per_rack"] == pytest.approx(r["peak_it_power_kw"] / r["racks"], rel=1e-12)
            assert r["it_power_kw"] <= r["peak_it_power_kw"]


def test_the_site_check_holds_the_peak_and_says_so():
    data = yaml.safe_load(rackcost.bundled_scenario_path().read_text(encoding="utf-8"))
    result = rackcost.evaluate(rackcost.scenario_from_dict(data))
    peak = max(r["peak_it_power_kw"] for r in result.records["points"] if r["system"] == "Jalapeño")
    rated = next(r["provisioned_it_kw"] for r in result.records["systems"] if r["system"] == "Jalapeño")
    assert peak < rated
    # a site between the peak and the rated power: the fleet fits at its peak, not on its nameplate
    data["facility"]["max_it_power_kw"] = (peak + rated) / 2
    (warning,) = [
        w for w in rackcost.evaluate(rackcost.scenario_from_dict(data)).warnings if w.startswith("Jalapeño: the fleet")
    ]
    assert "of rated IT power, above the site's" in warning and "peak IT power is" in warning and "fits" in warning
    data["facility"]["max_it_power_kw"] = peak * 0.99
    (warning,) = [
        w for w in rackcost.evaluate(rackcost.scenario_from_dict(data)).warnings if w.startswith("Jalapeño: the fleet")
    ]
    assert f"its peak IT power is {peak:,.4g} kW" in warning and "rackcost site gives the largest fleet" in warning


def test_a_curve_with_measured_peaks_uses_their_ratio():
    # two measured points with mean and peak board power: the ratio is the mean of their peak / mean
    from reference import TWO_SYSTEMS

    data = yaml.safe_load(TWO_SYSTEMS.read_text(encoding="utf-8"))
    points = data["systems"][0]["performance"]["points"]
    for p, (mean, peak) in zip(points, [(300.0, 390.0), (400.0, 560.0), (450.0, 600.0)], strict=False):
        p["power_w_per_accelerator"], p["peak_power_w_per_accelerator"] = mean, peak
    sc = rackcost.scenario_from_dict(data)
    from rackcost.scenario.unpack import system_inputs

    measured = [p for p in points if "peak_power_w_per_accelerator" in p]
    expected = sum(p["peak_power_w_per_accelerator"] / p["power_w_per_accelerator"] for p in measured) / len(measured)
    assert system_inputs(sc, sc.systems[0]).peak_to_mean_power == pytest.approx(expected, rel=1e-15)
    assert system_inputs(sc, sc.systems[1]).peak_to_mean_power == 1.45  # B measures no peak: the cited default
