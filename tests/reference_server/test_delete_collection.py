"""DELETE of a collection as kube-apiserver 1.33's `Store.DeleteCollection` makes it: its LIST takes the request's
own options (a `limit` deletes one page and answers it, `continue` and all), the answer is the objects as listed,
and a `resourceVersion` the cache has not reached waits as a LIST's does."""
from __future__ import annotations

import time

import pytest

from .conftest import unique

CM = {"apiVersion": "v1", "kind": "ConfigMap", "data": {"k": "v"}}


@pytest.fixture()
def ns(http, url):
    name = unique("dc")
    assert http.post(f"{url}/api/v1/namespaces", json={"metadata": {"name": name}}).status_code == 201
    for cm in ("a", "b", "c"):
        assert http.post(f"{url}/api/v1/namespaces/{name}/configmaps",
                         json={**CM, "metadata": {"name": cm}}).status_code == 201
    yield name
    http.delete(f"{url}/api/v1/namespaces/{name}")


def names(http, url, ns):
    return [o["metadata"]["name"] for o in http.get(f"{url}/api/v1/namespaces/{ns}/configmaps").json()["items"]]


def test_a_limit_deletes_one_page_and_answers_it(http, url, ns):
    r = http.delete(f"{url}/api/v1/namespaces/{ns}/configmaps", params={"limit": "2"})
    assert r.status_code == 200, r.text
    body = r.json()
    assert [o["metadata"]["name"] for o in body["items"]] == ["a", "b"]
    assert body["metadata"]["continue"] and body["metadata"]["remainingItemCount"] == 1
    assert names(http, url, ns) == ["c"]
    r = http.delete(f"{url}/api/v1/namespaces/{ns}/configmaps",
                    params={"limit": "2", "continue": body["metadata"]["continue"]})
    assert r.status_code == 200, r.text
    assert [o["metadata"]["name"] for o in r.json()["items"]] == ["c"] and names(http, url, ns) == []


def test_the_answer_is_the_list_as_listed(http, url, ns):
    """Held objects come back as listed (no deletionTimestamp), at the LIST's resourceVersion."""
    held = {**CM, "metadata": {"name": "held", "finalizers": ["example.com/x"]}}
    created = http.post(f"{url}/api/v1/namespaces/{ns}/configmaps", json=held).json()
    r = http.delete(f"{url}/api/v1/namespaces/{ns}/configmaps", params={"fieldSelector": "metadata.name=held"})
    assert r.status_code == 200, r.text
    item = r.json()["items"][0]
    assert "deletionTimestamp" not in item["metadata"]
    assert item["metadata"]["resourceVersion"] == created["metadata"]["resourceVersion"]
    assert int(r.json()["metadata"]["resourceVersion"]) >= int(created["metadata"]["resourceVersion"])
    assert http.get(f"{url}/api/v1/namespaces/{ns}/configmaps/held").json()["metadata"]["deletionTimestamp"]
    http.patch(f"{url}/api/v1/namespaces/{ns}/configmaps/held", json={"metadata": {"finalizers": None}},
               headers={"Content-Type": "application/merge-patch+json"})


def test_a_resource_version_never_reached_waits_then_504(http, url, ns):
    started = time.monotonic()
    r = http.delete(f"{url}/api/v1/namespaces/{ns}/configmaps", params={"resourceVersion": "99999999"}, timeout=30)
    assert time.monotonic() - started >= 2.9  # the cache's blockTimeout, as a LIST's
    assert r.status_code == 504, r.text
    assert r.json()["details"]["causes"][0]["reason"] == "ResourceVersionTooLarge"
    assert names(http, url, ns) == ["a", "b", "c"]
