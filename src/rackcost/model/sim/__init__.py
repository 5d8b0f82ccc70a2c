"""The discrete-event simulator (docs/model.md, Simulation): the referee of the analytic model.

- ``simulation``: one serving fleet at one arrival rate, over replications or batches.
- ``sim_engines``: how one replica serves by occupancy, and the two engines that run a fleet.
- ``sim_arrivals``, ``sim_classes`` and ``sim_trace``: what arrives (renewal arrivals of a given burstiness, request
  classes, a trace's own requests).
- ``sim_tandem``: a disaggregated system as a tandem of two fleets.
- ``sim_autoscale``: a pooled fleet through a ramp's steps, its serving replicas set per step (autoscaling).
- ``sim_steady``: the steady state a router implies (the simulator's start, and exact references).
- ``sim_summary`` and ``sim_rare``: estimates with their 95% intervals, and a bound on rare SLO misses.
- ``sim_work``: how much a simulation is before it runs, and the bounds beyond which it is refused.
"""
