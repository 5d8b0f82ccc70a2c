"""Hostile sweep files (issue 19, round two): a sweep reads only files under its own folder, writes its table whole
or not at all, never hangs on a silent scheduler or a runaway regular expression, refuses work past its bounds
before it starts, and ends with a clear error (never a traceback) where its names collide."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from rackcost.analysis.sweep.run import resolve, run_sweep, sweep
from rackcost.cli import app
from rackcost.errors import ScenarioError
from rackcost.scenario.loading import load_scenario, scenario_to_data

DEFAULT = "deepseek-r1-jalapeno-vs-gb300"
GAUDI = "llama-3.3-70b-gaudi25-tp-precision"
SECRET = "SECRET-LINE-do-not-print"
ONE_AXIS = [{"axis": "facility.pue", "values": [1.1]}]

runner = CliRunner()


def write_sweep(folder: Path, data: dict, name: str = "s.yaml") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    return path


def problems_text(exc: pytest.ExceptionInfo[ScenarioError]) -> str:
    return "\n".join(str(p) for p in exc.value.problems)


# ---- 1. confinement: a sweep reads files under its own folder, or a bundled scenario by name ---------------------


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder of the sweep (tmp_path/sweeps) and, beside it, a secret file and a valid scenario."""
    (tmp_path / "secret.txt").write_text(f"{SECRET}\nsecond line\n", encoding="utf-8")
    data = scenario_to_data(load_scenario(GAUDI))
    (tmp_path / "scenario.yaml").write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    (tmp_path / "sweeps").mkdir()
    return tmp_path


@pytest.mark.parametrize("name", ["../secret.txt", "{root}/secret.txt", "/etc/passwd", "sub/../../secret.txt"])
def test_a_scenario_outside_the_sweeps_folder_is_refused_naming_the_file_and_the_option(outside, name):
    sweep_file = write_sweep(outside / "sweeps", {"name": "t", "scenario": name.format(root=outside), "axes": ONE_AXIS})
    with pytest.raises(ScenarioError) as info:
        resolve(sweep_file)
    text = problems_text(info)
    assert f"{sweep_file}: scenario:" in text and "outside the sweep's folder" in text
    assert "--allow-outside" in text and "allow_outside=True" in text
    assert SECRET not in text and "root:" not in text
    result = runner.invoke(app, ["sweep", str(sweep_file)])
    assert result.exit_code == 1, result.output
    assert "outside the sweep's folder" in result.output and SECRET not in result.output
    assert "Traceback" not in result.output


def test_a_symlink_out_of_the_sweeps_folder_is_refused(outside):
    (outside / "sweeps" / "link.yaml").symlink_to(outside / "secret.txt")
    sweep_file = write_sweep(outside / "sweeps", {"name": "t", "scenario": "link.yaml", "axes": ONE_AXIS})
    with pytest.raises(ScenarioError, match="outside the sweep's folder") as info:
        resolve(sweep_file)
    assert SECRET not in problems_text(info)


def test_an_import_outside_the_sweeps_folder_is_refused(outside):
    axes = [{"axis": "systems", "each": True, "import": "../secret.txt"}]
    sweep_file = write_sweep(outside / "sweeps", {"name": "t", "scenario": GAUDI, "axes": axes})
    with pytest.raises(ScenarioError) as info:
        resolve(sweep_file)
    text = problems_text(info)
    assert f"{sweep_file}: axes[0].import:" in text and "outside the sweep's folder" in text
    assert "--allow-outside" in text and SECRET not in text


def test_allow_outside_reads_a_file_beside_the_folder(outside):
    sweep_file = write_sweep(outside / "sweeps", {"name": "t", "scenario": "../scenario.yaml", "axes": ONE_AXIS})
    assert resolve(sweep_file, allow_outside=True).configurations == 1
    assert len(sweep(sweep_file, allow_outside=True)) == len(run_sweep(sweep_file, allow_outside=True).frame)
    result = runner.invoke(app, ["sweep", str(sweep_file), "--allow-outside"])
    assert result.exit_code == 0, result.output


