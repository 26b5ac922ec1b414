"""ControllerRevisions: the history the StatefulSet and DaemonSet controllers keep of their pod templates
(`pkg/controller/history/controller_history.go`, and the `getPatch`/`ApplyRevision` pair each controller has:
`pkg/controller/statefulset/stateful_set_utils.go`, `pkg/controller/daemon/update.go`).

A revision's `data` is a strategic merge patch that puts the owner's template back:
`{"spec":{"template":{..., "$patch":"replace"}}}`, the bytes of Go's `json.Marshal` of a
`map[string]interface{}` (keys sorted, no spaces, `<`, `>`, `&` escaped): `kubectl rollout undo` sends exactly
these bytes as its patch, and `kubectl rollout history --revision=N` applies them to show the template.
`HashControllerRevision` is FNV-1 (32 bits, not FNV-1a) of those bytes and, after a name collision, of the
collision count in decimal, safe-encoded: the same value upstream computes for the same bytes.
"""
from __future__ import annotations

import copy
import json
from typing import Any, Callable

from ... import apierrors as E
from ...registry import DeleteOptions, GenericStore, ListOptions
from ...registry.workloads import selector_matches
from .common import KCM, controller_of, owner_reference
from .templatehash import safe_encode

HASH_LABEL = "controller.kubernetes.io/hash"  # history.ControllerRevisionHashLabel
MAX_PREFIX = 223                              # 253 (a DNS subdomain) minus a hash and its dash


def go_json(value: Any) -> bytes:
    """`json.Marshal` of a decoded JSON value: map keys sorted, compact, HTML characters and U+2028/9 escaped."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    for ch, esc in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("\u2028", "\\u2028"),
                    ("\u2029", "\\u2029")):
        text = text.replace(ch, esc)
    return text.encode()


def fnv32(data: bytes) -> int:
    """`hash/fnv.New32`: FNV-1 (multiply, then xor)."""
    h = 0x811C9DC5
    for b in data:
        h = ((h * 0x01000193) & 0xFFFFFFFF) ^ b
    return h


def hash_revision(data: Any, probe: int | None = None) -> str:
    """`HashControllerRevision`: the data's bytes, then the collision count (`probe`) in decimal if given."""
    raw = go_json(data)
    if probe is not None:
        raw += str(probe).encode()
    return safe_encode(str(fnv32(raw)))


def revision_name(prefix: str, hash_: str) -> str:
    """`ControllerRevisionName`: `<prefix>-<hash>`, the prefix cut to 223 bytes."""
    return f"{prefix.encode()[:MAX_PREFIX].decode(errors='ignore')}-{hash_}"


def template_patch(owner: dict[str, Any]) -> dict[str, Any]:
    """`getPatch` (StatefulSet and DaemonSet alike): the owner's template with `$patch: replace`, as Go prints
    the typed template (its zero `metadata.creationTimestamp` a `null`), so that kubectl, computing the same
    patch from the object it reads, finds the revision the template already matches."""
    template = copy.deepcopy((owner.get("spec") or {}).get("template") or {})
    if not isinstance(template.get("metadata"), dict):
        template["metadata"] = {}
    template["metadata"].setdefault("creationTimestamp", None)
    template["$patch"] = "replace"
    return json.loads(go_json({"spec": {"template": template}}))  # keys in Go's order: protobuf's raw bytes keep it


def apply_revision(owner: dict[str, Any], revision: dict[str, Any]) -> dict[str, Any]:
    """`ApplyRevision`: the owner with the revision's template (the patch's `$patch: replace` replaces it
    whole)."""
    out = copy.deepcopy(owner)
    template = copy.deepcopy((((revision.get("data") or {}).get("spec") or {}).get("template")) or {})
    template.pop("$patch", None)
    if isinstance(template.get("metadata"), dict) and template["metadata"].get("creationTimestamp") is None:
        template["metadata"].pop("creationTimestamp", None)
    out.setdefault("spec", {})["template"] = template
    return out


def new_revision(owner: dict[str, Any], template_labels: dict[str, str] | None, data: Any, revision: int,
                 collision_count: int | None) -> dict[str, Any]:
    """`NewControllerRevision`: the template's labels plus the hash label, the owner's controller reference,
    the name `<owner>-<hash>`."""
    hash_ = hash_revision(data, collision_count)
    meta = owner["metadata"]
    return {"apiVersion": "apps/v1", "kind": "ControllerRevision",
            "metadata": {"name": revision_name(meta["name"], hash_), "namespace": meta["namespace"],
                         "labels": {**(template_labels or {}), HASH_LABEL: hash_},
                         "ownerReferences": [owner_reference(owner)]},
            "data": data, "revision": revision}


