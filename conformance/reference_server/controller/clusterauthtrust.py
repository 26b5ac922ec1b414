"""kube-apiserver's `kube-system/extension-apiserver-authentication` ConfigMap: how aggregated API servers should
authenticate the clients kube-apiserver itself authenticates.

Upstream: `pkg/controlplane/controller/clusterauthenticationtrust/cluster_authentication_trust_controller.go`
(post-start hook `start-cluster-authentication-info-controller`, every API server). `getConfigMapDataFor` writes
`client-ca-file` when a client CA is configured (`--client-ca-file`) and, when a request-header CA is
(`--requestheader-client-ca-file`), `requestheader-username-headers`, `-uid-headers`, `-group-headers`,
`-extra-headers-prefix` (JSON string lists), `requestheader-client-ca-file` and `requestheader-allowed-names`.
`syncConfigMap` compares the wanted object with the stored one (or, absent, an empty one) by
`equality.Semantic.DeepEqual`, which holds an empty map equal to a nil one: with neither authenticator configured
the wanted data is empty, equal to the absent ConfigMap's, so nothing is written, not even the ConfigMap. `Run`:
an informer on kube-system's ConfigMaps queues a sync for every event of this one, and a timer queues one every
minute (`wait.PollImmediateUntil(1*time.Minute)`): an edited or deleted ConfigMap is written back
(`ClusterAuthenticationTrustController` here; the server also syncs once at start, so the data is there when it
answers).

A TLS server always has a client CA (`--client-ca-file`, else its own CA, as kubeadm configures kube-apiserver) and
with `--requestheader-client-ca-file` a front proxy (server.py `_authentication_info`); a plain-HTTP server
authenticates bearer tokens only, so, as upstream's controller would, it writes no ConfigMap (`AuthenticationInfo()`
is empty). The configured data is merged with the stored data as
`combinedClusterAuthenticationInfo` merges (string lists: union in order; CA bundles: the stored certificates,
then the configured ones, expired ones and duplicates dropped, re-encoded; stored data that does not parse fails
the sync, as upstream's).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from .. import apierrors as E
from ..admission.admitted import APISERVER_USER
from ..storage.offload import Offload
from .loop import Controller
from .reads import get_or_none

NAMESPACE, CONFIGMAP_NAME = "kube-system", "extension-apiserver-authentication"
FIELD_MANAGER = "kube-apiserver"
RESYNC = 60.0  # the controller's "recheck every minute, just in case"


@dataclass(frozen=True)
class RequestHeader:
    """`--requestheader-*`: the front proxy's CA bundle and headers."""

    ca_pem: str
    username_headers: tuple[str, ...] = ()
    uid_headers: tuple[str, ...] = ()
    group_headers: tuple[str, ...] = ()
    extra_headers_prefix: tuple[str, ...] = ()
    allowed_names: tuple[str, ...] = ()


@dataclass(frozen=True)
class AuthenticationInfo:
    """`ClusterAuthenticationInfo`: what the server's authenticators trust (None: not configured)."""

    client_ca_pem: str | None = None
    request_header: RequestHeader | None = field(default=None)


def _strings(values: tuple[str, ...]) -> str:
    """`json.Marshal([]string)`: a nil slice is `null`."""
    return json.dumps(list(values), separators=(",", ":")) if values else "null"


def configmap_data(info: AuthenticationInfo) -> dict[str, str]:
    """`getConfigMapDataFor`."""
    data: dict[str, str] = {}
    if info.client_ca_pem:
        data["client-ca-file"] = info.client_ca_pem
    rh = info.request_header
    if rh is None or not rh.ca_pem:
        return data
    data.update({"requestheader-username-headers": _strings(rh.username_headers),
                 "requestheader-uid-headers": _strings(rh.uid_headers),
                 "requestheader-group-headers": _strings(rh.group_headers),
                 "requestheader-extra-headers-prefix": _strings(rh.extra_headers_prefix),
                 "requestheader-client-ca-file": rh.ca_pem,
                 "requestheader-allowed-names": _strings(rh.allowed_names)})
    return data


_CA_KEYS = ("client-ca-file", "requestheader-client-ca-file")


def _certificates(bundle: str) -> list[Any]:
    """`cert.ParseCertsPEM` (via `NewStaticCAContent`): a non-empty bundle without a certificate, or with a PEM
    block that does not parse, is an error (the sync fails and is retried; upstream never rewrites such data)."""
    from cryptography import x509

    try:
        certs = x509.load_pem_x509_certificates(bundle.encode())
    except ValueError:
        certs = []
    if not certs:
        raise ValueError("data does not contain any valid RSA or ECDSA certificates")
    return certs


