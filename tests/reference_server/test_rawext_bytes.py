"""A ControllerRevision's `data` (a `RawExtension`) kept as the bytes sent (gojsonraw.py; upstream apimachinery
`runtime/extension.go`, encoding/json `appendCompact`, apps validation's `ValidateImmutableField` on the bytes), on
the wire of both storage backends: answers compacted, escapes, repeated keys and `-0` kept, the exact bytes compared
by the immutability check."""
from __future__ import annotations

from pathlib import Path

import pytest
import requests

from conformance.reference_server.goport import gojsonraw as R
from conformance.reference_server.wire import protobuf

from .conftest import NamespaceFactory, unique
from .kubectl_run import run_kubectl

JSON = {"Content-Type": "application/json"}
PROTOBUF = "application/vnd.kubernetes.protobuf"
SENT = '{ "s" : "\\u00e9\\/", "k":1, "k" : 2,\n "z":-0, "h":"<a&b>" }'
ANSWERED = '{"s":"\\u00e9\\/","k":1,"k":2,"z":-0,"h":"\\u003ca\\u0026b\\u003e"}'


@pytest.fixture
def ns(namespaces: NamespaceFactory) -> str:
    return namespaces.create("rawext")["metadata"]["name"]


def _path(url: str, ns: str) -> str:
    return f"{url}/apis/apps/v1/namespaces/{ns}/controllerrevisions"


def _body(name: str, data: str, revision: int = 1, rv: str = "") -> str:
    meta = f'"name":"{name}"' + (f',"resourceVersion":"{rv}"' if rv else "")
    return ('{"apiVersion":"apps/v1","kind":"ControllerRevision","metadata":{' + meta + '},'
            f'"revision":{revision},"data"  :  ' + data + "}")


def _data_text(text: str) -> str:
    """The bytes of the first `data` member of an answer (gojsonraw.member on the object or the list's item)."""
    found = R.member(text, "data")
    if found is None:
        items = R.member(text, "items") or R.member(text, "object")
        assert items is not None, text
        found = R.member(items.lstrip("[").rstrip("]"), "data")
    assert found is not None, text
    return found


def _create(http: requests.Session, url: str, ns: str, data: str = SENT) -> tuple[str, requests.Response]:
    name = unique("rev")
    return name, http.post(_path(url, ns), data=_body(name, data), headers=JSON)


def test_answers_carry_the_bytes_sent_compacted(http: requests.Session, url: str, ns: str, watch) -> None:
    rv = http.get(_path(url, ns)).json()["metadata"]["resourceVersion"]
    name, created = _create(http, url, ns)
    assert created.status_code == 201, created.text
    assert _data_text(created.text) == ANSWERED
    assert _data_text(http.get(f"{_path(url, ns)}/{name}").text) == ANSWERED
    assert _data_text(http.get(_path(url, ns)).text) == ANSWERED
    with http.get(f"{_path(url, ns)}?watch=1&resourceVersion={rv}&timeoutSeconds=10", stream=True) as w:
        line = next(w.iter_lines()).decode()
    assert _data_text(line) == ANSWERED
    # the official client reads what it is sent: the escapes decoded, the last of a repeated key
    from kubernetes import client as k
    cfg = k.Configuration()
    cfg.host = url
    with k.ApiClient(cfg) as api:
        rev = k.AppsV1Api(api).read_namespaced_controller_revision(name, ns)
    assert rev.data == {"s": "é/", "k": 2, "z": 0, "h": "<a&b>"}


def test_an_update_compares_the_exact_bytes(http: requests.Session, url: str, ns: str) -> None:
    """`ValidateImmutableField` compares the stored bytes (whitespace too) with the update's: the answered
    (compacted) bytes sent back are other bytes, the bytes first sent are the same."""
    name, created = _create(http, url, ns)
    assert created.status_code == 201, created.text
    rv = created.json()["metadata"]["resourceVersion"]
    refused = http.put(f"{_path(url, ns)}/{name}", data=_body(name, ANSWERED, 2, rv), headers=JSON)
    assert refused.status_code == 422, refused.text
    raw = ", ".join(f"0x{b:x}" for b in ANSWERED.encode())
    assert refused.json()["details"]["causes"] == [{
        "reason": "FieldValueInvalid", "field": "data",
        "message": 'Invalid value: runtime.Unknown{TypeMeta:runtime.TypeMeta{APIVersion:"", Kind:""}, '
                   f'Raw:[]uint8{{{raw}}}, ContentEncoding:"", ContentType:"application/json"}}: field is immutable'}]
    ok = http.put(f"{_path(url, ns)}/{name}", data=_body(name, SENT, 2, rv), headers=JSON)
    assert ok.status_code == 200, ok.text
    assert ok.json()["revision"] == 2 and _data_text(ok.text) == ANSWERED


