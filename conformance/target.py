"""The target of a run (Contract 3): where it is, what kind, which profile, what it says it is.

Resolved once per run on the controller; a `Target` describes itself without credentials, so
`describe()` can go straight into reports.
"""

from __future__ import annotations

import secrets as _secrets
import time
from dataclasses import dataclass, field
from typing import Any, Iterable

import pytest
import requests

from .client import TargetError, TargetUnreachable
from .client.api import KubeClient, _mask_url, describe_connection_error
from .client.config import Connection, from_server, resolve

__all__ = ["Target", "TARGET_KEY", "probe", "resolve_target", "start_embedded_target", "from_worker_payload",
           "new_run_id", "PROFILES", "KINDS"]

PROFILES = ("kubernetes", "design")
KINDS = ("embedded", "kubeconfig", "server")


def new_run_id() -> str:
    """`YYYYmmdd-HHMMSS-<4 hex>` (UTC): sortable, and unique enough for concurrent runs."""
    return time.strftime("%Y%m%d-%H%M%S", time.gmtime()) + "-" + _secrets.token_hex(2)


@dataclass
class Target:
    """The server under test; `describe()` is what reports show (Contract 3)."""

    url: str
    kind: str                                  # embedded | kubeconfig | server
    profile: str
    context: str | None = None
    version: dict[str, Any] = field(default_factory=dict)
    discovery: dict[str, Any] | None = None    # GET /api/v1 (APIResourceList), None if not served
    deviations: tuple[str, ...] = ()
    connection: Connection | None = field(default=None, repr=False, compare=False)
    server: Any = field(default=None, repr=False, compare=False)   # RunningServer when embedded

    def describe(self) -> dict[str, Any]:
        """Contract 3: what reports say about the target. Never credentials."""
        out: dict[str, Any] = {"url": _mask_url(self.url), "kind": self.kind, "context": self.context,
                               "profile": self.profile, "version": dict(self.version)}
        if self.kind == "embedded":
            out["deviations"] = list(self.deviations)
        return out

    @property
    def git_version(self) -> str:
        return str(self.version.get("gitVersion") or "unknown")

    def client(self, timeout: float = 30.0) -> KubeClient:
        if self.connection is None:
            raise TargetError("target has no connection")
        return KubeClient.from_connection(self.connection, profile=self.profile, timeout=timeout)

    def namespaced_resources(self) -> list[str]:
        """Listable namespaced resource names from discovery (for content sweeps)."""
        out = []
        for r in (self.discovery or {}).get("resources", []) or []:
            if isinstance(r, dict) and r.get("namespaced") and "/" not in str(r.get("name", "")) \
                    and "list" in (r.get("verbs") or []):
                out.append(str(r["name"]))
        return out

    def worker_payload(self, token: str | None = None, ca_file: str | None = None) -> dict[str, Any]:
        """What an xdist worker needs to talk to the same target without re-probing it."""
        return {"url": self.url, "kind": self.kind, "profile": self.profile, "context": self.context,
                "version": self.version, "discovery": self.discovery, "deviations": list(self.deviations),
                "token": token, "ca_file": ca_file}

    def stop(self) -> None:
        if self.connection is not None:
            self.connection.close()
        if self.server is not None:
            self.server.stop()
            self.server = None


def probe(conn: Connection, timeout: float = 15.0) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """GET /version and /api/v1; raises TargetError with one line when the target is unusable."""
    url = conn.base_url
    try:
        resp = conn.session.get(url + "/version", timeout=timeout)
    except requests.RequestException as exc:
        raise TargetUnreachable(describe_connection_error(url, exc)) from None
    if resp.status_code == 401:
        raise TargetError(f"{_mask_url(url)} rejected the credentials (401 Unauthorized)")
    if resp.status_code == 403:
        raise TargetError(f"{_mask_url(url)} refused GET /version (403 Forbidden): the credentials lack permission")
    try:
        version = resp.json()
    except ValueError:
        version = None
    if resp.status_code != 200 or not isinstance(version, dict):
        raise TargetError(f"GET {_mask_url(url)}/version answered {resp.status_code} without a version document: "
                          "is this a Kubernetes API server?")
    discovery = None
    try:
        d = conn.session.get(url + "/api/v1", timeout=timeout)
        if d.status_code == 200:
            discovery = d.json()
    except (requests.RequestException, ValueError):
        discovery = None
    return version, discovery if isinstance(discovery, dict) else None


def _check_profile(profile: str) -> None:
    if profile not in PROFILES:
        raise TargetError(f"unknown profile {profile!r} (expected one of {', '.join(PROFILES)})")


