"""RBAC authorization, request attributes and the 403 text, as kube-apiserver computes them.

Upstream sources reproduced here:
- `staging/src/k8s.io/apiserver/pkg/endpoints/request/requestinfo.go` (`NewRequestInfo`: verb from
  method + path, `?watch`, `fieldSelector=metadata.name=` ⇒ name, `deletecollection`, namespace
  subresources `status`/`finalize`);
- `plugin/pkg/auth/authorizer/rbac/rbac.go` (`RuleAllows`, the `RBAC: allowed by ...` reason, the
  `RBAC: <aggregate of resolution errors>` denial reason; `RulesFor`: rules split into resource and
  non-resource parts, never incomplete, resolution errors aggregated);
- `pkg/apis/rbac/v1/evaluation_helpers.go` (`VerbMatches`, `APIGroupMatches`, `ResourceMatches` incl.
  `*/subresource`, `ResourceNameMatches`, `NonResourceURLMatches` incl. trailing `*`);
- `pkg/registry/rbac/validation/rule.go` (`VisitRulesFor`: ClusterRoleBindings first, then the
  namespace's RoleBindings; `appliesTo`; `describeSubject`; `unsupported role reference kind: %q`);
- `staging/src/k8s.io/apiserver/pkg/endpoints/handlers/responsewriters/errors.go` (`forbiddenMessage`,
  `Forbidden`: `NewForbidden(group/resource, name, msg[: reason])`, HTML sanitizer);
- `plugin/pkg/auth/authorizer/rbac/bootstrappolicy/` (`BOOTSTRAP_POLICY`: its cluster-scoped roles and bindings,
  read from auth/policy/ by auth/bootstrap_policy.py, so `kubectl auth can-i --list` prints what a cluster prints);
- `pkg/kubeapiserver/authorizer/reload.go` (`newForConfig`: the privileged-group authorizer authorizes
  but is no rule resolver).

ClusterRole aggregation is kube-controller-manager's (controller/clusterrole_aggregation.py): the
authorizer reads `rules` only, as upstream's does, and they are filled in by that controller.

Skipped (documented in docs/scope.md): the Node authorizer, field/label-selector authorization. The escalation checks on writing
roles/bindings (`escalate`/`bind`) live in `auth/escalation.py`.
"""
from __future__ import annotations

import re
from functools import partial
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator, Mapping, Protocol, Sequence, runtime_checkable
from urllib.parse import parse_qs

from .. import apierrors as E
from ..goport.gofmt import go_quote
from .bootstrap_policy import cluster_policy

GROUP = "rbac.authorization.k8s.io"
SYSTEM_MASTERS = "system:masters"
ALL_AUTHENTICATED = "system:authenticated"
ALL_UNAUTHENTICATED = "system:unauthenticated"
ANONYMOUS = "system:anonymous"
SA_PREFIX = "system:serviceaccount:"


@dataclass(frozen=True)
class UserInfo:
    """`user.DefaultInfo`: who is asking (after authentication and impersonation)."""

    name: str
    uid: str = ""
    groups: tuple[str, ...] = ()
    extra: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class Attributes:
    """`authorizer.AttributesRecord`: what is being asked for."""

    user: UserInfo | None
    verb: str
    api_group: str = ""
    resource: str = ""
    subresource: str = ""
    namespace: str = ""
    name: str = ""
    resource_request: bool = True
    path: str = ""
    api_version: str = ""


class RbacSource(Protocol):
    """Where the authorizer reads policy: `list(kind, namespace)` returns the objects (JSON dicts) of
    kind `Role`/`RoleBinding` (namespaced; `namespace` given) or `ClusterRole`/`ClusterRoleBinding`
    (`namespace` is `""`). The server's registry implements it over its store."""

    def list(self, kind: str, namespace: str = "") -> Sequence[dict[str, Any]]: ...


class Authorizer(Protocol):
    def authorize(self, attrs: Attributes) -> tuple[bool, str]: ...


# ---------------------------------------------------------------------------------------------------------
# request attributes (requestinfo.go)
# ---------------------------------------------------------------------------------------------------------

API_PREFIXES = frozenset({"api", "apis"})
GROUPLESS_API_PREFIXES = frozenset({"api"})
SPECIAL_VERBS = frozenset({"proxy", "watch"})
NAMESPACE_SUBRESOURCES = frozenset({"status", "finalize"})
_METHOD_VERBS = {"POST": "create", "GET": "get", "HEAD": "get", "PUT": "update", "PATCH": "patch",
                 "DELETE": "delete"}


