"""`ValidateNodeSpecificAnnotations` of `pkg/apis/core/validation/validation.go` (1.33): a Node's alpha annotations
`scheduler.alpha.kubernetes.io/taints` (`ValidateTaintsInNodeAnnotations`: `helper.GetTaintsFromNodeAnnotations`
decodes it into the internal `[]core.Taint`, then `validateNodeTaints` at
`metadata.annotations.scheduler.alpha.kubernetes.io/taints[i]`) and `.../preferAvoidPods`
(`ValidateAvoidPodsInNodeAnnotations`: `schedulinghelper.GetAvoidPodsFromNodeAnnotations` decodes a
`v1.AvoidPods`, then `validatePreferAvoidPodsEntry`: a `podController` required, its `controller` true).

Each value is decoded as Go's `encoding/json.Unmarshal` does it: a syntax error (wire/gojson.py) or the first
`UnmarshalTypeError` (with its struct and field context; fields matched case-insensitively), a bad `timeAdded`/
`evictionTime` (`metav1.Time.UnmarshalJSON`: a hard error, returned even after a type error). An entry whose
`podController` has no `controller` is dereferenced as a nil `*bool` upstream: kube-apiserver panics (500)."""
from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from ..apierrors import FieldError, GoPanic, field_invalid, field_required
from ..wire.gojson import syntax_error
from ..wire.gotypes import kind_word, time_error

TaintCheck = Callable[[Any, str], list[FieldError]]  # nodevalidation.taint_errors (which imports this module)

TAINTS_KEY = "scheduler.alpha.kubernetes.io/taints"
AVOID_PODS_KEY = "scheduler.alpha.kubernetes.io/preferAvoidPods"
PATH = "metadata.annotations"

# Go types: ("struct", name, ((json name, type), ...)), ("slice", type), ("ptr", type), ("str", go name),
# ("bool",), ("time",)
_STR = ("str", "string")
_TAINT = ("struct", "core.Taint", (("Key", _STR), ("Value", _STR), ("Effect", ("str", "core.TaintEffect")),
                                   ("TimeAdded", ("ptr", ("time",)))))
_OWNER = ("struct", "v1.OwnerReference", (("apiVersion", _STR), ("kind", _STR), ("name", _STR),
                                          ("uid", ("str", "types.UID")), ("controller", ("ptr", ("bool",))),
                                          ("blockOwnerDeletion", ("ptr", ("bool",)))))
_ENTRY = ("struct", "v1.PreferAvoidPodsEntry", (
    ("podSignature", ("struct", "v1.PodSignature", (("podController", ("ptr", _OWNER)),))),
    ("evictionTime", ("time",)), ("reason", _STR), ("message", _STR)))
_AVOID_PODS = ("struct", "v1.AvoidPods", (("preferAvoidPods", ("slice", _ENTRY)),))


class _Object(list):  # type: ignore[type-arg]
    """A JSON object as its (key, value) pairs in document order (Go assigns each, the last one staying)."""


def _kind(v: Any) -> str:
    return "object" if isinstance(v, _Object) else kind_word(v)


class _Hard(Exception):
    """An error an `UnmarshalJSON` returned: decoding stops there."""


def _go_name(typ: tuple[Any, ...]) -> str:
    kind = typ[0]
    if kind == "slice":
        return "[]" + _go_name(typ[1])
    if kind == "ptr":
        return _go_name(typ[1])
    return {"bool": "bool", "time": "v1.Time"}.get(kind) or typ[1]


