"""kube-controller-manager's bootstrap signer (on kubeadm clusters, kind's included, where kubeadm enables it with
`--controllers=*,bootstrapsigner,tokencleaner`): kube-public `cluster-info` carries, for every bootstrap token that
may sign, a `jws-kubeconfig-<token-id>` key, the detached JWS (HS256, key the token secret, `kid` the token id) of
its `kubeconfig`, which `kubeadm join` checks against the token it was given.

Upstream: `pkg/controller/bootstrap/bootstrapsigner.go` (`signConfigMap`: the signatures recomputed from the current
tokens, stale ones removed, an update only when something changed, a 409 or 404 ignored), `pkg/controller/bootstrap/
util.go` (`validateSecretForSigning`: a `bootstrap.kubernetes.io/token` Secret named `bootstrap-token-<id>` whose
`token-id` is that id, with a `token-secret`, not expired, `usage-bootstrap-signing: "true"`) and
`staging/src/k8s.io/cluster-bootstrap/token/jws/jws.go` (`ComputeDetachedSignature`: go-jose's compact form with the
payload cut out, `<protected>..<signature>`, the protected header `{"alg":"HS256","kid":"<id>"}`). Its writes are
the `bootstrap-signer` service account's; expired tokens are deleted by the token cleaner (controller/tokencleaner.py).
"""
from __future__ import annotations

import asyncio
import base64
import copy
import hashlib
import hmac
import json
import re
from typing import Any

from .. import apierrors as E
from ..registry.store import ListOptions
from .bootstraptokens import TOKEN_TYPE, BootstrapTokenController, get_expiration, secret_data
from .reads import get_or_none

CONFIGMAP_NAMESPACE, CONFIGMAP_NAME = "kube-public", "cluster-info"
SECRET_NAMESPACE = "kube-system"
KUBECONFIG_KEY = "kubeconfig"
SIGNATURE_PREFIX = "jws-kubeconfig-"
SECRET_NAME = re.compile(r"^bootstrap-token-([a-z0-9]{6})$")  # bootstrapsecretutil.ParseName
FIELD_MANAGER = "kube-controller-manager"


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def detached_signature(content: str, token_id: str, token_secret: str) -> str:
    """`jws.ComputeDetachedSignature`."""
    protected = _b64(json.dumps({"alg": "HS256", "kid": token_id}, separators=(",", ":")).encode())
    signing_input = f"{protected}.{_b64(content.encode())}".encode()
    signature = _b64(hmac.new(token_secret.encode(), signing_input, hashlib.sha256).digest())
    return f"{protected}..{signature}"


def _expired(secret: dict[str, Any], now: float) -> bool:
    """`HasExpired`: `GetExpiration`'s verdict."""
    return get_expiration(secret, now)[1]


def signing_tokens(secrets: list[dict[str, Any]], now: float) -> dict[str, str]:
    """`getTokens`: token id → secret, for each Secret `validateSecretForSigning` accepts (the first of duplicates)."""
    out: dict[str, str] = {}
    for secret in secrets:
        if secret.get("type") != TOKEN_TYPE:
            continue
        match = SECRET_NAME.match(secret["metadata"]["name"])
        token_id, token_secret = secret_data(secret, "token-id"), secret_data(secret, "token-secret")
        if (match is None or not token_id or token_id != match.group(1) or not token_secret or _expired(secret, now)
                or secret_data(secret, "usage-bootstrap-signing") != "true"):
            continue
        out.setdefault(token_id, token_secret)
    return out


class BootstrapSigner(BootstrapTokenController):
    name = "bootstrap_signer"
    service_account = "bootstrap-signer"

    def sync(self) -> None:
        """`signConfigMap`."""
        configmaps, secrets = self.registry.content("configmaps"), self.registry.content("secrets")
        current = get_or_none(configmaps, CONFIGMAP_NAMESPACE, CONFIGMAP_NAME)
        if current is None or secrets is None or KUBECONFIG_KEY not in (current.get("data") or {}):
            return
        data = dict(current["data"])
        old = {k[len(SIGNATURE_PREFIX):]: data.pop(k) for k in list(data) if k.startswith(SIGNATURE_PREFIX)}
        tokens = signing_tokens(secrets.list(SECRET_NAMESPACE, ListOptions())["items"], self.clock())
        changed = False
        for token_id, token_secret in tokens.items():
            sig = detached_signature(data[KUBECONFIG_KEY], token_id, token_secret)
            changed |= old.pop(token_id, None) != sig
            data[SIGNATURE_PREFIX + token_id] = sig
        if not changed and not old:
            return
        body = copy.deepcopy(current)
        body["data"] = data
        try:
            self.writes.update(configmaps, CONFIGMAP_NAMESPACE, CONFIGMAP_NAME, body, field_manager=FIELD_MANAGER)
        except E.StatusError as exc:
            if exc.code not in (404, 409):  # the next event brings the sync back
                raise

    def start(self) -> None:
        queue = self._queue()
        loop = asyncio.get_running_loop()
        for resource, namespace in (("configmaps", CONFIGMAP_NAMESPACE), ("secrets", SECRET_NAMESPACE)):
            store = self.registry.content(resource)
            if store is None:
                return
            _, watcher, _ = store.watch(namespace, ListOptions(), loop)
            self._follow(watcher, lambda ev: queue.add(CONFIGMAP_NAME))

        async def sync(_: str) -> None:
            await self._offload(self.sync)
        self._work(queue, sync)
        queue.add(CONFIGMAP_NAME)
