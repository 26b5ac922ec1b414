"""A body that repeats a key: kube-apiserver's strict decoders name it (sigs.k8s.io/json `duplicate field "a.b"`,
go-yaml's `line N: key "a" already set in map`), a 400 under `fieldValidation=Strict`, a warning under `Warn`
(the default), nothing under `Ignore`; a patch's own repeats before its result's unknown fields (patch.go)."""
from __future__ import annotations

import json

import pytest

from .conftest import status_of
from .crds import create_crd, schemaless_crd
from .kubectl_run import run_kubectl

STRICT = {"fieldValidation": "Strict"}
JSON_BODY = {"Content-Type": "application/json"}
YAML_BODY = {"Content-Type": "application/yaml"}


def warnings_of(r) -> list[str]:
    """The texts of the response's `299` Warning headers (quotes unescaped)."""
    out = []
    for part in r.headers.get("Warning", "").split('299 - "')[1:]:
        out.append(part.rstrip(", ").removesuffix('"').replace('\\"', '"'))
    return out


# {"metadata":{"name":..,"name":..}, "data":{"a":..,"a":..}, "dataz":.., "data":{...}}: in the decoder's order
CM_BODY = ('{"metadata":{"name":"%s","name":"%s"},"data":{"a":"1","a":"2"},"dataz":{"x":1,"x":2},"dataz":1,'
           '"data":{"b":"3"}}')
CM_ERRORS = ['duplicate field "metadata.name"', 'duplicate field "data.a"', 'unknown field "dataz"',
             'duplicate field "data"']


def test_create_strict_names_repeats_among_unknown_fields(http, url, namespaces):
    """A typed kind: a repeated known field in the order met, an unknown field once however often it is given
    and what it holds unread (`dataz`'s own repeat is not named)."""
    ns = namespaces.create()["metadata"]["name"]
    base = f"{url}/api/v1/namespaces/{ns}/configmaps"
    st = status_of(http.post(base, params=STRICT, data=CM_BODY % ("c", "c"), headers=JSON_BODY))
    assert st["code"] == 400 and st["reason"] == "BadRequest"
    assert st["message"] == ('ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: '
                             + ", ".join(CM_ERRORS))
    # PUT goes through the same decoder (update.go)
    assert http.post(base, json={"metadata": {"name": "u"}}).status_code == 201
    st = status_of(http.put(f"{base}/u", params=STRICT, data=CM_BODY % ("u", "u"), headers=JSON_BODY))
    assert st["code"] == 400 and st["message"].endswith("strict decoding error: " + ", ".join(CM_ERRORS))


def test_create_warn_and_ignore(http, url, namespaces):
    ns = namespaces.create()["metadata"]["name"]
    base = f"{url}/api/v1/namespaces/{ns}/configmaps"
    r = http.post(base, data=CM_BODY % ("w", "w"), headers=JSON_BODY)  # Warn: the default
    assert r.status_code == 201, r.text
    assert warnings_of(r) == CM_ERRORS
    assert r.json()["data"] == {"a": "2", "b": "3"}  # the second `data` decoded into the first map, as Go's
    r = http.post(base, params={"fieldValidation": "Ignore"}, data=CM_BODY % ("i", "i"), headers=JSON_BODY)
    assert r.status_code == 201 and "Warning" not in r.headers
    assert r.json()["data"] == {"a": "2", "b": "3"} and "dataz" not in r.json()
    r = http.post(base, params=STRICT, data='{"metadata":{"name":"n"},"data":{"a":"1","b":"2"}}', headers=JSON_BODY)
    assert r.status_code == 201 and "Warning" not in r.headers


