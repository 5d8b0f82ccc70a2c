"""The parts of ``docs/validation.md``: what a section is, the context it is computed from, and the slots that
hold the section functions (:mod:`rackcost.analysis.validation.registry` lists them in the order the file shows).

A section is a function ``ValidationContext -> ValidationSection``. A slot without a function is rendered as a
short "not yet measured: <reason>" paragraph, so a reader sees what is missing. Adding a section is one function
given to its slot in the registry (or :func:`with_section` on the registry's ``SLOTS``, for ``build_sections``).

Every slot has its function today (``power_law``, ``interpolation``, ``simulator``, ``traffic``, ``inferencex``,
``mlperf``); the pending paragraph is for a section added to the registry before its function.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

import pandas as pd

from rackcost.analysis.validation.shared_files import InferenceXFile
from rackcost.model.energy.power_law import PowerCurve
from rackcost.model.replica.performance import Curve
from rackcost.scenario.schema import Scenario

__all__ = [
    "FULL_BUDGET",
    "QUICK_BUDGET",
    "NamedCurve",
    "SectionBuilder",
    "SectionSlot",
    "SectionTable",
    "SimulationBudget",
    "ValidationContext",
    "ValidationSection",
    "pending_section",
    "with_section",
]

Status = Literal["measured", "skipped", "pending"]


@dataclass(frozen=True)
class SimulationBudget:
    """How much the simulator runs for each system, router and scenario.

    Attributes
    ----------
    name
        ``full`` (the committed file) or ``quick`` (tests).
    requests
        Simulated requests per system and router, over all replications [-].
    replications
        Independent replications for the 95% intervals [-].
    """

    name: str
    requests: int
    replications: int

    @property
    def requests_per_replication(self) -> int:
        """Simulated requests in each replication [-] (as :func:`rackcost.simulate` splits them)."""
        return max(self.requests // self.replications, 2)


FULL_BUDGET = SimulationBudget("full", requests=200_000, replications=5)
"""``rackcost simulate``'s defaults: what a user running the simulator sees (about two minutes for every bundled
scenario and router on a 2-core machine)."""
QUICK_BUDGET = SimulationBudget("quick", requests=4_000, replications=4)
"""A few seconds in all: for tests and a first look, never for the committed file."""


@dataclass(frozen=True)
class NamedCurve:
    """A measured performance curve and where it came from.

    Attributes
    ----------
    source
        The file it came from (a bundled scenario, or an InferenceX result file or folder).
    label
        The curve's name in its source (a system's name, an imported curve's label).
    curve
        The measured points, as the model reads them.
    """

    source: str
    label: str
    curve: Curve


@dataclass(frozen=True)
class ValidationContext:
    """What every section is computed from; read by ``rackcost validation`` and passed in (no section reads files).

    Attributes
    ----------
    scenarios
        The bundled scenarios, as (file name, scenario), in file order.
    imported_curves
        Curves imported from the shared InferenceX files (empty when the folder is absent).
    imported_note
        Where the imported curves came from, what was skipped, or why there are none.
    data_folder
        The shared data folder (``rackcost validation --data``), or None when it is absent.
    data_label
        How the file names that folder (a path on the build machine is not worth committing).
    budget
        The simulator's budget.
    seed
        Seed of every simulation [-].
    power_curves
        Measured board power against batch (the ML.ENERGY compilation), or empty when absent.
    inferencex_files
        The shared InferenceX files, each parsed with the curves imported from it alone, or empty when absent.
    traces
        The shared production traces (:class:`rackcost.analysis.validation.traffic.NamedTrace`), or empty when
        absent.
    mlperf_results
        Published MLPerf Inference results (:class:`rackcost.analysis.validation.mlperf.MLPerfPoint`), or empty.
    mlperf_note
        Where they came from (the package's table, or the files given).
    """

    scenarios: tuple[tuple[str, Scenario], ...]
    imported_curves: tuple[NamedCurve, ...] = ()
    imported_note: str = ""
    data_folder: Path | None = None
    data_label: str = "absent"
    budget: SimulationBudget = FULL_BUDGET
    seed: int = 0
    power_curves: tuple[PowerCurve, ...] = ()
    inferencex_files: tuple[InferenceXFile, ...] = ()
    traces: tuple[Any, ...] = ()
    mlperf_results: tuple[Any, ...] = ()
    mlperf_note: str = ""


@dataclass(frozen=True)
class SectionTable:
    """A table of a section: numbers in a frame, with display headers and formats.

    Attributes
    ----------
    caption
        One line above the table.
    frame
        The values (numbers stay numbers; a missing value is None or NaN).
    headers
        Display header per column (default: the column's name).
    formats
        Format spec per column (``"{:.2%}"``); other columns are shown as text.
    """

    caption: str
    frame: pd.DataFrame
    headers: Mapping[str, str] = field(default_factory=dict)
    formats: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ValidationSection:
    """One section of ``docs/validation.md``.

    Attributes
    ----------
    key
        Its slot's key (:data:`SLOTS`).
    title
        Heading.
    status
        ``measured``, ``skipped`` (its inputs are absent: ``text`` says which) or ``pending`` (no function yet).
    headline
        One line for the summary at the top: the figure a reader should remember.
    text
        What was measured and how (Markdown paragraphs).
    tables
        Its tables.
    parameters
        The parameters it ran with (budget, seed, folders), for the record.
    """

    key: str
    title: str
    status: Status
    headline: str
    text: str
    tables: tuple[SectionTable, ...] = ()
    parameters: Mapping[str, str] = field(default_factory=dict)


SectionBuilder = Callable[[ValidationContext], ValidationSection]
"""A section function."""


@dataclass(frozen=True)
class SectionSlot:
    """A section of the file: its key and title, and its function or why it has none yet.

    Attributes
    ----------
    key, title
        As :class:`ValidationSection`.
    build
        The section function, or None while it is not measured.
    pending_reason
        Why it is not measured yet (shown when ``build`` is None).
    """

    key: str
    title: str
    build: SectionBuilder | None = None
    pending_reason: str = ""


def pending_section(slot: SectionSlot) -> ValidationSection:
    """The paragraph of a slot without a function: "not yet measured", and why."""
    return ValidationSection(
        slot.key,
        slot.title,
        "pending",
        f"not yet measured: {slot.pending_reason}",
        f"Not yet measured: {slot.pending_reason}",
    )


def with_section(slots: Sequence[SectionSlot], key: str, build: SectionBuilder) -> tuple[SectionSlot, ...]:
    """``slots`` with the slot ``key`` given the function ``build`` (the extension point).

    Raises
    ------
    KeyError
        If no slot has that key (a new section needs its own slot, in the order the file shows it).
    """
    if key not in {s.key for s in slots}:
        raise KeyError(f"no validation section {key!r}; the slots are: {', '.join(s.key for s in slots)}")
    return tuple(replace(s, build=build) if s.key == key else s for s in slots)
