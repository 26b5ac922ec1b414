"""Assemble the layers (storage → registry → admission → http, plus the controller) and run them on
the current event loop. `embedded` and `serve` are thin wrappers around `ReferenceServer`."""
from __future__ import annotations

import asyncio
import ipaddress
import threading
import logging
from typing import TYPE_CHECKING, Callable, Iterable, Sequence

from aiohttp import web

from .admission.admitted import APISERVER_USER, ControllerWrites
from .admission.scope import ScopeAdmission, install_strategies
from .controller import NamespaceController
from .controller import apiserver_endpoints
from .controller.apiservices import APIServiceAvailability
from .controller.clusterrole_aggregation import ClusterRoleAggregation
from .controller.crd_finalizer import CRDFinalizer
from .controller.crd_structural import NonStructuralSchemaController
from .controller.endpoints import EndpointsController
from .controller.endpointslice import EndpointSliceController
from .controller.garbagecollector import GarbageCollector
from .controller.leader import LeaderElectionConfig, LeaderElector
from .controller.loop import Controller
from .controller.quota import QuotaController
from .controller.scheduler import NoNodesScheduler
from .controller.endpointslicemirroring import EndpointSliceMirroringController
from .controller.workloads import workload_controllers
from .deviations import Deviations
from .flavors import Flavor, get_flavor
from .flavors import behaviours
from .http import PROFILES, Router, ServerContext, build_app
from .http.connection import IDLE_TIMEOUT, READ_HEADER_TIMEOUT, REQUEST_TIMEOUT, GuardedRunner
from .kubeconfig import write_kubeconfig
from .auth.tokens import TokenIssuer
from .logmask import protect
from .controller import bootstrap
from .controller import apf_config
from .controller import autoregister, rbac_bootstrap, servicecidr
from .controller.system_objects import SystemObjects
from .health import HealthState, checks as health_checks
from .health.etcdprobe import store_probes
from .registry import Registry
from .registry.service import KUBERNETES_SERVICE_IP
from .storage import KeyNotFoundError
from .storage import MemoryStore
from .storage.backends import StorageConfig, open_store

if TYPE_CHECKING:
    from .auth.requestheader import RequestHeaderAuthenticator, RequestHeaderConfig
    from .controller import clusterauthtrust
    from .tls import ServerTLS

log = logging.getLogger("nsconform.reference_server")
AUTHORIZATION_MODES = ("always-allow", "rbac")
EVENT_TTL = 3600.0  # kube-apiserver's --event-ttl default (1 h), in seconds
_ensure = bootstrap.ensure


