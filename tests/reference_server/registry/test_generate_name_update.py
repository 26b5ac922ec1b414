"""A generateName sent on update, as kube-apiserver 1.33 judges it: `rest.BeforeUpdate`'s `validateCommonFields`
(apiserver pkg/registry/rest/update.go) refuses one holding `/` or `%` for every kind (`path.ValidatePathSegmentName`
with `prefix` true), first in the 422; then the kinds whose `ValidateXUpdate` runs `ValidateObjectMeta` on the new
object (a ConfigMap's, a ServiceAccount's, a LimitRange's, a Role's, an IngressClass's...) judge it with their name
function (pkg/apis/*/validation; a Namespace's `ValidateNamespace` too), the kinds that run only
`ValidateObjectMetaUpdate` (an Endpoints', a Lease's, a Deployment's) store it as sent. `maskTrailingDash` (apimachinery api/validation/generic.go) is
upstream's: the trailing `-` and the byte before it become one `a`."""
from __future__ import annotations

import uuid
from typing import Any

import pytest
import requests

from conformance.reference_server.registry.validation import (generate_name_errors, mask_trailing_dash,
                                                               validate_object_meta)

from tests.reference_server.conftest import NamespaceFactory

SUBDOMAIN = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
             "start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
             r"'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")
LABEL = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and "
         "end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
         "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')")


def _put_generate_name(http: requests.Session, collection: str, body: dict[str, Any], gen: str) -> requests.Response:
    """Create `body` in `collection`, then PUT it back with `metadata.generateName` set to `gen`."""
    r = http.post(collection, json=body)
    assert r.status_code == 201, r.text
    obj = r.json()
    obj["metadata"]["generateName"] = gen
    return http.put(f"{collection}/{obj['metadata']['name']}", json=obj)


def _causes(r: requests.Response) -> list[tuple[str, str]]:
    assert r.status_code == 422, r.text
    return [(c["field"], c["message"]) for c in r.json()["details"]["causes"]]


@pytest.mark.parametrize("collection, body", [
    ("/api/v1/namespaces/{ns}/configmaps", {"metadata": {"name": "cm"}}),
    ("/api/v1/namespaces/{ns}/serviceaccounts", {"metadata": {"name": "sa"}}),
    ("/api/v1/namespaces/{ns}/limitranges", {"metadata": {"name": "lr"}, "spec": {"limits": []}}),
    ("/apis/apps/v1/namespaces/{ns}/controllerrevisions", {"metadata": {"name": "cr"}, "data": {}, "revision": 1}),
    ("/apis/discovery.k8s.io/v1/namespaces/{ns}/endpointslices",
     {"metadata": {"name": "es"}, "addressType": "IPv4", "endpoints": []}),
    ("/apis/batch/v1/namespaces/{ns}/jobs", {"metadata": {"name": "j"}, "spec": {"template": {"spec": {
        "containers": [{"name": "c", "image": "busybox"}], "restartPolicy": "Never"}}}}),
])
def test_a_kind_that_validates_its_object_again_refuses_a_bad_generate_name(
        http: requests.Session, url: str, namespaces: NamespaceFactory, collection: str, body: dict[str, Any]) -> None:
    """`ValidateConfigMapUpdate` and its like call `ValidateX(new)`: `NameIsDNSSubdomain(generateName, true)`."""
    ns = namespaces.create("gnu")["metadata"]["name"]
    r = _put_generate_name(http, url + collection.format(ns=ns), body, "Bad-")
    assert _causes(r) == [("metadata.generateName", f'Invalid value: "Bad-": {SUBDOMAIN}')]
    assert r.json()["message"].endswith(f' is invalid: metadata.generateName: Invalid value: "Bad-": {SUBDOMAIN}')


