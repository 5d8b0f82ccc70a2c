"""Tests for rackcost.cli.evaluate: evaluate, compare, validate, schema, scenarios (DESIGN.md sections 4 and 5)."""

from __future__ import annotations

import ast
import csv
import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import rackcost
import rackcost.cli
from rackcost.cli import app
from rackcost.scenario.loading import DEFAULT_SCENARIO
from reference import TWO_SYSTEMS

runner = CliRunner()
BASE = TWO_SYSTEMS.read_text(encoding="utf-8")

POINT_KEYS = [
    "system",
    "demand_point",
    "offered_rps",
    "accepted_rps",
    "rejected_rps",
    "rejected_fraction",
    "utilization_fraction",
    "active_replicas",
    "provisioned_replicas",
    "racks",
    "capacity_at_slo_rps",
    "spare_capacity_fraction",
    "ttft_p99_ms",
    "it_power_kw",
    "facility_power_kw",
    "energy_usd_per_hour",
    "capital_usd_per_hour",
    "fixed_opex_usd_per_hour",
    "total_usd_per_hour",
    "usd_per_accepted_request",
    "usd_per_million_accepted_output_tokens",
    "output_tokens_per_kwh",
    "provenance",
]

# The bad inputs of tests/test_loading.py, as (old, new) edits of tests/data/two_systems.yaml.
BAD_EDITS = {
    "wrong type": [("arrival_rps: 5,", "arrival_rps: abc,")],
    "negative power": [("accelerator_idle_w: 80", "accelerator_idle_w: -5")],
    "unknown key": [("      accelerator_idle_w: 80\n", "      accelerator_idle_w: 80\n      colour: red\n")],
    "does not parse": [("  pue: 1.2", "  pue: [1.2")],
    "python tag": [("  pue: 1.2", '  pue: !!python/object/apply:os.system ["echo hi"]')],
    "hours": [("hours_per_day: 8}", "hours_per_day: 9}")],
    "several": [("accelerator_idle_w: 80", "accelerator_idle_w: -5"), ("pue: 1.2", "pue: 0.5")],
}


def write_bad(tmp_path: Path, edits: list[tuple[str, str]], name: str = "bad.yaml") -> Path:
    text = BASE
    for old, new in edits:
        assert old in text
        text = text.replace(old, new, 1)
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def invoke(*args: str):
    return runner.invoke(app, [str(a) for a in args])


def assert_user_error(result, *must_say: str) -> None:
    """Exit 1 through typer.Exit (not an escaped exception), message on stderr, no traceback anywhere."""
    assert result.exit_code == 1, result.output
    # CliRunner turns an uncaught exception into exit code 1 as well: insist it was a clean exit
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output
    assert result.stderr.strip(), "no message on stderr"
    for text in must_say:
        assert text in result.stderr, (text, result.stderr)


def assert_ok(result) -> None:
    assert result.exit_code == 0, (result.output, result.exception)
    assert result.exception is None
    assert "Traceback" not in result.output


# --------------------------------------------------------------------------- evaluate


def test_evaluate_table() -> None:
    result = invoke("evaluate", TWO_SYSTEMS)
    assert_ok(result)
    out = result.stdout
    for point in ("quiet", "normal", "peak"):
        assert point in out
    for text in ("accepted", "$ per 1,000 accepted requests", "Claim vs decision", "headline", "blended"):
        assert text in out
    # both systems' tables, each naming the router the answer assumes, as the header line does
    assert "A  (independent, routing least_outstanding)" in out and "B  (vendor, routing least_outstanding)" in out
    assert "Routing least_outstanding (fleet.routing)" in out


def test_evaluate_numbers_are_readable_and_comparable() -> None:
    """Issue 11: "$8.70e-05" in CLI tables, "4861" beside "1,000", "1.2k" beside the dashboard's "1.2K"."""
    import re

    out = invoke("evaluate").stdout  # the default scenario: concurrency 4,861 at the SLO point, TTFT 1,000 ms
    assert not re.search(r"\de[+-]?\d", out), "scientific notation"
    assert "4,861" in out and "4861" not in out
    assert not re.search(r"\d[k]\b", out), "lower-case k suffix"
    assert "1.2K" in out
    assert "$47.5M" in out
    # a tiny cost per request: in dollars per 1,000 requests, plain digits
    data = rackcost.evaluate(rackcost.load_scenario(TWO_SYSTEMS)).records["points"]
    assert all(r["usd_per_accepted_request"] < 0.01 for r in data)
    table = invoke("evaluate", TWO_SYSTEMS).stdout
    assert "$ per 1,000 accepted requests" in table
    assert not re.search(r"\$0\.0000", table)


