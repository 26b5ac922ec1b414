"""A Service's ClusterIP under admission (admission/serviceips.py, registry/draws.py): its IPAddress is written
through admission as kube-apiserver's loopback client (`system:apiserver`, `ipallocator.go` `createIPAddress`)
between the Service's mutating and validating phases (`store.go` `Create`: `BeginCreate` before the validating
admission), and the object the validating webhooks see is the one stored (generated name, ClusterIP, NodePorts);
a dry run answers the dry-run allocators' values and writes no IPAddress."""
from __future__ import annotations

import dataclasses
import ipaddress
import json
import threading
import uuid
from pathlib import Path
from typing import Any, Iterator

import pytest
import requests

from conformance.reference_server.embedded import RunningServer, start_embedded
from conformance.reference_server.flavors.catalogue import get_flavor
from conformance.reference_server.storage import BackendError

from .kubectl_run import run_kubectl
from .replicas import until
from .test_admission_webhooks import Hook, ns, server  # noqa: F401 - the fixtures, per module
from .webhookconfig import AR, configure

IPS = "/apis/networking.k8s.io/v1/ipaddresses"


class IPHook(Hook):
    """`/deny` refuses everything; `/deny-once` refuses its first review only; the rest allow (`Hook`)."""

    def __init__(self) -> None:
        self.denied_once = threading.Event()
        super().__init__()

    def answer(self, path: str, body: dict[str, Any]) -> tuple[int, Any]:
        if path == "/deny-once":
            path = "/allow" if self.denied_once.is_set() else "/deny"
            self.denied_once.set()
        return super().answer(path, body)


@pytest.fixture(scope="module")
def hook() -> Iterator[IPHook]:
    h = IPHook()
    yield h
    h.stop()


def _configure(server: RunningServer, hook: Hook, kind: str, path: str, resource: str,
               ns: str | None = None) -> str:
    """A `kind` (validating/mutating) webhook at `path` on `resource` writes (in `ns`, or anywhere); its
    `<plural>/<name>` for `_unconfigure`."""
    plural = f"{kind}webhookconfigurations"
    group = "networking.k8s.io" if resource == "ipaddresses" else ""
    return f"{plural}/" + configure(server, plural, ns, None, f"{hook.url}{path}", hook.ca_bundle, [resource],
                                    operations=["CREATE", "UPDATE", "DELETE"], api_groups=[group])


def _unconfigure(server: RunningServer, *names: str) -> None:
    for name in names:
        assert requests.delete(f"{server.url}{AR}/{name}").status_code == 200


def _reviews(hook: Hook, since: int, resource: str) -> list[dict[str, Any]]:
    return [r["request"] for _, r in hook.reviews[since:] if r["request"]["resource"]["resource"] == resource]


def _ips(server: RunningServer) -> set[str]:
    return {i["metadata"]["name"] for i in requests.get(f"{server.url}{IPS}").json()["items"]}


def test_validating_webhooks_see_the_service_as_stored_after_its_ipaddress(server, hook, ns):
    """The IPAddress CREATE is reviewed as `system:apiserver`'s, before the Service's validating webhook, which
    judges the object then stored: the generated name, the ClusterIP of that IPAddress, the NodePorts."""
    cfgs = [_configure(server, hook, "validating", "/allow", "ipaddresses"),
            _configure(server, hook, "validating", "/allow", "services", ns)]
    try:
        since = len(hook.reviews)
        body = {"metadata": {"generateName": "web-"},
                "spec": {"type": "NodePort", "ports": [{"name": "a", "port": 80}, {"name": "b", "port": 81}]}}
        r = requests.post(f"{server.url}/api/v1/namespaces/{ns}/services", json=body)
        assert r.status_code == 201, r.text
        stored = r.json()
        name, ip = stored["metadata"]["name"], stored["spec"]["clusterIP"]
        [ip_review] = _reviews(hook, since, "ipaddresses")
        [svc_review] = _reviews(hook, since, "services")
        assert ip_review["operation"] == "CREATE" and ip_review["name"] == ip
        assert ip_review["userInfo"]["username"] == "system:apiserver"
        assert ip_review["object"]["spec"]["parentRef"] == {"resource": "services", "namespace": ns, "name": name}
        order = [r["request"]["resource"]["resource"] for _, r in hook.reviews[since:]]
        assert order == ["ipaddresses", "services"]
        seen = svc_review["object"]
        assert seen["metadata"]["name"] == name and svc_review["name"] == name
        assert seen["spec"]["clusterIP"] == ip and seen["spec"]["clusterIPs"] == [ip]
        assert [p["nodePort"] for p in seen["spec"]["ports"]] == [p["nodePort"] for p in stored["spec"]["ports"]]
        assert ip in _ips(server)
    finally:
        _unconfigure(server, *cfgs)


