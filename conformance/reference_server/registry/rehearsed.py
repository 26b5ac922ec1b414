"""The registry's side of a write rehearsed off the event loop (storage/rehearsal.py): which custom resource writes
may hold a thread for long, and the validation a rehearsal remembers for the write's commit on the loop.

What is long: `cel/budget.py` walks a rule's runtime cost in Python (0.3 to 1 µs a unit) when its estimate could
pass a limit, Go's regexp (`goregexp/`) matches a `pattern` or a CEL `matches`/`find` in time linear in the value
(a 256 KiB string: up to seconds), and both grow with the object. So: a rule whose static estimate (the CRD's
`cost.py` over its schema's sizes, as apiextensions' `CostEstimator`) is high, or a large object under a schema with
rules or patterns. Deciding costs a cached flag and a size count that stops at the threshold, so the common small
write stays on the loop with no thread hop. Upstream has no such decision (Go validates on the request's goroutine,
`pkg/registry/customresource/strategy.go` `Validate`/`ValidateUpdate`)."""
from __future__ import annotations

from typing import Any, Callable, TypeVar

from ..apierrors import FieldError
from ..storage.clone import clone
from ..storage.rehearsal import recall
from ..warning import RECORDER, add_warning
from .correlation import deep_equal
from .crdrules.validator import BLOCKING, Node

T = TypeVar("T")
LARGE = 16 * 1024  # bytes of strings (a list item or map entry counts 16) past which a custom resource may stall
LARGE_CRD = 4 * 1024  # a CRD past this may hold long rules (cel-go's parser here: some 50 µs a token)
COSTLY = 100_000  # a rule's estimated cost past which it may run for tens of milliseconds in Python


def costly(node: Node | None) -> bool:
    """Whether a rule of the validator tree has an estimated maximum cost past `COSTLY` (or none estimated)."""
    todo = [node]
    while todo:
        n = todo.pop()
        if n is None:
            continue
        for rule in n.rules:
            for program, cost in ((rule.program, rule.cost), (rule.message_program, rule.message_cost)):
                if program is not None and (cost is None or cost[1] > COSTLY):
                    return True
        todo.extend(n.properties.values())
        todo.extend((n.items, n.additional))
    return False


def has_patterns(schema: Any) -> bool:
    """Whether a schema (or a schema below it) has a `pattern` to match strings against."""
    todo = [schema]
    while todo:
        node = todo.pop()
        if isinstance(node, dict):
            if node.get("pattern"):
                return True
            todo.extend(v for k, v in node.items() if k in ("items", "additionalProperties", "allOf", "anyOf",
                                                              "oneOf", "not"))
            if isinstance(node.get("properties"), dict):
                todo.extend(node["properties"].values())
        elif isinstance(node, list):
            todo.extend(node)
    return False


def larger_than(obj: Any, limit: int) -> bool:
    """Whether `obj` holds more than `limit` bytes of strings (each list item and map entry counted as 16);
    the count stops as soon as it passes `limit`, so a large object costs no more than a small one."""
    size, todo = 0, [obj]
    while todo:
        value = todo.pop()
        if isinstance(value, str):
            size += len(value)
        elif isinstance(value, dict):
            size += 16 * len(value)
            todo.extend(value.values())
        elif isinstance(value, list):
            size += 16 * len(value)
            todo.extend(value)
        if size > limit:
            return True
    return False


def _reduced(obj: dict[str, Any]) -> dict[str, Any]:
    """What the schema and the rules read of an object: all but metadata, of which the rules see `name` and
    `generateName` (crdrules/values.py)."""
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    return {**{k: v for k, v in obj.items() if k != "metadata"},
            "metadata": {k: meta[k] for k in ("name", "generateName") if k in meta}}


def unmanaged(obj: dict[str, Any] | None) -> dict[str, Any] | None:
    """A copy of `obj` without `metadata.managedFields` (whose times may differ between a rehearsal and its
    commit), as inputs to `remembered` of a validation that does not read them."""
    if obj is None:
        return None
    meta = obj.get("metadata")
    if isinstance(meta, dict) and "managedFields" in meta:
        obj = {**obj, "metadata": {k: v for k, v in meta.items() if k != "managedFields"}}
    return clone(obj)


def remembered(owner: object, inputs: Callable[[], Any], compute: Callable[[], T]) -> T:
    """`compute()` (and the warnings it adds), remembered by a rehearsal under what `inputs()` builds (all that
    `compute` reads, as plain data) and answered from memory when the commit on the loop asks with equal inputs;
    computed as ever in an ordinary write."""
    def run() -> tuple[T, list[str]]:
        token = RECORDER.set([])
        try:
            return compute(), list(RECORDER.get() or ())
        finally:
            RECORDER.reset(token)

    found, warned = recall(f"{type(owner).__name__}:{id(owner)}", inputs, run)
    for text in warned:
        add_warning(text)
    return found


def custom_resource_inputs(new: dict[str, Any], old: dict[str, Any] | None, prior: list[FieldError]) -> Any:
    """All that a custom resource's schema and rule validation reads: the objects (of metadata, the rules see
    `name` and `generateName`), whether the roots correlate (the whole objects, metadata included), and whether an
    earlier error blocks the rules."""
    return (clone(_reduced(new)), None if old is None else clone(_reduced(old)),
            None if old is None else deep_equal(new, old), any(e.type in BLOCKING for e in prior))


__all__ = ["COSTLY", "LARGE", "LARGE_CRD", "costly", "custom_resource_inputs", "has_patterns", "larger_than",
           "remembered", "unmanaged"]