def test_files_inside_the_folder_and_bundled_names_need_no_option(outside):
    (outside / "sweeps" / "sub").mkdir()
    (outside / "sweeps" / "sub" / "base.yaml").write_bytes((outside / "scenario.yaml").read_bytes())
    inside = write_sweep(outside / "sweeps", {"name": "t", "scenario": "sub/base.yaml", "axes": ONE_AXIS})
    assert resolve(inside).configurations == 1
    bundled = write_sweep(outside / "sweeps", {"name": "t", "scenario": GAUDI, "axes": ONE_AXIS}, "b.yaml")
    assert resolve(bundled).configurations == 1


def test_a_sweep_given_as_data_reads_only_under_the_current_folder(outside, monkeypatch):
    monkeypatch.chdir(outside / "sweeps")
    with pytest.raises(ScenarioError, match="outside the sweep's folder"):
        resolve({"name": "t", "scenario": str(outside / "secret.txt"), "axes": ONE_AXIS})
    assert resolve({"name": "t", "scenario": "../scenario.yaml", "axes": ONE_AXIS}, allow_outside=True)


# ---- the files a sweep's scenario imports (a demand profile's CSV) are confined as the scenario is ----------------

CSV_SECRET = "secret-token-abc123"
WEEK_CSV = "hour,arrival_rps\n" + "".join(f"{h},{1 + h % 24}\n" for h in range(168))


def profile_sweep(folder: Path, csv: str, scenario: str = "base.yaml") -> Path:
    """A sweep in ``folder`` whose scenario (``scenario``, under ``folder``) reads its demand from ``csv``."""
    data = scenario_to_data(load_scenario(GAUDI)) | {"demand": {"profile": {"csv": csv}}}
    (folder / scenario).parent.mkdir(parents=True, exist_ok=True)
    (folder / scenario).write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    return write_sweep(folder, {"name": "t", "scenario": scenario, "axes": ONE_AXIS})


@pytest.fixture
def profiles(tmp_path: Path) -> Path:
    """The sweep's folder (tmp_path/sweeps) and, beside it, a secret file and a valid profile CSV."""
    (tmp_path / "secret.csv").write_text(f"hour,arrival_rps\n0,{CSV_SECRET}\n", encoding="utf-8")
    (tmp_path / "week.csv").write_text(WEEK_CSV, encoding="utf-8")
    (tmp_path / "sweeps").mkdir()
    return tmp_path


@pytest.mark.parametrize(
    "csv", ["../secret.csv", "{root}/secret.csv", "../week.csv", "{root}/week.csv", "link.csv", "sub/../../week.csv"]
)
def test_a_profile_csv_outside_the_sweeps_folder_is_refused_unread(profiles, csv):
    """A scenario under the sweep's folder whose demand.profile.csv lies outside it (by .., an absolute path or a
    symlink) is refused before the file is read: the error names the YAML path and the option, never the content
    (issue 33, item 13: the secret file was read and quoted, and a valid CSV elsewhere ran the whole sweep)."""
    (profiles / "sweeps" / "link.csv").symlink_to(profiles / "secret.csv")
    sweep_file = profile_sweep(profiles / "sweeps", csv.format(root=profiles))
    with pytest.raises(ScenarioError) as info:
        resolve(sweep_file)
    text = problems_text(info)
    assert "demand.profile.csv" in text and "outside the sweep's folder" in text, text
    assert "--allow-outside" in text and CSV_SECRET not in text
    result = runner.invoke(app, ["sweep", str(sweep_file)])
    assert result.exit_code == 1 and "outside the sweep's folder" in result.output, result.output
    assert CSV_SECRET not in result.output and "Traceback" not in result.output


def test_with_allow_outside_a_bad_profile_csv_outside_is_read_but_never_quoted(profiles):
    sweep_file = profile_sweep(profiles / "sweeps", "../secret.csv")
    with pytest.raises(ScenarioError) as info:
        resolve(sweep_file, allow_outside=True)
    text = problems_text(info)
    assert "demand.profile.csv" in text and "line 2" in text and "got text, not a number" in text, text
    assert CSV_SECRET not in text
    assert resolve(profile_sweep(profiles / "sweeps", str(profiles / "week.csv")), allow_outside=True).configurations


