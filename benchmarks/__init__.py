"""Benchmark scripts: each prints its figures and can write them as JSON."""