def test_a_refused_service_releases_its_ipaddress_through_admission(server, hook, ns):
    """The transaction's revert: the IPAddress written for a Service its validating webhook refuses is deleted
    again by the loopback client, whose DELETE the webhooks see."""
    cfgs = [_configure(server, hook, "validating", "/allow", "ipaddresses"),
            _configure(server, hook, "validating", "/deny", "services", ns)]
    try:
        since, before = len(hook.reviews), _ips(server)
        r = requests.post(f"{server.url}/api/v1/namespaces/{ns}/services",
                          json={"metadata": {"name": "refused"}, "spec": {"ports": [{"port": 80}]}})
        assert r.status_code == 403, r.text
        reviews = _reviews(hook, since, "ipaddresses")
        assert [q["operation"] for q in reviews] == ["CREATE", "DELETE"]
        assert reviews[0]["name"] == reviews[1]["name"] and reviews[1]["userInfo"]["username"] == "system:apiserver"
        assert _ips(server) == before
    finally:
        _unconfigure(server, *cfgs)


def test_a_refused_ipaddress_of_a_requested_cluster_ip_is_the_services_422(server, hook, ns):
    """`allocIPs`: a requested IP's failed allocation is `spec.clusterIPs: Invalid value: ...: failed to allocate
    IP <ip>: <the IPAddress create's error>`; the Service's validating webhook is not called."""
    cfgs = [_configure(server, hook, "validating", "/deny", "ipaddresses"),
            _configure(server, hook, "validating", "/allow", "services", ns)]
    try:
        since = len(hook.reviews)
        r = requests.post(f"{server.url}/api/v1/namespaces/{ns}/services",
                          json={"metadata": {"name": "fixed"}, "spec": {"clusterIP": "10.96.200.7",
                                                                       "ports": [{"port": 80}]}})
        assert r.status_code == 422, r.text
        hook_name = cfgs[0].split("/")[1] + ".example.com"
        assert r.json()["message"] == (
            'Service "fixed" is invalid: spec.clusterIPs: Invalid value: []string{"10.96.200.7"}: failed to allocate '
            f'IP 10.96.200.7: admission webhook "{hook_name}" denied the request: no configmaps named deny-me')
        assert [q["operation"] for q in _reviews(hook, since, "ipaddresses")] == ["CREATE"]
        assert _reviews(hook, since, "services") == []
        assert "10.96.200.7" not in _ips(server)
    finally:
        _unconfigure(server, *cfgs)


def _following(ip: str, taken: set[str]) -> str:
    """The address `allocateFromRange`'s iterator reaches after `ip` that the informer cache does not hold (the
    test server's 10.96.0.0/12: its upper part ends at 10.111.255.254)."""
    addr = ipaddress.ip_address(ip)
    while True:
        addr = addr + 1 if str(addr) != "10.111.255.254" else ipaddress.ip_address("10.96.1.1")
        if str(addr) not in taken:
            return str(addr)


