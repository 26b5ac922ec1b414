"""Service-account tokens: `TokenRequest` issues them, the authenticators accept them, OIDC clients verify them.

Upstream: `pkg/serviceaccount/jwt.go` (RS256 JWS, header `kid` from `keyIDFromPublicKey`: base64url of the
SHA-256 of the DER (PKIX) public key; the generator adds `iss`), `pkg/serviceaccount/claims.go` (`Claims`: sub,
aud, iat, nbf, exp, jti, the `kubernetes.io` private claims with namespace, serviceaccount, pod/secret/node when
bound (a pod-bound token also names the pod's node: ServiceAccountTokenPodNodeInfo, and a Node binding is
ServiceAccountTokenNodeBinding, both on in 1.33),
warnafter; `validator.Validate`: the ServiceAccount and the bound object must still exist with the token's UID,
and not have been deleted more than `jwt.DefaultLeeway` (1 minute) ago), `pkg/serviceaccount/openidmetadata.go`
(the discovery document and the JWKS).

Issuers (`--service-account-issuer`, repeatable as kube-apiserver's, `pkg/kubeapiserver/options/authentication.go`):
the first is the `iss` of every token issued and the discovery document's `issuer`; a token from any of them
is accepted; with no `--api-audiences` (this server has none) the API server's audiences are the issuers, so
they are a TokenRequest's and a TokenReview's default audiences. The discovery endpoints are served only when
the first issuer is an https URL without query or fragment (`NewOpenIDMetadataProvider`: kube-apiserver logs
the error and does not install them).

The RSA key is the server's own, generated on first need (in a worker thread: the first TokenRequest or JWKS
request waits ~0.1-0.5 s for it, the event loop does not; a server that issues no token never pays), or
read from `--service-account-key-file` (a PEM private key, as kube-apiserver's
`--service-account-signing-key-file`): replicas on one etcd must share that file to accept each other's tokens.
"""
from __future__ import annotations

import base64
import datetime as _dt
import hashlib
import json
import threading
import time
import uuid
from typing import Any, Callable, Sequence

from ..goport.gonet import url as gourl
from ..goport.gonet.strconv import quote as go_quote
from .rbac import UserInfo

ISSUER = "https://kubernetes.default.svc.cluster.local"
DEFAULT_EXPIRATION = 3600
MIN_EXPIRATION = 600
SA_PREFIX = "system:serviceaccount:"
LEEWAY = 60  # go-jose's jwt.DefaultLeeway: exp/nbf/iat tolerance and the grace after a bound object's deletion
# claims.go / token.go: a pod-bound token asked for 3607 s lives a year but warns after the 3607 s
WARN_ONLY_EXPIRATION = 3607
EXTENDED_EXPIRATION = 24 * 365 * 60 * 60
OPENID_CONFIG_PATH = "/.well-known/openid-configuration"
JWKS_PATH = "/openid/v1/jwks"
CACHE_MAX_AGE = 3600  # the static key getter's GetCacheAgeMaxSeconds