class RequestInfoError(ValueError):
    """`NewRequestInfo` failed (only `/api/v1/watch` or `/api/v1/proxy` with nothing after it)."""


def _query_dict(query: Any) -> dict[str, list[str]]:
    if query is None:
        return {}
    if isinstance(query, str):
        return parse_qs(query.lstrip("?"), keep_blank_values=True)
    if hasattr(query, "getall") and hasattr(query, "keys"):  # multidict
        return {k: list(query.getall(k)) for k in set(query.keys())}
    out: dict[str, list[str]] = {}
    for k, v in dict(query).items():
        out[k] = [str(x) for x in v] if isinstance(v, (list, tuple)) else [str(v)]
    return out


def _go_int(v: str) -> bool:
    return re.fullmatch(r"[+-]?[0-9]+", v) is not None and -2 ** 63 <= int(v) < 2 ** 63


def _split_selector(sel: str) -> list[str] | None:
    """Split a field selector on unescaped commas (`fields.ParseSelector`)."""
    parts, cur, esc = [], "", False
    for ch in sel:
        if esc:
            cur += "\\" + ch
            esc = False
        elif ch == "\\":
            esc = True
        elif ch == ",":
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    if esc:
        return None
    parts.append(cur)
    return parts


def _unescape(v: str) -> str | None:
    out, esc = "", False
    for ch in v:
        if esc:
            if ch not in "\\,=":
                return None
            out += ch
            esc = False
        elif ch == "\\":
            esc = True
        elif ch in ",=":
            return None
        else:
            out += ch
    return None if esc else out


def _split_term(term: str) -> tuple[str, str, str] | None:
    """`splitTerm`: the first position where `!=`, `==` or `=` starts."""
    for i in range(len(term)):
        for op in ("!=", "==", "="):
            if term.startswith(op, i):
                return term[:i], op, term[i + len(op):]
    return None


def field_selector_name(sel: str) -> tuple[bool, str | None]:
    """(parsed ok, value of an exact `metadata.name` requirement) of a field selector string."""
    if sel.strip() == "":
        return True, None
    parts = _split_selector(sel)
    if parts is None:
        return False, None
    name: str | None = None
    for term in parts:
        if term == "":
            continue
        split = _split_term(term)
        if split is None:
            return False, None
        fld, op, raw = split
        value = _unescape(raw)
        if value is None:
            return False, None
        if fld == "metadata.name" and op in ("=", "==") and name is None:
            name = value
    return True, name


def _valid_path_segment(name: str) -> bool:
    """`path.IsValidPathSegmentName`."""
    return name not in (".", "..") and "/" not in name and "%" not in name


def request_attributes(method: str, path: str, query: Any = None, user: UserInfo | None = None, *,
                       design_list: bool = False) -> Attributes:
    """`RequestInfoFactory.NewRequestInfo` + `GetAuthorizerAttributes` for one HTTP request.

    `design_list=True` (the `design` profile only) reads `/api/v1/list/{resource}` as the cross-namespace
    list it serves there, i.e. like `/api/v1/{resource}`; upstream has no such path.
    """
    verb = method.lower()
    parts = [p for p in path.strip("/").split("/")] if path.strip("/") else []
    if design_list and len(parts) >= 4 and parts[:3] == ["api", "v1", "list"]:
        parts = ["api", "v1"] + parts[3:]
    non_resource = Attributes(user=user, verb=verb, resource_request=False, path=path)
    if len(parts) < 3 or parts[0] not in API_PREFIXES:
        return non_resource
    prefix, parts = parts[0], parts[1:]
    group = ""
    if prefix not in GROUPLESS_API_PREFIXES:
        if len(parts) < 3:
            return non_resource
        group, parts = parts[0], parts[1:]
    version, parts = parts[0], parts[1:]
    if parts[0] in SPECIAL_VERBS:
        if len(parts) < 2:
            # upstream's NewRequestInfo error; WithRequestInfo answers it with a plain-text 500
            raise RequestInfoError(f"unable to determine kind and namespace from url, {path}")
        verb, parts = parts[0], parts[1:]
    else:
        verb = _METHOD_VERBS.get(method.upper(), "")
    namespace = ""
    if parts[0] == "namespaces":
        if len(parts) > 1:
            namespace = parts[1]
            if len(parts) > 2 and parts[2] not in NAMESPACE_SUBRESOURCES:
                parts = parts[2:]
    resource = subresource = name = ""
    if len(parts) >= 3 and verb != "proxy":
        subresource = parts[2]
    if len(parts) >= 2:
        name = parts[1]
    if len(parts) >= 1:
        resource = parts[0]
    if not name and verb == "get":
        q = _query_dict(query)
        decoded = True
        for key in ("limit", "timeoutSeconds"):
            if q.get(key) and not _go_int(q[key][0]):  # (`limit=` too: ParseInt("") fails)
                decoded = False
        sel_name = None
        if q.get("fieldSelector"):
            ok, sel_name = field_selector_name(q["fieldSelector"][0])
            decoded = decoded and ok
        watch = bool(q.get("watch")) and q["watch"][0].lower() not in ("false", "0")
        verb = "watch" if watch else "list"
        if decoded and sel_name is not None and _valid_path_segment(sel_name):
            name = sel_name
    if not name and verb == "delete":
        verb = "deletecollection"
    return Attributes(user=user, verb=verb, api_group=group, resource=resource, subresource=subresource,
                      namespace=namespace, name=name, resource_request=True, path=path, api_version=version)


