"""What the fleet is asked to serve: the mix of request shapes and demand over time.

- ``classes``: request classes, their service times and the queue they share.
- ``profile`` and ``horizon``: an hourly demand profile, its growth over years, and the calendar of a horizon.
- ``prefix_cache``: prefix reuse measured on a trace.
"""