def test_nested_paths_lists_and_maps(http, url, namespaces):
    """Paths as the decoder joins them: `.` between keys, `[i]` for a list item; a repeated struct is read both
    times (an unknown field inside either is named); a map's keys (labels) are checked, a RawExtension's are not."""
    ns = namespaces.create()["metadata"]["name"]
    body = ('{"metadata":{"name":"p","labels":{"a":"1","a":"1"}},"spec":{"containers":[{"name":"c","image":"i",'
            '"image":"j","bogus":1}],"containers":[{"name":"c","image":"i","bogus2":1}]}}')
    st = status_of(http.post(f"{url}/api/v1/namespaces/{ns}/pods", params=STRICT, data=body, headers=JSON_BODY))
    assert st["message"] == ('Pod in version "v1" cannot be handled as a Pod: strict decoding error: '
                             'duplicate field "metadata.labels.a", duplicate field "spec.containers[0].image", '
                             'unknown field "spec.containers[0].bogus", duplicate field "spec.containers", '
                             'unknown field "spec.containers[0].bogus2"')
    # Go's decoder reads a repeated struct into the first one, a list's items into the first list's
    body = ('{"metadata":{"name":"p2"},"spec":{"containers":[{"name":"c","image":"i","command":["a"]},{"name":"d",'
            '"image":"i"}],"restartPolicy":"Never","containers":[{"name":"c","image":"j"}]},"spec":{"hostname":"h"}}')
    r = http.post(f"{url}/api/v1/namespaces/{ns}/pods", data=body, headers=JSON_BODY)
    assert r.status_code == 201, r.text
    assert warnings_of(r) == ['duplicate field "spec.containers"', 'duplicate field "spec"']
    spec = r.json()["spec"]
    assert [(c["name"], c["image"], c.get("command")) for c in spec["containers"]] == [("c", "j", ["a"])]
    assert spec["restartPolicy"] == "Never" and spec["hostname"] == "h"
    # a third, longer `containers` decodes its second item into the one the first left in the array (decode.go
    # `array`: the second cut it to one item, keeping the rest in its capacity): `d` keeps its image
    body = ('{"metadata":{"name":"p3"},"spec":{"containers":[{"name":"c","image":"i"},{"name":"d","image":"k"}],'
            '"containers":[{"name":"c","image":"j"}],"containers":[{"name":"c"},{"name":"e"}]}}')
    r = http.post(f"{url}/api/v1/namespaces/{ns}/pods", data=body, headers=JSON_BODY)
    assert r.status_code == 201, r.text
    assert [(c["name"], c["image"]) for c in r.json()["spec"]["containers"]] == [("c", "j"), ("e", "k")]
    # a named group's kind; ControllerRevision `data` (a RawExtension) is kept unread
    base = f"{url}/apis/apps/v1/namespaces/{ns}/controllerrevisions"
    r = http.post(base, params=STRICT, data='{"metadata":{"name":"r"},"revision":1,"data":{"k":1,"k":2}}',
                  headers=JSON_BODY)
    assert r.status_code == 201, r.text
    r = http.post(base, data='{"metadata":{"name":"r1"},"revision":1,"data":{"k":1,"j":3},"data":{"k":2}}',
                  headers=JSON_BODY)
    assert r.status_code == 201, r.text
    assert warnings_of(r) == ['duplicate field "data"']
    assert r.json()["data"] == {"k": 2}  # (its bytes replaced: `RawExtension.UnmarshalJSON`)
    r = http.post(base, data='{"metadata":{"name":"r3"},"metadata":{"labels":{"a":"b"}},"revision":1,"data":'
                  '{"n":1e2}}', headers=JSON_BODY)
    assert r.status_code == 201, r.text
    assert r.json()["metadata"]["name"] == "r3" and r.json()["metadata"]["labels"] == {"a": "b"}
    assert '"data":{"n":1e2}' in r.text  # (a RawExtension's numbers as sent, as without a repeat)
    st = status_of(http.post(base, params=STRICT, data='{"metadata":{"name":"r2"},"revision":1,"revision":2}',
                             headers=JSON_BODY))
    assert st["message"] == ('ControllerRevision in version "v1" cannot be handled as a ControllerRevision: '
                             'strict decoding error: duplicate field "revision"')