def test_a_merge_or_json_patch_sends_the_compacted_bytes_again(http: requests.Session, url: str, ns: str) -> None:
    """The patch runs on the object's JSON (`data` compacted) and evanphx/json-patch keeps an untouched value's
    bytes: data sent compact (escapes, a repeated key, `-0` and all) passes, data sent with whitespace is refused."""
    merge = {"Content-Type": "application/merge-patch+json"}
    name, created = _create(http, url, ns, ANSWERED)
    assert created.status_code == 201, created.text
    ok = http.patch(f"{_path(url, ns)}/{name}", data='{"revision":3}', headers=merge)
    assert ok.status_code == 200, ok.text
    assert _data_text(ok.text) == ANSWERED and ok.json()["revision"] == 3
    ok = http.patch(f"{_path(url, ns)}/{name}", data='[{"op":"replace","path":"/revision","value":4}]',
                    headers={"Content-Type": "application/json-patch+json"})
    assert ok.status_code == 200, ok.text
    assert _data_text(ok.text) == ANSWERED and ok.json()["revision"] == 4
    name, created = _create(http, url, ns)  # with whitespace
    assert created.status_code == 201, created.text
    refused = http.patch(f"{_path(url, ns)}/{name}", data='{"revision":3}', headers=merge)
    assert refused.status_code == 422, refused.text
    assert refused.json()["details"]["causes"][0]["message"].endswith("field is immutable")
    assert _data_text(http.get(f"{_path(url, ns)}/{name}").text) == ANSWERED


def test_a_yaml_body_s_data_is_the_json_yaml_to_json_writes(http: requests.Session, url: str, ns: str) -> None:
    """sigs.k8s.io/yaml `YAMLToJSON` is `json.Marshal` of a map: the keys sorted, `<` escaped."""
    name = unique("rev")
    body = (f"apiVersion: apps/v1\nkind: ControllerRevision\nmetadata:\n  name: {name}\nrevision: 1\n"
            "data:\n  z: 1\n  a: '<'\n  m: {x: 2, b: 3}\n")
    created = http.post(_path(url, ns), data=body, headers={"Content-Type": "application/yaml"})
    assert created.status_code == 201, created.text
    assert _data_text(created.text) == '{"a":"\\u003c","m":{"b":3,"x":2},"z":1}'


def test_a_protobuf_body_s_raw_bytes_are_kept_and_answered(http: requests.Session, url: str, ns: str) -> None:
    name = unique("rev")
    data = R.wrap({"s": "é/", "k": 2, "z": 0, "h": "<a&b>"}, SENT)
    rev = {"apiVersion": "apps/v1", "kind": "ControllerRevision", "metadata": {"name": name}, "revision": 1,
           "data": data}
    created = http.post(_path(url, ns), data=protobuf.encode(rev), headers={"Content-Type": PROTOBUF})
    assert created.status_code == 201, created.text
    assert _data_text(created.text) == ANSWERED
    got = http.get(f"{_path(url, ns)}/{name}", headers={"Accept": PROTOBUF})
    assert got.status_code == 200 and got.headers["Content-Type"] == PROTOBUF
    assert SENT.encode() in got.content  # protobuf's `raw`: the stored bytes as they are


def test_member_finds_the_last_top_level_occurrence() -> None:
    text = '{"x":{"data":1}, "d\\u0061ta" : [1, {"a":"}"}] ,"data":"s","y":2}'
    assert R.member(text, "data") == '"s"'
    assert R.member(text, "x") == '{"data":1}'
    assert R.member('{"data" :\t{ } }', "data") == "{ }"
    assert R.member('{"a":1}', "data") is None
    assert R.member('{"d\\u0061ta":1}', "data") == "1"
    assert R.compact('{ "a" : "x y\u2028" ,\n"b":[ 1 ] }') == '{"a":"x y\\u2028","b":[1]}'


def test_data_in_go_s_own_bytes_round_trips_through_storage(http: requests.Session, url: str, ns: str) -> None:
    """Data sent as encoding/json writes it (UTF-8 as is, `&` escaped) is stored so that it reads back as those
    bytes (an etcd value's text is not the bytes): an update sending them again passes."""
    go_bytes = '{"s":"é","h":"\\u0026"}'
    name, created = _create(http, url, ns, go_bytes)
    assert created.status_code == 201, created.text
    rv = created.json()["metadata"]["resourceVersion"]
    ok = http.put(f"{_path(url, ns)}/{name}", data=_body(name, go_bytes, 2, rv).encode(), headers=JSON)
    assert ok.status_code == 200, ok.text
    assert ok.json()["data"] == {"s": "é", "h": "&"} and ok.json()["revision"] == 2