def test_a_refused_dynamic_address_is_followed_by_the_next(server, hook, ns):
    """1.33's `allocateFromRange` goes on with the next free address of its iterator (the one after the refused
    one, not a new random draw) after a failed IPAddress create."""
    hook.denied_once.clear()
    taken = _ips(server)
    [first, second], r = _ipaddress_reviews_of_a_create(server, hook, ns, "/deny-once", "second")
    assert r.status_code == 201, r.text
    assert second == _following(first, taken) == r.json()["spec"]["clusterIP"]
    assert first not in _ips(server)


def test_a_walk_of_a_large_range_outlasts_the_requests_deadline(server, hook, ns):
    """Every free address of the /12 is tried, one after the other (upstream: 1,048,574 admitted creates), so a
    webhook refusing each IPAddress keeps the create walking until its deadline passes: the answer is the
    time-out (here the request's own `?timeout=`), not `range is full` after a few addresses."""
    taken = _ips(server)
    cfg = _configure(server, hook, "validating", "/deny", "ipaddresses")
    try:
        since = len(hook.reviews)
        r = requests.post(f"{server.url}/api/v1/namespaces/{ns}/services", params={"timeout": "3s"},
                          json={"metadata": {"name": "walker"}, "spec": {"ports": [{"port": 80}]}})
        names = [q["name"] for q in _reviews(hook, since, "ipaddresses")]
    finally:
        _unconfigure(server, cfg)
    assert r.status_code == 504, r.text
    assert r.json()["reason"] == "Timeout"
    assert len(names) >= 2
    assert all(b == _following(a, taken) for a, b in zip(names, names[1:])), names
    assert requests.get(f"{server.url}/api/v1/namespaces/{ns}/services/walker").status_code == 404


@pytest.fixture(scope="module")
def small_range() -> Iterator[RunningServer]:
    """A server whose Service range is a /28: 10.96.0.1 (the `kubernetes` Service's) to 10.96.0.14."""
    srv = start_embedded(flavor=dataclasses.replace(get_flavor(None), service_cidr="10.96.0.0/28"))
    yield srv
    srv.stop()


def test_a_range_whose_every_free_address_is_refused_is_full(small_range, hook):
    """With every IPAddress create refused, the walk tries each free address of the range once, one after the
    other from a random one (wrapping at its end), then answers `AllocateNext`'s `ErrFull` as a 500."""
    name = f"full-{uuid.uuid4().hex[:8]}"
    assert requests.post(f"{small_range.url}/api/v1/namespaces", json={"metadata": {"name": name}}).status_code == 201
    taken = _ips(small_range)
    assert taken == {"10.96.0.1"}
    names, r = _ipaddress_reviews_of_a_create(small_range, hook, name, "/deny", "none")
    assert r.status_code == 500, r.text
    assert r.json()["message"] == "Internal error occurred: failed to allocate a serviceIP: range is full"
    free = [f"10.96.0.{i}" for i in range(2, 15)]
    assert sorted(names, key=ipaddress.ip_address) == free, " ".join(names)
    start = free.index(names[0])
    assert names == free[start:] + free[:start]


