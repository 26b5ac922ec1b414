"""Read-only collection: namespaces, discovery (what failed and why), every remaining object, APIServices.

Only GETs. Every read that fails is recorded as `Unreadable` with the server's answer (403, 503, ...) so
the advice can say what could not be checked instead of guessing. Lists are paged (`limit`/`continue`).
"""
from __future__ import annotations

from typing import Any, Iterable

from .model import APIServiceProblem, RemainingObject, Unreadable

PAGE = 500
APISERVICES = "/apis/apiregistration.k8s.io/v1/apiservices"


def answer_text(resp: Any) -> str:
    """`403 Forbidden: <Status message>` or the first line of a non-Status body."""
    code = getattr(resp, "status_code", 0)
    reason = getattr(resp, "reason", "") or ""
    msg = ""
    try:
        body = resp.json()
        if isinstance(body, dict):
            msg = str(body.get("message") or "")
    except ValueError:
        msg = (getattr(resp, "text", "") or "").strip().splitlines()[0] if (getattr(resp, "text", "") or "").strip() \
            else ""
    return f"{code} {reason}".strip() + (f": {msg}" if msg else "")


def get_json(client: Any, path: str, params: dict[str, Any] | None = None) -> tuple[Any, str | None]:
    """(body, None) on 200, else (None, answer text)."""
    resp = client.get(path, params=params) if params else client.get(path)
    if resp.status_code != 200:
        return None, answer_text(resp)
    try:
        return resp.json(), None
    except ValueError:
        return None, f"{resp.status_code}: the body is not JSON"


def list_items(client: Any, path: str, params: dict[str, Any] | None = None) -> tuple[list[dict[str, Any]], str | None]:
    """Every item of a collection, page by page; (items so far, error) when a page fails."""
    items: list[dict[str, Any]] = []
    cont = ""
    for _ in range(10_000):
        query = dict(params or {}, limit=str(PAGE))
        if cont:
            query["continue"] = cont
        body, err = get_json(client, path, query)
        if err is not None:
            return items, err
        items += [i for i in body.get("items") or [] if isinstance(i, dict)]
        cont = (body.get("metadata") or {}).get("continue") or ""
        if not cont:
            break
    return items, None


def namespaced_resources(client: Any) -> tuple[list[tuple[str, str]], list[Unreadable]]:
    """(`<plural>.<group>` key, collection path template with `{ns}`) of every listable namespaced resource
    in each group's preferred version (`ServerPreferredNamespacedResources`), and the group versions whose
    discovery failed."""
    out: list[tuple[str, str]] = []
    failed: list[Unreadable] = []

    def add(doc: dict[str, Any], group: str, prefix: str) -> None:
        for r in doc.get("resources") or []:
            name = str(r.get("name") or "")
            if "/" in name or not r.get("namespaced") or "list" not in (r.get("verbs") or []):
                continue
            key = f"{name}.{group}" if group else name
            out.append((key, f"{prefix}/namespaces/{{ns}}/{name}"))

    core, err = get_json(client, "/api/v1")
    if err is not None:
        failed.append(Unreadable("v1", err))
    else:
        add(core, "", "/api/v1")
    groups, err = get_json(client, "/apis")
    if err is not None:
        failed.append(Unreadable("/apis", err))
        return out, failed
    for g in groups.get("groups") or []:
        gv = ((g.get("preferredVersion") or {}).get("groupVersion")
              or next((v.get("groupVersion") for v in g.get("versions") or []), None))
        if not gv:
            continue
        doc, err = get_json(client, f"/apis/{gv}")
        if err is not None:
            failed.append(Unreadable(gv, err))
            continue
        add(doc, str(g.get("name") or ""), f"/apis/{gv}")
    return out, failed


def remaining_objects(client: Any, ns: str, resources: Iterable[tuple[str, str]]
                      ) -> tuple[list[RemainingObject], list[Unreadable]]:
    found: list[RemainingObject] = []
    unreadable: list[Unreadable] = []
    for key, template in resources:
        path = template.format(ns=ns)
        items, err = list_items(client, path)
        if err is not None:
            unreadable.append(Unreadable(key, err))
        for it in items:
            meta = it.get("metadata") or {}
            found.append(RemainingObject(key, path, str(meta.get("name") or ""), list(meta.get("finalizers") or []),
                                         bool(meta.get("deletionTimestamp"))))
    return found, unreadable


def unavailable_apiservices(client: Any) -> tuple[list[APIServiceProblem], Unreadable | None]:
    items, err = list_items(client, APISERVICES)
    if err is not None:
        return [], Unreadable("apiservices.apiregistration.k8s.io", err)
    out: list[APIServiceProblem] = []
    for a in items:
        cond = next((c for c in (a.get("status") or {}).get("conditions") or [] if c.get("type") == "Available"),
                    None)
        if cond is not None and cond.get("status") == "True":
            continue
        spec = a.get("spec") or {}
        gv = f"{spec.get('group', '')}/{spec.get('version', '')}"
        out.append(APIServiceProblem(str((a.get("metadata") or {}).get("name") or ""), gv,
                                     str((cond or {}).get("reason") or "Unknown"),
                                     str((cond or {}).get("message") or "no Available condition yet")))
    return out, None
