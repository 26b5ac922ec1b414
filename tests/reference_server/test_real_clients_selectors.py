"""kubectl 1.33's `-l` and `--field-selector` against the server: the selector is the server's to parse, so a
set with an empty value, a `gt` requirement and Services' `spec.type` select as upstream, and a malformed set is
refused with the parser's words."""
from __future__ import annotations

from typing import Any

from .test_real_clients import Kube, kube, names, served  # noqa: F401 - fixtures


def test_kubectl_label_and_field_selectors(kube: Kube, names: Any) -> None:
    ns = names()
    kube.ok("create", "ns", ns)
    for cm, label in (("empty", "sel="), ("x", "sel=x"), ("five", "sel=5"), ("none", "")):
        kube.ok("create", "configmap", cm, "-n", ns)
        if label:
            kube.ok("label", "configmap", cm, label, "-n", ns)
    assert kube.ok("get", "cm", "-n", ns, "-l", "sel in (,x)", "-o", "name").split() == [
        "configmap/empty", "configmap/x"]
    assert kube.ok("get", "cm", "-n", ns, "-l", "sel>4", "-o", "name").split() == ["configmap/five"]
    assert kube.fails("get", "cm", "-n", ns, "-l", "sel in (x y)") == (  # kubectl's resource builder wraps it
        'Error from server (BadRequest): Unable to find "/v1, Resource=configmaps" that match label selector '
        '"sel in (x y)", field selector "": unable to parse requirement: found \'y\', expected: \',\' or \')\'\n')
    kube.ok("create", "service", "externalname", "ext", "--external-name", "a.example", "-n", ns)
    kube.ok("create", "service", "clusterip", "web", "--tcp", "80", "-n", ns)
    assert kube.ok("get", "svc", "-n", ns, "--field-selector", "spec.type=ExternalName", "-o", "name").split() == [
        "service/ext"]
