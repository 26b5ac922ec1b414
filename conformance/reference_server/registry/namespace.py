"""Namespace strategies (`pkg/registry/core/namespace/strategy.go`) and REST (`storage/storage.go`).

Three strategies share one store: the main resource keeps spec.finalizers and status (NS-31), `/status`
keeps spec (NS-41), `/finalize` keeps status (NS-44). Deletion follows `REST.Delete` (NS-50..NS-58).
"""
from __future__ import annotations

import dataclasses
from typing import Any

from .. import apierrors as E
from ..deviations import NONE, Deviations
from ..goport.gofmt import go_quote
from ..storage import DELETE, KeyExistsError, KeyNotFoundError, Store
from ..storage.clone import clone
from . import meta as M
from . import fieldselector
from .kinds import NAMESPACES
from .labelselector import SelectorSyntaxError
from .store import Admit, DeleteOptions, GenericStore, ListOptions, check_delete_preconditions
from .strategy import Strategy
from .validation import is_label_value, validate_finalizer_name, validate_object_meta

LABEL_METADATA_NAME = "kubernetes.io/metadata.name"
FINALIZER_KUBERNETES = "kubernetes"
LEGACY_SECOND_DELETE_MSG = ("The system is ensuring all content is removed from this namespace.  Upon completion, "
                            "this namespace will automatically be purged by the system.")


class NamespaceStrategy(Strategy):
    """The main resource: create defaults, label canonicalisation, update keeps spec.finalizers/status."""

    def __init__(self, deviations: Deviations = NONE):
        super().__init__(NAMESPACES)
        self.deviations = deviations

    def _finalizer_errs(self, obj: dict[str, Any], indexed: bool) -> list[E.FieldError]:
        errs: list[E.FieldError] = []
        lax = self.deviations.active("accept-unqualified-finalizers")
        for i, f in enumerate((obj.get("spec") or {}).get("finalizers") or []):
            path = f"spec.finalizers[{i}]" if indexed else "spec.finalizers"
            errs += validate_finalizer_name(f, path, allow_unqualified=lax)
            if isinstance(f, str) and "/" in f and self.deviations.active("reject-prefixed-finalizers"):
                errs.append(E.field_invalid(path, f, "must be a standard finalizer name"))
            if f in ("orphan", "foregroundDeletion") and self.deviations.active("reject-standard-finalizers"):
                errs.append(E.field_invalid(path, f, "name is neither a standard finalizer name nor is it "
                                                     "fully qualified"))
        return errs

    def _meta_errs(self, obj: dict[str, Any], check_name: bool) -> list[E.FieldError]:
        check = check_name and not self.deviations.active("accept-invalid-names")
        rule = "label1035" if self.deviations.active("reject-leading-digit-names") else "label"
        return validate_object_meta(obj.get("metadata", {}), namespaced=False, name_rule=rule, check_name=check)

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
        obj["spec"] = spec
        if not self.deviations.active("phase-from-body") or not (obj.get("status") or {}).get("phase"):
            obj["status"] = {"phase": "Active"}
        finalizers = list(spec.get("finalizers") or [])
        if self.deviations.active("replace-user-finalizers"):
            finalizers = [FINALIZER_KUBERNETES]
        elif FINALIZER_KUBERNETES not in finalizers and not self.deviations.active("no-default-finalizer"):
            if self.deviations.active("kubernetes-finalizer-first"):
                finalizers.insert(0, FINALIZER_KUBERNETES)
            else:
                finalizers.append(FINALIZER_KUBERNETES)
        if finalizers:
            spec["finalizers"] = finalizers
        else:
            spec.pop("finalizers", None)
        obj["metadata"].pop("namespace", None)

    def validate(self, obj: dict[str, Any]) -> list[E.FieldError]:
        indexed = self.deviations.active("finalizer-error-indexed-on-create")
        return self._meta_errs(obj, True) + self._finalizer_errs(obj, indexed=indexed)

    def default(self, obj: dict[str, Any], *, update: bool = False) -> None:
        """`SetDefaults_Namespace` (pkg/apis/core/v1/defaults.go): decoding copies a non-empty name into the
        `kubernetes.io/metadata.name` label, before admission and validation. So a name that is no valid
        label value (leading/trailing `-`, longer than 63) is refused for `metadata.name` *and*
        `metadata.labels`, and a wrong value sent for the label is overwritten instead of refused.
        A generated name gets the label later, in `canonicalize` (upstream's `Canonicalize`)."""
        meta = obj.get("metadata")
        name = meta.get("name") if isinstance(meta, dict) else None
        if not isinstance(name, str) or not name or self._label_skipped(update):
            return
        if self.deviations.active("accept-invalid-names") and is_label_value(name):
            return  # that bug accepts the name; the label is added after validation (canonicalize)
        labels = meta.get("labels") if isinstance(meta.get("labels"), dict) else {}
        labels[LABEL_METADATA_NAME] = name
        meta["labels"] = labels

    def _label_skipped(self, update: bool) -> bool:
        """The deviations that leave the label out of what is stored."""
        return (self.deviations.active("no-metadata-name-label")
                or self.deviations.active("metadata-name-label-unindexed")
                or (update and self.deviations.active("label-not-restored-on-update")))

    def canonicalize(self, obj: dict[str, Any]) -> None:
        """Force `kubernetes.io/metadata.name` = name (NS-13)."""
        if self.deviations.active("no-metadata-name-label"):
            return
        meta = obj["metadata"]
        if self.deviations.active("metadata-name-label-unindexed"):
            return  # added to responses only (NamespaceStore._finish)
        if meta.get("uid") and self.deviations.active("label-not-restored-on-update"):
            return  # an update: the object already has its uid
        labels = meta.get("labels") if isinstance(meta.get("labels"), dict) else {}
        labels[LABEL_METADATA_NAME] = meta["name"]
        meta["labels"] = labels

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        new["metadata"].pop("namespace", None)
        spec = new.get("spec") if isinstance(new.get("spec"), dict) else {}
        new["spec"] = spec
        old_finalizers = (old.get("spec") or {}).get("finalizers")
        if self.deviations.active("update-finalizers-rejected") and \
                spec.get("finalizers", old_finalizers) != old_finalizers:
            raise E.invalid("Namespace", new["metadata"].get("name", ""), [
                E.field_forbidden("spec.finalizers", "may only be changed through the finalize subresource")])
        if not self.deviations.active("update-changes-finalizers"):
            _copy_key(spec, old.get("spec") or {}, "finalizers")
        new["status"] = clone(old.get("status") or {})

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[E.FieldError]:
        return super().validate_update(new, old) + self._finalizer_errs(new, indexed=False)

    def should_delete_during_update(self, new: dict[str, Any], old: dict[str, Any]) -> bool:
        """`ShouldDeleteNamespaceDuringUpdate` (NS-39, NS-47)."""
        return not (new.get("spec") or {}).get("finalizers") and super().should_delete_during_update(new, old)