def test_a_range_whose_every_ipaddress_write_storage_fails_is_full(small_range, hook):
    """Storage failing each admitted IPAddress create (etcd unreachable: the loopback client's 500) is a failed
    create as any other to 1.33's `allocateFromRange`: the walk goes on, then `ErrFull`; a requested IP's failure
    is its 422 (`allocIPs`). Before, storage's error ended the walk and was the answer."""
    name = f"down-{uuid.uuid4().hex[:8]}"
    assert requests.post(f"{small_range.url}/api/v1/namespaces", json={"metadata": {"name": name}}).status_code == 201
    store = small_range.server.ctx.store
    create = store.create

    def failing(resource: str, *args: Any, **kw: Any) -> Any:
        if resource == "ipaddresses":
            raise BackendError("cannot reach etcd at http://127.0.0.1:1: connection refused")
        return create(resource, *args, **kw)
    store.create = failing
    try:
        names, r = _ipaddress_reviews_of_a_create(small_range, hook, name, "/allow", "down")
        cfg = _configure(small_range, hook, "validating", "/allow", "ipaddresses")
        try:
            asked = requests.post(f"{small_range.url}/api/v1/namespaces/{name}/services",
                                  json={"metadata": {"name": "asked"},
                                        "spec": {"clusterIP": "10.96.0.9", "ports": [{"port": 80}]}})
        finally:
            _unconfigure(small_range, cfg)
    finally:
        store.create = create
    assert r.status_code == 500, r.text
    assert r.json()["message"] == "Internal error occurred: failed to allocate a serviceIP: range is full"
    assert sorted(names, key=ipaddress.ip_address) == [f"10.96.0.{i}" for i in range(2, 15)], " ".join(names)
    assert asked.status_code == 422, asked.text
    assert asked.json()["details"]["causes"][0]["message"] == (
        'Invalid value: []string{"10.96.0.9"}: failed to allocate IP 10.96.0.9: cannot reach etcd at '
        'http://127.0.0.1:1: connection refused')


def test_a_service_validation_refuses_has_its_ipaddress_written_and_reverted(server, hook, ns):
    """`store.go` `create`: `BeginCreate` allocates (the IPAddress CREATE) before `BeforeCreate` validates, and
    the validation's refusal reverts it (the DELETE), both the loopback client's; the answer is the validation's
    422. A requested ClusterIP whose IPAddress is refused answers the allocation's 422 instead."""
    cfgs = [_configure(server, hook, "validating", "/allow", "ipaddresses"),
            _configure(server, hook, "validating", "/allow", "services", ns)]
    services = f"{server.url}/api/v1/namespaces/{ns}/services"
    try:
        for spec in ({}, {"clusterIP": "10.96.202.3"}):
            since, before = len(hook.reviews), _ips(server)
            r = requests.post(services, json={"metadata": {"name": "portless"}, "spec": spec})
            assert r.status_code == 422, r.text
            assert r.json()["message"] == 'Service "portless" is invalid: spec.ports: Required value'
            reviews = _reviews(hook, since, "ipaddresses")
            assert [q["operation"] for q in reviews] == ["CREATE", "DELETE"]
            assert reviews[0]["name"] == reviews[1]["name"] == spec.get("clusterIP", reviews[0]["name"])
            assert {q["userInfo"]["username"] for q in reviews} == {"system:apiserver"}
            assert reviews[0]["object"]["spec"]["parentRef"]["name"] == "portless"
            assert _reviews(hook, since, "services") == []  # the validating admission comes after
            assert _ips(server) == before
    finally:
        _unconfigure(server, *cfgs)
    cfg = _configure(server, hook, "validating", "/deny", "ipaddresses")
    try:
        r = requests.post(services, json={"metadata": {"name": "portless"}, "spec": {"clusterIP": "10.96.202.4"}})
        assert r.status_code == 422, r.text
        assert "spec.clusterIPs: Invalid value: []string{\"10.96.202.4\"}: failed to allocate IP 10.96.202.4: " \
               "admission webhook" in r.json()["message"]
    finally:
        _unconfigure(server, cfg)


