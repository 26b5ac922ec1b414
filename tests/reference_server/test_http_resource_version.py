"""A resourceVersion that is not a number, on a list or a GET, answered as kube-apiserver 1.33 answers it.

Upstream parses it in two places (`APIObjectVersioner.ParseResourceVersion`, `strconv.ParseUint`): the watch
cache (`CacheDelegator.GetList`/`Get`, apiserver/pkg/storage/cacher/delegator.go) returns the versioner's
`storage.InvalidError` as it is, which `ErrorToAPIStatus` makes a 500 without a reason; a list the cache hands
to etcd (`shouldDelegateList`: Exact, `limit` with a resourceVersion, continue) is parsed first thing in etcd3
`store.GetList`, a 400 `invalid resource version: ...`.
"""
from __future__ import annotations

import pytest

INVALID = 'resourceVersion: Invalid value: "{rv}": strconv.ParseUint: parsing "{rv}": {why}'
BAD = [("abc", "invalid syntax"), ("-1", "invalid syntax"), ("18446744073709551616", "value out of range")]


def _status(code: int, message: str, reason: str | None = None) -> dict:
    out = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": message}
    if reason:
        out["reason"] = reason
    out["code"] = code
    return out


def _same(got: dict, want: dict) -> None:
    assert {k: got.get(k) for k in want} == want and set(got) == set(want), got


@pytest.mark.parametrize("rv, why", BAD)
@pytest.mark.parametrize("extra", [{}, {"resourceVersionMatch": "NotOlderThan"},
                                   {"resourceVersionMatch": "NotOlderThan", "limit": "2"}])
def test_list_served_by_the_watch_cache_answers_500(http, url, rv, why, extra):
    r = http.get(f"{url}/api/v1/namespaces", params={"resourceVersion": rv, **extra}, timeout=10)
    assert r.status_code == 500, r.text
    _same(r.json(), _status(500, INVALID.format(rv=rv, why=why)))


@pytest.mark.parametrize("rv, why", BAD)
@pytest.mark.parametrize("extra", [{"limit": "2"}, {"resourceVersionMatch": "Exact"},
                                   {"resourceVersionMatch": "Exact", "limit": "2"}])
def test_list_delegated_to_etcd_answers_400(http, url, rv, why, extra):
    r = http.get(f"{url}/api/v1/namespaces/default/configmaps", params={"resourceVersion": rv, **extra}, timeout=10)
    assert r.status_code == 400, r.text
    _same(r.json(), _status(400, "invalid resource version: " + INVALID.format(rv=rv, why=why), "BadRequest"))


def test_continued_list_parses_the_resource_version_before_the_token(http, url):
    """etcd3 `GetList` parses resourceVersion before it looks at `continue`: a non-numeric one is `invalid
    resource version`, a numeric one `specifying resource version is not allowed when using continue`."""
    first = http.get(f"{url}/api/v1/namespaces", params={"limit": "1"}, timeout=10).json()
    token = first["metadata"]["continue"]
    r = http.get(f"{url}/api/v1/namespaces", params={"limit": "1", "continue": token, "resourceVersion": "x"},
                 timeout=10)
    assert (r.status_code, r.json()["message"]) == (400, "invalid resource version: " +
                                                    INVALID.format(rv="x", why="invalid syntax"))
    r = http.get(f"{url}/api/v1/namespaces", params={"continue": token, "resourceVersion": "x"}, timeout=10)
    assert r.status_code == 400 and r.json()["message"].startswith("invalid resource version: "), r.text
    r = http.get(f"{url}/api/v1/namespaces", params={"continue": token, "resourceVersion": "1"}, timeout=10)
    assert (r.status_code, r.json()["message"]) == (400, "specifying resource version is not allowed when using "
                                                         "continue")


@pytest.mark.parametrize("path", ["/api/v1/namespaces/default", "/api/v1/namespaces/default/configmaps/missing",
                                  "/api/v1/namespaces/default/status"])
def test_get_at_a_non_numeric_resource_version_answers_500(http, url, path):
    """`CacheDelegator.Get` parses any resourceVersion but "" before it looks the object up."""
    r = http.get(f"{url}{path}", params={"resourceVersion": "abc"}, timeout=10)
    assert r.status_code == 500, r.text
    _same(r.json(), _status(500, INVALID.format(rv="abc", why="invalid syntax")))


@pytest.mark.parametrize("params", [{"resourceVersion": "0"}, {"resourceVersion": "0", "limit": "1"},
                                    {"resourceVersion": "0", "resourceVersionMatch": "NotOlderThan"}])
def test_valid_resource_versions_still_list(http, url, params):
    assert http.get(f"{url}/api/v1/namespaces", params=params, timeout=10).status_code == 200
    assert http.get(f"{url}/api/v1/namespaces/default", params={"resourceVersion": "0"}, timeout=10).status_code == 200
