"""ServeGen's client windows read, summed and made a profile (``rackcost.analysis.servegen_windows``,
``rackcost profile servegen``).

Source of the format: Alibaba ServeGen (Xiang et al., "ServeGen: workload characterization of large language model
serving in production", 2025; Apache-2.0), ``data/language/*/chunk-*-trace.csv``: per client, one row per window
(start [s], rate [requests/s], CV of the gaps, fitted distribution and its two parameters; no header). The fixtures in
tests/data/servegen are two such clients of twelve 10-minute windows, written for these tests.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
import yaml
from typer.testing import CliRunner

import rackcost
from rackcost.analysis.servegen_windows import (
    ServeGenError,
    client_files,
    profile_of_windows,
    read_servegen_windows,
)
from rackcost.cli import app
from reference import DATA

FIXTURES = DATA / "servegen"
runner = CliRunner()


def rates_of(path: Path) -> np.ndarray:
    return np.asarray([float(line.split(",")[1]) for line in path.read_text().splitlines()])


def test_the_fleet_is_the_sum_of_its_clients_per_window() -> None:
    windows = read_servegen_windows(FIXTURES)
    files = client_files(FIXTURES)
    assert [p.name for p in files] == ["chunk-0-trace.csv", "chunk-1-trace.csv"]
    np.testing.assert_array_equal(windows.arrival_rps, rates_of(files[0]) + rates_of(files[1]))
    np.testing.assert_array_equal(windows.window_start_s, np.arange(12) * 600.0)
    assert (windows.window_s, windows.clients) == (600.0, 2)
    assert "ServeGen" in windows.source and "Apache-2.0" in windows.source
    listed = read_servegen_windows([str(p) for p in files])
    np.testing.assert_array_equal(listed.arrival_rps, windows.arrival_rps)


def week_of_clients(folder: Path, weeks: int = 1, clients: int = 2) -> Path:
    """Clients of ``weeks`` weeks of 10-minute windows whose rate is the window's index plus 1 (client 0) and 1."""
    folder.mkdir(exist_ok=True)
    n = weeks * 168 * 6
    for c in range(clients):
        rows = [f"{i * 600},{(i + 1.0) if c == 0 else 1.0},1.0,Gamma,1.0,1.0" for i in range(n)]
        (folder / f"chunk-{c}-trace.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    return folder


def test_an_hour_is_the_mean_of_its_windows_and_keeps_them(tmp_path: Path) -> None:
    profile = profile_of_windows(read_servegen_windows(week_of_clients(tmp_path / "w", weeks=2)))
    assert profile.hourly_arrival_rps.size == 336 and profile.window_rps.shape == (336, 6)
    # hour h holds windows 6h .. 6h + 5: rates 6h + 2 .. 6h + 7 (client 0's i + 1 and client 1's 1), mean 6h + 4.5
    np.testing.assert_array_equal(profile.hourly_arrival_rps, 6 * np.arange(336) + 4.5)
    np.testing.assert_array_equal(profile.window_rps[10], 60 + np.arange(2, 8))
    scaled = profile_of_windows(read_servegen_windows(tmp_path / "w"), peak_rps=240.0)
    assert float(scaled.hourly_arrival_rps.max()) == pytest.approx(240.0, rel=1e-14)
    np.testing.assert_allclose(scaled.window_rps / profile.window_rps, 240.0 / profile.hourly_arrival_rps.max())
    assert "scaled by" in scaled.source


def test_the_profile_loads_as_a_scenario_demand(tmp_path: Path) -> None:
    profile = profile_of_windows(read_servegen_windows(week_of_clients(tmp_path / "w")), peak_rps=20.0)
    data = yaml.safe_load((DATA / "two_systems.yaml").read_text(encoding="utf-8"))
    data["demand"] = yaml.safe_load(yaml.safe_dump({"demand": profile.demand()}))["demand"]
    scenario = rackcost.scenario_from_dict(data)
    assert scenario.demand[-1].arrival_rps == pytest.approx(20.0)
    assert scenario.demand[-1].sub_hour is not None
    assert rackcost.evaluate(scenario).records["points"]


def write(folder: Path, name: str, text: str | bytes) -> Path:
    folder.mkdir(exist_ok=True)
    path = folder / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    return path


GOOD = "0,1.0,1.0,Gamma,1,1\n600,2.0,1.0,Gamma,1,1\n1200,0,0,,0,0\n"


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("0,1.0,1.0,Gamma,1,1\n600,2.0,1.0,Gamma,1\n", ("row 2", "5 columns", "6")),
        ("0,1.0,1.0,Gamma,1,1\n600,fast,1.0,Gamma,1,1\n", ("row 2", "arrival rate", "text, not a number")),
        ("0,1.0,1.0,Gamma,1,1\n600,-2,1.0,Gamma,1,1\n", ("row 2", "arrival rate", "negative")),
        (
            "0,1.0,1.0,Gamma,1,1\n600,nan,1.0,Gamma,1,1\n",
            (
                "row 2",
                "arrival rate",
            ),
        ),
        (
            "0,1.0,1.0,Gamma,1,1\n600,inf,1.0,Gamma,1,1\n",
            (
                "row 2",
                "arrival rate",
            ),
        ),
        ("0,1.0,1.0,Gamma,1,1\n600,1e9,1.0,Gamma,1,1\n", ("row 2", "above 1e+07")),
        ("0,1.0,-1,Gamma,1,1\n600,1,1.0,Gamma,1,1\n", ("row 1", "CV")),
        ("0,1.0,1.0,Gamma,1,1\n600,1,1.0,Gamma,1,1\n1300,1,1,Gamma,1,1\n", ("row 3", "not 600 s after", "gaps")),
        ("600,1.0,1.0,Gamma,1,1\n0,1,1.0,Gamma,1,1\n", ("row 2", "does not advance")),
        ("0,1.0,1.0,Gamma,1,1\n", ("1 window(s)", "at least 2")),
        ("", ("0 window(s)",)),
        (b"\xff\xfe0,1\n", ("not a UTF-8 text file",)),
        ('0,1,1,"Gamma,1,1\n', ("row 1", "4 columns")),
    ],
)
def test_a_bad_client_file_is_refused_naming_the_file_and_row(tmp_path: Path, text: str, words: tuple[str, ...]):
    path = write(tmp_path / "sg", "chunk-0-trace.csv", text)
    with pytest.raises(ServeGenError) as info:
        read_servegen_windows(tmp_path / "sg")
    message = str(info.value)
    assert message.startswith(str(path)) and "\n" not in message
    for word in words:
        assert word in message, message