def test_an_update_leaving_external_name_that_validation_refuses_reverts_its_ipaddress(server, hook, ns):
    """`store.go` `Update`: `BeginUpdate` (the ClusterIP's allocation) before `BeforeUpdate` validates, so the
    refused update's IPAddress is created and deleted again, the Service left as it was."""
    services = f"{server.url}/api/v1/namespaces/{ns}/services"
    r = _external_name(services, "ext3")
    cfg = _configure(server, hook, "validating", "/allow", "ipaddresses")
    try:
        since, before = len(hook.reviews), _ips(server)
        r = requests.patch(f"{services}/ext3", json={"spec": {"type": "ClusterIP", "externalName": None}},
                           headers={"Content-Type": "application/merge-patch+json"})
        assert r.status_code == 422, r.text
        assert r.json()["message"] == 'Service "ext3" is invalid: spec.ports: Required value'
        reviews = _reviews(hook, since, "ipaddresses")  # (the repair loop may review a DELETE of it too: the
        # Service, ExternalName, does not hold it)
        assert [q["operation"] for q in reviews][:2] == ["CREATE", "DELETE"]
        assert {(q["operation"], q["name"]) for q in reviews[1:]} == {("DELETE", reviews[0]["name"])}
        assert _ips(server) == before
    finally:
        _unconfigure(server, cfg)
    rv = requests.get(f"{server.url}{IPS}").json()["metadata"]["resourceVersion"]
    r = requests.patch(f"{services}/ext3", json={"spec": {"type": "ClusterIP", "externalName": None}},
                       headers={"Content-Type": "application/merge-patch+json"})
    assert r.status_code == 422, r.text
    assert [e[0] for e in _ipaddress_events(server, rv)] == ["ADDED", "DELETED"]
    assert requests.get(f"{services}/ext3").json()["spec"]["type"] == "ExternalName"


def test_a_requested_cluster_ip_held_already_has_its_create_admitted_then_refused(server, hook, ns):
    """`AllocateService` → `createIPAddress` makes the IPAddress create whether or not the address is held: the
    webhooks review it, then storage's AlreadyExists is `ErrAllocated` (the Service's 422); a webhook's refusal
    comes first. An update leaving ExternalName for a held address is refused the same way (`allocIPs`)."""
    services = f"{server.url}/api/v1/namespaces/{ns}/services"
    r = requests.post(services, json={"metadata": {"name": "holder"}, "spec": {"ports": [{"port": 80}]}})
    assert r.status_code == 201, r.text
    held = r.json()["spec"]["clusterIP"]
    body = {"metadata": {"name": "second"}, "spec": {"clusterIP": held, "ports": [{"port": 80}]}}
    taken = (f'Service "second" is invalid: spec.clusterIPs: Invalid value: []string{{"{held}"}}: failed to '
             f'allocate IP {held}: provided IP is already allocated')
    for path in ("/allow", "/deny"):
        cfg = _configure(server, hook, "validating", path, "ipaddresses")
        try:
            since = len(hook.reviews)
            r = requests.post(services, json=body)
            assert r.status_code == 422, r.text
            reviews = _reviews(hook, since, "ipaddresses")
            assert [(q["operation"], q["name"], q["userInfo"]["username"]) for q in reviews] == [
                ("CREATE", held, "system:apiserver")]
            if path == "/allow":
                assert r.json()["message"] == taken
            else:
                assert "failed to allocate IP " + held + ": admission webhook" in r.json()["message"]
        finally:
            _unconfigure(server, cfg)
    r = _external_name(services, "ext4")
    update = {**r.json(), "spec": {"type": "ClusterIP", "clusterIP": held, "ports": [{"port": 80}]}}
    r = requests.put(f"{services}/ext4", json=update)
    assert r.status_code == 422, r.text
    assert r.json()["message"] == taken.replace('"second"', '"ext4"')
    assert requests.get(f"{services}/ext4").json()["spec"]["type"] == "ExternalName"


def test_a_create_of_a_taken_name_meets_the_validating_webhooks_before_already_exists(server, hook, ns):
    """`store.go` `create`: the validating admission (`createValidation`) runs before `Storage.Create` answers
    AlreadyExists, so a validating webhook reviews the create of a name already taken, and its refusal is the
    answer."""
    cms = f"{server.url}/api/v1/namespaces/{ns}/configmaps"
    assert requests.post(cms, json={"metadata": {"name": "taken"}}).status_code == 201
    for path, code in (("/allow", 409), ("/deny", 403)):
        cfg = _configure(server, hook, "validating", path, "configmaps", ns)
        try:
            since = len(hook.reviews)
            r = requests.post(cms, json={"metadata": {"name": "taken"}, "data": {"a": "b"}})
            assert r.status_code == code, r.text
            [review] = _reviews(hook, since, "configmaps")
            assert (review["operation"], review["name"], review["object"]["data"]) == ("CREATE", "taken", {"a": "b"})
        finally:
            _unconfigure(server, cfg)