def test_kubectl_replace_of_what_it_got_is_refused_when_data_was_sent_spaced(http: requests.Session, url: str,
                                                                              ns: str, tmp_path: Path) -> None:
    """`kubectl get -o json` then `kubectl replace -f`: the answered bytes are compacted, the stored ones are not,
    so upstream's immutability check refuses (and kubectl writes what it read again: keys sorted, escapes decoded,
    repeated keys gone); a revision whose data was sent as kubectl writes it replaces fine."""
    for data, refused in (('{ "a" : [1, 2], "b":"x" }', True), (ANSWERED, True), ('{"a":[1,2],"b":"x"}', False)):
        name, created = _create(http, url, ns, data)
        assert created.status_code == 201, created.text
        got = run_kubectl(url, tmp_path, "-n", ns, "get", "controllerrevision", name, "-o", "json")
        assert got.returncode == 0, got.stderr
        (tmp_path / "rev.json").write_text(got.stdout)
        out = run_kubectl(url, tmp_path, "-n", ns, "replace", "-f", str(tmp_path / "rev.json"))
        if refused:
            assert out.returncode == 1 and "data: Invalid value: runtime.Unknown" in out.stderr, out.stderr
            assert "field is immutable" in out.stderr
        else:
            assert out.returncode == 0, out.stderr
            assert f"controllerrevision.apps/{name} replaced" in out.stdout


@pytest.mark.parametrize("data", ['"\\u00e9\\u003c"', "-0", '[ "\\u00e9" ,-0 ]'])
def test_a_lone_string_integer_or_array_keeps_its_bytes(http: requests.Session, url: str, ns: str, data: str) -> None:
    name, created = _create(http, url, ns, data)
    assert created.status_code == 201, created.text
    for text in (created.text, http.get(f"{_path(url, ns)}/{name}").text):
        assert _data_text(text) == R.compact(data)
    y = http.get(f"{_path(url, ns)}/{name}", headers={"Accept": "application/yaml"})
    assert y.status_code == 200 and "\ndata:" in y.text


def test_a_patch_inside_data_sorts_the_object_it_changes_and_keeps_untouched_bytes() -> None:
    """evanphx/json-patch.v4: the changed object is a `partialDoc` map (keys sorted when written), its untouched
    members lazy nodes (their bytes as they were answered)."""
    obj = {"data": R.wrap({"z": {"s": "é"}, "a": 1}, '{ "z" : {"s":"\\u00e9"}, "a":1 }')}
    before = R.before_patch(obj, ("data",))
    patched = {"data": {"z": {"s": "é"}, "a": 2}}
    R.repatched(patched, before, '{"data":{"a":2}}', merge=True)
    assert R.exact(patched["data"]) == '{"a":2,"z":{"s":"\\u00e9"}}'
    untouched = {"data": {"z": {"s": "é"}, "a": 1}}
    R.repatched(untouched, before, '{"kind":"ControllerRevision"}', merge=True)
    assert R.exact(untouched["data"]) == '{"z":{"s":"\\u00e9"},"a":1}'


def test_a_later_null_leaves_the_bytes_sent_before(http: requests.Session, url: str, ns: str) -> None:
    """`RawExtension.UnmarshalJSON` does nothing with `null`: a repeated `data` whose last value is null keeps the
    bytes of the one before (Python's decoder kept the null: `data: Required value`)."""
    name = unique("rev")
    body = _body(name, '{"a" : 1.50}').removesuffix("}") + ',"data":null}'
    created = http.post(_path(url, ns), data=body, headers=JSON)
    assert created.status_code == 201, created.text
    assert created.text.rstrip().endswith('"data":{"a":1.50},"revision":1}')  # ControllerRevision's field order


def _immutable_bytes(refused: requests.Response) -> bytes:
    """The new `data` bytes a `data: field is immutable` refusal prints (`Raw:[]uint8{0x7b, ...}`)."""
    assert refused.status_code == 422, refused.text
    message = refused.json()["details"]["causes"][0]["message"]
    assert message.endswith("field is immutable"), message
    hexes = message.split("Raw:[]uint8{", 1)[1].split("}", 1)[0]
    return bytes(int(h, 16) for h in hexes.split(", "))


