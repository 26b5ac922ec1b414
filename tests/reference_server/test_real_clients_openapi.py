"""kubectl 1.33 reads the server's published schemas: `explain --output plaintext-openapiv2` fetches the
protobuf `/openapi/v2` (gnostic's Document, `http/openapi.py`), plain `explain` the per-group `/openapi/v3`
documents; both describe every field of a core and a named-group kind (`wire/markers.py`, the field model),
with upstream's descriptions and enums (`wire/descriptions.py`). `/openapi/v3` answers as kube-openapi's
handler3: `?hash=`, Etag/304, 406."""
from __future__ import annotations

import re
from typing import Iterator

import pytest

from .test_real_clients import Kube, kube, serve_kube  # noqa: F401 - kube: a fixture

V2 = ("--output", "plaintext-openapiv2")


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kube]:
    yield from serve_kube(tmp_path_factory, "openapi", flavor="bare", authorization="rbac")  # rbac: Roles served


def test_explain_openapiv2_reads_protobuf(kube: Kube) -> None:
    """v2 carries no enum paragraph (kube-apiserver 1.33's `/openapi/v2`: `protocol` is `Protocol for port. Must be
    UDP, TCP, or SCTP. Defaults to "TCP".` alone)."""
    proc = kube.run("explain", "pods.spec.containers.ports", *V2, "-v=6")
    assert proc.returncode == 0, proc.stderr
    assert re.findall(r'"Response" verb="GET" url="https://[^/]+(/openapi/v2)[^"]*" status="200 OK"', proc.stderr)
    assert proc.stdout == """KIND:     Pod
VERSION:  v1

RESOURCE: ports <[]Object>

DESCRIPTION:
     List of ports to expose from the container. Not specifying a port here DOES
     NOT prevent that port from being exposed. Any port which is listening on
     the default "0.0.0.0" address inside a container will be accessible from
     the network. Modifying this array with strategic merge patch may corrupt
     the data. For more information See
     https://github.com/kubernetes/kubernetes/issues/108255. Cannot be updated.

     ContainerPort represents a network port in a single container.

FIELDS:
   containerPort\t<integer> -required-
     Number of port to expose on the pod's IP address. This must be a valid port
     number, 0 < x < 65536.

   hostIP\t<string>
     What host IP to bind the external port to.

   hostPort\t<integer>
     Number of port to expose on the host. If specified, this must be a valid
     port number, 0 < x < 65536. If HostNetwork is specified, this must match
     ContainerPort. Most containers do not need this.

   name\t<string>
     If specified, this must be an IANA_SVC_NAME and unique within the pod. Each
     named port in a pod must have a unique name. Name for the port that can be
     referred to by services.

   protocol\t<string>
     Protocol for port. Must be UDP, TCP, or SCTP. Defaults to "TCP".

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


RESTART_POLICY = ("Restart policy for all containers within the pod. One of Always, OnFailure,\n{i}Never. In some "
                  "contexts, only a subset of those values may be permitted.\n{i}Default to Always. More info:\n{i}"
                  "https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/#restart-policy\n")


def test_explain_restart_policy_has_upstreams_description_and_enum(kube: Kube) -> None:
    out = kube.ok("explain", "pods.spec.restartPolicy")
    assert "FIELD: restartPolicy <string>\nENUM:\n    Always\n    Never\n    OnFailure\n\nDESCRIPTION:\n" in out
    assert "DESCRIPTION:\n    " + RESTART_POLICY.format(i="    ") in out
    assert ("Possible enum values:\n     - `\"Always\"`\n     - `\"Never\"`\n     - `\"OnFailure\"`\n" in out)
    out = kube.ok("explain", "pods.spec.restartPolicy", *V2)
    assert "FIELD:    restartPolicy <string>\n\nDESCRIPTION:\n     " + RESTART_POLICY.format(i="     ") in out


def test_explain_deployment_strategy_has_upstreams_descriptions(kube: Kube) -> None:
    out = kube.ok("explain", "deployments.spec.strategy")
    assert ("DESCRIPTION:\n    The deployment strategy to use to replace existing pods with new ones.\n"
            "    DeploymentStrategy describes how to replace existing pods with new ones.\n") in out
    assert ("  type\t<string>\n  enum: Recreate, RollingUpdate\n    Type of deployment. Can be \"Recreate\" or "
            "\"RollingUpdate\". Default is\n    RollingUpdate.\n") in out
    out = kube.ok("explain", "deployments.spec.strategy", *V2)
    assert ("DESCRIPTION:\n     The deployment strategy to use to replace existing pods with new ones.\n\n"
            "     DeploymentStrategy describes how to replace existing pods with new ones.\n") in out
    assert ("   rollingUpdate\t<Object>\n     Rolling update config params. Present only if DeploymentStrategyType =\n"
            "     RollingUpdate.\n") in out


def test_explain_role_rules_has_upstreams_descriptions(kube: Kube) -> None:
    out = kube.ok("explain", "roles.rules")
    assert out.startswith("GROUP:      rbac.authorization.k8s.io\nKIND:       Role\nVERSION:    v1\n")
    assert ("DESCRIPTION:\n    Rules holds all the PolicyRules for this Role\n    PolicyRule holds information that "
            "describes a policy rule, but does not\n") in out
    assert ("  verbs\t<[]string> -required-\n    Verbs is a list of Verbs that apply to ALL the ResourceKinds "
            "contained in\n    this rule. '*' represents all verbs.\n") in out
    out = kube.ok("explain", "roles.rules", *V2)
    assert "DESCRIPTION:\n     Rules holds all the PolicyRules for this Role\n\n     PolicyRule holds" in out


def test_explain_apiservice_and_create_token_as_upstream_documents_them(kube: Kube) -> None:
    """The APIService's definition has upstream's name (`io.k8s.kube-aggregator.pkg.apis.apiregistration.v1`), so
    its description is upstream's; `serviceaccounts/{name}/token` is documented with upstream's TokenRequest."""
    out = kube.ok("explain", "apiservices")
    assert "DESCRIPTION:\n    APIService represents a server for a particular GroupVersion." in out
    doc = kube.http.get(f"{kube.server.url}/openapi/v3/api/v1").json()
    token = doc["paths"]["/api/v1/namespaces/{namespace}/serviceaccounts/{name}/token"]["post"]
    assert token["operationId"] == "createCoreV1NamespacedServiceAccountToken"
    assert token["requestBody"] == {"content": {"*/*": {"schema": {
        "$ref": "#/components/schemas/io.k8s.api.authentication.v1.TokenRequest"}}}, "required": True}
    assert doc["components"]["schemas"]["io.k8s.api.authentication.v1.TokenRequest"][
        "x-kubernetes-group-version-kind"] == [{"group": "authentication.k8s.io", "kind": "TokenRequest",
                                                "version": "v1"}]


def test_explain_crd_spec_as_upstream_documents_it(kube: Kube) -> None:
    """The CRD's fields are published with upstream's words and markers (wire/jsonkindschemas.py), in v3 and in the
    protobuf v2 alike (it described `metadata` alone: `kubectl explain crd.spec` found no field)."""
    out = kube.ok("explain", "crd.spec")
    assert "FIELD: spec <CustomResourceDefinitionSpec>" in out
    assert ("  group\t<string> -required-\n    group is the API group of the defined custom resource. The custom "
            "resources\n    are served under `/apis/<group>/...`.") in out
    assert "  names\t<CustomResourceDefinitionNames> -required-\n" in out
    assert "  versions\t<[]CustomResourceDefinitionVersion> -required-\n    versions is the list of all API" in out
    assert "  conversion\t<CustomResourceConversion>\n    conversion defines conversion settings for the CRD." in out
    out = kube.ok("explain", "crd.spec", *V2)
    assert "RESOURCE: spec <Object>" in out
    assert "   names\t<Object> -required-\n     names specify the resource and kind names for the custom resource." \
        in out


def test_explain_crd_openapiv3schema_is_jsonschemaprops(kube: Kube) -> None:
    """`JSONSchemaProps` refers to itself; `JSON` and the `JSONSchemaPropsOr*` types have no type of their own; a
    `ValidationRule`'s `reason` is an enum in v3 (v2 publishes neither enums nor their paragraph)."""
    out = kube.ok("explain", "crd.spec.versions.schema.openAPIV3Schema")
    assert ("FIELD: openAPIV3Schema <JSONSchemaProps>\n\n\nDESCRIPTION:\n    openAPIV3Schema is the OpenAPI v3 "
            "schema to use for validation and pruning.\n    JSONSchemaProps is a JSON-Schema following Specification "
            "Draft 4\n    (http://json-schema.org/).") in out
    assert "  default\t<JSON>\n    default is a default value for undefined object fields." in out
    assert "  properties\t<map[string]JSONSchemaProps>\n" in out
    assert "  x-kubernetes-validations\t<[]ValidationRule>\n    x-kubernetes-validations describes a list of " \
        "validation rules written in the\n    CEL expression language." in out
    out = kube.ok("explain", "crd.spec.versions.schema.openAPIV3Schema.properties.x-kubernetes-validations.reason")
    assert "FIELD: reason <string>\nENUM:\n    FieldValueDuplicate\n    FieldValueForbidden\n" in out
    out = kube.ok("explain", "crd.spec.versions.schema.openAPIV3Schema.x-kubernetes-validations.reason", *V2)
    assert "FIELD:    reason <string>" in out and "Possible enum values" not in out


