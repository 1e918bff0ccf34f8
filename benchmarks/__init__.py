"""Benchmarks: ``python -m benchmarks.bench_tidy``."""
