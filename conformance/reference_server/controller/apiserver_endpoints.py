"""The `default/kubernetes` Endpoints and EndpointSlice: where the `kubernetes` Service's traffic goes (the API
server itself).

Upstream: `pkg/controlplane/reconcilers/endpointsadapter.go`. `updateEndpoints`: name `kubernetes`, the label
`endpointslice.kubernetes.io/skip-mirror: "true"`, one subset with one address per API server and port `https`/TCP;
written first, and its validation refuses a loopback address (upstream then logs "unable to sync kubernetes
service" and goes on). `updateEndpointSlice`: name `kubernetes`, label
`kubernetes.io/service-name: kubernetes`, the service IP's address type, one endpoint per API server address
with `conditions.ready: true`, port `https`/TCP on the secure port), written by the `lease` reconciler at each
API server's start. The address is the advertise address `ResolveBindAddress` gives: the bind address unless it
is loopback or unspecified, then the host's default-route interface (`ChooseHostInterface`).

Replicas of this server run on one host, so they advertise one address; the last to start writes its port
(upstream expects every API server on one port). Nothing removes the address at shutdown.

Both writes are kube-apiserver's loopback client's (`system:apiserver`): with any webhook configuration or policy
binding stored (a restart on etcd), `reconcile_admitted` makes them through admission/admitted.py, so webhooks and
policies see them; a refusal is logged as upstream's reconciler logs its errors.
"""
from __future__ import annotations

import ipaddress
import logging
import socket
from typing import Any

from .. import apierrors as E
from ..admission.admitted import AdmissionRefusal, ControllerWrites, admitted

log = logging.getLogger("nsconform.reference_server.controller")
GROUP = "discovery.k8s.io"
SKIP_MIRROR = "endpointslice.kubernetes.io/skip-mirror"
SERVICE_NAME, NAMESPACE = "kubernetes", "default"
FIELD_MANAGER = "kube-apiserver"
DIRECT = ControllerWrites(None, "")


def advertise_address(bind_host: str) -> str:
    """utilnet.ResolveBindAddress: the bind host, or the default-route interface's IPv4 address."""
    try:
        ip = ipaddress.ip_address(bind_host)
        if not (ip.is_loopback or ip.is_unspecified):
            return str(ip)
    except ValueError:  # a host name
        pass
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("192.0.2.1", 9))  # UDP connect sends nothing; it only picks the route's source address
            return s.getsockname()[0]
    except OSError:  # no default route (upstream fails to start); keep the bind address
        return bind_host if bind_host not in ("", "0.0.0.0", "::") else "127.0.0.1"


def endpoint_slice(ip: str, port: int) -> dict[str, Any]:
    family = "IPv6" if ipaddress.ip_address(ip).version == 6 else "IPv4"
    return {"apiVersion": f"{GROUP}/v1", "kind": "EndpointSlice",
            "metadata": {"name": SERVICE_NAME, "namespace": NAMESPACE,
                         "labels": {"kubernetes.io/service-name": SERVICE_NAME}},
            "addressType": family,
            "endpoints": [{"addresses": [ip], "conditions": {"ready": True}}],
            "ports": [{"name": "https", "port": port, "protocol": "TCP"}]}


def endpoints(ip: str, port: int) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Endpoints",
            "metadata": {"name": SERVICE_NAME, "namespace": NAMESPACE, "labels": {SKIP_MIRROR: "true"}},
            "subsets": [{"addresses": [{"ip": ip}], "ports": [{"name": "https", "port": port, "protocol": "TCP"}]}]}


def reconcile(registry: Any, ip: str, port: int, writes: ControllerWrites = DIRECT) -> None:
    """The adapter's Sync: the Endpoints, then the slice (each created, or reset when it differs)."""
    try:
        _sync(registry.content("endpoints"), endpoints(ip, port), ("subsets",), writes)
    except E.StatusError as exc:  # e.g. a loopback advertise address: upstream logs it and syncs the slice
        log.warning("unable to sync kubernetes service: %s", exc.message)
    try:
        _sync(registry.group(GROUP, "endpointslices"), endpoint_slice(ip, port),
              ("addressType", "endpoints", "ports"), writes)
    except AdmissionRefusal as exc:
        log.warning("unable to sync kubernetes service: %s", exc.message)


async def reconcile_admitted(registry: Any, ip: str, port: int, writes: ControllerWrites) -> None:
    """`reconcile` with its writes through the webhooks and policies (`writes`: the loopback client's)."""
    async def run() -> None:
        reconcile(registry, ip, port, writes)
    await admitted(run)


def _sync(store: Any, want: dict[str, Any], fields: tuple[str, ...], writes: ControllerWrites) -> None:
    """Create `want`, or reset its `fields` and labels when they differ."""
    if store is None:
        return
    for _ in range(5):  # isRetriableError: a conflict or an AlreadyExists from another replica, then again
        try:
            current = store.get(NAMESPACE, SERVICE_NAME)
        except E.StatusError as exc:
            if exc.code != 404:
                raise
            current = None
        try:
            if current is None:
                writes.create(store, want, field_manager=FIELD_MANAGER)
            elif any(current.get(k) != want[k] for k in fields) or \
                    current["metadata"].get("labels") != want["metadata"]["labels"]:
                body = {**current, **{k: want[k] for k in fields},
                        "metadata": {**current["metadata"], "labels": want["metadata"]["labels"]}}
                writes.update(store, NAMESPACE, SERVICE_NAME, body, field_manager=FIELD_MANAGER)
            return
        except E.StatusError as exc:
            if exc.code != 409:
                raise
