"""Authentication, impersonation and RBAC authorization in the request path (`--authorization rbac`).

Upstream's filter order (`DefaultBuildHandlerChain`): authentication (401) → impersonation (400/403) →
authorization (403) → routing. So an unauthorized request for an unknown path is 403, not 404. Without
`--authorization rbac` the server keeps its AlwaysAllow + single-token behaviour (`app._check_token`).

The policy is read live from the registry's RBAC stores (`RegistryRbacSource`), which are served and hold the
bootstrap policy (`cluster-admin`, `system:discovery`, ...) in every authorization mode, as upstream's
(registry/__init__.py, controller/rbac_bootstrap.py).
"""
from __future__ import annotations

import copy
from typing import Any

from aiohttp import web

from ..auth import RBACAuthorizer, TokenAuthenticator, UserInfo, impersonate, request_attributes
from ..auth.escalation import CURRENT_USER
from ..auth.kinds import GROUP
from ..auth.rbac import RequestInfoError
from ..deviations import NONE, Deviations
from ..registry import Registry
from .peercert import peer_certificates

# request key: the `auth.UserInfo` after authentication and impersonation (a typed key where aiohttp has them)
REQUESTER: Any = (web.RequestKey("requester", UserInfo) if hasattr(web, "RequestKey")  # type: ignore[attr-defined]
                  else "nsconform.requester")
_PLURALS = {"Role": "roles", "RoleBinding": "rolebindings", "ClusterRole": "clusterroles",
            "ClusterRoleBinding": "clusterrolebindings"}


class RegistryRbacSource:
    """`RbacSource` over the registry's RBAC objects (what upstream's informer-backed listers give)."""

    def __init__(self, registry: Registry, deviations: Deviations = NONE):
        self.registry = registry
        self.deviations = deviations

    def _raw(self, kind: str, namespace: str | None) -> list[dict[str, Any]]:
        return self.registry.store.list(_PLURALS[kind], namespace, shared=True)[0]  # read-only (copied below to edit)

    def list(self, kind: str, namespace: str = "") -> list[dict[str, Any]]:
        d = self.deviations
        if kind in ("Role", "RoleBinding"):
            if kind == "RoleBinding" and d.active("rbac-ignores-bindings"):
                return []
            out = self._raw(kind, None if d.active("rbac-ignores-namespace") else namespace)
        elif kind == "ClusterRoleBinding" and d.active("clusterrole-binding-scope"):
            # the bug: a RoleBinding to a ClusterRole grants it in every namespace
            out = self._raw(kind, "") + [rb for rb in self._raw("RoleBinding", None)
                                         if (rb.get("roleRef") or {}).get("kind") == "ClusterRole"]
        else:
            out = self._raw(kind, "")
        if kind in ("Role", "ClusterRole") and d.active("rbac-verb-wildcard"):
            out = copy.deepcopy(out)
            for role in out:
                for rule in role.get("rules") or []:
                    if not rule.get("nonResourceURLs"):
                        rule["verbs"] = ["*"]
        return out


def authn_middleware(ctx: Any):
    """Authentication and impersonation (`WithAuthentication`, `WithImpersonation`): the requester, set before
    API Priority and Fairness classifies the request by it."""
    authenticator: TokenAuthenticator = ctx.authenticator
    authorizer: RBACAuthorizer = ctx.authorizer

    @web.middleware
    async def authn(request: web.Request, handler):
        peer = peer_certificates(request) if authenticator.client_certs is not None or \
            authenticator.request_header is not None else ()
        user = authenticator.authenticate(request.headers, peer)
        user = impersonate(user, request.headers, authorizer)
        request[REQUESTER] = user  # upstream's request context user: what SelfSubjectAccessReview asks about
        CURRENT_USER.set(user)  # the same user, for the RBAC storages' escalation checks (auth/escalation.py)
        return await handler(request)
    return authn


def authz_middleware(ctx: Any):
    """Authorization (`WithAuthorization`), inside API Priority and Fairness as upstream's handler chain has it
    (`DefaultBuildHandlerChain`): a request the authorizer refuses has taken its seat first."""
    authorizer: RBACAuthorizer = ctx.authorizer
    design = ctx.profile == "design"

    @web.middleware
    async def authz(request: web.Request, handler):
        try:
            attrs = request_attributes(request.method, request.path, request.query, request[REQUESTER],
                                       design_list=design)
        except RequestInfoError as exc:  # upstream's WithRequestInfo answers a plain-text 500
            return web.Response(status=500, text=str(exc), content_type="text/plain")
        if (ctx.deviations.active("cross-namespace-list-unchecked") and attrs.resource_request
                and not attrs.namespace and attrs.verb in ("list", "watch") and attrs.resource != "namespaces"):
            return await handler(request)  # the bug: cluster-scope lists of content are not authorized
        authorizer.check(attrs)
        return await handler(request)
    return authz


def rbac_setup(registry: Registry, deviations: Deviations, token: str | None,
               users_file: str | None) -> tuple[TokenAuthenticator, RBACAuthorizer]:
    """`--authorization rbac`: the authenticator and the RBAC authorizer over the registry's RBAC objects, and the
    policy-based RBAC storages' escalation checks (auth/escalation.py) on the RBAC kinds the registry always serves.
    Under AlwaysAllow those checks pass (`RoleEscalationAuthorized`/`BindingAuthorized` ask the authorizer for
    `escalate`/`bind`, which it grants), so the stores carry none."""
    from ..auth.escalation import EscalationGuard
    from ..auth.kinds import RBAC_KINDS

    authorizer = RBACAuthorizer(RegistryRbacSource(registry, deviations))
    guard = EscalationGuard(authorizer)
    for info in RBAC_KINDS:
        store = registry.group(GROUP, info.plural)
        if store is not None:
            store.strategy.guard = guard  # type: ignore[attr-defined]
    if users_file:
        authenticator = TokenAuthenticator.from_file(users_file, admin_token=token)
    else:
        authenticator = TokenAuthenticator(admin_token=token)
    return authenticator, authorizer


__all__ = ["REQUESTER", "RegistryRbacSource", "authn_middleware", "authz_middleware", "rbac_setup"]
