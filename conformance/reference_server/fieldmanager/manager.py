"""The field manager (upstream `managedfields/internal/fieldmanager.go` and the managers it stacks:
`versioncheck.go`, `structuredmerge.go`, `stripmeta.go`, `managedfieldsupdater.go`, `skipnonapplied.go`, `lastappliedupdater.go`, `capmanagers.go`).

`update` records an Update entry for a create, update or non-apply patch (it never fails: upstream's
`UpdateNoErrors`); `apply` merges an applied configuration (`application/apply-patch+yaml`) into the live
object, prunes what the same manager applied before and no longer applies, and answers 409 on conflicts
unless forced.
"""
from __future__ import annotations

import json
from typing import Any

from .. import apierrors as E
from ..goport import gounicode
from ..goport.gojsonnum import overflow_seen, raw_overflow
from ..storage.clone import clone
from ..wire import goconvert
from . import fieldpath as fp
from . import reflected, typed
from .capmanagers import cap_update_managers
from .conflicts import conflict_error
from .managed import APPLY, UPDATE, Entry, decode, encode, is_reset, now
from .schema import Schema
from .validate import validate
from .versioncheck import check_version
from .versionconverter import VersionConverter

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
# `NewStripMetaManager`: fields nobody owns.
STRIP = frozenset({("f:apiVersion",), ("f:kind",), ("f:metadata",)} | {
    ("f:metadata", fp.field(f)) for f in ("name", "namespace", "creationTimestamp", "selfLink", "uid",
                                          "clusterName", "generation", "managedFields", "resourceVersion")})
MAX_MANAGER_LENGTH = 128
MANAGED_FIELDS_ENTRY = "meta.ManagedFieldsEntry"  # (the field model's message)


def refuse_raw_overflow(obj: Any) -> None:
    """`E.GoPanic` when a raw-JSON field of `obj` holds a number no float64 holds: structured-merge-diff's walk of
    every written object (`value/reflectcache.go` `ToUnstructured` reads a `RawExtension` with UseNumber, then
    `json.Number.Float64`) fails on it, and its reflect walk panics (`mustReuse`); nothing recovers that before
    the handler's panic recovery. Called on the request's object before admission, as upstream's field manager
    runs (http/), and here on the live object."""
    big = raw_overflow(obj) if overflow_seen() else None
    if big is not None:
        raise E.GoPanic(f'error decoding object from json: strconv.ParseFloat: parsing "{big.literal}": value out '
                        "of range")


def manager_or_user_agent(manager: str | None, user_agent: str | None) -> str:
    """`managerOrUserAgent`: the fieldManager parameter, else the User-Agent up to its first `/`, printable
    characters only, at most 128 bytes' worth (`prefixFromUserAgent`)."""
    if manager:
        return manager
    out = ""
    for ch in (user_agent or "").split("/", 1)[0]:
        if not gounicode.is_print(ch):
            continue
        if len(out.encode()) > MAX_MANAGER_LENGTH:
            break
        out += ch
    return out


def validate_manager(manager: str) -> list[E.FieldError]:
    """`ValidateFieldManager`: at most 128 bytes, printable characters only (`unicode.IsPrint`; the message's
    `%#U` adds the character itself only where it is printable, so never here). A query's byte that is not UTF-8
    (surrogate-escaped, http/goquery.py) counts one byte and is `range`'s `utf8.RuneError`, which is printable."""
    errs = []
    if len(manager.encode("utf-8", "surrogateescape")) > MAX_MANAGER_LENGTH:
        errs.append(E.FieldError("FieldValueTooLong", "fieldManager",
                                 f"Too long: may not be more than {MAX_MANAGER_LENGTH} bytes"))
    for i, ch in enumerate(manager):
        if not gounicode.is_print(ch) and not "\udc80" <= ch <= "\udcff":
            errs.append(E.field_invalid("fieldManager", manager, f"invalid character U+{ord(ch):04X}"
                                        f" (at position {len(manager[:i].encode('utf-8', 'surrogateescape'))})"))
    return errs


