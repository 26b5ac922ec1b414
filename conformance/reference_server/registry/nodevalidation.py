"""A Node's validation: `ValidateNode` and `ValidateNodeUpdate` of `pkg/apis/core/validation/validation.go`, as
`pkg/registry/core/node/strategy.go` calls them (`nodeStrategy.Validate`: `ValidateNode`; its `ValidateUpdate`:
`ValidateNode` then `ValidateNodeUpdate`; `nodeStatusStrategy.ValidateUpdate`: `ValidateNodeUpdate` alone).

- `validateNodeTaints` at upstream's path `metadata.taints` (its `fldPath` is the metadata's): each key a
  qualified name, each value a label value, each effect required and one of the three, no repeated
  {key, effect} (a `Duplicate` of Go's `%#v` of the `core.Taint`, "taints must be unique by key and effect pair").
- `ValidateNodeResources`: `ValidateResourceQuantityValue` of `status.capacity.<name>` and
  `status.allocatable.<name>` (paths by `Child`, not by key: no brackets), in the order sent.
- `spec.podCIDRs` (after the `spec.podCIDR` conversion, registry/node.py): each a CIDR as
  `IsValidCIDRForLegacyField` parses it with StrictIPCIDRValidation off (1.33), and several: one per family
  (`IsDualStackCIDRStrings`, whose parse error is an `InternalError` cause) and no repeats.
- `ValidateNodeUpdate`: no repeated `status.addresses` entry (a create is not checked), `spec.podCIDRs` and
  `spec.providerID` fixed once set, `spec.externalID` fixed, then the taints again.

`ValidateNodeSpecificAnnotations` (the alpha taints and preferAvoidPods annotations) is registry/nodeannotations.py.
Not here: the `spec.configSource`/`status.config` checks, unreachable through the API: `dropDisabledFields` and
`nodeStatusStrategy.PrepareForUpdate` drop both unless the stored Node already has them (registry/gateddrops.py).
The one stored `validation.go` of kubernetes/kubernetes is 1.32's (its `IsValidCIDR(path, value)` is the sloppy
parse that apimachinery v0.33 renamed `IsValidCIDRForLegacyField`, which with the gate off parses and words it the
same); 1.33's `status.nodeInfo.swap` (kubernetes#129954) is not validated there, nor here."""
from __future__ import annotations

import ipaddress
from typing import Any

from ..apierrors import FieldError, field_forbidden, field_invalid, field_not_supported, field_required
from ..goport.gofmt import go_quote, sharp_v_strings
from ..wire.gosyntax import sharp_v
from .groupvalidation.formats import INVALID_CIDR, parse_cidr_sloppy
from .nodeannotations import annotation_errors
from .podvalidation.podspec import TAINT_EFFECTS
from .resourcequota import quantity_errors
from .shapes import as_dict, as_list
from .validation import is_label_value, is_qualified_name

TAINTS_PATH = "metadata.taints"  # upstream: fldPath.Child("taints") with fldPath = metadata
UNCHANGEABLE = "node updates may not change {} except from \"\" to valid"


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def taint_struct(taint: dict[str, Any]) -> str:
    """Go's `%#v` of a `core.Taint`: its `*metav1.Time` is printed by the promoted `time.Time.GoString`
    (`time.Date(...)`), a nil one `<nil>` (the method panics on it; fmt's `catchPanic`)."""
    fields = {k: _text(taint.get(k)) for k in ("key", "value", "effect")}
    return sharp_v({**fields, "timeAdded": taint.get("timeAdded")}, "core.Taint")


def taint_errors(taints: Any, path: str = TAINTS_PATH) -> list[FieldError]:
    """`validateNodeTaints`."""
    errs: list[FieldError] = []
    seen: set[tuple[str, str]] = set()
    for i, taint in enumerate(as_dict(t) for t in as_list(taints)):
        here = f"{path}[{i}]"
        key, value, effect = (_text(taint.get(k)) for k in ("key", "value", "effect"))
        errs += [field_invalid(f"{here}.key", key, m) for m in is_qualified_name(key)]
        msgs = is_label_value(value)
        if msgs:
            errs.append(field_invalid(f"{here}.value", value, ";".join(msgs)))
        if not effect:
            errs.append(field_required(f"{here}.effect"))
        elif effect not in TAINT_EFFECTS:
            errs.append(field_not_supported(f"{here}.effect", effect, TAINT_EFFECTS))
        if (effect, key) in seen:
            errs.append(FieldError("FieldValueDuplicate", here, f"Duplicate value: {taint_struct(taint)}: "
                                                               "taints must be unique by key and effect pair"))
            continue
        seen.add((effect, key))
    return errs


