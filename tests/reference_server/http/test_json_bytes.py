"""The bytes of JSON answers and the reading of invalid UTF-8, as kube-apiserver 1.33 writes and reads them:
Go's encoding/json escapes `<`, `>`, `&`, U+2028 and U+2029 in every string (gojsonhtml.py); `?pretty=true` and
curl's, Wget's and browsers' user agents get `json.MarshalIndent`'s JSON (http/pretty.py); a Status error whose
client accepts nothing served is `WriteRawJSON`'s; invalid UTF-8 in a JSON string is U+FFFD per byte, in a YAML
body go-yaml's reader error (wire/textdecode.py)."""
from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from conformance.reference_server.http.pretty import indent

from ..conftest import unique
from ..kubectl_run import run_kubectl

CM = "/api/v1/namespaces/default/configmaps"
ESCAPED = b'"data":{"a":"\\u003cb\\u003e\\u0026\\u2028\\u2029\xc3\xa9"}'


@pytest.fixture
def html_cm(http: requests.Session, url: str) -> Iterator[str]:
    name = unique("html")
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"a": "<b>&\u2028\u2029é"}}
    created = http.post(url + CM, json=body)
    assert created.status_code == 201 and ESCAPED in created.content
    yield name
    http.delete(f"{url}{CM}/{name}")


def test_get_list_and_watch_escape_html(http: requests.Session, url: str, html_cm: str) -> None:
    for _ in range(2):  # the second GET answers the memoised bytes
        got = http.get(f"{url}{CM}/{html_cm}")
        assert got.content.endswith(ESCAPED + b"}\n") and b"<" not in got.content
    listed = http.get(url + CM, params={"fieldSelector": f"metadata.name={html_cm}"})
    assert ESCAPED in listed.content and b"&" not in listed.content
    with http.get(url + CM, params={"watch": "1", "fieldSelector": f"metadata.name={html_cm}", "timeoutSeconds": "1"},
                  stream=True) as r:
        assert ESCAPED + b"}}\n" in r.raw.read()


def test_status_error_escapes_html(http: requests.Session, url: str) -> None:
    r = http.get(f"{url}{CM}/a&b")
    assert r.status_code == 404
    assert r.content == (b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"configmaps'
                         b' \\"a\\u0026b\\" not found","reason":"NotFound","details":{"name":"a\\u0026b","kind":'
                         b'"configmaps"},"code":404}\n')


def test_pretty_query_and_user_agents(http: requests.Session, url: str, html_cm: str) -> None:
    compact = http.get(f"{url}{CM}/{html_cm}").content
    pretty = indent(compact[:-1].decode()).encode()
    assert pretty == json.dumps(json.loads(compact), indent=2, ensure_ascii=False).encode().replace(
        b"<", b"\\u003c").replace(b">", b"\\u003e").replace(b"&", b"\\u0026").replace(
        "\u2028".encode(), b"\\u2028").replace("\u2029".encode(), b"\\u2029")
    assert pretty.startswith(b'{\n  "kind": "ConfigMap",\n  "apiVersion": "v1",\n  "metadata": {\n    "name": ')
    assert b'"fieldsV1": {\n          "f:data": {\n            ".": {},' in pretty  # `{}` stays so
    for params, agent in (({"pretty": "true"}, "x"), ({"pretty": "1"}, None), ({}, "curl/8.5.0"),
                          ({}, "Wget/1.21"), ({}, "Mozilla/5.0 (X11)")):
        headers = {"User-Agent": agent} if agent else {}
        assert http.get(f"{url}{CM}/{html_cm}", params=params, headers=headers).content == pretty
    for params, agent in (({"pretty": "false"}, "curl/8.5.0"), ({"pretty": "yes"}, None), ({}, "kubectl/v1.33.0"),
                          ({"pretty": ""}, "python")):
        assert http.get(f"{url}{CM}/{html_cm}", params=params, headers={"User-Agent": agent or "x"}).content == \
            compact
    # lists, Status errors and discovery too; watch events never
    listed = http.get(url + CM, params={"pretty": "true", "fieldSelector": f"metadata.name={html_cm}"})
    assert listed.content.startswith(b'{\n  "kind": "ConfigMapList",\n') and listed.content.endswith(b"\n}")
    missing = http.get(f"{url}{CM}/absent", params={"pretty": "true"})
    assert missing.status_code == 404 and missing.content.startswith(b'{\n  "kind": "Status",') and \
        missing.content.endswith(b'  "code": 404\n}')
    assert http.get(url + "/api", params={"pretty": "true"}).content.startswith(b'{\n  "kind": "APIVersions",')
    with http.get(url + CM, params={"watch": "1", "pretty": "true", "fieldSelector": f"metadata.name={html_cm}",
                                    "timeoutSeconds": "1"}, stream=True) as r:
        assert r.raw.read().startswith(b'{"type":"ADDED","object":{"kind":"ConfigMap"')