class NamespaceStatusStrategy(NamespaceStrategy):
    """`/status`: everything but spec is taken from the body; phase rule (NS-41, NS-42)."""

    subresource = "status"

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        new["metadata"].pop("namespace", None)
        if not (self.deviations.active("status-write-changes-finalizers") and isinstance(new.get("spec"), dict)):
            new["spec"] = clone(old.get("spec") or {})
        status = new.get("status") if isinstance(new.get("status"), dict) else {}
        if not status.get("phase"):
            status["phase"] = "Active"  # SetDefaults_NamespaceStatus
        new["status"] = status

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[E.FieldError]:
        errs = Strategy.validate_update(self, new, old)
        phase = new["status"].get("phase")
        if self.deviations.active("status-phase-unvalidated"):
            return errs
        if not new["metadata"].get("deletionTimestamp"):
            if phase != "Active":
                errs.append(E.field_invalid("status.Phase", phase,
                                            "may only be 'Active' if `deletionTimestamp` is empty"))
        elif phase != "Terminating":
            errs.append(E.field_invalid("status.Phase", phase,
                                        "may only be 'Terminating' if `deletionTimestamp` is not empty"))
        return errs


class NamespaceFinalizeStrategy(NamespaceStrategy):
    """`/finalize`: spec.finalizers from the body (indexed validation), status kept (NS-44)."""

    subresource = "finalize"
    update_meta_calls = "U"  # `ValidateNamespaceFinalizeUpdate`: `ValidateObjectMetaUpdate`, no `ValidateNamespace`

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        new["metadata"].pop("namespace", None)
        if not isinstance(new.get("spec"), dict):
            new["spec"] = {}
        new["status"] = clone(old.get("status") or {})
        if self.deviations.active("finalize-ignores-additions"):
            before = (old.get("spec") or {}).get("finalizers") or []
            new["spec"]["finalizers"] = [f for f in new["spec"].get("finalizers") or [] if f in before]

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[E.FieldError]:
        if self.deviations.active("finalize-skips-validation"):
            return Strategy.validate_update(self, new, old)
        return Strategy.validate_update(self, new, old) + self._finalizer_errs(new, indexed=True)

    def should_delete_during_update(self, new: dict[str, Any], old: dict[str, Any]) -> bool:
        finalizers = (new.get("spec") or {}).get("finalizers") or []
        if not finalizers and self.deviations.active("finalize-empty-deletes-active"):
            return True
        if finalizers == [FINALIZER_KUBERNETES] and old["metadata"].get("deletionTimestamp") \
                and self.deviations.active("finalize-ignores-kubernetes"):
            return True
        return super().should_delete_during_update(new, old)