def test_clients_of_other_windows_are_refused_naming_both(tmp_path: Path) -> None:
    write(tmp_path / "a", "chunk-0-trace.csv", GOOD)
    other = write(tmp_path / "a", "chunk-1-trace.csv", GOOD.replace("1200,", "1800,"))
    with pytest.raises(ServeGenError, match=r"chunk-1-trace.csv: row 3: .* row 3 of .*chunk-0-trace.csv"):
        read_servegen_windows(tmp_path / "a")
    other.write_text(GOOD + "1800,1,1,Gamma,1,1\n")
    with pytest.raises(ServeGenError, match="4 windows where .* has 3"):
        read_servegen_windows(tmp_path / "a")


def test_folders_and_sizes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(ServeGenError, match="no ServeGen client files"):
        read_servegen_windows(tmp_path / "empty")
    with pytest.raises(ServeGenError, match="no such file"):
        read_servegen_windows(tmp_path / "missing.csv")
    with pytest.raises(ServeGenError, match="no ServeGen client files given"):
        read_servegen_windows([])
    write(tmp_path / "big", "chunk-0-trace.csv", GOOD)
    monkeypatch.setattr("rackcost.analysis.servegen_windows.MAX_CLIENT_FILE_BYTES", 10)
    with pytest.raises(ServeGenError, match="chunk-0-trace.csv"):
        read_servegen_windows(tmp_path / "big")


def test_windows_that_are_no_profile_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ServeGenError, match="2 hours; a profile is 168 n hours"):
        profile_of_windows(read_servegen_windows(FIXTURES))
    write(tmp_path / "odd", "chunk-0-trace.csv", GOOD)
    with pytest.raises(ServeGenError, match="not whole hours"):
        profile_of_windows(read_servegen_windows(tmp_path / "odd"))
    write(tmp_path / "long", "chunk-0-trace.csv", "0,1,1,Gamma,1,1\n4000,1,1,Gamma,1,1\n")
    with pytest.raises(ServeGenError, match="do not divide an hour"):
        profile_of_windows(read_servegen_windows(tmp_path / "long"))
    idle = week_of_clients(tmp_path / "idle", clients=1)
    (idle / "chunk-0-trace.csv").write_text("".join(f"{i * 600},0,0,,0,0\n" for i in range(1008)))
    with pytest.raises(ServeGenError, match="no demand"):
        profile_of_windows(read_servegen_windows(idle))
    assert not math.isnan(profile_of_windows(read_servegen_windows(week_of_clients(tmp_path / "ok"))).window_s)


def test_the_command_writes_yaml_and_csv_and_refuses_in_one_line(tmp_path: Path) -> None:
    folder = week_of_clients(tmp_path / "w")
    out = tmp_path / "profile.yaml"
    result = runner.invoke(app, ["profile", "servegen", str(folder), "--peak-rps", "240", "-o", str(out)])
    assert result.exit_code == 0, result.output
    demand = yaml.safe_load(out.read_text())["demand"]
    assert len(demand["profile"]["hourly_arrival_rps"]) == 168 and len(demand["sub_hour"]["window_rps"][0]) == 6
    assert "ServeGen" in demand["source"] and "busiest hour" in result.output
    csv_out = tmp_path / "profile.csv"
    result = runner.invoke(app, ["profile", "servegen", str(folder), "-o", str(csv_out)])
    assert result.exit_code == 0, result.output
    header = csv_out.read_text().splitlines()[0]
    assert header == "hour,arrival_rps," + ",".join(f"window_{i}_rps" for i in range(6))
    bad = write(tmp_path / "bad", "chunk-0-trace.csv", "0,1,1,Gamma,1,1\n600,x,1,Gamma,1,1\n")
    result = runner.invoke(app, ["profile", "servegen", str(bad.parent)])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert result.output.count("\n") == 1 and "row 2" in result.output and str(bad) in result.output.replace("\n", "")