def _external_name(services: str, name: str) -> requests.Response:
    """An ExternalName Service `name` created (no ClusterIP: an update leaving the type allocates one)."""
    r = requests.post(services, json={"metadata": {"name": name},
                                      "spec": {"type": "ExternalName", "externalName": "example.com"}})
    assert r.status_code == 201, r.text
    return r


def _ipaddress_events(server: RunningServer, rv: str) -> list[tuple[str, dict[str, Any]]]:
    """The IPAddress events after `rv` (a watch that ends after a second)."""
    r = requests.get(f"{server.url}{IPS}", params={"watch": "1", "resourceVersion": rv, "timeoutSeconds": "1"},
                     timeout=30)
    return [(e["type"], e["object"]) for e in (json.loads(line) for line in r.text.splitlines() if line)]


def test_without_admission_a_refused_create_still_writes_and_deletes_the_ipaddress(server, ns):
    """The same order with no webhook or policy: a watcher of IPAddresses sees the allocation ADDED and DELETED
    for a Service validation refuses (and for one that exists already), as upstream's `txn.Revert`."""
    services = f"{server.url}/api/v1/namespaces/{ns}/services"
    assert requests.post(services, json={"metadata": {"name": "twice"},
                                         "spec": {"ports": [{"port": 80}]}}).status_code == 201
    rv = requests.get(f"{server.url}{IPS}").json()["metadata"]["resourceVersion"]
    assert requests.post(services, json={"metadata": {"name": "bad"}, "spec": {}}).status_code == 422
    assert requests.post(services, json={"metadata": {"name": "twice"},
                                         "spec": {"ports": [{"port": 80}]}}).status_code == 409
    events = _ipaddress_events(server, rv)
    seen = [(kind, obj["spec"]["parentRef"]["name"]) for kind, obj in events]
    assert seen == [("ADDED", "bad"), ("DELETED", "bad"), ("ADDED", "twice"), ("DELETED", "twice")]
    assert events[0][1]["metadata"]["name"] == events[1][1]["metadata"]["name"]


def _ipaddress_reviews_of_a_create(server, hook, ns, path, name) -> tuple[list[str], requests.Response]:
    """The IPAddress names a ClusterIP Service's create had reviewed under an ipaddresses webhook at `path`."""
    cfg = _configure(server, hook, "validating", path, "ipaddresses")
    try:
        since = len(hook.reviews)
        r = requests.post(f"{server.url}/api/v1/namespaces/{ns}/services",
                          json={"metadata": {"name": name}, "spec": {"ports": [{"port": 80}]}})
        return [q["name"] for q in _reviews(hook, since, "ipaddresses")], r
    finally:
        _unconfigure(server, cfg)


def test_a_dry_run_create_shows_the_webhooks_the_dry_run_allocations(server, hook, ns):
    """A dry run writes no IPAddress; its ClusterIP is the range's network address and its NodePort 32769, the
    same in the webhook's review and in the answer."""
    cfgs = [_configure(server, hook, "validating", "/allow", "ipaddresses"),
            _configure(server, hook, "validating", "/allow", "services", ns)]
    try:
        since = len(hook.reviews)
        r = requests.post(f"{server.url}/api/v1/namespaces/{ns}/services", params={"dryRun": "All"},
                          json={"metadata": {"generateName": "dry-"},
                                "spec": {"type": "NodePort", "ports": [{"port": 80}]}})
        assert r.status_code == 201, r.text
        out = r.json()
        assert out["spec"]["clusterIP"] == "10.96.0.0" and out["spec"]["ports"][0]["nodePort"] == 32769
        assert _reviews(hook, since, "ipaddresses") == []
        [review] = _reviews(hook, since, "services")
        assert review["dryRun"] is True and review["object"]["metadata"]["name"] == out["metadata"]["name"]
        assert review["object"]["spec"] == out["spec"]
    finally:
        _unconfigure(server, *cfgs)