def test_evaluate_json() -> None:
    result = invoke("evaluate", TWO_SYSTEMS, "--format", "json")
    assert_ok(result)
    assert json.loads(result.stdout)["routing"] == "least_outstanding"
    data = json.loads(result.stdout)
    assert {"points", "systems", "comparison", "warnings"} <= set(data)
    assert len(data["points"]) == 2 * 3  # two systems x three demand points
    for row in data["points"]:
        missing = [k for k in POINT_KEYS if k not in row]
        assert not missing, missing
    assert {(r["system"], r["demand_point"]) for r in data["points"]} == {
        (s, d) for s in "AB" for d in ("quiet", "normal", "peak")
    }
    # the CLI prints what the library computes
    lib = rackcost.evaluate(rackcost.load_scenario(TWO_SYSTEMS)).to_dict()
    assert data["points"] == json.loads(json.dumps(lib["points"]))


def test_evaluate_csv_has_header() -> None:
    result = invoke("evaluate", TWO_SYSTEMS, "--format", "csv")
    assert_ok(result)
    rows = list(csv.reader(io.StringIO(result.stdout)))
    header = rows[0]
    assert set(POINT_KEYS) <= set(header)
    assert len(rows) == 1 + 6 and all(len(r) == len(header) for r in rows)
    systems = list(
        csv.DictReader(io.StringIO(invoke("evaluate", TWO_SYSTEMS, "-f", "csv", "--table", "systems").stdout))
    )
    assert [r["system"] for r in systems] == ["A", "B"]


@pytest.mark.parametrize("fmt", ["json", "csv", "table"])
def test_evaluate_output_writes_a_file(tmp_path: Path, fmt: str) -> None:
    out = tmp_path / f"result.{fmt}"
    result = invoke("evaluate", TWO_SYSTEMS, "--format", fmt, "--output", out)
    assert_ok(result)
    assert out.exists() and out.stat().st_size > 0
    text = out.read_text()
    if fmt == "json":
        assert set(json.loads(text)["points"][0]) >= set(POINT_KEYS)
        assert "points" not in result.stdout  # went to the file, not to stdout
    elif fmt == "csv":
        assert text.splitlines()[0].startswith("system,demand_point")
    else:
        assert "$ per 1,000 accepted requests" in text
    assert f"wrote {out}" in result.stderr.replace("\n", "")


@pytest.mark.parametrize("fmt", ["json", "csv", "table"])
def test_evaluate_output_to_unwritable_place_is_a_clean_error(tmp_path: Path, fmt: str) -> None:
    out = tmp_path / "no_such_dir" / "result.txt"
    result = invoke("evaluate", TWO_SYSTEMS, "--format", fmt, "--output", out)
    assert_user_error(result, "result.txt")


def test_compare_only_comparison() -> None:
    result = invoke("compare", TWO_SYSTEMS, "--format", "json")
    assert_ok(result)
    data = json.loads(result.stdout)
    assert set(data) == {"comparison", "unserved", "warnings"}
    assert {r["system"] for r in data["comparison"]} == {"B"}


# --------------------------------------------------------------------------- systems the SLO rules out (issue 22)


def test_an_slo_no_system_meets_loads_and_evaluate_names_each_system_at_its_line(tmp_path: Path) -> None:
    # not an input error (the file is valid, validate exits 0 with a note per system), but with no system left
    # there is no answer: evaluate exits 1 and names each system, its YAML path and the line of its block
    bad = write_bad(tmp_path, [("tpot_limit_ms: 50", "tpot_limit_ms: 1")])
    result = invoke("validate", bad)
    assert_ok(result)
    words = " ".join(result.stdout.split())  # the console wraps long lines at its width
    assert words.count("note:") == 2 and "its fastest TPOT is" in words
    result = invoke("evaluate", bad)
    assert_user_error(result, str(bad), "systems[0].performance", "systems[1].performance", "over the 1 ms limit")
    lines = bad.read_text(encoding="utf-8").splitlines()
    first = next(i for i, line in enumerate(lines, 1) if line.strip() == "performance:")
    assert f"{bad}:{first}: systems[0].performance" in result.stderr


