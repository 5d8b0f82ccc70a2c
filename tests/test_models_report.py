"""The decision report of several models on one fleet (``rackcost report`` of a models document, ``rackcost models
--report``, :func:`rackcost.models_report`, the dashboard's Several models page): its tables are the ones
``rackcost models`` prints, its answer adds up to the fleet's day, the rule and placement asked for reach it, the
appendix makes it again, and bad input writes nothing."""

from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

import rackcost
from rackcost import display
from rackcost.cli import app
from rackcost.errors import ScenarioError
from rackcost.reporting import models_section
from rackcost.reporting.models_report import MODELS_SECTIONS, models_answer
from rackcost.reporting.write import ReportPathError
from test_report import XHTML, parse, table, text_of

ROOT = Path(__file__).resolve().parents[1]
DOCUMENT = ROOT / "scenarios" / "models" / "deepseek-r1-and-gpt-oss-120b-on-gb200.yaml"
DATE = "2026-12-07"
runner = CliRunner()


def test_the_html_holds_the_sections_and_the_tables_rackcost_models_prints() -> None:
    html = rackcost.models_report(DOCUMENT, date=DATE)
    doc = parse(html)  # strict: an unclosed or stray tag fails
    assert [text_of(h) for h in doc.iter(f"{XHTML}h2")] == list(MODELS_SECTIONS.values())
    result = rackcost.evaluate_models(DOCUMENT)
    for table_id, expected in (
        ("models", models_section.model_table(models_section.model_rows(result))),
        ("models-fleets", models_section.fleet_table(models_section.fleet_rows(result))),
    ):
        keys, rows = table(doc, table_id)
        assert keys == [k for k, _ in expected.columns]
        assert rows == expected.rows
    assert "<script" not in html and "http://" not in html.replace("http://www.w3.org", "")


def test_the_answer_adds_the_fleets_day_and_names_each_models_cost() -> None:
    result = rackcost.evaluate_models(DOCUMENT)
    answer = models_answer(result)
    day = float(result.fleets["usd_per_day"].sum())
    # the models' attributed days add up to the fleet's (the closed form of the attribution), so the answer's day is
    # both; the figure is the one every face formats
    assert day == pytest.approx(float(result.models["usd_per_day"].sum()), rel=1e-12)
    assert f"costs {display.money(day)} a day" in answer
    for row in models_section.model_rows(result):
        assert f"{row['model']} {display.usd_per_1k_requests(row['blended_usd_per_accepted_request'])} per 1,000" in (
            answer
        )
    assert answer in rackcost.models_report(DOCUMENT, date=DATE).replace("&#x27;", "'")


def test_the_rule_and_placement_asked_for_reach_the_report_and_its_remake() -> None:
    by_usage = rackcost.models_report(DOCUMENT, rule="usage", placement="separate", date=DATE)
    usage = rackcost.evaluate_models(DOCUMENT, rule="usage", placement="separate")
    assert models_answer(usage) != models_answer(rackcost.evaluate_models(DOCUMENT))  # the split moves the answer
    keys, rows = table(parse(by_usage), "models")
    assert rows == models_section.model_table(models_section.model_rows(usage)).rows
    assert "separate racks, usage-based attribution" in by_usage
    assert "rackcost models models.yaml --rule usage --placement separate --report report.html" in by_usage
    assert "run: rackcost report models.yaml" in rackcost.models_report(DOCUMENT, date=DATE)


def test_the_appendix_saved_as_a_file_makes_the_same_report(tmp_path: Path) -> None:
    html = rackcost.models_report(DOCUMENT, date=DATE)
    appendix = next(s for s in parse(html).iter(f"{XHTML}section") if s.get("id") == "appendix")
    (code,) = list(appendix.iter(f"{XHTML}pre"))
    shown = "".join(code.itertext())
    assert shown.strip() == DOCUMENT.read_text(encoding="utf-8").strip()  # the document as given, comments and all
    saved = tmp_path / "models.yaml"
    saved.write_text(shown, encoding="utf-8")
    assert rackcost.models_report(saved, date=DATE) == html


def test_an_uploaded_text_is_read_as_the_file_is() -> None:
    text = DOCUMENT.read_text(encoding="utf-8")
    assert rackcost.models_report("mine.yaml", text=text, date=DATE) == rackcost.models_report(DOCUMENT, date=DATE)


