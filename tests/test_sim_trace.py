"""A trace's requests replayed at their own lengths (:mod:`rackcost.model.sim.sim_trace`): through one shape, request
classes and disaggregated pools, under ``trace_lengths`` relative, own and none.

Fixtures (tests/data/traces/, written for these tests): ``replay_mixed.csv``, 60 requests at about 18 requests/s of
three shapes (conversation-like, about 700 in and 200 out; reasoning-like, 1,200 in and 900 out; one in ten a long
prompt, 6,000 in and 150 out); ``replay_equal.csv``, 48 requests every one the fixtures' mean request (1,000 in, 500
out); ``replay_sparse.csv``, 30 requests 1,000 s apart (each alone in the fleet), of 200 to 4,000 tokens in and 50 to
2,000 out.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import yaml
from typer.testing import CliRunner

import rackcost
from rackcost.analysis.trace_files import read_trace
from rackcost.cli import app
from rackcost.model.sim import simulation as sim
from rackcost.model.sim.sim_trace import nearest_class, replayed_lengths, shape_requests
from rackcost.model.sim.sim_work import SimulationTooLarge
from reference import DATA, TWO_SYSTEMS

TRACES = DATA / "traces"
MIXED, EQUAL, SPARSE = (TRACES / f"replay_{name}.csv" for name in ("mixed", "equal", "sparse"))
THREE_CLASSES = DATA / "three_classes.yaml"
DISAGGREGATED = DATA / "disaggregated.yaml"


def _figures(row: dict) -> dict:
    return {k: v for k, v in row.items() if k.startswith("simulated_")}


# --- item 1: each request's own input and output lengths -------------------------------------------------------


def test_a_requests_own_input_sets_its_ttft_and_its_lengths_its_work() -> None:
    """One replica slot of a fixed service, requests far apart (no wait): each TTFT is exactly its ratio times the
    curve's, ``rho_i TTFT`` (:mod:`rackcost.model.sim.sim_trace`), and each holds its slot ``work_i S``."""
    model = sim.fixed_model(1, 2.0, 0.25)
    arrival = np.arange(5) * 100.0
    rho = np.array([0.5, 1.0, 2.0, 4.0, 1.0])
    work = np.array([1.0, 0.5, 2.0, 1.5, 1.0])
    run = sim.run_fleet_once(
        np.random.default_rng(0),
        sim.SimFleet(1, model, "pooled"),
        sim.TraceArrivals(arrival),
        sim.RequestWork(work=work, ttft_ratio=rho),
        sim.RunControls(initial_busy_fraction=0.0),
    )
    assert np.all(run.wait_s == 0.0)
    assert run.ttft_s == pytest.approx(rho * 0.25, rel=1e-12)
    assert run.finish_s - run.start_s == pytest.approx(work * 2.0, rel=1e-12)


def test_a_request_of_the_mean_shape_works_1_and_relative_keeps_the_workloads_mean_request() -> None:
    """``e_i / e_mean`` is 1 at ISL and OSL; relative lengths have the workload's means, so their mean work is 1
    (E[rho] = 1 and E[Out'] = OSL make E[e_i] = e_mean: the split is linear in the lengths)."""
    rho, work = shape_requests([1000.0], [500.0], 1000.0, 500.0, 300.0, 20.0)
    assert rho.tolist() == [1.0] and work.tolist() == [1.0]
    trace = read_trace(MIXED)
    inputs, outputs = replayed_lengths(trace.input_tokens, trace.output_tokens, "relative", 1000.0, 500.0)
    assert inputs.mean() == pytest.approx(1000.0, rel=1e-12) and outputs.mean() == pytest.approx(500.0, rel=1e-12)
    assert shape_requests(inputs, outputs, 1000.0, 500.0, 300.0, 20.0)[1].mean() == pytest.approx(1.0, rel=1e-12)


