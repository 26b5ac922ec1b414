"""Service-account tokens: `TokenRequest` issues them, the authenticators accept them.

Upstream (`pkg/serviceaccount/jwt.go`, `claims.go`, `pkg/registry/core/serviceaccount/storage/token.go`) signs
RS256 JWTs; here a per-server HMAC key signs the same claims (HS256) — JWT-shaped, opaque to clients. A token
authenticates as `system:serviceaccount:<ns>:<name>` (groups `system:serviceaccounts`,
`system:serviceaccounts:<ns>`) while it is unexpired and its ServiceAccount still exists with the same UID.
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import time
import uuid
from typing import Any, Callable

from .rbac import UserInfo

ISSUER = "https://kubernetes.default.svc.cluster.local"
DEFAULT_EXPIRATION = 3600
MIN_EXPIRATION = 600
SA_PREFIX = "system:serviceaccount:"

Lookup = Callable[[str, str], "str | None"]  # (namespace, name) → the ServiceAccount's UID, None when absent


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class TokenIssuer:
    def __init__(self, lookup: Lookup, key: bytes | None = None):
        self._key = key or secrets.token_bytes(32)
        self._lookup = lookup

    def issue(self, namespace: str, name: str, uid: str, audiences: list[str], expiration: int,
              now: float | None = None) -> tuple[str, int]:
        """(token, expiry as a Unix time)."""
        iat = int(time.time() if now is None else now)
        claims = {"aud": audiences, "exp": iat + expiration, "iat": iat, "iss": ISSUER, "jti": str(uuid.uuid4()),
                  "kubernetes.io": {"namespace": namespace, "serviceaccount": {"name": name, "uid": uid}},
                  "nbf": iat, "sub": f"{SA_PREFIX}{namespace}:{name}"}
        head = _b64(json.dumps({"alg": "HS256", "kid": "nsconform"}, separators=(",", ":")).encode())
        body = _b64(json.dumps(claims, separators=(",", ":")).encode())
        sig = _b64(hmac.new(self._key, f"{head}.{body}".encode(), hashlib.sha256).digest())
        return f"{head}.{body}.{sig}", claims["exp"]

    def claims(self, token: str) -> dict[str, Any] | None:
        """The claims of a token this server signed, still valid; else None."""
        parts = token.split(".")
        if len(parts) != 3:
            return None
        expected = _b64(hmac.new(self._key, f"{parts[0]}.{parts[1]}".encode(), hashlib.sha256).digest())
        if not hmac.compare_digest(expected, parts[2]):
            return None
        try:
            claims = json.loads(_unb64(parts[1]))
        except ValueError:
            return None
        if not isinstance(claims, dict) or claims.get("exp", 0) < time.time():
            return None
        return claims

    def authenticate(self, token: str) -> UserInfo | None:
        claims = self.claims(token)
        if claims is None:
            return None
        k8s = claims.get("kubernetes.io") or {}
        ns, sa = k8s.get("namespace", ""), (k8s.get("serviceaccount") or {})
        if self._lookup(ns, sa.get("name", "")) != sa.get("uid"):
            return None  # deleted (or recreated) since: upstream's `Validate` refuses it too
        return UserInfo(f"{SA_PREFIX}{ns}:{sa.get('name', '')}", sa.get("uid", ""),
                        ("system:serviceaccounts", f"system:serviceaccounts:{ns}", "system:authenticated"),
                        {"authentication.kubernetes.io/credential-id": (f"JTI={claims.get('jti', '')}",)})
