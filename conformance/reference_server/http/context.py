"""What the http layer is handed: the lower layers plus per-server settings."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..admission import NamespaceLifecycle
from ..deviations import Deviations
from ..health.state import HealthState
from ..registry import Registry
from .router import Router


@dataclass
class ServerContext:
    registry: Registry
    admission: NamespaceLifecycle
    deviations: Deviations
    router: Router
    profile: str = "kubernetes"
    token: str | None = None
    authenticator: Any = None   # auth.TokenAuthenticator when --authorization rbac (http/authz.py)
    authorizer: Any = None      # auth.RBACAuthorizer when --authorization rbac; None: AlwaysAllow + token
    client_certs: Any = None    # auth.x509.ClientCertAuthenticator: a TLS server's --client-ca-file (or own CA)
    client_ca_pem: str | None = None  # its bundle, published in kube-system/extension-apiserver-authentication
    anonymous: bool = True      # always-allow over TLS with --anonymous-auth=false: a certificate or the token needed
    request_header: Any = None  # auth.requestheader.RequestHeaderAuthenticator: --requestheader-client-ca-file
    token_issuer: Any = None    # auth.tokens.TokenIssuer: signs TokenRequests, authenticates service accounts
    feature_gates: frozenset = frozenset()  # extensions switched on (`--feature-gates`, reference_server/extensions)
    request_count: int = 0      # HTTP requests received (every one, refused ones too); bumped on the loop
    middlewares: tuple = ()     # a cluster flavour's extra middlewares, innermost (flavors/behaviours.py)
    watch_lag: float = 0.0      # a cluster flavour's lateness of watch events, seconds (order kept)
    request_timeout: float = 60.0  # --request-timeout: non-long-running requests end in a 504 after it
    max_requests_inflight: int = 400          # --max-requests-inflight: with the next, APF's total seats
    max_mutating_requests_inflight: int = 200  # --max-mutating-requests-inflight (http/priority_fairness.py)
    metrics: Any = None         # metrics.ServerMetrics (set by http/app.py): what watch streams count
    health: HealthState = field(default_factory=HealthState)  # what /healthz, /livez, /readyz check (health/)

    @property
    def store(self):
        return self.registry.store
