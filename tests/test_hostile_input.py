"""Hostile and extreme scenario files (issue 11): refused quickly, all at once, with file and path; never a traceback.

The fixed cases come first; the hypothesis "fuzzer" at the end mutates the bundled scenarios' plain data and insists
on the contract: a Result whose records are finite (accepted <= offered), or a ScenarioError whose every problem names
the file and a YAML path.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from typer.testing import CliRunner

import rackcost
from fuzzing import Case, check_outcome, field_range, mutated_scenarios
from rackcost import ScenarioError
from rackcost.cli import app
from rackcost.scenario.loading import MAX_EXPANDED_NODES, MAX_SCENARIO_BYTES
from rackcost.scenario.yaml_paths import format_path
from reference import TWO_SYSTEMS

BASE = TWO_SYSTEMS.read_text(encoding="utf-8")
runner = CliRunner()


def write(tmp_path: Path, text: str, name: str = "bad.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def edit(old: str, new: str, text: str = BASE) -> str:
    assert old in text, old
    return text.replace(old, new, 1)


def problems_of(path: Path) -> list[rackcost.Problem]:
    with pytest.raises(ScenarioError) as info:
        rackcost.load_scenario(path)
    return info.value.problems


def line_of(text: str, needle: str) -> int:
    return text[: text.index(needle)].count("\n") + 1


def anchor_bomb(levels: int) -> str:
    """Each anchor a list repeating the previous one 9 times: 9**levels nodes once expanded, ~40 bytes a level."""
    names = "abcdefghijklmnop"
    rows = ["a: &a [l,l,l,l,l,l,l,l,l]"]
    for i in range(1, levels):
        rows.append(f"{names[i]}: &{names[i]} [" + ",".join([f"*{names[i - 1]}"] * 9) + "]")
    return "\n".join(rows) + "\n"


# --------------------------------------------------------------------------- hostile YAML


def test_anchor_bomb_of_nine_levels_is_refused(tmp_path: Path) -> None:
    # before the fix this ran for minutes and gigabytes (9**9 nodes once expanded); the time it takes now is
    # measured in benchmarks/fuzz_scenarios.py (well under a millisecond after import), not asserted here
    text = anchor_bomb(9)
    assert len(text) < 400
    path = write(tmp_path, text)
    (problem,) = problems_of(path)
    assert problem.file == str(path)
    # nodes once expanded: the root mapping and its 9 keys, and level i's list of 9 copies of level i - 1, whose
    # closed form is (9**(i + 2) - 1) / 8 nodes (level 0: a list of 9 scalars, 10 nodes)
    expanded = 1 + 9 + sum((9 ** (i + 2) - 1) // 8 for i in range(9))
    assert expanded == 490_329_064
    assert problem.message == (
        f"expands to {expanded:,} nodes through YAML "
        f"aliases (&anchor / *alias); the limit is {MAX_EXPANDED_NODES:,} (a scenario has a few thousand)"
    )
    # the CLI says the same, one line, exit 1
    result = runner.invoke(app, ["validate", str(path)])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert str(path) in result.stderr and "aliases" in result.stderr


def test_recursive_alias_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path, edit("fleet:\n  idle_policy: powered", "fleet: &f\n  idle_policy: powered\n  me: *f"))
    (problem,) = problems_of(path)
    assert problem.file == str(path) and "without end" in problem.message


def test_small_aliases_still_work(tmp_path: Path) -> None:
    # the bundled scenarios use anchors for repeated blocks: ordinary use stays allowed
    text = edit(
        "    costs:\n      capex_usd_per_accelerator: 30000", "    costs: &c\n      capex_usd_per_accelerator: 30000"
    )
    scenario = rackcost.load_scenario(write(tmp_path, text, "ok.yaml"))
    assert scenario.systems[0].costs.capex_usd_per_accelerator == 30000


def test_text_over_the_size_limit_is_refused_before_parsing() -> None:
    # not valid YAML past the first line: a size refusal proves the parser never ran
    text = "name: x\n" + "[" * (MAX_SCENARIO_BYTES + 1)
    with pytest.raises(ScenarioError) as info:
        rackcost.scenario_from_yaml(text, "big.yaml")
    (problem,) = info.value.problems
    assert problem.file == "big.yaml" and "1 MB" in problem.message


def test_duplicate_key_is_an_error_with_both_lines(tmp_path: Path) -> None:
    text = edit("  rack_power_limit_kw: 40\n", "  rack_power_limit_kw: 40\n  rack_power_limit_kw: 60\n")
    path = write(tmp_path, text)
    (problem,) = problems_of(path)
    first = line_of(text, "rack_power_limit_kw: 40")
    assert problem.path == "facility.rack_power_limit_kw"
    assert problem.line == first + 1
    assert problem.message == f"duplicate key 'rack_power_limit_kw' (first at line {first})"


def test_duplicate_key_is_reported_beside_other_problems(tmp_path: Path) -> None:
    text = edit("  rack_power_limit_kw: 40\n", "  rack_power_limit_kw: 40\n  rack_power_limit_kw: 60\n")
    text = edit("pue: 1.2", "pue: 0.5", text)
    problems = problems_of(write(tmp_path, text))
    assert [p.path for p in problems] == ["facility.pue", "facility.rack_power_limit_kw"]


@pytest.mark.parametrize(
    ("old", "new", "path"),
    [
        (
            "cost_of_capital_fraction: 0.08\n      maintenance",
            "cost_of_capital_fraction: true\n      maintenance",
            "systems[0].costs.cost_of_capital_fraction",
        ),
        ("rack_power_limit_kw: 40", "rack_power_limit_kw: false", "facility.rack_power_limit_kw"),
        ("nodes_per_rack: 4", "nodes_per_rack: true", "systems[0].hardware.nodes_per_rack"),
        ("arrival_rps: 5,", "arrival_rps: {dist: uniform, low: true, high: 6},", "demand[0].arrival_rps.low"),
    ],
)
def test_boolean_where_a_number_is_expected(tmp_path: Path, old: str, new: str, path: str) -> None:
    text = edit(old, new)
    (problem,) = problems_of(write(tmp_path, text))
    assert problem.path == path
    assert problem.message.startswith("must be a number, got "), problem.message
    assert problem.message.endswith(("got true", "got false"))


@pytest.mark.parametrize(
    ("old", "new", "path"),
    [
        ("  - name: A\n", '  - name: " "\n', "systems[0].name"),
        ("  - name: A\n", '  - name: "a\\0b"\n', "systems[0].name"),
        ("{name: quiet,", '{name: "qu\\tiet",', "demand[0].name"),
        ("name: Synthetic A vs B", "name: " + "x" * 500, "name"),
    ],
)
def test_names_are_printable(tmp_path: Path, old: str, new: str, path: str) -> None:
    problems = problems_of(write(tmp_path, edit(old, new)))
    assert path in [p.path for p in problems], problems


# --------------------------------------------------------------------------- ranges: nothing non-finite


EXTREMES = [
    # (edit, path): each made a result with inf or NaN in it, or a traceback, before the fields had ranges
    (("arrival_rps: 5,", "arrival_rps: 1.0e-308,"), "demand[0].arrival_rps"),
    (("tokens_per_s_per_kw: 4000", "tokens_per_s_per_kw: 1e-308"), "systems[1].performance.claim.tokens_per_s_per_kw"),
    (
        ("throughput_tokens_per_s: 3000", "throughput_tokens_per_s: 1e+308"),
        "systems[0].performance.points[0].throughput_tokens_per_s",
    ),
    (("rack_power_limit_kw: 40", "rack_power_limit_kw: " + "9" * 5001), "facility.rack_power_limit_kw"),
    (("rack_power_limit_kw: 40", "rack_power_limit_kw: 1" + "0" * 400), "facility.rack_power_limit_kw"),
    # found by the fuzzer: 1 - 1e-308 is 1.0, and the queueing step raised "max_exceedance_fraction must lie in ..."
    (("attainment_fraction: 0.99", "attainment_fraction: 1.0e-308"), "slo.attainment_fraction"),
]


@pytest.mark.parametrize(("change", "path"), EXTREMES)
def test_extreme_values_are_clear_errors(tmp_path: Path, change: tuple[str, str], path: str) -> None:
    text = edit(*change)
    file = write(tmp_path, text)
    with pytest.raises(ScenarioError) as info:
        rackcost.evaluate(rackcost.load_scenario(file))
    (problem,) = info.value.problems
    assert problem.file == str(file) and problem.path == path
    assert problem.line == line_of(text, change[1])
    assert "bug" not in problem.message
    # the CLI: exit 1, one line naming file and path
    result = runner.invoke(app, ["evaluate", str(file)])
    assert result.exit_code == 1 and "Traceback" not in result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and str(file) in lines[0] and path in lines[0], result.stderr


def test_schema_shows_the_ranges() -> None:
    schema = rackcost.scenario.schema.Scenario.model_json_schema()
    demand = schema["$defs"]["DemandPoint"]["properties"]["arrival_rps"]
    assert "minimum" in demand or "exclusiveMinimum" in demand
    assert "maximum" in demand
    hardware = schema["$defs"]["Hardware"]["properties"]["nodes_per_rack"]
    assert "maximum" in hardware


# --------------------------------------------------------------------------- every problem at once


def test_three_problems_at_once_in_file_order(tmp_path: Path) -> None:
    text = edit("pue: 1.2", "pue: {dist: triangular, low: 1.3, mode: 1.2, high: 1.4}")
    text = edit("rack_power_limit_kw: 40", "rack_power_limit_kw: -5", text)
    text = edit("idle_policy: powered", "idle_policy: powered\n  replica_availability_fraction: 1.5", text)
    problems = problems_of(write(tmp_path, text))
    assert [p.path for p in problems] == [
        "facility.pue",
        "facility.rack_power_limit_kw",
        "fleet.replica_availability_fraction",
    ]
    assert [p.line for p in problems] == sorted(p.line for p in problems)


def test_no_systems_says_a_system_is_required_not_62_figure_paths(tmp_path: Path) -> None:
    scenario = rackcost.bundled_scenario_path()
    data = yaml.safe_load(scenario.read_text(encoding="utf-8"))
    assert len(data["figures"]) > 5
    data["systems"] = []
    path = write(tmp_path, yaml.safe_dump(data, sort_keys=False))
    problems = problems_of(path)
    assert problems[0].path == "systems", problems
    assert problems[0].message == "at least one system is required; must list at least 1 item, got 0"
    assert not any(p.path.startswith("figures") and "systems[" in p.path for p in problems), problems


def test_a_figure_path_that_is_simply_wrong_is_still_reported(tmp_path: Path) -> None:
    text = BASE + "figures:\n  facility.peu: {provenance: independent, source: x}\n"
    (problem,) = problems_of(write(tmp_path, text))
    assert problem.path == "figures.facility.peu"


# --------------------------------------------------------------------------- the fuzzer


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_scenarios())
def test_fuzzed_scenarios_are_a_result_or_a_clear_error(case: Case) -> None:
    assert check_outcome(case.text) in ("ok", "refused")


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_scenarios())
def test_fuzzed_files_through_the_cli(tmp_path_factory: pytest.TempPathFactory, case: Case) -> None:
    path = tmp_path_factory.mktemp("fuzz") / "mutated.yaml"
    path.write_text(case.text, encoding="utf-8")
    result = runner.invoke(app, ["evaluate", str(path)])
    assert result.exit_code in (0, 1), result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output
    if result.exit_code == 1:
        assert str(path) in result.stderr, result.stderr


# --------------------------------------------------------------------------- the ends of every range


def test_latency_falling_with_load_is_a_clear_error(tmp_path: Path) -> None:
    # found by sweeping every figure to the ends of its range: a TTFT of 1e7 ms at the lowest concurrency, with the
    # higher points inside the SLO, made the quiet demand point accept nothing ("points.accepted_rps is not finite
    # (nan); this is a bug in rackcost", or a ZeroDivisionError)
    source = rackcost.bundled_scenario_path("llama-3.3-70b-gaudi25-tp-precision")
    data = yaml.safe_load(source.read_text(encoding="utf-8"))
    data["systems"][0]["performance"]["points"][0]["ttft_ms"] = 1e7
    path = write(tmp_path, yaml.safe_dump(data, sort_keys=False))
    with pytest.raises(ScenarioError) as info:
        rackcost.evaluate(rackcost.load_scenario(path))
    (problem,) = info.value.problems
    assert problem.path == "systems[0].performance" and problem.file == str(path)
    assert "latency that falls as load rises" in problem.message and "1e+07" in problem.message


def _numbers(data: object, loc: tuple = ()) -> list[tuple]:
    if isinstance(data, dict):
        return [x for k, v in data.items() for x in _numbers(v, (*loc, k))]
    if isinstance(data, list):
        return [x for i, v in enumerate(data) for x in _numbers(v, (*loc, i))]
    return [loc] if isinstance(data, int | float) and not isinstance(data, bool) else []


def test_every_figure_at_the_ends_of_its_range_gives_a_finite_result_or_a_clear_error() -> None:
    # each ranged figure of the test scenario at its lowest and highest allowed value, one at a time (the sweep over
    # the bundled scenarios, 1,900 runs, is what found the falling-latency case above; none fails now)
    base = yaml.safe_load(BASE)
    checked = 0
    for loc in _numbers(base):
        edges = field_range(format_path(loc))
        assert edges is not None, loc
        for edge in edges:
            data = yaml.safe_load(BASE)
            parent = data
            for part in loc[:-1]:
                parent = parent[part]
            parent[loc[-1]] = edge
            assert check_outcome(yaml.safe_dump(data, sort_keys=False)) in ("ok", "refused")
            checked += 1
    assert checked >= 80