def test_a_system_the_slo_rules_out_is_marked_and_the_others_evaluated(tmp_path: Path) -> None:
    # A's fastest point has TPOT 20 ms, B's (its claim) 10 ms: a 15 ms limit rules out A alone
    ruled_out = "A"
    path = write_bad(tmp_path, [("tpot_limit_ms: 50", "tpot_limit_ms: 15")])
    result = invoke("evaluate", path)
    assert_ok(result)
    assert f"{ruled_out}: cannot meet the SLO" in " ".join(result.stdout.split())
    data = json.loads(invoke("evaluate", path, "--format", "json").stdout)
    assert [u["system"] for u in data["unserved"]] == [ruled_out]
    assert ruled_out not in {r["system"] for r in data["systems"]}


# --------------------------------------------------------------------------- validate


def test_validate_good_file() -> None:
    result = invoke("validate", TWO_SYSTEMS)
    assert_ok(result)
    assert "ok" in result.stdout and "two_systems.yaml" in result.stdout


def test_validate_bad_and_good_files_together(tmp_path: Path) -> None:
    bad = write_bad(tmp_path, BAD_EDITS["negative power"])
    result = invoke("validate", TWO_SYSTEMS, bad)
    assert_user_error(result, str(bad), "systems[1].hardware.accelerator_idle_w", "-5")
    assert "two_systems.yaml" in result.stdout  # the good file is still reported ok


@pytest.mark.parametrize("command", ["validate", "evaluate"])
@pytest.mark.parametrize("case", sorted(BAD_EDITS))
def test_bad_input_exits_1_without_traceback(tmp_path: Path, command: str, case: str) -> None:
    bad = write_bad(tmp_path, BAD_EDITS[case])
    result = invoke(command, bad)
    assert_user_error(result, str(bad), "error:")
    with pytest.raises(rackcost.ScenarioError) as info:
        rackcost.load_scenario(bad)
    # one line on stderr per problem
    assert result.stderr.count("error:") == len(info.value.problems)


@pytest.mark.parametrize("command", ["validate", "evaluate"])
def test_missing_file_exits_1_without_traceback(tmp_path: Path, command: str) -> None:
    missing = tmp_path / "nowhere.yaml"
    result = invoke(command, missing)
    assert_user_error(result, str(missing), "no such file")


# --------------------------------------------------------------------------- user text is printed literally


@pytest.mark.parametrize("value", ["[/red]", "[bold]x", "[/]"])
def test_bad_value_that_looks_like_markup_is_printed_literally(tmp_path: Path, value: str) -> None:
    # A user's value is echoed back in the problem ("got '...'"); the terminal must show it as written and a
    # bracketed value must not crash the CLI (Rich markup is for the CLI's own styling only).
    bad = write_bad(tmp_path, [("arrival_rps: 5,", f'arrival_rps: "{value}",')])
    for command in ("validate", "evaluate"):
        result = invoke(command, bad)
        assert_user_error(result, f"got '{value}'")


def test_file_name_with_brackets_is_printed_literally(tmp_path: Path) -> None:
    bad = write_bad(tmp_path, BAD_EDITS["negative power"], name="scenario[v2].yaml")
    result = invoke("validate", bad)
    assert_user_error(result, "scenario[v2].yaml")


def test_system_name_with_brackets_evaluates(tmp_path: Path) -> None:
    scenario = write_bad(tmp_path, [("  - name: B\n", '  - name: "B [/i] [bold]"\n')], name="names.yaml")
    result = invoke("evaluate", scenario)
    assert_ok(result)
    assert "B [/i] [bold]" in result.stdout


# --------------------------------------------------------------------------- schema, scenarios


def test_schema_prints_json_schema() -> None:
    result = invoke("schema")
    assert_ok(result)
    schema = json.loads(result.stdout)
    assert "properties" in schema
    assert {"workload", "slo", "demand", "facility", "fleet", "systems"} <= set(schema["properties"])


def test_schema_output_file(tmp_path: Path) -> None:
    out = tmp_path / "schema.json"
    assert_ok(invoke("schema", "--output", out))
    assert "properties" in json.loads(out.read_text())


def test_schema_output_to_unwritable_place_is_a_clean_error(tmp_path: Path) -> None:
    out = tmp_path / "no_such_dir" / "schema.json"
    assert_user_error(invoke("schema", "--output", out), "schema.json")


