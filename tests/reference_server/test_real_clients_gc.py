"""kubectl 1.33 and the official Python client on cascading deletion (the garbage collector):
`kubectl delete --cascade=background|foreground|orphan` and `delete_namespaced_config_map(body=V1DeleteOptions(
propagation_policy=...))`, each on an owner → dependent → dependent chain of ConfigMaps."""
from __future__ import annotations

from typing import Any

import pytest

from .test_real_clients import Kube, kube, names, served  # noqa: F401 - fixtures


def _chain(kube: Kube, ns: str) -> dict[str, dict[str, Any]]:
    """owner ← child ← grandchild (blockOwnerDeletion on both references); returns them by name."""
    kube.create_ns(ns)
    made: dict[str, dict[str, Any]] = {}
    for name, owner in (("owner", None), ("child", "owner"), ("grandchild", "child")):
        meta: dict[str, Any] = {"name": name}
        if owner:
            o = made[owner]["metadata"]
            meta["ownerReferences"] = [{"apiVersion": "v1", "kind": "ConfigMap", "name": owner, "uid": o["uid"],
                                        "blockOwnerDeletion": True}]
        r = kube.http.post(f"{kube.server.url}/api/v1/namespaces/{ns}/configmaps", json={"metadata": meta},
                           timeout=10)
        assert r.status_code == 201, r.text
        made[name] = r.json()
    return made


def _exists(kube: Kube, ns: str, name: str) -> bool:
    return kube.get(f"/api/v1/namespaces/{ns}/configmaps/{name}").status_code == 200


@pytest.mark.parametrize("cascade", ["background", "foreground"])
def test_kubectl_delete_cascade_deletes_dependents(kube: Kube, names: Any, cascade: str) -> None:
    ns = names("cascade")
    _chain(kube, ns)
    assert kube.ok("delete", "cm", "owner", "-n", ns, f"--cascade={cascade}") == 'configmap "owner" deleted\n'
    # kubectl waited for the owner; foreground deletes the dependents first, background right after
    kube.ok("wait", "--for=delete", "cm/child", "cm/grandchild", "-n", ns, "--timeout=30s")
    assert not any(_exists(kube, ns, n) for n in ("owner", "child", "grandchild"))


def test_kubectl_delete_cascade_orphan_keeps_dependents(kube: Kube, names: Any) -> None:
    ns = names("orphan")
    made = _chain(kube, ns)
    assert kube.ok("delete", "cm", "owner", "-n", ns, "--cascade=orphan") == 'configmap "owner" deleted\n'
    child = kube.get(f"/api/v1/namespaces/{ns}/configmaps/child").json()
    assert "ownerReferences" not in child["metadata"]
    grandchild = kube.get(f"/api/v1/namespaces/{ns}/configmaps/grandchild").json()
    assert grandchild["metadata"]["ownerReferences"][0]["uid"] == made["child"]["metadata"]["uid"]


@pytest.mark.parametrize("policy", ["Foreground", "Orphan"])
def test_python_client_delete_options_propagation(served: Kube, names: Any, policy: str) -> None:
    from kubernetes import client, config, watch

    ns = names("py-gc")
    _chain(served, ns)
    api_client = config.new_client_from_config(config_file=str(served.kubeconfig))
    try:
        core = client.CoreV1Api(api_client)
        marked = core.delete_namespaced_config_map("owner", ns, body=client.V1DeleteOptions(
            propagation_policy=policy))
        finalizer = {"Foreground": "foregroundDeletion", "Orphan": "orphan"}[policy]
        assert marked["metadata"]["finalizers"] == [finalizer]  # the object itself: not deleted yet
        rv = marked["metadata"]["resourceVersion"]  # watch from the marking write: nothing is missed
        w = watch.Watch()
        gone = set()
        for ev in w.stream(core.list_namespaced_config_map, ns, resource_version=rv, timeout_seconds=30):
            if ev["type"] == "DELETED":
                gone.add(ev["object"].metadata.name)
            if "owner" in gone:
                w.stop()
        left = {cm.metadata.name: cm for cm in core.list_namespaced_config_map(ns).items}
        if policy == "Foreground":
            assert gone == {"owner", "child", "grandchild"} and not {"owner", "child", "grandchild"} & set(left)
        else:
            assert gone == {"owner"} and left["child"].metadata.owner_references is None
            assert left["grandchild"].metadata.owner_references[0].name == "child"
    finally:
        api_client.close()
