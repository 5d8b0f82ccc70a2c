"""Importers: benchmark result files become operating-point curves with provenance (DESIGN.md section 4).

One module per format, one name-mapping table (:data:`rackcost.importers.common.FIELD_MAP`):

- :func:`rackcost.importers.inferencex.read_inferencex`: InferenceX result JSON (stage A, B or C);
- :func:`rackcost.importers.csv_table.read_csv_table`: a CSV table with one operating point per row.

Both take ``(file name, bytes)`` so the dashboard can pass uploads, and return an
:class:`~rackcost.importers.common.ImportResult`: ``curves`` (each with a scenario-ready ``performance`` and
``provenance`` dict and its :class:`~rackcost.importers.common.CurveKey`) and ``skipped`` (file, row, field,
reason). :func:`~rackcost.importers.common.curves_to_yaml` writes curves as YAML that pastes into a scenario.
"""

from __future__ import annotations

from rackcost.importers.common import (
    FIELD_MAP,
    PERCENTILES,
    Curve,
    CurveKey,
    ImportResult,
    Skipped,
    curve_to_yaml,
    curves_to_yaml,
    differing_keys,
)
from rackcost.importers.csv_table import CSV_COLUMNS, read_csv_table, read_csv_table_path
from rackcost.importers.inferencex import detect_stage, read_inferencex, read_inferencex_paths

__all__ = [
    "CSV_COLUMNS",
    "FIELD_MAP",
    "PERCENTILES",
    "Curve",
    "CurveKey",
    "ImportResult",
    "Skipped",
    "curve_to_yaml",
    "curves_to_yaml",
    "detect_stage",
    "differing_keys",
    "read_csv_table",
    "read_csv_table_path",
    "read_inferencex",
    "read_inferencex_paths",
]
