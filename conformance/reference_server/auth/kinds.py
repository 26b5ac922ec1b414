"""Role, RoleBinding, ClusterRole, ClusterRoleBinding (`rbac.authorization.k8s.io/v1`): declarations,
defaulting and validation essentials.

Declarations use the registry's `ResourceInfo`; the registry has no notion of an API group yet, so the
group and version are given alongside (`GROUP`, `VERSION`, `GROUP_VERSION`) and the integration note says
where they have to go (discovery under `/apis/rbac.authorization.k8s.io/v1`, routing, Status `details.group`).

Upstream sources: `pkg/apis/rbac/validation/validation.go` (messages), `pkg/apis/rbac/v1/defaults.go`
(`roleRef.apiGroup` and User/Group `subjects[].apiGroup` default to the RBAC group),
`staging/src/k8s.io/apimachinery/pkg/api/validation/path/name.go` (`IsValidPathSegmentName`: RBAC names
are path segments, not DNS names), `staging/src/k8s.io/apimachinery/pkg/util/validation/field/errors.go`
(a struct value prints as Go `%#v`, hence `rbac.RoleRef{APIGroup:"...", Kind:"...", Name:"..."}`).
"""
from __future__ import annotations

import copy
import re
from typing import Any

from ..apierrors import FieldError, field_invalid, field_not_supported, field_required
from ..goport.gofmt import sharp_v_strings
from ..registry.kinds import ResourceInfo
from ..registry.strategy import Strategy
from ..registry.validation import validate_object_meta, validate_object_meta_update

GROUP = "rbac.authorization.k8s.io"
VERSION = "v1"
GROUP_VERSION = f"{GROUP}/{VERSION}"
# the strategies' `ValidateUpdate` is `ValidateX` then `ValidateXUpdate`, itself `ValidateX` then
# `ValidateObjectMetaUpdate`, then a binding's `roleRef` check (pkg/registry/rbac/*/strategy.go,
# pkg/apis/rbac/validation): the rules or subjects are judged twice
_MMU = "MVMVUC"
RBAC_VERBS = ("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch")

ROLES = ResourceInfo("Role", "roles", "role", (), RBAC_VERBS, namespaced=True,
                     fields=frozenset({"rules"}), name_rule="path", update_validates_meta=True,
                     update_meta_calls=_MMU)
ROLE_BINDINGS = ResourceInfo("RoleBinding", "rolebindings", "rolebinding", (), RBAC_VERBS, namespaced=True,
                             fields=frozenset({"subjects", "roleRef"}), name_rule="path", update_validates_meta=True,
                             update_meta_calls=_MMU)
CLUSTER_ROLES = ResourceInfo("ClusterRole", "clusterroles", "clusterrole", (), RBAC_VERBS, namespaced=False,
                             fields=frozenset({"rules", "aggregationRule"}), name_rule="path",
                             selectable_fields=("metadata.name",), update_validates_meta=True, update_meta_calls=_MMU)
CLUSTER_ROLE_BINDINGS = ResourceInfo("ClusterRoleBinding", "clusterrolebindings", "clusterrolebinding", (),
                                     RBAC_VERBS, namespaced=False, fields=frozenset({"subjects", "roleRef"}),
                                     name_rule="path", selectable_fields=("metadata.name",), update_validates_meta=True,
                                     update_meta_calls=_MMU)
RBAC_KINDS: tuple[ResourceInfo, ...] = (CLUSTER_ROLE_BINDINGS, CLUSTER_ROLES, ROLE_BINDINGS, ROLES)

# The same, as plain data (for a registry/discovery that wants dicts).
RBAC_KIND_DECLARATIONS: tuple[dict[str, Any], ...] = tuple(
    {"group": GROUP, "version": VERSION, "kind": k.kind, "plural": k.plural, "singular": k.singular,
     "namespaced": k.namespaced, "verbs": list(k.verbs)} for k in RBAC_KINDS)

_DNS1123_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


def path_segment_errors(name: str) -> list[str]:
    """`path.IsValidPathSegmentName`."""
    for bad in (".", ".."):
        if name == bad:
            return [f"may not be '{bad}'"]
    return [f"may not contain '{c}'" for c in ("/", "%") if c in name]


