"""The request's query read as Go's `req.URL.Query()` reads the request line (http/goquery.py): a pair with a `;`
or a bad `%` escape is left out, `+` is a space, a `#` is data, and a byte that is not UTF-8 is kept, so the
messages that quote a query value with `%q` write `\\xff` (aiohttp's yarl made it U+FFFD and kept the bad
pairs), and a message that prints it with `%s` is written by Go's JSON encoder as the escape `\\ufffd`."""
from __future__ import annotations

import json

import pytest

from conformance.reference_server.http.goquery import parse, raw_query, request_query

from .rawhttp import raw


@pytest.mark.parametrize("query, pairs", [
    ("a=1;b=2&c=3", [("c", "3")]),  # "invalid semicolon separator in query": the pair is dropped
    ("a=%zz&b=1", [("b", "1")]),  # `invalid URL escape "%zz"`
    ("a=%&b=%2&c=1", [("c", "1")]),
    ("%zz=1&d=2", [("d", "2")]),  # a key's bad escape too
    ("a=%FF", [("a", "\udcff")]),  # any byte, kept (surrogate-escaped)
    ("a=%e2%82%ac%e2%82", [("a", "€\udce2\udc82")]),
    ("a+b=c+d%2B", [("a b", "c d+")]),
    ("=x&a&&b=", [("", "x"), ("a", ""), ("b", "")]),
    ("a=1&b=2&a=3", [("a", "1"), ("b", "2"), ("a", "3")]),
    ("a=b#c", [("a", "b#c")]),  # a request's URL keeps its `#` in RawQuery (`parse` with viaRequest)
    ("a=b=c", [("a", "b=c")]),
    ("", []),
])
def test_parse_query_as_go(query: str, pairs: list[tuple[str, str]]) -> None:
    assert list(parse(query).items()) == pairs


def test_the_raw_query_is_all_after_the_first_question_mark() -> None:
    assert raw_query("/api/v1/namespaces?a=1?b#c") == "a=1?b#c"
    assert raw_query("/api/v1/namespaces") == ""
    assert list(request_query("/x?a?b=c").items()) == [("a?b", "c")]
    assert list(request_query("/x").items()) == list(request_query("/x?").items()) == []


