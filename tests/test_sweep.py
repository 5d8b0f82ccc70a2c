"""Sweeps (issue 13): every configuration equals rackcost.evaluate of its own scenario, whatever the chunking and
the Dask scheduler; winners and Pareto fronts against brute force; bad input named."""

from __future__ import annotations

import copy
import json
import logging
import os
import time
from pathlib import Path

import numpy as np
import pandas as pd
import psutil
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import rackcost
from rackcost.analysis.sweep import chunks as sweep_chunks
from rackcost.analysis.sweep.bounds import CONFIRM_ROWS
from rackcost.analysis.sweep.chunks import evaluate_chunk
from rackcost.analysis.sweep.design import VECTOR_PATH
from rackcost.analysis.sweep.run import CONNECT_TIMEOUT_S, SweepError, run_sweep, sweep
from rackcost.analysis.sweep.spec import bundled_sweeps, load_sweep, sweep_json_schema
from rackcost.analysis.sweep.summary import pareto_front, winners
from rackcost.analysis.sweep.table import numeric_axes_as_floats
from rackcost.cli import app
from rackcost.errors import ScenarioError
from rackcost.scenario.loading import load_scenario, scenario_from_dict, scenario_to_data

DEFAULT = "deepseek-r1-jalapeno-vs-gb300"
GAUDI = "llama-3.3-70b-gaudi25-tp-precision"
RENT_API = "deepseek-r1-own-vs-rent-vs-api"
# columns of a sweep row and of rackcost.evaluate's points table that must agree exactly
POINT_COLUMNS = [*sweep_chunks.POINT_COLUMNS, "provisioned_replicas", "racks"]
SYSTEM_COLUMNS = ["blended_usd_per_accepted_request", "blended_usd_per_million_accepted_output_tokens", "capex_usd"]

runner = CliRunner()


def set_path(data: dict, path: str, value) -> None:
    """Set a value by YAML path in plain data (independently of the sweep's own edit function)."""
    from rackcost.scenario.yaml_paths import parse_path

    loc = parse_path(path)
    node = data
    for part in loc[:-1]:
        node = node[part]
    if value is None:
        node.pop(loc[-1], None)
    else:
        node[loc[-1]] = copy.deepcopy(value)


def expected_scenario(base: str, row: pd.Series, numeric_axes: list[str], scale: bool = True):
    """The scenario of one configuration, built by hand: the base with the row's axis values."""
    data = scenario_to_data(load_scenario(base))
    for path in numeric_axes:
        set_path(data, path, float(row[path]))
    if scale and "demand.scale" in row:
        for point in data["demand"]:
            point["arrival_rps"] = point["arrival_rps"] * float(row["demand.scale"])
    return scenario_from_dict(data)


def assert_rows_equal_evaluate(frame: pd.DataFrame, configs: list[int], build) -> None:
    """Each configuration's rows equal rackcost.evaluate of its scenario, bit for bit."""
    for c in configs:
        rows = frame[frame["configuration"] == c]
        result = rackcost.evaluate(build(rows.iloc[0]))
        points = result.points
        systems = result.systems.set_index("system")
        assert list(rows["system"].astype(str)) == list(points["system"])
        assert list(rows["demand_point"].astype(str)) == list(points["demand_point"])
        for col in POINT_COLUMNS:
            mine = rows[col].to_numpy(dtype=float, na_value=np.nan)
            theirs = pd.to_numeric(points[col], errors="coerce").to_numpy(dtype=float)
            api = points["system"].map(systems["payment"]).to_numpy() == "api"
            np.testing.assert_array_equal(mine[~api], theirs[~api], err_msg=f"configuration {c}, {col}")
        for col in SYSTEM_COLUMNS:
            for system, value in zip(rows["system"].astype(str), rows[col], strict=True):
                if pd.isna(value):
                    continue
                assert value == systems.loc[system, col], (c, system, col)


