"""``rackcost mix``: the table, JSON and CSV faces of rackcost.hardware_mix, --output, and a bad scenario's one line
per problem."""

from __future__ import annotations

import copy
import csv
import io
import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

import rackcost
from rackcost.cli import app
from test_hardware_mix import API, _with_classes
from two_systems import BASE

runner = CliRunner()


@pytest.fixture
def mixed(tmp_path: Path) -> Path:
    """B and a per-token API over two classes: the API takes the prompt-heavy class (test_hardware_mix)."""
    data = _with_classes(copy.deepcopy(BASE))
    data["systems"] = [data["systems"][1], API]
    path = tmp_path / "mixed.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def test_every_face_says_the_libraries_answer(mixed: Path, tmp_path: Path) -> None:
    found = rackcost.hardware_mix(rackcost.load_scenario(mixed))
    table = runner.invoke(app, ["mix", str(mixed)])
    assert table.exit_code == 0, table.output
    assert "the cheapest mix of hardware" in table.output and "Each system alone" in table.output
    assert "Each class on each system alone" in table.output
    assert "the mix saves" in table.output and "Traceback" not in table.output
    js = runner.invoke(app, ["mix", str(mixed), "-f", "json"])
    assert js.exit_code == 0, js.output
    data = json.loads(js.output)
    assert data["assignment"] == {"prompt-heavy": {"API": 1.0}, "answer-heavy": {"B": 1.0}} == found.assignment
    assert data["usd_per_accepted_request"] == found.usd_per_accepted_request
    out = tmp_path / "mix.csv"
    written = runner.invoke(app, ["mix", str(mixed), "-f", "csv", "-o", str(out)])
    assert written.exit_code == 0, written.output
    rows = list(csv.DictReader(io.StringIO(out.read_text(encoding="utf-8"))))
    assert [(r["role"], r["system"]) for r in rows] == [
        ("mix", "B"),
        ("mix", "API"),
        ("total", "B + API"),
        ("alone", "B"),
        ("alone", "API"),
    ]
    assert float(rows[2]["usd_per_day"]) == pytest.approx(found.usd_per_day, rel=1e-12)
    again = runner.invoke(app, ["mix", str(mixed), "-f", "csv", "-o", str(out)])
    assert again.exit_code == 1 and "--force" in again.output  # an existing output is replaced only with --force


def test_a_fleet_given_by_count_is_one_error_line_and_exit_1(tmp_path: Path) -> None:
    data = copy.deepcopy(BASE)
    data["fleet"]["replicas"] = 4
    path = tmp_path / "fixed.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    out = runner.invoke(app, ["mix", str(path)])
    assert out.exit_code == 1
    [line] = out.output.strip().splitlines()
    assert line.startswith(f"error: {path}") and "fleet.replicas" in line and "Traceback" not in out.output


def test_slices_reach_the_library_and_a_bad_count_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "one.yaml"
    path.write_text(yaml.safe_dump(copy.deepcopy(BASE)), encoding="utf-8")
    js = runner.invoke(app, ["mix", str(path), "--slices", "2", "-f", "json"])
    assert js.exit_code == 0, js.output
    data = json.loads(js.output)
    found = rackcost.hardware_mix(rackcost.load_scenario(path), slices=2)
    assert data["slices"] == 2 and data["evaluations"] == found.evaluations == 4
    assert data["usd_per_accepted_request"] == found.usd_per_accepted_request
    bad = runner.invoke(app, ["mix", str(path), "--slices", "0"])
    assert bad.exit_code == 2 and "Traceback" not in bad.output


def test_the_tables_say_the_mixs_numbers(mixed: Path) -> None:
    """rackcost.reporting.mix_section, which the CLI's CSV and sentence and the dashboard's page read: the total row
    is the mix's, each saving is 1 - the mix's cost / the system's alone, each class cell is that class's fleet."""
    from rackcost import display
    from rackcost.reporting import mix_section

    found = rackcost.hardware_mix(rackcost.load_scenario(mixed))
    fleets = mix_section.fleet_table(found)
    assert [r[0] for r in fleets.rows] == ["B", "API", "the mix"]
    assert fleets.rows[-1][-1] == display.usd_per_1k_requests(found.usd_per_accepted_request)
    assert fleets.rows[-1][4] == display.money(sum(f.usd_per_day for f in found.fleets))
    alone = mix_section.alone_table(found)
    for row, a in zip(alone.rows, found.alone, strict=True):
        assert a.usd_per_accepted_request is not None
        assert row[4] == display.pct(1.0 - found.usd_per_accepted_request / a.usd_per_accepted_request)
    per_class = mix_section.class_table(found)
    assert per_class is not None and [r[0] for r in per_class.rows] == ["prompt-heavy", "answer-heavy"]
    cost = {(c.request_class, c.system): c.usd_per_accepted_request for c in found.class_costs}
    assert per_class.rows[0][2] == display.usd_per_1k_requests(cost[("prompt-heavy", "API")])
    assert found.best_single is not None and found.best_single in mix_section.mix_sentence(found)


def test_the_report_has_the_mix_of_a_scenario_with_classes_on_two_systems(mixed: Path, monkeypatch) -> None:
    """The report's Hardware mix section: the mix's sentence and its tables, the library's; none for a fleet given by
    count; a search too large for a report says which command finds it."""
    from rackcost.reporting import mix_section
    from rackcost.reporting.blocks import Paragraph, Table
    from rackcost.reporting.content import build_report

    scenario = rackcost.load_scenario(mixed)
    found = rackcost.hardware_mix(scenario)
    (mix,) = [s for s in build_report(scenario, date="2026-12-07").sections if s.id == "mix"]
    assert mix.blocks[0] == Paragraph(mix_section.mix_sentence(found), strong=True)
    tables = [b for b in mix.blocks if isinstance(b, Table)]
    expected = [mix_section.fleet_table(found), mix_section.alone_table(found), mix_section.class_table(found)]
    assert tables == expected
    data = yaml.safe_load(mixed.read_text(encoding="utf-8"))
    data["fleet"]["replicas"] = 4
    assert mix_section.mix_report_section(rackcost.scenario_from_dict(data)) is None
    monkeypatch.setattr(mix_section, "REPORT_MOST_EVALUATIONS", 5)  # 2 systems x 3 subsets of 2 classes = 6
    large = mix_section.mix_report_section(scenario)
    assert large is not None
    (said,) = large.blocks
    assert isinstance(said, Paragraph) and "6 evaluations" in said.text and "rackcost mix finds it" in said.text
