"""The `format`s a custom resource's schema checks (registry/crformats.py: `supportedVersionedFormats` of
apiextensions-apiserver's `validation/formats.go`, kube-openapi's `strfmt.Default` checkers): a value not of its
format is refused with kube-openapi's `InvalidTypeFormat` (`<path> in body must be of type <format>: "<value>"`,
a `FieldValueTypeInvalid` cause); a format upstream does not know is not checked."""
from __future__ import annotations

import pytest
import requests

from conformance.reference_server.registry import crformats, crschema

from .test_crd_rules import gadget, refused, served, spec_schema, srv  # noqa: F401 (srv: fixture)

# (format, values upstream's checker accepts, values it refuses)
CASES = [
    ("date-time", ["2024-01-02T03:04:05Z", "2024-01-02t03:04:05.123+02:00"],
     ["2024-01-02 03:04:05", "2024-13-02T03:04:05Z", "2024-01-02T24:00:00Z", "now"]),
    ("datetime", ["2024-01-02T03:04:05Z"], ["2024-01-02"]),
    ("date", ["2024-02-29"], ["2023-02-29", "2024-1-1", "2024-01-02T00:00:00Z"]),
    ("duration", ["1h", "3d", "1h30m", "1 hour"], ["abc", "h"]),
    ("uri", ["http://example.com/x?y=1", "/path", "mailto:a@b"], ["relative/path", "", "http://a b/", "%zz"]),
    ("email", ["a@b.c", "Joe <joe@x.org>"], ["nope", "a@", "@b"]),
    ("hostname", ["example.com", "a", "exämple.com"], ["-a.com", "a..b", "a_b.com", "a" * 64 + ".com"]),
    ("ipv4", ["1.2.3.4", "01.2.3.4", "::ffff:1.2.3.4"], ["1.2.3", "::1", "256.1.1.1"]),
    ("ipv6", ["::1", "2001:db8::1"], ["1.2.3.4", "fe80::1%eth0", "::g"]),
    ("cidr", ["10.0.0.0/8", "::/0"], ["10.0.0.0/33", "10.0.0.0"]),
    ("mac", ["00:00:5e:00:53:01", "00-00-5e-00-53-01", "0000.5e00.5301"], ["00:00:5e:00:53", "00:00:5e:00:53:0g"]),
    ("uuid", ["123e4567-e89b-12d3-a456-426614174000", "123E4567E89B12D3A456426614174000"], ["xyz"]),
    ("uuid3", ["123e4567-e89b-32d3-a456-426614174000"], ["123e4567-e89b-12d3-a456-426614174000"]),
    ("uuid4", ["123e4567-e89b-42d3-a456-426614174000"], ["123e4567-e89b-42d3-c456-426614174000"]),
    ("uuid5", ["123e4567-e89b-52d3-8456-426614174000"], ["123e4567-e89b-42d3-8456-426614174000"]),
    ("isbn", ["0321751043", "978-0321751041"], ["0321751044"]),
    ("isbn10", ["0-321-75104-3"], ["978-0321751041"]),
    ("isbn13", ["978 0321751041"], ["978-0321751042"]),
    ("creditcard", ["4111 1111 1111 1111"], ["4111 1111 1111 1112", "1234"]),
    ("ssn", ["123-45-6789", "123 45 6789"], ["123456789", "123-45-678"]),
    ("hexcolor", ["#fff", "A0B1C2"], ["#ffff", "#ggg"]),
    ("rgbcolor", ["rgb(255, 0, 10)"], ["rgb(256,0,0)", "rgb(1,2)"]),
    ("byte", ["aGVsbG8=", "YWJj"], ["aGVsbG8", "", "a$=="]),
    ("bsonobjectid", ["507f1f77bcf86cd799439011"], ["507f1f77bcf86cd79943901g", "507f"]),
    ("password", ["anything at all"], []),
]


@pytest.mark.parametrize("fmt, good, bad", CASES, ids=[c[0] for c in CASES])
def test_each_format_upstream_checks(fmt, good, bad):
    schema = {"type": "object", "properties": {"v": {"type": "string", "format": fmt}}}
    assert crformats.checks(fmt)
    for value in good:
        assert crschema.validate({"v": value}, schema) == [], (fmt, value)
    for value in bad:
        errs = crschema.validate({"v": value}, schema)
        assert [str(e) for e in errs] == [f'v: Invalid value: "{value}": v in body must be of type {fmt}: "{value}"']
        assert errs[0].type == "FieldValueTypeInvalid"