def build_context(profile: str = "kubernetes", deviations: Iterable[str] = (),
                  token: str | None = None, *, authorization: str = "always-allow",
                  users_file: str | None = None, flavor: str | Flavor | None = None,
                  feature_gates: Iterable[str] = (), store: object | None = None,
                  service_account_key_file: str | None = None,
                  service_account_issuers: Sequence[str] = (), event_ttl: float = EVENT_TTL) -> ServerContext:
    """Storage, registry, admission and router for one server; seeds the initial namespaces.

    The RBAC API and its bootstrap policy are served in every mode, as kube-apiserver's; `authorization="rbac"`
    authorizes every request by it (identity: `token` = `system:admin` in `system:masters`, `users_file` tokens,
    impersonation), the default `always-allow` lets every request through.
    `flavor` (flavors/): the admission plugins, authorizer and middlewares of a cluster flavour.
    `feature_gates` (extensions/): opt-in extensions, e.g. `NamespaceInitializers` (KEP-33).
    `service_account_key_file`: the PEM RSA key that signs service-account tokens (default: one made on first need).
    `service_account_issuers`: `--service-account-issuer` in order, the first signs, all are accepted (default: the
    in-cluster `https://kubernetes.default.svc.cluster.local`; ValueError for one kube-apiserver refuses).
    `store`: the storage (default a fresh `MemoryStore`); on a store that already holds them (etcd, restarted)
    the initial objects are not created again.
    `event_ttl`: `--event-ttl` in seconds (default 1 h): how long an Event lives after its last write.
    """
    fl = get_flavor(flavor)
    if profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r}; known: {', '.join(PROFILES)}")
    if authorization not in AUTHORIZATION_MODES:
        raise ValueError(f"unknown authorization mode {authorization!r}; known: {', '.join(AUTHORIZATION_MODES)}")
    devs = Deviations(deviations)
    registry = Registry(store if store is not None else MemoryStore(), devs)
    registry.set_event_ttl(event_ttl)
    seeded = _seeded(registry)
    install_strategies(registry)
    registry.content("services").strategy.cidr = ipaddress.ip_network(fl.service_cidr)  # type: ignore[union-attr]
    authenticator = authorizer = None  # AlwaysAllow; the RBAC API is served in every mode (registry/__init__.py)
    if authorization == "rbac":
        from .http.authz import rbac_setup  # TokenFileError (a ValueError) for a bad --users file
        authenticator, authorizer = rbac_setup(registry, devs, token, users_file)
    from .http.webhookcalls import webhook_admission
    # kube-apiserver's post-start hooks (controller/bootstrap.py): the namespaces and the `kubernetes` Service on a
    # fresh store, the system PriorityClasses and the APF bootstrap objects on every start; with a webhook
    # configuration or policy binding stored (an etcd restart), admitted once the server runs (ReferenceServer.start)
    admission_configured = webhook_admission(registry, authorizer).active()
    if not seeded:  # what the distribution's installer applies (kind: the `standard` StorageClass)
        installer: Callable[[], None] = lambda: behaviours.seed(fl, registry)
    else:
        installer = lambda: None
    if not admission_configured:
        bootstrap.bootstrap(registry, KUBERNETES_SERVICE, not seeded, installer)
        apf_config.ensure_configuration(registry)  # the priority-and-fairness-config-producer hook
        apf_config.sync_dangling(registry)
    else:
        installer()
    if not seeded:  # the `rbac/bootstrap-roles` hook's first round (its Roles' namespaces made just above), so an
        rbac_bootstrap.seed(registry)  # authorizer over a server not yet started reads the policy
        autoregister.seed(registry)  # the local APIServices, Available: `autoregister-completion` passes at once
        servicecidr.seed(registry, fl.service_cidr)  # the `kubernetes` ServiceCIDR, Ready
    issuer = TokenIssuer(_stored_object(registry), service_account_key_file, service_account_issuers)
    if authenticator is not None:
        authenticator.service_accounts = issuer
    # kube-apiserver's watch cache starts at the resourceVersion it was started at, and etcd compacts older
    # history: a watch or exact list from before the server's start is answered 410 (as it is on a cluster).
    # A store already seeded (etcd, another replica or an earlier run) is not compacted: the replicas on it
    # may be serving clients at older revisions (upstream compacts periodically, never at a server's start).
    if not seeded:
        registry.store.compact()
    if authorizer is not None and fl.webhook_authorizer:
        authorizer = behaviours.WebhookAuthorizer(authorizer)
    admission = ScopeAdmission(registry, devs)
    gates = frozenset(feature_gates)
    if "NamespaceInitializers" in gates:  # KEP-33, opt-in (extensions/initializers.py)
        from .extensions import initializers
        admission = initializers.install(registry, admission, devs, phase="NamespaceInitializingPhase" in gates)
    from .admission.storageprotection import StorageObjectInUseProtection
    admission = StorageObjectInUseProtection(admission)  # PVC/PV protection finalizers
    from .admission.classes import ClassAdmission  # Priority, DefaultStorageClass, DefaultIngressClass
    admission = ClassAdmission(behaviours.FlavorAdmission(admission, registry, fl), registry)
    if authorizer is not None:  # CertificateApproval, CertificateSigning: they ask the authorizer
        from .admission.certificates import CertificateAdmission
        admission = CertificateAdmission(admission, authorizer)
    health = HealthState()
    probes = store_probes(registry.store)  # etcd: `etcd`/`etcd-readiness` probe it; the memory store is healthy
    if probes is not None:
        health.store_probe, health.ready_probe = probes
    if not admission_configured:  # the PriorityClasses' hook did its work above
        health.steps.done(health_checks.PRIORITY_CLASSES_HOOK)
    if not seeded:  # and the RBAC policy's: nothing left for its first round at start
        health.steps.done(rbac_bootstrap.HOOK)
    return ServerContext(registry=registry, admission=admission, health=health,
                         deviations=devs, router=Router(registry, profile, devs), profile=profile, token=token,
                         authenticator=authenticator, authorizer=authorizer, token_issuer=issuer,
                         middlewares=tuple(behaviours.middlewares(fl)), watch_lag=fl.watch_lag,
                         feature_gates=gates)


