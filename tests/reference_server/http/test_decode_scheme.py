"""A create or update body's `apiVersion` and `kind` read as kube-apiserver 1.33's decoder reads them
(http/decode.py `refuse_unhandled`, wire/legacyscheme.py).

apimachinery v0.33 pkg/runtime/serializer/json/json.go `Decode`: `Interpret`'s version and kind (a key in any case),
`gvkWithDefaults` from the route's kind, then `runtime.UseOrCreateObject` → `Scheme.New`, whose error names the
scheme (`pkg/api/legacyscheme/scheme.go:30`); the versioning codec converts what it made into the internal object
(another kind: `unknown conversion`); create.go / update.go `transformDecodeError` answers a 400 naming the kind
read. Before: a version the scheme does not register was create.go's later `the API version in the data (v2) does
not match ...`, an unregistered kind `the object provided is unrecognized`, `"/"` refused, `"Kind"` ignored.
"""
from __future__ import annotations

import pytest

from .badbody import JSON, YAML, bad_request

SCHEME = "pkg/api/legacyscheme/scheme.go:30"


@pytest.fixture
def ns(namespaces) -> str:
    return namespaces.create()["metadata"]["name"]


@pytest.mark.parametrize("body,message", [
    ({"apiVersion": "v2", "kind": "ConfigMap"},
     f'ConfigMap in version "v2" cannot be handled as a ConfigMap: no kind "ConfigMap" is registered for version '
     f'"v2" in scheme "{SCHEME}"'),
    ({"apiVersion": "v2"},  # the kind defaulted from the route
     f'ConfigMap in version "v2" cannot be handled as a ConfigMap: no kind "ConfigMap" is registered for version '
     f'"v2" in scheme "{SCHEME}"'),
    ({"apiVersion": "apps/v1", "kind": "ConfigMap"},
     f'ConfigMap in version "v1" cannot be handled as a ConfigMap: no kind "ConfigMap" is registered for version '
     f'"apps/v1" in scheme "{SCHEME}"'),
    ({"apiVersion": "v1", "kind": "Foo"},  # an unregistered kind: named with the kind read, not `unrecognized`
     f'Foo in version "v1" cannot be handled as a ConfigMap: no kind "Foo" is registered for version "v1" in scheme '
     f'"{SCHEME}"'),
    ({"kind": "ConfigMapList"},  # a registered kind: decoded, then no conversion to core.ConfigMap
     'ConfigMapList in version "v1" cannot be handled as a ConfigMap: converting (v1.ConfigMapList) to '
     "(core.ConfigMap): unknown conversion"),
    ({"apiVersion": "apps/v1", "kind": "Deployment"},  # another group's kind: its Go type's package, `v1`
     'Deployment in version "v1" cannot be handled as a ConfigMap: converting (v1.Deployment) to (core.ConfigMap): '
     "unknown conversion"),
    ({"apiVersion": "v9", "kind": "Status"},  # an unversioned kind: `Scheme.New` makes it whatever the version
     'Status in version "v9" cannot be handled as a ConfigMap: converting (v1.Status) to (core.ConfigMap): unknown '
     "conversion"),
])
def test_a_version_or_kind_the_scheme_cannot_make_a_config_map_of(http, url, ns, body, message):
    r = http.post(f"{url}/api/v1/namespaces/{ns}/configmaps", json={**body, "metadata": {"name": "c"}})
    assert (r.status_code, r.json()) == (400, bad_request(message))


def test_a_group_without_a_version_is_missing_its_version(http, url, ns):
    """`a/` is group `a`, no version, which `gvkWithDefaults` does not fill from another group's default:
    `NewMissingVersionErr` of the body as sent."""
    raw = b'{"apiVersion":"a/","metadata":{"name":"c"}}'
    r = http.post(f"{url}/api/v1/namespaces/{ns}/configmaps", data=raw, headers=JSON)
    assert r.json() == bad_request('ConfigMap in version "" cannot be handled as a ConfigMap: Object \'apiVersion\' '
                                   f"is missing in '{raw.decode()}'")