def resource_errors(node: dict[str, Any]) -> list[FieldError]:
    """`ValidateNodeResources`: capacity, then allocatable."""
    status = as_dict(node.get("status"))
    errs: list[FieldError] = []
    for field in ("capacity", "allocatable"):
        for name, value in as_dict(status.get(field)).items():
            errs += quantity_errors(str(name), value, f"status.{field}.{name}")
    return errs


def _family(net: ipaddress.IPv4Network | ipaddress.IPv6Network) -> int:
    """`IsIPv6(cidr.IP)`: an IPv4-mapped IPv6 address is IPv4 to Go (`To4()` is not nil)."""
    if isinstance(net, ipaddress.IPv6Network) and net.network_address.ipv4_mapped is not None:
        return 4
    return net.version


def pod_cidr_errors(cidrs: list[str]) -> list[FieldError]:
    """`ValidateNode`'s podCIDRs: each valid, then (several) one per family and no repeats."""
    path = "spec.podCIDRs"
    errs: list[FieldError] = []
    for i, cidr in enumerate(cidrs):
        if parse_cidr_sloppy(cidr) is None:
            errs.append(field_invalid(f"{path}[{i}]", cidr, INVALID_CIDR))
    if len(cidrs) < 2:
        return errs
    nets = [parse_cidr_sloppy(c) for c in cidrs]
    bad = next((c for c, n in zip(cidrs, nets) if n is None), None)
    if bad is not None:  # `IsDualStackCIDRStrings` → `ParseCIDRs`' error, as a field.InternalError
        errs.append(FieldError("InternalError", path, "Internal error: invalid PodCIDRs. failed to check with dual "
                                                      f"stack with error:failed to parse cidr value:{go_quote(bad)} "
                                                      f"with error:invalid CIDR address: {bad}"))
        dual = False
    else:
        dual = {_family(n) for n in nets if n is not None} == {4, 6}
    if not dual or len(cidrs) > 2:
        errs.append(FieldError("FieldValueInvalid", path, f"Invalid value: {sharp_v_strings(cidrs)}: may specify no "
                                                          "more than one CIDR for each IP family"))
    seen: set[str] = set()
    for i, cidr in enumerate(cidrs):
        if cidr in seen:
            errs.append(FieldError("FieldValueDuplicate", f"{path}[{i}]", f"Duplicate value: {go_quote(cidr)}"))
        seen.add(cidr)
    return errs


def _pod_cidrs(node: dict[str, Any]) -> list[str]:
    return [_text(c) for c in as_list(as_dict(node.get("spec")).get("podCIDRs"))]


def node_errors(node: dict[str, Any]) -> list[FieldError]:
    """`ValidateNode` after `ValidateObjectMeta` (the strategy's generic metadata checks)."""
    errs = annotation_errors(node, taint_errors)
    errs += taint_errors(as_dict(node.get("spec")).get("taints"))
    errs += resource_errors(node)
    cidrs = _pod_cidrs(node)
    return errs + (pod_cidr_errors(cidrs) if cidrs else [])


def _address_struct(address: dict[str, Any]) -> str:
    """Go's `%#v` of a `core.NodeAddress`."""
    kind, where = go_quote(_text(address.get("type"))), go_quote(_text(address.get("address")))
    return f"core.NodeAddress{{Type:{kind}, Address:{where}}}"


def node_update_errors(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """`ValidateNodeUpdate` after `ValidateObjectMetaUpdate`."""
    errs = annotation_errors(new, taint_errors)
    errs += resource_errors(new)
    seen: set[tuple[str, str]] = set()
    for i, address in enumerate(as_dict(a) for a in as_list(as_dict(new.get("status")).get("addresses"))):
        pair = (_text(address.get("type")), _text(address.get("address")))
        if pair in seen:
            errs.append(FieldError("FieldValueDuplicate", f"status.addresses[{i}]",
                                   f"Duplicate value: {_address_struct(address)}"))
        seen.add(pair)
    spec, ospec = as_dict(new.get("spec")), as_dict(old.get("spec"))
    cidrs, old_cidrs = _pod_cidrs(new), _pod_cidrs(old)
    if old_cidrs:
        changed = 1 if len(cidrs) != len(old_cidrs) else sum(a != b for a, b in zip(old_cidrs, cidrs))
        errs += [field_forbidden("spec.podCIDRs", UNCHANGEABLE.format("podCIDR"))] * changed
    provider = _text(ospec.get("providerID"))
    if provider and provider != _text(spec.get("providerID")):
        errs.append(field_forbidden("spec.providerID", UNCHANGEABLE.format("providerID")))
    errs += taint_errors(spec.get("taints"))
    if _text(spec.get("externalID")) != _text(ospec.get("externalID")):
        errs.append(field_forbidden("spec.externalID", "may not be updated"))
    return errs


__all__ = ["node_errors", "node_update_errors", "pod_cidr_errors", "resource_errors", "taint_errors",
           "taint_struct"]
