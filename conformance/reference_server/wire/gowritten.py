"""A stored object's nil pointers, slices and maps written as kube-apiserver writes them: `null` where the Go field
has no `omitempty` (a Role's `rules`, an EndpointSlice's `endpoints`, a LimitRange's `spec.limits`).

encoding/json (sigs.k8s.io/json) writes a nil pointer, slice or map of a field without `omitempty` as `null`.
kube-apiserver answers what it decoded from storage (etcd3 store.go `Create`/`GuaranteedUpdate` decode the stored
bytes into the answer), and a built-in kind is stored as protobuf, in which an empty repeated field or map is no
bytes at all: read back, `"rules": []` is nil too, so written `null`. Which fields: `NIL_WRITTEN` of
`_gobyvalue_table.py` (tools/goconvert/byvalue.py, from k8s.io/api's Go types).

Applied on the write path (registry/store.py's normalisation), so every answer, list, watch event and YAML
rendering of the stored object shows it; a custom resource (decoded into `interface{}`, stored as JSON) keeps its
body as sent.
"""
from __future__ import annotations

from functools import cache
from typing import Any

from . import gonull, schema
from ._gobyvalue_table import NIL_WRITTEN


@cache
def _written(message: str) -> tuple[str, ...]:
    """The JSON names of `message`'s fields (inlined structs' included) that Go writes `null` when nil, in Go's
    field order (the order they are added in)."""
    return tuple(name for name, f in schema.json_fields(message).items() if name in NIL_WRITTEN.get(f.message, ()))


def written(obj: Any, message: str | None) -> Any:
    """`obj` (a body of `message`'s Go type) with each absent or empty nil-written field `null`, nested structs
    likewise; `obj` itself is not changed (a new dict wherever one is added: stored objects share their parts)."""
    if message is None or not isinstance(obj, dict):
        return obj
    plan = gonull.steps(message)
    if not plan:
        return obj
    out = obj
    for name in _written(message):
        value = obj.get(name, _ABSENT)
        if value is _ABSENT or value == [] or (value == {} and plan[name].is_map):
            out = dict(out) if out is obj else out
            out[name] = None
    for name, value in obj.items():
        step = plan.get(name)
        if step is None or step.sub is None or value is None:
            continue
        new = _items(value, step) if isinstance(value, list) or step.is_map else written(value, step.sub)
        if new is not value:
            out = dict(out) if out is obj else out
            out[name] = new
    return out


_ABSENT = object()


def _items(items: Any, step: gonull.Step) -> Any:
    """A slice's items or a map's values of struct type, each `written` (a new container if one changed)."""
    if isinstance(items, list):
        new_list = [written(item, step.sub) for item in items]
        return new_list if any(a is not b for a, b in zip(new_list, items)) else items
    if isinstance(items, dict):
        new_map = {k: written(v, step.sub) for k, v in items.items()}
        return new_map if any(new_map[k] is not v for k, v in items.items()) else items
    return items
