"""Power and the grid (docs/model.md, step 7, 8. Cost and the site power budget).

- ``power_law``: accelerator board power against requests in service, fitted to public measurements.
- ``power``: the wall power of a fleet (hosts, network, cooling).
- ``site``: the largest fleet a site's IT power holds, and what it serves.
- ``grid``: the grid behind the wall: carbon per hour, a carbon price per kWh, and an hourly grid read at hours or
  averaged over a demand point's hours.
"""
