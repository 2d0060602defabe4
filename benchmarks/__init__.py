"""Benchmarks: `make bench` runs them all (`python -m benchmarks`); each prints ratios, none is a timed test."""
