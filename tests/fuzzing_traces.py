"""The trace fuzzer: hypothesis strategies for arrival traces at every scale, fed to ``rackcost trace`` and to the
simulator (``rackcost simulate --trace``), and the contract both keep.

Used by ``tests/test_fuzz_traces.py`` (a small budget in CI) and ``benchmarks/fuzz_traces.py`` (a large one, with
counts). The reader's own fuzzing (bad rows, bad headers, too few rows) is :func:`fuzzing_inputs.traces`, reused here
as one branch of :func:`hostile_traces`; the other branch, :func:`scaled_traces`, draws what that one does not:

- gaps at every magnitude, from 1e-300 s (a span too short to measure) to 1e300 s, at one scale or mixed;
- duplicates (gaps of 0) and runs of arrivals at one instant;
- clocks that read far from 0 (1e9, 1e20, 1e300 s), so that a double barely resolves the gaps;
- rows out of order, 19 to 21 rows around the minimum, and a token count from 1e-300 to 1e300 in one row;

and :func:`published_traces` the published formats (the Azure LLM inference trace CSV, the Mooncake JSONL) at the
same scales, with what they may carry wrong: impossible dates and times (month 13, 24:00, the 30th of February),
sub-second digits past nanoseconds, dates a year apart, JSON that is not an object, nested too deep, numbers as
strings or booleans, hash ids on some lines only, negative or fractional, and timestamps of 1e308 ms.

Contracts:

- ``rackcost trace`` (in process, through the Typer app, as table, JSON, CSV, ``--into`` a scenario, or cut and
  scaled: ``--start``, ``--duration``, ``--scale-to``, ``--write-trace``) exits 0 with finite figures (JSON that
  the strict parser reads, CSV cells that are finite numbers, empty where undefined, or text in the text columns,
  no ``nan`` or ``inf`` in a table) and a written trace the reader reads back, or exits 1 with one line that names
  the file; never a traceback.
- :func:`rackcost.simulate` with the trace returns rows whose every number is finite (or None), or refuses with a
  ValueError naming the file, or with :class:`rackcost.model.sim.sim_work.SimulationTooLarge` carrying its estimate; and
  its work is bounded by that estimate: the traced peak memory of the run stays within the estimate's
  (:attr:`rackcost.model.sim.sim_work.Work.per_replication_bytes`) plus a fixed allowance (a simulation that allocated
  beyond its estimate, as the 326 GiB of rare-miss units did, breaks it).
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
import tracemalloc
from pathlib import Path
from typing import Any

import yaml
from hypothesis import strategies as st
from typer.testing import CliRunner

import rackcost
from fuzzing_inputs import traces
from rackcost.analysis.trace_files import read_trace
from rackcost.cli.entry import app
from rackcost.model.sim import sim_work
from rackcost.model.sim.sim_work import SimulationTooLarge, Work
from reference import TWO_SYSTEMS, find_non_finite

GAP_SCALES_S = [1e-300, 1e-12, 1e-7, 1e-5, 1e-3, 1e-3, 0.1, 0.1, 1.0, 1.0, 1e3, 1e6, 1e12, 1e300]
"""Typical gaps of a drawn trace [s]: each side of every bound the reader and the simulator have, the rates a
demand point takes (1e-6 to 1e7 requests/s) twice as often as the others."""
DEMAND_SCALES = [1.0, 1.0, 1e4, 1e5]
"""Factors on the demand of the scenario simulated (``two_systems.yaml``, system B): at 1e4 its sizing point needs
37,501 replicas, at 1e5 about 375,000, whose warm starts at a fast trace's rate pass the work bounds."""
CLOCKS_S = [0.0, 0.0, 1.0, 1e9, 1e20, 1e300]
"""What the trace's clock reads at its first arrival [s]."""
EXTREME_TOKENS = [1e-300, 1e7, 1e7 + 1, 1e300]
"""Token counts a trace may carry in one row: each side of a request's bound (1e7) and far beyond."""
MEMORY_ALLOWANCE_BYTES = 300_000_000
"""Traced peak memory a simulation may use beyond its estimate [bytes]: the scenario's evaluation, the steady-start
laws (up to 5 million levels of 8 bytes, several arrays) and the interpreter's own."""
ROUTERS = ["least_outstanding", "random", "round_robin", "pooled", "power_of_two"]
"""The routers a fuzzed trace is simulated under (:data:`rackcost.model.sim.simulation.ROUTINGS`)."""