def apply_defaults(obj: dict[str, Any], kind: str | None = None) -> dict[str, Any]:
    """`SetDefaults_RoleBinding`/`ClusterRoleBinding`/`Subject` (decode-time defaulting), on a copy."""
    obj = copy.deepcopy(obj)
    if (kind or obj.get("kind")) in ("RoleBinding", "ClusterRoleBinding"):
        ref = obj.get("roleRef")
        if isinstance(ref, dict) and not ref.get("apiGroup"):
            ref["apiGroup"] = GROUP
    for s in obj.get("subjects") or []:
        if isinstance(s, dict) and not s.get("apiGroup") and s.get("kind") in ("User", "Group"):
            s["apiGroup"] = GROUP
    return obj


def _meta_errors(obj: dict[str, Any], namespaced: bool, check_name: bool = True) -> list[FieldError]:
    """`ValidateObjectMeta` with `ValidateRBACName`: `IsValidPathSegmentName` of the generateName (its `prefix`
    ignored) and the name. On update (`check_name` false) the generateName is judged all the same: each
    `ValidateXUpdate` runs `ValidateX` on the new object; the name, immutable, needs no second look."""
    meta = obj.get("metadata") or {}
    errs = validate_object_meta(meta, namespaced=namespaced, name_rule="subdomain", check_name=False)
    name_errs: list[FieldError] = []
    if meta.get("generateName"):
        name_errs += [field_invalid("metadata.generateName", meta["generateName"], m)
                      for m in path_segment_errors(meta["generateName"])]
    if check_name:
        if meta.get("name"):
            name_errs += [field_invalid("metadata.name", meta["name"], m) for m in path_segment_errors(meta["name"])]
    return name_errs + errs


def _go_slice_invalid(path: str, values: list[Any], detail: str) -> FieldError:
    """`field.Invalid` with a `[]string` value: Go prints it with `%#v` (`[]string{"a", "b"}`)."""
    return FieldError("FieldValueInvalid", path, f"Invalid value: {sharp_v_strings(values)}: {detail}")


def _rule_errors(rule: dict[str, Any], namespaced: bool, path: str) -> list[FieldError]:
    """`validatePolicyRule`."""
    errs: list[FieldError] = []
    if not rule.get("verbs"):
        errs.append(field_required(f"{path}.verbs", "verbs must contain at least one value"))
    urls = rule.get("nonResourceURLs") or []
    if urls:
        if namespaced:
            errs.append(_go_slice_invalid(f"{path}.nonResourceURLs", urls,
                                          "namespaced rules cannot apply to non-resource URLs"))
        if rule.get("apiGroups") or rule.get("resources") or rule.get("resourceNames"):
            errs.append(_go_slice_invalid(f"{path}.nonResourceURLs", urls,
                                          "rules cannot apply to both regular resources and non-resource URLs"))
        return errs
    if not rule.get("apiGroups"):
        errs.append(field_required(f"{path}.apiGroups", "resource rules must supply at least one api group"))
    if not rule.get("resources"):
        errs.append(field_required(f"{path}.resources", "resource rules must supply at least one resource"))
    if rule.get("resourceNames") and len(rule.get("resources") or []) > 1:
        errs.append(field_required(f"{path}.resourceNames", "resource names cannot apply to multiple resources"))
    return errs


def _subject_errors(s: dict[str, Any], namespaced: bool, path: str) -> list[FieldError]:
    """`validateRoleBindingSubject`."""
    errs: list[FieldError] = []
    name, kind, group = s.get("name") or "", s.get("kind") or "", s.get("apiGroup") or ""
    if not name:
        errs.append(field_required(f"{path}.name"))
    if kind == "ServiceAccount":
        if name and (len(name) > 253 or not _DNS1123_SUBDOMAIN.match(name)):
            errs.append(field_invalid(f"{path}.name", name,
                                      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
                                      "characters, '-' or '.', and must start and end with an alphanumeric "
                                      "character (e.g. 'example.com', regex used for validation is "
                                      "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"))
        if group:
            errs.append(field_not_supported(f"{path}.apiGroup", group, [""]))
        if not namespaced and not s.get("namespace"):
            errs.append(field_required(f"{path}.namespace"))
    elif kind in ("User", "Group"):
        if not name:
            errs.append(field_invalid(f"{path}.name", name, f"{kind.lower()} name cannot be empty"))
        if group != GROUP:
            errs.append(field_not_supported(f"{path}.apiGroup", group, [GROUP]))
    else:
        errs.append(field_not_supported(f"{path}.kind", kind, ["ServiceAccount", "User", "Group"]))
    return errs


