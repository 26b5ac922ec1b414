"""The field manager (upstream `managedfields/internal/fieldmanager.go` and the managers it stacks:
`structuredmerge.go`, `stripmeta.go`, `managedfieldsupdater.go`, `skipnonapplied.go`, `lastappliedupdater.go`, `capmanagers.go`).

`update` records an Update entry for a create, update or non-apply patch (it never fails: upstream's
`UpdateNoErrors`); `apply` merges an applied configuration (`application/apply-patch+yaml`) into the live
object, prunes what the same manager applied before and no longer applies, and answers 409 on conflicts
unless forced.
"""
from __future__ import annotations

import json
import unicodedata
from typing import Any

from .. import apierrors as E
from ..storage.clone import clone
from . import fieldpath as fp
from . import typed
from .capmanagers import cap_update_managers
from .conflicts import conflict_error
from .managed import APPLY, UPDATE, Entry, decode, encode, is_reset, now
from .schema import Schema

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
# `NewStripMetaManager`: fields nobody owns.
STRIP = frozenset({("f:apiVersion",), ("f:kind",), ("f:metadata",)} | {
    ("f:metadata", fp.field(f)) for f in ("name", "namespace", "creationTimestamp", "selfLink", "uid",
                                          "clusterName", "generation", "managedFields", "resourceVersion")})
MAX_MANAGER_LENGTH = 128


def manager_or_user_agent(manager: str | None, user_agent: str | None) -> str:
    """`managerOrUserAgent`: the fieldManager parameter, else the User-Agent up to its first `/`, printable
    characters only, at most 128 bytes' worth (`prefixFromUserAgent`)."""
    if manager:
        return manager
    out = ""
    for ch in (user_agent or "").split("/", 1)[0]:
        if not ch.isprintable():
            continue
        if len(out.encode()) > MAX_MANAGER_LENGTH:
            break
        out += ch
    return out


def validate_manager(manager: str) -> list[E.FieldError]:
    """`ValidateFieldManager`: at most 128 bytes, printable characters only."""
    errs = []
    if len(manager.encode()) > MAX_MANAGER_LENGTH:
        errs.append(E.FieldError("FieldValueTooLong", "fieldManager",
                                 f"Too long: may not be more than {MAX_MANAGER_LENGTH} bytes"))
    for i, ch in enumerate(manager):
        if not ch.isprintable() and ch != " ":
            name = unicodedata.name(ch, "")
            errs.append(E.field_invalid("fieldManager", manager,
                                        f"invalid character U+{ord(ch):04X}" + (f" '{ch}'" if name else "")
                                        + f" (at position {len(manager[:i].encode())})"))
    return errs


