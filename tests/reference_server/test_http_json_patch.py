"""JSON patches (RFC 6902) as kube-apiserver 1.33 applies them: evanphx/json-patch v4.12.0's `Patch.Apply` on the
object's JSON (gojsonlazy.py, http/patch.py), its error answered by handlers/patch.go as
`NewGenericServerResponse(422, "", {}, "", err.Error(), 0, false)`: the generic message, `details: {}`, no cause."""
from __future__ import annotations

from pathlib import Path

import pytest
import requests

from .conftest import NamespaceFactory
from .kubectl_run import run_kubectl
from tests.reference_server.panics import assert_dropped

JSON_PATCH = {"Content-Type": "application/json-patch+json"}
REFUSED = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
           "message": "the server rejected our request due to an error in our request", "reason": "Invalid",
           "details": {}, "code": 422}


@pytest.fixture
def cm(http: requests.Session, url: str, namespaces: NamespaceFactory) -> str:
    """A ConfigMap (`data.a` is "é", two finalizers); its URL."""
    ns = namespaces.create("jsonpatch")["metadata"]["name"]
    base = f"{url}/api/v1/namespaces/{ns}/configmaps"
    body = {"metadata": {"name": "c", "labels": {"k": "v"}, "finalizers": ["example.com/a", "example.com/b"]},
            "data": {"a": "é"}}
    assert http.post(base, json=body).status_code == 201
    yield f"{base}/c"
    http.patch(f"{base}/c", data='[{"op":"remove","path":"/metadata/finalizers"}]', headers=JSON_PATCH)


def test_replace_of_a_missing_key_adds_it_with_kubectl(cm: str, url: str, tmp_path: Path) -> None:
    """v4.12.0's `replace` asks `partialDoc.get` for an error, which never answers one (evanphx/json-patch#204: v4
    adds the key, v5 refuses): `kubectl patch --type=json` of a label the object lacks succeeds."""
    ns = cm.split("/namespaces/")[1].split("/")[0]
    out = run_kubectl(url, tmp_path, "-n", ns, "patch", "configmap", "c", "--type=json",
                      "-p", '[{"op":"replace","path":"/metadata/labels/new","value":"x"}]')
    assert out.returncode == 0, out.stderr
    assert "configmap/c patched" in out.stdout


def test_negative_indices_count_from_the_end(http: requests.Session, cm: str) -> None:
    """`SupportNegativeIndices` is true (kube-apiserver never turns it off): `-1` is the last element."""
    r = http.patch(cm, data='[{"op":"remove","path":"/metadata/finalizers/-1"}]', headers=JSON_PATCH)
    assert r.status_code == 200, r.text
    assert r.json()["metadata"]["finalizers"] == ["example.com/a"]


def test_test_compares_the_bytes_and_a_refusal_has_no_cause(http: requests.Session, cm: str) -> None:
    """`test` compares a string's bytes (`lazyNode.equal`: `json.Compact` of each): the object's JSON holds `"é"`
    as encoding/json writes it, so a value sent `"\\u00e9"` fails (`testing value /data/a failed`), answered with
    the generic 422; sent `"é"`, it passes."""
    r = http.patch(cm, data='[{"op":"test","path":"/data/a","value":"\\u00e9"}]', headers=JSON_PATCH)
    assert r.status_code == 422 and r.json() == REFUSED, r.text
    r = http.patch(cm, data='[{"op":"test","path":"/data/a","value":"é"},{"op":"add","path":"/data/b","value":"1"}]'
                   .encode(), headers=JSON_PATCH)
    assert r.status_code == 200 and r.json()["data"] == {"a": "é", "b": "1"}, r.text


def test_a_missing_path_is_the_generic_422(http: requests.Session, cm: str) -> None:
    r = http.patch(cm, data='[{"op":"add","path":"/spec/x","value":1}]', headers=JSON_PATCH)
    assert r.status_code == 422 and r.json() == REFUSED, r.text


def test_copies_past_json_patch_max_copy_bytes_are_refused(http: requests.Session, cm: str) -> None:
    """kube-apiserver sets evanphx's `AccumulatedCopySizeLimit` to its JSONPatchMaxCopyBytes (3 MiB): five copies of
    a 700 KiB value exceed it, the patch's generic 422 (not the ConfigMap's `Too long` it would otherwise meet)."""
    assert http.patch(cm, json={"data": {"big": "x" * 700 * 1024}},
                      headers={"Content-Type": "application/merge-patch+json"}).status_code == 200
    ops = ",".join(f'{{"op":"copy","from":"/data/big","path":"/metadata/annotations/c{i}"}}' for i in range(5))
    r = http.patch(cm, data=f'[{{"op":"add","path":"/metadata/annotations","value":{{}}}},{ops}]', headers=JSON_PATCH)
    assert r.status_code == 422 and r.json() == REFUSED, r.text[:300]


