"""A custom resource's body must name its `kind`: apiextensions-apiserver's JSON serializer decodes it into an
`unstructured.Unstructured` (apimachinery v0.33 pkg/runtime/serializer/json/json.go `Decode`), which refuses one
without (`runtime.NewMissingKindErr`) on create and update alike, through create.go / update.go
`transformDecodeError`. Strict and Warn (the strict serializer: a plain map, then `Decode`'s own check, no kind
read) answer `the object provided is unrecognized`, quoting the body as sent; Ignore (`Unstructured.UnmarshalJSON`,
whose error `Decode` returns with the kind `Interpret` read, defaulted from the route) `Foo in version "v1" cannot
be handled as a Foo`, quoting the JSON read (a YAML body's `YAMLToJSON`). A missing `apiVersion` passes the decoder
(json.go's TODO(109023)) and is the empty group-version create.go / update.go `AcceptsGroupVersion` refuses.
(http/decode.py `custom_kind_error`, http/crbodygvk.py.)"""
from __future__ import annotations

from typing import Any, Iterator

import pytest

from .crds import CRDS, create_crd, delete_crd, schemaless_crd

GROUP = "nokind.example.com"
JSON = {"Content-Type": "application/json"}
YAML = {"Content-Type": "application/yaml"}


@pytest.fixture(scope="module")
def base(http, url) -> Iterator[str]:
    r = create_crd(http, url, schemaless_crd(GROUP, "nokinds", "NoKind"))
    assert r.status_code == 201, r.text
    yield f"{url}/apis/{GROUP}/v1/namespaces/default/nokinds"
    delete_crd(http, url, f"nokinds.{GROUP}")


def _status(message: str) -> dict[str, Any]:
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": message,
            "reason": "BadRequest", "code": 400}


def _strict(body: str, summary: str) -> dict[str, Any]:
    return _status(f"the object provided is unrecognized (must be of type NoKind): Object 'Kind' is missing in "
                   f"'{body}' ({summary})")


def _ignore(data: str, kind: str = "NoKind", version: str = "v1") -> dict[str, Any]:
    return _status(f'{kind} in version "{version}" cannot be handled as a NoKind: '
                   f"Object 'Kind' is missing in '{data}'")


NO_KIND = '{"apiVersion": "nokind.example.com/v1", "metadata": {"name": "a"}}'
NULL_KIND = '{"kind": null, "metadata": {"name": "a"}}'
EMPTY_KIND = '{"kind": "", "apiVersion": "v9", "metadata": {"name": "a"}}'


@pytest.mark.parametrize("mode", ["Strict", "Warn", None])
@pytest.mark.parametrize("body,summary", [
    (NO_KIND, NO_KIND[:30] + " ..."),  # (create.go `summarizeData`: the first 30 bytes)
    (NULL_KIND, NULL_KIND[:30] + " ..."),
    ("null", "6e756c6c"),
])
def test_strict_and_warn_refuse_it_unrecognized(http, base, mode: str | None, body: str, summary: str) -> None:
    params = {"fieldValidation": mode} if mode else {}
    for method, where in (("post", base), ("put", f"{base}/a")):
        r = getattr(http, method)(where, data=body, headers=JSON, params=params)
        assert (r.status_code, r.json()) == (400, _strict(body, summary)), (method, r.text)


def test_ignore_refuses_it_as_the_route_kind(http, base) -> None:
    """The kind and version in the message are `Interpret`'s (a body's `"Kind"` key, case-folded, included),
    defaulted from the route's; the quoted bytes the JSON's."""
    params = {"fieldValidation": "Ignore"}
    for method, where in (("post", base), ("put", f"{base}/a")):
        for body, kind, version in ((NO_KIND, "NoKind", "v1"), (NULL_KIND, "NoKind", "v1"), ("null", "NoKind", "v1"),
                                    (EMPTY_KIND, "NoKind", "v9"),
                                    ('{"Kind": "Other", "metadata": {"name": "a"}}', "Other", "v1")):
            r = getattr(http, method)(where, data=body, headers=JSON, params=params)
            assert (r.status_code, r.json()) == (400, _ignore(body, kind, version)), (method, body, r.text)
        # encoding/json hands `UnmarshalJSON` the value's bytes alone, Strict quotes the body as sent
        r = getattr(http, method)(where, data=f" {NO_KIND}\n", headers=JSON, params=params)
        assert (r.status_code, r.json()) == (400, _ignore(NO_KIND)), (method, r.text)
        r = getattr(http, method)(where, data=f" {NO_KIND}\n", headers=JSON)
        assert (r.status_code, r.json()) == (400, _strict(f" {NO_KIND}\n", (" " + NO_KIND)[:30].encode().hex()
                                                          + " ...")), (method, r.text)


def test_yaml_bodies(http, base) -> None:
    """Strict quotes the YAML as sent (an empty body: `''`, `<empty>`), Ignore the JSON `YAMLToJSON` wrote (keys
    sorted; an empty body `null`)."""
    body = "metadata:\n  name: a\napiVersion: nokind.example.com/v1\n"
    r = http.post(base, data=body, headers=YAML)
    assert (r.status_code, r.json()) == (400, _strict(body, body[:30].encode().hex() + " ...")), r.text
    r = http.post(base, data="", headers=YAML)
    assert (r.status_code, r.json()) == (400, _strict("", "<empty>")), r.text
    r = http.post(base, data=body, headers=YAML, params={"fieldValidation": "Ignore"})
    assert (r.status_code, r.json()) == (400, _ignore('{"apiVersion":"nokind.example.com/v1","metadata":'
                                                      '{"name":"a"}}')), r.text
    r = http.put(f"{base}/a", data="", headers=YAML, params={"fieldValidation": "Ignore"})
    assert (r.status_code, r.json()) == (400, _ignore("null")), r.text


NO_VERSION = _status(f"the API version in the data () does not match the expected API version ({GROUP}/v1)")


@pytest.mark.parametrize("version", [{}, {"apiVersion": None}, {"apiVersion": ""}, {"apiVersion": "/"}])
def test_a_kind_and_no_api_version_is_refused(http, base, version: dict[str, Any]) -> None:
    """json.go's TODO(109023) lets the decoder pass a body without a group-version (`kind` required, `apiVersion`
    not), but create.go / update.go `AcceptsGroupVersion` then refuse the empty group-version: `()`."""
    r = http.post(base, json={"kind": "NoKind", "metadata": {"name": "made"}, **version})
    assert (r.status_code, r.json()) == (400, NO_VERSION), r.text
    r = http.post(base, json={"apiVersion": f"{GROUP}/v1", "kind": "NoKind", "metadata": {"name": "kept"}})
    assert r.status_code in (201, 409), r.text
    r = http.put(f"{base}/kept", json={"kind": "NoKind", "metadata": {"name": "kept", "labels": {"a": "b"}},
                                       **version})
    assert (r.status_code, r.json()) == (400, NO_VERSION), r.text


def test_strict_names_the_missing_version_first(http, base) -> None:
    """Under Strict the unknown field's decoding error comes first, `transformDecodeError` reading `into`'s kind
    with the `UnstructuredObjectTyper`, which refuses an object without a version."""
    r = http.post(base, json={"kind": "NoKind", "metadata": {"name": "made", "x": 1}},
                  params={"fieldValidation": "Strict"})
    assert (r.status_code, r.json()) == (400, _status("Object 'apiVersion' is missing in 'object has no apiVersion "
                                                      "field'")), r.text