def test_pretty_large_answer_has_its_length(http: requests.Session, url: str) -> None:
    name = unique("big")
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name},
            "data": {f"k{i}": "v" * 50 for i in range(1500)}}  # above fastwrite's 64 KiB: aiohttp's own writer
    assert http.post(url + CM, json=body).status_code == 201
    try:
        r = http.get(f"{url}{CM}/{name}", params={"pretty": "true"})
        assert int(r.headers["Content-Length"]) == len(r.content) and r.content.endswith(b"\n  }\n}")
        assert json.loads(r.content)["data"] == body["data"]
    finally:
        http.delete(f"{url}{CM}/{name}")


def test_unacceptable_accept_answers_raw_json(http: requests.Session, url: str) -> None:
    """`WriteObjectNegotiated`: negotiation failing for an error keeps its code, `WriteRawJSON` writes it; a 406
    is itself such an answer."""
    r = http.get(f"{url}{CM}/absent", headers={"Accept": "text/html"})
    assert r.status_code == 404 and r.headers["Content-Type"] == "application/json"
    assert r.content.startswith(b'{\n  "kind": "Status",\n  "apiVersion": "v1",\n  "metadata": {},\n')
    assert r.content.endswith(b'\n  "code": 404\n}')
    r = http.get(url + "/api/v1/namespaces/default", headers={"Accept": "text/html"})
    assert r.status_code == 406 and r.content.endswith(b'  "reason": "NotAcceptable",\n  "code": 406\n}')


def test_invalid_utf8_in_json_string_is_replaced_per_byte(http: requests.Session, url: str) -> None:
    name = unique("utf8")
    raw = b'{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"' + name.encode() + \
        b'"},"data":{"a":"x\xff\xe2\x82y\xed\xa0\x80"}}'
    r = http.post(url + CM, data=raw, headers={"Content-Type": "application/json"})
    try:
        assert r.status_code == 201, r.text
        assert r.json()["data"]["a"] == "x" + "\ufffd" * 3 + "y" + "\ufffd" * 3  # Python's "replace": 2 before y
        assert http.get(f"{url}{CM}/{name}").json()["data"]["a"] == r.json()["data"]["a"]
    finally:
        http.delete(f"{url}{CM}/{name}")


@pytest.mark.parametrize("value,problem", [
    (b"\xff", "invalid leading UTF-8 octet"), (b"\xe2\x82", "incomplete UTF-8 octet sequence"),
    (b"\xe2\x82x", "invalid trailing UTF-8 octet"), (b"\xc0\x80", "invalid length of a UTF-8 sequence"),
    (b"\xed\xa0\x80", "invalid Unicode character"),
])
def test_invalid_utf8_in_yaml_body_is_go_yamls_error(http: requests.Session, url: str, value: bytes,
                                                      problem: str) -> None:
    raw = b"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: y}\ndata: {a: " + value
    r = http.post(url + CM, data=raw, headers={"Content-Type": "application/yaml"})
    assert r.status_code == 400
    # sigs.k8s.io/yaml v1.4.0 `YAMLToJSON` returns go-yaml's error as it is (only its `Unmarshal` wraps it)
    assert r.json()["message"].startswith("the object provided is unrecognized (must be of type ConfigMap): "
                                          f"yaml: {problem} (")


def test_kubectl_get_raw_shows_go_bytes(url: str, tmp_path: Path, http: requests.Session, html_cm: str) -> None:
    out = run_kubectl(url, tmp_path, "get", "--raw", f"{CM}/{html_cm}")
    assert out.returncode == 0, out.stderr
    assert ESCAPED.decode() in out.stdout
    shown = run_kubectl(url, tmp_path, "get", "configmap", html_cm, "-n", "default", "-o", "jsonpath={.data.a}")
    assert shown.returncode == 0 and shown.stdout == "<b>&\u2028\u2029é"


def test_yaml_answer_is_go_yamls(http: requests.Session, url: str) -> None:
    """sigs.k8s.io/yaml `JSONToYAML`: keys sorted (`a2` before `a10`), strings go-yaml would read otherwise
    double-quoted (numbers, bools such as `y`, `""`, timestamps), a newline a literal block; Status errors too."""
    name = unique("yaml")
    data = {"a10": "214", "a2": "y", "b": "", "c": "true", "d": "line\n", "e": "a: b", "f": "2026-01-02", "g": "é<&"}
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data}
    assert http.post(url + CM, json=body).status_code == 201
    try:
        r = http.get(f"{url}{CM}/{name}", headers={"Accept": "application/yaml"})
        assert r.headers["Content-Type"] == "application/yaml"
        assert r.content.startswith(
            'apiVersion: v1\ndata:\n  a2: "y"\n  a10: "214"\n  b: ""\n  c: "true"\n  d: |\n    line\n  e: \'a: b\'\n'
            '  f: "2026-01-02"\n  g: é<&\nkind: ConfigMap\nmetadata:\n  creationTimestamp: "'.encode())
        assert f'\n  name: {name}\n  namespace: default\n  resourceVersion: "'.encode() in r.content
    finally:
        http.delete(f"{url}{CM}/{name}")
    missing = http.get(f"{url}{CM}/absent", headers={"Accept": "application/yaml"})
    assert missing.status_code == 404 and missing.headers["Content-Type"] == "application/yaml"
    assert missing.content == (b'apiVersion: v1\ncode: 404\ndetails:\n  kind: configmaps\n  name: absent\nkind: Status\n'
                               b'message: configmaps "absent" not found\nmetadata: {}\nreason: NotFound\n'
                               b'status: Failure\n')


