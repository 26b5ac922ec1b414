"""Before a run against a cluster: may these credentials do what the suites do? Asked with
SelfSubjectAccessReview (what `kubectl auth can-i` sends), so a read-only or namespace-bound kubeconfig
gets one line naming what is missing instead of two hundred 403 failures."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Iterable

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

    def __str__(self) -> str:
        return f"{self.verb} {self.resource}{'/' + self.subresource if self.subresource else ''}"


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
        body = {"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview",
                "spec": {"resourceAttributes": {"verb": need.verb, "resource": need.resource,
                                                "subresource": need.subresource}}}
        try:
            resp = conn.session.post(conn.base_url + REVIEW_PATH, json=body, timeout=timeout)
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
