"""Sub-hour peaks in a profile against a 10-minute replay (``rackcost.analysis.referee_windows``).

The data test reads ServeGen's 162 client streams of one large language model (Alibaba ServeGen, Xiang et al.,
"ServeGen: workload characterization of large language model serving in production", 2025; Apache-2.0), in the
shared data folder's ``traces/servegen-m-large``: 14 days of 10-minute windows, made a two-week profile scaled so
the busiest hour's mean is 240 requests/s, the peak of the bundled ``deepseek-r1-b200-vs-gb200-inferencex``. The
fleet rackcost sizes from that profile with its windows must accept, by the model, within 2 points of a replay of
the busiest hour's six windows (Poisson at each window's rate, admission at the stationary capacity at SLO, as the
model), and at least the attainment target; the fleet sized from the hourly means alone accepts less, and the model
says so within 2 points too.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

import rackcost
from rackcost.analysis.referee_windows import replay_windows, servegen_check
from reference import TWO_SYSTEMS


def test_a_constant_hour_replays_at_the_stationary_share() -> None:
    # windows of one rate are the constant-rate model: the replay agrees with the model's share at that rate
    scenario = rackcost.scenario_from_dict(yaml.safe_load(TWO_SYSTEMS.read_text(encoding="utf-8")))
    peak = next(r for r in rackcost.evaluate(scenario).records["points"] if r["demand_point"] == "peak")
    replay = replay_windows(scenario, peak["system"], [float(peak["offered_rps"])] * 2, 600.0, replications=2)
    assert replay.analytic_accepted_fraction == pytest.approx(peak["accepted_rps"] / peak["offered_rps"])
    assert abs(replay.replayed_accepted_fraction - replay.analytic_accepted_fraction) < 0.02
    with pytest.raises(ValueError, match="window_rps"):
        replay_windows(scenario, peak["system"], [], 600.0)


@pytest.mark.data
def test_servegen_busiest_hour_within_two_points_of_its_replay(shared_data: Path) -> None:
    folder = shared_data / "traces" / "servegen-m-large"
    if not folder.is_dir():
        pytest.skip(f"needs {folder} (ServeGen's client windows)")
    rows = servegen_check(folder, replications=3, seed=0)
    windows = [r.replay for r in rows if r.sized_for == "the profile with its windows"]
    means = {r.replay.system: r.replay for r in rows if r.sized_for == "the hourly means"}
    assert len(windows) == 2
    for replay in windows:
        assert abs(replay.analytic_accepted_fraction - replay.replayed_accepted_fraction) <= 0.02, replay
        assert replay.analytic_accepted_fraction >= 0.99 - 1e-9
        plain = means[replay.system]
        assert plain.replicas < replay.replicas
        assert plain.replayed_accepted_fraction < 0.97  # the means alone under-size the busiest hour
        assert abs(plain.analytic_accepted_fraction - plain.replayed_accepted_fraction) <= 0.02, plain