def test_grid_equals_evaluate_row_for_row_default_scenario():
    spec = {
        "name": "t",
        "scenario": DEFAULT,
        "axes": [
            {"axis": "facility.electricity_usd_per_kwh", "values": [0.05, 0.1, 0.17]},
            {"axis": "facility.pue", "range": {"from": 1.1, "to": 1.5, "steps": 3}},
            {"axis": "systems[1].costs.capex_usd_per_accelerator", "values": [30000, 60000]},
            {"axis": "demand.scale", "range": {"from": 0.3, "to": 5, "steps": 4, "scale": "log"}},
        ],
    }
    frame = sweep(spec)
    total = 3 * 3 * 2 * 4
    assert len(frame) == total * 2 * 3
    assert frame["configuration"].nunique() == total
    paths = ["facility.electricity_usd_per_kwh", "facility.pue", "systems[1].costs.capex_usd_per_accelerator"]
    sample = sorted({0, total - 1, *np.random.default_rng(1).choice(total, 10, replace=False).tolist()})
    assert_rows_equal_evaluate(frame, sample, lambda row: expected_scenario(DEFAULT, row, paths))


def test_structural_path_axis_equals_evaluate():
    """A path the operating-point choice reads (the TTFT limit) is evaluated per group, as evaluate does."""
    spec = {"name": "t", "scenario": GAUDI, "axes": [{"axis": "slo.ttft_limit_ms", "values": [1500, 2000, 3000]}]}
    frame = sweep(spec)
    assert not VECTOR_PATH.match("slo.ttft_limit_ms")
    assert_rows_equal_evaluate(frame, [0, 1, 2], lambda row: expected_scenario(GAUDI, row, ["slo.ttft_limit_ms"]))
    # the SLO moves the chosen point: the three configurations do not all cost the same
    assert frame.groupby("configuration")["usd_per_accepted_request"].sum().nunique() > 1


def test_rent_and_api_price_axes_equal_evaluate():
    paths = ["systems[1].rent.usd_per_accelerator_hour", "systems[3].api.usd_per_million_output_tokens"]
    spec = {
        "name": "t",
        "scenario": RENT_API,
        "axes": [{"axis": paths[0], "values": [2.0, 4.0]}, {"axis": paths[1], "values": [1.0, 2.19, 8.0]}],
    }
    frame = sweep(spec)
    assert all(VECTOR_PATH.match(p) for p in paths)
    assert_rows_equal_evaluate(frame, list(range(6)), lambda row: expected_scenario(RENT_API, row, paths))
    api = frame["payment"] == "api"
    assert api.any() and frame.loc[api, "tpot_ms"].isna().all() and frame.loc[~api, "tpot_ms"].notna().all()
    # the API price axis moves the API's cost in proportion to its price per request, nothing else's
    own = frame[~api].groupby("configuration")["usd_per_accepted_request"].sum()
    assert own.iloc[0] == own.iloc[1] == own.iloc[2]


def test_payment_tier_variant_rents_at_the_inferencex_price():
    from rackcost.scenario.price_tiers import price_tiers

    spec = {
        "name": "t",
        "scenario": RENT_API,
        "axes": [
            {
                "axis": "pricing",
                "variants": [
                    {"label": "as in the scenario"},
                    {
                        "label": "gb200 rental",
                        "tier": {"system": "GB200 NVL72 owned", "gpu": "gb200", "tier": "rental-3-year"},
                    },
                ],
            }
        ],
    }
    frame = sweep(spec)
    owned = frame[frame["system"] == "GB200 NVL72 owned"]
    assert list(owned.groupby("configuration", observed=True)["payment"].first().astype(str)) == [
        "own",
        "rent reserved",
    ]
    rented = owned[owned["configuration"] == 1]
    price = price_tiers()["gb200:rental-3-year"].usd_per_gpu_hour
    replicas_gpus = load_scenario(RENT_API).systems[0].hardware.accelerators_per_replica
    per_hour = rented["provisioned_replicas"].iloc[0] * replicas_gpus * price
    np.testing.assert_allclose(rented["total_usd_per_hour"], per_hour, rtol=1e-12)