# ---------------------------------------------------------------------------------------------------------
# the 403
# ---------------------------------------------------------------------------------------------------------

_SANITIZE = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})


def forbidden_message(attrs: Attributes) -> str:
    """`forbiddenMessage` (responsewriters/errors.go)."""
    username = attrs.user.name if attrs.user else ""
    if not attrs.resource_request:
        return f"User {go_quote(username)} cannot {attrs.verb} path {go_quote(attrs.path)}"
    resource = attrs.resource + (f"/{attrs.subresource}" if attrs.subresource else "")
    if attrs.namespace:
        return (f"User {go_quote(username)} cannot {attrs.verb} resource {go_quote(resource)} in API group "
                f"{go_quote(attrs.api_group)} in the namespace {go_quote(attrs.namespace)}")
    return (f"User {go_quote(username)} cannot {attrs.verb} resource {go_quote(resource)} in API group "
            f"{go_quote(attrs.api_group)} at the cluster scope")


def forbidden_error(attrs: Attributes, reason: str = "") -> E.StatusError:
    """`responsewriters.Forbidden`: `NewForbidden(group/resource, name, msg[: reason])`."""
    msg = forbidden_message(attrs).translate(_SANITIZE)
    if reason:
        msg = f"{msg}: {reason}"
    if not attrs.resource_request:
        return E.forbidden("", "", msg)
    return E.forbidden(attrs.resource, attrs.name, msg, attrs.api_group)


# ---------------------------------------------------------------------------------------------------------
# rule matching and resolution
# ---------------------------------------------------------------------------------------------------------

def _verb_matches(rule: Mapping[str, Any], verb: str) -> bool:
    return any(v == "*" or v == verb for v in rule.get("verbs") or [])


def _group_matches(rule: Mapping[str, Any], group: str) -> bool:
    return any(g == "*" or g == group for g in rule.get("apiGroups") or [])


def _resource_matches(rule: Mapping[str, Any], combined: str, subresource: str) -> bool:
    for r in rule.get("resources") or []:
        if r == "*" or r == combined:
            return True
        if subresource and len(r) == len(subresource) + 2 and r.startswith("*/") and r.endswith(subresource):
            return True
    return False


def _name_matches(rule: Mapping[str, Any], name: str) -> bool:
    names = rule.get("resourceNames") or []
    return not names or name in names


def _url_matches(rule: Mapping[str, Any], url: str) -> bool:
    for u in rule.get("nonResourceURLs") or []:
        if u == "*" or u == url:
            return True
        if u.endswith("*") and url.startswith(u.rstrip("*")):
            return True
    return False


def rule_allows(attrs: Attributes, rule: Mapping[str, Any]) -> bool:
    """`RuleAllows`."""
    if attrs.resource_request:
        combined = attrs.resource + (f"/{attrs.subresource}" if attrs.subresource else "")
        return (_verb_matches(rule, attrs.verb) and _group_matches(rule, attrs.api_group)
                and _resource_matches(rule, combined, attrs.subresource) and _name_matches(rule, attrs.name))
    return _verb_matches(rule, attrs.verb) and _url_matches(rule, attrs.path)


def make_sa_username(namespace: str, name: str) -> str:
    return f"{SA_PREFIX}{namespace}:{name}"


