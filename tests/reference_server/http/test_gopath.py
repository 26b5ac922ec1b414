"""The request's path read as Go's `req.URL.Path` holds it (http/gopath.py): a `%`-escape of a byte that is not
UTF-8, or the raw byte, is that byte (yarl left `%FF` escaped, so the name was refused for its `%`, a 400), and a
name holding it passes `IsValidPathSegmentName`: the name is not found (the 404), its `%q` writing `\\xff` and Go's
JSON encoder `\\ufffd` for it in `details.name` and a message printing it with `%s`. On both storage backends
(etcd's keys are the byte itself)."""
from __future__ import annotations

import pytest

from conformance.reference_server.http.gopath import bad_escape, go_path

from .rawhttp import raw


@pytest.mark.parametrize("target, path", [
    ("/api/v1/namespaces/a%FF", "/api/v1/namespaces/a\udcff"),
    ("/api/v1/namespaces/a\udcff?x=%FF", "/api/v1/namespaces/a\udcff"),  # the raw byte, as aiohttp decoded it
    ("/a%e9%C3%A9%2F%2B+x#y", "/a\udce9é/++x#y"),  # every escape decoded, `+` kept, a `#` is path
    ("/a%25%FF", "/a%\udcff"),
    ("/a%C3%A9", "/aé"),  # UTF-8: what yarl reads too
    ("/a%2Fb", None),  # no byte >= 0x80: yarl's reading is Go's
    ("/a?b=%FF", None),  # the query's byte is the query's (goquery.py)
    ("/a%zz%FF", None),  # a bad escape: Go's bare 400 (connection.py), yarl's reading here
])
def test_go_path(target: str, path: str | None) -> None:
    assert go_path(target) == path


@pytest.mark.parametrize("target, bad", [("/a%zz", True), ("/a%", True), ("/a%2", True), ("/a%2F%ff", False),
                                         ("/a?b=%zz", False), ("/a#%zz", True)])
def test_bad_escape(target: str, bad: bool) -> None:
    assert bad_escape(target) is bad


def _answer(server, target: bytes, method: bytes = b"GET", body: bytes = b"") -> tuple[bytes, bytes]:
    out = raw(server, method + b" " + target + b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
              b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
    head, _, content = out.partition(b"\r\n\r\n")
    return head.split(b"\r\n")[0], content


NOT_FOUND = (b"HTTP/1.1 404 Not Found", b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",'
             b'"message":"namespaces \\"a\\\\xff\\" not found","reason":"NotFound","details":{"name":"a\\ufffd",'
             b'"kind":"namespaces"},"code":404}\n')


@pytest.mark.parametrize("target", [b"/api/v1/namespaces/a%FF", b"/api/v1/namespaces/a%ff/",
                                    b"/api/v1/namespaces/a\xff"])
@pytest.mark.parametrize("method", [b"GET", b"DELETE"])
def test_a_name_with_a_byte_that_is_not_utf8_is_not_found(server, target: bytes, method: bytes) -> None:
    assert _answer(server, target, method) == NOT_FOUND


def test_a_create_in_such_a_namespace_is_not_found(server) -> None:
    """NamespaceLifecycle's live lookup of the namespace (the loopback client's GET, protobuf: the byte kept)."""
    assert _answer(server, b"/api/v1/namespaces/a%FF/configmaps", b"POST", b'{"metadata":{"name":"c"}}') == NOT_FOUND


def test_an_update_names_the_url_name_with_s(server) -> None:
    """`checkName`: `the name of the object (%s) does not match the name on the URL (%s)`."""
    assert _answer(server, b"/api/v1/namespaces/a%FF", b"PUT", b'{"metadata":{"name":"a"}}') == (
        b"HTTP/1.1 400 Bad Request", b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",'
        b'"message":"the name of the object (a) does not match the name on the URL (a\\ufffd)","reason":"BadRequest",'
        b'"code":400}\n')


def test_a_name_in_a_namespace_keeps_its_bytes(server, namespaces) -> None:
    ns = namespaces.create()["metadata"]["name"].encode()
    assert _answer(server, b"/api/v1/namespaces/" + ns + b"/configmaps/x%FF%C3%A9") == (
        b"HTTP/1.1 404 Not Found", b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",'
        b'"message":"configmaps \\"x\\\\xff\xc3\xa9\\" not found","reason":"NotFound","details":{"name":'
        b'"x\\ufffd\xc3\xa9","kind":"configmaps"},"code":404}\n')


def test_a_percent_is_still_refused(server) -> None:
    assert _answer(server, b"/api/v1/namespaces/a%25%FF") == (
        b"HTTP/1.1 400 Bad Request", b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",'
        b'"message":"Name parameter invalid: \\"a%\\\\xff\\": may not contain \'%\'","reason":"BadRequest",'
        b'"code":400}\n')


GO_BARE_400 = b"HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n" \
    b"400 Bad Request"


@pytest.mark.parametrize("target", [b"/api/v1/namespaces/a%zz", b"/api/v1/namespaces/a%", b"/api/v1/namespaces/a%F",
                                    b"/api/v1/namespaces/%zz/configmaps?limit=1"])
def test_a_bad_escape_in_the_path_is_gos_bare_400(server, target: bytes) -> None:
    """`url.ParseRequestURI` fails (`invalid URL escape "%zz"`): `readRequest`'s error, answered before any
    handler (it was the name's `may not contain '%'`)."""
    assert raw(server, b"GET " + target + b" HTTP/1.1\r\nHost: x\r\n\r\n") == GO_BARE_400


def test_a_bad_escape_in_the_query_is_the_querys(server) -> None:
    """The query is not unescaped by `ParseRequestURI`: its pair is left out by `Query()` (goquery.py)."""
    assert _answer(server, b"/api/v1/namespaces?limit=%zz")[0] == b"HTTP/1.1 200 OK"


def test_a_protobuf_answer_holds_the_byte_itself(server) -> None:
    """A typed client-go client's Status: gogo's marshallers copy `details.name`'s bytes, 0xff included."""
    out = raw(server, b"GET /api/v1/namespaces/a%FF HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
              b"Accept: application/vnd.kubernetes.protobuf,application/json\r\n\r\n")
    head, _, body = out.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 404 Not Found\r\n") and body.startswith(b"k8s\x00")
    assert b"\x0a\x02a\xff" in body and b'namespaces "a\\xff" not found' in body  # StatusDetails.name = 1