def test_the_common_path_segment_check_comes_first(http: requests.Session, url: str,
                                                   namespaces: NamespaceFactory) -> None:
    """`validateCommonFields` runs before the strategy's `ValidateUpdate`: its two path-segment causes, then the
    ConfigMap's own subdomain cause; the message lists the three."""
    ns = namespaces.create("gnu")["metadata"]["name"]
    r = _put_generate_name(http, f"{url}/api/v1/namespaces/{ns}/configmaps", {"metadata": {"name": "cm"}}, "a/%-")
    assert _causes(r) == [("metadata.generateName", """Invalid value: "a/%-": may not contain '/'"""),
                          ("metadata.generateName", """Invalid value: "a/%-": may not contain '%'"""),
                          ("metadata.generateName", f'Invalid value: "a/%-": {SUBDOMAIN}')]
    assert r.json()["message"] == (
        f'ConfigMap "cm" is invalid: [metadata.generateName: Invalid value: "a/%-": may not contain \'/\', '
        f'metadata.generateName: Invalid value: "a/%-": may not contain \'%\', '
        f'metadata.generateName: Invalid value: "a/%-": {SUBDOMAIN}]')


@pytest.mark.parametrize("collection, body", [
    ("/api/v1/namespaces/{ns}/endpoints", {"metadata": {"name": "ep"}}),
    ("/apis/coordination.k8s.io/v1/namespaces/{ns}/leases", {"metadata": {"name": "le"}}),
    ("/apis/networking.k8s.io/v1/namespaces/{ns}/networkpolicies",
     {"metadata": {"name": "np"}, "spec": {"podSelector": {}}}),
])
def test_a_kind_that_validates_only_the_metadata_update_stores_it(
        http: requests.Session, url: str, namespaces: NamespaceFactory, collection: str, body: dict[str, Any]) -> None:
    """`ValidateEndpointsUpdate`, `ValidateLeaseUpdate`, `ValidateNetworkPolicyUpdate`: `ValidateObjectMetaUpdate`
    only, so a generateName no DNS rule accepts is stored as sent, and one with `%` meets the common check alone."""
    ns = namespaces.create("gnu")["metadata"]["name"]
    r = _put_generate_name(http, url + collection.format(ns=ns), body, "Bad_-")
    assert r.status_code == 200, r.text
    assert r.json()["metadata"]["generateName"] == "Bad_-"
    second = {**body, "metadata": {"name": body["metadata"]["name"] + "2"}}
    r = _put_generate_name(http, url + collection.format(ns=ns), second, "Bad%")
    assert _causes(r) == [("metadata.generateName", """Invalid value: "Bad%": may not contain '%'""")]


def test_a_namespace_update_judges_it_with_the_label_rule(http: requests.Session, url: str,
                                                          namespaces: NamespaceFactory) -> None:
    """namespace strategy.go `ValidateUpdate` is `ValidateNamespace` (`ValidateObjectMeta` with
    `ValidateNamespaceName`, a DNS label) then `ValidateNamespaceUpdate`: a generateName no label rule accepts is
    refused (the path-segment check before it accepts it)."""
    name = namespaces.create("gnu")["metadata"]["name"]
    obj = http.get(f"{url}/api/v1/namespaces/{name}").json()
    obj["metadata"]["generateName"] = "Not.A.Label-"
    r = http.put(f"{url}/api/v1/namespaces/{name}", json=obj)
    assert _causes(r) == [("metadata.generateName", f'Invalid value: "Not.A.Label-": {LABEL}')]


def test_a_role_judges_it_as_a_whole_path_segment_name(http: requests.Session, url: str,
                                                       namespaces: NamespaceFactory) -> None:
    """`ValidateRoleUpdate` calls `ValidateRole`, whose `ValidateRBACName` is `IsValidPathSegmentName` whatever
    `prefix` says: `.` is refused (the common prefix check lets it pass), a name no DNS rule accepts is kept. The
    strategy runs `ValidateRole` then `ValidateRoleUpdate` (`ValidateRole` again): two causes, one in the message."""
    ns = namespaces.create("gnu")["metadata"]["name"]
    roles = f"{url}/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/roles"
    r = _put_generate_name(http, roles, {"metadata": {"name": "r1"}}, ".")
    assert _causes(r) == [("metadata.generateName", """Invalid value: ".": may not be '.'""")] * 2  # ValidateRole twice
    assert r.json()["message"] == ('Role.rbac.authorization.k8s.io "r1" is invalid: '
                                   """metadata.generateName: Invalid value: ".": may not be '.'""")
    r = _put_generate_name(http, roles, {"metadata": {"name": "r2"}}, "Bad_-")
    assert r.status_code == 200, r.text
    assert r.json()["metadata"]["generateName"] == "Bad_-"