def test_yaml_body(http, url, namespaces):
    """A YAML body: go-yaml's strict error first (`YAMLToJSONStrict`, the repeated value's line), then the JSON
    decoder's; a warning per line of go-yaml's error."""
    ns = namespaces.create()["metadata"]["name"]
    base = f"{url}/api/v1/namespaces/{ns}/configmaps"
    body = "metadata:\n  name: yml\ndata:\n  a: '1'\n  a: '2'\n  b:\n    '3'\ndataz: 1\ndata:\n  c: '4'\n"
    st = status_of(http.post(base, params=STRICT, data=body, headers=YAML_BODY))
    assert st["code"] == 400
    assert st["message"] == ('ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: '
                             'yaml: unmarshal errors:\n  line 5: key "a" already set in map\n'
                             '  line 10: key "data" already set in map, unknown field "dataz"')
    r = http.post(base, data=body, headers=YAML_BODY)
    assert r.status_code == 201, r.text
    assert warnings_of(r) == ['line 5: key "a" already set in map', 'line 10: key "data" already set in map',
                              'unknown field "dataz"']
    assert r.json()["data"] == {"c": "4"}  # (the last `data`: go-yaml's non-strict decoder keeps the last)
    # go-yaml compares keys as it resolves them: `1` and "1" are two keys (no strict error of go-yaml's)
    r = http.post(base, params=STRICT, data="metadata:\n  name: yml2\n  labels:\n    1: a\n    '1': b\n",
                  headers=YAML_BODY)
    assert r.status_code == 201, r.text


def test_custom_resource_repeats_before_unknown_fields(http, url, namespaces):
    """A custom resource is read into a map: every repeat is named, inside any field, before the unknown fields
    its schema prunes (customresource_handler.go `schemaCoercingDecoder`)."""
    ns = namespaces.create()["metadata"]["name"]
    r = create_crd(http, url, schemaless_crd("dup.example.com", "dupthings", "DupThing"))
    assert r.status_code in (201, 409), r.text
    base = f"{url}/apis/dup.example.com/v1/namespaces/{ns}/dupthings"
    body = '{"apiVersion":"dup.example.com/v1","kind":"DupThing","metadata":{"name":"t","bogus":1},"spec":{"a":{"b":1,"b":2},"a":3},"x":[{"y":1,"y":2}]}'
    st = status_of(http.post(base, params=STRICT, data=body, headers=JSON_BODY))
    assert st["code"] == 400
    assert st["message"].endswith('strict decoding error: duplicate field "spec.a.b", duplicate field "spec.a", '
                                  'duplicate field "x[0].y", unknown field "metadata.bogus"'), st["message"]
    r = http.post(base, data=body, headers=JSON_BODY)
    assert r.status_code == 201, r.text
    assert warnings_of(r)[:3] == ['duplicate field "spec.a.b"', 'duplicate field "spec.a"', 'duplicate field "x[0].y"']


@pytest.mark.parametrize("ctype", ["application/merge-patch+json", "application/strategic-merge-patch+json"])
def test_merge_patches(http, url, namespaces, ctype):
    """patch.go: the patch read into a map (`kjson.UnmarshalStrict`) names its repeats, then the patched object
    its unknown fields: 422 on field `patch`."""
    ns = namespaces.create()["metadata"]["name"]
    base = f"{url}/api/v1/namespaces/{ns}/configmaps"
    assert http.post(base, json={"metadata": {"name": "m"}}).status_code == 201
    body = '{"data":{"a":"1","a":"2"},"dataz":1,"dataz":2}'
    r = http.patch(f"{base}/m", params=STRICT, data=body, headers={"Content-Type": ctype})
    assert r.status_code == 422, r.text
    st = r.json()
    assert st["details"]["causes"][0]["field"] == "patch"
    assert st["message"].endswith('": strict decoding error: duplicate field "data.a", duplicate field "dataz", '
                                  'unknown field "dataz"'), st["message"]
    r = http.patch(f"{base}/m", data=body, headers={"Content-Type": ctype})
    assert r.status_code == 200, r.text
    assert warnings_of(r) == ['duplicate field "data.a"', 'duplicate field "dataz"', 'unknown field "dataz"']
    assert r.json()["data"] == {"a": "2"}
    r = http.patch(f"{base}/m", params=STRICT, data='{"data":{"b":"1"}}', headers={"Content-Type": ctype})
    assert r.status_code == 200 and "Warning" not in r.headers


