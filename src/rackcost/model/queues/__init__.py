"""The queue a fleet of replicas makes (docs/model.md, step 4 and the sections on burstiness and latency): waiting,
capacity at the SLO and replicas needed under each router and arrival pattern.

- ``erlang``: Erlang B and C in log space.
- ``queueing``: the M/M/k fleet's waiting time, capacity at the SLO and replicas needed.
- ``routers`` and ``routing``: one object per router (its analytic queue, occupancy law and simulator dispatch), and
  the queue each router makes of the fleet.
- ``burstiness`` and ``dispersion``: bursty arrivals (the G/G/c correction) and burstiness at the fleet's own time
  scale.
- ``rate_swing``: short swings of the rate within a demand point (the pointwise stationary approximation).
- ``stretch_rule``: sizing and capacity under the wait stretch that acceptance reads.
- ``occupancy`` and ``class_ttft``: latency percentiles under load variation, and a request class's p99 TTFT.
"""
