"""A provisioned fleet (docs/model.md, steps 5 to 8): sized, served at each demand point and run as named steps.

- ``sizing``: replicas and racks on top of the queueing model (step 5).
- ``demand`` and ``demand_steps``: one provisioned fleet at each demand point (step 6), and its steps, one object
  per concern (the operating point at the load, burstiness, the service's spread, classes, percentiles).
- ``fleet``: steps 5 to 8 at a chosen operating point, for ``n`` samples at once.
- ``disaggregation`` and ``pool_fleet``: a disaggregated prefill/decode system's two pools.
- ``shared``: several models' nodes packed onto one pool of racks, and the racks' cost attributed by a rule.
- ``assignment``: the cheapest assignment of request classes to systems, from each (system, class subset)'s fleet
  cost (the hardware mix).
- ``autoscale``: replicas that scale with a delay over a profile's steps, and what the delay loses.
"""
