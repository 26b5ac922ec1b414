"""gonet/mail.py against Go's own tables (src/net/mail/message_test.go of Go 1.24: `TestAddressParsingError`'s
`mustErrTestCases` and the single addresses of `TestAddressParsing`)."""
from __future__ import annotations

import pytest

from conformance.reference_server.goport.gonet.mail import Address, MailError, parse_address

SURROGATE_HALF = b"\xed\xa0\x80".decode("utf-8", "surrogateescape")  # bytes Go reads as invalid UTF-8

MUST_ERR = [
    ("=?iso-8859-2?Q?Bogl=E1rka_Tak=E1cs?= <unknown@gmail.com>", "charset not supported"),
    ("a@gmail.com b@gmail.com", "expected single address"),
    (SURROGATE_HALF + " <micro@example.net>", "invalid utf-8 in address"),
    ('"' + SURROGATE_HALF + '" <half-surrogate@example.com>', "invalid utf-8 in quoted-string"),
    ('"\\' + b"\x80".decode("utf-8", "surrogateescape") + '" <escaped-invalid-unicode@example.net>',
     "invalid utf-8 in quoted-string"),
    ('"\x00" <null@example.net>', "bad character in quoted-string"),
    ('"\\\x00" <escaped-null@example.net>', "bad character in quoted-string"),
    ("John Doe", "no angle-addr"),
    ("<jdoe#machine.example>", "missing @ in addr-spec"),
    ("John <middle> Doe <jdoe@machine.example>", "missing @ in addr-spec"),
    ("cfws@example.com (", "misformatted parenthetical comment"),
    ("empty group: ;", "empty group"),
    ("root group: embed group: null@example.com;", "no angle-addr"),
    ("group not closed: null@example.com", "expected comma"),
    ("group: first@example.com, second@example.com;", "group with multiple addresses"),
    ("john.doe", "missing '@' or angle-addr"),
    ("john.doe@", "missing '@' or angle-addr"),
    ("John Doe@foo.bar", "no angle-addr"),
    (" group: null@example.com; (asd", "misformatted parenthetical comment"),
    (" group: ; (asd", "misformatted parenthetical comment"),
    ("(John) Doe <jdoe@machine.example>", "missing word in phrase:"),
    ("<jdoe@[" + SURROGATE_HALF + "192.168.0.1]>", "invalid utf-8 in domain-literal"),
    ("<jdoe@[[192.168.0.1]>", "bad character in domain-literal"),
    ("<jdoe@[192.168.0.1>", "unclosed domain-literal"),
    ("<jdoe@[256.0.0.1]>", "invalid IP address in domain-literal"),
]


@pytest.mark.parametrize("text, want", MUST_ERR, ids=[repr(t[0]) for t in MUST_ERR])
def test_address_parsing_errors(text, want):
    with pytest.raises(MailError) as exc:
        parse_address(text)
    assert want in str(exc.value)


@pytest.mark.parametrize("text, why", [
    ("", "mail: no address"),
    ("   ", "mail: no address"),
    ("John Doe", "mail: no angle-addr"),
    ("<jdoe#machine.example>", "mail: missing @ in addr-spec"),
    ("john.doe", "mail: missing '@' or angle-addr"),
    ("a@gmail.com b@gmail.com", 'mail: expected single address, got "b@gmail.com"'),
    ('"\x00" <null@example.net>', "mail: missing word in phrase: mail: bad character in quoted-string: '\\x00'"),
    ("=?iso-8859-2?Q?x?= <u@example.com>", 'mail: missing word in phrase: charset not supported: "iso-8859-2"'),
    ("<jdoe@[256.0.0.1]>", 'mail: invalid IP address in domain-literal: "256.0.0.1"'),
    ("<a@b", "mail: unclosed angle-addr"),
    ("<a@[fe80::1%eth0]>", 'mail: invalid IP address in domain-literal: "fe80::1%eth0"'),
    ("<a@[1.2.3.04]>", 'mail: invalid IP address in domain-literal: "1.2.3.04"'),
])
def test_whole_error_texts(text, why):
    with pytest.raises(MailError) as exc:
        parse_address(text)
    assert str(exc.value) == why


