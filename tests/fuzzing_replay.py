"""The trace-replay fuzzer: hypothesis strategies for traces whose requests carry their own lengths, replayed by
``rackcost.simulate`` through one shape, request classes and disaggregated pools under each ``trace_lengths``, and
the contract every replay keeps.

Used by ``tests/test_fuzz_replay.py`` (a small budget in CI) and ``benchmarks/fuzz_replay.py`` (a large one, with
counts). The reader's own hostile input is ``tests/fuzzing_traces.py``'s; here the traces are valid and the lengths
are what varies: means far from the workload's (a factor 1/30 to 30 either way), spreads from none to a lognormal of
sigma 2, a few requests of a million tokens, rates from a request every 1,000 s (each alone in the fleet) to 200 per
second, and fleets up to 1e5 times the fixtures' demand (whose warm starts pass the work bounds).

Contract (:func:`check_replay`):

- the replay returns rows whose every number is finite (or None), or refuses with
  :class:`rackcost.model.sim.sim_work.SimulationTooLarge` carrying its estimate, or, for a trace too short for its
  batches once the warm-up is left out, with a one-line "too few requests to measure"; never another exception;
- every row replays the trace's requests (``requests`` its size), says how (``trace_lengths``), and accepts a
  share in [0, 1] of what it was offered;
- with classes, the trace's class shares add up to 1 (under ``own`` and ``relative``);
- a disaggregated row accepts no more than either pool lets through;
- ``relative`` does not see the scale of the lengths: the trace with every length times 4 replays the same rows,
  figure for figure (:mod:`rackcost.model.sim.sim_trace`: each length over the trace's mean).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import yaml
from hypothesis import strategies as st

import rackcost
from rackcost.model.sim.sim_work import SimulationTooLarge
from reference import DATA, find_non_finite

SCENARIOS = {
    "one shape": (DATA / "two_systems.yaml", "B"),
    "classes": (DATA / "three_classes.yaml", "B"),
    "pools": (DATA / "disaggregated.yaml", "A disaggregated"),
}
"""What a trace is replayed through: the fixture and the system."""
DEMAND_SCALES = [1.0, 1.0, 1.0, 1e5]
"""Factors on the fixtures' demand: at 1e5 the fleets' warm starts outweigh a short trace and are refused."""
LENGTHS = ["relative", "own", "none"]
_LOADED: dict[tuple[str, float], Any] = {}


def scenario(kind: str, demand_scale: float = 1.0) -> Any:
    """The fixture of ``kind`` (:data:`SCENARIOS`) with every demand point's rate times ``demand_scale`` (loaded
    once each)."""
    key = (kind, demand_scale)
    if key not in _LOADED:
        data = yaml.safe_load(SCENARIOS[kind][0].read_text(encoding="utf-8"))
        for point in data["demand"]:
            point["arrival_rps"] *= demand_scale
        _LOADED[key] = rackcost.scenario_from_dict(data)
    return _LOADED[key]


@st.composite
def replay_traces(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(arrival_s, input_tokens, output_tokens) of a valid trace: 20 to 80 requests, lengths of any mean and spread
    (module docstring)."""
    n = draw(st.integers(20, 80))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    rate = draw(st.sampled_from([0.001, 1.0, 10.0, 20.0, 60.0, 200.0]))
    arrival = np.cumsum(rng.exponential(1.0 / rate, n))
    lengths = []
    for mean in (1000.0, 500.0):
        scale = draw(st.sampled_from([1 / 30, 0.25, 1.0, 1.0, 4.0, 30.0]))
        sigma = draw(st.sampled_from([0.0, 0.5, 1.0, 2.0]))
        x = np.maximum(np.round(rng.lognormal(math.log(mean * scale), sigma, n)), 1.0)
        if draw(st.booleans()):  # a few requests of a million tokens
            x[rng.integers(0, n, 2)] = 1e6
        lengths.append(np.minimum(x, 2e6))  # times 4 below, within a request's 1e7
    return arrival, lengths[0], lengths[1]


def write_trace(path: Path, arrival: np.ndarray, inputs: np.ndarray, outputs: np.ndarray) -> Path:
    """A CSV trace of these columns (arrival times to the microsecond, as recorded traces give them)."""
    rows = "".join(f"{a:.6f},{i:.0f},{o:.0f}\n" for a, i, o in zip(arrival, inputs, outputs, strict=True))
    path.write_text("arrival_s,input_tokens,output_tokens\n" + rows, encoding="utf-8")
    return path


def _replay(kind: str, path: Path, lengths: str, routing: str, replications: int, scale: float) -> list[dict]:
    return rackcost.simulate(
        scenario(kind, scale),
        system=SCENARIOS[kind][1],
        trace=path,
        routing=routing,
        replications=replications,
        trace_lengths=lengths,
    )


def check_replay(
    trace: tuple[np.ndarray, np.ndarray, np.ndarray],
    folder: Path,
    kind: str,
    lengths: str,
    routing: str,
    replications: int,
    demand_scale: float = 1.0,
) -> str:
    """The contract of the module docstring for one trace replayed through ``kind``; returns ``"replayed"`` or
    ``"refused (work)"`` or ``"refused (short)"``."""
    arrival, inputs, outputs = trace
    path = write_trace(folder / "trace.csv", arrival, inputs, outputs)
    try:
        rows = _replay(kind, path, lengths, routing, replications, demand_scale)
    except SimulationTooLarge as exc:
        assert "simulated requests" in str(exc), exc
        return "refused (work)"
    except ValueError as exc:  # a trace too short for its batches once the warm-up is left out, as for one fleet
        assert str(exc).startswith("too few requests to measure") and "\n" not in str(exc), exc
        return "refused (short)"
    assert rows and find_non_finite(rows) == [], rows
    for r in rows:
        assert r["requests"] == arrival.size and r["trace_lengths"] == lengths, r
        accepted = r["simulated_accepted_fraction"]
        assert accepted is None or 0.0 <= accepted <= 1.0, r
        if r.get("layout") == "disaggregated":
            for pool in ("prefill_met_fraction", "decode_met_fraction"):
                assert accepted <= r[f"simulated_{pool}"] + 1e-12, r
    shares = [r["trace_share_fraction"] for r in rows if "trace_share_fraction" in r]
    if kind == "classes" and lengths != "none":
        assert math.isclose(sum(shares), 1.0, abs_tol=1e-9), rows
    if lengths == "relative":  # the lengths' scale is not seen: each is over the trace's mean
        factor = 4.0  # a power of 2: every length over the trace's mean is the same double, bit for bit
        scaled = write_trace(folder / "scaled.csv", arrival, inputs * factor, np.maximum(outputs * factor, 1.0))
        again = _replay(kind, scaled, lengths, routing, replications, demand_scale)
        for a, b in zip(rows, again, strict=True):
            for key, value in a.items():
                if key.startswith("simulated_") and isinstance(value, float):
                    assert math.isclose(value, b[key], rel_tol=1e-9, abs_tol=1e-12), (key, value, b[key])
    return "replayed"