def test_a_profile_csv_under_the_sweeps_folder_runs_and_is_an_input(profiles):
    (profiles / "sweeps" / "data").mkdir()
    (profiles / "sweeps" / "data" / "week.csv").write_text(WEEK_CSV, encoding="utf-8")
    sweep_file = profile_sweep(profiles / "sweeps", "../data/week.csv", scenario="sub/base.yaml")
    d = resolve(sweep_file)
    assert (profiles / "sweeps" / "data" / "week.csv").resolve() in d.inputs
    assert len(run_sweep(sweep_file).frame)
    out = profiles / "sweeps" / "data" / "week.csv"
    result = runner.invoke(app, ["sweep", str(sweep_file), "--output", str(out), "--force"])
    assert result.exit_code == 1 and "input" in result.output, result.output  # the table never replaces its CSV
    assert out.read_text(encoding="utf-8") == WEEK_CSV


@pytest.mark.parametrize("where", ["scenario", "import", "csv"])
def test_a_file_name_with_a_nul_character_is_one_error_at_its_path(profiles, where):
    """A NUL in a name raised ValueError from Path.resolve (a traceback from `rackcost sweep`), found by
    tests/fuzzing_sweeps_profiles.py."""
    folder = profiles / "sweeps"
    (folder / "week.csv").write_text(WEEK_CSV, encoding="utf-8")
    sweep_file = profile_sweep(folder, "a\x00b.csv" if where == "csv" else "week.csv")
    data = yaml.safe_load(sweep_file.read_text(encoding="utf-8"))
    if where == "scenario":
        data["scenario"] = "a\x00b.yaml"
    if where == "import":
        data["axes"].append({"axis": "systems", "each": True, "import": "a\x00b.yaml"})
    sweep_file = write_sweep(folder, data)
    with pytest.raises(ScenarioError) as info:
        resolve(sweep_file)
    path = {"scenario": "scenario", "import": "axes[1].import", "csv": "demand.profile.csv"}[where]
    text = problems_text(info)
    assert f"{path}:" in text and "\\x00" in text and "\x00" not in text, text
    result = runner.invoke(app, ["sweep", str(sweep_file)])
    assert result.exit_code == 1 and "Traceback" not in result.output, result.output


# ---- 2. the table is written whole or not at all; CSV a spreadsheet cannot execute; inputs never replaced --------


def test_ctrl_c_while_the_table_is_written_leaves_no_file_and_says_so(tmp_path, monkeypatch):
    import pandas as pd
    import pyarrow.parquet as pq

    def interrupted(self, path, *args, **kwargs):
        Path(path).write_bytes(b"PAR1 half a table")  # the write has begun when Ctrl-C comes
        raise KeyboardInterrupt

    def interrupted_piece(self, table, *args, **kwargs):  # Parquet is written piece by piece (a row group each)
        raise KeyboardInterrupt

    monkeypatch.setattr(pd.DataFrame, "to_parquet", interrupted)
    monkeypatch.setattr(pq.ParquetWriter, "write_table", interrupted_piece)  # the file begun: "PAR1" written
    monkeypatch.setattr(pd.DataFrame, "to_csv", interrupted)
    for name in ("t.parquet", "t.csv"):
        result = runner.invoke(app, ["sweep", "gaudi-tp-precision-x-demand", "-o", str(tmp_path / name)])
        assert result.exit_code == 130, result.output
        lines = [line for line in result.output.splitlines() if "interrupted" in line]
        assert len(lines) == 1 and "no table" in lines[0] and "written" in lines[0], result.output
        assert "Traceback" not in result.output and "Aborted" not in result.output
        assert sorted(p.name for p in tmp_path.iterdir()) == [], name  # no .partial left behind


def test_a_failed_write_leaves_the_old_table_as_it_was(tmp_path, monkeypatch):
    import pandas as pd

    out = tmp_path / "t.csv"
    out.write_text("old\n")

    def full_disk(self, path, *args, **kwargs):
        Path(path).write_bytes(b"half")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(pd.DataFrame, "to_csv", full_disk)
    result = runner.invoke(app, ["sweep", "gaudi-tp-precision-x-demand", "-o", str(out), "--force"])
    assert result.exit_code == 1 and "No space left on device" in result.output, result.output
    assert out.read_text() == "old\n" and sorted(p.name for p in tmp_path.iterdir()) == ["t.csv"]


def formula_sweep(folder: Path) -> Path:
    return write_sweep(
        folder,
        {
            "name": "t",
            "scenario": GAUDI,
            "axes": [
                {"axis": "=HYPERLINK(1)", "variants": [{"label": "=cmd|' /C calc'!A0"}, {"label": "@SUM(1+1)"}]},
                {"axis": "systems", "subsets": [["Gaudi 2.5 TP2 BF16"], ["Gaudi 2.5 TP2 BF16", "Gaudi 2.5 TP4 FP8"]]},
            ],
            "system_attributes": {"tp": "TP(\\d)"},
        },
    )


