"""Benchmarks for the pure core (``asks/``). Run all of them: ``.venv/bin/python -m bench.run``.

Plain scripts timed with :func:`time.perf_counter_ns`; figures are printed next to their goals
for information only (nothing here asserts on wall-clock time).
"""
