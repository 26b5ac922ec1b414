"""The built-in controllers' own writes pass the admission webhooks and ValidatingAdmissionPolicies
(admission/admitted.py), as kube-controller-manager's API calls do on a kind cluster: a mutating webhook on pods
changes a Deployment's pods, each review's userInfo is the controller's service account (`ClientOrDie("<name>")`
with `--use-service-account-credentials`), a refusal becomes the workload controller's `FailedCreate` event, a
denying policy stops the root-CA publisher's ConfigMap but not the namespace's other objects, a webhook that is
down (failurePolicy Fail) does not stop the controllers' work in other namespaces, and the namespace controller's
deletions are DELETE reviews."""
from __future__ import annotations

import functools
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import requests

from conformance.reference_server.embedded import RunningServer

from .replicas import until as poll_until
from .test_admission_webhooks import Hook, hook, ns, server  # noqa: F401 - the fixtures, per module
from .webhookconfig import AR, MUTATING, VALIDATING, configure, reviews, unconfigure

GROUPS = ["system:serviceaccounts", "system:serviceaccounts:kube-system", "system:authenticated"]


until = functools.partial(poll_until, what="the controllers' writes", timeout=20.0)  # a bounded poll


def deployment(server: RunningServer, ns: str, name: str = "web", replicas: int = 2) -> None:
    body = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name}, "spec": {
        "replicas": replicas, "selector": {"matchLabels": {"app": name}},
        "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": [{"name": "c", "image": "i"}]}}}}
    r = requests.post(f"{server.url}/apis/apps/v1/namespaces/{ns}/deployments", json=body)
    assert r.status_code == 201, r.text


def pods(server: RunningServer, ns: str) -> list[dict[str, Any]]:
    return requests.get(f"{server.url}/api/v1/namespaces/{ns}/pods").json()["items"]


def user_of(review: dict[str, Any]) -> dict[str, Any]:
    return review["userInfo"]


def test_mutating_webhook_changes_a_deployments_pods(server, hook, ns):
    cfg = f"inject-{ns}"
    configure(server, "mutatingwebhookconfigurations", ns, cfg, f"{hook.url}/addlabel-injected", hook.ca_bundle,
              ["pods", "replicasets", "replicasets/status"])
    try:
        deployment(server, ns)
        made = until(lambda: [p for p in pods(server, ns)] if len(pods(server, ns)) == 2 else None)
        assert all(p["metadata"]["labels"].get("injected") == "yes" for p in made), made
        rs = requests.get(f"{server.url}/apis/apps/v1/namespaces/{ns}/replicasets").json()["items"]
        assert rs and rs[0]["metadata"]["labels"].get("injected") == "yes"  # the Deployment controller's create
        seen = reviews(hook, ns)
        pod_creates = [r for r in seen if r["resource"]["resource"] == "pods" and r["operation"] == "CREATE"]
        assert len(pod_creates) >= 2
        assert user_of(pod_creates[0]) == {"username": "system:serviceaccount:kube-system:replicaset-controller",
                                           "groups": GROUPS}
        assert pod_creates[0]["options"] == {"kind": "CreateOptions", "apiVersion": "meta.k8s.io/v1"}
        assert pod_creates[0]["object"]["metadata"]["ownerReferences"][0]["kind"] == "ReplicaSet"
        rs_creates = [r for r in seen if r["resource"] == {"group": "apps", "version": "v1",
                                                             "resource": "replicasets"} and r["operation"] == "CREATE"]
        assert user_of(rs_creates[0])["username"] == "system:serviceaccount:kube-system:deployment-controller"
        status = until(lambda: [r for r in reviews(hook, ns) if r.get("subResource") == "status"
                                and r["resource"]["resource"] == "replicasets"])  # (after the pods: not yet, maybe)
        assert status[0]["operation"] == "UPDATE"  # `UpdateStatus` of the ReplicaSet
    finally:
        unconfigure(server, "mutatingwebhookconfigurations", cfg)


def test_denying_webhook_is_the_replicasets_failed_create(server, hook, ns):
    cfg = f"deny-{ns}"
    configure(server, "validatingwebhookconfigurations", ns, cfg, f"{hook.url}/deny", hook.ca_bundle, ["pods"])
    try:
        deployment(server, ns, "denied", replicas=1)

        def failed() -> list[dict[str, Any]]:
            items = requests.get(f"{server.url}/api/v1/namespaces/{ns}/events").json()["items"]
            return [e for e in items if e["reason"] == "FailedCreate"]
        event = until(failed)[0]
        assert event["involvedObject"]["kind"] == "ReplicaSet"
        assert event["source"] == {"component": "replicaset-controller"}
        assert event["message"] == (f'Error creating: admission webhook "{cfg}.example.com" denied the request: '
                                    "no configmaps named deny-me")
        assert pods(server, ns) == []
        rs = requests.get(f"{server.url}/apis/apps/v1/namespaces/{ns}/replicasets").json()["items"][0]
        cond = until(lambda: [c for c in (requests.get(
            f"{server.url}/apis/apps/v1/namespaces/{ns}/replicasets/{rs['metadata']['name']}").json().get(
            "status") or {}).get("conditions") or [] if c["type"] == "ReplicaFailure"])[0]
        assert cond["reason"] == "FailedCreate"
    finally:
        unconfigure(server, "validatingwebhookconfigurations", cfg)
    until(lambda: len(pods(server, ns)) == 1)  # the refused key was requeued (rate-limited): it retries


