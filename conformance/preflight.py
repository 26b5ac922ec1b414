"""Before a run against a cluster: may these credentials do what the suites do? Asked with
SelfSubjectAccessReview (what `kubectl auth can-i` sends), so a read-only or namespace-bound kubeconfig
gets one line naming what is missing instead of two hundred 403 failures."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Callable, Iterable

import requests

from .client.config import Connection
from .endpoints import Paths
from .fixtures.content import KINDS as CONTENT_KINDS

REVIEW_PATH = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"
_VERB_OF_METHOD = {"PUT": "update", "POST": "create"}
_REQUEST_VERBS = {"POST": "create", "GET": "get", "HEAD": "get", "PUT": "update", "PATCH": "patch", "DELETE": "delete"}
_NAMESPACE_SUBRESOURCES = ("status", "finalize")

PROBE_NEEDS = (
    # Authorization runs before the route is matched (filters: authn → authz → handler), so a probe that
    # expects 405/404 gets 403 unless the credentials hold the verb the request *resolves* to.
    *(("get", "namespaces", "finalize"), ("create", "namespaces", "finalize"), ("patch", "namespaces", "finalize"),
      ("delete", "namespaces", "finalize"), ("update", "namespaces", "finalize")),   # NS-FZE-007
    ("deletecollection", "namespaces", ""), ("create", "namespaces", "status"),
    ("delete", "namespaces", "status"), ("deletecollection", "configmaps", ""),       # NS-ERR-002, NS-CON-005
    ("patch", "configmaps", ""),                                                     # NS-CON-005
    ("get", "list", ""),                                                             # NS-ERR-007: /api/v1/list/x
)
"""Verbs only the routing probes send: (verb, resource, subresource)."""


@dataclass(frozen=True)
class Need:
    verb: str
    resource: str
    subresource: str = ""
    group: str = ""

    def __str__(self) -> str:
        res = f"{self.resource}.{self.group}" if self.group else self.resource
        return f"{self.verb} {res}{'/' + self.subresource if self.subresource else ''}"

    def attributes(self) -> "Attributes":
        return Attributes(self.verb, self.resource, self.subresource, group=self.group)


CLUSTER_OBJECT_NEEDS = [Need(v, "customresourcedefinitions", group="apiextensions.k8s.io")
                        for v in ("create", "get", "list", "watch", "delete")] + \
    [Need(v, "apiservices", group="apiregistration.k8s.io") for v in ("create", "get", "delete")]
"""The discovery-deletion suite's cluster-wide extras (CRDs, APIServices): asked before its first test
(`missing_for_client`); without them those tests skip, naming what is missing."""


def needs(profile: str) -> list[Need]:
    """README "Permissions on a real cluster", minus the scope suites' extras (those tests skip without);
    the content kinds are those the content factory creates, the finalize verb the profile's."""
    out = [Need(v, "namespaces") for v in ("create", "get", "list", "watch", "update", "patch", "delete")]
    out.append(Need(_VERB_OF_METHOD[Paths(profile).finalize_method], "namespaces", "finalize"))
    out += [Need(v, "namespaces", "status") for v in ("update", "patch")]
    out += [Need(v, kind) for kind in CONTENT_KINDS for v in ("create", "get", "list", "update", "delete")]
    out += [Need(*p) for p in PROBE_NEEDS if Need(*p) not in out]
    return out


@dataclass(frozen=True)
class Attributes:
    """What kube-apiserver's authorizer is asked about a request (RequestInfoFactory, core group only)."""
    verb: str
    resource: str
    subresource: str = ""
    namespace: str = ""
    name: str = ""
    group: str = ""

    def __str__(self) -> str:
        return f"{self.verb} {self.resource}{'/' + self.subresource if self.subresource else ''}"

    def review(self) -> dict[str, str]:
        return {"verb": self.verb, "resource": self.resource, "subresource": self.subresource,
                "namespace": self.namespace, "name": self.name, "group": self.group}


def request_attributes(method: str, path: str) -> Attributes:
    """Resolve `/api/v1/...` as `k8s.io/apiserver/pkg/endpoints/request.RequestInfoFactory` does: a namespace's
    `status`/`finalize` stay subresources of `namespaces`; a GET without a name is a list (watch with
    ?watch=true), a DELETE without a name a deletecollection; any first segment is a resource (`list` too)."""
    raw, _, query = path.partition("?")
    parts = [p for p in raw.strip("/").split("/") if p]
    if parts[:2] == ["api", "v1"]:
        parts = parts[2:]
    namespace = ""
    if parts and parts[0] == "namespaces" and len(parts) > 1:
        namespace = parts[1]
        if len(parts) > 2 and parts[2] not in _NAMESPACE_SUBRESOURCES:
            parts = parts[2:]
    verb = _REQUEST_VERBS.get(method.upper(), method.lower())
    resource = parts[0] if parts else ""
    name = parts[1] if len(parts) > 1 else ""
    sub = parts[2] if len(parts) > 2 else ""
    if not name and verb == "get":
        verb = "watch" if "watch=true" in query or "watch=1" in query else "list"
    if not name and verb == "delete":
        verb = "deletecollection"
    return Attributes(verb, resource, sub, namespace, name)


def allowed(post: Callable[[str, dict[str, Any]], Any], attrs: Attributes) -> bool | None:
    """Ask a SelfSubjectAccessReview through `post(path, body)`; None when the answer is not a review."""
    body = {"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview",
            "spec": {"resourceAttributes": attrs.review()}}
    try:
        resp = post(REVIEW_PATH, body)
        answer = (resp.json().get("status") or {}).get("allowed") if resp.status_code == 201 else None
    except (requests.RequestException, ValueError, AttributeError):
        return None
    return answer if isinstance(answer, bool) else None


def missing_permissions(conn: Connection, wanted: Iterable[Need], *, timeout: float = 15.0) -> list[Need] | None:
    """The needs the target answers "no" to; None when it cannot tell (no access reviews served, or any
    answer other than a review), so a target without authorization.k8s.io is never refused here."""
    wanted = list(wanted)

    def ask(need: Need) -> bool | None:
        return allowed(lambda path, body: conn.session.post(conn.base_url + path, json=body, timeout=timeout),
                       need.attributes())

    first = ask(wanted[0]) if wanted else None
    if first is None:
        return None
    with ThreadPoolExecutor(max_workers=8) as pool:
        answers = [first, *pool.map(ask, wanted[1:])]
    if any(a is None for a in answers):
        return None
    return [n for n, ok in zip(wanted, answers) if not ok]


def check(conn: Connection, profile: str) -> str | None:
    """One line saying what the credentials may not do, or None when they may do everything (or the
    target cannot tell)."""
    missing = missing_permissions(conn, needs(profile))
    if not missing:
        return None
    return (f"the credentials may not {', '.join(str(n) for n in missing)} (SelfSubjectAccessReview said no); "
            "the suites need them: see README, 'Permissions on a real cluster' (or pass --no-preflight)")


def missing_for_client(client: Any, wanted: Iterable[Need]) -> list[Need] | None:
    """`missing_permissions` through a suite's `KubeClient` (recorded like any request); None: cannot tell."""
    out: list[Need] = []
    for need in wanted:
        answer = allowed(client.post, need.attributes())
        if answer is None:
            return None
        if not answer:
            out.append(need)
    return out
