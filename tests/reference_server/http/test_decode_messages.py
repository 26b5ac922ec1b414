"""A request body that does not decode, answered in kube-apiserver 1.33's words (http/decode.py).

- `apiVersion` or `kind` that is no string: apimachinery runtime/serializer/json/meta.go
  `SimpleMetaFactory.Interpret` (encoding/json into an anonymous struct, wire/gometa.py): the JSON type and the
  field named, the first in the order the decoder meets them (a YAML body's keys sorted by `YAMLToJSON`), keys
  matched case-insensitively; create.go `transformDecodeError` makes it the 400 `the object provided is
  unrecognized`. Before: `json: cannot unmarshal into Go struct field .kind of type string` whatever the type
  and the field.
- a field of a named Go type (`types.UID`, `v1.Protocol`): encoding/json names `reflect.Type.String()`. Before:
  `of type string`.
- a YAML body that does not read: sigs.k8s.io/yaml v1.4.0 `YAMLToJSON` returns go-yaml v2's error as it is
  (`yaml: line 2: mapping values are not allowed in this context`: goyaml.v2/decode.go `(*parser).fail`), the
  JSON serializer's `Decode` returns it, `transformDecodeError` answers the 400; a server-side apply's
  configuration is read by `yaml.Unmarshal`, which wraps it (`error converting YAML to JSON: %w`), and
  `applyPatcher` answers `NewBadRequest("error decoding YAML: ...")`. Before: PyYAML's words, after
  `couldn't get version/kind; json parse error: `.
"""
from __future__ import annotations

import json

import pytest

from .badbody import JSON, YAML, bad_request

STRUCT = 'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }'


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


def test_an_api_version_of_two_slashes_is_parse_group_version_s_error(http, url, cms):
    """meta.go `Interpret`: `schema.ParseGroupVersion`'s error, returned as it is. Before: `the API version in the
    data (a/b/c) does not match the expected API version (v1)`."""
    body = b'{"apiVersion":"a/b/c","kind":"ConfigMap"}'
    r = http.post(cms, data=body, headers=JSON)
    assert (r.status_code, r.json()) == (400, unrecognized("ConfigMap", "unexpected GroupVersion string: a/b/c", body))
    deployments = cms.replace("/api/v1/", "/apis/apps/v1/").replace("/configmaps", "/deployments")
    r = http.post(deployments, data=b"apiVersion: apps/v1/x\n", headers=YAML)
    assert r.json() == unrecognized("Deployment", "unexpected GroupVersion string: apps/v1/x", b"apiVersion: apps/v1/x\n")


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


# ---- a YAML body that does not read ----------------------------------------------------------------------
APPLY = {"Content-Type": "application/apply-patch+yaml"}


@pytest.mark.parametrize("body,error", [
    # a scanner error's line is its mark's plus one
    (b"apiVersion: v1\nkind: ConfigMap\n metadata: x\n", "yaml: line 3: mapping values are not allowed in this context"),
    (b"kind: ConfigMap\ndata:\n\tk: v\n", "yaml: line 3: found character that cannot start any token"),  # a tab
    (b"kind: ConfigMap\ndata:\n  k: 'v\n", "yaml: line 4: found unexpected end of stream"),  # an open quote
    (b'kind: ConfigMap\ndata: {k: "v}\n', "yaml: line 3: found unexpected end of stream"),
    (b"data:\n  k: @v\n", "yaml: line 2: found character that cannot start any token"),
    # on the first line, no line at all
    (b"kind: ConfigMap: x\n", "yaml: mapping values are not allowed in this context"),
    (b"kind: `x`\n", "yaml: found character that cannot start any token"),
    # a parser error's line is its mark's, 0-based (one less than an editor's)
    (b"metadata:\n  name: a\n labels: x\n", "yaml: line 2: did not find expected key"),
    (b"data:\n  - a\n b: c\n", "yaml: line 2: did not find expected key"),
    (b"data: [a, b\nkind: x\n", "yaml: line 1: did not find expected ',' or ']'"),
    (b"data: {a: b\n", "yaml: line 1: did not find expected ',' or '}'"),
    (b"- a\nb: c\n", "yaml: line 1: did not find expected '-' indicator"),
    # go-yaml's decoder
    (b"data: *x\n", "yaml: unknown anchor 'x' referenced"),
    (b"data: &x {a: *x}\n", "yaml: anchor 'x' value contains itself"),
    (b"data: {[a, 1]: b}\n", 'yaml: invalid map key: []interface {}{"a", 1}'),
    (b"data: !!binary x\n", "yaml: !!binary value contains invalid base64 data"),
    (b"data: {a: \x01}\n", "yaml: control characters are not allowed"),  # the reader's: no mark
])
def test_a_yaml_body_s_syntax_error_is_go_yaml_s(http, cms, body, error):
    r = http.post(cms, data=body, headers=YAML)
    assert (r.status_code, r.json()) == (400, unrecognized("ConfigMap", error, body))
    r = http.patch(f"{cms}/a", data=body, headers=APPLY, params={"fieldManager": "m"})
    assert (r.status_code, r.json()) == (400, bad_request(f"error decoding YAML: error converting YAML to JSON: {error}"))


def test_a_yaml_body_s_invalid_utf8_is_go_yaml_s_reader_error_as_yaml_to_json_returns_it(http, cms):
    body = b"kind: ConfigMap\ndata: {a: \xff}\n"
    r = http.post(cms, data=body, headers=YAML)
    assert (r.status_code, r.json()) == (400, unrecognized("ConfigMap", "yaml: invalid leading UTF-8 octet", body))