def test_chunking_and_local_schedulers_give_identical_results():
    spec = {
        "name": "t",
        "scenario": DEFAULT,
        "axes": [
            {"axis": "facility.electricity_usd_per_kwh", "range": {"from": 0.04, "to": 0.2, "steps": 7}},
            {"axis": "demand.scale", "values": [0.5, 1.0, 2.0]},
            {
                "axis": "systems[0].costs.capex_usd_per_accelerator",
                "latin_hypercube": {"dist": {"dist": "uniform", "low": 2e4, "high": 6e4}, "samples": 5},
            },
        ],
    }
    reference = sweep(spec)
    for kwargs in ({"chunk_configs": 1}, {"chunk_configs": 7}, {"scheduler": "synchronous"}):
        pd.testing.assert_frame_equal(sweep(spec, **kwargs), reference, check_exact=True)


def test_local_cluster_of_two_workers_equals_the_local_scheduler_bit_for_bit(caplog):
    spec = {
        "name": "t",
        "scenario": GAUDI,
        "axes": [
            {"axis": "facility.electricity_usd_per_kwh", "values": [0.06, 0.081, 0.17]},
            {"axis": "demand.scale", "values": [0.5, 2.0]},
        ],
    }
    local = sweep(spec, chunk_configs=2)
    with caplog.at_level(logging.WARNING):
        cluster = sweep(spec, workers=2, chunk_configs=2)
    pd.testing.assert_frame_equal(cluster, local, check_exact=True)
    # closed cleanly: no worker process left (each ends at its atexit, rackcost.analysis.sweep.cluster), nothing said
    assert [p for p in psutil.Process().children(recursive=True) if "spawn_main" in " ".join(p.cmdline())] == []
    assert [r.getMessage() for r in caplog.records if r.name.startswith(("distributed", "tornado"))] == []


def test_the_cluster_started_while_the_chunks_are_planned_is_closed_when_the_planning_fails(monkeypatch):
    from rackcost.analysis.sweep import run as run_module

    def fails(d, chunk_configs=None):
        raise RuntimeError("planning failed")

    monkeypatch.setattr(run_module, "plan_chunks", fails)
    with pytest.raises(RuntimeError, match="planning failed"):
        run_sweep({"name": "t", "scenario": GAUDI, "axes": [{"axis": "demand.scale", "values": [1.0]}]}, workers=2)
    assert [p for p in psutil.Process().children(recursive=True) if "spawn_main" in " ".join(p.cmdline())] == []


def test_ctrl_c_while_the_chunks_are_planned_only_sets_the_flag_and_stops_the_sweep(monkeypatch):
    """A SIGINT that lands while the cluster is up and the chunks are still being planned neither raises where it
    lands (a KeyboardInterrupt in distributed's garbage-collector callback printed "Exception ignored" with a
    traceback) nor is lost: the wait for the planning raises it, and the cluster is closed.

    The handler given back is the one found before, whatever it was: Python's default, or SIG_IGN when pytest
    started with SIGINT ignored (``nohup``, a background job, some CI runners)."""
    import signal
    import threading

    from rackcost.analysis.sweep import run as run_module

    planned = run_module.plan_chunks
    caught = []
    before = signal.getsignal(signal.SIGINT)

    def slow(d, chunk_configs=None):
        caught.append(signal.getsignal(signal.SIGINT))
        os.kill(os.getpid(), signal.SIGINT)  # handled in the main thread, which waits for this one
        time.sleep(1.0)
        return planned(d, chunk_configs)

    monkeypatch.setattr(run_module, "plan_chunks", slow)
    with pytest.raises(KeyboardInterrupt):
        run_sweep({"name": "t", "scenario": GAUDI, "axes": [{"axis": "demand.scale", "values": [1.0]}]}, workers=2)
    # the flag's handler held it (neither the one found nor any of Python's own) and gave back the one found
    assert caught and caught[0] not in (before, signal.default_int_handler, signal.SIG_DFL, signal.SIG_IGN)
    assert signal.getsignal(signal.SIGINT) is before
    assert threading.current_thread() is threading.main_thread()
    assert [p for p in psutil.Process().children(recursive=True) if "spawn_main" in " ".join(p.cmdline())] == []


