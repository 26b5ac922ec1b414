"""Pure pieces: error constructors, validation texts, selectors, patches."""
from __future__ import annotations

import pytest

from conformance.reference_server import apierrors as E
from conformance.reference_server.http.patch import json_patch, merge_patch
from conformance.reference_server.http.strategicpatch import strategic_merge_patch
from conformance.reference_server.wire.patchmeta import EMPTY, for_kind
from conformance.reference_server.registry.selectors import labels_match, parse_field_selector, \
    parse_label_selector
from conformance.reference_server.registry.validation import is_dns1123_label, is_qualified_name, \
    validate_finalizer_name


def test_not_found_and_conflict_shapes():
    assert E.not_found("namespaces", "foo").status == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": 'namespaces "foo" not found', "reason": "NotFound",
        "details": {"name": "foo", "kind": "namespaces"}, "code": 404}
    c = E.conflict("namespaces", "foo", E.OPTIMISTIC_LOCK_MSG).status
    assert c["message"] == ('Operation cannot be fulfilled on namespaces "foo": the object has been modified; '
                            "please apply your changes to the latest version and try again")
    assert E.already_exists("namespaces", "x", being_deleted=True).message == \
        'object is being deleted: namespaces "x" already exists'


def test_forbidden_variants():
    assert E.forbidden("namespaces", "default", "this namespace may not be deleted").message == \
        'namespaces "default" is forbidden: this namespace may not be deleted'
    assert E.forbidden("namespaces", "", "x").message == "namespaces is forbidden: x"
    assert E.forbidden("", "", "x").message == "forbidden: x"


def test_invalid_aggregation():
    one = E.invalid("Namespace", "x", [E.field_required("metadata.name", "name or generateName is required")])
    assert one.message == 'Namespace "x" is invalid: metadata.name: Required value: name or generateName is required'
    assert one.status["details"]["causes"] == [{"reason": "FieldValueRequired", "field": "metadata.name",
                                                "message": "Required value: name or generateName is required"}]
    two = E.invalid("Namespace", "x", [E.field_invalid("a", "v", "bad"), E.field_invalid("b", "w", "bad"),
                                       E.field_invalid("a", "v", "bad")])
    assert two.message == 'Namespace "x" is invalid: [a: Invalid value: "v": bad, b: Invalid value: "w": bad]'
    assert two.code == 422 and two.status["details"]["kind"] == "Namespace"


@pytest.mark.parametrize("value, shown", [
    ("a\x01b", '"a\\x01b"'),        # a control byte: Go's \xNN, not JSON's \u0001
    ("a\x7fb", '"a\\x7fb"'),        # DEL, which JSON leaves raw
    ("a\u2028b", '"a\\u2028b"'),    # a line separator: not printable for Go
    ('q"\\', '"q\\"\\\\"'),
    ("é", '"é"'),
])
def test_a_bad_string_value_is_quoted_as_gos_percent_q(value, shown):
    """`field.Error.ErrorBody` prints a string value with `%q` (strconv.Quote), a Duplicate's as an Invalid's."""
    assert str(E.field_invalid("metadata.name", value, "bad")) == f"metadata.name: Invalid value: {shown}: bad"
    assert str(E.field_duplicate("spec.x[1]", value)) == f"spec.x[1]: Duplicate value: {shown}"


def test_other_constructors():
    assert E.method_not_supported("namespaces", "deletecollection").status["details"] == {"kind": "namespaces"}
    assert E.internal("boom").status["details"] == {"causes": [{"message": "boom"}]}
    assert E.expired("x").code == 410 and E.gone("x").reason == "Gone"
    assert E.unsupported_media_type().message.startswith("the body of the request was in an unknown format")
    assert E.unauthorized().status["message"] == "Unauthorized" and E.unauthorized().code == 401
    assert E.route_not_found().status["details"] == {} and E.route_method_not_allowed().code == 405
    assert E.request_entity_too_large("limit is 3145728").code == 413


def test_dns_label_messages():
    assert is_dns1123_label("a.b") == ["must not contain dots"]
    assert is_dns1123_label("a" * 64) == ["must be no more than 63 characters"]
    assert "(e.g. 'my-name',  or '123-abc'" in is_dns1123_label("Foo")[0]


def test_finalizer_names():
    assert validate_finalizer_name("kubernetes", "spec.finalizers") == []
    assert validate_finalizer_name("example.com/x", "spec.finalizers") == []
    [err] = validate_finalizer_name("foo", "spec.finalizers")
    assert str(err) == ('spec.finalizers: Invalid value: "foo": name is neither a standard finalizer name '
                        "nor is it fully qualified")
    [err] = validate_finalizer_name("a/b/c", "spec.finalizers")
    assert str(err).startswith('spec.finalizers: Invalid value: "a/b/c": a qualified name must consist of')
    assert str(err).endswith("with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')")
    assert is_qualified_name("/x") == ["prefix part must be non-empty"]


