"""A provisioned fleet (docs/model.md, steps 5 to 8): sized, served at each demand point and run as named steps.

- ``sizing``: replicas and racks on top of the queueing model (step 5).
- ``demand``: one provisioned fleet at each demand point (step 6).
- ``fleet``: steps 5 to 8 at a chosen operating point, for ``n`` samples at once.
- ``disaggregation`` and ``pool_fleet``: a disaggregated prefill/decode system's two pools.
"""