class _Decoder:
    """One `json.Unmarshal`: the first saved `UnmarshalTypeError`, with `errorContext` (the innermost struct's
    name and the JSON field names down to the value)."""

    def __init__(self) -> None:
        self.saved: str | None = None
        self.struct = ""
        self.stack: list[str] = []

    def _error(self, got: str, go_type: str) -> str:
        if self.struct or self.stack:
            field = ".".join(self.stack)
            return f"json: cannot unmarshal {got} into Go struct field {self.struct}.{field} of type {go_type}"
        return f"json: cannot unmarshal {got} into Go value of type {go_type}"

    def _save(self, got: str, typ: tuple[Any, ...]) -> None:
        if self.saved is None:
            self.saved = self._error(got, _go_name(typ))

    def value(self, v: Any, typ: tuple[Any, ...]) -> Any:
        kind = typ[0]
        if v is None:
            return None
        if kind == "ptr":
            return self.value(v, typ[1])
        if kind == "time":  # metav1.Time.UnmarshalJSON: json.Unmarshal(b, &str), then time.Parse(RFC3339)
            if not isinstance(v, str):
                raise _Hard(self._error(_kind(v), "string"))
            err = time_error(v)
            if err:
                raise _Hard(err)
            return v
        if kind == "str" or kind == "bool":
            ok = isinstance(v, bool) if kind == "bool" else isinstance(v, str)
            if not ok:
                self._save(_kind(v), typ)
                return None
            return v
        if kind == "slice":
            if not isinstance(v, list) or isinstance(v, _Object):
                self._save(_kind(v), typ)
                return None
            return [self.value(item, typ[1]) for item in v]
        if not isinstance(v, _Object):
            self._save(_kind(v), typ)
            return None
        return self._struct(v, typ)

    def _struct(self, pairs: list[tuple[str, Any]], typ: tuple[Any, ...]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        fields = dict(typ[2])
        for key, item in pairs:
            name = key if key in fields else next((f for f in fields if f.lower() == key.lower()), None)
            if name is None:
                continue  # unknown fields are ignored
            saved = (self.struct, self.stack)
            self.struct, self.stack = typ[1].split(".", 1)[1], [*self.stack, name]
            try:
                out[name] = self.value(item, fields[name])
            finally:
                self.struct, self.stack = saved
        return out


def unmarshal(text: str, typ: tuple[Any, ...]) -> tuple[Any, str | None]:
    """`json.Unmarshal([]byte(text), &v)` into `typ`: the decoded value (objects as dicts) and Go's error."""
    err = syntax_error(text.encode())
    if err:
        return None, err
    raw = json.loads(text, object_pairs_hook=_Object)
    decoder = _Decoder()
    try:
        value = decoder.value(raw, typ)
    except _Hard as exc:
        return None, str(exc)
    return value, decoder.saved


def _taints(text: str, taint_errors: TaintCheck) -> list[FieldError]:
    """`ValidateTaintsInNodeAnnotations`."""
    taints, err = unmarshal(text, ("slice", _TAINT))
    if err:
        return [field_invalid(PATH, TAINTS_KEY, err)]
    rows = [{k[0].lower() + k[1:]: v for k, v in (t or {}).items()} for t in taints or []]
    return taint_errors(rows, f"{PATH}.{TAINTS_KEY}") if rows else []


def _avoid_pods(text: str) -> list[FieldError]:
    """`ValidateAvoidPodsInNodeAnnotations` and `validatePreferAvoidPodsEntry`."""
    avoid, err = unmarshal(text, _AVOID_PODS)
    if err:
        return [field_invalid(f"{PATH}.AvoidPods", AVOID_PODS_KEY, err)]
    errs: list[FieldError] = []
    for i, entry in enumerate((avoid or {}).get("preferAvoidPods") or []):
        here = f"{PATH}.{AVOID_PODS_KEY}[{i}]"
        controller = ((entry or {}).get("podSignature") or {}).get("podController")
        if controller is None:
            errs.append(field_required(f"{here}.PodSignature"))
        elif controller.get("controller") is None:
            raise GoPanic("runtime error: invalid memory address or nil pointer dereference")
        elif controller["controller"] is False:
            errs.append(field_invalid(f"{here}.PodSignature.PodController.Controller", False,
                                      "must point to a controller"))
    return errs


def annotation_errors(node: dict[str, Any], taint_errors: TaintCheck) -> list[FieldError]:
    """`ValidateNodeSpecificAnnotations(node.annotations, metadata.annotations)`; `taint_errors` is
    `validateNodeTaints`."""
    annotations = (node.get("metadata") or {}).get("annotations")
    if not isinstance(annotations, dict):
        return []
    errs: list[FieldError] = []
    if isinstance(annotations.get(TAINTS_KEY), str) and annotations[TAINTS_KEY]:
        errs += _taints(annotations[TAINTS_KEY], taint_errors)
    if isinstance(annotations.get(AVOID_PODS_KEY), str) and annotations[AVOID_PODS_KEY]:
        errs += _avoid_pods(annotations[AVOID_PODS_KEY])
    return errs


__all__ = ["AVOID_PODS_KEY", "TAINTS_KEY", "annotation_errors", "unmarshal"]
