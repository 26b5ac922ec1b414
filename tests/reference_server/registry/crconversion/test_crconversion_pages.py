"""A custom resource's LIST with a `limit` and a selector that storage serves (registry/crconversion/selection.py):
k8s.io/apiserver v0.33 pkg/storage/etcd3/store.go `GetList` decodes the keys past the continue key one by one
(`DecodeListItem`: the served version's storage codec, whose convertor asks the conversion webhook for that one
object) and judges each, until the page holds `limit` objects: the webhook is asked for those objects only, one
review each, not for every object past the continue key. Here `v1` is stored and the webhook converts to `v2`
(test_crconversion_selection.py's CRD: `spec.a` in v1 is `spec.b` in v2)."""
from __future__ import annotations

import json
from typing import Any, Iterator

import pytest
import requests

from tests.reference_server.test_admission_webhooks import server  # noqa: F401 - a server per module
from conformance.reference_server.embedded import RunningServer

from tests.reference_server.registry.crconversion.test_crconversion_selection import MoveHook, Movers, _webhook


@pytest.fixture(scope="module")
def hook() -> Iterator[MoveHook]:
    h = MoveHook()
    yield h
    h.stop()


@pytest.fixture
def movers(server: RunningServer, hook: MoveHook) -> Iterator[Movers]:
    m = Movers(server, _webhook(hook))
    yield m
    m.delete()


def _settle(m: Movers, version: str) -> None:
    """Wait until `version`'s watch cache (registry/crconversion/cache.py, started by the first request) has
    converted every object: a watch from 0 sends the cache's state, then BOOKMARK-less silence; its first events
    are all there is, once as many as the objects have come."""
    count = len(requests.get(m.url("v1")).json()["items"])
    with requests.get(m.url(version), params={"watch": "1", "resourceVersion": "0", "timeoutSeconds": "10"},
                      stream=True, timeout=30) as r:
        assert r.status_code == 200, r.text
        seen = 0
        for line in r.iter_lines():
            if line and json.loads(line)["type"] == "ADDED":
                seen += 1
                if seen == count:
                    break


def _asked(hook: MoveHook, start: int, uids: dict[str, str]) -> list[list[str]]:
    """The names of the objects each review since `start` holds (those of this test's objects only)."""
    return [[uids[o["metadata"]["uid"]] for o in b["request"]["objects"]] for _, b in hook.reviews[start:]
            if any(o["metadata"].get("uid") in uids for o in b["request"]["objects"])]


def _page(m: Movers, selector: str, limit: int, rv: str, token: str = "") -> dict[str, Any]:
    params = {"fieldSelector": selector, "limit": str(limit)}
    params.update({"continue": token} if token else {"resourceVersion": rv, "resourceVersionMatch": "Exact"})
    r = requests.get(m.url("v2"), params=params)
    assert r.status_code == 200, r.text
    return r.json()


def test_a_storage_served_page_asks_for_the_objects_it_decodes(movers: Movers, hook: MoveHook) -> None:
    uids = {movers.create("v1", f"x{i}", {"a": str(i % 2)})["metadata"]["uid"]: f"x{i}" for i in range(1, 8)}
    _settle(movers, "v2")
    rv = requests.get(movers.url("v1")).json()["metadata"]["resourceVersion"]
    start = len(hook.reviews)
    # an Exact page: x1 (selected), x2 (not), x3 (selected): full; x4 and after are never decoded
    first = _page(movers, "spec.b=1", 2, rv)
    assert [i["metadata"]["name"] for i in first["items"]] == ["x1", "x3"]
    assert sorted(_asked(hook, start, uids)) == [["x1"], ["x2"], ["x3"]]  # one review each
    # a continued page: from x4 on, until two more are selected (x5, x7)
    start = len(hook.reviews)
    second = _page(movers, "spec.b=1", 2, rv, first["metadata"]["continue"])
    assert [i["metadata"]["name"] for i in second["items"]] == ["x5", "x7"]
    assert sorted(_asked(hook, start, uids)) == [["x4"], ["x5"], ["x6"], ["x7"]]
    assert "continue" not in second["metadata"]  # x7 is the last key: nothing more (`hasMore` false)
    # a page filled by its first objects asks for them only
    start = len(hook.reviews)
    full = _page(movers, "spec.b!=9", 3, rv)
    assert [i["metadata"]["name"] for i in full["items"]] == ["x1", "x2", "x3"]
    assert sorted(_asked(hook, start, uids)) == [["x1"], ["x2"], ["x3"]]
    # a page its objects never fill asks for every one past the continue key
    start = len(hook.reviews)
    short = _page(movers, "spec.b=0", 5, rv, full["metadata"]["continue"])
    assert [i["metadata"]["name"] for i in short["items"]] == ["x4", "x6"]
    assert sorted(_asked(hook, start, uids)) == [["x4"], ["x5"], ["x6"], ["x7"]]


def test_asked_in_order_counts_the_unanswered_as_selected() -> None:
    """`asked_in_order` alone: the unanswered fill the page's room first; answered ones judged as they are."""
    from conformance.reference_server.registry.crconversion import ConversionPending
    from conformance.reference_server.registry.crconversion.selection import asked_in_order

    answered = {"a": True, "b": False}

    def judge(o: dict[str, Any]) -> bool:
        if o["n"] not in answered:
            raise ConversionPending(None, [o], "g/v2")
        return answered[o["n"]]
    items = [{"n": n} for n in "abcdef"]
    with pytest.raises(ConversionPending) as asked:
        asked_in_order(judge, items, 3)  # a (selected), b (not), c and d unanswered: room for two
    assert [o["n"] for o in asked.value.objects] == ["c", "d"]
    with pytest.raises(ConversionPending) as asked:
        asked_in_order(judge, items, 0)  # no limit: every unanswered one
    assert [o["n"] for o in asked.value.objects] == ["c", "d", "e", "f"]
    answered.update(c=True, d=True)
    asked_in_order(judge, items, 3)  # a, c, d: full, nothing more to ask


def test_a_page_filled_after_many_rounds(movers: Movers, hook: MoveHook) -> None:
    """Each round asks for as many objects as the page has room for: a page of one whose only selected object is
    the twelfth is asked for in twelve rounds (the request run again after each, past `webhook.ATTEMPTS`: rounds
    asking for new objects are no conversion failing to settle)."""
    uids = {movers.create("v1", f"y{i:02}", {"a": "1" if i == 12 else "0"})["metadata"]["uid"]: f"y{i:02}"
            for i in range(1, 15)}
    _settle(movers, "v2")
    rv = requests.get(movers.url("v1")).json()["metadata"]["resourceVersion"]
    start = len(hook.reviews)
    page = _page(movers, "spec.b=1", 1, rv)
    assert [i["metadata"]["name"] for i in page["items"]] == ["y12"] and page["metadata"]["continue"]
    assert sorted(_asked(hook, start, uids)) == [[f"y{i:02}"] for i in range(1, 13)]