def test_label_selectors():
    sel = parse_label_selector("a=b,c!=d,e in (f,g),!h,i")
    assert labels_match(sel, {"a": "b", "e": "g", "i": ""})
    assert not labels_match(sel, {"a": "b", "e": "g", "i": "", "h": "1"})
    assert labels_match(parse_label_selector("x notin (y)"), {})
    for bad in ("a=(", "in in", "a b", "=x", "a in (b"):
        with pytest.raises(E.StatusError) as e:
            parse_label_selector(bad)
        assert e.value.code == 400


def test_field_selectors():
    allowed = ("metadata.name", "status.phase")
    assert parse_field_selector("status.phase=Active", allowed, True)[0].value == "Active"
    with pytest.raises(E.StatusError) as e:
        parse_field_selector("metadata.namespace=x", allowed, True)
    assert e.value.message == "field label not supported: metadata.namespace"
    with pytest.raises(E.StatusError) as e:
        parse_field_selector("data.x=y", ("metadata.name", "metadata.namespace"), False)
    assert e.value.message == '"data.x" is not a known field selector: only "metadata.name", "metadata.namespace"'


def test_json_patch():
    doc = {"a": {"b": 1}, "l": [1, 2]}
    out = json_patch(doc, [{"op": "add", "path": "/a/c", "value": 2}, {"op": "remove", "path": "/a/b"},
                           {"op": "replace", "path": "/l/0", "value": 9}, {"op": "add", "path": "/l/-", "value": 3},
                           {"op": "copy", "from": "/a", "path": "/z"}, {"op": "move", "from": "/z", "path": "/y"},
                           {"op": "test", "path": "/y/c", "value": 2}])
    assert out == {"a": {"c": 2}, "l": [9, 2, 3], "y": {"c": 2}} and doc == {"a": {"b": 1}, "l": [1, 2]}
    with pytest.raises(E.StatusError) as e:
        json_patch(doc, [{"op": "test", "path": "/a/b", "value": 5}])
    assert e.value.code == 422
    with pytest.raises(E.StatusError) as e:
        json_patch(doc, [{"op": "remove", "path": "/nope"}])
    assert e.value.code == 422
    with pytest.raises(E.StatusError) as e:
        json_patch(doc, {"op": "add"})
    assert e.value.code == 400


def test_merge_patch():
    assert merge_patch({"a": 1, "b": {"c": 1, "d": 2}, "l": [1]}, {"a": None, "b": {"c": None, "e": 3}, "l": [2]}) \
        == {"b": {"d": 2, "e": 3}, "l": [2]}


def test_strategic_merge():
    cur = {"status": {"conditions": [{"type": "A", "status": "True"}, {"type": "B", "status": "True"}]},
           "metadata": {"finalizers": ["x/a"], "labels": {"k": "v", "z": "1"}},
           "spec": {"containers": [{"name": "c", "image": "i"}]}}
    patch = {"status": {"conditions": [{"type": "B", "status": "False"}, {"type": "C", "status": "True"}]},
             "metadata": {"finalizers": ["x/b"], "labels": {"$patch": "replace", "n": "m"}},
             "spec": {"containers": [{"name": "c", "$patch": "delete"}]}}
    out = strategic_merge_patch(cur, patch, for_kind("", "v1", "Pod"))
    assert out["status"]["conditions"] == [{"type": "A", "status": "True"}, {"type": "B", "status": "False"},
                                           {"type": "C", "status": "True"}]
    assert out["metadata"]["finalizers"] == ["x/b", "x/a"]  # the patch's items first (mergeSortedSlice)
    assert out["metadata"]["labels"] == {"n": "m"}
    assert out["spec"]["containers"] == []
    assert strategic_merge_patch({"a": {"b": 1}}, {"a": {"$patch": "delete"}}, EMPTY) == {"a": {}}


@pytest.mark.parametrize("value, shown", [
    (None, '"null"'),                                   # nil (or a nil pointer) becomes the string "null"
    (True, "true"), (-3, "-3"),                         # int64, bool: %v
    (0.5, "0.5"), (1e6, "1e+06"), (2.0, "2"), (1e-05, "1e-05"),  # float64: %v is strconv's 'g', shortest
    (["orphan", "foregroundDeletion"], '[]string{"orphan", "foregroundDeletion"}'),  # %#v of a []string
    ([], "[]string{}"),
    ({"b": "2", "a": "1"}, 'map[string]string{"a":"1", "b":"2"}'),                  # %#v, keys sorted as fmt does
    ([1, "x", None], '[]interface {}{1, "x", interface {}(nil)}'),                  # decoded JSON: interface{}
    ({"a": [1]}, 'map[string]interface {}{"a":[]interface {}{1}}'),
    (E.GoValue("[]int32{1, 2}"), "[]int32{1, 2}"),                                  # a type the caller knows
    (E.unstructured_value(["a"]), '[]interface {}{"a"}'),                          # a custom resource's list
])
def test_a_bad_value_of_any_type_is_printed_as_error_body_prints_it(value, shown):
    """apimachinery util/validation/field/errors.go `ErrorBody` (v0.33): int64/float64/bool `%v`, string `%q`,
    anything else `%#v`; never JSON."""
    assert str(E.field_invalid("f", value, "bad")) == f"f: Invalid value: {shown}: bad"
    assert str(E.field_not_supported("f", value, ["x"])) == f'f: Unsupported value: {shown}: supported values: "x"'