def test_json_patch_operations(http, url, namespaces):
    """A JSON patch's operations are read into `jsonPatchOp` (patch.go `applyJSPatch`): `json patch ` before
    each of their strict errors, an unknown field of an operation too."""
    ns = namespaces.create()["metadata"]["name"]
    base = f"{url}/api/v1/namespaces/{ns}/configmaps"
    assert http.post(base, json={"metadata": {"name": "j"}, "data": {"a": "1"}}).status_code == 201
    body = ('[{"op":"add","path":"/data/b","value":"2","op":"add","opx":1},'
            '{"op":"add","path":"/metadata/labels","value":{"k":"v","k":"w"}}]')
    r = http.patch(f"{base}/j", params=STRICT, data=body, headers={"Content-Type": "application/json-patch+json"})
    assert r.status_code == 422, r.text
    assert r.json()["message"].endswith('": strict decoding error: json patch duplicate field "[0].op", '
                                        'json patch unknown field "[0].opx", '
                                        'json patch duplicate field "[1].value.k"'), r.json()["message"]
    r = http.patch(f"{base}/j", data=body, headers={"Content-Type": "application/json-patch+json"})
    assert r.status_code == 200, r.text
    assert warnings_of(r) == ['json patch duplicate field "[0].op"', 'json patch unknown field "[0].opx"',
                              'json patch duplicate field "[1].value.k"']
    assert r.json()["metadata"]["labels"] == {"k": "w"}


def test_apply_patch(http, url, namespaces):
    """Server-side apply (`applyPatcher`): once merged, the configuration is read again by
    `yaml.UnmarshalStrict`: a 400 `error strict decoding YAML: ...` under Strict, go-yaml's lines as warnings."""
    ns = namespaces.create()["metadata"]["name"]
    path = f"{url}/api/v1/namespaces/{ns}/configmaps/a"
    apply = {"Content-Type": "application/apply-patch+yaml"}
    body = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: '1'\n  k: '2'\n"
    st = status_of(http.patch(path, params={**STRICT, "fieldManager": "m"}, data=body, headers=apply))
    assert st["code"] == 400
    assert st["message"] == ('error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n'
                             '  line 7: key "k" already set in map')
    assert http.get(path).status_code == 404
    r = http.patch(path, params={"fieldManager": "m"}, data=body, headers=apply)
    assert r.status_code == 201, r.text
    assert warnings_of(r) == ['line 7: key "k" already set in map']
    assert r.json()["data"] == {"k": "2"}
    # JSON is YAML: one line
    r = http.patch(path, params={"fieldManager": "m"}, data='{"apiVersion":"v1","kind":"ConfigMap",'
                   '"metadata":{"name":"a"},"data":{"k":"3","k":"4"}}', headers=apply)
    assert r.status_code == 200 and warnings_of(r) == ['line 1: key "k" already set in map']


def test_kubectl_prints_the_warnings(http, url, namespaces, tmp_path):
    """kubectl (`create --raw` sends the file's bytes) prints each warning of the default `Warn`."""
    ns = namespaces.create()["metadata"]["name"]
    manifest = tmp_path / "cm.json"
    manifest.write_text('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"k"},"data":{"a":"1","a":"2"}}')
    proc = run_kubectl(url, tmp_path, "create", "--raw", f"/api/v1/namespaces/{ns}/configmaps", "-f", str(manifest))
    assert proc.returncode == 0, proc.stderr
    assert 'Warning: duplicate field "data.a"' in proc.stderr, proc.stderr
    assert json.loads(http.get(f"{url}/api/v1/namespaces/{ns}/configmaps/k").text)["data"] == {"a": "2"}


