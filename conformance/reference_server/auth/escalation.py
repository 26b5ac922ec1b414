"""RBAC privilege-escalation prevention, as kube-apiserver's policy-based RBAC storage does it: a user may
create or update a Role/ClusterRole only with rules they already hold (or with `escalate` on it), and a
RoleBinding/ClusterRoleBinding only to a role whose rules they already hold (or with `bind` on it).
`system:masters` is exempt.

Upstream sources reproduced here:
- `pkg/registry/rbac/escalation_check.go` (`EscalationAllowed`, `RoleEscalationAuthorized`,
  `BindingAuthorized`, `IsOnlyMutatingGCFields`);
- `pkg/registry/rbac/{role,clusterrole,rolebinding,clusterrolebinding}/policybased/storage.go`;
- `pkg/registry/rbac/validation/rule.go` (`ConfirmNoEscalation` and its message);
- `pkg/registry/rbac/validation/policy_comparator.go` (`Covers`, `BreakdownRule`, `ruleCovers`);
- `pkg/apis/rbac/v1/helpers.go` (`CompactString`), `pkg/registry/rbac/validation/policy_compact.go`.

The requesting user reaches the registry through `CURRENT_USER`, set per request (one asyncio task) by
the authorization middleware, as upstream carries it in the request context.
"""
from __future__ import annotations

from contextvars import ContextVar
from typing import Any, Mapping, Sequence

from .. import apierrors as E
from ..goport.gofmt import go_quote, q_strings
from .rbac import GROUP, SYSTEM_MASTERS, Attributes, RBACAuthorizer, UserInfo

CURRENT_USER: ContextVar[UserInfo | None] = ContextVar("nsconform_current_user", default=None)

_RESOURCES = {"Role": "roles", "ClusterRole": "clusterroles", "RoleBinding": "rolebindings",
              "ClusterRoleBinding": "clusterrolebindings"}


def breakdown(rule: Mapping[str, Any]) -> list[dict[str, list[str]]]:
    """`BreakdownRule`: one rule per (group, resource, verb[, name]) and per (URL, verb)."""
    out: list[dict[str, list[str]]] = []
    verbs = list(rule.get("verbs") or [])
    names = list(rule.get("resourceNames") or [])
    for group in rule.get("apiGroups") or []:
        for resource in rule.get("resources") or []:
            for verb in verbs:
                if names:
                    out += [{"apiGroups": [group], "resources": [resource], "verbs": [verb], "resourceNames": [n]}
                            for n in names]
                else:
                    out.append({"apiGroups": [group], "resources": [resource], "verbs": [verb]})
    for url in rule.get("nonResourceURLs") or []:
        out += [{"nonResourceURLs": [url], "verbs": [verb]} for verb in verbs]
    return out


def _has_all(owner: Sequence[str], wanted: Sequence[str]) -> bool:
    return set(wanted) <= set(owner)


def _resource_covers_all(owner: Sequence[str], wanted: Sequence[str]) -> bool:
    if "*" in owner or _has_all(owner, wanted):
        return True
    for path in wanted:
        if path in owner:
            continue
        if "/" not in path:
            return False
        if "*/" + path.split("/", 1)[1] not in owner:
            return False
    return True


def _url_covers(owner: str, sub: str) -> bool:
    return owner == sub or owner.endswith("*") and sub.startswith(owner.rstrip("*"))


def rule_covers(owner: Mapping[str, Any], sub: Mapping[str, Any]) -> bool:
    """`ruleCovers`."""
    o_verbs, o_groups = owner.get("verbs") or [], owner.get("apiGroups") or []
    o_names = owner.get("resourceNames") or []
    verbs = "*" in o_verbs or _has_all(o_verbs, sub.get("verbs") or [])
    groups = "*" in o_groups or _has_all(o_groups, sub.get("apiGroups") or [])
    resources = _resource_covers_all(owner.get("resources") or [], sub.get("resources") or [])
    urls = all(any(_url_covers(o, p) for o in owner.get("nonResourceURLs") or [])
               for p in sub.get("nonResourceURLs") or [])
    names = not o_names if not sub.get("resourceNames") else (not o_names or _has_all(o_names, sub["resourceNames"]))
    return verbs and groups and resources and names and urls


def covers(owner_rules: Sequence[Mapping[str, Any]], rules: Sequence[Mapping[str, Any]]) -> list[dict]:
    """`Covers`: the broken-down rules no owner rule covers (empty: covered)."""
    return [sub for rule in rules for sub in breakdown(rule) if not any(rule_covers(o, sub) for o in owner_rules)]


