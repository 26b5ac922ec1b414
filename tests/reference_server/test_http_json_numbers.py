"""JSON numbers over HTTP as kube-apiserver reads and writes them (gojsonnum.py): a custom resource's body is
read by util/json (`UnmarshalCaseSensitivePreserveInts`), so a number no float64 holds is refused with
`convertNumber`'s words (create/update: `transformDecodeError`'s 400; a merge or JSON patch's result:
handlers/patch.go's 422 `patch` Invalid showing the number as the patch wrote it; a strategic patch:
`strategicPatchObject`'s bare 400) and never stored; typed kinds word the literal as written; every answer
writes floats as encoding/json does (`2`, `1e+21`, `1e-7`)."""
from __future__ import annotations

import json
import uuid

from tests.reference_server.crds import CRDS, create_crd, schemaless_crd

from .conftest import status_of

OVERFLOW = "json: cannot unmarshal number {} into Go value of type float64"


def _strict(text: str) -> object:
    def refuse(name: str) -> object:
        raise AssertionError(f"not JSON: {name}")
    return json.loads(text, parse_constant=refuse)


def _crd(http, url) -> tuple[str, str]:
    group = f"n{uuid.uuid4().hex[:8]}.example.com"
    assert create_crd(http, url, schemaless_crd(group, "things", "Thing")).status_code == 201
    return group, f"things.{group}"


def _thing(group: str, name: str, spec: str) -> str:
    return f'{{"apiVersion":"{group}/v1","kind":"Thing","metadata":{{"name":"{name}"}},"spec":{spec}}}'


JSON = {"Content-Type": "application/json"}
MERGE = {"Content-Type": "application/merge-patch+json"}


def test_a_number_no_float64_holds_is_refused_and_never_stored(http, url, namespaces):
    group, crd = _crd(http, url)
    ns = namespaces.create()["metadata"]["name"]
    coll = f"{url}/apis/{group}/v1/namespaces/{ns}/things"
    for literal in ("1e400", "-1e400", "1" * 400):
        st = status_of(http.post(coll, data=_thing(group, "t", f'{{"f":{literal}}}'), headers=JSON))
        assert (st["code"], st["reason"]) == (400, "BadRequest"), st
        assert st["message"] == 'Thing in version "v1" cannot be handled as a Thing: ' + OVERFLOW.format(literal)
    assert http.post(coll, data=_thing(group, "t", '{"f":1}'), headers=JSON).status_code == 201
    st = status_of(http.put(f"{coll}/t", data=_thing(group, "t", '{"f":1e400}'), headers=JSON))
    assert st["code"] == 400 and st["message"].endswith(OVERFLOW.format("1e400")), st
    st = status_of(http.patch(f"{coll}/t", data='{"spec":{"g":2.0,"h":1e400}}', headers=MERGE))
    assert (st["code"], st["reason"]) == (422, "Invalid") and st["details"]["causes"][0]["field"] == "patch", st
    assert st["message"].endswith('\\"spec\\":{\\"f\\":1,\\"g\\":2.0,\\"h\\":1e400}}": ' + OVERFLOW.format("1e400"))
    st = status_of(http.patch(f"{coll}/t", data='[{"op":"add","path":"/spec/k","value":-1e400}]',
                              headers={"Content-Type": "application/json-patch+json"}))
    assert st["code"] == 422 and st["message"].endswith(OVERFLOW.format("-1e400")), st
    got = http.get(coll)
    assert got.status_code == 200 and [i["spec"] for i in _strict(got.text)["items"]] == [{"f": 1}]
    http.delete(f"{url}{CRDS}/{crd}")


def test_typed_kinds_word_the_literal_as_written(http, url, namespaces):
    ns = namespaces.create()["metadata"]["name"]
    svc = f"{url}/api/v1/namespaces/{ns}/services"
    for literal in ("1e400", "1e2", "2.0", "9223372036854775808"):
        st = status_of(http.post(svc, data=f'{{"metadata":{{"name":"s"}},"spec":{{"ports":[{{"port":{literal}}}]}}}}',
                                 headers=JSON))
        assert st["message"] == ('Service in version "v1" cannot be handled as a Service: json: cannot unmarshal '
                                 f"number {literal} into Go struct field ServicePort.spec.ports.port of type int32"), st
    cms = f"{url}/api/v1/namespaces/{ns}/configmaps"
    made = http.post(cms, data='{"metadata":{"name":"c"},"data":{"a":"b"},"x":1e400}', headers=JSON)
    assert made.status_code == 201, made.text  # an unknown field: Go skips it unread
    st = status_of(http.patch(f"{cms}/c", data='{"data":{"q":"r"},"x":1e400}',
                              headers={"Content-Type": "application/strategic-merge-patch+json"}))
    assert (st["code"], st["reason"], st["message"]) == (400, "BadRequest", OVERFLOW.format("1e400")), st
    assert http.patch(f"{cms}/c", data='{"x":1e400}', headers=MERGE).status_code == 200
    assert _strict(http.get(f"{cms}/c").text)["data"] == {"a": "b"}


def test_floats_are_answered_and_stored_as_go_writes_them(http, url, namespaces):
    group, crd = _crd(http, url)
    ns = namespaces.create()["metadata"]["name"]
    coll = f"{url}/apis/{group}/v1/namespaces/{ns}/things"
    spec = '{"size":2.0,"big":1e21,"small":1e-7,"twenty":100000000000000000000.0,"tiny":0.00001,"half":0.5}'
    # (a custom resource is an unstructured map: its keys sorted, wire/gomaps.py)
    go = '"spec":{"big":1e+21,"half":0.5,"size":2,"small":1e-7,"tiny":0.00001,"twenty":100000000000000000000}'
    made = http.post(coll, data=_thing(group, "t", spec), headers=JSON)
    assert made.status_code == 201 and go in made.text, made.text
    assert go in http.get(f"{coll}/t").text
    assert go in http.get(coll).text
    patched = http.patch(f"{coll}/t", data='{"spec":{"size":3.0}}', headers=MERGE)
    assert patched.status_code == 200 and '"spec":{"big":1e+21,"half":0.5,"size":3,' in patched.text, patched.text
    assert '"size":3,' in http.get(f"{coll}/t").text
    as_yaml = http.get(f"{coll}/t", headers={"Accept": "application/yaml"})
    assert as_yaml.status_code == 200, as_yaml.text  # go-yaml's floats (sigs.k8s.io/yaml JSONToYAML)
    assert "  size: 3\n" in as_yaml.text and "  small: 1e-07\n" in as_yaml.text and "  big: 1e+21\n" in as_yaml.text
    http.delete(f"{url}{CRDS}/{crd}")
