"""What ``rackcost validation`` reads from the shared data folder's ``inferencex/`` for the InferenceX reproduction
(:mod:`rackcost.analysis.validation.inferencex`): each file as parsed JSON, with the curves the importer read from it.

Plain containers: the command reads and imports the files (the importers are a layer the analyses do not import,
docs/architecture.md), the section computes from these.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["InferenceXCurve", "InferenceXFile"]


@dataclass(frozen=True)
class InferenceXCurve:
    """One curve imported from an InferenceX file, as it pastes into a scenario.

    Attributes
    ----------
    label
        The curve's label (hardware first, then model, precision, framework, ``tpN``, lengths, ``offload-...``).
    performance
        Scenario-ready ``systems[].performance`` mapping (throughput per replica).
    provenance
        Scenario-ready ``systems[].provenance`` mapping.
    accelerators_per_replica
        GPUs of one replica (a disaggregated one: prefill and decode) [GPUs].
    """

    label: str
    performance: Mapping[str, Any]
    provenance: Mapping[str, Any]
    accelerators_per_replica: int


@dataclass(frozen=True)
class InferenceXFile:
    """One InferenceX result file of the shared folder.

    Attributes
    ----------
    name
        Its path relative to ``inferencex/`` (``b200_together_runner/.../conc16.json``).
    raw
        The parsed JSON (an object or an array), or None when it could not be read.
    curves
        The curves the importer read from it alone.
    skipped
        What the importer skipped, or why the file was not read, one line each.
    percentile
        The percentile TTFT and TPOT were imported at (``p95`` standing in for an agentic file without p99).
    """

    name: str
    raw: Any
    curves: tuple[InferenceXCurve, ...] = ()
    skipped: tuple[str, ...] = ()
    percentile: str = "p99"
