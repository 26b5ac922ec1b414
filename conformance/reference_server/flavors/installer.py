"""What a distribution's installer writes once the control plane answers (kind: `kubeadm init`'s uploads, RBAC and
addons, then kind's CNI and storage manifests), created from the data files under `data/<flavour>/` as the
installers' clients create them: kubeadm's client plainly (manager `kubeadm`), `kubectl create -f -` (manager
`kubectl-create`), `kubectl apply -f -` (manager `kubectl-client-side-apply` and the last-applied annotation).

Upstream: kubernetes/kubernetes cmd/kubeadm/app/phases (each file's header names its phase), sigs.k8s.io/kind
pkg/build/nodeimage/const_cni.go and const_storage.go, pkg/cluster/internal/create/actions/installcni and
installstorage. The one computed object is kube-public `cluster-info` (phases/bootstraptoken/clusterinfo): a
kubeconfig holding only the cluster, this server's URL and CA (clientcmd's serialisation: `preferences: {}`,
null contexts and users), signed by the bootstrap signer (controller/bootstrapsigner.py) with kind's bootstrap
token, whose Secret's `expiration` is also computed here (24 h from now, kubeadm's default TTL).

Run once, on a fresh store (server.py), after the listener is bound (the URL has its port); an object that exists
already (another replica made it) is left as it is, as `kubectl create` and kubeadm's CreateOrUpdate would leave it
for our purposes.
"""
from __future__ import annotations

import base64
import functools
import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from importlib import resources
from typing import Any

import yaml

from .. import apierrors as E

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
BOOTSTRAP_TOKEN = "bootstrap.kubernetes.io/token"
TOKEN_TTL = timedelta(hours=24)  # kubeadm's default bootstrap token TTL (constants.DefaultTokenDuration)
CLUSTER_INFO = ("kube-public", "cluster-info")


@dataclass(frozen=True)
class Manifest:
    """One installer step: a data file (`data/<path>`) and how its client creates the objects."""

    path: str
    manager: str          # the managedFields manager the client's user agent gives
    apply: bool = False   # `kubectl apply`: the last-applied-configuration annotation


@functools.cache
def load(path: str) -> tuple[dict[str, Any], ...]:
    """The documents of `data/<path>` (parsed once per process)."""
    text = resources.files(__package__).joinpath("data", path).read_text(encoding="utf-8")
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when PyYAML has it: the parse in ~5 ms
    return tuple(d for d in yaml.load_all(text, Loader=loader) if d)


def cluster_info_kubeconfig(url: str, ca_pem: str | bytes | None) -> str:
    """The `kubeconfig` of `cluster-info`: the cluster alone, named "" (clientcmd.Write's YAML of it)."""
    cluster = [f"    server: {url}"]
    if ca_pem:
        raw = ca_pem.encode() if isinstance(ca_pem, str) else ca_pem
        cluster.insert(0, f"    certificate-authority-data: {base64.b64encode(raw).decode()}")
    return "\n".join(["apiVersion: v1", "clusters:", "- cluster:", *cluster, '  name: ""', "contexts: null",
                      'current-context: ""', "kind: Config", "preferences: {}", "users: null", ""])


def _stores(registry: Any) -> dict[tuple[str, str], Any]:
    return {(getattr(s, "group", ""), s.info.kind): s for s in (*registry.namespaced(), *registry.cluster_stores())}


def _body(doc: dict[str, Any], manifest: Manifest, url: str, ca_pem: str | bytes | None) -> dict[str, Any]:
    body = json.loads(json.dumps(doc))
    meta = body["metadata"]
    if body["kind"] == "ConfigMap" and (meta.get("namespace"), meta["name"]) == CLUSTER_INFO:
        body["data"] = {"kubeconfig": cluster_info_kubeconfig(url, ca_pem)}
    if body["kind"] == "Secret" and body.get("type") == BOOTSTRAP_TOKEN:  # encodeTokenSecretData: now + TTL, UTC
        expires = datetime.now(timezone.utc) + TOKEN_TTL
        body.setdefault("stringData", {})["expiration"] = expires.strftime("%Y-%m-%dT%H:%M:%SZ")
    if manifest.apply:  # kubectl's annotation: the object as given, compact JSON, keys sorted (encoding/json)
        applied = json.dumps(body, separators=(",", ":"), sort_keys=True) + "\n"
        meta.setdefault("annotations", {})[LAST_APPLIED] = applied
    return body


def _exists(store: Any, doc: dict[str, Any]) -> bool:
    meta = doc["metadata"]
    try:
        store.get(meta.get("namespace", "") if store.info.namespaced else "", meta["name"])
    except E.StatusError:
        return False
    return True


def install(registry: Any, manifests: Iterable[Manifest], url: str, ca_pem: str | bytes | None = None) -> int:
    """Create every object of `manifests` in order; returns how many were created. A kind this server does not
    serve is skipped, an existing object kept."""
    stores = _stores(registry)
    created = 0
    for manifest in manifests:
        for doc in load(manifest.path):
            group = str(doc["apiVersion"]).rpartition("/")[0]
            store = stores.get((group, doc["kind"]))
            if store is None:
                continue
            try:
                store.create(_body(doc, manifest, url, ca_pem), field_manager=manifest.manager)
                created += 1
            except E.StatusError as exc:  # a 409, or for kube-dns the allocator's 422: its IP is the copy's there
                if exc.code != 409 and not _exists(store, doc):
                    raise
    return created