SINGLE = [
    ("jdoe@machine.example", "", "jdoe@machine.example"),
    ("John Doe <jdoe@machine.example>", "John Doe", "jdoe@machine.example"),
    ('"Joe Q. Public" <john.q.public@example.com>', "Joe Q. Public", "john.q.public@example.com"),
    ("John (middle) Doe <jdoe@machine.example>", "John Doe", "jdoe@machine.example"),
    ('"John (middle) Doe" <jdoe@machine.example>', "John (middle) Doe", "jdoe@machine.example"),
    ('"John <middle> Doe" <jdoe@machine.example>', "John <middle> Doe", "jdoe@machine.example"),
    ("Joe Q. Public <john.q.public@example.com>", "Joe Q. Public", "john.q.public@example.com"),
    ("group1: groupaddr1@example.com;", "", "groupaddr1@example.com"),
    ("=?iso-8859-1?q?J=F6rg_Doe?= <joerg@example.com>", "Jörg Doe", "joerg@example.com"),
    ("=?us-ascii?q?J=6Frg_Doe?= <joerg@example.com>", "Jorg Doe", "joerg@example.com"),
    ("=?utf-8?q?J=C3=B6rg_Doe?= <joerg@example.com>", "Jörg Doe", "joerg@example.com"),
    ("=?utf-8?q?J=C3=B6rg?=  =?utf-8?q?Doe?= <joerg@example.com>", "JörgDoe", "joerg@example.com"),
    ("=?ISO-8859-1?Q?Andr=E9?= Pirard <PIRARD@vm1.ulg.ac.be>", "André Pirard", "PIRARD@vm1.ulg.ac.be"),
    ("=?ISO-8859-1?B?SvZyZw==?= <joerg@example.com>", "Jörg", "joerg@example.com"),
    ("=?UTF-8?B?SsO2cmc=?= <joerg@example.com>", "Jörg", "joerg@example.com"),
    ("Asem H. <noreply@example.com>", "Asem H.", "noreply@example.com"),
    ('"Gø Pher" <gopher@example.com>', "Gø Pher", "gopher@example.com"),
    ("µ <micro@example.com>", "µ", "micro@example.com"),
    ("Micro <µ@example.com>", "Micro", "µ@example.com"),
    ("Micro <micro@µ.example.com>", "Micro", "micro@µ.example.com"),
    ('"" <emptystring@example.com>', "", "emptystring@example.com"),
    ("<cfws@example.com> (CFWS (cfws))  (another comment)", "", "cfws@example.com"),
    ("john@example.com (John Doe)", "John Doe", "john@example.com"),
    ("John Doe <john@example.com> (Joey)", "John Doe", "john@example.com"),
    ("john@example.com(John Doe)", "John Doe", "john@example.com"),
    ("asjo@example.com (Adam =?utf-8?Q?Sj=C3=B8gren?=)", "Adam Sjøgren", "asjo@example.com"),
    ("asjo@example.com (Adam\t=?utf-8?Q?Sj=C3=B8gren?=)", "Adam Sjøgren", "asjo@example.com"),
    ("asjo@example.com (Adam =?utf-8?Q?Sj=C3=B8gren?= (Debian))", "Adam Sjøgren (Debian)", "asjo@example.com"),
    ('x(:"):"@a.example;("@b.example;', "", "@a.example;(@b.example"),
    ("jdoe@[192.168.0.1]", "", "jdoe@[192.168.0.1]"),
    ("John Doe <jdoe@[192.168.0.1]>", "John Doe", "jdoe@[192.168.0.1]"),
    ("a@[2001:db8::1]", "", "a@[2001:db8::1]"),
]


@pytest.mark.parametrize("text, name, address", SINGLE, ids=[t[0] for t in SINGLE])
def test_address_parsing(text, name, address):
    assert parse_address(text) == Address(name, address)


@pytest.mark.parametrize("text, ok", [
    ("a" * 1_000_000 + "@b", True),
    ('"' + "\\a" * 500_000 + '"@b', True),
    ("x " * 500_000 + "<a@b>", True),
    ("a@b " + "(" * 1_000_000, False),
    ("a@b (" + "(" * 500_000 + ")" * 500_000 + ")", True),
    ("=?utf-8?q?" + "=41" * 300_000 + "?= <a@b>", True),
])
def test_a_megabyte_address_is_parsed_in_linear_time(text, ok):
    """A CR value can be megabytes long; Go's parser is linear, so must this one be (Python's slicing copies)."""
    import time
    start = time.monotonic()
    try:
        parse_address(text)
        parsed = True
    except MailError:
        parsed = False
    assert parsed is ok
    assert time.monotonic() - start < 10  # quadratic would be hours
