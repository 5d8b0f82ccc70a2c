"""Tests for rackcost.scenario.loading: bad input gives one named problem per mistake (DESIGN.md section 5)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

import rackcost
from rackcost import ScenarioError
from rackcost.scenario.schema import Scenario
from reference import TWO_SYSTEMS

BASE = TWO_SYSTEMS.read_text(encoding="utf-8")


def edited(tmp_path: Path, old: str, new: str, count: int = 1, name: str = "bad.yaml") -> tuple[Path, int]:
    """Write two_systems.yaml with ``old`` replaced by ``new``; return the file and the 1-based line of the edit."""
    assert BASE.count(old) >= count, f"{old!r} not in the test scenario"
    text = BASE.replace(old, new, count)
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    line = text[: text.index(new)].count("\n") + 1
    return path, line


def load_problems(path: Path) -> list[rackcost.Problem]:
    with pytest.raises(ScenarioError) as info:
        rackcost.load_scenario(path)
    err = info.value
    # the message is one line per problem, each the problem's own text
    assert str(err).splitlines() == [str(p) for p in err.problems]
    return err.problems


def line_of(text: str, needle: str, start: int = 0) -> int:
    """1-based line where ``needle`` first occurs at or after character ``start``."""
    return text[: text.index(needle, start)].count("\n") + 1


def assert_names_file_path_line(problem: rackcost.Problem, path: Path, yaml_path: str, line: int | None) -> None:
    assert problem.file == str(path)
    assert problem.path == yaml_path
    assert problem.line == line
    prefix = f"{path}:{line}: {yaml_path}: " if line is not None else f"{path}: {yaml_path}: "
    assert str(problem).startswith(prefix), str(problem)


# --------------------------------------------------------------------------- the good file


def test_good_file_loads() -> None:
    scenario = rackcost.load_scenario(TWO_SYSTEMS)
    assert isinstance(scenario, Scenario)
    assert [s.name for s in scenario.systems] == ["A", "B"]
    assert [d.arrival_rps for d in scenario.demand] == [5.0, 12.0, 20.0]


def test_round_trip_dump_and_revalidate_is_equal() -> None:
    scenario = rackcost.load_scenario(TWO_SYSTEMS)
    data = scenario.model_dump(by_alias=True, exclude_none=True)
    again = rackcost.scenario_from_dict(data)
    assert again == scenario
    # and through YAML text as well (safe_dump of plain data, safe_load back)
    text = yaml.safe_dump(scenario.model_dump(mode="json", by_alias=True, exclude_none=True))
    assert rackcost.scenario_from_dict(yaml.safe_load(text)) == scenario


# --------------------------------------------------------------------------- one bad value


def test_wrong_type(tmp_path: Path) -> None:
    path, line = edited(tmp_path, "arrival_rps: 5,", "arrival_rps: abc,")
    (problem,) = load_problems(path)
    assert_names_file_path_line(problem, path, "demand[0].arrival_rps", line)
    assert "must be a number" in problem.message and "'abc'" in problem.message


@pytest.mark.parametrize(("index", "old"), [(0, "accelerator_idle_w: 100"), (1, "accelerator_idle_w: 80")])
def test_negative_power(tmp_path: Path, index: int, old: str) -> None:
    path, line = edited(tmp_path, old, "accelerator_idle_w: -5")
    (problem,) = load_problems(path)
    assert_names_file_path_line(problem, path, f"systems[{index}].hardware.accelerator_idle_w", line)
    assert ">= 0" in problem.message and "-5" in problem.message


def test_power_order_names_both_fields(tmp_path: Path) -> None:
    # idle above busy: a cross-field rule, which must name both fields and both values
    path, _ = edited(tmp_path, "accelerator_idle_w: 80", "accelerator_idle_w: 450")
    (problem,) = load_problems(path)
    assert problem.path == "systems[1].hardware.accelerator_idle_w"
    for text in ("450", "accelerator_busy_w", "400"):
        assert text in problem.message


def test_slo_no_operating_point_meets(tmp_path: Path) -> None:
    # the file is valid (an SLO no system meets is a finding, issue 22); with no system left, evaluate names each at
    # the file, YAML path and line of its performance block
    path, _ = edited(tmp_path, "tpot_limit_ms: 50", "tpot_limit_ms: 1")
    scenario = rackcost.load_scenario(path)
    with pytest.raises(ScenarioError) as info:
        rackcost.evaluate(scenario)
    problems = info.value.problems
    text = path.read_text()
    # both systems' points have TPOT >= 10 ms: both are reported, at their performance blocks
    assert [p.path for p in problems] == ["systems[0].performance", "systems[1].performance"]
    first = line_of(text, "performance:")
    second = line_of(text, "performance:", text.index("- name: B"))
    for problem, line in zip(problems, [first, second], strict=True):
        assert_names_file_path_line(problem, path, problem.path, line)
        assert "meets the SLO" in problem.message and "TPOT <= 1 ms" in problem.message


def test_unknown_key_in_a_block(tmp_path: Path) -> None:
    path, line = edited(tmp_path, "      accelerator_idle_w: 80\n", "      accelerator_idle_w: 80\n      colour: red\n")
    (problem,) = load_problems(path)
    assert_names_file_path_line(problem, path, "systems[1].hardware.colour", line + 1)
    assert "unknown key" in problem.message
    for allowed in ("accelerator_idle_w", "accelerator_busy_w", "host_w_per_node", "rack_overhead_w"):
        assert allowed in problem.message


def test_unknown_key_at_top_level_and_under_an_alias(tmp_path: Path) -> None:
    path, line = edited(tmp_path, "description:", "colour: red\ndescription:")
    (problem,) = load_problems(path)
    assert_names_file_path_line(problem, path, "colour", line)
    for allowed in ("workload", "slo", "demand", "facility", "fleet", "systems"):
        assert allowed in problem.message
    # provenance's field is written 'class' in YAML: the allowed list must say 'class', not the Python name
    path, _ = edited(tmp_path, "{class: independent, source: synthetic}", "{class: independent, source: x, who: me}")
    (problem,) = load_problems(path)
    assert problem.path == "systems[0].provenance.who"
    assert "class" in problem.message and "provenance_class" not in problem.message


def test_misspelt_key_is_unknown_and_says_the_real_one(tmp_path: Path) -> None:
    """Once two problems (``peu`` unknown, ``pue`` missing), now one: the key as written, meaning ``pue``."""
    path, line = edited(tmp_path, "  pue: 1.2", "  peu: 1.2")
    (problem,) = load_problems(path)
    assert_names_file_path_line(problem, path, "facility.peu", line)
    assert problem.message == "unknown key; did you mean `pue`?"


def test_missing_file(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.yaml"
    (problem,) = load_problems(missing)
    assert problem.file == str(missing)
    assert str(missing) in str(problem) and "no such file" in str(problem)


def test_directory_instead_of_file(tmp_path: Path) -> None:
    (problem,) = load_problems(tmp_path)
    assert "directory" in problem.message


def test_yaml_that_does_not_parse(tmp_path: Path) -> None:
    path, line = edited(tmp_path, "  pue: 1.2", "  pue: [1.2")
    (problem,) = load_problems(path)
    assert problem.file == str(path)
    assert "not valid YAML" in problem.message
    # PyYAML notices the unclosed flow sequence at the next token, which is on the edited line or the one after
    assert problem.line in (line, line + 1)
    assert str(problem).startswith(f"{path}:{problem.line}: ")


def test_python_object_tag_is_not_executed(tmp_path: Path) -> None:
    marker = tmp_path / "executed"
    path, line = edited(tmp_path, "  pue: 1.2", f'  pue: !!python/object/apply:os.system ["touch {marker}"]')
    (problem,) = load_problems(path)
    assert not marker.exists(), "the YAML tag ran a shell command: the loader is not safe"
    assert "tag" in problem.message and "safe loader" in problem.message
    assert problem.file == str(path) and problem.line == line


@pytest.mark.parametrize(
    "tag", ["!!python/object:rackcost.scenario.schema.Scenario {}", "!!python/name:os.system", "!!binary aGk="]
)
def test_other_non_plain_tags(tmp_path: Path, tag: str) -> None:
    path, _ = edited(tmp_path, "  pue: 1.2", f"  pue: {tag}")
    problems = load_problems(path)
    assert len(problems) == 1
    # !!binary is a safe tag that builds bytes; it must still be rejected, as a type error at facility.pue
    assert problems[0].path in ("", "facility.pue")


def test_hours_not_adding_to_24(tmp_path: Path) -> None:
    path, _ = edited(tmp_path, "hours_per_day: 8}", "hours_per_day: 9}")
    (problem,) = load_problems(path)
    assert problem.file == str(path)
    # 9 + 10 + 6 = 25
    assert "demand" in str(problem) and "hours_per_day" in str(problem)
    assert "24" in problem.message and "25" in problem.message


def test_several_problems_reported_at_once(tmp_path: Path) -> None:
    text = BASE.replace("accelerator_idle_w: 80", "accelerator_idle_w: -5").replace("pue: 1.2", "pue: 0.5")
    path = tmp_path / "two.yaml"
    path.write_text(text)
    problems = load_problems(path)
    assert len(problems) == 2
    by_path = {p.path: p for p in problems}
    assert set(by_path) == {"facility.pue", "systems[1].hardware.accelerator_idle_w"}
    assert by_path["facility.pue"].line == line_of(text, "pue: 0.5")
    assert ">= 1" in by_path["facility.pue"].message and "0.5" in by_path["facility.pue"].message
    assert by_path["systems[1].hardware.accelerator_idle_w"].line == line_of(text, "accelerator_idle_w: -5")


@pytest.mark.parametrize(("content", "expected"), [("", "empty"), ("- a\n- b\n", "mapping")])
def test_empty_or_non_mapping_file(tmp_path: Path, content: str, expected: str) -> None:
    path = tmp_path / "odd.yaml"
    path.write_text(content)
    (problem,) = load_problems(path)
    assert expected in problem.message and problem.file == str(path)


def test_in_memory_scenario_problems_name_the_path() -> None:
    data = yaml.safe_load(BASE)
    data["facility"]["electricity_usd_per_kwh"] = -0.1
    with pytest.raises(ScenarioError) as info:
        rackcost.scenario_from_dict(data)
    (problem,) = info.value.problems
    assert problem.path == "facility.electricity_usd_per_kwh" and problem.file == "<scenario>"
    assert problem.line is None


@pytest.mark.parametrize("value", [".nan", ".inf", "-.inf"])
def test_non_finite_numbers_are_rejected(tmp_path: Path, value: str) -> None:
    path, line = edited(tmp_path, "electricity_usd_per_kwh: 0.10", f"electricity_usd_per_kwh: {value}")
    (problem,) = load_problems(path)
    assert_names_file_path_line(problem, path, "facility.electricity_usd_per_kwh", line)


@pytest.mark.parametrize(
    ("bundled", "given"),
    [
        ("gpt-oss-120b-jalapeno-vs-gb200.yaml", "electricity_usd_per_kWh"),  # a distribution and a figures entry
        ("deepseek-r1-own-vs-rent-vs-api.yaml", "electricity_usd_per_kWh"),  # a plain number and a figures entry
        ("deepseek-r1-own-vs-rent-vs-api.yaml", "electricty_usd_per_kwh"),  # a letter left out
    ],
)
def test_a_misspelt_key_is_one_problem_that_says_which_key_was_meant(tmp_path: Path, bundled: str, given: str) -> None:
    """One misspelt key was four problems: the real key missing, the misspelt one unknown, its distribution not
    allowed there and the figures entry of the real key naming no value. It is one mistake: one problem, at the file,
    line and YAML path of the key as written, saying which key was meant (difflib's closest field name)."""
    text = rackcost.bundled_scenario_path(bundled).read_text(encoding="utf-8")
    assert text.count("\n  electricity_usd_per_kwh:") == 1
    path = tmp_path / "misspelt.yaml"
    path.write_text(text.replace("\n  electricity_usd_per_kwh:", f"\n  {given}:"), encoding="utf-8")
    (problem,) = load_problems(path)
    assert_names_file_path_line(problem, path, f"facility.{given}", line_of(path.read_text(), f"  {given}:"))
    assert problem.message == "unknown key; did you mean `electricity_usd_per_kwh`?"


def test_an_unknown_key_like_no_field_still_lists_the_allowed_ones(tmp_path: Path) -> None:
    """With no field name close to it, the unknown key's problem lists the allowed keys, and a required field left
    out beside it is its own problem (two mistakes)."""
    path, _ = edited(tmp_path, "  electricity_usd_per_kwh: 0.10", "  colour: red")
    problems = load_problems(path)
    assert [p.path for p in problems] == ["facility.electricity_usd_per_kwh", "facility.colour"]
    assert problems[0].message == "required field is missing"
    assert problems[1].message.startswith("unknown key (allowed here: pue, electricity_usd_per_kwh")