def validate(obj: dict[str, Any], *, check_name: bool = True) -> list[FieldError]:
    """`ValidateRole`/`ValidateClusterRole`/`ValidateRoleBinding`/`ValidateClusterRoleBinding`."""
    kind = obj.get("kind")
    namespaced = kind in ("Role", "RoleBinding")
    errs = _meta_errors(obj, namespaced, check_name)
    if kind in ("Role", "ClusterRole"):
        for i, rule in enumerate(obj.get("rules") or []):
            errs += _rule_errors(rule if isinstance(rule, dict) else {}, namespaced, f"rules[{i}]")
        return errs
    ref = obj.get("roleRef") if isinstance(obj.get("roleRef"), dict) else {}
    if (ref.get("apiGroup") or "") != GROUP:
        errs.append(field_not_supported("roleRef.apiGroup", ref.get("apiGroup") or "", [GROUP]))
    allowed_kinds = ["Role", "ClusterRole"] if namespaced else ["ClusterRole"]
    if (ref.get("kind") or "") not in allowed_kinds:
        errs.append(field_not_supported("roleRef.kind", ref.get("kind") or "", allowed_kinds))
    if not ref.get("name"):
        errs.append(field_required("roleRef.name"))
    else:
        errs += [field_invalid("roleRef.name", ref["name"], m) for m in path_segment_errors(ref["name"])]
    for i, s in enumerate(obj.get("subjects") or []):
        errs += _subject_errors(s if isinstance(s, dict) else {}, namespaced, f"subjects[{i}]")
    return errs


def _go_role_ref(ref: dict[str, Any]) -> str:
    """Go `%#v` of the internal `rbac.RoleRef`."""
    return (f'rbac.RoleRef{{APIGroup:"{ref.get("apiGroup") or ""}", Kind:"{ref.get("kind") or ""}", '
            f'Name:"{ref.get("name") or ""}"}}')


def validate_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """`Validate*Update`: object validation, metadata update rules, and the immutable `roleRef`."""
    errs = validate(new, check_name=False)
    errs += validate_object_meta_update(new.get("metadata") or {}, old.get("metadata") or {})
    return errs + role_ref_update_errors(new, old)


def role_ref_update_errors(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """A binding's `Validate*BindingUpdate` after its `ValidateObjectMetaUpdate`: `roleRef` may not change."""
    if new.get("kind") not in ("RoleBinding", "ClusterRoleBinding"):
        return []
    nr, orr = new.get("roleRef") or {}, old.get("roleRef") or {}
    key = ("apiGroup", "kind", "name")
    if tuple(nr.get(k) or "" for k in key) != tuple(orr.get(k) or "" for k in key):
        return [FieldError("FieldValueInvalid", "roleRef", f"Invalid value: {_go_role_ref(nr)}: cannot change roleRef")]
    return []


class RbacStrategy(Strategy):
    """Registry strategy for the four RBAC kinds (errors are reported with `kind.group`, e.g.
    `RoleBinding.rbac.authorization.k8s.io "x" is invalid: ...`, which the store must pass as group)."""

    guard: Any = None  # auth.escalation.EscalationGuard when the server authorizes with RBAC

    def _default(self, obj: dict[str, Any]) -> None:
        defaulted = apply_defaults(obj, self.info.kind)
        for key, value in defaulted.items():  # in place: the store holds a reference to obj["metadata"]
            if key != "metadata":
                obj[key] = value

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        self._default(obj)
        if self.guard is not None:  # the policy-based storage's escalation check (403)
            self.guard.check(self.info.kind, obj)

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        self._default(new)
        if self.guard is not None:
            self.guard.check(self.info.kind, new, old)

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return validate({**obj, "kind": self.info.kind})

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return validate_update({**new, "kind": self.info.kind}, {**old, "kind": self.info.kind})

    def update_checks(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return role_ref_update_errors({**new, "kind": self.info.kind}, old)
