"""Sweeps: a file of axes over a base scenario (``spec``), resolved into configurations (``design``), evaluated in
chunks scheduled on Dask (``run``), laid out as one tidy table (``table``) and summarised (``summary``).
"""