def start_embedded_target(profile: str, deviations: Iterable[str] = (),
                          authorization: str = "always-allow", flavor: str | None = None,
                          feature_gates: Iterable[str] = (), storage: Any = None, process: bool = False) -> Target:
    """Start the bundled reference server (Contract 1) and wrap it as a Target.

    `process`: run it in a child process (reference_server/child.py: client and server then use two cores
    instead of sharing one GIL) unless a storage backend object is given; `Target.server` is then a
    `ChildServer` (url, token, ca_file, flavor, stop), not the in-process `RunningServer`."""
    _check_profile(profile)
    in_child = process and storage is None  # then the server's modules are imported by the child only
    try:
        if in_child:
            from .reference_server.child import start_child
        else:
            from .reference_server.embedded import start_embedded
    except ImportError as exc:
        raise TargetError(f"the embedded reference server is not available ({exc}); pass --kubeconfig or --server") from None
    devs = tuple(deviations)
    try:
        if in_child:
            try:
                server = start_child(profile=profile, deviations=devs, authorization=authorization, flavor=flavor,
                                     feature_gates=tuple(feature_gates))
            except ImportError as exc:  # what the child could not import
                raise TargetError(f"the embedded reference server is not available ({exc}); "
                                  "pass --kubeconfig or --server") from None
        else:
            server = start_embedded(profile=profile, deviations=devs, authorization=authorization,
                                    feature_gates=tuple(feature_gates), **({"flavor": flavor} if flavor else {}),
                                    **({"storage": storage} if storage is not None else {}))
    except ValueError as exc:
        raise TargetError(f"embedded server: {exc}") from None
    except OSError as exc:
        raise TargetError(f"embedded server failed to start: {exc}") from None
    try:
        conn = from_server(server.url, token=getattr(server, "token", None), ca_file=getattr(server, "ca_file", None),
                           kind="embedded")
        version, discovery = probe(conn)
    except BaseException:
        server.stop()
        raise
    return Target(url=server.url, kind="embedded", profile=profile, version=version, discovery=discovery,
                  deviations=devs, connection=conn, server=server)


def resolve_target(*, kubeconfig: str | None = None, context: str | None = None, server: str | None = None,
                   token: str | None = None, insecure: bool = False, in_cluster: bool = False,
                   profile: str = "kubernetes", deviations: Iterable[str] = (), embedded: bool = True,
                   authorization: str = "always-allow", preflight: bool = True, ca_file: str | None = None,
                   flavor: str | None = None, feature_gates: Iterable[str] = (), storage: Any = None,
                   process: bool = False) -> Target:
    """Resolve and probe the target the options name; with none, start the embedded server (in a child
    process when `process`, see start_embedded_target).

    `preflight`: refuse a cluster whose access reviews say the credentials lack what the suites need."""
    _check_profile(profile)
    conn = resolve(kubeconfig=kubeconfig, context=context, server=server, token=token, insecure=insecure,
                   in_cluster=in_cluster, ca_file=ca_file)
    devs = tuple(deviations)
    if conn is None:
        if not embedded:
            raise TargetError("no target given: pass --kubeconfig/--context or --server")
        return start_embedded_target(profile, devs, authorization, flavor, feature_gates, storage, process)
    if flavor:
        conn.close()
        raise TargetError("--nsconform-flavor only applies to the embedded reference server")
    if devs:
        conn.close()
        raise TargetError("--nsconform-deviate only applies to the embedded reference server")
    version, discovery = probe(conn)
    if preflight:
        from .preflight import check

        problem = check(conn, profile)
        if problem:
            conn.close()
            raise TargetError(problem)
    kind = "kubeconfig" if conn.kind == "kubeconfig" else "server"
    return Target(url=conn.base_url, kind=kind, profile=profile, context=conn.context, version=version,
                  discovery=discovery, connection=conn)


def from_worker_payload(payload: dict[str, Any], **options: Any) -> Target:
    """Rebuild the controller's target in an xdist worker (no probing, no server start)."""
    kind = payload["kind"]
    if kind == "embedded":
        conn = from_server(payload["url"], token=payload.get("token"), ca_file=payload.get("ca_file"), kind="embedded")
    else:
        conn = resolve(kubeconfig=options.get("kubeconfig"), context=options.get("context"),
                       server=options.get("server"), token=options.get("token"),
                       insecure=bool(options.get("insecure")), in_cluster=bool(options.get("in_cluster")),
                       ca_file=options.get("ca_file"))
        if conn is None:  # pragma: no cover - controller and worker share options
            raise TargetError("worker could not rebuild the target connection")
    return Target(url=payload["url"], kind=kind, profile=payload["profile"], context=payload.get("context"),
                  version=payload.get("version") or {}, discovery=payload.get("discovery"),
                  deviations=tuple(payload.get("deviations") or ()), connection=conn)


TARGET_KEY: "pytest.StashKey[Target]" = pytest.StashKey()
"""`config.stash[TARGET_KEY]`: the resolved Target (absent until resolved, e.g. in collect-only runs)."""
