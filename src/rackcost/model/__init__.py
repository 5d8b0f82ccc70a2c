"""The numeric core: pure functions and plain containers over numpy arrays, in subpackages by concern.

Never sees a file, a widget, pydantic, PyYAML or pandas; imports only the leaf modules (``units``) and itself.

- ``inputs`` and ``outcomes``: the containers in and out; ``strategies``: the pluggable strategies' enums.
- ``replica``: one replica's curve and operating point (steps 1 to 3).
- ``queues``: the queue a fleet makes under each router and arrival pattern (step 4).
- ``fleets``: sizing, each demand point, the named steps 5 to 8, disaggregated pools.
- ``energy``: board and wall power, a site's power budget (step 7).
- ``costs``: cost arithmetic, API systems and the derived figures (step 8).
- ``workload``: request classes and demand over time.
- ``buying``: the buying plan.
- ``sim``: the discrete-event simulator, the analytic model's referee.
"""
