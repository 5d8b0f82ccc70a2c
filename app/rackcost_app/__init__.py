"""Helpers of the rackcost dashboard: session state, cached library calls, form widgets, table columns.

They only render and keep state; every number comes from the library (:mod:`rackcost`).
"""