def _applies_to_user(user: UserInfo, subject: Mapping[str, Any], namespace: str) -> bool:
    kind, name = subject.get("kind"), subject.get("name", "")
    if kind == "User":
        return user.name == name
    if kind == "Group":
        return name in user.groups
    if kind == "ServiceAccount":
        sa_ns = subject.get("namespace") or namespace
        return bool(sa_ns) and user.name == make_sa_username(sa_ns, name)
    return False


def _describe_subject(subject: Mapping[str, Any], binding_ns: str) -> str:
    kind, name = subject.get("kind", ""), subject.get("name", "")
    if kind == "ServiceAccount":
        return f"{kind} {go_quote(name + '/' + (subject.get('namespace') or binding_ns))}"
    return f"{kind} {go_quote(name)}"


def _aggregate(msgs: list[str]) -> str:
    seen: list[str] = []
    for m in msgs:
        if m not in seen:
            seen.append(m)
    return seen[0] if len(seen) == 1 else "[" + ", ".join(seen) + "]"


@dataclass(frozen=True)
class RuleSet:
    """What an authorizer's `RulesFor` returns (`authorizer.RuleResolver`), already in the JSON shape of
    `authorization/v1` `ResourceRule` / `NonResourceRule`, for SelfSubjectRulesReview's status."""

    resource_rules: list[dict[str, Any]] = field(default_factory=list)
    non_resource_rules: list[dict[str, Any]] = field(default_factory=list)
    incomplete: bool = False
    evaluation_error: str = ""


@runtime_checkable
class RuleResolver(Protocol):
    """`authorizer.RuleResolver`: the rules `user` holds in `namespace` (cluster-wide ones included)."""

    def rules_for(self, user: UserInfo, namespace: str) -> RuleSet: ...


def _resource_rule(rule: Mapping[str, Any]) -> dict[str, Any]:
    """`DefaultResourceRuleInfo` → `v1.ResourceRule`: `verbs` has no omitempty (nil prints `null`), the rest do."""
    out: dict[str, Any] = {"verbs": rule.get("verbs")}
    for key in ("apiGroups", "resources", "resourceNames"):
        if rule.get(key):
            out[key] = list(rule[key])
    return out


def _non_resource_rule(rule: Mapping[str, Any]) -> dict[str, Any]:
    return {"verbs": rule.get("verbs"), "nonResourceURLs": list(rule["nonResourceURLs"])}


# (describer of the binding, rule, resolution error); the description is only built for an allow's reason,
# as upstream's `authorizingVisitor` asks its `sourceDescriber` only then: every request passes here.
Visit = tuple[Callable[[], str] | None, dict[str, Any] | None, str | None]


def _describe_binding(kind: str, binding: Mapping[str, Any], ref: Mapping[str, Any], subject: Mapping[str, Any],
                      namespace: str) -> str:
    """`clusterRoleBindingDescriber` / `roleBindingDescriber` (a RoleBinding is named `name/namespace`)."""
    meta = binding.get("metadata") or {}
    name = meta.get("name", "")
    if kind == "RoleBinding":
        name = f"{name}/{meta.get('namespace') or namespace}"
    return (f"{kind} {go_quote(name)} of {ref.get('kind', '')} {go_quote(ref.get('name', ''))} to "
            f"{_describe_subject(subject, namespace)}")


