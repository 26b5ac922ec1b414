"""kube-apiserver's `kube-system/extension-apiserver-authentication` ConfigMap: how aggregated API servers should
authenticate the clients kube-apiserver itself authenticates.

Upstream: `pkg/controlplane/controller/clusterauthenticationtrust/cluster_authentication_trust_controller.go`
(post-start hook `start-cluster-authentication-info-controller`, every API server). `getConfigMapDataFor` writes
`client-ca-file` when a client CA is configured (`--client-ca-file`) and, when a request-header CA is
(`--requestheader-client-ca-file`), `requestheader-username-headers`, `-uid-headers`, `-group-headers`,
`-extra-headers-prefix` (JSON string lists), `requestheader-client-ca-file` and `requestheader-allowed-names`.
`syncConfigMap` compares the wanted object with the stored one (or, absent, an empty one) by
`equality.Semantic.DeepEqual`, which holds an empty map equal to a nil one: with neither authenticator configured
the wanted data is empty, equal to the absent ConfigMap's, so nothing is written, not even the ConfigMap.

A TLS server always has a client CA (`--client-ca-file`, else its own CA, as kubeadm configures kube-apiserver) and
with `--requestheader-client-ca-file` a front proxy (server.py `_authentication_info`); a plain-HTTP server
authenticates bearer tokens only, so, as upstream's controller would, it writes no ConfigMap (`AuthenticationInfo()`
is empty). The configured data is merged with the stored data as
`combinedClusterAuthenticationInfo` merges (string lists: union in order; CA bundles: the stored certificates,
then the configured ones, duplicates dropped; the expired-certificate filter is not modelled).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from .. import apierrors as E
from .reads import get_or_none

NAMESPACE, CONFIGMAP_NAME = "kube-system", "extension-apiserver-authentication"
FIELD_MANAGER = "kube-apiserver"


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


def _pem_blocks(bundle: str) -> list[str]:
    end = "-----END CERTIFICATE-----"
    return [b.strip() + "\n" + end + "\n" for b in bundle.split(end)[:-1]]


def _combined(stored: dict[str, str], configured: dict[str, str]) -> dict[str, str]:
    """`combinedClusterAuthenticationInfo` then `getConfigMapDataFor`: the stored values first, the configured
    ones added; the request-header keys are written only while a request-header CA is known."""
    out: dict[str, str] = {}
    for key in _CA_KEYS:
        blocks: list[str] = []
        for bundle in (stored.get(key, ""), configured.get(key, "")):
            blocks += [b for b in _pem_blocks(bundle) if b not in blocks]
        if blocks:
            out[key] = "".join(blocks)
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