def _answer(server, target: bytes, method: bytes = b"GET", body: bytes = b"", headers: bytes = b"") -> tuple[int, bytes]:
    out = raw(server, method + b" " + target + b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" + headers +
              b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
    head, _, content = out.partition(b"\r\n\r\n")
    return int(head.split(b" ")[1]), content


def _message(server, query: bytes) -> tuple[int, str]:
    code, body = _answer(server, b"/api/v1/namespaces?" + query)
    return code, json.loads(body)["message"]


@pytest.mark.parametrize("query, code, message", [
    (b"limit=%FF", 400, 'strconv.ParseInt: parsing "\\xff": invalid syntax'),
    (b"timeoutSeconds=a%FF%C3%A9", 400, 'strconv.ParseInt: parsing "a\\xffé": invalid syntax'),
    (b"labelSelector=a%3D%FF", 400, 'unable to parse requirement: values[0][a]: Invalid value: "\\xff": a valid '
     "label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and "
     "end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation "
     "is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"),
    (b"labelSelector=a%3D" + b"%FF" * 40, 400, 'unable to parse requirement: values[0][a]: Invalid value: "' +
     "\\xff" * 40 + '": a valid label must be an empty string or consist of alphanumeric characters, \'-\', \'_\' or '
     "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', "
     "regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"),  # 40 bytes: not too long
    (b"resourceVersion=1&resourceVersionMatch=%FF", 422, 'ListOptions.meta.k8s.io "" is invalid: '
     'resourceVersionMatch: Unsupported value: "\\xff": supported values: "Exact", "NotOlderThan", ""'),
    (b"resourceVersion=%FF&resourceVersionMatch=Exact", 400, 'invalid resource version: resourceVersion: Invalid '
     'value: "\\xff": strconv.ParseUint: parsing "\\xff": invalid syntax'),
    (b"timeout=%FF", 400, 'invalid timeout specified in the request URL - time: invalid duration "\\xff"'),
])
def test_a_value_quoted_with_q_shows_its_bytes(server, query: bytes, code: int, message: str) -> None:
    assert _message(server, query) == (code, message)


def test_a_value_printed_with_s_is_json_escaped_as_go_writes_a_bad_byte(server) -> None:
    code, body = _answer(server, b"/api/v1/namespaces?fieldSelector=%FF")
    assert code == 400
    assert b'"message":"invalid selector: \'\\ufffd\'; can\'t understand \'\\ufffd\'"' in body
    code, body = _answer(server, b"/api/v1/namespaces?fieldSelector=%FF", headers=b"Accept: application/yaml\r\n")
    assert code == 400  # sigs.k8s.io/yaml reads json.Marshal's escape back: U+FFFD itself
    assert "message: 'invalid selector: ''\ufffd''; can''t understand ''\ufffd'''\n".encode() in body


@pytest.mark.parametrize("query", [b"labelSelector=%zz", b"labelSelector=x;y", b"labelSelector=%", b"limit=1;"])
def test_a_pair_go_cannot_read_is_not_there(server, query: bytes) -> None:
    code, body = _answer(server, b"/api/v1/namespaces?" + query)
    assert code == 200 and json.loads(body)["kind"] == "NamespaceList"


def test_a_field_manager_keeps_its_bytes(server, namespaces) -> None:
    """`ValidateFieldManager` reads a bad byte as `utf8.RuneError`, printable; the manager is stored with the byte
    and written back as `\\ufffd`."""
    ns = namespaces.create()["metadata"]["name"].encode()
    base = b"/api/v1/namespaces/" + ns + b"/configmaps"
    code, body = _answer(server, base + b"?fieldManager=a%FFb", b"POST", b'{"metadata":{"name":"c"},"data":{"a":"b"}}')
    assert code == 201 and b'"manager":"a\\ufffdb"' in body, body
    code, body = _answer(server, base + b"/c", headers=b"Accept: application/yaml\r\n")
    assert code == 200 and "manager: a\ufffdb\n".encode() in body
    code, body = _answer(server, base + b"?fieldManager=%01%FF", b"POST", b'{"metadata":{"name":"d"}}')
    assert code == 422 and json.loads(body)["message"] == (
        'CreateOptions.meta.k8s.io "" is invalid: fieldManager: Invalid value: "\\x01\\xff": invalid character '
        "U+0001 (at position 0)")


PB = b"Accept: application/vnd.kubernetes.protobuf,application/json\r\n"  # what a typed client-go client sends


def test_a_protobuf_answer_holds_the_byte_itself(server, namespaces) -> None:
    """gogo's marshallers write a string's bytes as they are, so a typed client gets protobuf, not its JSON
    choice: the manager in `managedFields` and a Status message printing the selector hold the byte 0xff."""
    ns = namespaces.create()["metadata"]["name"].encode()
    base = b"/api/v1/namespaces/" + ns + b"/configmaps"
    code, body = _answer(server, base + b"?fieldManager=a%FFb", b"POST", b'{"metadata":{"name":"c"},"data":{"a":"b"}}',
                         PB)
    assert code == 201 and body.startswith(b"k8s\x00") and b"\n\x03a\xffb" in body  # manager=1, 3 bytes
    code, body = _answer(server, base + b"/c", headers=PB)
    assert code == 200 and body.startswith(b"k8s\x00") and b"\n\x03a\xffb" in body
    code, body = _answer(server, b"/api/v1/namespaces?fieldSelector=%FF", headers=PB)
    message = b"invalid selector: '\xff'; can't understand '\xff'"
    assert code == 400 and body.startswith(b"k8s\x00") and b"\x1a" + bytes([len(message)]) + message in body
