"""The accuracy table the project regenerates (``docs/validation.md``): how far to trust each number.

Each section is one function of a :class:`~rackcost.analysis.validation.sections.ValidationContext` returning a
:class:`~rackcost.analysis.validation.sections.ValidationSection` (``sections``): the throughput interpolation with
one measured point left out (``interpolation``), analytic against simulated acceptance for every bundled scenario
and router (``simulator``), the power law fitted on some models and tested on the others (``power``),
InferenceX's $/M tokens reproduced by reconcile (``inferencex``), and MLPerf's measured Server rates and system power
against the model's capacity at MLPerf's SLO and the scenarios' wall power (``mlperf``); a slot without its function
is a "not yet measured" paragraph. Pure computation: the scenarios, imported curves and measurements come in as
arguments; the files are read and written by ``rackcost validation``.
"""
