"""nsconform benchmarks: `python -m benchmarks [--quick]` (see benchmarks/README.md)."""