@pytest.mark.parametrize("fmt", ["int32", "int64", "float", "double", "k8s-short-name", "dns1123-label", "color"])
def test_formats_upstream_does_not_check_in_1_33(fmt):
    assert not crformats.checks(fmt)
    assert crschema.validate({"v": "!!"}, {"type": "object", "properties": {"v": {"type": "string",
                                                                                "format": fmt}}}) == []


def test_a_format_is_checked_after_the_type_and_before_the_enum():
    schema = {"type": "string", "format": "date", "enum": ["2024-01-01"]}
    assert [str(e) for e in crschema.validate("x", schema, "spec.d")] == [
        'spec.d: Invalid value: "x": spec.d in body must be of type date: "x"',
        'spec.d: Unsupported value: "x": supported values: "2024-01-01"']
    assert [str(e) for e in crschema.validate(3, schema, "spec.d")] == [
        'spec.d: Invalid value: "integer": spec.d in body must be of type string: "integer"']


def test_a_bad_format_is_a_422_over_http(srv):  # noqa: F811
    coll = served(srv, spec_schema({"when": {"type": "string", "format": "date-time"},
                                    "every": {"type": "string", "format": "duration"}}))
    message, causes = refused(requests.post(coll, json=gadget(coll, "g1", {"when": "yesterday", "every": "often"})))
    assert message == ('[spec.every: Invalid value: "often": spec.every in body must be of type duration: "often", '
                       'spec.when: Invalid value: "yesterday": spec.when in body must be of type date-time: '
                       '"yesterday"]') or message == (
        '[spec.when: Invalid value: "yesterday": spec.when in body must be of type date-time: "yesterday", '
        'spec.every: Invalid value: "often": spec.every in body must be of type duration: "often"]')
    assert {c["reason"] for c in causes} == {"FieldValueTypeInvalid"}
    ok = requests.post(coll, json=gadget(coll, "g1", {"when": "2024-01-02T03:04:05Z", "every": "90s"}))
    assert ok.status_code == 201, ok.text


# values where Go's url.ParseRequestURI / mail.ParseAddress and a Python approximation part ways
GO_ACCEPTS = {"uri": ["http://a:1:2/", "http://2b01:e34:ef40:7730:8e70:5aff:fefe:edac:8080/foo"],
              "email": ["john@example.com (John Doe)", "group1: groupaddr1@example.com;"]}
GO_REFUSES = {"uri": ["http://[fe80::%31]/", "http://192.168.0.%31/", "http://user^@h/"],
              "email": ["a@[1.2.3.999]", "=?iso-8859-2?Q?x?= <u@example.com>"]}


def test_uri_and_email_are_judged_by_go_over_http(srv):  # noqa: F811
    coll = served(srv, spec_schema({"link": {"type": "string", "format": "uri"},
                                    "mail": {"type": "string", "format": "email"}}))
    for i, (link, mail) in enumerate(zip(GO_ACCEPTS["uri"], GO_ACCEPTS["email"])):
        ok = requests.post(coll, json=gadget(coll, f"ok{i}", {"link": link, "mail": mail}))
        assert ok.status_code == 201, ok.text
    for fmt, field in (("uri", "link"), ("email", "mail")):
        for value in GO_REFUSES[fmt]:
            message, causes = refused(requests.post(coll, json=gadget(coll, "bad", {field: value})))
            assert message == (f'spec.{field}: Invalid value: "{value}": spec.{field} in body must be of type '
                               f'{fmt}: "{value}"')
            assert [c["reason"] for c in causes] == ["FieldValueTypeInvalid"]


def test_a_megabyte_uri_or_email_is_judged_without_stalling(srv):  # noqa: F811
    """Go's parsers are linear; so are gonet's, on a value as long as a request may carry."""
    coll = served(srv, spec_schema({"link": {"type": "string", "format": "uri"},
                                    "mail": {"type": "string", "format": "email"}}))
    ok = requests.post(coll, json=gadget(coll, "big", {"link": "https://h/" + "%41" * 200_000,
                                                 "mail": "x " * 200_000 + "<a@b>"}), timeout=60)
    assert ok.status_code == 201, ok.text[:300]
    message, _ = refused(requests.post(coll, json=gadget(coll, "big2", {"mail": "a@b " + "(" * 500_000}), timeout=60))
    assert message.startswith("spec.mail: Invalid value: ")