def test_simulate_replays_a_traces_own_lengths_and_says_which() -> None:
    """Before, the input tokens were carried for the record only and ``trace_lengths`` did not exist: every TTFT was
    the curve's. Now a long prompt's TTFT is its own, so the p99 under own and relative lengths is above the
    arrivals-only replay's, whose requests all see the curve's TTFT."""
    scenario = rackcost.load_scenario(TWO_SYSTEMS)
    rows = {
        mode: rackcost.simulate(scenario, system="B", trace=MIXED, replications=4, trace_lengths=mode)[0]
        for mode in ("relative", "own", "none")
    }
    for mode, row in rows.items():
        assert row["trace_lengths"] == mode and f"trace lengths {mode}" in row["note"]
        assert row["trace_mean_input_tokens"] == pytest.approx(1679.35, rel=1e-6)
    assert rows["own"]["simulated_ttft_p99_ms"] > rows["relative"]["simulated_ttft_p99_ms"]
    assert rows["relative"]["simulated_ttft_p99_ms"] > rows["none"]["simulated_ttft_p99_ms"]
    # the trace's mean request (1,679 in, 474 out) is not the workload's (1,000, 500): own lengths say so
    assert "the trace's mean request is not the workload's" in rows["own"]["note"]
    default = rackcost.simulate(scenario, system="B", trace=MIXED, replications=4)[0]
    assert _figures(default) == _figures(rows["relative"])


def test_a_trace_of_the_workloads_mean_request_replays_the_same_under_own_and_relative() -> None:
    """Every request 1,000 in and 500 out, the workload's ISL and OSL: relative scales each by 1, so own and
    relative are the same replay, figure for figure (each request's rho and work exactly 1)."""
    scenario = rackcost.load_scenario(TWO_SYSTEMS)
    own, relative = (
        rackcost.simulate(scenario, system="B", trace=EQUAL, replications=3, trace_lengths=mode)[0]
        for mode in ("own", "relative")
    )
    assert _figures(own) == _figures(relative)
    assert "not the workload's" not in own["note"]


@pytest.mark.parametrize("fixture", [TWO_SYSTEMS, THREE_CLASSES, DISAGGREGATED], ids=["one shape", "classes", "pools"])
@pytest.mark.parametrize("mode", ["relative", "own", "none"])
def test_a_trace_whose_every_request_is_alone_in_the_fleet_has_no_wait(fixture: Path, mode: str) -> None:
    """1,000 s between arrivals, longer than any request holds a slot: nothing queues, so every request is
    accepted, in every pool and class (accepted = no wait beyond the budget, here no wait at all)."""
    scenario = rackcost.load_scenario(fixture)
    rows = rackcost.simulate(scenario, trace=SPARSE, replications=2, trace_lengths=mode)
    assert rows
    for row in rows:
        assert row["simulated_accepted_fraction"] in (1.0, None), row
        if "simulated_wait_mean_ms" in row:
            assert row["simulated_wait_mean_ms"] == 0.0
        for pool in ("prefill_met_fraction", "decode_met_fraction"):
            if f"simulated_{pool}" in row:
                assert row[f"simulated_{pool}"] == 1.0


def test_trace_lengths_without_a_trace_and_unknown_ones_are_refused() -> None:
    scenario = rackcost.load_scenario(TWO_SYSTEMS)
    with pytest.raises(ValueError, match="trace_lengths.*give a trace"):
        rackcost.simulate(scenario, system="B", requests=200, replications=2, trace_lengths="own")
    with pytest.raises(ValueError, match="trace_lengths must be one of relative, own, none"):
        rackcost.simulate(scenario, system="B", trace=MIXED, replications=2, trace_lengths="absolute")


def test_the_command_line_prints_which_lengths_were_replayed() -> None:
    runner = CliRunner()
    args = ("simulate", str(TWO_SYSTEMS), "--system", "B", "--trace", str(MIXED), "--replications", "2")
    result = runner.invoke(app, [*args, "--trace-lengths", "own"])
    assert result.exit_code == 0, result.output
    assert "each request's own lengths (--trace-lengths own)" in " ".join(result.stdout.split())
    result = runner.invoke(app, list(args))
    assert "(--trace-lengths relative)" in " ".join(result.stdout.split())
    result = runner.invoke(app, ["simulate", str(TWO_SYSTEMS), "--trace-lengths", "own"])
    assert result.exit_code == 1 and "give --trace too" in result.stderr and "Traceback" not in result.output


# --- item 2: request classes with a trace ----------------------------------------------------------------------


def test_nearest_class_in_log_space_is_the_geometric_midpoint_rule() -> None:
    """Between two classes of equal output, a request goes to the nearer input in log space: the boundary is the
    geometric mean of their inputs, sqrt(1,000 x 3,000) = 1,732 tokens."""
    from rackcost.model.workload.classes import _example_mix

    mix = _example_mix()
    assert nearest_class(mix, [1731.0, 1733.0], [100.0, 100.0]).tolist() == [0, 1]