@pytest.mark.parametrize("api_version", ["/", "/v1", ""])
def test_an_api_version_parse_group_version_reads_as_the_route_s_is_accepted(http, url, ns, api_version):
    """`ParseGroupVersion("/")` is no group and no version (defaulted), `/v1` is the core group's `v1`."""
    r = http.post(f"{url}/api/v1/namespaces/{ns}/configmaps",
                  json={"apiVersion": api_version, "kind": "ConfigMap", "metadata": {"name": "c"}})
    assert r.status_code == 201, r.text
    assert (r.json()["apiVersion"], r.json()["kind"]) == ("v1", "ConfigMap")


def test_a_case_folded_kind_key_is_read(http, url, ns):
    """`Interpret` reads `Kind` (encoding/json matches keys case-insensitively); the typed decoder then does not
    (kjson: case-sensitive), so it is an unknown field."""
    r = http.post(f"{url}/api/v1/namespaces/{ns}/configmaps", json={"Kind": "Pod", "metadata": {"name": "c"}})
    assert r.json() == bad_request('Pod in version "v1" cannot be handled as a ConfigMap: converting (v1.Pod) to '
                                   "(core.ConfigMap): unknown conversion")
    r = http.post(f"{url}/api/v1/namespaces/{ns}/configmaps?fieldValidation=Strict",
                  json={"Kind": "ConfigMap", "metadata": {"name": "c"}})
    assert r.json() == bad_request('ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding '
                                   'error: unknown field "Kind"')
    r = http.post(f"{url}/api/v1/namespaces/{ns}/configmaps", json={"Kind": "ConfigMap", "metadata": {"name": "c"}})
    assert r.status_code == 201 and "Kind" not in r.json()


def test_an_update_likewise(http, url, ns):
    base = f"{url}/api/v1/namespaces/{ns}/configmaps"
    assert http.post(base, json={"metadata": {"name": "c"}}).status_code == 201
    r = http.put(f"{base}/c", data=b"apiVersion: v2\nkind: ConfigMap\nmetadata: {name: c}\n", headers=YAML)
    assert r.json() == bad_request(f'ConfigMap in version "v2" cannot be handled as a ConfigMap: no kind "ConfigMap" '
                                   f'is registered for version "v2" in scheme "{SCHEME}"')


def test_a_named_group_s_kind(http, url, ns):
    """A Deployment: `apps/v2` is not registered; `extensions/v1beta1` is (unserved), decodes and converts, and is
    refused by create.go's `AcceptsGroupVersion`; another apps kind has no conversion."""
    base = f"{url}/apis/apps/v1/namespaces/{ns}/deployments"
    r = http.post(base, json={"apiVersion": "apps/v2", "kind": "Deployment", "metadata": {"name": "d"}})
    assert r.json() == bad_request(f'Deployment in version "v2" cannot be handled as a Deployment: no kind '
                                   f'"Deployment" is registered for version "apps/v2" in scheme "{SCHEME}"')
    r = http.post(base, json={"apiVersion": "extensions/v1beta1", "kind": "Deployment", "metadata": {"name": "d"}})
    assert r.json() == bad_request("the API version in the data (extensions/v1beta1) does not match the expected "
                                   "API version (apps/v1)")
    r = http.post(base, json={"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "d"}})
    assert r.json() == bad_request('StatefulSet in version "v1" cannot be handled as a Deployment: converting '
                                   "(v1.StatefulSet) to (apps.Deployment): unknown conversion")
    r = http.post(base, json={"apiVersion": "apps/v1", "kind": "Scale", "metadata": {"name": "d"}})
    assert r.json() == bad_request(f'Scale in version "v1" cannot be handled as a Deployment: no kind "Scale" is '
                                   f'registered for version "apps/v1" in scheme "{SCHEME}"')