def test_scenarios_lists_files(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # a controlled folder: two copies of the test scenario under different names
    files = []
    for name in ("alpha.yaml", "beta.yaml"):
        (tmp_path / name).write_text(BASE)
        files.append(tmp_path / name)
    monkeypatch.setattr("rackcost.cli.evaluate.bundled_scenarios", lambda: files)
    result = invoke("scenarios")
    assert_ok(result)
    assert "alpha.yaml" in result.stdout and "beta.yaml" in result.stdout
    assert "Synthetic A vs B" in result.stdout
    assert str(tmp_path) in result.stdout.replace("\n", "")


def test_scenarios_lists_the_bundled_files() -> None:
    result = invoke("scenarios")
    assert_ok(result)
    bundled = rackcost.bundled_scenarios()
    assert bundled, "no bundled scenarios found"
    for path in bundled:
        assert path.name in result.stdout


# --------------------------------------------------------------------------- the installed console script


def _console_script() -> str:
    sibling = Path(sys.executable).parent / "rackcost"
    found = str(sibling) if sibling.exists() else shutil.which("rackcost")
    assert found, "the rackcost console script is not installed next to the test interpreter"
    return found


def test_console_script_end_to_end(tmp_path: Path) -> None:
    script = _console_script()
    good = subprocess.run(
        [script, "evaluate", str(TWO_SYSTEMS), "--format", "json"], capture_output=True, text=True, timeout=120
    )
    assert good.returncode == 0, good.stderr
    assert {"points", "systems", "comparison", "warnings"} <= set(json.loads(good.stdout))
    bad = write_bad(tmp_path, BAD_EDITS["negative power"])
    failed = subprocess.run([script, "validate", str(bad)], capture_output=True, text=True, timeout=120)
    assert failed.returncode == 1
    assert "Traceback" not in failed.stderr + failed.stdout
    assert "systems[1].hardware.accelerator_idle_w" in failed.stderr and str(bad) in failed.stderr


def test_python_m_rackcost_cli_runs_the_command() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "rackcost.cli", "schema"], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["title"] == "Scenario"


# --------------------------------------------------------------------------- the package's shape