def test_the_csv_table_neutralises_every_text_cell_that_a_spreadsheet_would_run(tmp_path):
    import csv

    sweep_file = formula_sweep(tmp_path)
    out = tmp_path / "t.csv"
    result = runner.invoke(app, ["sweep", str(sweep_file), "-o", str(out)])
    assert result.exit_code == 0, result.output
    rows = list(csv.reader(out.read_text(encoding="utf-8").splitlines()))
    assert "'=HYPERLINK(1)" in rows[0]
    cells = [cell for row in rows for cell in row]
    assert "'=cmd|' /C calc'!A0" in cells and "'@SUM(1+1)" in cells
    for cell in cells:  # numbers may be negative; no text cell may start a formula
        try:
            float(cell)
        except ValueError:
            assert not cell.startswith(("=", "+", "-", "@", "\t", "\r")), cell
    parquet = tmp_path / "t.parquet"  # Parquet is typed data, not a spreadsheet: the labels stay as they are
    assert runner.invoke(app, ["sweep", str(sweep_file), "-o", str(parquet)]).exit_code == 0
    import pandas as pd

    assert set(pd.read_parquet(parquet)["=HYPERLINK(1)"].astype(str)) == {"=cmd|' /C calc'!A0", "@SUM(1+1)"}


def test_labels_that_collide_once_neutralised_are_still_written(tmp_path):
    sweep_file = write_sweep(
        tmp_path,
        {"name": "t", "scenario": GAUDI, "axes": [{"axis": "v", "variants": [{"label": "=a"}, {"label": "'=a"}]}]},
    )
    out = tmp_path / "t.csv"
    result = runner.invoke(app, ["sweep", str(sweep_file), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    assert out.read_text(encoding="utf-8").splitlines()[1].startswith("0,'=a,")


def test_the_output_is_never_the_sweep_file_or_its_base_scenario_even_with_force(tmp_path):
    data = scenario_to_data(load_scenario(GAUDI))
    (tmp_path / "base.csv").write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    sweep_file = write_sweep(tmp_path, {"name": "t", "scenario": "base.csv", "axes": ONE_AXIS}, "s.csv")
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    for target in (sweep_file, tmp_path / "base.csv"):
        result = runner.invoke(app, ["sweep", str(sweep_file), "-o", str(target), "--force"])
        assert result.exit_code == 1, result.output
        assert "is the input file" in result.output, result.output
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


# ---- 3. no hangs: a listener that is not a Dask scheduler, a runaway regular expression -------------------------


SILENT_LISTENER = """
import socket, sys, threading
kind = sys.argv[1]
server = socket.socket()
server.bind(("127.0.0.1", 0))
server.listen(16)
print(server.getsockname()[1], flush=True)
held = []
while True:
    conn, _ = server.accept()
    held.append(conn)  # accepted, and never a byte sent back
    if kind == "http":  # python -m http.server's answer to what is not HTTP: one line, then the connection closes
        conn.recv(4096)
        conn.sendall(b"HTTP/1.0 400 Bad request\\r\\n\\r\\n")
        conn.close()
"""


@pytest.mark.parametrize("kind", ["silent", "http"])
def test_a_listener_that_is_not_a_dask_scheduler_is_an_error_after_the_connect_timeout(tmp_path, kind):
    import subprocess
    import sys

    listener = subprocess.Popen(
        [sys.executable, "-c", SILENT_LISTENER, kind], stdout=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        port = int(listener.stdout.readline())
        rackcost_cli = Path(sys.executable).with_name("rackcost")
        done = subprocess.run(
            [str(rackcost_cli), "sweep", "gaudi-tp-precision-x-demand", "--scheduler", f"tcp://127.0.0.1:{port}"],
            capture_output=True,
            text=True,
            timeout=120,  # a hang guard only (it waited over 400 s)
        )
    finally:
        listener.kill()
        listener.wait()
        listener.stdout.close()
    assert done.returncode == 1, done.stdout + done.stderr
    assert "did not answer within 5 s" in done.stderr, done.stderr
    assert "Traceback" not in done.stdout + done.stderr


def test_a_regular_expression_that_does_not_compile_names_the_file_path_and_line(tmp_path):
    sweep_file = write_sweep(
        tmp_path, {"name": "t", "scenario": GAUDI, "axes": ONE_AXIS, "system_attributes": {"tp": "TP(\\d"}}
    )
    result = runner.invoke(app, ["sweep", str(sweep_file)])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert f"{sweep_file}:" in result.output and "system_attributes.tp: not a regular expression" in result.output


def test_a_runaway_regular_expression_is_stopped_and_named_before_the_run(tmp_path):
    # (\w|\w)*$ backtracks 2^n ways on a name of n word characters that does not end where $ wants: ~30 characters
    # took minutes, and the attributes were read only once the whole sweep had run
    data = scenario_to_data(load_scenario(GAUDI))
    long_name = "x" * 40 + "!"
    data["systems"][-1]["name"] = long_name  # not the baseline
    (tmp_path / "base.yaml").write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    spec = {"name": "t", "scenario": "base.yaml", "axes": ONE_AXIS, "system_attributes": {"slow": "^(\\w|\\w)*$"}}
    sweep_file = write_sweep(tmp_path, spec)
    with pytest.raises(ScenarioError) as info:
        resolve(sweep_file)
    text = problems_text(info)
    assert f"{sweep_file}: system_attributes.slow:" in text and "'^(\\\\w|\\\\w)*$'" in text
    assert long_name in text and "took more than" in text
    result = runner.invoke(app, ["sweep", str(sweep_file)])
    assert result.exit_code == 1 and "took more than" in result.output and "Traceback" not in result.output


# ---- 4. work past its bounds: refused before the run, not after it ----------------------------------------------


def test_a_typo_in_the_summarys_demand_point_is_refused_before_the_run(tmp_path):
    spec = {"name": "t", "scenario": DEFAULT, "axes": ONE_AXIS, "summary": {"demand_point": "peek"}}
    sweep_file = write_sweep(tmp_path, spec)
    with pytest.raises(ScenarioError) as info:
        resolve(sweep_file)
    text = problems_text(info)
    assert f"{sweep_file}: summary.demand_point: no demand point named 'peek'" in text
    assert "'peak'" in text and "'blended'" in text
    result = runner.invoke(app, ["sweep", str(sweep_file), "-o", str(tmp_path / "t.csv")])
    assert result.exit_code == 1 and "Traceback" not in result.output, result.output
    assert "evaluated in" not in result.output  # nothing ran


def test_the_table_is_written_before_the_summary_is_printed(tmp_path, monkeypatch):
    from rackcost.cli import sweep as sweep_cli

    def broken(result):
        raise KeyboardInterrupt

    monkeypatch.setattr(sweep_cli, "_print_summary", broken)
    out = tmp_path / "t.parquet"
    result = runner.invoke(app, ["sweep", "gaudi-tp-precision-x-demand", "-o", str(out)])
    assert result.exit_code == 130 and out.exists(), result.output
    assert f"interrupted: the table is written ({out})" in result.output


@pytest.fixture
def no_run(monkeypatch):
    """The sweep's planning replaced by a marker: a test of the bounds never runs (nor exhausts memory)."""
    from rackcost.analysis.sweep import bounds, run

    class Ran(Exception):
        pass

    def planned(*args, **kwargs):
        raise Ran("the sweep ran")

    monkeypatch.setattr(run, "plan_chunks", planned)
    monkeypatch.setattr(bounds, "physical_memory_bytes", lambda: 10**12)  # a large machine
    return Ran


def price_axis(steps: int) -> list[dict]:
    return [{"axis": "facility.electricity_usd_per_kwh", "range": {"from": 0.05, "to": 0.2, "steps": steps}}]


def test_a_ten_million_step_price_axis_needs_confirmation_by_its_rows_and_memory(no_run):
    from rackcost.analysis.sweep.run import SweepError

    spec = {"name": "t", "scenario": DEFAULT, "axes": price_axis(10**7)}  # 6 x 10^7 rows, under 10^8 configurations
    with pytest.raises(SweepError) as info:
        run_sweep(spec)
    message = str(info.value)
    assert "60,000,000 rows" in message and "--yes" in message and "confirm=True" in message
    assert "estimated peak memory" in message and " GB" in message
    assert "3 x rows x" in message  # how it is estimated
    with pytest.raises(no_run):  # confirmed, on a machine large enough: it runs
        run_sweep(spec, confirm=True)


def test_ten_thousand_demand_scales_need_confirmation_by_their_groups(no_run):
    from rackcost.analysis.sweep.run import SweepError

    axes = [{"axis": "demand.scale", "range": {"from": 0.5, "to": 2, "steps": 20_000}}]
    with pytest.raises(SweepError, match="20,000 groups") as info:
        run_sweep({"name": "t", "scenario": DEFAULT, "axes": axes})
    assert "--yes" in str(info.value)


def test_many_draws_need_confirmation_by_their_evaluations(no_run):
    from rackcost.analysis.sweep.run import SweepError

    spec = {"name": "t", "scenario": DEFAULT, "samples": 100_000, "axes": price_axis(2000)}
    with pytest.raises(SweepError, match="1,200,000,000 evaluations"):
        run_sweep(spec)


def test_a_sweep_over_the_machines_memory_is_refused_even_when_confirmed(no_run, monkeypatch):
    from rackcost.analysis.sweep import bounds, run

    monkeypatch.setattr(bounds, "physical_memory_bytes", lambda: 2 * 10**9)
    spec = {"name": "t", "scenario": DEFAULT, "axes": price_axis(10**7)}
    with pytest.raises(run.SweepError) as info:
        run_sweep(spec, confirm=True)
    message = str(info.value)
    assert "more than this machine's 2.0 GB of memory" in message and "even with --yes" in message


def test_the_command_refuses_a_sweep_over_the_machines_memory(tmp_path, no_run, monkeypatch):
    from rackcost.analysis.sweep import bounds

    monkeypatch.setattr(bounds, "physical_memory_bytes", lambda: 2 * 10**9)
    sweep_file = write_sweep(tmp_path, {"name": "t", "scenario": DEFAULT, "axes": price_axis(10**7)})
    result = runner.invoke(app, ["sweep", str(sweep_file), "--yes"])
    assert result.exit_code == 1 and "more than this machine's" in result.output, result.output
    assert "Traceback" not in result.output


def test_workers_are_capped_at_twice_the_cpus(no_run, monkeypatch):
    import os

    import distributed

    from rackcost.analysis.sweep.run import SweepError

    def never(*args, **kwargs):
        raise AssertionError("a cluster was started")

    monkeypatch.setattr(distributed, "LocalCluster", never)
    cpus = len(os.sched_getaffinity(0))
    spec = {"name": "t", "scenario": GAUDI, "axes": ONE_AXIS}
    with pytest.raises(SweepError, match=f"at most {2 * cpus}"):
        run_sweep(spec, workers=2 * cpus + 1)
    result = runner.invoke(app, ["sweep", "gaudi-tp-precision-x-demand", "--workers", "100000"])
    assert result.exit_code == 1 and f"at most {2 * cpus}" in result.output, result.output
    assert "Traceback" not in result.output


# ---- names that collide: an axis named as a column, a variant that renames a system -----------------------------


def two_variants(name: str) -> list[dict]:
    variants = [{"label": "low", "set": {"facility.pue": 1.2}}, {"label": "high", "set": {"facility.pue": 1.3}}]
    return [{"axis": name, "variants": variants}]


@pytest.mark.parametrize(
    "name",
    ["usd_per_accepted_request", "tpot_ms", "interactivity_tokens_per_s", "racks", "usd_per_accepted_request_p5"],
)
def test_an_axis_named_as_a_table_column_is_one_problem_naming_the_file_and_path(tmp_path, name):
    # before: ValueError (codes need to be array-like integers; 'tpot_ms' is not in list; cannot insert ...)
    sweep_file = write_sweep(tmp_path, {"name": "t", "scenario": GAUDI, "axes": [*ONE_AXIS, *two_variants(name)]})
    with pytest.raises(ScenarioError) as info:
        sweep(sweep_file)
    assert problems_text(info) == (
        f"{sweep_file}: axes[1].axis: {name!r} is a column of every sweep table already; give it another name"
    )
    result = runner.invoke(app, ["sweep", str(sweep_file)])
    assert result.exit_code == 1 and "axes[1].axis" in result.output, result.output
    assert "Traceback" not in result.output


def test_a_system_attribute_named_as_a_table_column_is_refused():
    spec = {"name": "t", "scenario": GAUDI, "axes": ONE_AXIS, "system_attributes": {"tpot_ms": "TP(\\d+)"}}
    with pytest.raises(ScenarioError, match=r"system_attributes\.tpot_ms: 'tpot_ms' is a column"):
        sweep(spec)


@pytest.mark.parametrize("name", ["point", "api"])
def test_an_axis_named_as_a_chunks_internal_key_is_its_own_column(name):
    # before: the axis's codes and the chunk's demand-point codes (or API flags) shared one key
    frame = sweep({"name": "t", "scenario": DEFAULT, "axes": two_variants(name)})
    assert list(frame[name].cat.categories) == ["low", "high"]
    assert (frame.groupby(name, observed=True).size() == 6).all()  # 2 systems x 3 demand points each
    assert list(frame["demand_point"].cat.categories) == [p.name for p in load_scenario(DEFAULT).demand]


@pytest.mark.parametrize(
    ("scenario", "edits"),
    [
        (DEFAULT, {"systems[0].name": "renamed"}),
        (GAUDI, {"systems[0].name": "renamed", "baseline_system": "renamed"}),
    ],
)
def test_a_variant_that_renames_a_system_is_one_problem_naming_the_file_and_path(tmp_path, scenario, edits):
    # before: KeyError 'renamed' inside the Dask task
    axes = [{"axis": "v", "variants": [{"label": "plain", "set": {"facility.pue": 1.2}}, {"label": "x", "set": edits}]}]
    sweep_file = write_sweep(tmp_path, {"name": "t", "scenario": scenario, "axes": axes})
    with pytest.raises(ScenarioError) as info:
        sweep(sweep_file)
    text = problems_text(info)
    assert text.startswith(f"{sweep_file}: axes[0].variants[1].set: variant 'x' changes the systems' names")
    assert "adds ['renamed']" in text
    result = runner.invoke(app, ["sweep", str(sweep_file)])
    assert result.exit_code == 1 and "changes the systems' names" in result.output, result.output
    assert "Traceback" not in result.output


# ---- a sweep in which nothing can be evaluated ------------------------------------------------------------------


def slo_axis(*limits_ms: float) -> list[dict]:
    variants = [{"label": f"ttft {limit:g} ms", "set": {"slo.ttft_limit_ms": limit}} for limit in limits_ms]
    return [{"axis": "slo", "variants": variants}]


def test_a_sweep_in_which_nothing_can_be_evaluated_exits_1_and_writes_nothing(tmp_path):
    # before: "no configuration could be evaluated", exit 0, and a CSV of a header and no rows
    sweep_file = write_sweep(tmp_path, {"name": "t", "scenario": DEFAULT, "axes": slo_axis(1)})
    from rackcost.analysis.sweep.run import SweepError

    with pytest.raises(SweepError) as info:
        run_sweep(sweep_file)
    message = str(info.value)
    assert message.startswith(f"{sweep_file}: no configuration can be evaluated: every system is left out")
    assert "GB300 NVL72 in 1 configuration(s): no operating point" in message and "Jalapeño in 1" in message
    out = tmp_path / "t.csv"
    result = runner.invoke(app, ["sweep", str(sweep_file), "-o", str(out)])
    assert result.exit_code == 1 and "no configuration can be evaluated" in result.output, result.output
    assert not out.exists() and "Traceback" not in result.output


def test_a_sweep_in_which_some_configurations_can_be_evaluated_runs(tmp_path):
    sweep_file = write_sweep(tmp_path, {"name": "t", "scenario": DEFAULT, "axes": slo_axis(1, 5000)})
    result = run_sweep(sweep_file)
    assert set(result.frame["slo"]) == {"ttft 5000 ms"} and len(result.frame) == 6
    assert {s["system"] for s in result.skipped} == {"GB300 NVL72", "Jalapeño"}
    assert runner.invoke(app, ["sweep", str(sweep_file)]).exit_code == 0


# ---- a file that is not a sweep: one line, none of its content ---------------------------------------------------

PASSWORD_FILE = f"root:x:0:0:root:/root:/bin/bash\n{SECRET}:x:1000:1000::/home/s:/bin/sh\n"
UNRELATED_KEYS = f"api_key: {SECRET}\npassword: hunter2-{SECRET}\nhost_{SECRET}: db.internal\n"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (PASSWORD_FILE, "expected a mapping (name, scenario, axes), got str"),
        (UNRELATED_KEYS, "not a rackcost sweep: it has neither a scenario: nor an axes: key"),
        (f"- {SECRET}\n- two\n", "expected a mapping (name, scenario, axes), got list"),
        (f"name: x\n{SECRET}: 1\n", "not a rackcost sweep"),
    ],
    ids=["password-file", "unrelated-keys", "list", "a-name-only"],
)
def test_a_file_that_is_not_a_sweep_is_one_line_without_its_content(tmp_path, text, expected):
    # before: unrelated keys were each an 'unknown key' line naming the key (and a scenario's allowed keys)
    path = tmp_path / "not-a-sweep.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ScenarioError) as info:
        resolve(path)
    assert len(info.value.problems) == 1 and expected in problems_text(info)
    message = info.value.problems[0].message  # the file's path (under /tmp/pytest-of-root) apart
    for secret in (SECRET, "hunter2", "api_key", "root", "db.internal"):
        assert secret not in message
    result = runner.invoke(app, ["sweep", str(path)])
    assert result.exit_code == 1 and result.output.count("error:") == 1, result.output
    assert SECRET not in result.output and "hunter2" not in result.output and "Traceback" not in result.output


def test_a_sweep_with_an_unknown_key_lists_a_sweeps_keys_not_a_scenarios(tmp_path):
    sweep_file = write_sweep(tmp_path, {"name": "t", "scenario": GAUDI, "axes": ONE_AXIS, "colour": 3})
    with pytest.raises(ScenarioError) as info:
        resolve(sweep_file)
    text = problems_text(info)
    assert "colour: unknown key (allowed here: name, description, scenario, axes, mode, samples" in text
    assert "workload" not in text
    # a key close to a sweep's key is one problem naming that key (difflib's closest), not a scenario's
    sweep_file = write_sweep(tmp_path, {"name": "t", "scenario": GAUDI, "axes": ONE_AXIS, "samplez": 3})
    with pytest.raises(ScenarioError) as info:
        resolve(sweep_file)
    assert [p.message for p in info.value.problems] == ["unknown key; did you mean `samples`?"]


# ---- the library's edge: arguments of the wrong type are named with what was expected ----------------------------

WRONG_TYPES = {
    "a number for the spec": ({"spec": 3}, "spec must be a sweep file's path, a bundled sweep's name, its data"),
    "a list for the spec": ({"spec": [ONE_AXIS]}, "spec must be a sweep file's path"),
    "text workers": ({"workers": "2"}, "workers must be a whole number of worker processes, or None, got str '2'"),
    "a float chunk size": ({"chunk_configs": 2.5}, "chunk_configs must be a whole number of configurations"),
    "no scheduler": ({"scheduler": None}, "scheduler must be threads, processes or synchronous, got NoneType"),
    "a numeric address": ({"address": 8786}, "address must be a scheduler's address (tcp://host:8786) or None"),
    "text confirm": ({"confirm": "yes"}, "confirm must be True or False, got str 'yes'"),
    "a number for allow_outside": ({"allow_outside": 1}, "allow_outside must be True or False, got int 1"),
}


@pytest.mark.parametrize("arguments", WRONG_TYPES.values(), ids=WRONG_TYPES.keys())
@pytest.mark.parametrize("function", ["rackcost.sweep", "rackcost.analysis.sweep.run.run_sweep"])
def test_a_wrong_type_is_a_type_error_saying_what_was_expected(function, arguments):
    # before: deep inside (expected str, bytes or os.PathLike object; '<' not supported between 'str' and 'int')
    import rackcost

    call = rackcost.sweep if function == "rackcost.sweep" else run_sweep
    given, expected = arguments
    kwargs = {"spec": "gaudi-tp-precision-x-demand", **given}
    spec = kwargs.pop("spec")
    with pytest.raises(TypeError) as info:
        call(spec, **kwargs)
    assert str(info.value).startswith(f"{function}: ") and expected in str(info.value)


def test_run_sweep_checks_its_callbacks():
    with pytest.raises(TypeError, match=r"run_sweep: progress must be a function of the configurations done"):
        run_sweep("gaudi-tp-precision-x-demand", progress=3)
    with pytest.raises(TypeError, match=r"run_sweep: evaluate must be a function of a Chunk, or None, got str"):
        run_sweep("gaudi-tp-precision-x-demand", evaluate="fast")
