"""kubectl 1.33 reads the server's published schemas: `explain --output plaintext-openapiv2` fetches the
protobuf `/openapi/v2` (gnostic's Document, `http/openapi.py`), plain `explain` the per-group `/openapi/v3`
documents; both describe every field of a core and a named-group kind (`wire/markers.py`, the field model)."""
from __future__ import annotations

import re
from typing import Iterator

import pytest

from .test_real_clients import Kube, kube, serve_kube  # noqa: F401 - kube: a fixture

V2 = ("--output", "plaintext-openapiv2")


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kube]:
    yield from serve_kube(tmp_path_factory, "openapi", flavor="bare")


def test_explain_openapiv2_reads_protobuf(kube: Kube) -> None:
    proc = kube.run("explain", "pods.spec.containers.ports", *V2, "-v=6")
    assert proc.returncode == 0, proc.stderr
    assert re.findall(r'"Response" verb="GET" url="https://[^/]+(/openapi/v2)[^"]*" status="200 OK"', proc.stderr)
    assert proc.stdout == """KIND:     Pod
VERSION:  v1

RESOURCE: ports <[]Object>

DESCRIPTION:
     <empty>

FIELDS:
   containerPort\t<integer> -required-

   hostIP\t<string>

   hostPort\t<integer>

   name\t<string>

   protocol\t<string>

"""


def test_explain_openapiv2_named_group_kind(kube: Kube) -> None:
    out = kube.ok("explain", "deployment.spec.strategy.rollingUpdate", *V2)
    assert out.startswith("KIND:     Deployment\nVERSION:  apps/v1\n\nRESOURCE: rollingUpdate <Object>\n")
    assert "   maxSurge\t<string>\n" in out and "   maxUnavailable\t<string>\n" in out
    out = kube.ok("explain", "deployment.spec.strategy", "--recursive", *V2)
    assert out.endswith("FIELDS:\n   rollingUpdate\t<Object>\n      maxSurge\t<string>\n"
                        "      maxUnavailable\t<string>\n   type\t<string>\n")
    out = kube.ok("explain", "deployment.spec", "--recursive", *V2)
    assert "   selector\t<Object>\n      matchExpressions\t<[]Object>\n         key\t<string>\n" in out


def test_explain_openapiv3_fields_the_trimmed_schemas_lacked(kube: Kube) -> None:
    out = kube.ok("explain", "job.spec.podFailurePolicy.rules.onExitCodes")
    assert "FIELD: onExitCodes <PodFailurePolicyOnExitCodesRequirement>" in out
    assert "  values\t<[]integer> -required-\n" in out
    out = kube.ok("explain", "deployment.status.conditions.lastUpdateTime")
    assert "FIELD: lastUpdateTime <string>" in out
    out = kube.ok("explain", "endpointslice.endpoints.targetRef.fieldPath")
    assert "FIELD: fieldPath <string>" in out
