"""wire/gojson.py: Go's encoding/json scanner errors (scanner.go), word for word, for bodies that are not JSON;
and the HTTP answer that carries them (`json parse error: ...`, as kube-apiserver's serializer words it)."""
from __future__ import annotations

import pytest
import requests

from conformance.reference_server.wire.gojson import syntax_error


@pytest.mark.parametrize("raw, message", [
    (b"{bad", "invalid character 'b' looking for beginning of object key string"),
    (b"", "unexpected end of JSON input"),
    (b'{"a":1', "unexpected end of JSON input"),
    (b'{"a" 1}', "invalid character '1' after object key"),
    (b'{"a":1 "b":2}', "invalid character '\"' after object key:value pair"),
    (b"[1 2]", "invalid character '2' after array element"),
    (b'{"a":1}x', "invalid character 'x' after top-level value"),
    (b'{"a":tru}', "invalid character '}' in literal true (expecting 'e')"),
    (b'{"a":fals}', "invalid character '}' in literal false (expecting 'e')"),
    (b'{"a":nul}', "invalid character '}' in literal null (expecting 'l')"),
    (b'{"a":"\x01"}', "invalid character '\\x01' in string literal"),
    (b'{"a":"\\x"}', "invalid character 'x' in string escape code"),
    (b'{"a":"\\u12g4"}', "invalid character 'g' in \\u hexadecimal character escape"),
    (b'{"a":-}', "invalid character '}' in numeric literal"),
    (b'{"a":1.}', "invalid character '}' after decimal point in numeric literal"),
    (b'{"a":1e}', "invalid character '}' in exponent of numeric literal"),
    (b'{"a":01}', "invalid character '1' after object key:value pair"),
    (b"{'a':1}", "invalid character '\\'' looking for beginning of object key string"),
    (b"\xff", "invalid character '\u00ff' looking for beginning of value"),
])
def test_gos_words(raw: bytes, message: str) -> None:
    assert syntax_error(raw) == message


@pytest.mark.parametrize("raw", [b'{"a":1}', b"[]", b"{}", b'  {"a":[1,2.5e-3,{"b":null,"c":true}]}  ', b'"\\u00e9"'])
def test_json_is_accepted(raw: bytes) -> None:
    assert syntax_error(raw) is None


def test_the_answer_carries_gos_words(url: str) -> None:
    r = requests.post(f"{url}/api/v1/namespaces", data=b"{bad", headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and r.json()["message"] == (
        "the object provided is unrecognized (must be of type Namespace): couldn't get version/kind; json parse "
        "error: invalid character 'b' looking for beginning of object key string ({bad)")
