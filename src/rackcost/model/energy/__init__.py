"""Power (docs/model.md, step 7 and the site power budget).

- ``power_law``: accelerator board power against requests in service, fitted to public measurements.
- ``power``: the wall power of a fleet (hosts, network, cooling).
- ``site``: the largest fleet a site's IT power holds, and what it serves.
"""
