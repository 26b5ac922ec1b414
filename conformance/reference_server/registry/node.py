"""Nodes' strategy: `pkg/registry/core/node/strategy.go` (1.33), and the `spec.podCIDR` conversion of
`pkg/apis/core/v1/conversion.go`.

- Decoding (`Convert_v1_NodeSpec_To_core_NodeSpec` and back): the internal spec has `podCIDRs` only; a `podCIDR`
  given alone, or differing from `podCIDRs[0]`, becomes the whole list, and the answer's `podCIDR` is
  `podCIDRs[0]`.
- `PrepareForCreate`/`PrepareForUpdate` (`dropDisabledFields`, registry/gateddrops.py): a create drops
  `spec.configSource` and `status.config` (the removed DynamicKubeletConfig), an update drops `spec.configSource`
  unless the stored Node has one, and keeps the stored `status` (only `nodes/status` writes it). The gated fields
  it also drops are on in 1.33 (RecursiveReadOnlyMounts/UserNamespacesSupport, SupplementalGroupsPolicy).
- `WarningsOnCreate`/`WarningsOnUpdate` (`nodeWarnings`): `spec.configSource` (only an update of a Node that kept
  one can still hold it), `spec.externalID`, then each `spec.podCIDRs` entry through `GetWarningsForCIDR`
  (kubernetes#128786, 1.33: registry/ipwarnings.py); `nodeStatusStrategy` warns of nothing.
- `Validate`: `ValidateNode`; `ValidateUpdate`: `ValidateNode` then `ValidateNodeUpdate` (registry/nodevalidation.py;
  `nodes/status` runs `ValidateNodeUpdate` alone, through registry/status_validation.py)."""
from __future__ import annotations

from typing import Any

from ..apierrors import FieldError
from ..storage.clone import clone
from .gateddrops import DropsDisabledFields
from .ipwarnings import cidr_warnings
from .nodevalidation import node_errors, node_update_errors
from .shapes import as_dict, as_list
from .strategy import Strategy


def convert_pod_cidrs(spec: dict[str, Any]) -> None:
    """v1 → internal → v1 of `spec.podCIDR`/`spec.podCIDRs`, in place."""
    single, plural = spec.get("podCIDR"), spec.get("podCIDRs")
    if isinstance(single, str) and single and (not isinstance(plural, list) or not plural or plural[0] != single):
        spec["podCIDRs"] = plural = [single]  # a podCIDR alone, or differing, is authoritative
    if isinstance(plural, list) and plural:
        spec["podCIDR"] = plural[0]
    else:
        spec.pop("podCIDR", None)


def node_warnings(node: dict[str, Any]) -> list[str]:
    """`nodeWarnings(obj)`, in its order and words."""
    spec = as_dict(node.get("spec"))
    out = []
    if spec.get("configSource") is not None:
        out.append("spec.configSource: the feature is removed")
    if spec.get("externalID"):
        out.append("spec.externalID: this field is deprecated, and is unused by Kubernetes")
    for i, cidr in enumerate(as_list(spec.get("podCIDRs"))):
        if isinstance(cidr, str):
            out += cidr_warnings(f"spec.podCIDRs[{i}]", cidr)
    return out


class NodeStrategy(DropsDisabledFields, Strategy):
    """`nodeStrategy` (the main resource; `nodes/status` is registry/subresources.py's): `dropDisabledFields`'s
    configSource and status.config in registry/gateddrops.py."""

    def default(self, obj: dict[str, Any], *, update: bool = False) -> None:
        super().default(obj, update=update)
        spec = obj.get("spec")
        if isinstance(spec, dict):
            convert_pod_cidrs(spec)

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        super().prepare_for_update(new, old)
        if "status" in old:
            new["status"] = clone(old["status"])
        else:
            new.pop("status", None)

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return super().validate(obj) + node_errors(obj)

    def update_checks(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return node_update_errors(new, old)

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        """`ValidateNode(new)` (its metadata checks too, as upstream repeats them) + `ValidateNodeUpdate`."""
        return self.validate(new) + super().validate_update(new, old) + node_update_errors(new, old)

    def warnings_on_create(self, obj: dict[str, Any]) -> list[str]:
        return node_warnings(obj)

    def warnings_on_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[str]:
        return node_warnings(new)


__all__ = ["NodeStrategy", "convert_pod_cidrs", "node_warnings"]
