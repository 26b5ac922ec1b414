"""Numbers in raw-JSON fields as Go keeps them (gojsonnum.py `RawFloat`; upstream apimachinery
`runtime/extension.go`: a `RawExtension` keeps the bytes sent), and a CRD's `JSON` fields, which the conversion to
the internal version reads with util/json (`apiextensions/v1/conversion.go`), on both storage backends."""
from __future__ import annotations

import json
from typing import Any

import pytest
import requests

from conformance.reference_server.goport import gojsonnum as G
from conformance.reference_server.wire.textdecode import loads_json

from .conftest import NamespaceFactory, unique
from tests.reference_server.panics import assert_dropped

JSON_HEADERS = {"Content-Type": "application/json"}
DATA = '{"e":1e2,"tenth":0.10,"list":[1.50,-2.5E-3,12345678901234567890],"plain":0.5,"n":3}'
COMPACT = DATA  # (already compact: encoding/json's `compact` leaves it so)


@pytest.fixture
def ns(namespaces: NamespaceFactory) -> str:
    return namespaces.create("rawnum")["metadata"]["name"]


def _revision(http: requests.Session, url: str, ns: str, data: str = DATA,
              spaced: bool = True) -> tuple[str, requests.Response]:
    name = unique("rev")
    sent = data.replace(",", " , ") if spaced else data  # whitespace inside: compacted on the way out
    body = ('{"apiVersion":"apps/v1","kind":"ControllerRevision","metadata":{"name":"' + name + '"},"revision":1,'
            '"data" : ' + sent + "}")
    return name, http.post(f"{url}/apis/apps/v1/namespaces/{ns}/controllerrevisions", data=body,
                           headers=JSON_HEADERS)


def _data_text(text: str) -> str:
    start = text.index('"data":') + len('"data":')
    depth = 0
    for i, ch in enumerate(text[start:], start):
        depth += ch in "{[" and 1 or ch in "}]" and -1 or 0
        if depth == 0:
            return text[start:i + 1]
    raise AssertionError(text)


def test_a_controller_revision_s_data_is_answered_as_sent(http: requests.Session, url: str, ns: str) -> None:
    name, created = _revision(http, url, ns)
    assert created.status_code == 201, created.text
    assert _data_text(created.text) == COMPACT
    path = f"{url}/apis/apps/v1/namespaces/{ns}/controllerrevisions"
    assert _data_text(http.get(f"{path}/{name}").text) == COMPACT
    assert _data_text(http.get(path).text) == COMPACT
    # a JSON merge patch runs on the answered (compacted) bytes, which it keeps where it does not touch them: the
    # stored bytes (whitespace and all) are other bytes, so `data: field is immutable` (test_rawext_bytes.py)
    patched = http.patch(f"{path}/{name}", data='{"revision":2}',
                         headers={"Content-Type": "application/merge-patch+json"})
    assert patched.status_code == 422, patched.text
    name, created = _revision(http, url, ns, spaced=False)
    assert created.status_code == 201, created.text
    patched = http.patch(f"{path}/{name}", data='{"revision":2}',
                         headers={"Content-Type": "application/merge-patch+json"})
    assert patched.status_code == 200, patched.text
    assert _data_text(patched.text) == COMPACT


def test_a_strategic_merge_patch_writes_raw_data_again(http: requests.Session, url: str, ns: str) -> None:
    """The unstructured converter's round trip (util/json's values written by encoding/json, keys sorted) gives
    other bytes: `ValidateImmutableField` compares the bytes, so the patch is refused; data already in Go's
    words passes."""
    path = f"{url}/apis/apps/v1/namespaces/{ns}/controllerrevisions"
    smp = {"Content-Type": "application/strategic-merge-patch+json"}
    name, created = _revision(http, url, ns, '{"e":1e2,"a":[1.50]}')
    assert created.status_code == 201, created.text
    refused = http.patch(f"{path}/{name}", data='{"revision":2}', headers=smp)
    assert refused.status_code == 422, refused.text
    # 1.33's field.Error prints the internal runtime.Unknown with `%#v`: the new bytes, `{"a":[1.5],"e":100}`
    raw = ", ".join(f"0x{b:x}" for b in b'{"a":[1.5],"e":100}')
    assert refused.json()["details"]["causes"] == [{
        "reason": "FieldValueInvalid", "field": "data",
        "message": 'Invalid value: runtime.Unknown{TypeMeta:runtime.TypeMeta{APIVersion:"", Kind:""}, '
                   f'Raw:[]uint8{{{raw}}}, ContentEncoding:"", ContentType:"application/json"}}: field is immutable'}]
    name, created = _revision(http, url, ns, '{"a":[1.5],"e":100}', spaced=False)  # (whitespace: other bytes)
    assert created.status_code == 201, created.text
    ok = http.patch(f"{path}/{name}", data='{"revision":2}', headers=smp)
    assert ok.status_code == 200, ok.text
    assert _data_text(ok.text) == '{"a":[1.5],"e":100}' and ok.json()["revision"] == 2


