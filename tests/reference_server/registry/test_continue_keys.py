"""A LIST's continue token holds the key relative to the list's prefix, as k8s.io/apiserver v0.33.1 writes it
(`pkg/storage/continue.go` `EncodeContinue`, `PrepareContinueToken`: the last key with `\\x00` appended): etcd3
`GetList` (a continued page) trims `/registry/<resource>/[<namespace>/]`, the cacher's `GetList` (a first page the
watch cache serves) the registry's `KeyRootFunc` key without its `/`, so its start keeps a leading `/`. Storage
lists keys bytewise (`<ns>-b/x` before `<ns>/x`). Before, every token's start was `<namespace>/<name>` (`/<name>`
for a cluster-scoped kind) and namespaces were listed by name."""
from __future__ import annotations

import base64
import json
from typing import Any

import requests

from conformance.reference_server.registry.continuetoken import encode


def _start(token: str) -> Any:
    """The token's decoded JSON (a client may read it)."""
    return json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))


def _configmap(http: requests.Session, url: str, ns: str, name: str, label: str) -> None:
    body = {"metadata": {"name": name, "labels": {"edges": label}}}
    r = http.post(f"{url}/api/v1/namespaces/{ns}/configmaps", json=body)
    assert r.status_code == 201, r.text


def _page(http: requests.Session, url: str, path: str, **params: str) -> dict[str, Any]:
    r = http.get(f"{url}{path}", params=params)
    assert r.status_code == 200, r.text
    return r.json()


def test_one_namespaces_tokens_hold_the_name(http: requests.Session, url: str, namespaces: Any) -> None:
    ns = namespaces.create("edges")["metadata"]["name"]
    for name in ("a", "b", "c"):
        _configmap(http, url, ns, name, ns)
    path = f"/api/v1/namespaces/{ns}/configmaps"
    first = _page(http, url, path, limit="1")  # the watch cache's page: `/<name>`
    token = first["metadata"]["continue"]
    rv = int(first["metadata"]["resourceVersion"])
    assert _start(token) == {"v": "meta.k8s.io/v1", "rv": rv, "start": "/a\x00"}
    assert "=" not in token and token == encode(rv, "/a\x00")
    second = _page(http, url, path, limit="1", **{"continue": token})  # etcd's page: `<name>`
    assert [o["metadata"]["name"] for o in second["items"]] == ["b"]
    assert _start(second["metadata"]["continue"]) == {"v": "meta.k8s.io/v1", "rv": rv, "start": "b\x00"}
    exact = _page(http, url, path, limit="1", resourceVersion=str(rv), resourceVersionMatch="Exact")
    assert _start(exact["metadata"]["continue"])["start"] == "a\x00"  # an `Exact` page is etcd's too


def test_across_namespaces_keys_are_namespace_slash_name_in_etcds_order(http: requests.Session, url: str,
                                                                          namespaces: Any) -> None:
    ns = namespaces.create("edges")["metadata"]["name"]
    longer = ns + "-b"  # `<ns>-b/` sorts before `<ns>/`: `-` is 0x2d, `/` 0x2f
    namespaces.names.append(longer)
    r = http.post(f"{url}/api/v1/namespaces", json={"metadata": {"name": longer}})
    assert r.status_code == 201, r.text
    for space in (ns, longer):
        _configmap(http, url, space, "x", ns)
    params = {"limit": "1", "labelSelector": f"edges={ns}"}
    first = _page(http, url, "/api/v1/configmaps", **params)
    assert [o["metadata"]["namespace"] for o in first["items"]] == [longer]
    assert _start(first["metadata"]["continue"])["start"] == f"/{longer}/x\x00"
    second = _page(http, url, "/api/v1/configmaps", **params, **{"continue": first["metadata"]["continue"]})
    assert [o["metadata"]["namespace"] for o in second["items"]] == [ns]
    if "continue" in second["metadata"]:  # (other tests' configmaps may follow)
        assert _start(second["metadata"]["continue"])["start"] == f"{ns}/x\x00"
    whole = _page(http, url, "/api/v1/configmaps", labelSelector=f"edges={ns}")
    assert [o["metadata"]["namespace"] for o in whole["items"]] == [longer, ns]