@pytest.mark.parametrize("given", [str(DOCUMENT), DOCUMENT.stem])  # a file, or a bundled one by name
def test_rackcost_report_of_a_models_document_writes_its_report(tmp_path: Path, monkeypatch, given: str) -> None:
    monkeypatch.chdir(tmp_path)
    done = runner.invoke(app, ["report", given])
    assert done.exit_code == 0, done.output
    written = tmp_path / f"{DOCUMENT.stem}-report.html"
    assert done.stderr.strip() == f"wrote {written.name}"
    assert [text_of(h) for h in parse(written.read_text(encoding="utf-8")).iter(f"{XHTML}h2")] == list(
        MODELS_SECTIONS.values()
    )


def test_rackcost_models_writes_the_report_with_its_rule_as_markdown_without_a_charts_folder(tmp_path: Path) -> None:
    out = tmp_path / "m.md"
    done = runner.invoke(app, ["models", str(DOCUMENT), "--rule", "usage", "--report", str(out)])
    assert done.exit_code == 0, done.output
    text = out.read_text(encoding="utf-8")
    assert text.startswith("# DeepSeek R1 and GPT-OSS 120B on one GB200 NVL72 fleet")
    assert "usage-based attribution" in text
    assert "--rule usage --report m.md" in text
    assert not (tmp_path / "m_files").exists()  # no chart: no empty folder beside it
    again = runner.invoke(app, ["models", str(DOCUMENT), "--report", str(out)])
    assert again.exit_code == 1
    assert "exists; use --force to replace it" in again.stderr
    assert out.read_text(encoding="utf-8") == text


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["models", "{doc}", "--report", "{out}", "--simulate"], "--report writes the report alone: --simulate"),
        (["models", "{doc}", "--report", "{out}", "-f", "csv"], "--report writes the report alone: --format"),
        (["report", "{doc}", "-n", "100", "-o", "{out}"], "--samples: a models document's report has no Monte Carlo"),
        (["models", "{doc}", "--report", "{dir}/r.pdf"], "a report is written as .html"),
    ],
)
def test_what_the_models_report_cannot_take_is_refused_and_nothing_written(
    tmp_path: Path, args: list[str], message: str
) -> None:
    out = tmp_path / "r.html"
    filled = [a.format(doc=DOCUMENT, out=out, dir=tmp_path) for a in args]
    done = runner.invoke(app, filled)
    assert done.exit_code == 1
    assert message in done.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_bad_document_gives_its_problems_at_their_paths_and_writes_nothing(tmp_path: Path) -> None:
    data = yaml.safe_load(DOCUMENT.read_text(encoding="utf-8"))
    bad = copy.deepcopy(data)
    bad["workloads"][0]["slo"]["ttft_limit_ms"] = -5
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(bad, sort_keys=False), encoding="utf-8")
    done = runner.invoke(app, ["report", str(path), "-o", str(tmp_path / "r.html")])
    assert done.exit_code == 1
    assert f"{path}:" in done.stderr and "workloads[0].slo.ttft_limit_ms" in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.yaml"]
    with pytest.raises(ScenarioError):
        rackcost.models_report(path)


def test_the_librarys_arguments_are_checked() -> None:
    with pytest.raises(TypeError, match="rackcost.models_report"):
        rackcost.models_report(3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="format must be"):
        rackcost.models_report(DOCUMENT, format="pdf")
    with pytest.raises(ReportPathError, match="Markdown report needs an output path"):
        rackcost.models_report(DOCUMENT, format="markdown")
    with pytest.raises(ValueError, match="rule must be one of"):
        rackcost.models_report(DOCUMENT, rule="by_headcount")  # type: ignore[arg-type]


def test_hostile_names_are_shown_as_text_in_html_and_markdown(tmp_path: Path) -> None:
    data = yaml.safe_load(DOCUMENT.read_text(encoding="utf-8"))
    data["name"] = "<script>alert(1)</script> *bold*"
    data["workloads"][0]["name"] = "R1 <b>x</b> | `tick`"
    text = yaml.safe_dump(data, sort_keys=False)
    html = rackcost.models_report("hostile.yaml", text=text, date=DATE)
    assert "<script>" not in html and "<b>x</b>" not in html
    doc = parse(html)
    assert text_of(next(doc.iter(f"{XHTML}h1"))) == data["name"]
    _, rows = table(doc, "models")
    assert rows[0][0] == data["workloads"][0]["name"]
    markdown = rackcost.models_report("hostile.yaml", text=text, date=DATE, format="markdown", output=tmp_path / "m.md")
    header = next(line for line in markdown.splitlines() if line.startswith("| model |"))
    row = next(line for line in markdown.splitlines() if line.startswith("| R1"))
    # an escaped pipe does not split a cell: the row has as many cells as the header
    assert len(re.split(r"(?<!\\)\|", row)) == len(re.split(r"(?<!\\)\|", header))
