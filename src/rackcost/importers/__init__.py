"""Importers: benchmark result files become operating-point curves with provenance (docs/importers.md).

One module per format, and one module per idea they share:

- :func:`rackcost.importers.inferencex.read_inferencex`: InferenceX result JSON (stage A, B or C);
- :func:`rackcost.importers.csv_table.read_csv_table`: a CSV table with one operating point per row;
- :mod:`rackcost.importers.mapping`: the one name-mapping table (:data:`~rackcost.importers.mapping.FIELD_MAP`)
  that every reader renames a source's records through before it reads them, and the number parsing on it;
- :mod:`rackcost.importers.curves`: rows grouped into :class:`~rackcost.importers.curves.ImportedCurve` objects
  by :class:`~rackcost.importers.curves.CurveKey`, what was skipped, what a file name says;
- :mod:`rackcost.importers.yaml_out`: curves as YAML that pastes into a scenario.

Both readers take ``(file name, bytes)`` so the dashboard can pass uploads, and return an
:class:`~rackcost.importers.curves.ImportResult`: ``curves`` (each with a scenario-ready ``performance`` and
``provenance`` dict and its :class:`~rackcost.importers.curves.CurveKey`) and ``skipped`` (file, row, field,
reason). :func:`~rackcost.importers.yaml_out.curves_to_yaml` writes curves as YAML that pastes into a scenario.
"""

from __future__ import annotations

from rackcost.importers.csv_table import CSV_COLUMNS, read_csv_table, read_csv_table_path
from rackcost.importers.curves import CurveKey, ImportedCurve, ImportResult, Skipped, differing_keys
from rackcost.importers.inferencex import detect_stage, read_inferencex, read_inferencex_paths
from rackcost.importers.mapping import FIELD_MAP, PERCENTILES, FieldName, rename_fields
from rackcost.importers.yaml_out import curve_to_yaml, curves_to_yaml

__all__ = [
    "CSV_COLUMNS",
    "FIELD_MAP",
    "PERCENTILES",
    "CurveKey",
    "FieldName",
    "ImportResult",
    "ImportedCurve",
    "Skipped",
    "curve_to_yaml",
    "curves_to_yaml",
    "detect_stage",
    "differing_keys",
    "read_csv_table",
    "read_csv_table_path",
    "read_inferencex",
    "read_inferencex_paths",
    "rename_fields",
]