# The Service kube-apiserver's `kubernetes` controller keeps in `default` (pkg/controlplane/controller/kubernetesservice):
# the first IP of the service CIDR, port 443 → the API server's secure port.
KUBERNETES_SERVICE = {
    "apiVersion": "v1", "kind": "Service",
    "metadata": {"name": "kubernetes", "namespace": "default",
                 "labels": {"component": "apiserver", "provider": "kubernetes"}},
    "spec": {"clusterIP": KUBERNETES_SERVICE_IP,
             "ports": [{"name": "https", "port": 443, "protocol": "TCP", "targetPort": 6443}]}}


def _exists(registry: Registry, resource: str, namespace: str, name: str) -> bool:
    return _stored_object(registry)(resource, namespace, name) is not None


_seeded = bootstrap.seeded


def _store_seeded(store: object) -> bool:
    """`bootstrap.seeded` on the bare store, before any registry is built on it."""
    try:
        store.get("namespaces", "", "default", shared=True)  # type: ignore[attr-defined]
    except KeyNotFoundError:
        return False
    return True


def _stored_object(registry: Registry):
    """What the token validator reads: a ServiceAccount, or the Pod/Secret a token is bound to."""
    def lookup(resource: str, namespace: str, name: str) -> dict | None:
        try:
            return registry.store.get(resource, namespace, name, shared=True)
        except KeyNotFoundError:
            return None
    return lookup


def _import_wire_modules() -> None:
    import importlib

    for name in ("protobuf", "negotiation", "table", "openapi", "gotypes"):
        try:
            importlib.import_module(f"conformance.reference_server.wire.{name}")
        except Exception:  # noqa: BLE001 - a broken wire module is served without, as hooks.py does
            pass
    try:  # the strategic-merge metadata of the built-in kinds (http/strategicpatch.py)
        importlib.import_module("conformance.reference_server.wire.patchmeta").warm()
    except Exception:  # noqa: BLE001 - built on first use instead
        pass


_WARM_UP: list[threading.Thread] = []  # once per process


def _start_warm_up() -> None:
    if not _WARM_UP:
        thread = threading.Thread(target=_import_wire_modules, name="nsconform-wire-warm-up", daemon=True)
        _WARM_UP.append(thread)
        thread.start()


