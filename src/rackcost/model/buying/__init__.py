"""The buying plan (docs/model.md, "The buying plan"): the cheapest mix of capacity sources over a horizon.

- ``source_kinds``: the kinds of capacity source, one definition each (a registry).
- ``plan_problem``: the plan's inputs and bookkeeping.
- ``plan``: the mixed-integer linear program, solved by HiGHS.
- ``plan_brute``: brute force on tiny instances, the referee of ``plan``.
"""
