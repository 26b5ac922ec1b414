"""The scale suite's room (opt-in, `--scale N`): the 2014 proposal's "log n scale with increasing numbers
of scopes" as something measured.

`plan` chooses the steps, `population` creates and removes the namespaces in concurrent batches,
`measure` times the per-namespace and cross-namespace operations at one step, `fit` fits the curves and
judges growth, `plot` draws them as inline SVG for the HTML report, `options` is the pytest side
(`--scale`, `--scale-objects`, `--scale-rounds`; a `--scale` run is the scale suite alone).
"""