def test_a_closed_worker_ends_at_its_first_atexit_call_with_its_output_flushed():
    import subprocess
    import sys

    program = (
        "import atexit; atexit.register(print, 'finalised');"
        "from rackcost.analysis.sweep.cluster import FastExit; FastExit().teardown(None); print('closed', end='')"
    )
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout) == (0, "closed")  # the earlier atexit handler never ran


def _dies_once(chunk):
    """A chunk function whose worker process dies the first time it runs chunk 1 (a marker file remembers)."""
    marker = Path(os.environ["RACKCOST_TEST_MARKER"])
    if chunk.number == 1 and not marker.exists():
        marker.write_text("died")
        os._exit(1)
    return evaluate_chunk(chunk)


def _fails_chunk_1(chunk):
    if chunk.number == 1:
        raise RuntimeError("bad chunk")
    return evaluate_chunk(chunk)


def test_a_worker_dying_mid_sweep_is_retried_and_the_sweep_finishes(tmp_path, monkeypatch):
    monkeypatch.setenv("RACKCOST_TEST_MARKER", str(tmp_path / "marker"))
    spec = {"name": "t", "scenario": GAUDI, "axes": [{"axis": "facility.pue", "values": [1.1, 1.2, 1.3, 1.4]}]}
    result = run_sweep(spec, workers=2, chunk_configs=1, evaluate=_dies_once)
    assert (tmp_path / "marker").exists()  # the worker did die once
    assert result.failed_chunks == []
    pd.testing.assert_frame_equal(result.frame, sweep(spec), check_exact=True)


def test_a_chunk_that_keeps_failing_is_named_and_the_rest_is_kept():
    spec = {"name": "t", "scenario": GAUDI, "axes": [{"axis": "facility.pue", "values": [1.1, 1.2, 1.3]}]}
    result = run_sweep(spec, workers=2, chunk_configs=1, evaluate=_fails_chunk_1)
    assert [(n, first, last) for n, first, last, _ in result.failed_chunks] == [(1, 1, 1)]
    assert "bad chunk" in result.failed_chunks[0][3]
    assert sorted(result.frame["configuration"].unique()) == [0, 2]


def test_an_unreachable_scheduler_is_a_clear_error():
    spec = {"name": "t", "scenario": GAUDI, "axes": [{"axis": "facility.pue", "values": [1.1]}]}
    with pytest.raises(SweepError, match="did not answer"):
        sweep(spec, address="tcp://127.0.0.1:9")
    result = runner.invoke(app, ["sweep", "gaudi-tp-precision-x-demand", "--scheduler", "tcp://127.0.0.1:9"])
    assert result.exit_code == 1 and "did not answer" in result.output
    assert "Traceback" not in result.output


def test_the_wait_for_a_scheduler_is_bounded_by_the_connect_timeout(monkeypatch):
    # how long an unreachable scheduler holds the sweep up is Dask's to keep; the sweep's part is to give the client
    # a finite timeout and to say it (docs/sweeps.md: a one-line error after CONNECT_TIMEOUT_S)
    import distributed

    asked = []

    def client(self, address, **kwargs):
        asked.append((address, kwargs.get("timeout")))
        raise TimeoutError("no answer")

    monkeypatch.setattr(distributed.Client, "__init__", client)
    monkeypatch.setattr(distributed.Client, "close", lambda self, timeout=None: None)
    spec = {"name": "t", "scenario": GAUDI, "axes": [{"axis": "facility.pue", "values": [1.1]}]}
    with pytest.raises(SweepError, match=f"did not answer within {CONNECT_TIMEOUT_S:g} s"):
        sweep(spec, address="tcp://127.0.0.1:9")
    assert asked == [("tcp://127.0.0.1:9", f"{CONNECT_TIMEOUT_S}s")]