class NamespaceStore(GenericStore):
    """Namespace REST: the generic store plus status/finalize strategies and `REST.Delete`."""

    def __init__(self, store: Store, deviations: Deviations = NONE):
        super().__init__(NAMESPACES, store, NamespaceStrategy(deviations), deviations)
        self.status_strategy = NamespaceStatusStrategy(deviations)
        self.finalize_strategy = NamespaceFinalizeStrategy(deviations)

    # ---- deliberate deviations that live at the namespace REST level (see deviations.py) ----------
    def create(self, obj: dict[str, Any], **kw: Any) -> dict[str, Any]:
        out = super().create(obj, **kw)
        if self.deviations.active("metadata-name-label-unindexed"):
            out = self._finish(out)
        if self.deviations.active("create-response-without-status"):
            out = {k: v for k, v in out.items() if k != "status"}
        return out

    def _finish(self, obj: dict[str, Any]) -> dict[str, Any]:
        out = super()._finish(obj)
        if self.deviations.active("metadata-name-label-unindexed") and out.get("metadata", {}).get("name"):
            # `out` has its own metadata dict (GenericStore._finish) and gets a new labels dict: what is
            # stored keeps no label, only responses show it
            labels = out["metadata"].get("labels") or {}
            out["metadata"]["labels"] = {**labels, LABEL_METADATA_NAME: out["metadata"]["name"]}
        return out

    def _invalid(self, name: str, errs: list[E.FieldError]) -> E.StatusError:
        if self.deviations.active("invalid-name-without-causes") and any(e.field == "metadata.name" for e in errs):
            return E.StatusError(E.status_dict(422, "Invalid", f"Namespace {go_quote(name)} is invalid",
                                               {"name": name, "kind": "Namespace"}))
        return super()._invalid(name, errs)

    def _store_create(self, obj: dict[str, Any], dry_run: bool) -> dict[str, Any]:
        try:
            return super()._store_create(obj, dry_run)
        except KeyExistsError as exc:
            old = exc.existing.get("metadata", {})
            if dry_run or old.get("deletionTimestamp") or not self.deviations.active("duplicate-namespace-overwrites"):
                raise

            def replace(cur: dict[str, Any]) -> dict[str, Any]:
                new = clone(obj)
                for key in ("uid", "creationTimestamp"):
                    new["metadata"][key] = cur["metadata"].get(key)
                new["metadata"]["resourceVersion"] = cur["metadata"].get("resourceVersion")
                return new

            replaced, _ = self.store.guaranteed_update("namespaces", "", obj["metadata"]["name"], replace)
            return replaced

    def list(self, ns: str | None, opts: ListOptions, *, shared: bool = False) -> dict[str, Any]:
        if opts.label_selector and self.deviations.active("namespace-list-ignores-label-selector"):
            opts = dataclasses.replace(opts, label_selector="")
        out = super().list(ns, opts, shared=shared)
        if self.deviations.active("list-hides-terminating"):
            out["items"] = [i for i in out["items"] if not i["metadata"].get("deletionTimestamp")]
        return out

    def predicate(self, opts: ListOptions) -> Any:
        """The two field-selector deviations read the selector as `fields.ParseSelector` does (an escaped `,` or
        `=` is no separator; one it refuses is left for the store to refuse)."""
        phase, ignore = (self.deviations.active("phase-field-selector-unsupported"),
                         self.deviations.active("unknown-field-selector-ignored"))
        if opts.field_selector and (phase or ignore):
            try:
                terms = fieldselector.parse(opts.field_selector)
            except SelectorSyntaxError:
                terms = None
            if terms is not None:
                if phase and any(t.field == "status.phase" for t in terms):
                    raise E.bad_request("field label not supported: status.phase")
                if ignore:
                    kept = [fieldselector.term_text(t) for t in terms if t.field in NAMESPACES.selectable_fields]
                    opts = dataclasses.replace(opts, field_selector=",".join(kept))
        return super().predicate(opts)

    def delete(self, ns: str, name: str, opts: DeleteOptions, *,
               admit: Admit | None = None) -> tuple[dict[str, Any], bool]:
        current = self.get("", name)
        check_delete_preconditions("namespaces", name, opts, current["metadata"], generic=False)
        if not current["metadata"].get("deletionTimestamp"):
            marked = self._first_delete(name, opts, admit)
            if self.deviations.active("delete-returns-status"):
                uid = marked["metadata"].get("uid", "")
                return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
                        "details": {"name": name, "kind": "namespaces", "uid": uid}}, False
            return marked, False
        if (current.get("spec") or {}).get("finalizers"):
            if self.deviations.active("second-delete-conflict"):
                raise E.conflict("namespaces", name, LEGACY_SECOND_DELETE_MSG)
            return current, False
        return super().delete("", name, DeleteOptions(dry_run=opts.dry_run), admit=admit)

    def _first_delete(self, name: str, opts: DeleteOptions, admit: Admit | None) -> dict[str, Any]:
        """Set deletionTimestamp + phase Terminating and the orphan/foreground finalizers (NS-50, NS-55)."""
        def mark(ns: dict[str, Any]) -> Any:
            meta = ns["metadata"]
            # the storage-level precondition: the object may have changed since REST.Delete's own check
            check_delete_preconditions("namespaces", name, DeleteOptions(uid=opts.uid), meta, generic=False)
            if admit is not None:
                admit(ns)
            if not meta.get("deletionTimestamp"):
                meta["deletionTimestamp"] = M.now()
            status = ns.setdefault("status", {})
            if status.get("phase") != "Terminating" and not self.deviations.active("delete-keeps-active"):
                status["phase"] = "Terminating"
            _apply_propagation(meta, opts)
            if self.deviations.active("delete-immediately"):
                return DELETE
            return ns

        try:
            if opts.dry_run:
                out = mark(self.store.get("namespaces", "", name))
                return self._finish(out if out is not DELETE else self.store.get("namespaces", "", name))
            obj, _ = self.store.guaranteed_update("namespaces", "", name, self._in_order(mark))
        except KeyNotFoundError:
            raise self._not_found(name) from None
        return self._finish(obj)


def _apply_propagation(meta: dict[str, Any], opts: DeleteOptions) -> None:
    """`shouldHaveOrphanFinalizer` / `shouldHaveDeleteDependentsFinalizer` (NS-55)."""
    finalizers = list(meta.get("finalizers") or [])
    have_orphan, have_fg = "orphan" in finalizers, "foregroundDeletion" in finalizers
    if opts.orphan_dependents is not None:
        want_orphan, want_fg = opts.orphan_dependents, not opts.orphan_dependents
    elif opts.propagation_policy is not None:
        want_orphan = opts.propagation_policy == "Orphan"
        want_fg = opts.propagation_policy == "Foreground"
    else:
        want_orphan, want_fg = have_orphan, have_fg
    finalizers = [f for f in finalizers if f not in ("orphan", "foregroundDeletion")]
    if want_orphan:
        finalizers.append("orphan")
    if want_fg:
        finalizers.append("foregroundDeletion")
    if finalizers:
        meta["finalizers"] = finalizers
    else:
        meta.pop("finalizers", None)


def _copy_key(dst: dict[str, Any], src: dict[str, Any], key: str) -> None:
    if key in src:
        dst[key] = clone(src[key])
    else:
        dst.pop(key, None)