def scaled_traces() -> st.SearchStrategy[str]:
    """The text of a valid-looking trace at an extreme scale (module docstring)."""

    @st.composite
    def build(draw: st.DrawFn) -> str:
        n = draw(st.one_of(st.integers(19, 21), st.integers(2, 80)))
        scale = draw(st.sampled_from(GAP_SCALES_S))
        mixed = draw(st.booleans())
        gaps = [
            (draw(st.sampled_from(GAP_SCALES_S)) if mixed and draw(st.booleans()) else scale)
            * draw(st.one_of(st.just(0.0), st.floats(0.0, 10.0)))
            for _ in range(n - 1)
        ]
        times = [draw(st.sampled_from(CLOCKS_S))]
        for gap in gaps:
            times.append(times[-1] + gap)
        if draw(st.integers(0, 3)) == 0:
            times = draw(st.permutations(times))
        tokens = st.integers(1, 10_000)
        rows = [f"{t!r},{draw(tokens)},{draw(tokens)}" for t in times if math.isfinite(t)]
        if rows and draw(st.integers(0, 7)) == 0:  # one row of an extreme token count
            k = draw(st.integers(0, len(rows) - 1))
            rows[k] = f"{rows[k].split(',')[0]},{draw(st.sampled_from(EXTREME_TOKENS))!r},1"
        return "arrival_s,input_tokens,output_tokens\n" + "\n".join(rows) + "\n"

    return build()


BAD_TIMESTAMPS = [
    "2023-13-01 00:00:00.0",
    "2023-11-16 24:00:00.0",
    "2023-02-30 10:00:00.0",
    "2023-11-16 18:15:46.68059001234",
    "2024-11-16 18:15:46.0",
    "2023-11-16T18:15:46",
    "18:15:46",
    "",
    "nan",
]
"""``TIMESTAMP`` cells an Azure-format row may carry wrong (or oddly: a T separator, a year later)."""
BAD_JSON_LINES = [
    "[1, 2, 3]",
    "{",
    '"text"',
    "[" * 5000 + "]" * 5000,
    '{"timestamp": "12", "input_length": 5, "output_length": 5, "hash_ids": [1]}',
    '{"timestamp": true, "input_length": 5, "output_length": 5, "hash_ids": [1]}',
    '{"timestamp": 1e308, "input_length": 5, "output_length": 5, "hash_ids": [1]}',
    '{"timestamp": 5, "input_length": 5, "output_length": 5}',
    '{"timestamp": 5, "input_length": 5, "output_length": 5, "hash_ids": [-1, 2.5]}',
    '{"timestamp": 5, "input_length": 5, "output_length": 5, "hash_ids": [99999999999999999999]}',
    '{"timestamp": 5, "input_length": 0, "output_length": 5, "hash_ids": []}',
    '{"timestamp": 5, "input_length": 5, "output_length": 1e300, "hash_ids": []}',
]
"""Lines a Mooncake-format file may carry wrong."""


def published_traces() -> st.SearchStrategy[str]:
    """The text of an Azure-format CSV or a Mooncake-format JSONL at an extreme scale, sometimes with a bad row
    (module docstring)."""

    @st.composite
    def build(draw: st.DrawFn) -> str:
        n = draw(st.one_of(st.integers(19, 21), st.integers(2, 80)))
        scale = draw(st.sampled_from(GAP_SCALES_S[2:-3]))  # what a date and time, or ms, can hold
        gaps = [scale * draw(st.one_of(st.just(0.0), st.floats(0.0, 10.0))) for _ in range(n - 1)]
        times = [0.0]
        for gap in gaps:
            times.append(times[-1] + gap)
        tokens = st.integers(1, 10_000)
        if draw(st.booleans()):  # Azure: a wall clock of 7 sub-second digits from 2023-11-16 18:15
            rows = []
            for t in times:
                whole = int(t)
                days, rest = divmod(18 * 3600 + 15 * 60 + whole, 86_400)
                if days > 3000:
                    break
                h, m, sec = rest // 3600, rest % 3600 // 60, rest % 60
                frac = f"{t - whole:.7f}"[2:]
                rows.append(
                    f"2023-11-{16 + days % 14:02d} {h:02d}:{m:02d}:{sec:02d}.{frac},{draw(tokens)},{draw(tokens)}"
                )
            if rows and draw(st.integers(0, 3)) == 0:
                k = draw(st.integers(0, len(rows) - 1))
                rows[k] = f"{draw(st.sampled_from(BAD_TIMESTAMPS))},{draw(tokens)},{draw(tokens)}"
            return "TIMESTAMP,ContextTokens,GeneratedTokens\n" + "\n".join(rows) + "\n"
        hashes = draw(st.booleans())
        lines = [
            json.dumps(
                {"timestamp": round(1000 * t), "input_length": draw(tokens), "output_length": draw(tokens)}
                | ({"hash_ids": draw(st.lists(st.integers(0, 2**40), max_size=6))} if hashes else {})
            )
            for t in times
        ]
        if lines and draw(st.integers(0, 3)) == 0:
            lines.insert(draw(st.integers(0, len(lines))), draw(st.sampled_from(BAD_JSON_LINES)))
        return "\n".join(lines) + "\n"

    return build()


