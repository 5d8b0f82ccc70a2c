"""Speed of the dashboard's recomputation after an edit: the cached library calls the Results page makes.

Run: ``.venv/bin/python benchmarks/bench_app.py``

For each bundled scenario, each repeat changes the electricity price (so every call misses the cache, as after an
edit in the app) and times what the app does: validate the edited draft (``scenario_from_dict``, as the Scenario
page does on every edit), then the three cached calls of the Results page through ``st.cache_data``
(``evaluate``, ``operating_curves``, ``latency_cliff``). Prints the median (target: under 100 ms).
"""

from __future__ import annotations

import copy
import logging
import statistics
import sys
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "app"))
logging.getLogger("streamlit").setLevel(logging.ERROR)  # "no runtime" notices: the cache works without one

import rackcost  # noqa: E402
from rackcost_app import compute  # noqa: E402
from rackcost_app.state import canonical_json  # noqa: E402

REPEATS = 21


def recompute(data: dict, price: float) -> float:
    """Seconds for one edit: validate, then the Results page's cached calls on a new key."""
    edited = copy.deepcopy(data)
    edited["facility"]["electricity_usd_per_kwh"] = price
    start = time.perf_counter()
    key = canonical_json(rackcost.scenario_from_dict(edited, "bench"))
    compute.evaluate(key)
    compute.curves(key)
    compute.cliff(key)
    return time.perf_counter() - start


def main() -> None:
    print(f"recomputation after an edit (validate + evaluate + operating_curves + latency_cliff), median of {REPEATS}")
    for path in rackcost.bundled_scenarios():
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        recompute(data, 0.0123)  # warm-up (imports, first cache)
        times = [recompute(data, 0.05 + 0.001 * i) for i in range(REPEATS)]
        print(f"   {path.name:<48} {statistics.median(times) * 1e3:7.1f} ms (max {max(times) * 1e3:.1f} ms)")


if __name__ == "__main__":
    main()
