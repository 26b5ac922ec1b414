"""An update's metadata causes, every repeat listed, as kube-apiserver lists them in its 422.

apiserver pkg/registry/rest/update.go `BeforeUpdate` runs `validateCommonFields` first, whatever the kind:
`ValidateObjectMetaAccessor(new, namespaceScoped, path.ValidatePathSegmentName, metadata)` then
`ValidateObjectMetaAccessorUpdate(new, old, metadata)` (apimachinery api/validation/objectmeta.go), then the
strategy's `ValidateUpdate`, whose `ValidateXUpdate` (pkg/apis/*/validation) calls `ValidateObjectMetaUpdate` and/or
`ValidateObjectMeta` (through `ValidateX`) once or more: a ConfigMap's `ValidateConfigMapUpdate` is
`ValidateObjectMetaUpdate` then `ValidateConfigMap`, so a bad label is four causes. `details.causes` lists each
error in order, repeats included; the message (`ToAggregate`) deduplicates them.

A strategy's `validate_update` lists the metadata errors once, so a valid update costs what it did; only when
there are errors does `update_causes` rebuild the list: the common checks' errors, then the kind's own calls
(`Strategy.update_meta_calls`: `U` a `ValidateObjectMetaUpdate`, `M` a `ValidateObjectMeta`, in the order its
`ValidateXUpdate` makes them), then the kind's other errors in their order. Where a kind's other checks come between
two of its metadata calls upstream, its calls say where: `C` its update's own checks (`Strategy.update_checks`: a
ConfigMap's `immutable` data, between `U` and `M`: `UCMV`), `V` the rest of the kind's errors (what `ValidateX`
judges after its `ValidateObjectMeta`: a Namespace's `spec.finalizers`, between `M` and `U`: `MVU`), each listed
where it stands, again where upstream runs `ValidateX` twice (`MVMVC`), and `S` the strategy's own checks between
those calls (`Strategy.strategy_checks`: a PersistentVolume's `volumevalidation.ValidatePersistentVolume`, between
its `ValidatePersistentVolume` and `ValidatePersistentVolumeUpdate`: `MVSMVC`), listed once; a group its calls do
not name comes last.
"""
from __future__ import annotations

from collections import Counter
from typing import Any

from ..apierrors import FieldError, field_invalid, field_required
from .validation import (is_path_segment_name, is_path_segment_prefix, meta_content_errors, validate_finalizers,
                         validate_object_meta, validate_object_meta_update)


def common_fields_errors(new: dict[str, Any], old: dict[str, Any], namespaced: bool) -> list[FieldError]:
    """`validateCommonFields`: `ValidateObjectMetaAccessor` with `path.ValidatePathSegmentName` (generateName as a
    prefix, the name, the namespace of a namespaced kind; the generation and managed fields are the store's), then
    `ValidateObjectMetaAccessorUpdate`, both apimachinery's generic checks (no core finalizer rule)."""
    errs: list[FieldError] = []
    gen, name = new.get("generateName") or "", new.get("name") or ""
    if isinstance(gen, str) and gen:
        errs += [field_invalid("metadata.generateName", gen, m) for m in is_path_segment_prefix(gen)]
    if not name:
        errs.append(field_required("metadata.name", "name or generateName is required"))
    else:
        errs += [field_invalid("metadata.name", name, m) for m in is_path_segment_name(str(name))]
    if namespaced and not new.get("namespace"):
        errs.append(field_required("metadata.namespace"))
    errs += meta_content_errors(new)
    errs += validate_finalizers(new.get("finalizers"))
    return errs + validate_object_meta_update(new, old, content=True)


def generate_name_errors(new: dict[str, Any]) -> list[FieldError]:
    """What the common checks judge that a kind's own `ValidateObjectMetaUpdate` may not: a generateName's `/` or
    `%`, asked on every update (cheap); the rest of `validateCommonFields` repeats what each kind judges."""
    gen = new.get("generateName")
    if not isinstance(gen, str) or not gen:
        return []
    return [field_invalid("metadata.generateName", gen, m) for m in is_path_segment_prefix(gen)]


def _kind_call(call: str, strategy: Any, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """One of the kind's own metadata calls: `M`, its `ValidateObjectMeta` (its name rule for the generateName,
    its finalizer rule); `U`, its `ValidateObjectMetaUpdate` (core's adds the finalizer rule)."""
    kube = getattr(strategy, "kube_finalizers", True)
    if call == "M":
        return validate_object_meta(new, namespaced=strategy.info.namespaced, name_rule=strategy.info.name_rule,
                                    check_name=False, kube_finalizers=kube, check_generate_name=True)
    return validate_object_meta_update(new, old, content=True, kube_finalizers=kube)


def update_causes(strategy: Any, new: dict[str, Any], old: dict[str, Any],
                  kind_errs: list[FieldError]) -> list[FieldError]:
    """The whole causes list of a refused update (`kind_errs`: the strategy's `validate_update`, its metadata
    errors once). A kind whose list holds none of them (it returned early: a custom resource's kind or apiVersion
    refused, a static pod's ephemeral containers) keeps its list as it is after the common checks' errors."""
    nmeta, ometa = new.get("metadata") or {}, old.get("metadata") or {}
    errs = common_fields_errors(nmeta, ometa, strategy.info.namespaced)
    calls = {c: _kind_call(c, strategy, nmeta, ometa) for c in "MU"}
    meta = set(errs).union(*calls.values())
    rest = [e for e in kind_errs if e not in meta]
    if len(rest) == len(kind_errs):
        return errs + rest
    order = strategy.update_meta_calls
    if "S" in order:
        calls["S"], rest = _split(rest, strategy.strategy_checks(new, old), from_end=False)
    own = strategy.update_checks(new, old) if "C" in order else []
    calls["C"], calls["V"] = _split(rest, own, from_end=order.rfind("C") > order.find("V") >= 0)
    for call in order + "".join(c for c in "CV" if c not in order):
        errs += calls.get(call, [])  # (`-`: none)
    return errs


def _split(rest: list[FieldError], own: list[FieldError], from_end: bool) -> tuple[list[FieldError], list[FieldError]]:
    """`rest` (the kind's errors in upstream's order) as its update's own checks' (`own`, each taken once) and the
    others, each in its order. `own` are sought from the end where the kind lists them last (`...VUC`): an error
    both groups make (a Job's spec, judged again by `ValidateJobUpdate`) is then the last group's copy."""
    counts = Counter(own)
    mine: list[FieldError] = []
    others: list[FieldError] = []
    for e in reversed(rest) if from_end else rest:
        if counts[e] > 0:
            counts[e] -= 1
            mine.append(e)
        else:
            others.append(e)
    if from_end:
        mine.reverse()
        others.reverse()
    return mine, others
