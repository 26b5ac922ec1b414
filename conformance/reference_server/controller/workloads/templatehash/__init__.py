"""kube-controller-manager's template hash (`pkg/controller/controller_utils.go` `ComputeHash`): FNV-32a of
go-spew's `%#v` of the Go `v1.PodTemplateSpec` (`pkg/util/hash/hash.go` `DeepHashObject`), then, when the owner
has a collision count, its value as 8 little-endian bytes (a uint32 and four zeros), the sum's decimal digits
safe-encoded (`rand.SafeEncodeString`). The `pod-template-hash` of a Deployment's ReplicaSets and the name of a
DaemonSet's ControllerRevisions.

`model.py` turns the stored template's JSON into the Go values, `spew.py` prints them as go-spew does; the values
are checked against upstream's own code (`tools/templatehash/main.go`) in the project's tests.
"""
from __future__ import annotations

from typing import Any

from .model import pod_template_spec
from .spew import sprint

SAFE_ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789"  # k8s.io/apimachinery/pkg/util/rand


def safe_encode(s: str) -> str:
    """`rand.SafeEncodeString`: no vowels, no look-alike characters (bad words cannot appear)."""
    return "".join(SAFE_ALPHANUMS[b % len(SAFE_ALPHANUMS)] for b in s.encode())


def fnv32a(data: bytes) -> int:
    """`hash/fnv.New32a`: FNV-1a (xor, then multiply)."""
    h = 0x811C9DC5
    for b in data:
        h = ((h ^ b) * 0x01000193) & 0xFFFFFFFF
    return h


def dump(template: dict[str, Any]) -> str:
    """`printer.Sprintf("%#v", template)` with `DeepHashObject`'s ConfigState."""
    return sprint(pod_template_spec(), template if isinstance(template, dict) else {})


def compute_hash(template: dict[str, Any], collision_count: int | None = None) -> str:
    """`controller.ComputeHash(&template, collisionCount)` (`collision_count` None: a nil pointer)."""
    data = dump(template).encode()
    if collision_count is not None:
        data += (int(collision_count) & 0xFFFFFFFF).to_bytes(4, "little") + bytes(4)
    return safe_encode(str(fnv32a(data)))


__all__ = ["compute_hash", "dump", "fnv32a", "safe_encode"]
