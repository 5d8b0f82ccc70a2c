"""The sections of ``docs/validation.md`` in order (:data:`SLOTS`), measured or still to come.

To add a section: write its function (``ValidationContext -> ValidationSection``) in a module of this package and
give it to its slot here (``build=``); a slot without a function is rendered "not yet measured" with its reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from rackcost.analysis.validation.inferencex import inferencex_section
from rackcost.analysis.validation.interpolation import interpolation_section
from rackcost.analysis.validation.mlperf import mlperf_section
from rackcost.analysis.validation.power import power_law_section
from rackcost.analysis.validation.sections import SectionSlot, ValidationContext, ValidationSection, pending_section
from rackcost.analysis.validation.simulator import simulator_section
from rackcost.analysis.validation.traffic import traffic_section

__all__ = ["SLOTS", "build_sections"]

SLOTS: tuple[SectionSlot, ...] = (
    SectionSlot("power_law", "Power law: fit on some models, test on the others", power_law_section),
    SectionSlot("interpolation", "Throughput interpolation, leave one measured point out", interpolation_section),
    SectionSlot("simulator", "Analytic against simulated, every bundled scenario and router", simulator_section),
    SectionSlot("traffic", "Real traffic: production traces replayed through the sized fleets", traffic_section),
    SectionSlot("inferencex", "InferenceX reproduction: $/M tokens against InferenceX's formula", inferencex_section),
    SectionSlot("mlperf", "MLPerf Inference: capacity at SLO and wall power against measured", mlperf_section),
)
"""Every section of the file, in the order it shows them."""


def build_sections(context: ValidationContext, slots: Sequence[SectionSlot] | None = None) -> list[ValidationSection]:
    """Every section of the file, in order: measured by its function, or the pending paragraph.

    Parameters
    ----------
    context
        The scenarios, imported curves, budget and seed.
    slots
        The sections (default :data:`SLOTS`).

    Returns
    -------
    list of ValidationSection
        One per slot, in the slots' order.
    """
    if slots is None:
        slots = SLOTS
    out = []
    for slot in slots:
        if slot.build is None:
            out.append(pending_section(slot))
            continue
        section = slot.build(context)
        out.append(replace(section, key=slot.key, title=slot.title))
    return out