class FieldManager:
    """managedFields bookkeeping of one kind at one API version.

    `zero` is the kind's empty object (`Creater.New`): what a create is compared with; `crd_schema` a custom
    resource's structural schema (its list and map types). `ignored` maps a
    subresource ("" for the main resource) to the top-level fields its strategy resets (`GetResetFields`),
    whose changes nobody comes to own through that endpoint."""

    def __init__(self, kind: str, api_version: str, *, builtin: bool = True, zero: dict[str, Any] | None = None,
                 ignored: dict[str, frozenset[str]] | None = None, crd_schema: dict[str, Any] | None = None):
        self.kind, self.api_version = kind, api_version
        self.schema = Schema(kind, builtin, crd_schema, api_version)
        self.zero = {"apiVersion": api_version, "kind": kind, "metadata": {}} | (zero or {})
        self.ignored = ignored or {}

    def _live(self, live: dict[str, Any] | None) -> dict[str, Any]:
        obj = dict(live) if live else clone(self.zero)
        obj["metadata"] = {k: v for k, v in (obj.get("metadata") or {}).items() if k != "managedFields"}
        return obj

    # ---- Update ----------------------------------------------------------------------------------------------
    def update(self, live: dict[str, Any] | None, new: dict[str, Any], manager: str,
               subresource: str = "") -> dict[str, Any]:
        """`FieldManager.UpdateNoErrors`: `new` with its managedFields recomputed (in place)."""
        meta = new.setdefault("metadata", {})
        if not isinstance(meta, dict):
            return new
        live_entries = _decode_or_empty((live or {}).get("metadata", {}).get("managedFields"))
        sent = meta.pop("managedFields", None)
        if subresource:
            entries = live_entries
        elif is_reset(sent):
            entries = []
        else:
            entries = _decode_or_empty(sent) or live_entries
        creating = not live or not (live.get("metadata") or {}).get("uid")
        if not entries and not creating:  # skipNonAppliedManager: no tracking starts on an update
            return new
        try:
            c = typed.compare(self._live(live), new, self.schema)
        except typed.SchemaError:
            return new  # UpdateNoErrors: managedFields are dropped rather than wrong
        c.drop_under(self.ignored.get(subresource, frozenset()))
        changed = frozenset(c.added | c.modified)
        for e in entries:
            e.fields = e.fields - changed - c.removed
        mine = changed - STRIP
        if mine:
            me = Entry(manager, UPDATE, self.api_version, subresource)
            prev = next((e for e in entries if e.ident == me.ident), None)
            if prev is None:
                entries.append(me)
                prev = me
            prev.fields, prev.time = prev.fields | mine, now()
        _store(new, cap_update_managers([e for e in entries if e.fields]))
        return new

    # ---- Apply -----------------------------------------------------------------------------------------------
    def apply(self, live: dict[str, Any] | None, config: Any, manager: str, force: bool,
              subresource: str = "") -> dict[str, Any]:
        """`FieldManager.Apply`: the new object (a new dict), or a 409 Conflict / 400 BadRequest StatusError."""
        if not isinstance(config, dict):
            raise E.bad_request("error decoding YAML: json: cannot unmarshal into Go value of type "
                                "map[string]interface {}")
        config = json.loads(json.dumps(config))  # sigs.k8s.io/yaml: map keys become JSON strings
        if config.get("metadata", {}) is None:
            del config["metadata"]
        if not isinstance(config.get("metadata", {}), dict):
            raise E.bad_request("metadata must be an object")
        version = config.get("apiVersion") if isinstance(config.get("apiVersion"), str) else ""
        if version != self.api_version:
            raise E.bad_request("Incorrect version specified in apply patch. Specified patch version: "
                                f"{version}, expected: {self.api_version}")
        cmeta = config.get("metadata")
        if isinstance(cmeta, dict) and cmeta.get("managedFields") is not None:
            raise E.bad_request("metadata.managedFields must be nil")
        ignored = self.ignored.get(subresource, frozenset())
        entries = _decode_or_empty((live or {}).get("metadata", {}).get("managedFields"))
        base = self._live(live)
        try:
            merged = typed.merge(base, config, self.schema)
            applied = typed.field_set(config, self.schema)
        except typed.SchemaError as exc:
            raise E.StatusError(E.status_dict(500, "InternalError", f"Internal error occurred: failed to create "
                                                                   f"typed patch object: {exc}")) from None
        applied -= fp.under(applied, ignored)
        me = Entry(manager, APPLY, self.api_version, subresource)
        prev = next((e for e in entries if e.ident == me.ident), None)
        last = (prev.fields - fp.under(prev.fields, ignored)) if prev else frozenset()
        if prev is None:
            entries.append(me)
            prev = me
        prev.fields, prev.api_version = applied, self.api_version
        self._prune(merged, last, entries)
        c = typed.compare(base, merged, self.schema)
        c.drop_under(ignored)
        changed = frozenset(c.added | c.modified)
        conflicts = [(e, fp.iterate_sorted(e.fields & changed)) for e in entries if e is not prev]
        conflicts = [(e, paths) for e, paths in conflicts if paths]
        if conflicts and not force:
            raise conflict_error(conflicts)
        for e in entries:
            if e is not prev:
                e.fields = e.fields - changed - c.removed
        prev.fields = prev.fields - STRIP
        if merged != base:
            prev.time = now()
        _store(merged, [e for e in entries if e.fields])
        if manager == "kubectl" and LAST_APPLIED in ((live or {}).get("metadata", {}).get("annotations") or {}):
            merged["metadata"].setdefault("annotations", {})[LAST_APPLIED] = _last_applied(config)
        return merged

    def _prune(self, merged: dict[str, Any], last: frozenset[fp.Path], entries: list[Entry]) -> None:
        """`Updater.prune`: remove what this manager applied last time, no longer applies and nobody owns;
        an item kept because someone owns part of it keeps only the owned parts."""
        owned: set[fp.Path] = set()
        for e in entries:
            owned |= e.fields
        prefixes = {p[:n] for p in owned for n in range(1, len(p))}
        for path in sorted(last - owned, key=len, reverse=True):
            if path in prefixes:
                continue
            if typed.remove(merged, path, self.schema) and self.schema.builtin:
                self._drop_empty_parents(merged, path, owned)

    def _drop_empty_parents(self, obj: dict[str, Any], path: fp.Path, owned: set[fp.Path]) -> None:
        """Go's `omitempty`: a built-in kind's map or list emptied by pruning is not serialised."""
        for n in range(len(path) - 1, 1, -1):
            parent = path[:n]
            value = typed.get(obj, parent, self.schema)
            if value in ({}, []) and parent not in owned:
                typed.remove(obj, parent, self.schema)
            else:
                return


def _decode_or_empty(entries: Any) -> list[Entry]:
    try:
        return decode(entries)
    except ValueError:
        return []


def _store(obj: dict[str, Any], entries: list[Entry]) -> None:
    meta = obj.setdefault("metadata", {})
    if entries:
        meta["managedFields"] = encode(entries)
    else:
        meta.pop("managedFields", None)


def _last_applied(config: dict[str, Any]) -> str:
    """`buildLastApplied`: the applied configuration without the annotation, as Go's json.Marshal writes an
    unstructured object (sorted keys, HTML-escaped) followed by the encoder's newline."""
    cfg = clone(config)
    ann = (cfg.get("metadata") or {}).get("annotations")
    if isinstance(ann, dict):
        ann.pop(LAST_APPLIED, None)
    text = json.dumps(cfg, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026") + "\n"