class ReferenceServer:
    """One server instance; `start`/`stop` must run on the loop that serves it."""

    def __init__(self, *, profile: str = "kubernetes", deviations: Iterable[str] = (), token: str | None = None,
                 tls: bool = False, controller_delay: float = 0.0, host: str = "127.0.0.1", port: int = 0,
                 authorization: str = "always-allow", users_file: str | None = None,
                 flavor: str | Flavor | None = None,
                 request_timeout: float = REQUEST_TIMEOUT, read_header_timeout: float = READ_HEADER_TIMEOUT,
                 idle_timeout: float = IDLE_TIMEOUT, cert_dir: str | None = None, anonymous_auth: bool = True,
                 feature_gates: Iterable[str] = (), storage: StorageConfig | None = None,
                 leader_elect: bool = True, leader_election: LeaderElectionConfig | None = None,
                 service_account_key_file: str | None = None, service_account_issuers: Sequence[str] = (),
                 max_requests_inflight: int = 400, max_mutating_requests_inflight: int = 200,
                 client_ca_file: str | None = None, request_header: "RequestHeaderConfig | None" = None,
                 event_ttl: float = EVENT_TTL):
        if max_requests_inflight < 0 or max_mutating_requests_inflight < 0:  # ServerRunOptions.Validate
            raise ValueError("--max-requests-inflight can not be negative value" if max_requests_inflight < 0
                             else "--max-mutating-requests-inflight can not be negative value")
        if max_requests_inflight + max_mutating_requests_inflight <= 0:
            raise ValueError("--max-requests-inflight plus --max-mutating-requests-inflight must be positive: "
                             "they are API Priority and Fairness' total seats")
        self.flavor = get_flavor(flavor)  # unknown ⇒ ValueError, before anything starts
        self._token_given = token is not None  # (the kubeconfig's user: write_kubeconfig)
        if authorization == "rbac" and token is None:  # someone must be able to administer the server
            import secrets
            token = secrets.token_hex(16)
        deviations = tuple(deviations)
        store, self._close_store = open_store(storage, Deviations(deviations))  # StorageUnavailable: etcd unreachable
        self._fresh = not _store_seeded(store)  # the installer's objects (flavors/installer.py) go on a fresh store
        try:
            self.ctx = build_context(profile, deviations, token, authorization=authorization, users_file=users_file,
                                     flavor=self.flavor, feature_gates=feature_gates, store=store,
                                     service_account_key_file=service_account_key_file,
                                     service_account_issuers=service_account_issuers, event_ttl=event_ttl)
        except BaseException:
            self._close_store()
            raise
        self.ctx.request_timeout = request_timeout
        self.ctx.max_requests_inflight = max_requests_inflight
        self.ctx.max_mutating_requests_inflight = max_mutating_requests_inflight
        protect([token] if token else [])  # and every bearer token by its shape
        if self.ctx.authenticator is not None:
            protect(self.ctx.authenticator.tokens)
        tls = bool(tls or cert_dir or client_ca_file or request_header)
        if not anonymous_auth:  # --anonymous-auth=false: a request without credentials is a 401
            if self.ctx.authenticator is not None:
                self.ctx.authenticator.allow_anonymous = False
            elif tls:  # always-allow: a client certificate (http/app.py's token check) or the token
                self.ctx.anonymous = False
            elif token is None:
                raise ValueError("--anonymous-auth=false needs credentials: --tls (client certificates), --token, "
                                 "--token-file or --authorization rbac")
        self._read_header_timeout, self._idle_timeout = read_header_timeout, idle_timeout
        self.authorization = authorization
        self.host, self.port = host, port
        self.token = token
        self.controller_delay = controller_delay
        self.tls: ServerTLS | None = None
        if tls:  # `cryptography` is imported only for a TLS server
            try:
                self._client_certificates(cert_dir, client_ca_file, request_header)
            except BaseException:  # an unreadable or empty --client-ca-file
                self._close_store()
                raise
        self.controller: NamespaceController | None = None
        self.quota_controller: QuotaController | None = None
        self.extension_controllers: list = []   # ClusterRole aggregation, GC, Endpoints(lices), ...
        self.flavor_controllers: list[Controller] = []
        self.apf_controller: apf_config.ApfConfigController | None = None  # started with the listener, every replica
        self.apiserver_controllers: list[Controller] = []  # kube-apiserver's own post-start controllers, every replica
        self._endpoints_sync: asyncio.Task[None] | None = None  # the `kubernetes` endpoints' admitted writes
        self._bootstrap: asyncio.Task[None] | None = None  # the admitted start-up writes (controller/bootstrap.py)
        self.system_objects: SystemObjects | None = None  # kube-apiserver's own keepers of them (every replica)
        self.failed = asyncio.Event()  # a post-start hook failed (`klog.Fatalf`): `failure` says why
        self.failure = ""
        self._rbac_bootstrap: asyncio.Task[None] | None = None  # the namespaced bootstrap policy's admitted writes
        self._runner: GuardedRunner | None = None
        # --leader-elect (kube-controller-manager's, default true); false: the controllers run unconditionally
        self.leader_election = self._named(leader_election or LeaderElectionConfig()) if leader_elect else None
        self.elector: LeaderElector | None = None
        self.scheduler_elector: LeaderElector | None = None  # kube-scheduler's Lease (the kind flavour's)

    def _client_certificates(self, cert_dir: str | None, client_ca_file: str | None,
                             request_header: "RequestHeaderConfig | None") -> None:
        """The serving certificates, the x509 authenticator (`--client-ca-file`, else the server's own CA, as
        kubeadm configures kube-apiserver) and the admin client certificate its kubeconfig holds: kubeadm's
        `admin.conf` subject where the flavour stores the `kubeadm:cluster-admins` binding (kind), `super-admin.conf`'s
        (`system:masters`) elsewhere, so the certificate administers the server under `--authorization rbac`."""
        from .auth.x509 import ClientCertAuthenticator
        from .auth.requestheader import kubeadm_request_header
        from .tls import ADMIN, SUPER_ADMIN, front_proxy_ca, generate

        front_proxy = self._front_proxy(request_header) if request_header else None
        ca_pem = None
        if client_ca_file:  # read before anything is written: a bad file stops the start (ValueError/OSError)
            with open(client_ca_file, "rb") as fh:
                ca_pem = fh.read()
            authenticator = ClientCertAuthenticator.from_pem(ca_pem, client_ca_file)
        admin = ADMIN if any(m.path == "kind/kubeadm.yaml" for m in self.flavor.installer_manifests) else SUPER_ADMIN
        self.tls = generate(cert_dir=cert_dir, admin=admin, client_ca_file=client_ca_file)
        if front_proxy is None and self.flavor.front_proxy:  # kubeadm's --requestheader-* flags
            front_proxy = self._front_proxy(kubeadm_request_header(front_proxy_ca(self.tls)))
        if ca_pem is None:
            ca_pem = self.tls.ca_pem
            authenticator = ClientCertAuthenticator.from_pem(ca_pem)
        self.ctx.client_certs = authenticator
        self.ctx.client_ca_pem = ca_pem.decode()
        self.ctx.request_header = front_proxy
        if front_proxy is not None:
            self.tls.requestheader_client_ca_file = front_proxy.config.client_ca_file
        if self.ctx.authenticator is not None:
            self.ctx.authenticator.client_certs = authenticator
            self.ctx.authenticator.request_header = front_proxy

    def _named(self, config: LeaderElectionConfig) -> LeaderElectionConfig:
        """The controller-manager's identity on the flavour's host (kind: `kind-control-plane_<uuid>`)."""
        if not self.flavor.hostname:
            return config
        import dataclasses

        from .controller.leader import default_identity
        return dataclasses.replace(config, identity=default_identity(self.flavor.hostname))

    @staticmethod
    def _front_proxy(config: "RequestHeaderConfig") -> "RequestHeaderAuthenticator":
        """`--requestheader-*`: the front proxy's authenticator (ValueError/OSError for a bad CA file or header)."""
        from .auth.requestheader import RequestHeaderAuthenticator
        from .auth.x509 import ClientCertAuthenticator

        config = config.trimmed()
        with open(config.client_ca_file, "rb") as fh:
            pem = fh.read()
        return RequestHeaderAuthenticator(config, ClientCertAuthenticator.from_pem(pem, config.client_ca_file),
                                          pem.decode())

    def _authentication_info(self) -> "clusterauthtrust.AuthenticationInfo":
        """What the cluster-authentication-trust controller publishes: the client CA, the front proxy's settings."""
        from .controller import clusterauthtrust

        rh = self.ctx.request_header
        if rh is None:
            return clusterauthtrust.AuthenticationInfo(self.ctx.client_ca_pem)
        cfg = rh.config
        return clusterauthtrust.AuthenticationInfo(self.ctx.client_ca_pem, clusterauthtrust.RequestHeader(
            rh.ca_pem, cfg.username_headers, cfg.uid_headers, cfg.group_headers, cfg.extra_headers_prefix,
            cfg.allowed_names))

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
        self.ctx.health.shutting_down = False  # (a server stopped and started again)
        if self.leader_election is None:
            self._start_controllers()
        else:  # a lone server (or the first replica) leads at once; the others wait for the Lease
            from .http.webhookcalls import webhook_admission  # its Lease writes meet the webhooks too
            self.elector = LeaderElector(self.ctx.registry, self.leader_election,
                                         on_started=self._start_controllers, on_stopped=self._stop_controllers,
                                         hooks=webhook_admission(self.ctx.registry, self.ctx.authorizer))
            self.elector.start()
        app = build_app(self.ctx)
        self._runner = GuardedRunner(app, handler_cancellation=True, access_log=None, shutdown_timeout=1.0,
                                     read_header_timeout=self._read_header_timeout, idle_timeout=self._idle_timeout,
                                     http2=self.tls is not None)
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
        self.apf_controller = apf_config.ApfConfigController(self.ctx.registry)  # every apiserver's, not the leader's
        from .http.webhookcalls import webhook_admission  # kube-apiserver's loopback writes meet the webhooks
        hooks = webhook_admission(self.ctx.registry, self.ctx.authorizer)
        self.apf_controller.use_webhooks(hooks)
        self.apf_controller.start()
        steps = self.ctx.health.steps  # the post-start hooks' counterparts (health/checks.py)
        steps.done(*health_checks.DONE_WHEN_LISTENING, health_checks.APF_PRODUCER_HOOK)
        self._start_apiserver_controllers(hooks)
        self._install(hooks)
        # the `lease` endpoint reconciler's write at start: the `kubernetes` Service's EndpointSlice
        address = apiserver_endpoints.advertise_address(self.host)
        loopback = ControllerWrites(hooks, "", None, APISERVER_USER)
        self.system_objects = SystemObjects(self.ctx.registry, KUBERNETES_SERVICE, loopback, on_fatal=self._fatal)
        if loopback.active():  # the start-up writes build_context left to the loopback client (controller/bootstrap.py)
            self._bootstrap = asyncio.get_running_loop().create_task(self._admitted_start(loopback))
        self.system_objects.start()
        steps.done(health_checks.SYSTEM_NAMESPACES_HOOK, health_checks.BOOTSTRAP_CONTROLLER_HOOK,
                   health_checks.INFORMER_SYNC)
        if loopback.active():  # (a store that already holds webhook configurations or policy bindings)
            self._endpoints_sync = asyncio.get_running_loop().create_task(
                apiserver_endpoints.reconcile_admitted(self.ctx.registry, address, self.port, loopback))
        else:
            apiserver_endpoints.reconcile(self.ctx.registry, address, self.port)
        # The wire modules (protobuf descriptors, tables, OpenAPI) are imported on first use; import them now
        # in a worker thread, so no early request pays for it on the event loop (issue 13). A daemon thread, never
        # waited for: a stop does not wait for imports that, on a loaded machine, take seconds (they stay done for
        # the process's next server).
        _start_warm_up()

    async def _admitted_start(self, loopback: ControllerWrites) -> None:
        """The start-up writes through admission, then the PriorityClasses' post-start hook (which retries)."""
        await bootstrap.bootstrap_admitted(self.ctx.registry, KUBERNETES_SERVICE, loopback)
        if self.system_objects is not None:
            if await self.system_objects.bootstrap_priority_classes():
                self.ctx.health.steps.done(health_checks.PRIORITY_CLASSES_HOOK)
            else:  # never finishes: readyz/livez/healthz fail on it while the embedded server serves on
                self.ctx.health.steps.fail(health_checks.PRIORITY_CLASSES_HOOK, self.failure)

    def _fatal(self, message: str) -> None:
        """A post-start hook failed: kube-apiserver exits (`nsconform serve` does, with 255, as `klog.Fatalf`)."""
        self.failure = message
        self.failed.set()

    def initiate_shutdown(self) -> None:
        """`ShutdownInitiated`: `/readyz` fails from here (its `shutdown` check), the server still serving."""
        self.ctx.health.shutting_down = True

    async def stop(self) -> None:
        """End watches, stop the controller, close the listener; idempotent. The TLS files are removed even when
        a step fails or the stop is cancelled."""
        try:
            await self._stop_serving()
        finally:
            if self.tls is not None:
                self.tls.cleanup()

    async def _stop_serving(self) -> None:
        self.initiate_shutdown()
        self.ctx.registry.store.close_watchers()
        self.ctx.registry.custom.caches.stop()  # CRDs' watch caches (registry/crconversion/cache.py)
        if self._bootstrap is not None:
            task, self._bootstrap = self._bootstrap, None
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        if self.system_objects is not None:
            system, self.system_objects = self.system_objects, None
            await system.stop()
        if self._rbac_bootstrap is not None:
            task, self._rbac_bootstrap = self._rbac_bootstrap, None
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        if self._endpoints_sync is not None:
            sync, self._endpoints_sync = self._endpoints_sync, None
            sync.cancel()
            await asyncio.gather(sync, return_exceptions=True)
        if self.elector is not None:
            elector, self.elector = self.elector, None
            await elector.stop()
        if self.scheduler_elector is not None:
            elector, self.scheduler_elector = self.scheduler_elector, None
            await elector.stop()
        await self._stop_controllers()
        for c in self.apiserver_controllers:
            await c.stop()
        self.apiserver_controllers = []
        if self.apf_controller is not None:
            apf, self.apf_controller = self.apf_controller, None
            await apf.stop()
        if self._runner is not None:
            runner, self._runner = self._runner, None
            await runner.cleanup()
        self._close_store()

    def _start_apiserver_controllers(self, hooks: object) -> None:
        """kube-apiserver's post-start hooks' controllers (every replica's, its loopback client's writes): the CRD
        naming, establishing, API-approval, NonStructuralSchema and finalizer controllers
        (`start-apiextensions-controllers`), the identity Lease and its garbage collector, the
        legacy-token-tracking ConfigMap, the aggregator's local APIServices (autoregister) and their availability,
        the bootstrap RBAC policy's reconciliation and the cluster-authentication-trust ConfigMap (the client CA of
        a TLS server; a plain-HTTP one, bearer tokens only, leaves it unwritten: controller/clusterauthtrust.py)."""
        from .controller import clusterauthtrust
        from .controller.apiserver_identity import IdentityLeaseController
        from .controller.apiserver_leasegc import IdentityLeaseGC
        from .controller.legacytokentracking import LegacyTokenTrackingController
        steps = self.ctx.health.steps
        registration = autoregister.AutoRegister(self.ctx.registry, lambda: steps.done(health_checks.AUTOREGISTER))
        self.ctx.health.autoregister_missing = registration.missing
        from .controller.crd_apiapproval import APIApprovalController
        from .controller.crd_establishing import EstablishingController
        from .controller.crd_naming import NamingConditionController
        from .controller.crd_storage import CRDStorageController
        from .controller.servicecidr import IPAddressAllocations
        self.apiserver_controllers = [NamingConditionController(self.ctx.registry),  # start-apiextensions-controllers
                                      EstablishingController(self.ctx.registry),
                                      APIApprovalController(self.ctx.registry),
                                      NonStructuralSchemaController(self.ctx.registry),
                                      CRDFinalizer(self.ctx.registry, deviations=self.ctx.deviations),
                                      CRDStorageController(self.ctx.registry),  # crdHandler's storage teardown
                                      IdentityLeaseController(self.ctx.registry, hostname=self.flavor.hostname or None),
                                      IdentityLeaseGC(self.ctx.registry),
                                      LegacyTokenTrackingController(self.ctx.registry),
                                      clusterauthtrust.ClusterAuthenticationTrustController(
                                          self.ctx.registry, self._authentication_info()),
                                      APIServiceAvailability(self.ctx.registry), registration,
                                      IPAddressAllocations(self.ctx.registry)]
        for c in self.apiserver_controllers:
            c.use_webhooks(hooks, getattr(c, "_offload", None))
            c.start()
        # the `rbac/bootstrap-roles` hook: the bootstrap policy reconciled (a fresh store's was written whole by
        # build_context: nothing to do)
        loopback = ControllerWrites(hooks, "", None, APISERVER_USER)  # type: ignore[arg-type]
        remote = bool(getattr(self.ctx.registry.store, "remote", False))
        if steps.is_done(rbac_bootstrap.HOOK):
            pass  # (its first round's objects all stored by build_context)
        elif not loopback.active() and not remote and not rbac_bootstrap.ensure(self.ctx.registry, loopback):
            steps.done(rbac_bootstrap.HOOK)
        else:  # through the webhooks and policies, off the loop (etcd), or a round failed: every second for 30 s
            self._rbac_bootstrap = asyncio.get_running_loop().create_task(self._rbac_hook(loopback))
        try:  # once at start too (the controller's first sync is queued): the data is there when the server answers
            clusterauthtrust.sync(self.ctx.registry, self._authentication_info(),
                                  ControllerWrites(None, "", None, APISERVER_USER))
        except ValueError as exc:  # stored data that does not decode: upstream's sync logs it and retries
            log.warning("extension-apiserver-authentication: %s", exc)

    async def _rbac_hook(self, loopback: ControllerWrites) -> None:
        """`EnsureRBACPolicy`'s polling; its failure is fatal, as upstream's hook's (`klog.Fatalf`)."""
        error = await rbac_bootstrap.run_hook(self.ctx.registry, loopback)
        if error is None:
            self.ctx.health.steps.done(rbac_bootstrap.HOOK)
        else:
            self.ctx.health.steps.fail(rbac_bootstrap.HOOK, error)
            log.critical('PostStartHook "%s" failed: %s', rbac_bootstrap.HOOK, error)
            self._fatal(error)

    def _install(self, hooks: object) -> None:
        """What the flavour's installer writes once the server answers (kind: kubeadm's and kind's objects, on a
        fresh store) and the other components' Leases it shows (kube-scheduler's)."""
        fl = self.flavor
        if fl.installer_manifests and self._fresh:
            from .flavors import installer
            installer.install(self.ctx.registry, fl.installer_manifests, self.url, self.tls.ca_pem if self.tls else None)
        if fl.scheduler_lease and self.leader_election is not None:  # kube-scheduler elects on its own Lease
            import dataclasses

            from .admission.admitted import KUBE_SCHEDULER_USER
            from .controller.leader import default_identity

            async def nothing() -> None:
                return None
            config = dataclasses.replace(self.leader_election, name="kube-scheduler", identity=default_identity(fl.hostname))
            self.scheduler_elector = LeaderElector(self.ctx.registry, config, on_started=lambda: None,
                                                   on_stopped=nothing, hooks=hooks, user=KUBE_SCHEDULER_USER,
                                                   field_manager="kube-scheduler")
            self.scheduler_elector.start()

    def _start_controllers(self) -> None:
        """The namespace controller and the others (kube-controller-manager's share of the server)."""
        fl = self.flavor
        delay = self.controller_delay or (lambda: fl.draw(fl.deletion_delay))
        self.controller = NamespaceController(self.ctx.registry, delay=delay, deviations=self.ctx.deviations,
                                              ordered=fl.ordered_namespace_deletion)
        from .http.webhookcalls import webhook_admission
        hooks = webhook_admission(self.ctx.registry, self.ctx.authorizer)  # kube-controller-manager's writes meet the webhooks too
        self.controller.use_webhooks(hooks, self.controller._offload)
        self.controller.start()
        self.quota_controller = QuotaController(self.ctx.registry, deviations=self.ctx.deviations)
        self.quota_controller.use_webhooks(hooks)
        self.quota_controller.start()
        self.extension_controllers = [ClusterRoleAggregation(self.ctx.registry),
                                      GarbageCollector(self.ctx.registry, self.ctx.admission),
                                      EndpointsController(self.ctx.registry), EndpointSliceController(self.ctx.registry),
                                      EndpointSliceMirroringController(self.ctx.registry)]
        from .controller.volumeprotection import VolumeProtectionController
        from .controller.persistentvolume import PersistentVolumeController
        self.extension_controllers += [VolumeProtectionController(self.ctx.registry),
                                       PersistentVolumeController(self.ctx.registry, self.ctx.admission)]
        from .controller.csrsigning import CSRSigningController  # signs with the server's CA (tls.py)
        self.extension_controllers.append(CSRSigningController(
            self.ctx.registry, self.tls.ca_pem if self.tls else None, self.tls.ca_key_pem if self.tls else None))
        from .controller.csrapproving import CSRApprovingController  # kubelet client CSRs, SAR-checked
        from .controller.csrcleaner import CSRCleanerController  # old CSRs deleted hourly
        self.extension_controllers += [CSRApprovingController(self.ctx.registry, self.ctx.authorizer),
                                       CSRCleanerController(self.ctx.registry)]
        from .controller.policystatus import PolicyStatusController  # admissionregistration.k8s.io policies
        self.extension_controllers.append(PolicyStatusController(self.ctx.registry))
        from .controller.servicecidrs import ServiceCIDRsController  # finalizer, Ready, deletion of ServiceCIDRs
        self.extension_controllers.append(ServiceCIDRsController(self.ctx.registry, self.ctx.admission))
        ca = self.tls.ca_pem.decode() if self.tls and isinstance(self.tls.ca_pem, bytes) else None
        self.flavor_controllers = behaviours.controllers(fl, self.ctx.registry, ca)
        if fl.workload_controllers:  # their pods pass the server's admission chain, as a client's would
            self.flavor_controllers += workload_controllers(self.ctx.registry, self.ctx.admission)
        if fl.scheduler:  # kube-scheduler's share: with no node, every pod is Unschedulable
            self.flavor_controllers.append(NoNodesScheduler(self.ctx.registry, self.ctx.admission, fl.hostname))
        for c in self.extension_controllers + self.flavor_controllers:
            if c.service_account or c.client_user:  # an API client: `system:serviceaccount:kube-system:<name>`
                c.use_webhooks(hooks, getattr(c, "_offload", None))
            c.start()

    async def _stop_controllers(self) -> None:
        if self.controller is not None:
            await self.controller.stop()
            self.controller = None
        if self.quota_controller is not None:
            await self.quota_controller.stop()
            self.quota_controller = None
        for c in self.extension_controllers:
            await c.stop()
        self.extension_controllers = []
        for c in self.flavor_controllers:
            await c.stop()
        self.flavor_controllers = []

    def write_kubeconfig(self, path: str) -> None:
        """The admin's kubeconfig: a `--token`/`--token-file` given ⇒ that token (the identity asked for, as before);
        otherwise the admin client certificate when this server made one (kind's kubeconfig), else no credentials
        (an `--authorization rbac` server's generated token when it has no certificate of its own)."""
        tls = self.tls
        if not self._token_given and tls is not None and tls.admin_cert_pem:
            write_kubeconfig(path, self.url, None, tls.ca_pem, (tls.admin_cert_pem, tls.admin_key_pem))
        else:
            write_kubeconfig(path, self.url, self.token, tls.ca_pem if tls else None)