def compact(rules: list[dict[str, list[str]]]) -> list[dict[str, list[str]]]:
    """`CompactRules`: simple rules (one group, one resource, at most one name) merge their verbs."""
    out: list[dict[str, list[str]]] = []
    simple: dict[tuple, dict[str, list[str]]] = {}
    for r in rules:
        groups, resources, names = r.get("apiGroups") or [], r.get("resources") or [], r.get("resourceNames") or []
        if len(groups) == 1 and len(resources) == 1 and len(names) <= 1 and not r.get("nonResourceURLs"):
            key = (groups[0], resources[0], bool(names), names[0] if names else "")
            if key in simple:
                simple[key]["verbs"] = simple[key].get("verbs", []) + list(r.get("verbs") or [])
            else:
                simple[key] = {k: list(v) for k, v in r.items()}
        else:
            out.append(r)
    return out + list(simple.values())


def compact_string(r: Mapping[str, Sequence[str]]) -> str:
    """`CompactString`."""
    parts = [f"{label}:{q_strings(r[key])}" for label, key in (
        ("APIGroups", "apiGroups"), ("Resources", "resources"), ("NonResourceURLs", "nonResourceURLs"),
        ("ResourceNames", "resourceNames"), ("Verbs", "verbs")) if r.get(key)]
    return "{" + ", ".join(parts) + "}"


class EscalationGuard:
    """The checks of the four policy-based RBAC storages, over the server's own authorizer."""

    def __init__(self, authorizer: RBACAuthorizer):
        self.authorizer = authorizer

    def _allowed(self, user: UserInfo, verb: str, resource: str, namespace: str, name: str, group: str) -> bool:
        ok, _ = self.authorizer.authorize(Attributes(user, verb, group, resource, "", namespace, name,
                                                     api_version="*"))
        return ok

    def _confirm_no_escalation(self, user: UserInfo, namespace: str, rules: Sequence[Mapping[str, Any]],
                               kind: str, name: str) -> None:
        """`ConfirmNoEscalation`, answered as the storages do: `NewForbidden(group resource, name, err)`."""
        owner: list[dict[str, Any]] = []
        errors: list[str] = []
        for _, rule, err in self.authorizer.visit_rules_for(user, namespace):
            if err is not None:
                errors.append(err)
            elif rule is not None:
                owner.append(rule)
        missing = covers(owner, rules)
        if not missing:
            return
        lines = sorted({compact_string(r) for r in compact(missing)})
        msg = (f"user {go_quote(user.name)} (groups={q_strings(user.groups)}) is attempting to grant RBAC permissions "
               "not currently held:\n" + "\n".join(lines))
        if errors:
            msg += f"; resolution errors: [{', '.join(errors)}]"
        raise E.forbidden(_RESOURCES[kind], name, msg, GROUP)

    def check(self, kind: str, obj: Mapping[str, Any], old: Mapping[str, Any] | None = None) -> None:
        """Raise the upstream 403 when the current user would escalate by writing `obj` (`old`: an update)."""
        user = CURRENT_USER.get()
        if user is None or SYSTEM_MASTERS in user.groups:  # no request user (server-internal) / EscalationAllowed
            return
        if old is not None and _only_gc_fields(obj, old):
            return
        meta = obj.get("metadata") or {}
        name, namespace = meta.get("name") or "", meta.get("namespace") or ""
        if kind in ("Role", "ClusterRole"):
            if self._allowed(user, "escalate", _RESOURCES[kind], namespace, name, GROUP):  # RoleEscalationAuthorized
                return
            if kind == "ClusterRole" and obj.get("aggregationRule") is not None and \
                    (old is None or old.get("aggregationRule") != obj.get("aggregationRule")):
                raise E.forbidden("clusterroles", name, "must have cluster-admin privileges to use the "
                                  "aggregationRule", GROUP)
            self._confirm_no_escalation(user, namespace, obj.get("rules") or [], kind, name)
            return
        ref = obj.get("roleRef") or {}
        ref_kind = ref.get("kind")
        if ref_kind in ("Role", "ClusterRole") and self._allowed(  # BindingAuthorized
                user, "bind", _RESOURCES[ref_kind], namespace, ref.get("name") or "", ref.get("apiGroup") or ""):
            return
        rules, err = self.authorizer.role_ref_rules(ref, namespace)
        if err:  # GetRoleReferenceRules: a missing role is the lister's NotFound
            if err.endswith("not found"):
                raise E.not_found("role" if ref_kind == "Role" else "clusterrole", ref.get("name") or "", GROUP)
            raise E.internal(err)
        self._confirm_no_escalation(user, namespace, rules, kind, name)


def _only_gc_fields(new: Mapping[str, Any], old: Mapping[str, Any]) -> bool:
    """`IsOnlyMutatingGCFields`: nothing but ownerReferences/finalizers changed."""
    def strip(o: Mapping[str, Any]) -> dict[str, Any]:
        meta = {k: v for k, v in (o.get("metadata") or {}).items()
                if k not in ("ownerReferences", "finalizers", "resourceVersion", "managedFields")}
        return {**{k: v for k, v in o.items() if k != "metadata"}, "metadata": meta}
    return strip(new) == strip(old)
