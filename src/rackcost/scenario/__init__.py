"""Scenario layer: files in, every check, and the bridge to the numeric core.

``schema`` (the pydantic scenario), ``distributions`` (what an uncertain input may be), ``yaml_paths``, ``loading``
(YAML in with line numbers, validated :class:`~rackcost.scenario.schema.Scenario` out), ``edits`` (pure edits of a
scenario's plain data), ``system_edits`` (a system copied, removed or paid another way), ``price_tiers`` (the
InferenceX price-tier file), ``unpack`` (the only reader of a ``Scenario`` for the model: YAML paths to plain
inputs) and ``feasibility`` (the problems only the model can see, reported by the loader beside the field checks).
May import :mod:`rackcost.model` and the leaf modules only.
"""