def test_a_watch_and_a_yaml_answer_carry_the_raw_numbers(http: requests.Session, url: str, ns: str) -> None:
    path = f"{url}/apis/apps/v1/namespaces/{ns}/controllerrevisions"
    rv = http.get(path).json()["metadata"]["resourceVersion"]
    name, created = _revision(http, url, ns)
    assert created.status_code == 201, created.text
    with http.get(f"{path}?watch=1&resourceVersion={rv}&timeoutSeconds=10", stream=True) as w:
        line = next(w.iter_lines())
    assert _data_text(line.decode()) == COMPACT
    y = http.get(f"{path}/{name}", headers={"Accept": "application/yaml"})
    assert y.status_code == 200
    # sigs.k8s.io/yaml reads the JSON Go wrote: go-yaml's numbers, written again (keys sorted, `n` quoted: a bool)
    assert "\ndata:\n  e: 100\n  list:\n  - 1.5\n  - -0.0025\n  - 12345678901234567890\n  \"n\": 3\n  plain: 0.5\n" \
        "  tenth: 0.1\nkind: ControllerRevision\n" in y.text, y.text


def test_the_official_client_reads_the_numbers_go_answers(url: str, http: requests.Session, ns: str) -> None:
    from kubernetes import client as k
    cfg = k.Configuration()
    cfg.host = url
    with k.ApiClient(cfg) as api:
        name, created = _revision(http, url, ns)
        assert created.status_code == 201, created.text
        rev = k.AppsV1Api(api).read_namespaced_controller_revision(name, ns)
    assert rev.data["e"] == 100.0 and isinstance(rev.data["e"], float)  # `100` before: an int
    assert rev.data["list"][2] == 12345678901234567890 and isinstance(rev.data["list"][2], int)


def test_a_raw_number_no_float64_holds_panics_the_field_manager_as_upstream(http: requests.Session, url: str,
                                                                          ns: str) -> None:
    """The decoder keeps `1e400` in the bytes, but structured-merge-diff's reflect walk of the object (managedFields,
    on every write) reads them with `json.Number.Float64`, and its error panics (`mustReuse`): no answer, as
    kube-apiserver's panic, nothing stored."""
    assert_dropped(lambda: _revision(http, url, ns, '{"x":[1,-1e400]}')[1])
    name, created = _revision(http, url, ns, '{"x":1}')
    assert created.status_code == 201, created.text
    path = f"{url}/apis/apps/v1/namespaces/{ns}/controllerrevisions/{name}"
    assert_dropped(lambda: http.patch(path, data='[{"op":"add","path":"/data/y","value":1e400}]',
                                      headers={"Content-Type": "application/json-patch+json"}))
    assert _data_text(http.get(path).text) == '{"x":1}'


def test_a_number_no_float64_holds_in_a_typed_field_is_refused_in_its_words(http: requests.Session,
                                                                          url: str, ns: str) -> None:
    lease = '{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"l"},' \
            '"spec":{"leaseDurationSeconds":1e400}}'
    r = http.post(f"{url}/apis/coordination.k8s.io/v1/namespaces/{ns}/leases", data=lease, headers=JSON_HEADERS)
    assert r.status_code == 400
    assert r.json()["message"] == ('Lease in version "v1" cannot be handled as a Lease: json: cannot unmarshal number '
                                   "1e400 into Go struct field LeaseSpec.spec.leaseDurationSeconds of type int32")


