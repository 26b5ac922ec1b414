"""The watches of a CRD converted without a webhook across a change of the CRD (registry/crconversion/watches.py,
controller/crd_storage.py, http/watch.py): upstream's crdHandler tears a CRD's storages down a second after a
change of its spec or accepted names (`customresource_handler.go` `updateCustomResourceDefinition`, `tearDown`),
whose cachers end every watch they serve (the stream closes, no event); the next request makes new storages,
whose cachers LIST at once, so a re-watch from before that LIST is answered the 410 `too old resource version:
<rv> (<list rv>)` (`watch_cache.go` `getAllEventsSinceLocked`, an ERROR event on a 200 stream), on which real
clients list again. On a server of the module's own (the session's is the discovery tests', which must not
see these CRDs)."""
from __future__ import annotations

import json
import os
import subprocess
import time
import uuid
from typing import Any, Iterator

import pytest
import requests

from conformance.reference_server.embedded import RunningServer
from tests.reference_server.crds import CRDS, create_crd, schemaless_crd
from tests.reference_server.ownserver import own_server
from tests.tools import kubectl as kubectl_tool

GROUP = "plain.example.com"


server = own_server()


class Gadgets:
    """A CRD without a conversion webhook (a fresh plural per test) and its URLs."""

    def __init__(self, server: RunningServer):
        self.server = server
        self.plural = f"g{uuid.uuid4().hex[:8]}"
        self.name = f"{self.plural}.{GROUP}"
        r = create_crd(requests, server.url, schemaless_crd(GROUP, self.plural, self.plural.capitalize()))
        assert r.status_code == 201, r.text

    def url(self, name: str = "") -> str:
        base = f"{self.server.url}/apis/{GROUP}/v1/namespaces/default/{self.plural}"
        return f"{base}/{name}" if name else base

    def create(self, name: str) -> dict[str, Any]:
        r = requests.post(self.url(), json={"apiVersion": f"{GROUP}/v1", "kind": self.plural.capitalize(),
                                            "metadata": {"name": name}, "spec": {"n": 1}})
        assert r.status_code == 201, r.text
        return r.json()

    def change(self, patch: dict[str, Any]) -> dict[str, Any]:
        r = requests.patch(f"{self.server.url}{CRDS}/{self.name}", data=json.dumps(patch),
                           headers={"Content-Type": "application/merge-patch+json"})
        assert r.status_code == 200, r.text
        return r.json()

    def watch(self, rv: str, timeout: int = 30) -> requests.Response:
        return requests.get(self.url(), params={"watch": "1", "resourceVersion": rv, "timeoutSeconds": str(timeout)},
                            stream=True, timeout=60)


SPEC_CHANGE = {"spec": {"names": {"categories": ["gizmos"]}}}


@pytest.fixture
def gadgets(server: RunningServer) -> Iterator[Gadgets]:
    g = Gadgets(server)
    yield g
    requests.delete(f"{server.url}{CRDS}/{g.name}")


def _lines(resp: requests.Response) -> list[dict[str, Any]]:
    return [json.loads(line) for line in resp.iter_lines() if line]


def test_a_spec_change_ends_the_watches_a_second_later(gadgets: Gadgets) -> None:
    """Watches served from storage (at a resourceVersion, and from now) end about a second after the change,
    with no event, long before their `timeoutSeconds`."""
    a = gadgets.create("a")
    rv = a["metadata"]["resourceVersion"]
    with gadgets.watch(rv) as at, gadgets.watch("") as now:
        assert at.status_code == now.status_code == 200
        began = time.monotonic()
        gadgets.change(SPEC_CHANGE)
        assert _lines(at) == []
        assert [e["type"] for e in _lines(now)] == ["ADDED"]  # (rv "": `a` first, then the end)
        took = time.monotonic() - began
    assert 0.9 <= took < 10, took


def test_a_status_or_metadata_change_keeps_the_watches(server: RunningServer, gadgets: Gadgets) -> None:
    """A change of neither spec nor accepted names (a label) keeps the storage: the watch outlives the teardown
    of another CRD changed after it (its clock) and gets the next change."""
    other = Gadgets(server)
    try:
        a, b = gadgets.create("a"), other.create("b")
        with gadgets.watch(a["metadata"]["resourceVersion"], timeout=10) as kept, \
                other.watch(b["metadata"]["resourceVersion"]) as ended:
            gadgets.change({"metadata": {"labels": {"x": "y"}}})
            other.change(SPEC_CHANGE)
            assert _lines(ended) == []  # (a second later)
            gadgets.create("c")
            first = json.loads(next(line for line in kept.iter_lines() if line))
        assert (first["type"], first["object"]["metadata"]["name"]) == ("ADDED", "c")
    finally:
        requests.delete(f"{server.url}{CRDS}/{other.name}")


