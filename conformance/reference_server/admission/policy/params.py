"""A binding's params (`plugin/policy/generic/policy_dispatcher.go` `CollectParams`): none without a paramKind or
a paramRef (the policy is evaluated once, `params` null); else the object named by `paramRef.name` or those
`paramRef.selector` selects, in `paramRef.namespace` or the request's namespace for a namespaced kind; none found
with `parameterNotFoundAction: Deny` is a configuration error. Objects are read from the store (no informer: no
`not yet synced` case)."""
from __future__ import annotations

from typing import Any

from ... import apierrors as E
from ...registry.workloads import selector_matches


class ConfigError(Exception):
    """A binding that cannot be evaluated; the dispatcher words it `failed to configure binding: ...`."""


def _go_param_kind(kind: dict[str, Any]) -> str:
    return f"&ParamKind{{APIVersion:{kind.get('apiVersion', '')},Kind:{kind.get('kind', '')},}}"


def _store(registry: Any, kind: dict[str, Any]) -> Any:
    group, _, version = str(kind.get("apiVersion") or "").rpartition("/")
    for store in [*registry.namespaced(), *registry.cluster_stores()]:
        if store.info.kind == kind.get("kind") and (getattr(store, "group", "") or "") == group \
                and getattr(store, "version", "v1") == version:
            return store
    return None


def configuration_error(registry: Any, policy: dict[str, Any]) -> str:
    """The policy's own configuration error (`policy_source.go`): a paramKind no served resource has."""
    kind = (policy.get("spec") or {}).get("paramKind")
    if not isinstance(kind, dict) or _store(registry, kind) is not None:
        return ""
    group, _, version = str(kind.get("apiVersion") or "").rpartition("/")
    return f"failed to find resource referenced by paramKind: '{group}/{version}, Kind={kind.get('kind', '')}'"


def collect(registry: Any, policy: dict[str, Any], binding: dict[str, Any], namespace: str) -> list[Any]:
    kind = (policy.get("spec") or {}).get("paramKind")
    ref = (binding.get("spec") or {}).get("paramRef")
    if not isinstance(kind, dict) or not isinstance(ref, dict):
        return [None]
    store = _store(registry, kind)
    if store is None:
        raise ConfigError(f"paramKind kind `{_go_param_kind(kind)}` not known")
    namespaced = store.info.namespaced
    params_ns = ""
    if namespaced:
        params_ns = ref.get("namespace") or namespace
        if not params_ns:
            raise ConfigError("cannot use namespaced paramRef in policy binding that matches cluster-scoped "
                              "resources")
    elif ref.get("namespace"):
        raise ConfigError("paramRef.namespace must not be provided for a cluster-scoped `paramKind`")
    found: list[Any]
    if ref.get("name"):
        try:
            found = [store.get(params_ns, ref["name"], shared=True)]
        except E.StatusError as exc:
            if exc.status.get("code") != 404:
                raise ConfigError(exc.status.get("message", "")) from None
            found = []
    elif ref.get("selector") is not None:
        items = registry.store.list(store.info.plural, params_ns or None, shared=True)[0]
        selector = ref["selector"] or {}
        found = [dict(o, apiVersion=kind.get("apiVersion"), kind=kind.get("kind")) for o in items
                 if selector_matches(selector, ((o.get("metadata") or {}).get("labels") or {}))]
    else:
        raise ConfigError("one of name or selector must be provided")
    if not found and ref.get("parameterNotFoundAction") == "Deny":
        raise ConfigError("no params found for policy binding with `Deny` parameterNotFoundAction")
    return found