def test_a_crd_json_field_past_float64_is_the_conversion_s_400(http: requests.Session, url: str) -> None:
    crd: dict[str, Any] = {
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "rawnums.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced", "names": {"plural": "rawnums", "kind": "RawNum"},
                 "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                     "type": "object", "properties": {"a": {"type": "number", "default": "DEFAULT"}}}}}]}}
    body = json.dumps(crd).replace('"DEFAULT"', "-1e400")
    r = http.post(f"{url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions", data=body, headers=JSON_HEADERS)
    assert r.status_code == 400, r.text
    assert r.json()["message"] == ('CustomResourceDefinition in version "v1" cannot be handled as a '
                                   "CustomResourceDefinition: json: cannot unmarshal number -1e400 into Go value "
                                   "of type float64")
    # in an unknown field of the schema it is never read: dropped (a warning), the CRD created
    ok = json.dumps(crd).replace('"default": "DEFAULT"', '"default": 1e2, "bogus": 1e400')
    r = http.post(f"{url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions", data=ok, headers=JSON_HEADERS)
    try:
        assert r.status_code == 201, r.text
        # util/json then encoding/json: the default is Go's float64 100 (not raw: `1e2` is not kept)
        assert '"default":100}' in r.text
    finally:
        http.delete(f"{url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions/rawnums.example.com")


def test_stored_values_read_back_with_their_raw_numbers() -> None:
    value = {"a": G.keep_literals({"x": G.go_float("1e2"), "y": [G.go_float("0.10"), G.go_float("1e400")]}),  # (never
             # stored, as upstream's field manager panics on it: its literal kept all the same, never `null`)
             "b": G.go_float("1e2"), "c": 0.5}
    text = G.encode(value)
    assert text == '{"a":{"x":1e2,"y":[0.10,1e400]},"b":100,"c":0.5}'
    back = G.loads_stored(text)
    assert G.encode(back) == text and type(back["a"]["y"][0]) is G.RawFloat and type(back["b"]) is int
    assert G.encode(G.remarshal({"z": back["a"]["y"], "x": back["a"]["x"]})) == '{"x":100,"z":[0.1,1e400]}'


def test_an_answer_without_a_suspect_float_is_checked_for_raw_ones() -> None:
    raw = G.keep_literals({"x": G.go_float("0.250")})  # Python writes 0.25: nothing `_SUSPECT` finds
    assert G.encode(raw, json.dumps(raw, separators=(",", ":"))) == '{"x":0.250}'


def test_protobuf_carries_the_raw_bytes_both_ways(http: requests.Session, url: str, ns: str) -> None:
    """`RawExtension.raw` is the bytes: a protobuf answer holds them as sent, and a protobuf body's (what a typed
    Go client sends) are kept as they came."""
    from conformance.reference_server.wire import protobuf
    path = f"{url}/apis/apps/v1/namespaces/{ns}/controllerrevisions"
    name, created = _revision(http, url, ns)
    assert created.status_code == 201, created.text
    r = http.get(f"{path}/{name}", headers={"Accept": "application/vnd.kubernetes.protobuf"})
    assert r.status_code == 200 and r.headers["Content-Type"] == "application/vnd.kubernetes.protobuf"
    assert G.encode_raw_literals(protobuf.decode_response(r.content)["data"]) == COMPACT
    sent = {"apiVersion": "apps/v1", "kind": "ControllerRevision", "metadata": {"name": unique("pb")},
            "revision": 1, "data": G.keep_literals(loads_json(COMPACT.encode()))}  # (written as sent)
    r = http.post(path, data=protobuf.encode(sent), headers={"Content-Type": "application/vnd.kubernetes.protobuf"})
    assert r.status_code == 201, r.text
    assert _data_text(r.text) == COMPACT


def test_a_nested_unknown_field_past_float64_is_dropped_as_go_skips_it(http: requests.Session, url: str,
                                                                       ns: str) -> None:
    """Go's decoder skips an unknown field's value without reading its number: the field is dropped with its
    `unknown field` warning (named in the strict error under Strict), on create and patch, never stored."""
    path = f"{url}/apis/coordination.k8s.io/v1/namespaces/{ns}/leases"
    r = http.post(path, data='{"metadata":{"name":"l"},"spec":{"holderIdentity":"a","bogus":1e400}}',
                  headers=JSON_HEADERS)
    assert r.status_code == 201, r.text
    assert r.headers["Warning"] == '299 - "unknown field \\"spec.bogus\\""' and "bogus" not in r.json()["spec"]
    r = http.post(path, params={"fieldValidation": "Strict"}, headers=JSON_HEADERS,
                  data='{"metadata":{"name":"m"},"spec":{"holderIdentity":"a","bogus":1e400}}')
    assert r.status_code == 400 and r.json()["message"].endswith('strict decoding error: unknown field "spec.bogus"')
    r = http.patch(f"{path}/l", data='{"spec":{"bogus":1e400}}',
                   headers={"Content-Type": "application/merge-patch+json"})
    assert r.status_code == 200 and "bogus" not in r.json()["spec"], r.text
    assert "null" not in http.get(f"{path}/l").text