def test_monte_carlo_draws_per_configuration_match_the_uncertainty_analysis():
    spec = {
        "name": "t",
        "scenario": DEFAULT,
        "samples": 64,
        "seed": 3,
        "axes": [{"axis": "systems[1].costs.capex_usd_per_accelerator", "values": [30000, 50000]}],
    }
    frame = sweep(spec)
    for c, capex in enumerate([30000, 50000]):
        data = scenario_to_data(load_scenario(DEFAULT))
        set_path(data, "systems[1].costs.capex_usd_per_accelerator", capex)
        mc = rackcost.uncertainty(scenario_from_dict(data), 64, 3, workers=1)
        for system, cols in mc.samples.items():
            if system == "inputs":
                continue
            rows = frame[(frame["configuration"] == c) & (frame["system"] == system)]
            want = cols["usd_per_accepted_request"].mean(axis=0)
            np.testing.assert_allclose(rows["usd_per_accepted_request"], want, rtol=1e-12)
            np.testing.assert_allclose(
                rows["usd_per_accepted_request_p95"],
                np.percentile(cols["usd_per_accepted_request"], 95, axis=0),
                rtol=1e-12,
            )
    # the shares of the samples in which each system is cheapest add up to 1 at every point
    shares = frame.groupby(["configuration", "demand_point"], observed=True)["probability_cheapest_fraction"].sum()
    np.testing.assert_allclose(shares, 1.0)


def test_latin_hypercube_puts_one_value_in_each_stratum():
    spec = {
        "name": "t",
        "scenario": GAUDI,
        "seed": 7,
        "axes": [
            {
                "axis": "facility.pue",
                "latin_hypercube": {"dist": {"dist": "uniform", "low": 1.1, "high": 1.5}, "samples": 20},
            },
            {
                "axis": "facility.electricity_usd_per_kwh",
                "latin_hypercube": {"dist": {"dist": "uniform", "low": 0.05, "high": 0.2}, "samples": 20},
            },
        ],
    }
    frame = sweep(spec)
    per = frame.groupby("configuration").first()
    assert len(per) == 20  # drawn together: 20 configurations, not 400
    for path, low, high in (("facility.pue", 1.1, 1.5), ("facility.electricity_usd_per_kwh", 0.05, 0.2)):
        strata = np.floor((per[path].to_numpy() - low) / (high - low) * 20).astype(int)
        assert sorted(strata) == list(range(20))


def test_zip_mode_takes_the_ith_values_together():
    spec = {
        "name": "t",
        "scenario": GAUDI,
        "mode": "zip",
        "axes": [
            {"axis": "facility.pue", "values": [1.1, 1.2, 1.3]},
            {"axis": "demand.scale", "values": [1, 2, 3]},
        ],
    }
    per = sweep(spec).groupby("configuration").first()
    assert list(zip(per["facility.pue"], per["demand.scale"], strict=True)) == [(1.1, 1.0), (1.2, 2.0), (1.3, 3.0)]


def test_more_demand_never_needs_fewer_replicas_and_accepted_never_exceeds_offered():
    spec = {
        "name": "t",
        "scenario": DEFAULT,
        "axes": [{"axis": "demand.scale", "range": {"from": 0.05, "to": 20, "steps": 25, "scale": "log"}}],
    }
    frame = sweep(spec)
    assert (frame["accepted_rps"] <= frame["offered_rps"]).all()
    for _, rows in frame[frame["demand_point"] == "peak"].groupby("system", observed=True):
        replicas = rows.sort_values("demand.scale")["provisioned_replicas"].to_numpy()
        assert (np.diff(replicas) >= 0).all()
        assert replicas[-1] > replicas[0]


