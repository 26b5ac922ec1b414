"""controller/apiserver_identity.py: kube-apiserver's identity Lease (pkg/controlplane/apiserver/server.go,
component-helpers' lease controller): its name from the hostname, labels, holder, duration, renewals."""
from __future__ import annotations

import re

from conformance.reference_server.controller.apiserver_identity import (
    IdentityLeaseController,
    apiserver_id,
    micro_time,
)
from conformance.reference_server.server import build_context
from tests.reference_server.replicas import until


def test_the_name_is_upstreams_hash_of_the_hostname():
    # sha256 over cryptobyte's uint16-length-prefixed hostname and "kube-apiserver", first 16 bytes, base32 lowered
    import base64
    import hashlib
    data = b"\x00\x04host" + b"\x00\x0ekube-apiserver"
    want = "apiserver-" + base64.b32encode(hashlib.sha256(data).digest()[:16]).decode().rstrip("=").lower()
    assert apiserver_id("host") == want
    assert re.fullmatch(r"apiserver-[a-z2-7]{26}", apiserver_id("kind-control-plane"))
    assert apiserver_id("a") != apiserver_id("b")


def test_one_heartbeat_creates_then_renews_the_lease():
    registry = build_context(flavor="bare").registry
    now = [1_700_000_000.0]
    c = IdentityLeaseController(registry, hostname="kind-control-plane", clock=lambda: now[0])
    c.sync()
    store = registry.group("coordination.k8s.io", "leases")
    lease = store.get("kube-system", apiserver_id("kind-control-plane"))
    assert lease["metadata"]["labels"] == {"apiserver.kubernetes.io/identity": "kube-apiserver",
                                           "kubernetes.io/hostname": "kind-control-plane"}
    assert lease["spec"] == {"holderIdentity": c.holder_identity, "leaseDurationSeconds": 3600,
                             "renewTime": micro_time(now[0])}
    assert re.fullmatch(apiserver_id("kind-control-plane") + r"_[0-9a-f-]{36}", c.holder_identity)
    assert [m["manager"] for m in lease["metadata"]["managedFields"]] == ["kube-apiserver"]
    now[0] += 10
    c.sync()
    renewed = store.get("kube-system", lease["metadata"]["name"])
    assert renewed["spec"]["renewTime"] == micro_time(now[0])
    assert renewed["metadata"]["resourceVersion"] != lease["metadata"]["resourceVersion"]


def test_a_restarted_server_renews_the_lease_of_its_host_keeping_its_holder():
    registry = build_context(flavor="bare").registry
    first = IdentityLeaseController(registry, hostname="h")
    first.sync()
    second = IdentityLeaseController(registry, hostname="h")  # a new process: a new uuid
    second.sync()  # get, then update from the stored Lease (newLease copies the base: the holder stays)
    lease = registry.group("coordination.k8s.io", "leases").get("kube-system", apiserver_id("h"))
    assert lease["spec"]["holderIdentity"] == first.holder_identity


def test_a_deleted_lease_comes_back_at_the_next_heartbeat():
    registry = build_context(flavor="bare").registry
    c = IdentityLeaseController(registry, hostname="h")
    c.sync()
    store = registry.group("coordination.k8s.io", "leases")
    from conformance.reference_server.registry.store import DeleteOptions
    store.delete("kube-system", apiserver_id("h"), DeleteOptions())
    c.sync()  # the update of the last written Lease fails (404): get-or-create
    assert store.get("kube-system", apiserver_id("h"))["spec"]["holderIdentity"] == c.holder_identity


def test_every_server_has_its_identity_lease(http, url):
    def leases():
        r = http.get(f"{url}/apis/coordination.k8s.io/v1/namespaces/kube-system/leases",
                     params={"labelSelector": "apiserver.kubernetes.io/identity=kube-apiserver"})
        return r.json()["items"]
    items = until(leases, "the identity Lease", timeout=10)
    assert items[0]["metadata"]["name"].startswith("apiserver-")
    assert items[0]["spec"]["leaseDurationSeconds"] == 3600
