"""What an update may change in a Pod: `ValidatePodUpdate` of `pkg/apis/core/validation/validation.go` (1.33).

Only container and init-container images, `activeDeadlineSeconds` (set, or lowered), additions to
`tolerations` (an existing one may change only its `tolerationSeconds`), removals from `schedulingGates`
and `terminationGracePeriodSeconds` (to 1 when it was negative) may change; anything else is one
`spec: Forbidden: pod updates may not change fields other than ...` error followed by a diff of the specs.
Upstream prints that diff with go-cmp over Go structs; here it is a simplified rendering in the same
layout (one `-`/`+` line pair per changed top-level field).

Comparisons are semantic as `apiequality.Semantic.DeepEqual` on the decoded objects: an empty list, map or
string equals an absent one, and the v1-only alias `serviceAccount` is not part of the internal spec.
"""
from __future__ import annotations

import json
from typing import Any, Callable

from ..apierrors import FieldError, field_forbidden, field_invalid, field_required
from .shapes import as_list

UPDATABLE_POD_SPEC_FIELDS = (
    "`spec.containers[*].image`",
    "`spec.initContainers[*].image`",
    "`spec.activeDeadlineSeconds`",
    "`spec.tolerations` (only additions to existing tolerations)",
    "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)",
)
MAX_INT32 = 2**31 - 1


def semantic(value: Any) -> Any:
    """The value as Go would hold it after decoding, for equality: empty collections, empty strings and nulls
    dropped (nil and empty are equal for `Semantic.DeepEqual`; a string field's zero value is "")."""
    if isinstance(value, dict):
        out = {k: semantic(v) for k, v in value.items()}
        return {k: v for k, v in out.items() if v not in (None, "", [], {})}
    if isinstance(value, list):
        return [semantic(v) for v in value]
    return value


def _container_updates(new: list[Any], old: list[Any], path: str) -> tuple[list[FieldError], bool]:
    """`ValidateContainerUpdates`."""
    if len(new) != len(old):
        return [field_forbidden(path, "pod updates may not add or remove containers")], True
    errs: list[FieldError] = []
    for i, c in enumerate(new):
        image = c.get("image") if isinstance(c, dict) else None
        if not image:
            errs.append(field_required(f"{path}[{i}].image"))
        elif isinstance(image, str) and image.strip() != image:
            errs.append(field_invalid(f"{path}[{i}].image", image, "must not have leading or trailing whitespace"))
    return errs, False


def _only_added_tolerations(new: list[Any], old: list[Any]) -> list[FieldError]:
    """`validateOnlyAddedTolerations`: every old toleration is still there, up to its tolerationSeconds."""
    new_sem = [semantic(t) for t in new if isinstance(t, dict)]
    for o in old:
        if not isinstance(o, dict):
            continue
        found = False
        for n in new_sem:
            clone = semantic({**o, "tolerationSeconds": n.get("tolerationSeconds")})
            if clone == n:
                found = True
                break
        if not found:
            return [field_forbidden("spec.tolerations", "existing toleration can not be modified except its "
                                    "tolerationSeconds")]
    return []


def _only_deleted_gates(new: list[Any], old: list[Any]) -> list[FieldError]:
    """`validateOnlyDeletedSchedulingGates`."""
    if not new:
        return []
    old_names = {g.get("name") for g in old if isinstance(g, dict)}
    errs = []
    for i, g in enumerate(new):
        if isinstance(g, dict) and g.get("name") not in old_names:
            errs.append(field_forbidden(f"spec.schedulingGates[{i}]", "only deletion is allowed, but found new "
                                        f"scheduling gate '{g.get('name')}'"))
    return errs


def _go_field(key: str) -> str:
    return key[:1].upper() + key[1:]


def spec_diff(old: dict[str, Any], new: dict[str, Any], go_type: str = "core.PodSpec",
              go_field: Callable[[str], str] = _go_field) -> str:
    """A go-cmp-like diff of two (semantic) structs of `go_type`: changed top-level fields only, each named by
    `go_field`."""
    lines = [f"  {go_type}{{"]
    for key in sorted(set(old) | set(new)):
        if old.get(key) == new.get(key):
            continue
        if key in old:
            lines.append(f"- \t{go_field(key)}: {json.dumps(old[key], sort_keys=True)},")
        if key in new:
            lines.append(f"+ \t{go_field(key)}: {json.dumps(new[key], sort_keys=True)},")
    lines.append("  }")
    return "\n".join(lines) + "\n"


def validate_pod_spec_update(new_spec: Any, old_spec: Any) -> list[FieldError]:
    """The spec part of `ValidatePodUpdate` (metadata and `ValidatePodSpec` are the caller's)."""
    new = new_spec if isinstance(new_spec, dict) else {}
    old = old_spec if isinstance(old_spec, dict) else {}
    errs, stop = _container_updates(as_list(new.get("containers")), as_list(old.get("containers")), "spec.containers")
    if stop:
        return errs
    more, stop = _container_updates(as_list(new.get("initContainers")), as_list(old.get("initContainers")),
                                    "spec.initContainers")
    errs += more
    if stop:
        return errs
    new_ads, old_ads = new.get("activeDeadlineSeconds"), old.get("activeDeadlineSeconds")
    if new_ads is not None:
        if isinstance(new_ads, int) and not 0 <= new_ads <= MAX_INT32:
            return errs + [field_invalid("spec.activeDeadlineSeconds", new_ads,
                                         f"must be between 0 and {MAX_INT32}, inclusive")]
        if isinstance(old_ads, int) and isinstance(new_ads, int) and old_ads < new_ads:
            return errs + [field_invalid("spec.activeDeadlineSeconds", new_ads,
                                         "must be less than or equal to previous value")]
    elif old_ads is not None:
        errs.append(field_invalid("spec.activeDeadlineSeconds", "null", "must not update from a positive integer to "
                                  "nil value"))  # a nil pointer prints as "null"
    errs += _only_added_tolerations(as_list(new.get("tolerations")), as_list(old.get("tolerations")))
    errs += _only_deleted_gates(as_list(new.get("schedulingGates")), as_list(old.get("schedulingGates")))
    old_sem, munged = _internal(old), _internal(new)
    if munged == old_sem:
        return errs
    for key in ("containers", "initContainers"):  # images may change
        for c, oc in zip(munged.get(key, []), old_sem.get(key, [])):
            if isinstance(c, dict) and isinstance(oc, dict):
                c.pop("image", None)
                if "image" in oc:
                    c["image"] = oc["image"]
    for key in ("activeDeadlineSeconds", "schedulingGates", "tolerations"):
        munged.pop(key, None)
        if key in old_sem:
            munged[key] = old_sem[key]
    old_grace, new_grace = old_sem.get("terminationGracePeriodSeconds"), munged.get("terminationGracePeriodSeconds")
    if isinstance(old_grace, int) and old_grace < 0 and new_grace == 1:
        munged["terminationGracePeriodSeconds"] = old_grace
    if munged != old_sem:
        errs.append(field_forbidden("spec", "pod updates may not change fields other than "
                                    + ",".join(UPDATABLE_POD_SPEC_FIELDS) + "\n" + spec_diff(old_sem, munged)))
    return errs


def _internal(spec: dict[str, Any]) -> dict[str, Any]:
    """The spec as the internal type holds it: `serviceAccount` is only the v1 alias of serviceAccountName."""
    out = semantic(spec)
    alias = out.pop("serviceAccount", None)
    if alias and not out.get("serviceAccountName"):
        out["serviceAccountName"] = alias
    return out