def test_systems_axis_subsets_each_and_import(tmp_path):
    gaudi = load_scenario(GAUDI)
    names = [s.name for s in gaudi.systems]
    frame = sweep({"name": "t", "scenario": GAUDI, "axes": [{"axis": "systems", "subsets": [names[:2], names[4:]]}]})
    assert [list(g["system"].astype(str).unique()) for _, g in frame.groupby("configuration")] == [names[:2], names[4:]]
    each = sweep({"name": "t", "scenario": GAUDI, "axes": [{"axis": "systems", "each": True}]})
    assert each["configuration"].nunique() == 6 and (each.groupby("configuration")["system"].nunique() == 1).all()
    # a file's systems become alternatives beside the base's
    extra = scenario_to_data(gaudi)["systems"][:1]
    extra[0]["name"] = "Imported TP8 BF16 copy"
    (tmp_path / "more.yaml").write_text(yaml.safe_dump({"systems": extra}))
    sweep_file = tmp_path / "s.yaml"
    sweep_file.write_text(
        yaml.safe_dump(
            {
                "name": "t",
                "scenario": GAUDI,
                "axes": [
                    {"axis": "systems", "import": "more.yaml", "subsets": [[names[0]], ["Imported TP8 BF16 copy"]]}
                ],
            }
        )
    )
    imported = sweep(sweep_file)
    costs = imported.groupby("configuration")["blended_usd_per_accepted_request"].first()
    assert costs[0] == costs[1]  # the same system under another name costs the same


def test_an_infeasible_system_is_left_out_and_named():
    spec = {"name": "t", "scenario": GAUDI, "axes": [{"axis": "slo.ttft_limit_ms", "values": [2000, 700]}]}
    result = run_sweep(spec)
    assert result.skipped and all(row["configurations"] == 1 for row in result.skipped)
    tight = result.frame[result.frame["configuration"] == 1]
    assert set(tight["system"].astype(str)).isdisjoint(row["system"] for row in result.skipped)


def test_winner_map_agrees_with_the_per_cell_minimum():
    frame = sweep("gaudi-tp-precision-x-demand")
    table = winners(frame, ["demand.scale", "precision"], "peak")
    peak = frame[frame["demand_point"] == "peak"]
    for _, row in table.iterrows():
        cell = peak[(peak["demand.scale"] == row["demand.scale"]) & (peak["precision"] == row["precision"])]
        by_system = cell.groupby("system", observed=True)["usd_per_accepted_request"].min().sort_values()
        assert row["cheapest"] == by_system.index[0]
        assert row["usd_per_accepted_request"] == by_system.iloc[0]
        assert row["margin_fraction"] == pytest.approx(by_system.iloc[1] / by_system.iloc[0] - 1, rel=1e-12)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 20), st.integers(1, 20)), min_size=1, max_size=40))
def test_pareto_front_is_the_set_no_row_dominates(points):
    frame = pd.DataFrame(
        {
            "configuration": np.arange(len(points)),
            "system": pd.Categorical(["a"] * len(points)),
            "demand_point": pd.Categorical(["peak"] * len(points)),
            "usd_per_accepted_request": [float(c) for c, _ in points],
            "interactivity_tokens_per_s": [float(i) for _, i in points],
        }
    )
    front = pareto_front(frame, "interactivity_tokens_per_s", "peak", higher_is_better=True)
    chosen = set(front["configuration"])
    for i, (ci, ii) in enumerate(points):
        dominated = any((cj <= ci and ij >= ii) and (cj < ci or ij > ii) for j, (cj, ij) in enumerate(points) if j != i)
        duplicate_before = any((cj, ij) == (ci, ii) for cj, ij in points[:i])
        assert (i in chosen) == (not dominated and not duplicate_before), (i, points)


# --- bad input ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("axis", "message"),
    [
        ({"axis": "facility.no_such_field", "values": [1]}, "has no input at 'facility.no_such_field'"),
        ({"axis": "systems[9].costs.capex_usd_per_node", "values": [1]}, "has no input at"),
        ({"axis": "systems[0].hardware", "values": [1]}, "is not a numeric input (it holds a block)"),
        ({"axis": "workload.model", "values": [1]}, "is not a numeric input"),
        ({"axis": "facility.pue", "values": [0.5]}, "the value 0.5 is not allowed there"),
        ({"axis": "facility.pue", "range": {"from": 1.1, "to": 1.2, "steps": 0}}, "must be >= 1, got 0"),
        ({"axis": "facility.pue", "values": []}, "at least 1"),
        ({"axis": "facility.pue", "range": {"from": 0, "to": 2, "steps": 3, "scale": "log"}}, "log range needs"),
        ({"axis": "facility.pue"}, "exactly one of values"),
        ({"axis": "systems", "subsets": [["no such system"]]}, "no system named 'no such system'"),
    ],
)
def test_bad_axes_are_named(axis, message):
    with pytest.raises(ScenarioError) as info:
        sweep({"name": "t", "scenario": GAUDI, "axes": [axis]})
    text = "\n".join(str(p) for p in info.value.problems)
    assert message in text
    assert "axes[0]" in text


