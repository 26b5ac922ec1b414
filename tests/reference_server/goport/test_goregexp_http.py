"""Go's regexp at the three places a pattern meets the server over HTTP (goregexp/): a CRD schema `pattern` Go
refuses is answered 422 with `regexp.Compile`'s error (apiextensions' `validateValueValidation`); a custom
resource's string is matched with Go's semantics (kube-openapi's `validate.Pattern`: `$` is the end of the text,
`\\p{Greek}` a Unicode script); a CEL `matches` runs Go's regexp (`\\Q...\\E`, ASCII `\\d`), not cel-rust's."""
from __future__ import annotations

import pytest
import requests

from ..test_crd_rules import gadget, refused, served, spec_schema, srv, write_crd  # noqa: F401 (srv: fixture)

PATH = "spec.validation.openAPIV3Schema.properties[spec].properties[s].pattern"


@pytest.mark.parametrize("pattern, error", [
    ("x{1001}", "invalid repeat count: `{1001}`"),
    ("[[:foo:]]", "invalid character class range: `[:foo:]`"),
    (r"\p{Klingon}", "invalid character class range: `\\p{Klingon}`"),
    ("(?<=a)b", "invalid named capture: `(?<=a)b`"),
    ("(?i)[k-K]", "invalid character class range: `k-K`"),
])
def test_a_crd_pattern_go_refuses_is_answered_with_gos_error(srv, pattern, error):
    r = write_crd(srv, spec_schema({"s": {"type": "string", "pattern": pattern}}))
    message, causes = refused(r)
    quoted = pattern.replace("\\", "\\\\").replace('"', '\\"')
    assert message == (f'{PATH}: Invalid value: "{quoted}": must be a valid regular expression, but isn\'t: '
                       f"error parsing regexp: {error}")
    assert causes[0]["field"] == PATH


def test_custom_resource_strings_are_matched_with_gos_semantics(srv):
    coll = served(srv, spec_schema({"s": {"type": "string", "pattern": "^a$"},
                                    "g": {"type": "string", "pattern": r"^\p{Greek}+$"}}))
    message, _ = refused(requests.post(coll, json=gadget(coll, "g1", {"s": "a\n"})))
    assert message == "spec.s: Invalid value: \"a\\n\": spec.s in body should match '^a$'"
    message, _ = refused(requests.post(coll, json=gadget(coll, "g1", {"g": "abc"})))
    assert message == "spec.g: Invalid value: \"abc\": spec.g in body should match '^\\p{Greek}+$'"
    assert requests.post(coll, json=gadget(coll, "g1", {"s": "a", "g": "αβγ"})).status_code == 201


def test_cel_matches_runs_gos_regexp(srv):
    coll = served(srv, spec_schema({"s": {"type": "string"}, "n": {"type": "string"}}, [
        {"rule": r"!has(self.s) || self.s.matches('^\\Qa.b\\E$')", "message": "s is not a.b"},
        {"rule": r"!has(self.n) || self.n.matches('^\\d+$')", "message": "n is not ASCII digits"}]))
    assert requests.post(coll, json=gadget(coll, "g1", {"s": "a.b", "n": "123"})).status_code == 201
    message, _ = refused(requests.post(coll, json=gadget(coll, "g2", {"s": "axb"})))
    assert message == 'spec: Invalid value: "object": s is not a.b'
    message, _ = refused(requests.post(coll, json=gadget(coll, "g3", {"n": "١٢٣"})))  # Arabic-Indic digits: not Go's \d
    assert message == 'spec: Invalid value: "object": n is not ASCII digits'