def hostile_traces() -> st.SearchStrategy[str]:
    """:func:`scaled_traces` and :func:`published_traces` mostly, :func:`fuzzing_inputs.traces` (bad rows, headers,
    counts) the rest."""
    return st.one_of(scaled_traces(), scaled_traces(), published_traces(), published_traces(), traces())


TEXT_COLUMNS = ("file", "format", "format_name", "columns", "findings", "hour_rate_ratios")
"""The CSV output's text columns (:data:`rackcost.cli.trace.TEXT_COLUMNS`)."""
HOWS = ["table", "json", "csv", "into", "scaled"]
"""The ways ``rackcost trace`` is run on a fuzzed trace (``scaled``: a window cut, scaled and written)."""


def _strict_json(text: str) -> Any:
    def refuse(name: str) -> None:
        raise AssertionError(f"not JSON: {name}")

    return json.loads(text, parse_constant=refuse)


def check_trace_command(text: str, folder: Path, how: str) -> str:
    """The contract of ``rackcost trace`` as ``how`` (one of :data:`HOWS`)."""
    path = folder / "trace.csv"
    path.write_text(text, encoding="utf-8")
    written = folder / "written.csv"
    written.unlink(missing_ok=True)
    if how == "into":
        args = ["--into", str(TWO_SYSTEMS)]
    elif how == "scaled":  # a window from 0.25 s, at 50 rps (at most 5e6 requests written: a CI-sized example)
        args = ["--start", "0.25", "--duration", "1e5", "--scale-to", "50", "--write-trace", str(written), "--force"]
        args += ["--format", "json"]
    else:
        args = ["--format", how]
    result = CliRunner().invoke(app, ["trace", str(path), *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert "Traceback" not in result.output, result.output
    if result.exit_code == 1:
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and (str(path) in lines[0] or path.name in lines[0]), result.output
        return "refused"
    assert result.exit_code == 0, result.output
    if how in ("json", "scaled"):
        figures = _strict_json(result.stdout)
        assert find_non_finite(figures) == [], figures
        if how == "scaled":
            assert read_trace(written).arrival_s.size == figures["requests"]
    elif how == "csv":
        for row in csv.DictReader(io.StringIO(result.stdout)):
            numbers = [v for k, v in row.items() if k not in TEXT_COLUMNS and v != ""]
            assert all(math.isfinite(float(v)) for v in numbers), row
    elif how == "into":
        rackcost.scenario_from_yaml(result.stdout, "measured.yaml")  # the scenario it printed loads
    else:
        assert not re.search(r"\b(nan|inf|infinity)\b", result.stdout, re.IGNORECASE), result.stdout
    return "measured"


_SCENARIOS: dict[float, Any] = {}


def _scenario(demand_scale: float) -> Any:
    """``two_systems.yaml`` with every demand point's rate times ``demand_scale`` (loaded once each)."""
    if demand_scale not in _SCENARIOS:
        data = yaml.safe_load(TWO_SYSTEMS.read_text(encoding="utf-8"))
        for point in data["demand"]:
            point["arrival_rps"] *= demand_scale
        _SCENARIOS[demand_scale] = rackcost.scenario_from_dict(data)
    return _SCENARIOS[demand_scale]


def check_simulated_trace(text: str, folder: Path, routing: str, replications: int, demand_scale: float = 1.0) -> str:
    """The contract of :func:`rackcost.simulate` with a trace (module docstring) on system B of ``two_systems.yaml``
    at ``demand_scale`` times its demand: finite rows, or a refusal naming the file or giving the estimate; its
    traced peak memory within the estimate's."""
    path = folder / "trace.csv"
    path.write_text(text, encoding="utf-8")
    estimates: list[Work] = []
    check = sim_work.check_simulation_work

    def spy(work: Work) -> None:
        estimates.append(work)
        check(work)

    sim_work.check_simulation_work = spy  # type: ignore[assignment]
    scenario = _scenario(demand_scale)
    tracemalloc.start()
    try:
        rows = rackcost.simulate(scenario, system="B", trace=path, routing=routing, replications=replications)
    except SimulationTooLarge as exc:
        assert "simulated requests" in str(exc), exc
        return "refused (work)"
    except ValueError as exc:
        assert str(path) in str(exc), exc
        return "refused (file)"
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        sim_work.check_simulation_work = check  # type: ignore[assignment]
    assert len(estimates) == 1, estimates
    assert peak <= MEMORY_ALLOWANCE_BYTES + estimates[0].per_replication_bytes, (peak, estimates)
    assert find_non_finite(rows) == [], rows
    assert rows and all(0.0 <= r["simulated_accepted_fraction"] <= 1.0 for r in rows), rows
    return "simulated"