@pytest.fixture
def policy(server: RunningServer) -> Iterator[Callable[[str], str]]:
    """A Deny policy refusing `kube-root-ca.crt` in namespaces labelled `vap-root=<label>` when the root-CA publisher's
    service account (by `request.userInfo`) makes it; returns the binding's name (deleted afterwards)."""
    made: list[tuple[str, str]] = []

    def make(label: str) -> str:
        name = f"root-ca-{uuid.uuid4().hex[:8]}"
        body = {"metadata": {"name": name}, "spec": {
            "matchConstraints": {"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"],
                                                    "operations": ["CREATE"], "resources": ["configmaps"]}],
                                 "namespaceSelector": {"matchLabels": {"vap-root": label}}},
            "validations": [{"expression": "!(object.metadata.name == 'kube-root-ca.crt' && request.userInfo.username"
                                           " == 'system:serviceaccount:kube-system:root-ca-cert-publisher' && "
                                           "'system:serviceaccounts:kube-system' in request.userInfo.groups)"}]}}
        r = requests.post(f"{server.url}{AR}/validatingadmissionpolicies", json=body)
        assert r.status_code == 201, r.text
        made.append(("validatingadmissionpolicies", name))
        r = requests.post(f"{server.url}{AR}/validatingadmissionpolicybindings", json={
            "metadata": {"name": name}, "spec": {"policyName": name, "validationActions": ["Deny"]}})
        assert r.status_code == 201, r.text
        made.append(("validatingadmissionpolicybindings", name))
        return name
    yield make
    for plural, name in reversed(made):
        requests.delete(f"{server.url}{AR}/{plural}/{name}")


def test_denying_policy_stops_the_root_ca_publisher_only(server, policy):
    label = uuid.uuid4().hex[:8]
    binding = policy(label)
    name = f"root-{label}"
    r = requests.post(f"{server.url}/api/v1/namespaces", json={"metadata": {"name": name,
                                                                           "labels": {"vap-root": label}}})
    assert r.status_code == 201, r.text
    later = f"later-{label}"  # queued after it: once this one has its ConfigMap, the publisher tried `name`
    assert requests.post(f"{server.url}/api/v1/namespaces", json={"metadata": {"name": later}}).status_code == 201
    try:
        until(lambda: requests.get(f"{server.url}/api/v1/namespaces/{later}/configmaps/kube-root-ca.crt").ok)
        until(lambda: requests.get(f"{server.url}/api/v1/namespaces/{name}/serviceaccounts/default").ok)
        r = requests.post(f"{server.url}/api/v1/namespaces/{name}/configmaps", json={"metadata": {"name": "mine"}})
        assert r.status_code == 201, r.text  # the namespace is usable
        # the publisher's create was refused (by its userInfo) and is retried with backoff meanwhile
        assert requests.get(f"{server.url}/api/v1/namespaces/{name}/configmaps/kube-root-ca.crt").status_code == 404
        requests.delete(f"{server.url}{AR}/validatingadmissionpolicybindings/{binding}")
        until(lambda: requests.get(f"{server.url}/api/v1/namespaces/{name}/configmaps/kube-root-ca.crt").ok)
    finally:
        requests.delete(f"{server.url}/api/v1/namespaces/{name}")
        requests.delete(f"{server.url}/api/v1/namespaces/{later}")


def test_policy_sees_the_publishers_service_account(server, hook):
    """The policy's `request.userInfo` is what a webhook sees: the root-CA publisher's service account."""
    label = uuid.uuid4().hex[:8]
    name = f"who-{label}"
    cfg = f"who-{label}"
    configure(server, VALIDATING, label, cfg, f"{hook.url}/allow", hook.ca_bundle, ["configmaps", "serviceaccounts"],
              operations=["CREATE"], namespaceSelector={"matchLabels": {"who": label}})
    try:
        r = requests.post(f"{server.url}/api/v1/namespaces",
                          json={"metadata": {"name": name, "labels": {"who": label}}})
        assert r.status_code == 201, r.text
        until(lambda: requests.get(f"{server.url}/api/v1/namespaces/{name}/configmaps/kube-root-ca.crt").ok)
        until(lambda: requests.get(f"{server.url}/api/v1/namespaces/{name}/serviceaccounts/default").ok)
        users = {r["resource"]["resource"]: user_of(r) for r in reviews(hook, name)}
        assert users["configmaps"] == {"username": "system:serviceaccount:kube-system:root-ca-cert-publisher",
                                       "groups": GROUPS}
        assert users["serviceaccounts"]["username"] == \
            "system:serviceaccount:kube-system:service-account-controller"
    finally:
        unconfigure(server, VALIDATING, cfg)
        requests.delete(f"{server.url}/api/v1/namespaces/{name}")