def test_explain_apiservice_spec_as_upstream_documents_it(kube: Kube) -> None:
    out = kube.ok("explain", "apiservice.spec")
    assert "FIELD: spec <APIServiceSpec>" in out
    assert "  groupPriorityMinimum\t<integer> -required-\n    GroupPriorityMinimum is the priority this group " \
        "should have at least." in out
    assert "  service\t<ServiceReference>\n    Service is a reference to the service for this API server." in out
    out = kube.ok("explain", "apiservice.status.conditions", *V2)
    assert "RESOURCE: conditions <[]Object>\n\nDESCRIPTION:\n     Current service state of apiService." in out
    assert "   type\t<string> -required-\n     Type is the type of the condition." in out


def test_openapi_documents_pods_binding_and_bindings(kube: Kube) -> None:
    """BindingREST's two paths, as 1.33's documents have them (their v2 path items are checked against upstream's
    in tests/reference_server/wire/test_openapi_routes.py)."""
    doc = kube.http.get(f"{kube.server.url}/openapi/v3/api/v1").json()
    pod = doc["paths"]["/api/v1/namespaces/{namespace}/pods/{name}/binding"]["post"]
    legacy = doc["paths"]["/api/v1/namespaces/{namespace}/bindings"]["post"]
    assert (pod["operationId"], legacy["operationId"]) == ("createCoreV1NamespacedPodBinding",
                                                           "createCoreV1NamespacedBinding")
    assert pod["requestBody"]["content"]["*/*"]["schema"] == {"$ref": "#/components/schemas/io.k8s.api.core.v1.Binding"}
    out = kube.ok("explain", "bindings")  # discovery's `bindings` resource, found by its kind in `api/v1`
    assert out.startswith("KIND:       Binding\nVERSION:    v1\n\nDESCRIPTION:\n    Binding ties one object to "
                          "another; for example, a pod is bound to a node by\n    a scheduler.")
    assert "  target\t<ObjectReference> -required-\n    The target object that you want to bind to the standard " \
        "object." in out