# (resource, namespace, name) → the stored object, None when absent
Lookup = Callable[[str, str, str], "dict[str, Any] | None"]


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _int_b64(n: int) -> str:
    return _b64(n.to_bytes((n.bit_length() + 7) // 8, "big"))


def _deleted_before(obj: dict[str, Any], cutoff: float) -> bool:
    ts = (obj.get("metadata") or {}).get("deletionTimestamp")
    if not ts:
        return False
    try:
        when = _dt.datetime.strptime(ts, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=_dt.timezone.utc).timestamp()
    except ValueError:
        return False
    return when < cutoff


class SigningKey:
    """The RSA key pair, made (or read) once, on first need."""

    def __init__(self, key_file: str | None = None):
        self._key_file = key_file
        self._lock = threading.Lock()
        self._private: Any = None
        self.kid = ""
        if key_file is not None:
            self.load()  # an unreadable or non-RSA file is a start-up error (ValueError/OSError), not a 500 later

    @property
    def ready(self) -> bool:
        return self._private is not None

    def load(self) -> Any:
        with self._lock:
            if self._private is None:
                from cryptography.hazmat.primitives import serialization
                from cryptography.hazmat.primitives.asymmetric import rsa

                if self._key_file is not None:
                    with open(self._key_file, "rb") as f:
                        pem = f.read()
                    try:
                        key = serialization.load_pem_private_key(pem, password=None)
                    except (ValueError, TypeError) as exc:  # not PEM, or encrypted
                        raise ValueError(f"--service-account-key-file {self._key_file}: {exc}") from None
                    if not isinstance(key, rsa.RSAPrivateKey):
                        raise ValueError(f"--service-account-key-file {self._key_file}: not an RSA private key")
                else:
                    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
                der = key.public_key().public_bytes(serialization.Encoding.DER,
                                                    serialization.PublicFormat.SubjectPublicKeyInfo)
                self.kid = _b64(hashlib.sha256(der).digest())  # jwt.go keyIDFromPublicKey
                self._private = key
            return self._private

    def sign(self, data: bytes) -> bytes:
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.asymmetric import padding

        return self.load().sign(data, padding.PKCS1v15(), hashes.SHA256())

    def verify(self, signature: bytes, data: bytes) -> bool:
        from cryptography.exceptions import InvalidSignature
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.asymmetric import padding

        try:
            self.load().public_key().verify(signature, data, padding.PKCS1v15(), hashes.SHA256())
            return True
        except InvalidSignature:
            return False

    def jwk(self) -> dict[str, Any]:
        """go-jose's JSONWebKey of the public key: `use`, `kty`, `kid`, `alg`, `n`, `e` (its field order)."""
        nums = self.load().public_key().public_numbers()
        return {"use": "sig", "kty": "RSA", "kid": self.kid, "alg": "RS256",
                "n": _int_b64(nums.n), "e": _int_b64(nums.e)}


def _go_url_error(value: str) -> str | None:
    """Go's `url.Parse` refusal of `value` (`parse "<value>": <why>`, gonet), or None when it parses."""
    try:
        gourl.parse(value)
    except gourl.URLError as exc:
        return str(exc)
    return None


def validate_issuers(issuers: Sequence[str]) -> list[str]:
    """`BuiltInAuthenticationOptions.Validate` on `--service-account-issuer`: each error, in upstream's words."""
    errs: list[str] = []
    seen: set[str] = set()
    for issuer in issuers:
        bad = _go_url_error(issuer) if ":" in issuer else None
        if bad:
            errs.append(f"service-account-issuer {go_quote(issuer)} contained a ':' but was not a valid URL: {bad}")
        elif issuer == "":
            errs.append("service-account-issuer should not be an empty string")
        elif issuer in seen:
            errs.append(f"service-account-issuer {go_quote(issuer)} is already specified")
        else:
            seen.add(issuer)
    return errs


def discovery_error(issuer: str) -> str | None:
    """`NewOpenIDMetadataProvider`'s refusal of an issuer URL (the OIDC discovery spec's), or None."""
    try:
        parsed = gourl.parse(issuer)
    except gourl.URLError as exc:
        return str(exc)
    if parsed.scheme != "https":
        return f"issuer URL must use https scheme, got: {issuer}"
    if parsed.raw_query:
        return f"issuer URL may not include a query, got: {issuer}"
    if parsed.fragment:
        return f"issuer URL may not include a fragment, got: {issuer}"
    return None


class TokenIssuer:
    def __init__(self, lookup: Lookup, key_file: str | None = None, issuers: Sequence[str] = (ISSUER,)):
        """`issuers`: `--service-account-issuer` in order (ValueError for what kube-apiserver refuses)."""
        issuers = tuple(issuers) or (ISSUER,)
        errs = validate_issuers(issuers)
        if errs:
            raise ValueError("; ".join(errs))
        self.key = SigningKey(key_file)
        self.issuer = issuers[0]  # signs
        self.issuers = frozenset(issuers)  # accepted
        self.audiences = list(issuers)  # the API server's audiences (no --api-audiences: the issuers)
        self.serves_discovery = discovery_error(self.issuer) is None
        self._lookup = lookup

    def warm_up(self) -> None:
        """Make (or read) the key now; blocking, so the HTTP layer calls it in a worker thread."""
        self.key.load()

    def issue(self, namespace: str, name: str, uid: str, audiences: list[str], expiration: int,
              now: float | None = None, bound: dict[str, dict[str, str]] | None = None,
              warn_after: int = 0) -> tuple[str, int]:
        """(token, expiry as a Unix time). `bound`: {"pod"|"secret"|"node": {"name", "uid"}} (a pod-bound token
        also names the pod's node, its `uid` absent when that Node does not exist)."""
        iat = int(time.time() if now is None else now)
        private: dict[str, Any] = {"namespace": namespace, "serviceaccount": {"name": name, "uid": uid}}
        for kind, ref in (bound or {}).items():
            private[kind] = ref
        if warn_after:
            private["warnafter"] = iat + warn_after
        claims = {"aud": audiences, "exp": iat + expiration, "iat": iat, "iss": self.issuer,
                  "jti": str(uuid.uuid4()), "kubernetes.io": dict(sorted(private.items())), "nbf": iat,
                  "sub": f"{SA_PREFIX}{namespace}:{name}"}
        self.key.load()
        head = _b64(json.dumps({"alg": "RS256", "kid": self.key.kid}, separators=(",", ":")).encode())
        body = _b64(json.dumps(claims, separators=(",", ":")).encode())
        sig = _b64(self.key.sign(f"{head}.{body}".encode()))
        return f"{head}.{body}.{sig}", claims["exp"]

    @property
    def ready(self) -> bool:
        """The key exists; until then (`warm_up` still running) no token can carry its signature."""
        return self.key.ready

    def claims(self, token: str) -> dict[str, Any] | None:
        """The claims of a token this server signed, issued by it and within its lifetime; else None."""
        parts = token.split(".")
        if len(parts) != 3 or not self.key.ready:  # never waits for the key on the event loop
            return None
        try:
            header = json.loads(_unb64(parts[0]))
            if not isinstance(header, dict) or header.get("alg") != "RS256":
                return None
            if not self.key.verify(_unb64(parts[2]), f"{parts[0]}.{parts[1]}".encode()):
                return None
            claims = json.loads(_unb64(parts[1]))
        except (ValueError, TypeError):
            return None
        if not isinstance(claims, dict) or not isinstance(claims.get("iss"), str) or claims["iss"] not in self.issuers:
            return None
        now = time.time()
        try:
            if float(claims.get("exp", 0)) < now - LEEWAY or float(claims.get("nbf", 0)) > now + LEEWAY:
                return None
        except (TypeError, ValueError):
            return None
        return claims

    def authenticate(self, token: str, audiences: Sequence[str] = ()) -> UserInfo | None:
        reviewed = self.review(token, audiences)
        return reviewed[0] if reviewed is not None else None

    def review(self, token: str, audiences: Sequence[str] = ()) -> tuple[UserInfo, list[str]] | None:
        """(who, the audiences granted) for a token of this server meant for one of `audiences` (a TokenReview's;
        default the API server's), as jwt.go: a token without `aud` (legacy) counts as the API server's."""
        claims = self.claims(token)
        if claims is None:
            return None
        aud = claims.get("aud")
        token_auds = [aud] if isinstance(aud, str) else [a for a in aud if isinstance(a, str)] \
            if isinstance(aud, list) else []
        requested = list(audiences) or self.audiences
        granted = [a for a in (token_auds or self.audiences) if a in requested]
        if not granted:  # "token audiences %q is invalid for the target audiences %q"
            return None
        k8s = claims.get("kubernetes.io")
        if not isinstance(k8s, dict) or not isinstance(k8s.get("serviceaccount"), dict):
            return None
        ns, sa = str(k8s.get("namespace", "")), k8s["serviceaccount"]
        cutoff = time.time() - LEEWAY
        extra: dict[str, tuple[str, ...]] = {}
        node = k8s.get("node")
        pod_bound = k8s.get("pod") is not None
        checks = (("serviceaccount", "serviceaccounts"), ("secret", "secrets"), ("pod", "pods")) + \
            ((("node", "nodes"),) if node is not None and not pod_bound else ())
        for kind, resource in checks:
            ref = k8s.get(kind)
            if ref is None:
                continue
            if not isinstance(ref, dict):
                return None
            obj = self._lookup(resource, "" if kind == "node" else ns, str(ref.get("name", "")))
            # deleted, recreated, or deleted more than a minute ago: claims.go refuses it
            if obj is None or obj["metadata"].get("uid") != ref.get("uid") or _deleted_before(obj, cutoff):
                return None
            if kind == "pod":
                extra["authentication.kubernetes.io/pod-name"] = (str(ref.get("name", "")),)
                extra["authentication.kubernetes.io/pod-uid"] = (str(ref.get("uid", "")),)
        if isinstance(node, dict) and node.get("name"):  # a Node-bound token's, or a pod-bound one's node (claims
            extra["authentication.kubernetes.io/node-name"] = (str(node["name"]),)  # only read: the pod was checked)
            if node.get("uid"):
                extra["authentication.kubernetes.io/node-uid"] = (str(node["uid"]),)
        if claims.get("jti"):
            extra["authentication.kubernetes.io/credential-id"] = (f"JTI={claims['jti']}",)
        return UserInfo(f"{SA_PREFIX}{ns}:{sa.get('name', '')}", str(sa.get("uid", "")),
                        ("system:serviceaccounts", f"system:serviceaccounts:{ns}", "system:authenticated"),
                        dict(sorted(extra.items()))), granted

    # openidmetadata.go
    def openid_configuration(self, external_host: str) -> dict[str, Any]:
        return {"issuer": self.issuer, "jwks_uri": f"https://{external_host}{JWKS_PATH}",
                "response_types_supported": ["id_token"], "subject_types_supported": ["public"],
                "id_token_signing_alg_values_supported": ["RS256"]}

    def jwks(self) -> dict[str, Any]:
        return {"keys": [self.key.jwk()]}