def test_patch_read_strictly_first(http, url, namespaces):
    """Under Strict and Warn (the default) patch.go reads a JSON patch into `[]jsonPatchOp` and a merge patch into
    a map before applying them: their type errors are a 400 `error decoding patch: ...`, in Go's words; a
    strategic one's are the decoder's own words in every mode."""
    ns = namespaces.create()["metadata"]["name"]
    path = f"{url}/api/v1/namespaces/{ns}/configmaps/c"
    assert http.post(f"{url}/api/v1/namespaces/{ns}/configmaps", json={"metadata": {"name": "c"}}).status_code == 201
    cases = [("application/json-patch+json", "[1]", "error decoding patch: json: cannot unmarshal number into Go "
              "value of type handlers.jsonPatchOp"),
             ("application/json-patch+json", '{"op":"add"}', "error decoding patch: json: cannot unmarshal object "
              "into Go value of type []handlers.jsonPatchOp"),
             ("application/json-patch+json", '[{"op":"add","path":true}]', "error decoding patch: json: cannot "
              "unmarshal bool into Go struct field jsonPatchOp.path of type string"),
             ("application/merge-patch+json", '["a"]', "error decoding patch: json: cannot unmarshal array into Go "
              "value of type map[string]interface {}"),
             ("application/strategic-merge-patch+json", '"a"', "json: cannot unmarshal string into Go value of type "
              "map[string]interface {}")]
    for ctype, body, message in cases:
        st = status_of(http.patch(path, data=body, headers={"Content-Type": ctype}))
        assert (st["code"], st["message"]) == (400, message), (ctype, body)
    # (the object is read first: a missing one is a 404)
    st = status_of(http.patch(f"{path}-none", data="[1]", headers={"Content-Type": "application/json-patch+json"}))
    assert st["code"] == 404


def test_crd_body_by_its_go_types(http, url):
    """A CRD body (apiextensions' Go types, outside the field model): its repeats and unknown fields in the order
    met, nothing checked inside a custom `UnmarshalJSON` (`JSON`: a schema's `default`) or an unknown field."""
    crd = ('{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":'
           '"dupcrds.dup.example.com"},"spec":{"group":"dup.example.com","group":"dup.example.com","bogus":{"a":1,'
           '"a":2},"scope":"Namespaced","names":{"plural":"dupcrds","kind":"DupCrd","kind":"DupCrd"},"versions":'
           '[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":'
           '{"spec":{"type":"object","default":{"x":1,"x":2}},"spec":{"type":"object"}}}}}]}}')
    st = status_of(http.post(f"{url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions", params=STRICT,
                             data=crd, headers=JSON_BODY))
    assert st["code"] == 400
    assert st["message"] == (
        'CustomResourceDefinition in version "v1" cannot be handled as a CustomResourceDefinition: strict decoding '
        'error: duplicate field "spec.group", unknown field "spec.bogus", duplicate field "spec.names.kind", '
        'duplicate field "spec.versions[0].schema.openAPIV3Schema.properties.spec"')
    # Warn: created as Go's decoder reads it, the second `names` decoded into the first (its plural kept)
    crd = ('{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":'
           '"dupsplits.dup.example.com"},"spec":{"group":"dup.example.com","scope":"Namespaced","names":{"plural":'
           '"dupsplits"},"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":'
           '"object"}}}],"names":{"kind":"DupSplit"}}}')
    r = http.post(f"{url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions", data=crd, headers=JSON_BODY)
    assert r.status_code == 201, r.text
    assert warnings_of(r) == ['duplicate field "spec.names"']
    assert r.json()["spec"]["names"]["plural"] == "dupsplits" and r.json()["spec"]["names"]["kind"] == "DupSplit"
    assert http.delete(f"{url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions/dupsplits.dup.example.com"
                       ).status_code == 200
