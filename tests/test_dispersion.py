"""Burstiness at the fleet's time scale (rackcost.model.queues.dispersion): the index of dispersion of counts, the
peakedness it implies against exponential service, and a demand point's measured dispersion in the evaluation."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

import rackcost
from rackcost.errors import ScenarioError
from rackcost.model.queues.dispersion import DEFAULT_TIME_SCALES_S, effective_arrival_scv, index_of_dispersion
from rackcost.scenario.loading import load_scenario

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[1]
INFERENCEX = ROOT / "scenarios" / "deepseek-r1-b200-vs-gb200-inferencex.yaml"


def _cox_index(t: np.ndarray, k: float, theta_s: float) -> np.ndarray:
    """Index of dispersion of a stationary stream whose covariance density is ``lambda k e^(-tau / theta)`` (e.g.
    a Poisson stream whose rate switches between two levels at random): ``I(t) = 1 + 2 k theta (1 - (theta / t)
    (1 - e^(-t / theta)))`` (D. R. Cox and V. Isham, *Point Processes*, 1980, section 4.2: ``Var N(t) = lambda t +
    2 int_0^t (t - u) c(u) du``)."""
    return 1.0 + 2.0 * k * theta_s * (1.0 - (theta_s / t) * -np.expm1(-t / theta_s))


def _two_level_poisson(rng: np.random.Generator, low_rps: float, high_rps: float, switch_rps: float, span_s: float):
    """Arrivals of a Poisson stream whose rate switches between two levels at the events of a Poisson process of
    rate ``switch_rps`` (a symmetric two-state Markov-modulated Poisson process)."""
    times: list[np.ndarray] = []
    t, high = 0.0, bool(rng.integers(2))
    while t < span_s:
        stay = min(rng.exponential(1.0 / switch_rps), span_s - t)
        rate = high_rps if high else low_rps
        count = rng.poisson(rate * stay)
        times.append(t + np.sort(rng.uniform(0.0, stay, count)))
        t += stay
        high = not high
    return np.concatenate(times)


def test_poisson_index_is_one_at_every_service_time():
    """Poisson arrivals (index 1 at every scale) have peakedness 1: SCV 1 exactly, whatever the service."""
    for service_s in (1e-3, 0.5, 14.0, 3600.0):
        assert effective_arrival_scv((0.1, 1.0, 600.0), (1.0, 1.0, 1.0), service_s) == pytest.approx(1.0, abs=1e-14)


@pytest.mark.parametrize("k,theta_s", [(3.0, 20.0), (0.5, 2.0), (40.0, 300.0)])
def test_effective_scv_matches_the_closed_form_of_an_exponential_covariance(k, theta_s):
    """For covariance density ``lambda k e^(-tau / theta)`` the infinite-server peakedness against exponential
    service of mean S is ``z = 1 + k theta S / (theta + S)`` (Eckberg 1983: ``z - 1 = (1 / lambda) int_0^inf c(tau)
    e^(-tau / S) dtau``), so the effective SCV ``2 z - 1`` is ``1 + 2 k theta S / (theta + S)``."""
    t = np.geomspace(1e-4, 1e6, 400)
    index = _cox_index(t, k, theta_s)
    for service_s in (0.3, 14.0, 40.0, 900.0):
        exact = 1.0 + 2.0 * k * theta_s * service_s / (theta_s + service_s)
        assert effective_arrival_scv(t, index, service_s) == pytest.approx(exact, rel=2e-3)


def test_effective_scv_tends_to_the_long_run_index():
    """For service long against every measured scale the average reads the last index (held flat beyond it); for
    service short against them, the first: for a renewal stream the long-run index is its gap SCV, and the model's
    variability ``(c_a^2 + 1) / 2`` is the peakedness then."""
    scales, index = (0.1, 1.0, 10.0), (1.0, 2.5, 4.0)
    assert effective_arrival_scv(scales, index, 1e5) == pytest.approx(4.0, rel=1e-4)
    assert effective_arrival_scv(scales, index, 1e-5) == pytest.approx(1.0, rel=1e-4)


def test_index_of_dispersion_of_a_poisson_stream_is_one():
    """Counts of a Poisson stream in any window are Poisson: variance = mean (seeded; 4 standard errors)."""
    rng = np.random.default_rng(1)
    t = np.cumsum(rng.exponential(1.0 / 200.0, 720_000))
    scales = np.array([0.1, 1.0, 10.0, 60.0])
    measured = index_of_dispersion(t, scales)
    windows = t[-1] // scales
    assert np.all(np.abs(measured - 1.0) < 4.0 * np.sqrt(2.0 / (windows - 1)))


def test_index_of_dispersion_of_a_two_level_stream_and_its_peakedness_in_an_infinite_pool():
    """A simulated two-level Poisson stream (rates 100 and 300 requests/s, switching at 0.05 per s): its measured
    index against the closed form, and the peakedness read from the measured curve against the variance / mean of
    the busy servers of an infinite pool it feeds (exponential service of mean 14 s, every request its own random
    service: the definition, simulated independently of the formula)."""
    rng = np.random.default_rng(7)
    low, high, switch, span = 100.0, 300.0, 0.05, 40_000.0
    t = _two_level_poisson(rng, low, high, switch, span)
    lam = (low + high) / 2.0
    k = ((high - low) / 2.0) ** 2 / lam  # covariance density lambda k e^(-2 r tau): the rate's variance is lambda k
    theta = 1.0 / (2.0 * switch)
    scales = np.array([0.5, 2.0, 10.0, 60.0, 300.0])
    measured = index_of_dispersion(t, scales)
    assert measured == pytest.approx(_cox_index(scales, k, theta), rel=0.15)
    service_s = 14.0
    departures = t + rng.exponential(service_s, t.size)
    grid = np.arange(2_000.0, span - 100.0, 5.0)  # after the pool fills; busy = arrived - departed
    busy = np.searchsorted(t, grid) - np.searchsorted(np.sort(departures), grid)
    z_simulated = busy.var() / busy.mean()
    curve = index_of_dispersion(t, DEFAULT_TIME_SCALES_S)
    ok = np.isfinite(curve)
    z_formula = (1.0 + effective_arrival_scv(np.asarray(DEFAULT_TIME_SCALES_S)[ok], curve[ok], service_s)) / 2.0
    assert z_formula == pytest.approx(z_simulated, rel=0.12)
    assert z_formula == pytest.approx(1.0 + k * theta * service_s / (theta + service_s), rel=0.12)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.floats(0.0, 500.0), min_size=2, max_size=8),
    st.lists(st.floats(0.0, 50.0), min_size=2, max_size=8),
    st.floats(0.01, 5_000.0),
)
def test_more_dispersion_never_reads_a_smaller_scv(index, extra, service_s):
    """The Gamma(2, S) average is monotone: an index larger at every scale never reads a smaller SCV."""
    n = min(len(index), len(extra))
    scales = np.geomspace(0.1, 3600.0, n)
    base = effective_arrival_scv(scales, index[:n], service_s)
    more = effective_arrival_scv(scales, np.asarray(index[:n]) + np.asarray(extra[:n]), service_s)
    assert more >= base - 1e-12 * max(1.0, base)
    assert min(index[:n]) - 1e-9 <= base <= max(index[:n]) + 1e-9


def test_bad_curves_are_refused():
    with pytest.raises(ValueError, match="strictly increasing"):
        effective_arrival_scv((1.0, 1.0), (1.0, 2.0), 3.0)
    with pytest.raises(ValueError, match="one length"):
        effective_arrival_scv((1.0, 2.0), (1.0,), 3.0)
    with pytest.raises(ValueError, match="service_s"):
        effective_arrival_scv((1.0,), (1.0,), math.nan)


def _with_peak(tmp_path: Path, **peak) -> Path:
    data = yaml.safe_load(INFERENCEX.read_text())
    data["demand"][2].update(peak)
    path = tmp_path / "scenario.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def test_a_flat_dispersion_is_its_scv(tmp_path):
    """A dispersion that reads 4 at every scale loads every fleet as arrival_scv 4 does: the same replicas, the
    same accepted share and cost (to rounding of the average)."""
    flat = rackcost.evaluate(
        load_scenario(_with_peak(tmp_path, arrival_dispersion={"time_scales_s": [1, 100], "index": [4, 4]}))
    )
    given_scv = rackcost.evaluate(load_scenario(_with_peak(tmp_path, arrival_scv=4.0)))
    a, b = flat.points, given_scv.points
    assert a["active_replicas"].tolist() == b["active_replicas"].tolist()
    assert a["arrival_scv"].to_numpy() == pytest.approx(b["arrival_scv"].to_numpy(), rel=1e-12)
    assert a["accepted_rps"].to_numpy() == pytest.approx(b["accepted_rps"].to_numpy(), rel=1e-9)
    assert a["total_usd_per_hour"].to_numpy() == pytest.approx(b["total_usd_per_hour"].to_numpy(), rel=1e-9)


def test_each_system_reads_the_dispersion_at_its_own_service_time(tmp_path):
    """The same curve reads a larger SCV for a fleet whose requests hold a slot longer; the point's row shows what
    its system read, and the fleet is sized for it (never fewer replicas than for Poisson arrivals)."""
    curve = {"time_scales_s": [0.1, 1, 10, 60, 600], "index": [1.07, 1.37, 4.07, 18.4, 74.8]}
    result = rackcost.evaluate(load_scenario(_with_peak(tmp_path, arrival_dispersion=curve)))
    poisson = rackcost.evaluate(load_scenario(INFERENCEX))
    points = result.points
    peak = points[points["demand_point"] == "peak"]
    for _, row in peak.iterrows():
        service_s = float(
            result.systems.set_index("system").loc[row["system"], "service_s"]  # the chosen point's
        )
        assert row["arrival_scv"] == pytest.approx(
            effective_arrival_scv(curve["time_scales_s"], curve["index"], service_s), rel=1e-12
        )
    quiet = points[points["demand_point"] == "quiet"]
    assert (quiet["arrival_scv"] == 1.0).all()  # points without a curve keep their own SCV
    more = result.systems["serving_replicas"].to_numpy()
    base = poisson.systems["serving_replicas"].to_numpy()
    assert (more >= base).all() and (more > base).any()


def test_arrival_scv_and_dispersion_together_are_refused(tmp_path):
    path = _with_peak(tmp_path, arrival_scv=2.0, arrival_dispersion={"time_scales_s": [1, 10], "index": [1, 2]})
    with pytest.raises(ScenarioError, match=r"demand\[2\]\.arrival_dispersion: give arrival_scv or"):
        load_scenario(path)
    path = _with_peak(tmp_path, arrival_dispersion={"time_scales_s": [10, 1], "index": [1, 2]})
    with pytest.raises(ScenarioError, match=r"demand\[2\]\.arrival_dispersion\.time_scales_s: must be strictly"):
        load_scenario(path)