def test_a_trace_is_replayed_through_request_classes_each_request_in_its_nearest_class() -> None:
    """Before: refused ("a trace's requests carry no class"). Now the mix's row then each class's, the trace's
    requests judged in the class nearest their lengths: the fixture's one-in-ten long prompts (6,000 tokens in,
    150 out) are agentic's (4,000-16,000 in, 150 out), under own lengths."""
    scenario = rackcost.load_scenario(THREE_CLASSES)
    rows = rackcost.simulate(scenario, system="B", trace=MIXED, replications=3, trace_lengths="own")
    assert [r["class"] for r in rows] == [None, "chat", "reasoning", "agentic"]
    assert all(r["requests"] == 60 and r["ci_method"].startswith("batch means") for r in rows)
    shares = {r["class"]: r["trace_share_fraction"] for r in rows[1:]}
    assert sum(shares.values()) == pytest.approx(1.0)
    # the classes' means: chat 800 in, 400 out; reasoning 1,200 and 1,500; agentic the CDF table's 5,000 (0.1 x 2,000
    # + 0.4 x 3,000 + 0.4 x 6,000 + 0.1 x 12,000: classes.cdf_moments) and 150
    trace = read_trace(MIXED)
    means = np.log([[800.0, 400.0], [1200.0, 1500.0], [5000.0, 150.0]])
    lengths = np.log(np.column_stack([trace.input_tokens, trace.output_tokens]))
    nearest = np.argmin(((lengths[:, None, :] - means[None, :, :]) ** 2).sum(axis=2), axis=1)
    assert [shares[c] for c in ("chat", "reasoning", "agentic")] == [
        pytest.approx(np.mean(nearest == k)) for k in range(3)
    ]
    assert np.all(nearest[trace.input_tokens > 4000] == 2)  # every long prompt is agentic's
    assert all(0.0 <= r["simulated_accepted_fraction"] <= 1.0 for r in rows)
    none = rackcost.simulate(scenario, system="B", trace=MIXED, replications=3, trace_lengths="none")
    assert "trace_share_fraction" not in none[1]  # classes drawn by share


def test_the_command_line_replays_a_trace_through_classes(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["simulate", str(THREE_CLASSES), "--system", "B", "--trace", str(MIXED)])
    assert result.exit_code == 0, result.output
    assert "class agentic" in result.stdout and "a trace's requests carry no class" not in result.output


# --- item 3: disaggregated pools with a trace ------------------------------------------------------------------


def test_a_trace_is_replayed_through_the_prefill_then_the_decode_pool() -> None:
    """Before: refused ("a trace is not simulated through disaggregated pools"). Now the trace's arrivals enter the
    prefill pool and its completions the decode pool; a request is accepted only when both pools let it through."""
    scenario = rackcost.load_scenario(DISAGGREGATED)
    for mode in ("relative", "own", "none"):
        row = rackcost.simulate(scenario, system="A disaggregated", trace=MIXED, replications=3, trace_lengths=mode)[0]
        assert row["layout"] == "disaggregated" and row["requests"] == 60 and row["trace_lengths"] == mode
        assert row["output_lengths"] == ("gamma" if mode == "none" else "trace")
        accepted = row["simulated_accepted_fraction"]
        assert accepted <= min(row["simulated_prefill_met_fraction"], row["simulated_decode_met_fraction"]) + 1e-12


def test_a_trace_and_an_output_lengths_law_together_are_refused() -> None:
    from rackcost.model.sim.sim_classes import LengthLaw

    scenario = rackcost.load_scenario(DISAGGREGATED)
    with pytest.raises(ValueError, match="output_lengths: a trace brings its own output lengths"):
        rackcost.simulate(scenario, trace=MIXED, replications=2, output_lengths=LengthLaw("gamma", 500.0, 1.0))


# --- the work check still refuses oversized replays ------------------------------------------------------------


@pytest.mark.parametrize("fixture", [THREE_CLASSES, DISAGGREGATED], ids=["classes", "pools"])
def test_a_replay_whose_fleet_outweighs_the_trace_is_refused_before_it_runs(fixture: Path) -> None:
    """The fixture's demand times 1e5: the fleets' warm starts (hundreds of thousands of requests) dwarf a
    60-request trace, and :func:`rackcost.model.sim.sim_work.check_simulation_work` refuses with its estimate, naming
    the arrivals that would outnumber it."""
    data = yaml.safe_load(fixture.read_text(encoding="utf-8"))
    for point in data["demand"]:
        point["arrival_rps"] *= 1e5
    scenario = rackcost.scenario_from_dict(data)
    with pytest.raises(SimulationTooLarge, match="a trace of at least"):
        rackcost.simulate(scenario, trace=MIXED, replications=2, routing="random")
