"""Analyses built on the evaluation: Monte Carlo, tornado and break-even, chart data, the simulation referee,
the InferenceX reconciliation, the site budget, and sweeps (``analysis.sweep``). May import evaluation, scenario,
model and the leaf modules.
"""