def test_a_cluster_scoped_token_holds_the_name(http: requests.Session, url: str) -> None:
    first = _page(http, url, "/api/v1/namespaces", limit="1")
    name = first["items"][0]["metadata"]["name"]
    assert _start(first["metadata"]["continue"])["start"] == f"/{name}\x00"
    second = _page(http, url, "/api/v1/namespaces", limit="1", **{"continue": first["metadata"]["continue"]})
    after = second["items"][0]["metadata"]["name"]
    assert after > name and _start(second["metadata"]["continue"])["start"] == f"{after}\x00"


def test_a_start_is_where_etcds_range_begins(http: requests.Session, url: str, namespaces: Any) -> None:
    """`DecodeContinue` joins `cleaned[1:]` to the prefix and etcd ranges from that key on: a start without the
    `\\x00` lists its own object too, one with a leading `/` reads as without; `../` is refused."""
    ns = namespaces.create("edges")["metadata"]["name"]
    for name in ("a", "b"):
        _configmap(http, url, ns, name, ns)
    path = f"/api/v1/namespaces/{ns}/configmaps"
    rv = int(_page(http, url, path)["metadata"]["resourceVersion"])
    for start, names in (("a", ["a", "b"]), ("/a", ["a", "b"]), ("a\x00", ["b"]), ("/", ["a", "b"]),
                         ("b\x00", [])):
        got = _page(http, url, path, limit="5", **{"continue": encode(rv, start)})
        assert [o["metadata"]["name"] for o in got["items"]] == names, start
    r = http.get(f"{url}{path}", params={"limit": "5", "continue": encode(rv, f"../{ns}/a")})
    assert r.status_code == 400 and r.json()["message"] == \
        f"invalid continue token: continue key is not valid: ../{ns}/a"



def test_a_name_selector_reads_one_key_and_has_no_next_page(http: requests.Session, url: str,
                                                            namespaces: Any) -> None:
    """store.go `ListPredicate`: without a continue token, a field selector requiring `metadata.name` (the
    namespace known) is a non-recursive `GetList` of that key: no continue token though `b` follows `a`. Before,
    the page had one, and a client followed it to an empty page."""
    ns = namespaces.create("edges")["metadata"]["name"]
    for name in ("a", "b"):
        _configmap(http, url, ns, name, ns)
    got = _page(http, url, f"/api/v1/namespaces/{ns}/configmaps", limit="1", fieldSelector="metadata.name=a")
    assert [o["metadata"]["name"] for o in got["items"]] == ["a"] and "continue" not in got["metadata"]
    got = _page(http, url, "/api/v1/namespaces", limit="1", fieldSelector=f"metadata.name={ns}")
    assert [o["metadata"]["name"] for o in got["items"]] == [ns] and "continue" not in got["metadata"]


def test_a_namespace_selector_narrows_the_first_page_only(http: requests.Session, url: str,
                                                            namespaces: Any) -> None:
    """`MatchesSingleNamespace` (no continue token) lists the selected namespace's prefix, so the first page's token
    is relative to it (`/a\\x00`); the next page, continued, lists across namespaces from `a\\x00` on, which in
    1.33 lists `a` again (every `<ns>/...` key sorts after `a\\x00`), then goes on with `<ns>/a\\x00`."""
    ns = namespaces.create("edges")["metadata"]["name"]
    for name in ("a", "b"):
        _configmap(http, url, ns, name, ns)
    params = {"limit": "1", "fieldSelector": f"metadata.namespace={ns}"}
    first = _page(http, url, "/api/v1/configmaps", **params)
    assert [o["metadata"]["name"] for o in first["items"]] == ["a"]
    assert _start(first["metadata"]["continue"])["start"] == "/a\x00"
    second = _page(http, url, "/api/v1/configmaps", **params, **{"continue": first["metadata"]["continue"]})
    assert [o["metadata"]["name"] for o in second["items"]] == ["a"]
    assert _start(second["metadata"]["continue"])["start"] == f"{ns}/a\x00"
    third = _page(http, url, "/api/v1/configmaps", **params, **{"continue": second["metadata"]["continue"]})
    assert [o["metadata"]["name"] for o in third["items"]] == ["b"]