def test_replacing_the_document_by_an_array_is_shown_as_evanphx_wrote_it(http: requests.Session, cm: str) -> None:
    """`replace` of path "" by an array: `tryAry` reads it (its elements stay the operation's bytes: `\\u00e9`, `<`
    escaped by the compaction, the object's key order and `null` kept), `Apply` returns it, and the JSON serializer
    cannot decode it (handlers/patch.go: `NewInvalid` on `patch`, the bytes shown with `%q`)."""
    r = http.patch(cm, data='[{"op":"replace","path":"","value":[ "\\u00e9<", {"b":1,"a":null} ]}]', headers=JSON_PATCH)
    assert r.status_code == 422, r.text
    assert r.json()["message"] == (
        ' "" is invalid: patch: Invalid value: "[\\"\\\\u00e9\\\\u003c\\",{\\"b\\":1,\\"a\\":null}]": couldn\'t get '
        'version/kind; json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion '
        'string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }')


@pytest.mark.parametrize("ctype, patch, shown", [
    ("application/merge-patch+json", '{"data":{"z":"\\u00e9"},"bogus":1}',
     '{"apiVersion":"v1","bogus":1,"data":{"a":"é","z":"\\u00e9"},"kind":"ConfigMap","metadata":{'),
    ("application/json-patch+json", '[{"op":"add","path":"/bogus","value":{"y":1,"x":"\\u00e9"}}]',
     '{"apiVersion":"v1","bogus":{"y":1,"x":"\\u00e9"},"data":{"a":"é"},"kind":"ConfigMap","metadata":{'),
])
def test_a_refused_patch_shows_the_bytes_evanphx_wrote(http: requests.Session, cm: str, ctype: str, patch: str,
                                                        shown: str) -> None:
    """handlers/patch.go shows `string(patchedObjJS)` in its 422 on `patch` (here a strict decoding error): the
    document evanphx/json-patch v4.12.0 wrote, its top-level object read (keys sorted), `data` read where the merge
    patch touches it (sorted, `z` the patch's bytes `\\u00e9`), untouched where the JSON patch does not (as the
    object's JSON holds it), the added value the operation's bytes (key order and escape kept)."""
    r = http.patch(cm, params={"fieldValidation": "Strict"}, data=patch.encode(), headers={"Content-Type": ctype})
    assert r.status_code == 422, r.text
    message = r.json()["details"]["causes"][0]["message"]
    quoted = shown.replace("\\", "\\\\").replace('"', '\\"')
    assert message.startswith(f'Invalid value: "{quoted}'), message
    assert message.endswith('strict decoding error: unknown field "bogus"'), message


def test_a_patch_evanphx_panics_on_is_the_panic_answer(http: requests.Session, cm: str) -> None:
    """An `add` of `null` leaves a node of no bytes, and the next operation's `findObject` dereferences them
    (v4.12.0 `isArray(*next.raw)`): the handler panics, and the client gets no answer (http/respond.py
    `panic_dropped`)."""
    assert_dropped(lambda: http.patch(cm, data='[{"op":"add","path":"/metadata/labels/x","value":null},'
                                               '{"op":"add","path":"/metadata/labels/x/y","value":"1"}]',
                                      headers=JSON_PATCH))


def test_a_patch_adding_into_a_copied_null_is_the_panic_answer(http: requests.Session, cm: str) -> None:
    """`copy` of an added `null` writes `null` (`deepCopy` marshals the node of no bytes); the next `add` below it
    reads those bytes into a nil `partialDoc` (`intoDoc`: no error) and assigns into it: Go's nil map panic, which
    `FinishRequest` carries to the handler's goroutine: no answer (before: the generic 422)."""
    assert_dropped(lambda: http.patch(cm, data='[{"op":"add","path":"/data/x","value":null},{"op":"copy","from":'
                                               '"/data/x","path":"/data/z"},{"op":"add","path":"/data/z/y","value":"1"}]',
                                      headers=JSON_PATCH))
