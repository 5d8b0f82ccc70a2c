"""The accuracy table the project regenerates (``docs/validation.md``): how far to trust each number.

Each section is one function of a :class:`~rackcost.analysis.validation.sections.ValidationContext` returning a
:class:`~rackcost.analysis.validation.sections.ValidationSection` (``sections``): the throughput interpolation with
one measured point left out (``interpolation``), analytic against simulated acceptance for every bundled scenario
and router (``simulator``), and the slots for the sections still to come (the power law, the InferenceX
reproduction), each a "not yet measured" paragraph until its function is registered. Pure computation: the
scenarios and imported curves come in as arguments; the files are read and written by ``rackcost validation``.
"""