def test_a_webhook_down_does_not_stop_the_controllers(server, hook):
    """failurePolicy Fail and nothing listening: the publisher's create fails in the matched namespace (requeued
    with backoff), and the controllers keep working elsewhere."""
    label = uuid.uuid4().hex[:8]
    cfg = f"down-{label}"
    configure(server, VALIDATING, label, cfg, "https://127.0.0.1:9/down", hook.ca_bundle, ["configmaps"],
              operations=["CREATE"], failurePolicy="Fail", namespaceSelector={"matchLabels": {"down": label}})
    blocked, free = f"down-{label}", f"up-{label}"
    try:
        for name, labels in ((blocked, {"down": label}), (free, {})):
            r = requests.post(f"{server.url}/api/v1/namespaces", json={"metadata": {"name": name, "labels": labels}})
            assert r.status_code == 201, r.text
        until(lambda: requests.get(f"{server.url}/api/v1/namespaces/{free}/configmaps/kube-root-ca.crt").ok)
        until(lambda: requests.get(f"{server.url}/api/v1/namespaces/{blocked}/serviceaccounts/default").ok)
        assert requests.get(f"{server.url}/api/v1/namespaces/{blocked}/configmaps/kube-root-ca.crt").status_code \
            == 404
        deployment(server, free, "elsewhere", replicas=1)
        until(lambda: len(pods(server, free)) == 1)
    finally:
        unconfigure(server, VALIDATING, cfg)
        for name in (blocked, free):
            requests.delete(f"{server.url}/api/v1/namespaces/{name}")
    until(lambda: requests.get(f"{server.url}/api/v1/namespaces/{blocked}").status_code == 404)


def test_namespace_controller_deletes_are_delete_reviews(server, hook):
    label = uuid.uuid4().hex[:8]
    name = f"gone-{label}"
    r = requests.post(f"{server.url}/api/v1/namespaces", json={"metadata": {"name": name, "labels": {"hooks": name}}})
    assert r.status_code == 201, r.text
    assert requests.post(f"{server.url}/api/v1/namespaces/{name}/configmaps",
                         json={"metadata": {"name": "keep"}}).status_code == 201
    cfg = f"gone-{label}"
    configure(server, "validatingwebhookconfigurations", name, cfg, f"{hook.url}/allow", hook.ca_bundle,
              ["configmaps"])
    try:
        requests.delete(f"{server.url}/api/v1/namespaces/{name}")
        until(lambda: requests.get(f"{server.url}/api/v1/namespaces/{name}").status_code == 404)
        deletes = [r for r in reviews(hook, name) if r["operation"] == "DELETE" and r["name"] == "keep"]
        assert deletes and user_of(deletes[0])["username"] == "system:serviceaccount:kube-system:namespace-controller"
        assert deletes[0]["options"] == {"kind": "DeleteOptions", "apiVersion": "meta.k8s.io/v1",
                                         "propagationPolicy": "Background"}
        assert deletes[0]["oldObject"]["metadata"]["name"] == "keep"
    finally:
        unconfigure(server, "validatingwebhookconfigurations", cfg)


