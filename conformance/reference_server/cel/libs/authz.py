"""The `authorizer` variable and its library (`staging/src/k8s.io/apiserver/pkg/cel/library/authz.go`, with the
authz selectors of the same file): `authorizer.path(p).check(verb)`, `authorizer.group(g).resource(r)
.subresource(s).namespace(ns).name(n).check(verb)` (and `fieldSelector`/`labelSelector`),
`authorizer.serviceAccount(ns, name)`, `authorizer.requestResource` (`NewResourceAuthorizerVal`: the request's
group, resource, subresource, namespace and name), and the Decision's `allowed()`, `reason()`, `errored()`,
`error()`.

How it is bound: cel-rust calls Python functions by name with plain data, so each value is a tagged map (the
requester's userInfo and what the checks so far named) and `check` asks the authorizer the evaluating admission
plugin installs in `AUTHORIZE` for the duration of its evaluation (a ContextVar: cel-rust calls back on the same
thread, in the caller's context). Precomputing decisions before evaluation was the other way; it cannot follow
arguments computed at run time (`authorizer.group('').resource(object.kind)`), so the call is made when asked.
This module knows no authorizer: the caller adapts its own to `Authorize`. Without one installed, checks answer
as kube-apiserver's AlwaysAllow authorizer does (allowed, no reason)."""
from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from .values import LibraryError, type_name, wrap

AUTHORIZER, PATH_CHECK, GROUP_CHECK, RESOURCE_CHECK, DECISION = (
    f"kubernetes.authorization.{n}" for n in ("Authorizer", "PathCheck", "GroupCheck", "ResourceCheck", "Decision"))


@dataclass(frozen=True)
class Request:
    """What a check asks (`authorizer.AttributesRecord` as the library fills it): `user` is an AdmissionRequest's
    userInfo (username, uid, groups, extra); a resource check has APIVersion `*`."""

    user: dict[str, Any]
    verb: str
    resource_request: bool
    path: str = ""
    group: str = ""
    resource: str = ""
    subresource: str = ""
    namespace: str = ""
    name: str = ""
    field_selector: str = ""
    label_selector: str = ""


Authorize = Callable[[Request], "tuple[bool, str, str]"]  # (allowed, reason, evaluation error or "")
AUTHORIZE: ContextVar[Authorize | None] = ContextVar("nsconform_cel_authorize", default=None)


@contextmanager
def authorizing(authorize: Authorize | None) -> Iterator[None]:
    """Checks made while the block runs ask `authorize` (None: AlwaysAllow)."""
    token = AUTHORIZE.set(authorize)
    try:
        yield
    finally:
        AUTHORIZE.reset(token)


def authorizer_value(request: dict[str, Any]) -> dict[str, Any]:
    """The `authorizer` variable for an AdmissionRequest (the `request` variable's dict), carrying
    `requestResource` (cel-rust reads `authorizer.requestResource` as a field of it)."""
    user = request.get("userInfo") or {}
    resource = request.get("resource") or {}
    return wrap(AUTHORIZER, user=user, requestResource=wrap(
        RESOURCE_CHECK, user=user, group=resource.get("group") or "", resource=resource.get("resource") or "",
        subresource=request.get("subResource") or "", namespace=request.get("namespace") or "",
        name=request.get("name") or "", fieldSelector="", labelSelector=""))


def _as(value: Any, expected: str, function: str) -> dict[str, Any]:
    if type_name(value) != expected or not isinstance(value, dict):
        raise LibraryError(f"no such overload: {function}")
    return value


def _string(value: Any, function: str) -> str:
    if not isinstance(value, str):
        raise LibraryError(f"no such overload: {function}")
    return value


def path(authorizer: Any, p: Any) -> dict[str, Any]:
    return wrap(PATH_CHECK, user=_as(authorizer, AUTHORIZER, "path")["user"], path=_string(p, "path"))


def group(authorizer: Any, g: Any) -> dict[str, Any]:
    return wrap(GROUP_CHECK, user=_as(authorizer, AUTHORIZER, "group")["user"], group=_string(g, "group"))


def service_account(authorizer: Any, namespace: Any, name: Any) -> dict[str, Any]:
    """`serviceaccount.ServiceAccountInfo.UserInfo()`: the account's username and its two groups."""
    _as(authorizer, AUTHORIZER, "serviceAccount")
    ns, n = _string(namespace, "serviceAccount"), _string(name, "serviceAccount")
    return wrap(AUTHORIZER, user={"username": f"system:serviceaccount:{ns}:{n}",
                                  "groups": ["system:serviceaccounts", f"system:serviceaccounts:{ns}"]})


def resource(group_check: Any, r: Any) -> dict[str, Any]:
    g = _as(group_check, GROUP_CHECK, "resource")
    return wrap(RESOURCE_CHECK, user=g["user"], group=g["group"], resource=_string(r, "resource"), subresource="",
                namespace="", name="", fieldSelector="", labelSelector="")


def _setter(key: str) -> Callable[[Any, Any], dict[str, Any]]:
    def set_(check: Any, value: Any) -> dict[str, Any]:
        return {**_as(check, RESOURCE_CHECK, key), key: _string(value, key)}
    return set_


def check(target: Any, verb: Any) -> dict[str, Any]:
    """Ask the installed authorizer; the Decision carries its answer."""
    verb = _string(verb, "check")
    kind = type_name(target)
    if kind == PATH_CHECK:
        asked = Request(target["user"], verb, False, path=target["path"])
    elif kind == RESOURCE_CHECK:
        asked = Request(target["user"], verb, True, group=target["group"], resource=target["resource"],
                        subresource=target["subresource"], namespace=target["namespace"], name=target["name"],
                        field_selector=target["fieldSelector"], label_selector=target["labelSelector"])
    else:
        raise LibraryError("no such overload: check")
    authorize = AUTHORIZE.get()
    allowed, reason, error = authorize(asked) if authorize is not None else (True, "", "")
    return wrap(DECISION, allowed=allowed, reason=reason, error=error)


def _decision(key: str, function: str) -> Callable[[Any], Any]:
    return lambda d: _as(d, DECISION, function)[key]


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "path": path, "group": group, "serviceAccount": service_account, "resource": resource,
    **{f: _setter(f) for f in ("subresource", "namespace", "name", "fieldSelector", "labelSelector")},
    "check": check, "allowed": _decision("allowed", "allowed"), "reason": _decision("reason", "reason"),
    "errored": lambda d: bool(_as(d, DECISION, "errored")["error"]), "error": _decision("error", "error"),
}
