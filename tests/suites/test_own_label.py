"""The labels a suite narrows its lists and watches by must tell two runs of the same test apart."""
from types import SimpleNamespace

from conformance.suites import own_label, selector_of


def test_own_label_carries_the_run_and_the_test():
    ns = SimpleNamespace(labels={"app.kubernetes.io/managed-by": "nsconform", "nsconform.io/run": "r1",
                                 "nsconform.io/test": "abc"})
    assert own_label(ns) == {"nsconform.io/run": "r1", "nsconform.io/test": "abc"}
    other_run = SimpleNamespace(labels={**ns.labels, "nsconform.io/run": "r2"})
    assert selector_of(own_label(ns)) != selector_of(own_label(other_run))