def test_put_that_creates_is_a_create_review(server, hook, ns):
    """`AllowCreateOnUpdate` kinds (a Lease) are created by a PUT (201), reviewed as CREATE with the request's
    options as CreateOptions (`updateToCreateOptions`); a ConfigMap's strategy does not allow it (404)."""
    cfg = f"putcreate-{ns}"
    configure(server, MUTATING, ns, cfg, f"{hook.url}/addlabel-created", hook.ca_bundle, ["leases"],
              operations=["CREATE"], api_groups=["coordination.k8s.io"])
    try:
        url = f"{server.url}/apis/coordination.k8s.io/v1/namespaces/{ns}/leases/put-made"
        r = requests.put(f"{url}?fieldManager=putter", json={
            "apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": "put-made"},
            "spec": {"holderIdentity": "me"}})
        assert r.status_code == 201, r.text
        assert r.json()["metadata"]["labels"] == {"created": "yes"}
        assert [m["manager"] for m in r.json()["metadata"]["managedFields"]] == ["putter"]
        made = [x for x in reviews(hook, ns) if x["resource"]["resource"] == "leases"]
        assert [(x["operation"], x["name"]) for x in made] == [("CREATE", "put-made")]
        assert made[0]["options"] == {"kind": "CreateOptions", "apiVersion": "meta.k8s.io/v1",
                                      "fieldManager": "putter"}
        assert made[0]["oldObject"] is None
        r = requests.put(url, json={**r.json(), "spec": {"holderIdentity": "you"}})
        assert r.status_code == 200, r.text  # it exists now: an update (no CREATE review for it)
        assert len([x for x in reviews(hook, ns) if x["resource"]["resource"] == "leases"]) == 1
    finally:
        unconfigure(server, MUTATING, cfg)
    r = requests.put(f"{server.url}/apis/coordination.k8s.io/v1/namespaces/{ns}/leases/plain",
                     json={"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": "plain"}})
    assert r.status_code == 201, r.text  # without any webhook too
    r = requests.put(f"{server.url}/api/v1/namespaces/{ns}/configmaps/missing",
                     json={"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "missing"}})
    assert r.status_code == 404, r.text


def test_put_that_creates_a_service_is_a_create_review(server, hook, ns):
    """A Service's PUT-create (its strategy has `AllowCreateOnUpdate`) is reviewed as CREATE, and the object the
    webhook mutated is allocated its cluster IP as a POST's would be."""
    cfg = f"putsvc-{ns}"
    configure(server, "mutatingwebhookconfigurations", ns, cfg, f"{hook.url}/addlabel-created", hook.ca_bundle,
              ["services"])
    try:
        r = requests.put(f"{server.url}/api/v1/namespaces/{ns}/services/put-svc?fieldManager=putter", json={
            "apiVersion": "v1", "kind": "Service", "metadata": {"name": "put-svc"}, "spec": {"ports": [{"port": 80}]}})
        assert r.status_code == 201, r.text
        assert r.json()["metadata"]["labels"] == {"created": "yes"}
        assert r.json()["spec"]["clusterIPs"] == [r.json()["spec"]["clusterIP"]]
        made = [x for x in reviews(hook, ns) if x["resource"]["resource"] == "services"]
        assert [(x["operation"], x["name"]) for x in made] == [("CREATE", "put-svc")]
        assert made[0]["options"] == {"kind": "CreateOptions", "apiVersion": "meta.k8s.io/v1",
                                      "fieldManager": "putter"}
    finally:
        unconfigure(server, "mutatingwebhookconfigurations", cfg)


def test_put_that_creates_needs_create_permission(tmp_path):
    """update.go `withAuthorization`: a PUT that would create is also authorized as `create`."""
    from conformance.reference_server.embedded import start_embedded
    users = tmp_path / "users.csv"
    users.write_text('bob-token,bob,2,"dev"\n')
    srv = start_embedded(authorization="rbac", users_file=str(users))
    try:
        admin = {"Authorization": f"Bearer {srv.token}"}
        bob = {"Authorization": "Bearer bob-token"}
        assert requests.post(f"{srv.url}/api/v1/namespaces", json={"metadata": {"name": "leasing"}},
                             headers=admin).status_code == 201
        rbac = f"{srv.url}/apis/rbac.authorization.k8s.io/v1/namespaces/leasing"
        assert requests.post(f"{rbac}/roles", headers=admin, json={
            "metadata": {"name": "update-leases"}, "rules": [{"apiGroups": ["coordination.k8s.io"],
                                                              "resources": ["leases"], "verbs": ["get", "update"]}]}
        ).status_code == 201
        assert requests.post(f"{rbac}/rolebindings", headers=admin, json={
            "metadata": {"name": "bob"}, "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role",
                                                     "name": "update-leases"},
            "subjects": [{"kind": "User", "name": "bob", "apiGroup": "rbac.authorization.k8s.io"}]}
        ).status_code == 201
        url = f"{srv.url}/apis/coordination.k8s.io/v1/namespaces/leasing/leases/held"
        body = {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": "held"}}
        r = requests.put(url, json=body, headers=bob)
        assert r.status_code == 403, r.text
        assert r.json()["reason"] == "Forbidden"
        # `NewForbidden(gr, name, reason)`: RBAC gives no reason for a plain denial
        assert r.json()["message"] == 'leases.coordination.k8s.io "held" is forbidden: '
        assert requests.get(url, headers=admin).status_code == 404
        assert requests.put(url, json=body, headers=admin).status_code == 201
        assert requests.put(url, json={**body, "spec": {"holderIdentity": "bob"}}, headers=bob).status_code == 200
    finally:
        srv.stop()


def test_a_slow_webhook_does_not_stall_the_server(server, hook):
    """The publisher waits for a webhook that does not answer (until its `timeoutSeconds`, then `Ignore`), while the
    server answers other requests at once."""
    label = uuid.uuid4().hex[:8]
    cfg, name = f"slow-{label}", f"slow-{label}"
    configure(server, VALIDATING, label, cfg, f"{hook.url}/hold", hook.ca_bundle, ["configmaps"],
              operations=["CREATE"], failurePolicy="Ignore", timeoutSeconds=5,
              namespaceSelector={"matchLabels": {"slow": label}})
    try:
        r = requests.post(f"{server.url}/api/v1/namespaces",
                          json={"metadata": {"name": name, "labels": {"slow": label}}})
        assert r.status_code == 201, r.text
        until(lambda: any(b["request"].get("namespace") == name for _, b in hook.reviews))  # the call is under way
        # answered well before the webhook's 5 s run out (a stalled loop would answer after them)
        assert requests.get(f"{server.url}/api/v1/namespaces/{name}", timeout=4).ok
        assert requests.get(f"{server.url}/api/v1/namespaces/{name}/configmaps/kube-root-ca.crt",
                            timeout=4).status_code == 404  # while the publisher still waits for it
        until(lambda: requests.get(f"{server.url}/api/v1/namespaces/{name}/configmaps/kube-root-ca.crt").ok)
    finally:
        unconfigure(server, VALIDATING, cfg)
        requests.delete(f"{server.url}/api/v1/namespaces/{name}")


def test_on_etcd_the_offloaded_syncs_are_admitted_too(etcd_process, hook):
    """On etcd the workload controllers, the garbage collector and the namespace controller sync in their Offload
    threads: a write waiting for the webhooks still stops the sync there and is settled on the loop."""
    from conformance.reference_server.embedded import start_embedded
    from conformance.reference_server.storage.backends import StorageConfig

    from .backends import unique_prefix
    srv = start_embedded(storage=StorageConfig("etcd", (etcd_process.url,), unique_prefix()))
    name = f"etcd-{uuid.uuid4().hex[:8]}"
    try:
        r = requests.post(f"{srv.url}/api/v1/namespaces", json={"metadata": {"name": name, "labels": {"hooks": name}}})
        assert r.status_code == 201, r.text
        configure(srv, "mutatingwebhookconfigurations", name, f"m-{name}", f"{hook.url}/addlabel-injected",
                  hook.ca_bundle, ["pods", "configmaps"])
        deployment(srv, name, replicas=1)
        made = until(lambda: pods(srv, name))
        assert made[0]["metadata"]["labels"]["injected"] == "yes"
        requests.delete(f"{srv.url}/api/v1/namespaces/{name}")
        until(lambda: requests.get(f"{srv.url}/api/v1/namespaces/{name}").status_code == 404, timeout=40)
        deletes = [r for r in reviews(hook, name) if r["operation"] == "DELETE" and r["resource"]["resource"] == "pods"]
        assert deletes and {user_of(d)["username"] for d in deletes} <= {
            "system:serviceaccount:kube-system:namespace-controller",
            "system:serviceaccount:kube-system:generic-garbage-collector"}
    finally:
        unconfigure(srv, "mutatingwebhookconfigurations", f"m-{name}")
        srv.stop()


def test_pvc_protection_finalizer_removal_is_the_controllers_update(server, hook, ns):
    cfg = f"pvc-{ns}"
    configure(server, "validatingwebhookconfigurations", ns, cfg, f"{hook.url}/allow", hook.ca_bundle,
              ["persistentvolumeclaims"])
    try:
        url = f"{server.url}/api/v1/namespaces/{ns}/persistentvolumeclaims"
        r = requests.post(url, json={"metadata": {"name": "data"}, "spec": {
            "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}})
        assert r.status_code == 201, r.text
        assert "kubernetes.io/pvc-protection" in r.json()["metadata"]["finalizers"]
        requests.delete(f"{url}/data")
        until(lambda: requests.get(f"{url}/data").status_code == 404)
        updates = [x for x in reviews(hook, ns) if x["operation"] == "UPDATE" and x["name"] == "data"]
        assert [user_of(x)["username"] for x in updates] == \
            ["system:serviceaccount:kube-system:pvc-protection-controller"]
    finally:
        unconfigure(server, "validatingwebhookconfigurations", cfg)


def test_pv_binder_writes_are_reviewed(server, hook, ns):
    cfg = f"pv-{ns}"
    configure(server, "validatingwebhookconfigurations", ns, cfg, f"{hook.url}/allow", hook.ca_bundle,
              ["persistentvolumeclaims", "persistentvolumeclaims/status"])
    pv = f"pv-{ns}"
    try:
        r = requests.post(f"{server.url}/api/v1/persistentvolumes", json={"metadata": {"name": pv}, "spec": {
            "capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "hostPath": {"path": "/tmp/x"},
            "storageClassName": "manual"}})
        assert r.status_code == 201, r.text
        url = f"{server.url}/api/v1/namespaces/{ns}/persistentvolumeclaims"
        r = requests.post(url, json={"metadata": {"name": "claim"}, "spec": {
            "accessModes": ["ReadWriteOnce"], "storageClassName": "manual",
            "resources": {"requests": {"storage": "1Gi"}}}})
        assert r.status_code == 201, r.text
        until(lambda: (requests.get(f"{url}/claim").json().get("status") or {}).get("phase") == "Bound")
        writes = [(x.get("subResource", ""), user_of(x)["username"]) for x in reviews(hook, ns)
                  if x["operation"] == "UPDATE" and x["name"] == "claim"]
        binder = "system:serviceaccount:kube-system:persistent-volume-binder"
        assert ("", binder) in writes and ("status", binder) in writes, writes
    finally:
        unconfigure(server, "validatingwebhookconfigurations", cfg)
        requests.delete(f"{server.url}/api/v1/persistentvolumes/{pv}")


def test_denied_replicaset_is_the_deployments_replicaset_create_error(server, hook, ns):
    """sync.go `getNewReplicaSet`: a refused create is a `ReplicaSetCreateError` event and the Progressing condition
    False with the same message; the webhook is asked once per sync, not once per rerun of it."""
    cfg = f"deny-rs-{ns}"
    configure(server, "validatingwebhookconfigurations", ns, cfg, f"{hook.url}/deny", hook.ca_bundle,
              ["replicasets"])
    try:
        deployment(server, ns, "blocked", replicas=1)

        def failed() -> list[dict[str, Any]]:
            items = requests.get(f"{server.url}/api/v1/namespaces/{ns}/events").json()["items"]
            return [e for e in items if e["reason"] == "ReplicaSetCreateError"]
        event = until(failed)[0]
        assert event["involvedObject"]["kind"] == "Deployment"
        assert event["message"].startswith('Failed to create new replica set "blocked-')
        assert event["message"].endswith(f'": admission webhook "{cfg}.example.com" denied the request: '
                                         "no configmaps named deny-me")
        cond = until(lambda: [c for c in (requests.get(
            f"{server.url}/apis/apps/v1/namespaces/{ns}/deployments/blocked").json().get("status") or {}).get(
            "conditions") or [] if c["type"] == "Progressing" and c["status"] == "False"])[0]
        assert cond["reason"] == "ReplicaSetCreateError" and cond["message"] == event["message"]
        creates = [x for x in reviews(hook, ns) if x["operation"] == "CREATE"]
        assert len(creates) < 20  # the rate limiter's backoff, no storm of reruns
    finally:
        unconfigure(server, "validatingwebhookconfigurations", cfg)


def test_a_refused_content_delete_holds_the_namespace_until_the_webhook_allows_it(server, hook):
    """The namespace controller's DELETE of an item refused: the namespace stays Terminating with the refusal in
    its `NamespaceDeletionContentFailure` condition, and is retried with backoff (not wedged) until allowed."""
    name = f"held-{uuid.uuid4().hex[:8]}"
    r = requests.post(f"{server.url}/api/v1/namespaces", json={"metadata": {"name": name, "labels": {"hooks": name}}})
    assert r.status_code == 201, r.text
    assert requests.post(f"{server.url}/api/v1/namespaces/{name}/configmaps",
                         json={"metadata": {"name": "precious"}}).status_code == 201
    cfg = f"held-{name}"
    configure(server, VALIDATING, name, cfg, f"{hook.url}/deny", hook.ca_bundle, ["configmaps"], operations=["DELETE"])
    try:
        requests.delete(f"{server.url}/api/v1/namespaces/{name}")

        def failure() -> list[dict[str, Any]]:
            conds = (requests.get(f"{server.url}/api/v1/namespaces/{name}").json().get("status") or {}).get(
                "conditions") or []
            return [c for c in conds if c["type"] == "NamespaceDeletionContentFailure" and c["status"] == "True"]
        cond = until(failure)[0]
        assert f'admission webhook "{cfg}.example.com" denied the request' in cond["message"]
        assert requests.get(f"{server.url}/api/v1/namespaces/{name}/configmaps/precious").ok
    finally:
        unconfigure(server, VALIDATING, cfg)
    until(lambda: requests.get(f"{server.url}/api/v1/namespaces/{name}").status_code == 404, timeout=40)


def test_garbage_collector_deletes_are_delete_reviews(server, hook, ns):
    cfg = f"gc-{ns}"
    configure(server, "validatingwebhookconfigurations", ns, cfg, f"{hook.url}/allow", hook.ca_bundle,
              ["replicasets"])
    try:
        deployment(server, ns, "owned", replicas=0)
        until(lambda: requests.get(f"{server.url}/apis/apps/v1/namespaces/{ns}/replicasets").json()["items"])
        r = requests.delete(f"{server.url}/apis/apps/v1/namespaces/{ns}/deployments/owned")
        assert r.status_code == 200, r.text
        until(lambda: not requests.get(f"{server.url}/apis/apps/v1/namespaces/{ns}/replicasets").json()["items"])
        deletes = [x for x in reviews(hook, ns) if x["operation"] == "DELETE"]
        assert [user_of(x)["username"] for x in deletes] == \
            ["system:serviceaccount:kube-system:generic-garbage-collector"]
        assert deletes[0]["options"]["propagationPolicy"] == "Background"
        assert deletes[0]["options"]["preconditions"]["uid"] == deletes[0]["oldObject"]["metadata"]["uid"]
    finally:
        unconfigure(server, "validatingwebhookconfigurations", cfg)


def test_the_schedulers_status_write_is_its_own_review(server, hook, ns):
    cfg = f"sched-{ns}"
    configure(server, "validatingwebhookconfigurations", ns, cfg, f"{hook.url}/allow", hook.ca_bundle,
              ["pods/status"])
    try:
        r = requests.post(f"{server.url}/api/v1/namespaces/{ns}/pods", json={
            "metadata": {"name": "waits"}, "spec": {"containers": [{"name": "c", "image": "i"}]}})
        assert r.status_code == 201, r.text
        until(lambda: any(c["type"] == "PodScheduled" for c in (requests.get(
            f"{server.url}/api/v1/namespaces/{ns}/pods/waits").json().get("status") or {}).get("conditions") or []))
        status = [x for x in reviews(hook, ns) if x.get("subResource") == "status"]
        assert status and {(x["operation"], x["name"]) for x in status} == {("UPDATE", "waits")}
        # (twice when its rerun fell in the next second: the condition's timestamp made it another object)
        assert all(user_of(x) == {"username": "system:kube-scheduler", "groups": ["system:authenticated"]}
                   for x in status)
    finally:
        unconfigure(server, "validatingwebhookconfigurations", cfg)


def test_the_disruption_controllers_status_write_is_its_own_review(server, hook, ns):
    """disruption.go's `UpdateStatus` of a budget is an API call of `disruption-controller` (`ClientOrDie`)."""
    cfg = f"pdb-{ns}"
    configure(server, "validatingwebhookconfigurations", ns, cfg, f"{hook.url}/allow", hook.ca_bundle,
              ["poddisruptionbudgets/status"], rules=[{"operations": ["UPDATE"], "apiGroups": ["policy"],
                                                      "apiVersions": ["v1"],
                                                      "resources": ["poddisruptionbudgets/status"]}])
    try:
        url = f"{server.url}/apis/policy/v1/namespaces/{ns}/poddisruptionbudgets"
        r = requests.post(url, json={"metadata": {"name": "budget"},
                                     "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}}})
        assert r.status_code == 201, r.text
        until(lambda: (requests.get(f"{url}/budget").json().get("status") or {}).get("observedGeneration"))
        writes = [(x.get("subResource", ""), user_of(x)["username"]) for x in reviews(hook, ns)
                  if x["operation"] == "UPDATE" and x["name"] == "budget"]
        assert ("status", "system:serviceaccount:kube-system:disruption-controller") in writes, writes
    finally:
        unconfigure(server, "validatingwebhookconfigurations", cfg)


def test_the_schedulers_events_are_events_k8s_io_creates(server, hook, ns):
    """kube-scheduler's recorder is the events.k8s.io/v1 one (`tools/events`): a webhook on that group's `events`
    sees its FailedScheduling Event as an events.k8s.io/v1 object, made by `system:kube-scheduler`."""
    cfg = f"sched-events-{ns}"
    configure(server, "validatingwebhookconfigurations", ns, cfg, f"{hook.url}/allow", hook.ca_bundle, ["events"],
              rules=[{"operations": ["CREATE"], "apiGroups": ["events.k8s.io"], "apiVersions": ["v1"],
                      "resources": ["events"]}])
    try:
        r = requests.post(f"{server.url}/api/v1/namespaces/{ns}/pods", json={
            "metadata": {"name": "unplaced"}, "spec": {"containers": [{"name": "c", "image": "i"}]}})
        assert r.status_code == 201, r.text
        seen = until(lambda: [x for x in reviews(hook, ns) if x["resource"]["resource"] == "events"])
        review = seen[0]
        assert review["resource"] == {"group": "events.k8s.io", "version": "v1", "resource": "events"}
        assert review["kind"] == {"group": "events.k8s.io", "version": "v1", "kind": "Event"}
        assert user_of(review) == {"username": "system:kube-scheduler", "groups": ["system:authenticated"]}
        event = review["object"]
        assert (event["apiVersion"], event["reason"], event["note"], event["action"], event["reportingController"],
                event["regarding"]["name"]) == ("events.k8s.io/v1", "FailedScheduling",
                                                 "no nodes available to schedule pods", "Scheduling",
                                                 "default-scheduler", "unplaced")
    finally:
        unconfigure(server, "validatingwebhookconfigurations", cfg)


def _ready_pod_and_budget(server: RunningServer, ns: str) -> str:
    """A Running, Ready pod and a budget allowing one disruption (the disruption controller's status)."""
    r = requests.post(f"{server.url}/api/v1/namespaces/{ns}/pods", json={
        "metadata": {"name": "p", "labels": {"app": "evict"}}, "spec": {"containers": [{"name": "c", "image": "i"}]}})
    assert r.status_code == 201, r.text
    r = requests.patch(f"{server.url}/api/v1/namespaces/{ns}/pods/p/status", headers={
        "Content-Type": "application/strategic-merge-patch+json"}, json={"status": {
            "phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}})
    assert r.status_code == 200, r.text
    url = f"{server.url}/apis/policy/v1/namespaces/{ns}/poddisruptionbudgets"
    r = requests.post(url, json={"metadata": {"name": "budget"},
                                 "spec": {"minAvailable": 0, "selector": {"matchLabels": {"app": "evict"}}}})
    assert r.status_code == 201, r.text
    until(lambda: (requests.get(f"{url}/budget").json().get("status") or {}).get("disruptionsAllowed") == 1)
    return f"{server.url}/api/v1/namespaces/{ns}/pods/p/eviction"


EVICTION = {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": "p"}}
APISERVER_ONLY = [{"name": "loopback", "expression": "request.userInfo.username == 'system:apiserver'"}]
PDB_STATUS = [{"operations": ["UPDATE"], "apiGroups": ["policy"], "apiVersions": ["v1"],
               "resources": ["poddisruptionbudgets/status"]}]


def _evicting(server: RunningServer, hook: Any, ns: str, answer: str) -> tuple[str, str]:
    """The pod and budget, and a webhook (`/allow` or `/deny`) on the loopback user's budget status writes; returns
    the eviction's URL and the configuration's name."""
    eviction = _ready_pod_and_budget(server, ns)
    cfg = f"evict-{answer}-{ns}"
    configure(server, "validatingwebhookconfigurations", ns, cfg, f"{hook.url}/{answer}", hook.ca_bundle,
              ["poddisruptionbudgets/status"], rules=PDB_STATUS, matchConditions=APISERVER_ONLY)
    return eviction, cfg


def test_an_evictions_budget_status_is_the_apiservers_review(server, hook, ns):
    """eviction.go's `checkAndDecrement` writes the budget with the loopback client's `UpdateStatus`: a
    `poddisruptionbudgets/status` UPDATE by `system:apiserver` (`system:masters`) that webhooks see."""
    eviction, cfg = _evicting(server, hook, ns, "allow")
    try:
        r = requests.post(eviction, json=EVICTION)
        assert r.status_code == 201, r.text
        status = [x for x in reviews(hook, ns) if x["resource"]["resource"] == "poddisruptionbudgets"]
        # one review per attempt (the eviction ran once more for the write, reviewed once); a disruption controller
        # write in between is a conflict, retried on the budget read again (`RetryOnConflict`): another review
        assert status and all((x["subResource"], x["operation"], x["name"]) == ("status", "UPDATE", "budget")
                              for x in status), status
        user = user_of(status[-1])
        assert (user["username"], user["groups"]) == ("system:apiserver", ["system:authenticated", "system:masters"])
        assert user["uid"]
        assert list(status[-1]["object"]["status"]["disruptedPods"]) == ["p"]
        assert status[-1]["object"]["status"]["disruptionsAllowed"] == 0
    finally:
        unconfigure(server, "validatingwebhookconfigurations", cfg)


def test_a_refused_budget_status_refuses_the_eviction(server, hook, ns):
    eviction, cfg = _evicting(server, hook, ns, "deny")
    try:
        r = requests.post(eviction, json=EVICTION)
        assert (r.status_code, r.json()["message"]) == (
            403, f'admission webhook "{cfg}.example.com" denied the request: no configmaps named deny-me'), r.text
        assert requests.get(f"{server.url}/api/v1/namespaces/{ns}/pods/p").status_code == 200  # not evicted
        budget = requests.get(f"{server.url}/apis/policy/v1/namespaces/{ns}/poddisruptionbudgets/budget").json()
        assert budget["status"]["disruptionsAllowed"] == 1 and not budget["status"].get("disruptedPods")
    finally:
        unconfigure(server, "validatingwebhookconfigurations", cfg)
    assert requests.post(eviction, json=EVICTION).status_code == 201  # allowed again


def test_a_validating_webhook_sees_the_name_a_controllers_pod_is_stored_under(server, hook, ns):
    """A ReplicaSet's pods are created with `generateName`: the validating webhook's review carries the generated
    name (`AdmissionToValidateObjectFunc`), and the pod is stored under that name (upstream's `store.go` `Create`
    generates it once, before the validating admission)."""
    cfg = f"allow-{ns}"
    configure(server, "validatingwebhookconfigurations", ns, cfg, f"{hook.url}/allow", hook.ca_bundle, ["pods"])
    try:
        deployment(server, ns, "named", replicas=2)
        made = until(lambda: pods(server, ns) if len(pods(server, ns)) == 2 else None)
        seen = {r["name"] for r in reviews(hook, ns) if r["resource"]["resource"] == "pods"
                and r["operation"] == "CREATE"}
        assert {p["metadata"]["name"] for p in made} <= seen
        assert all(r["object"]["metadata"]["name"] == r["name"] for r in reviews(hook, ns)
                   if r["resource"]["resource"] == "pods" and r["operation"] == "CREATE")
    finally:
        unconfigure(server, "validatingwebhookconfigurations", cfg)