def test_a_rewatch_from_before_the_new_storage_is_too_old(gadgets: Gadgets) -> None:
    """After the teardown, the next request makes a new storage whose cache LISTs at once: a watch from an older
    resourceVersion is the 410 `Expired` ERROR event (`too old resource version: <rv> (<list rv>)`), where a LIST
    at it answers the current state."""
    a = gadgets.create("a")
    rv = a["metadata"]["resourceVersion"]
    with gadgets.watch(rv) as w:
        changed = gadgets.change(SPEC_CHANGE)
        assert _lines(w) == []
    listed = requests.get(gadgets.url(), params={"resourceVersion": rv})  # the first request: the new storage
    assert listed.status_code == 200, listed.text
    assert [o["metadata"]["name"] for o in listed.json()["items"]] == ["a"]
    list_rv = int(listed.json()["metadata"]["resourceVersion"])
    assert list_rv >= int(changed["metadata"]["resourceVersion"])
    with gadgets.watch(rv) as again:
        assert again.status_code == 200
        events = _lines(again)
    assert len(events) == 1 and events[0]["type"] == "ERROR", events
    status = events[0]["object"]
    assert (status["code"], status["reason"], status["status"]) == (410, "Expired", "Failure")
    assert status["message"].startswith(f"too old resource version: {rv} (")
    assert int(status["message"].rsplit("(", 1)[1].rstrip(")")) >= int(changed["metadata"]["resourceVersion"])
    with gadgets.watch(listed.json()["metadata"]["resourceVersion"], timeout=2) as fresh:  # the relist's: fine
        gadgets.create("b")
        assert [(e["type"], e["object"]["metadata"]["name"]) for e in _lines(fresh)] == [("ADDED", "b")]


def test_the_official_client_relists_as_an_informer_does(gadgets: Gadgets) -> None:
    """The `kubernetes` client, list-then-watch: its watch ends with the storage; watching again from the last
    resourceVersion it saw is refused 410 (`ApiException`); a new LIST and a watch from it see the next change."""
    from kubernetes import client, watch

    conf = client.Configuration()
    conf.host = gadgets.server.url
    api = client.CustomObjectsApi(client.ApiClient(conf))
    gadgets.create("a")
    listed = api.list_namespaced_custom_object(GROUP, "v1", "default", gadgets.plural)
    gadgets.create("b")
    stream = watch.Watch().stream(api.list_namespaced_custom_object, GROUP, "v1", "default", gadgets.plural,
                                  resource_version=listed["metadata"]["resourceVersion"], timeout_seconds=30)
    first = next(stream)  # (the watch is open)
    assert (first["type"], first["object"]["metadata"]["name"]) == ("ADDED", "b")
    last_rv = first["object"]["metadata"]["resourceVersion"]
    gadgets.change(SPEC_CHANGE)
    began = time.monotonic()
    assert list(stream) == []  # the stream ended
    assert time.monotonic() - began < 10
    with pytest.raises(client.ApiException) as refused:  # (it asks twice: a 410 is retried once)
        for _ in watch.Watch().stream(api.list_namespaced_custom_object, GROUP, "v1", "default", gadgets.plural,
                                      resource_version=last_rv, timeout_seconds=5, _request_timeout=30):
            pass
    assert refused.value.status == 410 and "too old resource version" in str(refused.value.reason)
    relisted = api.list_namespaced_custom_object(GROUP, "v1", "default", gadgets.plural)
    assert sorted(o["metadata"]["name"] for o in relisted["items"]) == ["a", "b"]
    gadgets.create("c")
    w = watch.Watch()
    seen = None
    for ev in w.stream(api.list_namespaced_custom_object, GROUP, "v1", "default", gadgets.plural,
                       resource_version=relisted["metadata"]["resourceVersion"], timeout_seconds=10):
        seen = (ev["type"], ev["object"]["metadata"]["name"])
        w.stop()
        break
    assert seen == ("ADDED", "c")


def test_kubectl_get_watch_ends_with_the_storage(gadgets: Gadgets, tmp_path: Any) -> None:
    """`kubectl get <resource> --watch` prints the objects, then ends when the spec change ends its watch (as
    against a cluster: it does not watch again)."""
    path = kubectl_tool.get_kubectl()
    if path is None:
        pytest.skip(f"kubectl 1.33 unavailable: {kubectl_tool.LAST_ERROR}")
    gadgets.create("a")
    env = {"HOME": str(tmp_path), "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    proc = subprocess.Popen([str(path), "--server", gadgets.server.url, "get", f"{gadgets.plural}.{GROUP}",
                             "--watch", "--request-timeout=60s"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)
    try:
        assert proc.stdout is not None
        header = proc.stdout.readline()
        assert header.split()[:1] == ["NAME"], header
        assert proc.stdout.readline().split()[:1] == ["a"]
        gadgets.change(SPEC_CHANGE)
        out, _ = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert out == "", out
