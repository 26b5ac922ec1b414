"""`wire/gomime.py`: Go's `mime.ParseMediaType` (Go 1.24), the reader of a request body's Content-Type."""
from __future__ import annotations

import pytest

from conformance.reference_server.wire.gomime import MediaTypeError, parse_media_type


@pytest.mark.parametrize("value, parsed", [
    ("application/json", ("application/json", {})),
    ("Application/JSON ; Charset=UTF-8", ("application/json", {"charset": "UTF-8"})),
    ('text/plain; x="a \\"b\\" \\c"', ("text/plain", {"x": 'a "b" \\c'})),  # `\` escapes only a tspecial
    ("application/json;", ("application/json", {})),
    ("application/json; a=1; a=1", ("application/json", {"a": "1"})),  # an equal repeat is allowed
    ("json", ("json", {})),
    ("appl\u0130cation/json", ("application/json", {})),  # strings.ToLower: U+0130 is `i`
])
def test_parsed(value, parsed):
    assert parse_media_type(value) == parsed


@pytest.mark.parametrize("value, message", [
    ("", "mime: no media type"),
    ("/json", "mime: no media type"),
    ("application json", "mime: expected slash after first token"),
    ("application/ json", "mime: expected token after slash"),
    ("application/json/x", "mime: unexpected content after media subtype"),
    ("application/json; charset", "mime: invalid media parameter"),
    ('application/json; x="open', "mime: invalid media parameter"),
    ("application/json; a=1; a=2", "mime: duplicate parameter name"),
])
def test_refused(value, message):
    with pytest.raises(MediaTypeError, match=f"^{message}$"):
        parse_media_type(value)