V3_PB = "application/com.github.proto-openapi.spec.v3.v1.0+protobuf"


def test_openapi_v3_hash_etag_and_not_modified(served: Kube) -> None:
    """handler3: the index's `?hash=` is the document's Etag; with it, `public, immutable` for a year; a stale hash
    is a 301 to the current one; `If-None-Match` a 304; gnostic's protobuf for its Accept (same Etag); an Accept
    naming only a form not served, 406."""
    http, url = served.http, served.server.url
    index = http.get(f"{url}/openapi/v3")
    assert index.status_code == 200 and index.headers["Content-Type"] == "application/json"
    assert http.get(f"{url}/openapi/v3", headers={"If-None-Match": index.headers["Etag"]}).status_code == 304
    paths = index.json()["paths"]
    assert {"api/v1", "apis/apps/v1", "apis/rbac.authorization.k8s.io/v1"} <= set(paths)
    relative = paths["apis/apps/v1"]["serverRelativeURL"]
    assert re.fullmatch(r"/openapi/v3/apis/apps/v1\?hash=[0-9A-F]{128}", relative)
    doc = http.get(url + relative)
    assert doc.status_code == 200 and doc.headers["Etag"] == '"' + relative.rsplit("=", 1)[1] + '"'
    assert doc.headers["Cache-Control"] == "public, immutable" and doc.headers["Vary"] == "Accept"
    assert re.fullmatch(r"\w{3}, \d\d \w{3} \d{4} \d\d:\d\d:\d\d UTC", doc.headers["Expires"])
    plain = http.get(f"{url}/openapi/v3/apis/apps/v1")
    # handler3 sets no Cache-Control without `?hash=`: the chain's WithCacheControl default stands
    assert plain.status_code == 200 and plain.headers["Cache-Control"] == "no-cache, private"
    assert plain.headers["Etag"] == doc.headers["Etag"] and plain.content == doc.content
    again = http.get(url + relative, headers={"If-None-Match": doc.headers["Etag"]})
    assert again.status_code == 304 and again.content == b""
    stale = http.get(f"{url}/openapi/v3/apis/apps/v1?hash=0123", allow_redirects=False)
    assert stale.status_code == 301 and stale.headers["Location"] == relative
    pb = http.get(url + relative, headers={"Accept": V3_PB})
    assert pb.status_code == 200 and pb.headers["Content-Type"] == V3_PB and pb.headers["Etag"] == doc.headers["Etag"]
    refused = http.get(url + relative, headers={"Accept": "application/yaml"})
    assert refused.status_code == 406 and refused.content == b""