def test_go_yaml_reads_the_first_document_only(http, cms):
    """go-yaml v2 `unmarshal`: `p.parse()` once; a second document, even one that does not read, is never read."""
    body = b"metadata: {name: first}\ndata: {a: !foo b}\n---\n: : : [\n"
    r = http.post(cms, data=body, headers=YAML)
    assert r.status_code == 201, r.text
    assert r.json()["data"] == {"a": "b"}  # a tag go-yaml does not resolve is ignored


# ---- a patch whose result's apiVersion or kind is no string -----------------------------------------------
def _invalid_patch(shown: str, why: str) -> dict:
    """handlers/patch.go: `NewInvalid(schema.GroupKind{}, "", field.Invalid(field.NewPath("patch"), ...))`."""
    message = f"Invalid value: {json.dumps(shown)}: {why}"
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": f' "" is invalid: patch: {message}', "reason": "Invalid",
            "details": {"causes": [{"reason": "FieldValueInvalid", "message": message, "field": "patch"}]},
            "code": 422}


@pytest.mark.parametrize("ctype,patch", [
    ("application/merge-patch+json", {"kind": 5, "apiVersion": True}),
    ("application/json-patch+json", [{"op": "replace", "path": "/kind", "value": 5},
                                     {"op": "replace", "path": "/apiVersion", "value": True}]),
])
def test_a_json_or_merge_patch_s_result_is_read_by_interpret_first(http, cms, ctype, patch):
    """jsonPatcher: `runtime.DecodeInto(p.codec, patchedObjJS, objToUpdate)` reads the patched JSON (evanphx's,
    its top level a Go map: keys sorted, so `apiVersion` is met first) with `SimpleMetaFactory.Interpret`."""
    created = http.post(cms, json={"metadata": {"name": "p"}}).json()
    r = http.patch(f"{cms}/p", data=json.dumps(patch), headers={"Content-Type": ctype})
    meta = {k: created["metadata"][k] for k in ("name", "namespace", "uid", "resourceVersion", "creationTimestamp")}
    shown = json.dumps({"apiVersion": True, "kind": 5, "metadata": meta}, separators=(",", ":"))
    assert (r.status_code, r.json()) == (422, _invalid_patch(shown, _interpret("bool", "apiVersion")))
    assert http.get(f"{cms}/p").json()["kind"] == "ConfigMap"


@pytest.mark.parametrize("patch,why", [
    ({"apiVersion": True, "kind": 5}, "cannot convert int64 to string"),  # TypeMeta: Kind first
    ({"apiVersion": True}, "unrecognized type: string"),
])
def test_a_strategic_patch_s_result_is_refused_by_the_converter(http, cms, patch, why):
    """smpPatcher: `FromUnstructuredWithValidation` of the patched map into the versioned kind, its inlined
    `TypeMeta` first; the 422 shows the patch map `%+v`."""
    http.post(cms, json={"metadata": {"name": "p"}})
    r = http.patch(f"{cms}/p", json=patch, headers={"Content-Type": "application/strategic-merge-patch+json"})
    shown = "map[" + " ".join(f"{k}:{str(v).lower()}" for k, v in sorted(patch.items())) + "]"
    assert (r.status_code, r.json()) == (422, _invalid_patch(shown, why))


# ---- null, an empty YAML body ------------------------------------------------------------------------------
@pytest.mark.parametrize("body,headers", [(b"null", JSON), (b"", YAML), (b"# nothing\n", YAML), (b"~\n", YAML)])
def test_null_decodes_to_the_zero_object_as_an_empty_one(http, cms, body, headers):
    """`Interpret` reads `null` without error, and `kjson.UnmarshalStrict` of `null` into the typed object leaves
    it as it was (an empty YAML body is `YAMLToJSON`'s `null`: go-yaml reads no document): the create goes on as
    `{}` does, to the validation's 422. Before: a 400 `cannot unmarshal null into Go value of type struct`, and
    `empty body` for an empty YAML body."""
    r = http.post(cms, data=body, headers=headers)
    expected = http.post(cms, data=b"{}", headers=JSON)
    assert (r.status_code, r.json()) == (422, expected.json()), r.text
    assert "metadata.name: Required value" in r.json()["message"]


def test_an_eviction_s_null_is_the_zero_eviction(http, cms):
    pods = cms.rsplit("/", 1)[0] + "/pods"
    r = http.post(f"{pods}/p/eviction", data=b"null", headers=JSON)
    assert (r.status_code, r.json()) == (400, bad_request("name in URL does not match name in Eviction object"))


def test_the_strict_reading_of_the_first_document_names_its_repeats(http, cms):
    """json.go `unmarshal`: `yaml.YAMLToJSONStrict(originalData)`, goyaml.v2's UnmarshalStrict of the first
    document, whatever follows it. Before: PyYAML's `expected a single document in the stream`."""
    body = b"metadata: {name: r}\ndata: {a: '1', a: '2'}\n---\nb: 1\n"
    r = http.post(cms, data=body, headers=YAML, params={"fieldValidation": "Strict"})
    assert (r.status_code, r.json()) == (400, bad_request(
        'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: yaml: unmarshal errors:\n'
        '  line 2: key "a" already set in map'))
