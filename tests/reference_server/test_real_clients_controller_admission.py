"""kubectl 1.33 against a server whose controllers' writes pass the webhooks (admission/admitted.py): a sidecar-style
mutating webhook on pods labels the pods `kubectl create deployment` leads to, and `kubectl get events` shows the
ReplicaSet's `FailedCreate` with a denying webhook's message."""
from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from .replicas import until
from .test_admission_webhooks import Hook, hook  # noqa: F401 - the webhook fixture, per module
from .test_real_clients import Kube, serve_kube, table
from .webhookconfig import AR, configure


@pytest.fixture(scope="module")
def kube(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kube]:
    """The default flavour: kube-controller-manager's workload controllers run."""
    for k in serve_kube(tmp_path_factory, "ctrl-admission"):
        if k.binary is None:
            pytest.skip("kubectl 1.33 unavailable")
        yield k


def webhook(kube: Kube, hook: Hook, plural: str, path: str, ns: str) -> str:
    """A webhook at `path` on pod creates in namespace `ns`; the configuration's name."""
    return configure(kube.server, plural, ns, None, f"{hook.url}{path}", hook.ca_bundle, ["pods"],
                     operations=["CREATE"], api_groups=[""], session=kube.http,
                     namespaceSelector={"matchLabels": {"kubernetes.io/metadata.name": ns}})


def rows(kube: Kube, *args: str) -> tuple[list[str], list[list[str]]]:
    """`kubectl get ...` as (header, rows); no rows while it finds nothing ("No resources found" on stderr)."""
    proc = kube.run("get", *args)
    assert proc.returncode == 0, proc.stderr
    return table(proc.stdout) if proc.stdout.strip() else ([], [])


def rows_when(kube: Kube, ready: Any, *args: str) -> Any:
    """`rows(...)` once `ready(rows)` holds (None meanwhile, for `poll`)."""
    got = rows(kube, *args)
    return got if ready(got[1]) else None


def test_kubectl_sees_the_webhook_on_a_deployments_pods(kube: Kube, hook: Hook) -> None:
    ns = f"kadm-{uuid.uuid4().hex[:8]}"
    kube.ok("create", "namespace", ns)
    cfg = webhook(kube, hook, "mutatingwebhookconfigurations", "/addlabel-injected", ns)
    try:
        kube.ok("create", "deployment", "web", "--image=nginx", "--replicas=2", "-n", ns)
        header, pods = until(lambda: rows_when(kube, lambda r: len(r) == 2, "pods", "-n", ns, "-l",
                                               "injected=yes,app=web"), "kubectl to list two injected pods", every=0.1)
        assert header == ["NAME", "READY", "STATUS", "RESTARTS", "AGE"]
        assert all(r[0].startswith("web-") and r[2] == "Pending" for r in pods), pods
    finally:
        kube.http.delete(f"{kube.server.url}{AR}/mutatingwebhookconfigurations/{cfg}")
        kube.run("delete", "namespace", ns, "--wait=false")


def test_kubectl_get_events_shows_the_refusal(kube: Kube, hook: Hook) -> None:
    ns = f"kden-{uuid.uuid4().hex[:8]}"
    kube.ok("create", "namespace", ns)
    cfg = webhook(kube, hook, "validatingwebhookconfigurations", "/deny", ns)
    try:
        kube.ok("create", "deployment", "web", "--image=nginx", "-n", ns)
        header, events = until(lambda: rows_when(kube, bool, "events", "-n", ns, "--field-selector",
                                                 "reason=FailedCreate"), "kubectl to list a FailedCreate event",
                               every=0.1)
        assert header == ["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]
        assert events[0][1:3] == ["Warning", "FailedCreate"] and events[0][3].startswith("replicaset/web-")
        assert events[0][4] == (f'Error creating: admission webhook "{cfg}.example.com" denied the request: '
                                "no configmaps named deny-me")
    finally:
        kube.http.delete(f"{kube.server.url}{AR}/validatingwebhookconfigurations/{cfg}")
        kube.run("delete", "namespace", ns, "--wait=false")