def _combine_certs(stored: str, configured: str) -> str:
    """`combineCertLists`: the stored certificates then the configured ones, those expired more than five minutes
    ago dropped (`filterExpiredCerts`), duplicates dropped, re-encoded as PEM (`encodeCertificates`)."""
    import datetime as _dt

    from cryptography import x509
    from cryptography.hazmat.primitives.serialization import Encoding

    slack = _dt.datetime.now(_dt.timezone.utc) - _dt.timedelta(minutes=5)
    seen: list[bytes] = []
    for bundle in (stored, configured):
        for cert in _certificates(bundle) if bundle else ():
            der = cert.public_bytes(Encoding.DER)
            if cert.not_valid_after_utc > slack and der not in seen:
                seen.append(der)
    return "".join(x509.load_der_x509_certificate(der).public_bytes(Encoding.PEM).decode() for der in seen)


def _combined(stored: dict[str, str], configured: dict[str, str]) -> dict[str, str]:
    """`getClusterAuthenticationInfoFor` the stored data, `combinedClusterAuthenticationInfo` with the configured
    one, then `getConfigMapDataFor`: the request-header keys are written only while a request-header CA is known."""
    out: dict[str, str] = {}
    for key in _CA_KEYS:
        combined = _combine_certs(stored.get(key, ""), configured.get(key, ""))
        if combined:
            out[key] = combined
    if "requestheader-client-ca-file" not in out:
        return out
    for key in ("requestheader-username-headers", "requestheader-uid-headers", "requestheader-group-headers",
                "requestheader-extra-headers-prefix", "requestheader-allowed-names"):
        values: list[str] = []
        for raw in (stored.get(key), configured.get(key)):
            try:
                values += [v for v in (json.loads(raw) if raw else None) or [] if v not in values]
            except (ValueError, TypeError):  # upstream's sync fails on stored data that does not decode
                raise ValueError(f"{key}: not a JSON string list") from None
        out[key] = _strings(tuple(values))
    return {k: out[k] for k in sorted(out)}


def sync(registry: Any, info: AuthenticationInfo, writes: Any) -> None:
    """`syncConfigMap`: write the ConfigMap when the combined data differs from the stored (empty and absent
    equal, so nothing is written when nothing is configured or stored)."""
    store = registry.content("configmaps")
    if store is None:
        return
    current = get_or_none(store, NAMESPACE, CONFIGMAP_NAME)
    want = _combined((current or {}).get("data") or {}, configmap_data(info))
    if (current.get("data") or {} if current is not None else {}) == want:
        return
    if current is None:
        try:
            writes.create(store, {"apiVersion": "v1", "kind": "ConfigMap",
                                  "metadata": {"name": CONFIGMAP_NAME, "namespace": NAMESPACE}, "data": want},
                          field_manager=FIELD_MANAGER)
        except E.StatusError as exc:
            if exc.code != 409:
                raise
        return
    writes.update(store, NAMESPACE, CONFIGMAP_NAME, {**current, "data": want}, field_manager=FIELD_MANAGER)


class ClusterAuthenticationTrustController(Controller):
    """`Run`: the ConfigMap synced on each of its events and every minute (one worker)."""

    name = "cluster_authentication_trust_controller"
    client_user = APISERVER_USER

    def __init__(self, registry: Any, info: AuthenticationInfo, resync: float = RESYNC):
        super().__init__()
        self.registry, self.info, self.resync = registry, info, resync
        self._offload = Offload(registry.store, self.name)  # etcd: a sync's round trips off the loop

    def start(self) -> None:
        import asyncio
        import logging

        store = self.registry.content("configmaps")
        if store is None:
            return
        queue = self._queue_for(store, NAMESPACE, CONFIGMAP_NAME)

        async def sync_one(key: str) -> None:
            try:
                await self._offload(sync, self.registry, self.info, self.writes)
                self.forget(key)
            except ValueError as exc:  # stored data that does not decode: logged, retried (AddRateLimited)
                logging.getLogger("nsconform.reference_server").warning("%s: %s", CONFIGMAP_NAME, exc)
                queue.add_after(key, self.backoff(key))

        async def tick() -> None:
            while True:
                queue.add(CONFIGMAP_NAME)
                await asyncio.sleep(self.resync)
        self._work(queue, sync_one)
        self._spawn(tick())
