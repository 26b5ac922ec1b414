"""Before a run against a cluster: may these credentials do what the suites do? Asked with
SelfSubjectAccessReview (what `kubectl auth can-i` sends), so a read-only or namespace-bound kubeconfig
gets one line naming what is missing instead of two hundred 403 failures."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Iterable

import requests

from .client.config import Connection
from .endpoints import Paths
from .fixtures.content import KINDS as CONTENT_KINDS

REVIEW_PATH = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"
_VERB_OF_METHOD = {"PUT": "update", "POST": "create"}


@dataclass(frozen=True)
class Need:
    verb: str
    resource: str
    subresource: str = ""
    group: str = ""

    def __str__(self) -> str:
        res = f"{self.resource}.{self.group}" if self.group else self.resource
        return f"{self.verb} {res}{'/' + self.subresource if self.subresource else ''}"

    def review(self) -> dict:
        attrs = {"verb": self.verb, "resource": self.resource, "subresource": self.subresource}
        if self.group:
            attrs["group"] = self.group
        return {"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview",
                "spec": {"resourceAttributes": attrs}}


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
    return out


def missing_permissions(conn: Connection, wanted: Iterable[Need], *, timeout: float = 15.0) -> list[Need] | None:
    """The needs the target answers "no" to; None when it cannot tell (no access reviews served, or any
    answer other than a review), so a target without authorization.k8s.io is never refused here."""
    wanted = list(wanted)

    def ask(need: Need) -> bool | None:
        try:
            resp = conn.session.post(conn.base_url + REVIEW_PATH, json=need.review(), timeout=timeout)
            allowed = (resp.json().get("status") or {}).get("allowed") if resp.status_code == 201 else None
        except (requests.RequestException, ValueError, AttributeError):
            return None
        return allowed if isinstance(allowed, bool) else None

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


def missing_for_client(client: "Any", wanted: Iterable[Need]) -> list[Need] | None:
    """`missing_permissions` through a suite's `KubeClient` (recorded like any request); None: cannot tell."""
    out: list[Need] = []
    for need in wanted:
        try:
            resp = client.post(REVIEW_PATH, need.review())
            allowed = (resp.json().get("status") or {}).get("allowed") if resp.status_code == 201 else None
        except (requests.RequestException, ValueError, AttributeError):
            return None
        if not isinstance(allowed, bool):
            return None
        if not allowed:
            out.append(need)
    return out
