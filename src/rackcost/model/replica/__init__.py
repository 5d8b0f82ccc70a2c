"""One serving replica (docs/model.md, steps 1 to 3): what it does at each batch, the best SLO-feasible point to run
it at, and the requests its memory holds.

- ``performance``: token accounting and the performance curve (steps 1 and 2).
- ``operating_point``: the SLO-feasible operating point (step 3).
- ``memory``: the KV-cache memory of a replica, as requests in flight.
"""