def test_a_bad_sweep_file_names_the_file_path_and_line(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: t\nscenario: " + GAUDI + "\naxes:\n  - axis: facility.pue\n    values: [1.1, true]\n")
    result = runner.invoke(app, ["sweep", str(bad)])
    assert result.exit_code == 1
    assert f"{bad}:5: axes[0].values[1]: must be a number, got true" in result.output
    assert "Traceback" not in result.output
    missing = runner.invoke(app, ["sweep", str(tmp_path / "nope.yaml")])
    assert missing.exit_code == 1 and "no such file" in missing.output


def test_a_huge_grid_needs_confirmation():
    spec = {
        "name": "t",
        "scenario": GAUDI,
        "axes": [
            {"axis": "facility.pue", "range": {"from": 1.1, "to": 1.5, "steps": 20000}},
            {"axis": "facility.electricity_usd_per_kwh", "range": {"from": 0.05, "to": 0.2, "steps": 10000}},
        ],
    }
    with pytest.raises(SweepError, match="--yes"):
        sweep(spec)
    assert 20000 * 10000 > CONFIRM_ROWS


# --- command line ------------------------------------------------------------------------------------------------


def test_cli_writes_parquet_and_csv_equal_to_the_library(tmp_path):
    reference = sweep("gaudi-tp-precision-x-demand")
    out = tmp_path / "g.parquet"
    result = runner.invoke(app, ["sweep", "gaudi-tp-precision-x-demand", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "Cheapest per accepted request" in result.output and "Pareto front" in result.output
    # the file holds the numeric axes as plain float64 numbers (the library's table as ordered categoricals of them)
    assert reference["demand.scale"].cat.ordered and reference["demand.scale"].cat.categories.dtype == np.float64
    in_file = numeric_axes_as_floats(reference)
    pd.testing.assert_frame_equal(pd.read_parquet(out), in_file, check_exact=True, check_categorical=False)
    csv = tmp_path / "g.csv"
    assert runner.invoke(app, ["sweep", "gaudi-tp-precision-x-demand", "-o", str(csv)]).exit_code == 0
    back = pd.read_csv(csv)
    np.testing.assert_array_equal(back["usd_per_accepted_request"], reference["usd_per_accepted_request"])
    again = runner.invoke(app, ["sweep", "gaudi-tp-precision-x-demand", "-o", str(csv)])
    assert again.exit_code == 1 and "exists; use --force" in again.output
    assert runner.invoke(app, ["sweep", "gaudi-tp-precision-x-demand", "-o", str(csv), "--force"]).exit_code == 0
    for bad, message in (
        (tmp_path / "x.json", "must end in .parquet or .csv"),
        (tmp_path / "no" / "x.csv", "does not exist"),
    ):
        result = runner.invoke(app, ["sweep", "gaudi-tp-precision-x-demand", "-o", str(bad)])
        assert result.exit_code == 1 and message in result.output


def test_schema_sweep_and_scenarios_list_the_sweeps():
    result = runner.invoke(app, ["schema", "--sweep"])
    schema = json.loads(result.output)
    assert schema["title"] == "rackcost sweep" and "axes" in schema["properties"]
    assert schema == sweep_json_schema()
    listing = runner.invoke(app, ["scenarios"]).output
    for path in bundled_sweeps():
        assert path.name in listing


def test_bundled_sweeps_load_run_and_carry_their_sources():
    assert len(bundled_sweeps()) >= 2
    for path in bundled_sweeps():
        spec, _ = load_sweep(path)
        for axis in spec.axes:
            assert axis.provenance is not None and axis.source, (path.name, axis.axis)
            if axis.provenance == "assumption":
                assert axis.why, (path.name, axis.axis)
        result = run_sweep(path)
        assert len(result.frame) and not result.failed_chunks


def test_ctrl_c_stops_the_sweep_and_its_worker_processes(tmp_path):
    """Ctrl-C in a terminal during a LocalCluster sweep: exit code 130, one line, no traceback, no worker left.

    A terminal sends SIGINT to the whole foreground process group, so the test does too (the command runs in a
    session of its own). It sends it every half second until the command ends, so that nothing depends on how
    fast the machine is: an interrupt while the workers start is ignored by design (docs/sweeps.md), and one while
    the cluster closes must not cut the closing short.
    """
    import os
    import signal
    import subprocess
    import sys

    big = tmp_path / "big.yaml"
    big.write_text(
        yaml.safe_dump(
            {
                "name": "slow",
                "scenario": DEFAULT,
                "samples": 2000,
                "axes": [
                    {"axis": "demand.scale", "range": {"from": 0.1, "to": 10, "steps": 60, "scale": "log"}},
                    {"axis": "facility.pue", "range": {"from": 1.05, "to": 1.5, "steps": 100}},
                ],
            }
        )
    )
    rackcost_cli = Path(sys.executable).with_name("rackcost")
    process = subprocess.Popen(
        [str(rackcost_cli), "sweep", str(big), "--workers", "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # a background job may inherit SIG_IGN
        env={**os.environ, "COLUMNS": "200"},  # the header on one line, whatever the terminal (Rich wraps at 80)
    )

    def workers() -> list[str]:
        found = subprocess.run(["pgrep", "-P", str(process.pid)], capture_output=True, text=True).stdout.split()
        return [pid for pid in found if "spawn_main" in Path(f"/proc/{pid}/cmdline").read_text(errors="replace")]

    started: list[str] = []
    try:
        while len(started) < 2 and process.poll() is None:  # the workers are up: the sweep is on the cluster
            started = workers()
            time.sleep(0.1)
        for _ in range(600):  # at most 5 minutes: a hang guard only
            if process.poll() is not None:
                break
            os.killpg(process.pid, signal.SIGINT)
            time.sleep(0.5)
        output, _ = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    assert len(started) == 2, output
    assert process.returncode == 130, output
    assert "Traceback" not in output, output
    lines = [line for line in output.splitlines() if line.strip()]
    assert lines[-1] == "error: interrupted: no table written (worker processes were stopped)", output
    assert len(lines) == 2, output  # the sweep's header line, then the one about the interrupt
    for pid in started:  # gone, or a zombie its (dead) parent left for init to reap: no process left working
        status = Path(f"/proc/{pid}/status")
        assert not status.exists() or "State:\tZ" in status.read_text(), f"worker {pid} was left behind"


def test_an_axis_cannot_take_the_name_of_a_table_column():
    with pytest.raises(ScenarioError, match="is a column every sweep table has already"):
        sweep({"name": "t", "scenario": GAUDI, "axes": [{"axis": "payment", "variants": [{"label": "a"}]}]})


def test_configurations_are_numbered_with_structural_axes_outermost():
    """Each group of configurations sharing a scenario is a run of consecutive numbers (the table needs no sort),
    and the numbers follow itertools.product within each kind."""
    spec = {
        "name": "t",
        "scenario": GAUDI,
        "axes": [
            {"axis": "facility.pue", "values": [1.1, 1.2]},
            {"axis": "demand.scale", "values": [1.0, 2.0, 3.0]},
        ],
    }
    per = sweep(spec, chunk_configs=1).groupby("configuration").first()
    expected = [(scale, pue) for scale in (1.0, 2.0, 3.0) for pue in (1.1, 1.2)]
    assert list(zip(per["demand.scale"], per["facility.pue"], strict=True)) == expected