def test_openapi_v3_escapes_html_and_v2_does_not(http: requests.Session, url: str) -> None:
    """`/openapi/v3`: `json.Marshal` (encoding/json compacts the `MarshalJSON` bytes with its escapes);
    `/openapi/v2`: `spec.MarshalJSON()` alone (go-json-experiment: `<`, `>`, `&` as they are)."""
    phrase = "The value must be {}0 {}{} {}=86400"
    v3 = http.get(url + "/openapi/v3/api/v1").content.decode()
    assert phrase.format("\\u003e", "\\u0026", "\\u0026", "\\u003c") in v3 and "must be >0" not in v3
    v2 = http.get(url + "/openapi/v2", headers={"Accept": "application/json"}).content.decode()
    assert phrase.format(">", "&", "&", "<") in v2 and "\\u003e" not in v2


def test_pretty_in_the_accepted_accept_clause_only(http: requests.Session, url: str, html_cm: str) -> None:
    """`NegotiateMediaTypeOptions`: `pretty=1` counts in the clause the server accepted (its `acceptMediaTypeOptions`),
    not in one it passed over or one ranked below it."""
    compact = http.get(f"{url}{CM}/{html_cm}", headers={"User-Agent": "x"}).content
    pretty = indent(compact[:-1].decode()).encode()
    table = "application/json;as=Table;g=meta.k8s.io;v=v1"
    for accept, want in (("application/json;pretty=1", pretty),
                         ("*/*;pretty=1", pretty),
                         ("application/json, application/yaml;pretty=1", compact),
                         ("application/json;q=0.9, application/json;pretty=1", pretty),
                         ("application/json, application/json;pretty=1", compact),
                         ("application/*;pretty=1, application/json", compact),  # concrete before wildcard
                         ("application/json;pretty=true", compact),  # exactly "1"
                         # a media type not served (CBOR: its feature gate is off in 1.33) is passed over
                         ("application/cbor;pretty=1, application/json", compact),
                         ("application/cbor, application/json;pretty=1", pretty),
                         # a conversion the endpoint refuses (as=Foo) is passed over
                         ("application/json;as=Foo;g=meta.k8s.io;v=v1;pretty=1, application/json", compact),
                         ("application/json;as=Foo;g=meta.k8s.io;v=v1, application/json;pretty=1", pretty)):
        got = http.get(f"{url}{CM}/{html_cm}", headers={"Accept": accept, "User-Agent": "x"})
        assert got.status_code == 200 and got.content == want, accept
    as_table = http.get(f"{url}{CM}/{html_cm}", headers={"Accept": f"{table};pretty=1, application/json",
                                                         "User-Agent": "x"})
    assert as_table.content.startswith(b'{\n  "kind": "Table",\n  "apiVersion": "meta.k8s.io/v1",')
    plain_table = http.get(f"{url}{CM}/{html_cm}", headers={"Accept": f"{table}, application/json;pretty=1",
                                                            "User-Agent": "x"})
    assert plain_table.content.startswith(b'{"kind":"Table","apiVersion":"meta.k8s.io/v1",')
    # discovery takes no meta.k8s.io conversion: the next clause is the accepted one
    assert http.get(url + "/api", headers={"Accept": f"{table};pretty=1, application/json",
                                           "User-Agent": "x"}).content.startswith(b'{"kind":"APIVersions",')
    assert http.get(url + "/api", headers={"Accept": f"{table}, application/json;pretty=1",
                                           "User-Agent": "x"}).content.startswith(b'{\n  "kind": "APIVersions",')
    # aggregated discovery: its own conversion's clause
    aggregated = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
    assert http.get(url + "/apis", headers={"Accept": f"{aggregated};pretty=1, application/json",
                                            "User-Agent": "x"}).content.startswith(
        b'{\n  "kind": "APIGroupDiscoveryList",\n  "apiVersion": "apidiscovery.k8s.io/v2",')
    assert http.get(url + "/apis", headers={"Accept": f"{aggregated}, application/json;pretty=1",
                                            "User-Agent": "x"}).content.startswith(
        b'{"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2",')
    # a Status error is written by the serializer of the clause accepted as a resource endpoint accepts
    missing = http.get(f"{url}{CM}/absent", headers={"Accept": f"{table};pretty=1, application/json",
                                                     "User-Agent": "x"})
    assert missing.status_code == 404 and missing.content.startswith(b'{\n  "kind": "Status",')
    missing = http.get(f"{url}{CM}/absent", headers={"Accept": f"{table}, application/json;pretty=1",
                                                     "User-Agent": "x"})
    assert missing.status_code == 404 and missing.content.startswith(b'{"kind":"Status",')