def _rackcost_imports(path: Path) -> set[str]:
    """Every ``rackcost...`` module a source file imports, at any level (type-only imports included)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("rackcost"):
            names |= {node.module} | {f"{node.module}.{a.name}" for a in node.names}
        elif isinstance(node, ast.Import):
            names |= {a.name for a in node.names if a.name.startswith("rackcost")}
    return names


def test_cli_modules_import_only_the_shared_helpers_of_the_package() -> None:
    """No import cycle: the command modules use rackcost.cli.common, rackcost.cli.layout (tables that fit the
    width) and rackcost.cli.unserved (the systems left out, marked), which use no other module of the CLI."""
    folder = Path(rackcost.cli.__file__).parent
    commands = {"evaluate.py", "uncertainty.py", "importing.py"}
    shared = ("rackcost.cli.common", "rackcost.cli.layout", "rackcost.cli.unserved")
    assert commands | {"common.py", "layout.py", "unserved.py"} <= {p.name for p in folder.glob("*.py")}
    for helper in ("common.py", "layout.py", "unserved.py"):
        assert not any(m.startswith("rackcost.cli") for m in _rackcost_imports(folder / helper))
    for name in commands:
        inside = {m for m in _rackcost_imports(folder / name) if m.startswith("rackcost.cli")}
        assert all(m in shared or m.startswith(tuple(f"{s}." for s in shared)) for m in inside), (name, inside)


def test_evaluate_of_a_scenario_with_a_buying_plan_leads_with_the_plans_decision(three_year_plan) -> None:
    """The day's table names each system alone; the three-year buying plan's scenario is decided by its plan, so
    ``rackcost evaluate``'s summary leads with the words ``rackcost plan`` prints (the one wording,
    rackcost.reporting.decision), over the scenario's 3 years, finding the plan once; its JSON stays the result's
    and finds no plan."""
    from rackcost.reporting.plan_section import plan_sentence

    path, plan, calls = three_year_plan
    said = plan_sentence(plan)
    assert said.startswith("Over the 3-year horizon the cheapest plan uses") and "spot GB200 NVL72 alone" in said
    evaluated = invoke("evaluate", str(path))
    assert_ok(evaluated)
    assert " ".join(evaluated.stdout.split()).startswith(f"{plan.scenario} {said}")
    assert len(calls) == 1
    planned = invoke("plan", str(path))
    assert_ok(planned)
    assert said in " ".join(planned.stdout.split())
    assert len(calls) == 2
    as_json = invoke("evaluate", str(path), "--format", "json")
    assert json.loads(as_json.stdout) == rackcost.evaluate(rackcost.load_scenario(path)).to_dict()
    assert len(calls) == 2
    # a scenario without a plan block leads with the cheapest system over the day, as the report and the dashboard
    two = invoke("evaluate", str(TWO_SYSTEMS))
    first = rackcost.evaluate(rackcost.load_scenario(TWO_SYSTEMS)).records["systems"]
    from rackcost.reporting.result_sections import answer_sentence

    name = rackcost.load_scenario(TWO_SYSTEMS).name
    assert " ".join(two.stdout.split()).startswith(f"{name} {answer_sentence(first)}")
    assert "buying plan" not in two.stdout


def _lead(stdout: str) -> str:
    """The lines a command prints before its first table (a table's top border), joined as one text."""
    lines = stdout.splitlines()
    first_table = next(i for i, line in enumerate(lines) if line.lstrip().startswith("┏"))
    return " ".join(" ".join(lines[: first_table - 1]).split())  # (the line before the border is its title)


def test_evaluate_first_lines_name_the_sources_of_rackcost_plans_decision(three_year_plan) -> None:
    """The first lines of ``rackcost evaluate`` on the three-year buying plan's scenario name the scenario and the
    decision ``rackcost plan`` prints: the sources the plan uses (owned racks, spot and the API), those it leaves
    unused (the reservation and on-demand) and the 3-year horizon, before any table."""
    from rackcost.reporting.decision import unused_sources

    path, plan, _ = three_year_plan
    unused = unused_sources(plan)
    used = [f.source.name for f in plan.sources if f.source.name not in unused]
    assert used == ["owned GB200 NVL72 racks", "spot GB200 NVL72", "DeepSeek API"], used
    assert unused == ["reserved GB200 NVL72 (3-year term)", "on-demand GB200 NVL72"], unused
    evaluated, planned = invoke("evaluate", str(path)), invoke("plan", str(path))
    assert_ok(evaluated)
    assert_ok(planned)
    for lead in (_lead(evaluated.stdout), _lead(planned.stdout)):
        assert lead.startswith(plan.scenario), lead
        assert "3-year horizon" in lead, lead
        uses, _, leaves = lead.partition(" leaving ")
        assert all(name in uses for name in used), lead
        assert all(name in leaves.partition(" unused")[0] for name in unused), lead
    said = _lead(planned.stdout).removeprefix(plan.scenario).split("Solver:")[0].strip()
    assert said in _lead(evaluated.stdout)


def test_evaluate_first_line_names_the_default_scenario_then_the_answer() -> None:
    """``rackcost evaluate`` of the default scenario opens with the scenario's name, then the answer in one sentence
    with the saving against the next cheapest (the cheapest's cost over the next's, minus one), before the routing
    note and the tables."""
    result = invoke("evaluate")
    assert_ok(result)
    lines = result.stdout.splitlines()
    scenario = rackcost.load_scenario(rackcost.bundled_scenario_path(DEFAULT_SCENARIO))
    assert lines[0] == scenario.name
    systems = sorted(
        rackcost.evaluate(scenario).records["systems"], key=lambda r: r["blended_usd_per_accepted_request"]
    )
    cheapest, second = systems[0], systems[1]
    saving = 1 - cheapest["blended_usd_per_accepted_request"] / second["blended_usd_per_accepted_request"]
    lead = _lead(result.stdout)
    answer = lead.removeprefix(scenario.name).partition("Routing")[0].strip()
    assert answer.startswith(f"Over the demand day, {cheapest['system']} is the cheapest per accepted request")
    assert f"{saving:.0%} less than {second['system']}" in answer, answer
    assert answer.count(". ") == 0 and answer.endswith("."), answer  # one sentence


def test_evaluate_ends_with_the_headline_ratio_said_once_where_it_is_the_same_at_every_point() -> None:
    """The claim-vs-decision sentence says a ratio that is the same at every demand point and blended (the default
    scenario's 1.78x) once, not once per point; ratios that differ are each said at their point."""
    from rackcost.evaluation.compare import headline_sentences

    def rows(*advantages: float) -> list[dict]:
        return [
            {"system": "A", "baseline": "B", "kind": "claim", "metric": "headline", "advantage_ratio": 1.67},
            *(
                {
                    "system": "A",
                    "baseline": "B",
                    "kind": "model",
                    "metric": f"cost per accepted request at {p}",
                    "advantage_ratio": a,
                }
                for p, a in zip(("quiet", "peak"), advantages[:2], strict=True)
            ),
            {"system": "A", "baseline": "B", "kind": "model", "metric": "blended", "advantage_ratio": advantages[2]},
        ]

    assert headline_sentences(rows(1.781, 1.779, 1.78)) == [
        "A vs B: 1.67x the headline tokens per kW at peak becomes 1.78x lower at every demand point and blended over "
        "the day, in cost per accepted request."
    ]
    assert headline_sentences(rows(1.5, 0.5, 1.78)) == [
        "A vs B: 1.67x the headline tokens per kW at peak becomes 1.50x lower at quiet, 2.00x higher at peak and 1.78x "
        "lower blended over the day, in cost per accepted request."
    ]
    said = invoke("evaluate")
    assert_ok(said)
    assert " ".join(said.stdout.split()).count("1.78x lower") == 1


@pytest.mark.parametrize(
    ("given", "meant"),
    [
        ("kimi-k2.5", ["kimi-k2.5-jalapeno-vs-gb300.yaml"]),  # the start of a bundled name
        ("kimi-k2.5-jalapeno-vs-gb30", ["kimi-k2.5-jalapeno-vs-gb300.yaml"]),  # a letter short
        ("deepseek-r1-own-vs-rent", ["deepseek-r1-own-vs-rent-vs-api.yaml"]),
        ("gpt-oss-120b-jalapeno-vs-gb200.yml", ["gpt-oss-120b-jalapeno-vs-gb200.yaml"]),  # .yml for .yaml
        ("deepseek-r1-b200", ["deepseek-r1-b200-aggregated-vs-disaggregated.yaml", "deepseek-r1-b200-measured-power"]),
    ],
)
def test_a_scenario_name_that_is_no_file_says_which_bundled_scenario_it_may_mean(given: str, meant: list[str]) -> None:
    """``rackcost evaluate kimi-k2.5`` said only "no such file": the name is no file and no bundled scenario, so it
    stays an error (no guessing which file was meant), one line, naming the bundled scenario(s) it most likely means
    (those whose name starts with it, else difflib's closest) and ``rackcost scenarios``, which lists them."""
    result = invoke("evaluate", given)
    assert_user_error(result, f"{given}: no such file; did you mean ", "rackcost scenarios")
    assert all(name in result.stderr for name in meant), result.stderr
    assert result.stderr.count("error:") == 1 and len(result.stderr.strip().splitlines()) == 1, result.stderr


def test_a_name_like_no_bundled_scenario_still_points_at_rackcost_scenarios() -> None:
    result = invoke("evaluate", "llama-4-on-tpu")
    assert_user_error(result, "llama-4-on-tpu: no such file", "rackcost scenarios")
    assert "did you mean" not in result.stderr


def test_evaluate_shows_kw_per_rack_beside_the_rack_limit_in_table_json_and_csv() -> None:
    """The rack in kW: mean and peak IT power per rack beside the rack power limit, per system, in every format;
    '-' for the limit of a rented system (the provider's racks) and for an API's figures."""
    path = str(rackcost.bundled_scenario_path("deepseek-r1-own-vs-rent-vs-api.yaml"))
    table = invoke("evaluate", path).stdout
    for header in ("mean IT power [kW per rack]", "peak IT power [kW per rack]", "rack power limit [kW per rack]"):
        assert header in table
    limits = " ".join(line for line in table.splitlines() if "rack power limit" in line)  # the table may be in parts
    assert limits.count(" 140 ") == 1 and limits.count(" - ") == 3  # owned: 140 kW; two rented and the API: none
    data = json.loads(invoke("evaluate", path, "--format", "json").stdout)["systems"]
    owned = next(r for r in data if r["payment"] == "own")
    assert (
        owned["rack_power_limit_kw"] == 140
        and 0 < owned["mean_it_power_kw_per_rack"] <= owned["peak_it_power_kw_per_rack"]
    )
    rows = list(csv.DictReader(io.StringIO(invoke("evaluate", path, "-f", "csv", "--table", "systems").stdout)))
    assert {"mean_it_power_kw_per_rack", "peak_it_power_kw_per_rack", "rack_power_limit_kw"} <= set(rows[0])
    api = next(r for r in rows if r["payment"] == "api")
    assert api["mean_it_power_kw_per_rack"] == api["rack_power_limit_kw"] == ""
