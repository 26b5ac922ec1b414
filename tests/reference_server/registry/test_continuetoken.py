"""A `continue` token decoded as k8s.io/apiserver v0.33.1 `DecodeContinue` decodes it, its refusals in
`ValidateListOptions`'s words (`invalid continue token: ` + the error): Go's base64, JSON syntax and type errors,
where Python's own texts came through before (`Incorrect padding`, `Expecting value: line 1 column 1 (char 0)`,
`'utf-8' codec can't decode byte ...`, no `invalid continue token: `)."""
from __future__ import annotations

import base64

import pytest
import requests

from conformance.reference_server.apierrors import StatusError
from conformance.reference_server.registry.continuetoken import decode

PREFIX = "invalid continue token: continue key is not valid: "


def _token(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


@pytest.mark.parametrize("token, why", [
    ("!!", "illegal base64 data at input byte 0"),
    ("ab=", "illegal base64 data at input byte 2"),  # RawURLEncoding: no padding
    ("abcde", "illegal base64 data at input byte 4"),  # a quantum of one character
    ("ab+c", "illegal base64 data at input byte 2"),  # the standard alphabet's `+`
    ("\udcff", "illegal base64 data at input byte 0"),  # a query's byte that is not UTF-8
    ("abc", "invalid character 'i' looking for beginning of value"),
    (_token(b'{"v":"meta.k8s.io/v1","rv":5'), "unexpected end of JSON input"),
    (_token(b"[1]"), "json: cannot unmarshal array into Go value of type storage.continueToken"),
    (_token(b'"x"'), "json: cannot unmarshal string into Go value of type storage.continueToken"),
    (_token(b'{"rv":"5","v":true}'), "json: cannot unmarshal string into Go struct field continueToken.rv of "
                                     "type int64"),  # the first type error; decoding goes on
    (_token(b'{"v":"meta.k8s.io/v1","rv":1.5}'), "json: cannot unmarshal number 1.5 into Go struct field "
                                                 "continueToken.rv of type int64"),
    (_token(b'{"v":1}'), "json: cannot unmarshal number into Go struct field continueToken.v of type string"),
    (_token(b'{"v":"meta.k8s.io/v1","rv":1,"start":{}}'), "json: cannot unmarshal object into Go struct field "
                                                          "continueToken.start of type string"),
    (_token(b"{}"), "server does not recognize this encoded version "),
    (_token(b"null"), "server does not recognize this encoded version "),
    (_token(b'{"v":"v2"}'), "server does not recognize this encoded version v2"),
    (_token(b'{"v":"meta.k8s.io/v1","rv":0,"start":"a"}'),
     "incorrect encoded start resourceVersion (version meta.k8s.io/v1)"),
    (_token(b'{"v":"meta.k8s.io/v1","rv":3}'), "encoded start key empty (version meta.k8s.io/v1)"),
    (_token(b'{"v":"meta.k8s.io/v1","rv":3,"start":"../x"}'), "../x"),  # `path.Clean` changes it
    (_token(b'{"v":"meta.k8s.io/v1","rv":3,"start":"a/"}'), "a/"),
])
def test_refusals_in_upstreams_words(token: str, why: str) -> None:
    with pytest.raises(StatusError) as e:
        decode(token)
    assert (e.value.code, e.value.message) == (400, PREFIX + why)


def test_a_token_reads_as_go_reads_it() -> None:
    assert decode(_token(b'{"v":"meta.k8s.io/v1","rv":7,"start":"ns/a\\u0000"}')) == (7, "ns/a\x00")
    assert decode(_token(b'{"v":"meta.k8s.io/v1","rv":7,"start":"/a\\u0000"}')) == (7, "a\x00")  # `cleaned[1:]`
    assert decode(_token(b'{"V":"meta.k8s.io/v1","RV":-1,"Start":"a","x":[1]}')) == (-1, "a")  # keys fold case
    token = _token(b'{"v":"meta.k8s.io/v1","rv":2,"start":"a"}')
    assert decode(token[:5] + "\r\n" + token[5:]) == (2, "a")  # CR and LF are skipped


def test_the_list_answers_it(http: requests.Session, url: str) -> None:
    r = http.get(f"{url}/api/v1/namespaces", params={"limit": "1", "continue": "garbage!!"})
    assert (r.status_code, r.json()["message"]) == (400, PREFIX + "illegal base64 data at input byte 7")