def sort_revisions(revisions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`SortControllerRevisions`: by revision, then creation time, then name."""
    return sorted(revisions, key=lambda r: (r.get("revision", 0), r["metadata"].get("creationTimestamp", ""),
                                            r["metadata"]["name"]))


def equal_revision(a: dict[str, Any] | None, b: dict[str, Any] | None) -> bool:
    """`EqualRevision`: the same data bytes (the hash labels, when both parse as integers, must agree too:
    safe-encoded hashes never do)."""
    if a is None or b is None:
        return a is b
    return go_json(a.get("data")) == go_json(b.get("data"))


def next_revision(revisions: list[dict[str, Any]]) -> int:
    """`nextRevision` of sorted revisions: one more than the last, 1 for none."""
    return int(revisions[-1].get("revision", 0)) + 1 if revisions else 1


class History:
    """`realHistory` over the registry: list, create (with collisions), renumber, delete, adopt."""

    def __init__(self, store: GenericStore, create: Callable[[GenericStore, dict[str, Any]], dict[str, Any]],
                 writes: Any):
        self.store = store
        self._create = create  # the controller's create (admission applied, field manager KCM)
        self.writes = writes  # its updates and deletes (admission/admitted.py ControllerWrites)

    def list(self, owner: dict[str, Any], selector: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        """`ListControllerRevisions`: those matching the selector (all without one) owned by `owner` or by no
        controller."""
        meta = owner["metadata"]
        out = []
        for r in self.store.list(meta["namespace"], ListOptions(), shared=True)["items"]:
            if selector is not None and not selector_matches(selector, r["metadata"].get("labels") or {}):
                continue
            ref = controller_of(r)
            if ref is None or ref.get("uid") == meta["uid"]:
                out.append(r)
        return out

    def create(self, owner: dict[str, Any], revision: dict[str, Any],
               collision_count: int) -> tuple[dict[str, Any], int]:
        """`CreateControllerRevision`: on a name taken by other data, count a collision and try the next name;
        an identical revision already there is returned. Returns (revision, collision count)."""
        clone = copy.deepcopy(revision)
        while True:
            clone["metadata"]["name"] = revision_name(owner["metadata"]["name"],
                                                      hash_revision(revision.get("data"), collision_count))
            try:
                return self._create(self.store, clone), collision_count
            except E.StatusError as exc:
                if exc.reason != "AlreadyExists":
                    raise
            exists = self.store.get(owner["metadata"]["namespace"], clone["metadata"]["name"])
            if go_json(exists.get("data")) == go_json(clone.get("data")):
                return exists, collision_count
            collision_count += 1

    def update_revision(self, revision: dict[str, Any], number: int) -> dict[str, Any]:
        """`UpdateControllerRevision`: the same data under a new revision number."""
        if revision.get("revision") == number:
            return revision
        meta = revision["metadata"]

        def change(cur: dict[str, Any]) -> dict[str, Any]:
            new = copy.deepcopy(cur)
            new["revision"] = number
            return new
        return self.writes.update(self.store, meta["namespace"], meta["name"], transform=change,
                                  field_manager=KCM)

    def delete(self, revision: dict[str, Any]) -> None:
        """`DeleteControllerRevision` (one already gone is no error here: the next sync lists again)."""
        meta = revision["metadata"]
        try:
            self.writes.delete(self.store, meta["namespace"], meta["name"], DeleteOptions())
        except E.StatusError as exc:
            if exc.code != 404:
                raise

    def adopt(self, owner: dict[str, Any], revision: dict[str, Any]) -> dict[str, Any] | None:
        """`AdoptControllerRevision`: our controller reference added, the revision's uid a precondition; None
        when it is gone or another controller took it first."""
        meta = revision["metadata"]

        def change(cur: dict[str, Any]) -> dict[str, Any]:
            if cur["metadata"].get("uid") != meta.get("uid") or controller_of(cur) is not None:
                raise E.conflict(self.store.info.plural, meta["name"], "the object has been modified", "apps")
            new = copy.deepcopy(cur)
            new["metadata"]["ownerReferences"] = [*(cur["metadata"].get("ownerReferences") or []),
                                                  owner_reference(owner)]
            return new
        try:
            return self.writes.update(self.store, meta["namespace"], meta["name"], transform=change,
                                      field_manager=KCM)
        except E.StatusError as exc:
            if exc.code in (404, 409):
                return None
            raise


__all__ = ["HASH_LABEL", "History", "apply_revision", "equal_revision", "fnv32", "go_json", "hash_revision",
           "new_revision", "next_revision", "revision_name", "sort_revisions", "template_patch"]