class RBACAuthorizer:
    """`RBACAuthorizer` over an `RbacSource`, preceded by the `system:masters` privileged-group authorizer
    kube-apiserver always installs in front of the configured modes.

    The privileged-group authorizer only authorizes: upstream (`pkg/kubeapiserver/authorizer/reload.go`
    `newForConfig`) appends it to the authorizers but not to the rule resolvers, so `rules_for` ignores
    `privileged_groups` and a system:masters user's rules come from the bootstrap `cluster-admin`
    ClusterRoleBinding, as on a real cluster."""

    def __init__(self, source: RbacSource, privileged_groups: Iterable[str] = (SYSTEM_MASTERS,)):
        self.source = source
        self.privileged_groups = frozenset(privileged_groups)

    def _find(self, kind: str, namespace: str, name: str) -> dict[str, Any] | None:
        for obj in self.source.list(kind, namespace):
            if (obj.get("metadata") or {}).get("name") == name:
                return obj
        return None

    def role_ref_rules(self, role_ref: Mapping[str, Any], binding_ns: str) -> tuple[list[dict], str | None]:
        """`GetRoleReferenceRules`: (rules, error text) — a missing role is a lister NotFound."""
        kind, name = role_ref.get("kind"), role_ref.get("name", "")
        if kind == "Role":
            role = self._find("Role", binding_ns, name)
            if role is None:
                return [], f"role.{GROUP} {go_quote(name)} not found"
            return list(role.get("rules") or []), None
        if kind == "ClusterRole":
            role = self._find("ClusterRole", "", name)
            if role is None:
                return [], f"clusterrole.{GROUP} {go_quote(name)} not found"
            return list(role.get("rules") or []), None
        return [], f"unsupported role reference kind: {go_quote(str(kind or ''))}"

    def visit_rules_for(self, user: UserInfo, namespace: str) -> Iterator[Visit]:
        """`DefaultRuleResolver.VisitRulesFor`: every ClusterRoleBinding applying to `user`, then (when
        `namespace` is given) the namespace's RoleBindings; per binding either each rule of its role with the
        binding's describer, or one resolution error. Shared by `authorize` and `rules_for` so the two
        cannot disagree about which bindings count."""
        scopes = [("ClusterRoleBinding", "")] + ([("RoleBinding", namespace)] if namespace else [])
        for kind, ns in scopes:
            for binding in self.source.list(kind, ns):
                subject = next((s for s in binding.get("subjects") or [] if _applies_to_user(user, s, ns)), None)
                if subject is None:
                    continue
                ref = binding.get("roleRef") or {}
                rules, err = self.role_ref_rules(ref, ns)
                if err:
                    yield None, None, err
                    continue
                describe = partial(_describe_binding, kind, binding, ref, subject, ns)
                for rule in rules:
                    yield describe, rule, None

    def authorize(self, attrs: Attributes) -> tuple[bool, str]:
        """(allowed, reason): the reason is `RBAC: allowed by ...` or, on denial, the resolution errors."""
        user = attrs.user
        if user is None:
            return False, ""
        if self.privileged_groups.intersection(user.groups):
            return True, ""
        errors: list[str] = []
        for describe, rule, err in self.visit_rules_for(user, attrs.namespace):
            if err is not None:
                errors.append(err)
            elif rule is not None and describe is not None and rule_allows(attrs, rule):
                return True, f"RBAC: allowed by {describe()}"
        return False, (f"RBAC: {_aggregate(errors)}" if errors else "")

    def rules_for(self, user: UserInfo, namespace: str) -> RuleSet:
        """`RBACAuthorizer.RulesFor`: each policy rule split into its resource part and its non-resource part;
        never incomplete (upstream returns `false` even with errors), resolution errors aggregated into the
        evaluation error while the resolvable bindings still contribute."""
        resource: list[dict[str, Any]] = []
        non_resource: list[dict[str, Any]] = []
        errors: list[str] = []
        for _, rule, err in self.visit_rules_for(user, namespace):
            if err is not None:
                errors.append(err)
            elif rule is not None:
                if rule.get("resources"):
                    resource.append(_resource_rule(rule))
                if rule.get("nonResourceURLs"):
                    non_resource.append(_non_resource_rule(rule))
        return RuleSet(resource, non_resource, False, _aggregate(errors) if errors else "")

    def check(self, attrs: Attributes) -> None:
        """Raise the upstream 403 unless `attrs` is allowed (what `WithAuthorization` does)."""
        allowed, reason = self.authorize(attrs)
        if not allowed:
            raise forbidden_error(attrs, reason)


class StaticRbacSource:
    """An `RbacSource` over in-memory lists (tests, and the bootstrap policy merged in front of the store)."""

    def __init__(self, objects: Iterable[dict[str, Any]] = ()):
        self.objects = list(objects)

    def list(self, kind: str, namespace: str = "") -> list[dict[str, Any]]:
        return [o for o in self.objects if o.get("kind") == kind
                and ((o.get("metadata") or {}).get("namespace") or "") == (namespace or "")]


class LayeredRbacSource:
    """Several sources read as one (e.g. the bootstrap policy, then the registry)."""

    def __init__(self, *sources: RbacSource):
        self.sources = sources

    def list(self, kind: str, namespace: str = "") -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for s in self.sources:
            out.extend(s.list(kind, namespace))
        return out


# bootstrappolicy's cluster-scoped objects (auth/bootstrap_policy.py, auth/policy/*.yaml): what an authorizer over a
# fresh server's store reads; the `rbac/bootstrap-roles` hook keeps them (controller/rbac_bootstrap.py).
BOOTSTRAP_POLICY: tuple[dict[str, Any], ...] = cluster_policy()