class FieldManager:
    """managedFields bookkeeping of one kind at one API version.

    `zero` is the kind's empty object (`Creater.New`): what a create is compared with; `crd_schema` a custom
    resource's structural schema (its list and map types). `ignored` maps a
    subresource ("" for the main resource) to the top-level fields its strategy resets (`GetResetFields`),
    whose changes nobody comes to own through that endpoint. `converter` (a kind served in several versions):
    other managers' entries recorded in another of its versions are compared in theirs
    (`fieldmanager/versionconverter.py`)."""

    def __init__(self, kind: str, api_version: str, *, builtin: bool = True, zero: dict[str, Any] | None = None,
                 ignored: dict[str, frozenset[str]] | None = None, crd_schema: dict[str, Any] | None = None,
                 converter: VersionConverter | None = None):
        self.kind, self.api_version = kind, api_version
        self.schema = Schema(kind, builtin, crd_schema, api_version)
        self.zero = {"apiVersion": api_version, "kind": kind, "metadata": {}} | (zero or {})
        self.ignored = ignored or {}
        self.converter = converter
        self._schemas = {api_version: self.schema}
        self.message = reflected.message_of(api_version, kind, builtin)
        self._messages = {api_version: self.message}

    def _message_at(self, version: str) -> str | None:
        """The Go type `version`'s objects are reflected by (fieldmanager/reflected.py)."""
        if version not in self._messages:
            self._messages[version] = reflected.message_of(version, self.kind, self.schema.builtin)
        return self._messages[version]

    # ---- other versions (versionconverter.go) ----------------------------------------------------------------
    def _version(self, e: Entry) -> str:
        """The version `e`'s set is compared in: its own when the converter serves it, else this manager's."""
        c = self.converter
        return e.api_version if c is not None and e.api_version != self.api_version and c.serves(e.api_version) \
            else self.api_version

    def _schema_at(self, version: str) -> Schema:
        schema = self._schemas.get(version)
        if schema is None:
            schema = self._schemas[version] = Schema(self.kind, self.schema.builtin, self.schema.crd_schema, version)
        return schema

    def _changes(self, old: dict[str, Any], new: dict[str, Any], own: typed.Comparison, entries: list[Entry],
                 ignored: frozenset[str], reflect: bool = False) -> dict[str, typed.Comparison]:
        """`Updater.update`'s comparisons: `own` in this version, and old against new converted to each other
        version an entry was recorded in (`reflect`: each as reflection reads the Go object converted there,
        the new one decoded from a body: fieldmanager/reflected.py)."""
        out = {self.api_version: own}
        for e in entries:
            version = self._version(e)
            if version not in out:
                assert self.converter is not None
                schema = self._schema_at(version)
                convert = self.converter.convert
                old_v, new_v = convert(old, self.api_version, version), convert(new, self.api_version, version)
                if reflect:
                    message = self._message_at(version)
                    old_v, new_v = reflected.stored(old_v, message), reflected.decoded(new_v, message)
                c = typed.compare(old_v, new_v, schema)
                c.drop_under(ignored)
                out[version] = c
        return out

    def _live(self, live: dict[str, Any] | None) -> dict[str, Any]:
        obj = dict(live) if live else clone(self.zero)
        obj["metadata"] = {k: v for k, v in (obj.get("metadata") or {}).items() if k != "managedFields"}
        return obj

    def _zero_seen(self) -> dict[str, Any]:
        """The kind's empty object (`Creater.New`) as reflection reads it: every zero value Go writes (shared:
        never changed)."""
        seen = self.__dict__.get("_zero_reflected")
        if seen is None:
            seen = self.__dict__["_zero_reflected"] = reflected.stored(self._live(None), self.message)
        return seen

    # ---- Update ----------------------------------------------------------------------------------------------
    def update(self, live: dict[str, Any] | None, new: dict[str, Any], manager: str,
               subresource: str = "", live_stored: bool = False) -> dict[str, Any]:
        """`FieldManager.UpdateNoErrors`: `new` with its managedFields recomputed (in place). `live_stored`: the
        caller's `live` is a stored object, already as reflection reads it (fieldmanager/reflected.py)."""
        if live:  # (the request's object is walked before admission: http/)
            refuse_raw_overflow(live)  # one a mutating webhook stored: every later write panics upstream
        meta = new.setdefault("metadata", {})
        if not isinstance(meta, dict):
            return new
        if (new.get("kind") != self.kind or new.get("apiVersion") != self.api_version) and \
                _names_other_kind(new, self.api_version, self.kind):
            meta.pop("managedFields", None)  # a custom resource naming another group or kind: `ObjectToTyped` has
            return new  # no type for it, and `UpdateNoErrors` drops the managedFields (registry/crtypemeta.py)
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
        # both compared as structured-merge-diff reflects the Go objects (`ObjectToTyped`): what Go leaves out
        # (an empty or zero `omitempty` field) is not there, what it writes anyway is, on both sides
        if not live:
            old = self._zero_seen()
        else:
            old = self._live(live)
            if not live_stored:
                old = reflected.stored(old, self.message)
        seen = reflected.decoded(new, self.message, old)
        try:
            c = typed.compare(old, seen, self.schema)
        except typed.SchemaError:
            return new  # UpdateNoErrors: managedFields are dropped rather than wrong
        ignored = self.ignored.get(subresource, frozenset())
        c.drop_under(ignored)
        changed = frozenset(c.added | c.modified)
        me = Entry(manager, UPDATE, self.api_version, subresource)
        by_version = self._changes(old, seen, c, [e for e in entries if e.ident != me.ident], ignored, True)
        for e in entries:
            ce = by_version[self._version(e)] if e.ident != me.ident else c
            e.fields = e.fields - ce.added - ce.modified - ce.removed
        mine = changed - STRIP
        if mine:
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
        check_version(config, self.api_version, self.kind)  # (structuredmerge.go's own check: never reached)
        if live:
            refuse_raw_overflow(live)  # (a mutating webhook's: structured-merge-diff walks the live object too)
        if config.get("metadata", {}) is None:
            del config["metadata"]  # (smd: a null map is a valid one)
        if _managed_fields_read(config.get("metadata")):
            raise E.bad_request("metadata.managedFields must be nil")
        if (refused := self.typed_patch_error(config)) is not None:  # a plain error upstream: 500, no reason
            raise E.StatusError(E.status_dict(500, None, refused))
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
        last_version = self._version(prev) if prev else self.api_version
        if prev is None:
            entries.append(me)
            prev = me
        prev.fields, prev.api_version = applied, self.api_version
        if last_version == self.api_version:
            self._prune(merged, last, entries)
        elif last:
            merged = self._prune_in(merged, last, last_version, entries)
        c = typed.compare(base, merged, self.schema)
        c.drop_under(ignored)
        others = [e for e in entries if e is not prev]
        by_version = self._changes(base, merged, c, others, ignored, True)  # (versionconverter.go: Go objects)
        conflicts = [(e, fp.iterate_sorted(e.fields & (by_version[self._version(e)].added
                                                        | by_version[self._version(e)].modified))) for e in others]
        conflicts = [(e, paths) for e, paths in conflicts if paths]
        if conflicts and not force:
            raise conflict_error(conflicts)
        for e in others:
            ce = by_version[self._version(e)]
            e.fields = e.fields - ce.added - ce.modified - ce.removed
        prev.fields = prev.fields - STRIP
        if merged != base:
            prev.time = now()
        _store(merged, [e for e in entries if e.fields])
        if manager == "kubectl" and LAST_APPLIED in ((live or {}).get("metadata", {}).get("annotations") or {}):
            merged["metadata"].setdefault("annotations", {})[LAST_APPLIED] = _last_applied(config)
        return merged

    def typed_patch_error(self, config: dict[str, Any]) -> str | None:
        """`structuredMergeManager.Apply`'s `failed to create typed patch object (<ns>/<name>; <gvk>): ...` when
        the applied configuration does not type (`typeConverter.ObjectToTyped`: smd's `AsTyped`), else None.
        The namespace, name and kind are the configuration's own (`objectGVKNN(patchObj)`)."""
        meta = config.get("metadata") if isinstance(config.get("metadata"), dict) else {}
        where = "/".join(v if isinstance(v, str) else "" for v in (meta.get("namespace"), meta.get("name")))
        group, _, version = self.api_version.rpartition("/")
        gvk = f"{group}/{version}, Kind={self.kind}"  # (`check_version` passed: the configuration's own)
        problem = validate(config, self.schema.types().root)
        return None if problem is None else f"failed to create typed patch object ({where}; {gvk}): {problem}"

    def _prune(self, merged: dict[str, Any], last: frozenset[fp.Path], entries: list[Entry],
               schema: Schema | None = None) -> None:
        """`Updater.prune`: remove what this manager applied last time, no longer applies and nobody owns;
        an item kept because someone owns part of it keeps only the owned parts."""
        owned: set[fp.Path] = set()
        for e in entries:
            owned |= e.fields
        self._remove(merged, last - owned, owned, schema or self.schema)

    def _remove(self, obj: dict[str, Any], paths: Any, owned: set[fp.Path], schema: Schema) -> None:
        prefixes = {p[:n] for p in owned for n in range(1, len(p))}
        for path in sorted(paths, key=len, reverse=True):
            if path in prefixes:
                continue
            if typed.remove(obj, path, schema) and schema.builtin:
                self._drop_empty_parents(obj, path, owned, schema)

    def _prune_in(self, merged: dict[str, Any], last: frozenset[fp.Path], version: str,
                  entries: list[Entry]) -> dict[str, Any]:
        """`Updater.prune` when this manager last applied in another version: prune in that version (what the
        managers recorded there own stays), convert back, and add back what the managers of this version own
        (`addBackOwnedItems`); the result is in this version."""
        assert self.converter is not None
        convert = self.converter.convert
        schema = self._schema_at(version)
        pruned = convert(merged, self.api_version, version)
        pruned = json.loads(json.dumps(pruned))
        self._prune(pruned, last, [e for e in entries if self._version(e) == version], schema)
        back = convert(pruned, version, self.api_version)
        owned: set[fp.Path] = set()
        for e in entries:
            if self._version(e) == self.api_version:
                owned |= e.fields
        keep = typed.field_set(back, self.schema) | owned
        out = json.loads(json.dumps(merged))
        self._remove(out, typed.field_set(merged, self.schema) - keep, set(keep), self.schema)
        return out

    def _drop_empty_parents(self, obj: dict[str, Any], path: fp.Path, owned: set[fp.Path],
                            schema: Schema | None = None) -> None:
        """Go's `omitempty`: a built-in kind's map or list emptied by pruning is not serialised."""
        schema = schema or self.schema
        for n in range(len(path) - 1, 1, -1):
            parent = path[:n]
            value = typed.get(obj, parent, schema)
            if value in ({}, []) and parent not in owned:
                typed.remove(obj, parent, schema)
            else:
                return


def _managed_fields_read(meta: Any) -> bool:
    """Whether `Unstructured.GetManagedFields()` of the configuration is non-nil (structuredmerge.go's 400): a list
    (an empty one too) of objects each converting into a `ManagedFieldsEntry`; anything else reads as nil, and
    structured-merge-diff's typing refuses it after (a 500)."""
    entries = meta.get("managedFields") if isinstance(meta, dict) else None
    return isinstance(entries, list) and all(
        isinstance(e, dict) and goconvert.from_unstructured(json.loads(json.dumps(e)), MANAGED_FIELDS_ENTRY) is None
        for e in entries)


def _names_other_kind(obj: dict[str, Any], api_version: str, kind: str) -> bool:
    """Whether `obj` is a custom resource's patched object or body naming another group or kind than the
    manager's (registry/crtypemeta.py, imported here as registry/ imports this module)."""
    from ..registry import crtypemeta
    return crtypemeta.checked(obj, api_version, kind) and crtypemeta.other_kind(obj, api_version, kind)


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
