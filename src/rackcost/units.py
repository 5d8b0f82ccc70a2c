"""Unit conversions used across the model, each defined once."""

from __future__ import annotations

from typing import Final

__all__ = [
    "BYTES_PER_GIB",
    "DAYS_PER_YEAR",
    "GRAMS_PER_KG",
    "GRAMS_PER_TONNE",
    "HOURS_PER_DAY",
    "HOURS_PER_YEAR",
    "MONTHS_PER_YEAR",
    "MS_PER_S",
    "NS_PER_MS",
    "SECONDS_PER_HOUR",
    "TOKENS_PER_MILLION",
    "W_PER_KW",
]

SECONDS_PER_HOUR: Final = 3600.0
HOURS_PER_DAY: Final = 24.0
HOURS_PER_YEAR: Final = 8760.0
"""A 365-day year, as capital recovery and yearly opex are quoted [h/year]."""
DAYS_PER_YEAR: Final = 365.0
"""The same 365-day year in days [day/year]."""
MONTHS_PER_YEAR: Final = 12.0
"""Colocation is quoted per kW-month [month/year]."""
MS_PER_S: Final = 1000.0
NS_PER_MS: Final = 1e6
"""MLPerf's LoadGen logs latencies in ns [ns/ms]."""
W_PER_KW: Final = 1000.0
TOKENS_PER_MILLION: Final = 1e6
"""Prices are quoted per million tokens [tokens/Mtoken]."""
GRAMS_PER_KG: Final = 1000.0
GRAMS_PER_TONNE: Final = 1e6
"""Carbon is quoted in grams per kWh, priced per metric tonne [g/t]."""
BYTES_PER_GIB: Final = float(2**30)
"""Accelerator memory is quoted in GB of 2^30 bytes (JEDEC JESD100B.01), i.e. GiB [bytes/GiB]."""