def test_kubectl_dry_run_server_service_answers_the_network_address(server, ns, tmp_path: Path):
    """What `kubectl create service --dry-run=server` prints: the dry-run allocator's 10.96.0.0."""
    out = run_kubectl(server.url, tmp_path, "-n", ns, "create", "service", "nodeport", "dry", "--tcp=80:80",
                      "--dry-run=server", "-o", "jsonpath={.spec.clusterIP} {.spec.ports[0].nodePort}")
    assert out.returncode == 0, out.stderr
    assert out.stdout == "10.96.0.0 32769"
    assert requests.get(f"{server.url}/api/v1/namespaces/{ns}/services/dry").status_code == 404


def test_an_update_shows_the_webhooks_the_cluster_ip_and_node_port_then_stored(server, hook, ns):
    """An update leaving ExternalName allocates; the validating webhook's object is the one stored."""
    services = f"{server.url}/api/v1/namespaces/{ns}/services"
    r = _external_name(services, "ext")
    cfgs = [_configure(server, hook, "validating", "/allow", "ipaddresses"),
            _configure(server, hook, "validating", "/allow", "services", ns)]
    try:
        since = len(hook.reviews)
        patch = {"spec": {"type": "NodePort", "externalName": None, "ports": [{"port": 80}]}}
        r = requests.patch(f"{services}/ext", json=patch, headers={"Content-Type": "application/merge-patch+json"})
        assert r.status_code == 200, r.text
        [review] = _reviews(hook, since, "services")
        seen, stored = review["object"]["spec"], r.json()["spec"]
        assert seen["clusterIP"] == stored["clusterIP"] and seen["clusterIPs"] == stored["clusterIPs"]
        assert seen["ports"][0]["nodePort"] == stored["ports"][0]["nodePort"]
        reviews = [r["request"] for _, r in hook.reviews[since:]]  # `beginUpdate`: before the Service's validation
        first = reviews[0]
        assert (first["resource"]["resource"], first["operation"], first["name"]) == (
            "ipaddresses", "CREATE", stored["clusterIP"])
        assert first["userInfo"]["username"] == "system:apiserver"
        # (the repair loop may delete it while the Service is still ExternalName, as `syncIPAddress` does
        # upstream, and recreates it once the update is stored)
        until(lambda: stored["clusterIP"] in _ips(server), "the ClusterIP's IPAddress", timeout=10)
    finally:
        _unconfigure(server, *cfgs)


def test_a_refused_ipaddress_refuses_the_update_that_needs_it(server, hook, ns):
    """An update leaving ExternalName whose requested ClusterIP's IPAddress admission refuses: the Service's 422,
    the Service left as it was."""
    services = f"{server.url}/api/v1/namespaces/{ns}/services"
    r = _external_name(services, "ext2")
    cfg = _configure(server, hook, "validating", "/deny", "ipaddresses")
    try:
        body = {**r.json(), "spec": {"type": "ClusterIP", "clusterIP": "10.96.201.9", "ports": [{"port": 80}]}}
        r = requests.put(f"{services}/ext2", json=body)
        assert r.status_code == 422, r.text
        assert "failed to allocate IP 10.96.201.9: admission webhook" in r.json()["message"]
        assert requests.get(f"{services}/ext2").json()["spec"]["type"] == "ExternalName"
        assert "10.96.201.9" not in _ips(server)
    finally:
        _unconfigure(server, cfg)