def test_a_json_patch_inside_data_keeps_untouched_elements_and_the_value_s_bytes(http: requests.Session, url: str,
                                                                                  ns: str) -> None:
    """evanphx/json-patch v4.12.0 `Patch.Apply` on the object's JSON: `data` and its `a` are read (`intoDoc`:
    keys sorted; `intoAry`), `a`'s elements stay the nodes they were read as (`"\\u00e9"`, `1.0`, `{"z":1,"y":2}`
    as answered), the added element is the operation's `value` bytes compacted (`\\u00e9` and key order kept,
    `<` escaped). Those bytes differ from the stored ones, and the immutability refusal prints them."""
    name, created = _create(http, url, ns, '{"a":["\\u00e9",1.0,{"z":1,"y":2}],"s":"t"}')
    assert created.status_code == 201, created.text
    refused = http.patch(f"{_path(url, ns)}/{name}", headers={"Content-Type": "application/json-patch+json"},
                         data='[{"op":"add","path":"/data/a/1","value":{ "q":"\\u00e9<", "p":2.50 }}]')
    assert _immutable_bytes(refused) == (b'{"a":["\\u00e9",{"q":"\\u00e9\\u003c","p":2.50},1.0,{"z":1,"y":2}],'
                                         b'"s":"t"}')


def test_a_merge_patch_inside_data_keeps_the_patch_s_bytes(http: requests.Session, url: str, ns: str) -> None:
    """evanphx/json-patch v4.12.0 `MergePatch`: a member `data` lacked is the patch's node, `pruneNulls`ed (its
    objects and arrays read, so written with keys sorted and nulls dropped; its strings' bytes kept); the members
    it does not touch keep theirs."""
    name, created = _create(http, url, ns, '{"m":{"k":"\\u00e9","b":1}}')
    assert created.status_code == 201, created.text
    refused = http.patch(f"{_path(url, ns)}/{name}", headers={"Content-Type": "application/merge-patch+json"},
                         data='{"data":{"n":{"z":"\\u00e9","a":[{"x":null,"w":1.0}]}}}')
    assert _immutable_bytes(refused) == b'{"m":{"k":"\\u00e9","b":1},"n":{"a":[{"w":1.0}],"z":"\\u00e9"}}'


def test_a_json_patch_test_reads_data_and_writes_it_sorted(http: requests.Session, url: str, ns: str) -> None:
    """evanphx/json-patch v4.12.0's `test` compares with `equal`, whose `tryDoc` reads each object it looks into:
    `data`, stored `{"s":"t","a":[...]}`, is written again with its keys sorted, other bytes than the stored ones,
    so the update is refused though no value changed. Replacing an element by its own bytes writes the array
    and `data` again from their nodes: the stored bytes when they were sorted, so that update passes (written
    in Go's words, `"é"`, it would be refused)."""
    patch = {"Content-Type": "application/json-patch+json"}
    name, created = _create(http, url, ns, '{"s":"t","a":["\\u00e9",1.0]}')
    assert created.status_code == 201, created.text
    refused = http.patch(f"{_path(url, ns)}/{name}", headers=patch,
                         data='[{"op":"test","path":"/data","value":{"a":["\\u00e9",1.0],"s":"t"}},'
                              '{"op":"replace","path":"/revision","value":2}]')
    assert _immutable_bytes(refused) == b'{"a":["\\u00e9",1.0],"s":"t"}'
    data = '{"a":["\\u00e9",1.0],"s":"t"}'
    name, created = _create(http, url, ns, data)
    assert created.status_code == 201, created.text
    ok = http.patch(f"{_path(url, ns)}/{name}", headers=patch,
                    data='[{"op":"replace","path":"/data/a/0","value":"\\u00e9"},'
                         '{"op":"replace","path":"/revision","value":2}]')
    assert ok.status_code == 200, ok.text
    assert _data_text(ok.text) == data and ok.json()["revision"] == 2


def test_an_answer_without_html_escapes_keeps_them_once_a_revision_was_held(http: requests.Session, url: str,
                                                                             ns: str) -> None:
    """`/openapi/v2` (written without encoding/json's HTML escapes) names `"kind":"ControllerRevision"`, which
    sends it through the wrapped values' writer once the process has held one: that writer kept escaping `<`,
    `>`, `&` there (order-dependent: only after a ControllerRevision was created)."""
    r = http.post(_path(url, ns), data='{"metadata":{"name":"r"},"revision":1,"data":' + SENT + "}", headers=JSON)
    assert r.status_code == 201, r.text
    assert R.SEEN[0]
    doc = {"a": {"kind": "ControllerRevision", "description": "<a&b>", "metadata": {"x": ">"}}, "<k>": ["&"]}
    from conformance.reference_server.http.respond import dumps
    assert dumps(doc, html=False) == b'{"a":{"kind":"ControllerRevision","description":"<a&b>","metadata":{"x":">"}},' \
                                     b'"<k>":["&"]}'
    assert dumps(doc) == (b'{"a":{"kind":"ControllerRevision","description":"\\u003ca\\u0026b\\u003e","metadata":'
                          b'{"x":"\\u003e"}},"\\u003ck\\u003e":["\\u0026"]}')
    v2 = http.get(url + "/openapi/v2", headers={"Accept": "application/json"}).content
    assert b"The value must be >0 && <=86400" in v2 and b"\\u003e" not in v2