def test_a_role_create_judges_the_generate_name_besides_the_generated_name(
        http: requests.Session, url: str, namespaces: NamespaceFactory) -> None:
    """`ValidateObjectMeta` checks a generateName whenever it is set, the name generated from it too."""
    ns = namespaces.create("gnu")["metadata"]["name"]
    roles = f"{url}/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/roles"
    r = http.post(roles, json={"metadata": {"generateName": "a%"}})
    assert [c[0] for c in _causes(r)] == ["metadata.generateName", "metadata.name"]


@pytest.mark.parametrize("prefix, masked", [("ab-", "aa"), ("a-", "a"), ("-", "-"), ("--", "a"), ("a.-", "aa"),
                                            ("abc", "abc"), ("", "")])
def test_mask_trailing_dash_as_upstream(prefix: str, masked: str) -> None:
    assert mask_trailing_dash(prefix) == masked


@pytest.mark.parametrize("prefix, rule, errors", [
    ("a.-", "subdomain", []),  # masked `aa`; the generated `a.-xxxxx` is the name's error
    ("..", "pathsegment", []),  # `IsValidPathSegmentPrefix`: `.` and `..` are whole names, not prefixes
    ("..", "path", ["may not be '..'"]),  # RBAC's name function ignores `prefix`
    ("a/%", "pathsegment", ["may not contain '/'", "may not contain '%'"]),
    ("a.b-", "label", ["must not contain dots"]),
])
def test_generate_name_rules(prefix: str, rule: str, errors: list[str]) -> None:
    assert generate_name_errors(prefix, rule) == errors


def test_a_create_judges_the_masked_prefix() -> None:
    """`a.-` passes as a prefix (masked `aa`); before, the server judged `a.` and refused the generateName."""
    meta = {"generateName": "a.-", "name": "a.-x7k2p", "namespace": "ns"}
    errs = validate_object_meta(meta, namespaced=True, name_rule="subdomain")
    assert [e.field for e in errs] == ["metadata.name"]


def test_a_volume_attachment_status_write_judges_it_too(http: requests.Session, url: str) -> None:
    """`volumeAttachmentStatusStrategy` keeps `volumeAttachmentStrategy.ValidateUpdate` (`ValidateVolumeAttachment`
    of the new object, then `ValidateVolumeAttachmentUpdate`, which runs it again: two causes, one in the message); a Service's `/status` (`ValidateServiceStatusUpdate`: `ValidateObjectMetaUpdate` only)
    stores the same generateName."""
    vas = f"{url}/apis/storage.k8s.io/v1/volumeattachments"
    name = f"va-{uuid.uuid4().hex[:8]}"
    r = http.post(vas, json={"metadata": {"name": name}, "spec": {
        "attacher": "csi.example.com", "nodeName": "n1", "source": {"persistentVolumeName": "pv1"}}})
    assert r.status_code == 201, r.text
    obj = r.json()
    obj["metadata"]["generateName"] = "Bad-"
    r = http.put(f"{vas}/{name}/status", json=obj)
    assert _causes(r) == [("metadata.generateName", f'Invalid value: "Bad-": {SUBDOMAIN}')] * 2  # ValidateX twice
    assert r.json()["message"].endswith(f'is invalid: metadata.generateName: Invalid value: "Bad-": {SUBDOMAIN}')
    http.delete(f"{vas}/{name}")


def test_a_status_write_of_a_kind_that_judges_updates_stores_it(http: requests.Session, url: str,
                                                                namespaces: NamespaceFactory) -> None:
    ns = namespaces.create("gnu")["metadata"]["name"]
    services = f"{url}/api/v1/namespaces/{ns}/services"
    r = http.post(services, json={"metadata": {"name": "s"}, "spec": {"ports": [{"port": 80}]}})
    assert r.status_code == 201, r.text
    obj = r.json()
    obj["metadata"]["generateName"] = "Bad-"
    r = http.put(f"{services}/s/status", json=obj)
    assert r.status_code == 200, r.text
    assert r.json()["metadata"]["generateName"] == "Bad-"
