"""Suites of opt-in extensions: never part of core conformance, run only with `--extension NAME`
(clauses marked `extension = "NAME"` in clauses.toml), reported in their own section."""