def test_deleting_a_service_releases_its_ipaddress_through_admission(server, hook, ns):
    """`afterDelete` → `Release`: the loopback client's DELETE of the IPAddress, which the webhooks see; its
    refusal is only logged upstream (the Service is deleted, the IPAddress stays for the repair loop)."""
    services = f"{server.url}/api/v1/namespaces/{ns}/services"
    ips = []
    for name in ("gone", "kept"):
        r = requests.post(services, json={"metadata": {"name": name}, "spec": {"ports": [{"port": 80}]}})
        assert r.status_code == 201, r.text
        ips.append(r.json()["spec"]["clusterIP"])
    cfg = _configure(server, hook, "validating", "/allow", "ipaddresses")
    try:
        since = len(hook.reviews)
        assert requests.delete(f"{services}/gone").status_code == 200
        [review] = _reviews(hook, since, "ipaddresses")
        assert (review["operation"], review["name"]) == ("DELETE", ips[0])
        assert review["userInfo"]["username"] == "system:apiserver"
        assert ips[0] not in _ips(server)
    finally:
        _unconfigure(server, cfg)
    cfg = _configure(server, hook, "validating", "/deny", "ipaddresses")
    try:
        assert requests.delete(f"{services}/kept").status_code == 200
        assert ips[1] in _ips(server)
    finally:
        _unconfigure(server, cfg)


def test_the_namespace_controllers_service_deletions_release_through_admission(server, hook):
    """The namespace controller deletes the Services; each ClusterIP's IPAddress is released by kube-apiserver's
    allocator (`afterDelete` → `Release`), the loopback client, whose DELETE the webhooks see: the same whoever
    deleted the Service."""
    name = f"gone-{uuid.uuid4().hex[:8]}"
    assert requests.post(f"{server.url}/api/v1/namespaces", json={"metadata": {"name": name}}).status_code == 201
    r = requests.post(f"{server.url}/api/v1/namespaces/{name}/services",
                      json={"metadata": {"name": "web"}, "spec": {"ports": [{"port": 80}]}})
    assert r.status_code == 201, r.text
    ip = r.json()["spec"]["clusterIP"]
    cfg = _configure(server, hook, "validating", "/allow", "ipaddresses")
    try:
        since = len(hook.reviews)
        assert requests.delete(f"{server.url}/api/v1/namespaces/{name}").status_code == 200
        until(lambda: ip not in _ips(server), "the released IPAddress", timeout=30)
        [review] = [q for q in _reviews(hook, since, "ipaddresses") if q["name"] == ip]
        assert review["operation"] == "DELETE" and review["userInfo"]["username"] == "system:apiserver"
    finally:
        _unconfigure(server, cfg)


def test_the_kubernetes_service_controllers_create_reserves_through_admission(server, hook):
    """The `kubernetes` Service, created again by its controller (every 10 s) as the loopback client: its
    requested 10.96.0.1 is reserved by an admitted IPAddress CREATE before the Service is stored; the
    Service's validating webhook sees it after that."""
    cfgs = [_configure(server, hook, "validating", "/allow", "ipaddresses"),
            _configure(server, hook, "validating", "/allow", "services")]
    services = f"{server.url}/api/v1/namespaces/default/services"
    try:
        since = len(hook.reviews)
        assert requests.delete(f"{services}/kubernetes").status_code == 200
        until(lambda: requests.get(f"{services}/kubernetes").status_code == 200, "the kubernetes Service",
              timeout=30)
        reviews = [r["request"] for _, r in hook.reviews[since:]]
        created = [(q["resource"]["resource"], q["operation"], q["name"], q["userInfo"]["username"])
                   for q in reviews if q["operation"] == "CREATE"]
        assert created == [("ipaddresses", "CREATE", "10.96.0.1", "system:apiserver"),
                           ("services", "CREATE", "kubernetes", "system:apiserver")]
        assert "10.96.0.1" in _ips(server)
    finally:
        _unconfigure(server, *cfgs)
