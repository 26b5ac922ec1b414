"""Assemble the layers (storage → registry → admission → http, plus the controller) and run them on
the current event loop. `embedded` and `serve` are thin wrappers around `ReferenceServer`."""
from __future__ import annotations

import logging
from typing import Iterable

from aiohttp import web

from .admission.scope import ScopeAdmission, install_strategies
from .controller import NamespaceController
from .controller.quota import QuotaController
from .deviations import Deviations
from .http import PROFILES, Router, ServerContext, build_app
from .kubeconfig import write_kubeconfig
from .registry import Registry
from .storage import MemoryStore
from .tls import ServerTLS, generate

log = logging.getLogger("nsconform.reference_server")
INITIAL_NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease")
AUTHORIZATION_MODES = ("always-allow", "rbac")


def build_context(profile: str = "kubernetes", deviations: Iterable[str] = (),
                  token: str | None = None, *, authorization: str = "always-allow",
                  users_file: str | None = None, feature_gates: Iterable[str] = ()) -> ServerContext:
    """Storage, registry, admission and router for one server; seeds the initial namespaces.

    `authorization="rbac"` serves the RBAC API, seeds the bootstrap policy and authorizes every request
    (identity: `token` = `system:admin` in `system:masters`, `users_file` tokens, impersonation).
    """
    if profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r}; known: {', '.join(PROFILES)}")
    if authorization not in AUTHORIZATION_MODES:
        raise ValueError(f"unknown authorization mode {authorization!r}; known: {', '.join(AUTHORIZATION_MODES)}")
    devs = Deviations(deviations)
    registry = Registry(MemoryStore(), devs)
    install_strategies(registry)
    authenticator = authorizer = None
    if authorization == "rbac":
        from .http.authz import rbac_setup  # TokenFileError (a ValueError) for a bad --users file
        authenticator, authorizer = rbac_setup(registry, devs, token, users_file)
    for name in INITIAL_NAMESPACES:
        registry.namespaces.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}},
                                   field_manager="kube-apiserver")
    # kube-apiserver's watch cache starts at the resourceVersion it was started at, and etcd compacts older
    # history: a watch or exact list from before the server's start is answered 410 (as it is on a cluster).
    registry.store.compact()
    admission = ScopeAdmission(registry, devs)
    gates = frozenset(feature_gates)
    if "NamespaceInitializers" in gates:  # KEP-33, opt-in (extensions/initializers.py)
        from .extensions import initializers
        admission = initializers.install(registry, admission, devs, phase="NamespaceInitializingPhase" in gates)
    return ServerContext(registry=registry, admission=admission, deviations=devs,
                         router=Router(registry, profile, devs), profile=profile, token=token,
                         authenticator=authenticator, authorizer=authorizer, feature_gates=gates)


class ReferenceServer:
    """One server instance; `start`/`stop` must run on the loop that serves it."""

    def __init__(self, *, profile: str = "kubernetes", deviations: Iterable[str] = (), token: str | None = None,
                 tls: bool = False, controller_delay: float = 0.0, host: str = "127.0.0.1", port: int = 0,
                 authorization: str = "always-allow", users_file: str | None = None,
                 feature_gates: Iterable[str] = ()):
        if authorization == "rbac" and token is None:  # someone must be able to administer the server
            import secrets
            token = secrets.token_hex(16)
        self.ctx = build_context(profile, deviations, token, authorization=authorization, users_file=users_file,
                                 feature_gates=feature_gates)
        self.authorization = authorization
        self.host, self.port = host, port
        self.token = token
        self.controller_delay = controller_delay
        self.tls: ServerTLS | None = generate() if tls else None
        self.controller: NamespaceController | None = None
        self.quota_controller: QuotaController | None = None
        self._runner: web.AppRunner | None = None

    @property
    def url(self) -> str:
        scheme = "https" if self.tls else "http"
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{scheme}://{host}:{self.port}"

    @property
    def ca_file(self) -> str | None:
        return self.tls.ca_file if self.tls else None

    async def start(self) -> None:
        """Bind and start serving (raises OSError when the port is taken)."""
        self.controller = NamespaceController(self.ctx.registry, delay=self.controller_delay,
                                              deviations=self.ctx.deviations)
        self.controller.start()
        self.quota_controller = QuotaController(self.ctx.registry, deviations=self.ctx.deviations)
        self.quota_controller.start()
        app = build_app(self.ctx)
        self._runner = web.AppRunner(app, handler_cancellation=True, access_log=None, shutdown_timeout=1.0)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port,
                           ssl_context=self.tls.ssl_context() if self.tls else None)
        try:
            await site.start()
        except OSError:
            await self.stop()
            raise
        server = site._server  # aiohttp exposes the bound sockets only here
        if server is not None and server.sockets:
            self.port = server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        """End watches, stop the controller, close the listener; idempotent."""
        self.ctx.registry.store.close_watchers()
        if self.controller is not None:
            await self.controller.stop()
            self.controller = None
        if self.quota_controller is not None:
            await self.quota_controller.stop()
            self.quota_controller = None
        if self._runner is not None:
            runner, self._runner = self._runner, None
            await runner.cleanup()
        if self.tls is not None:
            self.tls.cleanup()

    def write_kubeconfig(self, path: str) -> None:
        write_kubeconfig(path, self.url, self.token, self.tls.ca_pem if self.tls else None)
