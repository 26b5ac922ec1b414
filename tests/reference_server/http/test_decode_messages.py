"""A request body that does not decode, answered in kube-apiserver 1.33's words (http/decode.py).

- `apiVersion` or `kind` that is no string: apimachinery runtime/serializer/json/meta.go
  `SimpleMetaFactory.Interpret` (encoding/json into an anonymous struct, wire/gometa.py): the JSON type and the
  field named, the first in the order the decoder meets them (a YAML body's keys sorted by `YAMLToJSON`), keys
  matched case-insensitively; create.go `transformDecodeError` makes it the 400 `the object provided is
  unrecognized`. Before: `json: cannot unmarshal into Go struct field .kind of type string` whatever the type
  and the field.
"""
from __future__ import annotations

import pytest

JSON = {"Content-Type": "application/json"}
YAML = {"Content-Type": "application/yaml"}
STRUCT = 'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }'


def bad_request(message: str) -> dict:
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": message,
            "reason": "BadRequest", "code": 400}


def unrecognized(kind: str, err: str, body: bytes) -> dict:
    """create.go `transformDecodeError` without a kind read: the body summarized (`summarizeData`, 30 bytes)."""
    shown = (body[:30].decode() if body[:1] == b"{" else body[:30].hex()) + (" ..." if len(body) > 30 else "")
    return bad_request(f"the object provided is unrecognized (must be of type {kind}): {err} ({shown})")


def _interpret(value: str, field: str) -> str:
    return f"couldn't get version/kind; json parse error: json: cannot unmarshal {value} into Go struct field " \
           f".{field} of type string"


@pytest.fixture
def cms(url, namespaces):
    return f"{url}/api/v1/namespaces/{namespaces.create()['metadata']['name']}/configmaps"


@pytest.mark.parametrize("body,value,field", [
    (b'{"kind":5,"apiVersion":"v1"}', "number", "kind"),
    (b'{"apiVersion":{"a":1},"kind":true}', "object", "apiVersion"),  # the first one met
    (b'{"kind":true}', "bool", "kind"),
    (b'{"apiVersion":["v1"]}', "array", "apiVersion"),
    (b'{"KIND":1.5}', "number", "kind"),  # encoding/json matches keys case-insensitively
    (b'{"kind":5,"kind":"ConfigMap"}', "number", "kind"),  # each repeat decoded: the first error kept
    (b'{"kind":null,"apiVersion":7}', "number", "apiVersion"),  # null leaves the string as it was
])
def test_a_json_body_s_kind_or_version_of_another_type(http, cms, body, value, field):
    r = http.post(cms, data=body, headers=JSON)
    assert (r.status_code, r.json()) == (400, unrecognized("ConfigMap", _interpret(value, field), body))


def test_a_yaml_body_s_are_read_after_yaml_to_json_sorted_its_keys(http, cms):
    body = b"kind: 5\napiVersion: [v1]\n"
    r = http.post(cms, data=body, headers=YAML)
    assert (r.status_code, r.json()) == (400, unrecognized("ConfigMap", _interpret("array", "apiVersion"), body))


def test_a_namespace_and_an_update_likewise(http, url, namespaces):
    r = http.post(f"{url}/api/v1/namespaces", data=b'{"apiVersion":false}', headers=JSON)
    assert r.json() == unrecognized("Namespace", _interpret("bool", "apiVersion"), b'{"apiVersion":false}')
    name = namespaces.create()["metadata"]["name"]
    r = http.put(f"{url}/api/v1/namespaces/{name}", data=b'{"kind":{}}', headers=JSON)
    assert r.json() == unrecognized("Namespace", _interpret("object", "kind"), b'{"kind":{}}')


def test_a_named_group_s_kind_likewise(http, url, namespaces):
    ns = namespaces.create()["metadata"]["name"]
    r = http.post(f"{url}/apis/apps/v1/namespaces/{ns}/deployments", data=b'{"apiVersion":1}', headers=JSON)
    assert r.json() == unrecognized("Deployment", _interpret("number", "apiVersion"), b'{"apiVersion":1}')


def test_a_body_that_is_no_object(http, cms):
    r = http.post(cms, data=b'"x"', headers=JSON)
    assert r.json() == unrecognized("ConfigMap", "couldn't get version/kind; json parse error: json: cannot "
                                    f"unmarshal string into Go value of type {STRUCT}", b'"x"')


# ---- a named Go type's name -------------------------------------------------------------------------------
def _cannot(kind: str, value: str, field: str, go_type: str) -> dict:
    return bad_request(f'{kind} in version "v1" cannot be handled as a {kind}: json: cannot unmarshal {value} '
                       f"into Go struct field {field} of type {go_type}")


@pytest.mark.parametrize("path,body,expected", [
    # encoding/json's UnmarshalTypeError names the field's Go type by `reflect.Type.String()`: a named string
    # type by its package and name (apimachinery pkg/types/uid.go `type UID string`)
    ("/api/v1/namespaces/{ns}/configmaps", {"metadata": {"name": "u", "uid": 5}},
     _cannot("ConfigMap", "number", "ObjectMeta.metadata.uid", "types.UID")),
    ("/api/v1/namespaces", {"metadata": {"name": "u", "uid": True}},
     _cannot("Namespace", "bool", "ObjectMeta.metadata.uid", "types.UID")),
    ("/api/v1/namespaces/{ns}/configmaps", {"metadata": {"name": "u", "ownerReferences": [{"uid": []}]}},
     _cannot("ConfigMap", "array", "OwnerReference.metadata.ownerReferences.uid", "types.UID")),
    ("/api/v1/namespaces/{ns}/services", {"metadata": {"name": "u"}, "spec": {"ports": [{"protocol": 6}]}},
     _cannot("Service", "number", "ServicePort.spec.ports.protocol", "v1.Protocol")),
    ("/api/v1/namespaces/{ns}/pods", {"metadata": {"name": "u"}, "spec": {"restartPolicy": {}}},
     _cannot("Pod", "object", "PodSpec.spec.restartPolicy", "v1.RestartPolicy")),
    ("/api/v1/namespaces/{ns}/events", {"metadata": {"name": "u"}, "involvedObject": {"uid": 1}},
     _cannot("Event", "number", "ObjectReference.involvedObject.uid", "types.UID")),
    ("/apis/apps/v1/namespaces/{ns}/deployments", {"metadata": {"name": "u"}, "spec": {"strategy": {"type": 1}}},
     _cannot("Deployment", "number", "DeploymentStrategy.spec.strategy.type", "v1.DeploymentStrategyType")),
])
def test_a_named_type_s_field_names_its_go_type(http, url, namespaces, path, body, expected):
    ns = namespaces.create()["metadata"]["name"]
    r = http.post(url + path.format(ns=ns), json=body)
    assert (r.status_code, r.json()) == (400, expected)
