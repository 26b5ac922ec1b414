"""Go's `fmt.Sprintf("%#v", v)` of a Go value given as the decoded JSON it came from, with its Go type: what
`field.Error.ErrorBody` prints a bad value with when it is a struct, a slice or a map
(k8s.io/apimachinery v0.33 pkg/util/validation/field/errors.go: a pointer is dereferenced first; int, float and bool
print `%v`, a string `%q`, a `fmt.Stringer` its `String()`, anything else `%#v`).

Follows go/src/fmt/print.go `printValue` (and format.go, time/format.go):
- a struct is its type (`reflect.Type.String()`: the package's name, `v1.OwnerReference`), then `{` each field as
  `Name:value` joined by `, ` `}`, every field in declaration order, an absent one as its zero value;
- a slice or map is its type, then `(nil)` for a nil one or `{` its elements `}` (a map's as `key:value`, keys
  sorted as `fmtsort` sorts them); an empty JSON list is an empty, non-nil slice (`[]string{}`);
- a pointer is `&` and its element at the top (depth 0) when that is a struct, slice, array or map, and
  otherwise (nested, or a pointer to a scalar) `(*T)(nil)` or `(*T)(0xc...)`;
- a string (named string types too: `types.UID`, `v1.Protocol`) is `strconv.Quote`d; a signed integer is its
  decimal digits, an unsigned one `0x` hex (so a nested `[]byte`, i.e. `[]uint8`, is `[]uint8{0x1, 0x2}`, and a
  top-level one `[]byte{0x1, 0x2}`, as `printArg` names it); a float `strconv.FormatFloat(f, 'g', -1, 64)`;
- a value with a `GoString` method prints that, below the top as at it: `metav1.Time` (`time.Time` embedded) is
  `time.Date(2024, time.January, 2, 3, 4, 5, 0, time.Local)` (its `UnmarshalJSON` keeps the time `Local()`, which
  is UTC in kube-apiserver's image), and a nil `*metav1.Time` in a struct is `<nil>` (`GoString` panics on the nil
  receiver; `catchPanic` prints `<nil>`).

A non-nil pointer's address is the heap address of a value decoded in that request: no client can rely on it, so
`ADDRESS`, a fixed value of the width Go's heap addresses have, stands in for every one.

Types are written as Go writes them (`[]v1.OwnerReference`, `*bool`, `map[string]string`); the structs this
server prints are in `STRUCTS`, each field as (Go name, JSON name, Go type), copied from the upstream type
declaration named beside it."""
from __future__ import annotations

import base64
import binascii
import datetime
import re
from typing import Any

from ..goport.gofmt import format_float, go_quote
from ..goport.gotime import TimeError, parse_rfc3339

ADDRESS = "0xc000000000"
_BYTE = re.compile(r"\bbyte\b")

_SIGNED = {"int", "int8", "int16", "int32", "int64"}
_UNSIGNED = {"uint", "uint8", "uint16", "uint32", "uint64", "uintptr", "byte"}
_FLOAT = {"float32", "float64"}
# named scalar types and the kind under them (reflect.Kind): a string kind prints quoted, as any string
NAMED_SCALARS: dict[str, str] = {
    "types.UID": "string",
    "v1.LabelSelectorOperator": "string",
    "apiextensions.ResourceScope": "string",
    "core.TaintEffect": "string",
    "core.PodConditionType": "string",
    "core.ConditionStatus": "string",
    "batch.PodFailurePolicyAction": "string",
    "batch.PodFailurePolicyOnExitCodesOperator": "string",
    "storage.VolumeLifecycleMode": "string",
}
TIME = "v1.Time"  # metav1.Time: a struct embedding time.Time, printed through the promoted GoString

Field = tuple[str, str, str]
STRUCTS: dict[str, tuple[Field, ...]] = {
    # k8s.io/apimachinery v0.33 pkg/apis/meta/v1/types.go
    "v1.OwnerReference": (
        ("APIVersion", "apiVersion", "string"), ("Kind", "kind", "string"), ("Name", "name", "string"),
        ("UID", "uid", "types.UID"), ("Controller", "controller", "*bool"),
        ("BlockOwnerDeletion", "blockOwnerDeletion", "*bool")),
    "v1.LabelSelector": (
        ("MatchLabels", "matchLabels", "map[string]string"),
        ("MatchExpressions", "matchExpressions", "[]v1.LabelSelectorRequirement")),
    "v1.LabelSelectorRequirement": (
        ("Key", "key", "string"), ("Operator", "operator", "v1.LabelSelectorOperator"),
        ("Values", "values", "[]string")),
    # k8s.io/apiextensions-apiserver v0.33 pkg/apis/apiextensions/types.go (the internal types validation sees)
    "apiextensions.CustomResourceDefinitionVersion": (
        ("Name", "name", "string"), ("Served", "served", "bool"), ("Storage", "storage", "bool"),
        ("Deprecated", "deprecated", "bool"), ("DeprecationWarning", "deprecationWarning", "*string"),
        ("Schema", "schema", "*apiextensions.CustomResourceValidation"),
        ("Subresources", "subresources", "*apiextensions.CustomResourceSubresources"),
        ("AdditionalPrinterColumns", "additionalPrinterColumns", "[]apiextensions.CustomResourceColumnDefinition"),
        ("SelectableFields", "selectableFields", "[]apiextensions.SelectableField")),
    "apiextensions.CustomResourceColumnDefinition": (
        ("Name", "name", "string"), ("Type", "type", "string"), ("Format", "format", "string"),
        ("Description", "description", "string"), ("Priority", "priority", "int32"),
        ("JSONPath", "jsonPath", "string")),
    "apiextensions.SelectableField": (("JSONPath", "jsonPath", "string"),),
    # k8s.io/kubernetes v1.33 pkg/apis/core/types.go (internal)
    "core.ObjectReference": (
        ("Kind", "kind", "string"), ("Namespace", "namespace", "string"), ("Name", "name", "string"),
        ("UID", "uid", "types.UID"), ("APIVersion", "apiVersion", "string"),
        ("ResourceVersion", "resourceVersion", "string"), ("FieldPath", "fieldPath", "string")),
    "core.EventSource": (("Component", "component", "string"), ("Host", "host", "string")),
    "core.Taint": (
        ("Key", "key", "string"), ("Value", "value", "string"), ("Effect", "effect", "core.TaintEffect"),
        ("TimeAdded", "timeAdded", "*v1.Time")),
    # k8s.io/kubernetes v1.33 pkg/apis/batch/types.go (internal)
    "batch.PodFailurePolicy": (("Rules", "rules", "[]batch.PodFailurePolicyRule"),),
    "batch.PodFailurePolicyRule": (
        ("Action", "action", "batch.PodFailurePolicyAction"),
        ("OnExitCodes", "onExitCodes", "*batch.PodFailurePolicyOnExitCodesRequirement"),
        ("OnPodConditions", "onPodConditions", "[]batch.PodFailurePolicyOnPodConditionsPattern")),
    "batch.PodFailurePolicyOnExitCodesRequirement": (
        ("ContainerName", "containerName", "*string"),
        ("Operator", "operator", "batch.PodFailurePolicyOnExitCodesOperator"), ("Values", "values", "[]int32")),
    "batch.PodFailurePolicyOnPodConditionsPattern": (
        ("Type", "type", "core.PodConditionType"), ("Status", "status", "core.ConditionStatus")),
    "batch.SuccessPolicy": (("Rules", "rules", "[]batch.SuccessPolicyRule"),),
    "batch.SuccessPolicyRule": (
        ("SucceededIndexes", "succeededIndexes", "*string"), ("SucceededCount", "succeededCount", "*int32")),
    # k8s.io/kubernetes v1.33 pkg/apis/storage/types.go (internal)
    "storage.VolumeAttachmentSpec": (
        ("Attacher", "attacher", "string"), ("Source", "source", "storage.VolumeAttachmentSource"),
        ("NodeName", "nodeName", "string")),
    "storage.VolumeAttachmentSource": (
        ("PersistentVolumeName", "persistentVolumeName", "*string"),
        ("InlineVolumeSpec", "inlineVolumeSpec", "*core.PersistentVolumeSpec")),
}
# structs only ever printed behind a nested pointer (their fields never shown)
OPAQUE = {"apiextensions.CustomResourceValidation", "apiextensions.CustomResourceSubresources",
          "core.PersistentVolumeSpec"}

_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")


def sharp_v(value: Any, go_type: str) -> str:
    """`%#v` of `value` (decoded JSON; None for a nil pointer, slice or map, or an absent field) as a `go_type`."""
    go_type = _BYTE.sub("uint8", go_type)  # `byte` is an alias: reflect names it `uint8`
    if go_type == "[]uint8":  # printArg's `case []byte`: fmtBytes, named `[]byte` whatever the source says
        data = _bytes(value)
        return "[]byte(nil)" if data is None else "[]byte{" + ", ".join(hex(b) for b in data) + "}"
    return _value(value, go_type, 0)


def _value(value: Any, go_type: str, depth: int) -> str:
    if go_type == TIME:
        return go_time(value)
    if go_type.startswith("*"):
        return _pointer(value, go_type, depth)
    if go_type.startswith("[]"):
        return _slice(value, go_type, depth)
    if go_type.startswith("map["):
        return _map(value, go_type, depth)
    if go_type in STRUCTS:
        return _struct(value, go_type, depth)
    return _scalar(value, NAMED_SCALARS.get(go_type, go_type))


def _pointer(value: Any, go_type: str, depth: int) -> str:
    elem = go_type[1:]
    if elem == TIME:  # handleMethods, at any depth: the pointer's promoted GoString (a nil one panics: <nil>)
        return "<nil>" if value is None else go_time(value)
    if value is None:
        return f"({go_type})(nil)"
    if depth == 0 and (elem.startswith(("[]", "map[")) or elem in STRUCTS or elem in OPAQUE):
        return "&" + _value(value, elem, depth + 1)
    return f"({go_type})({ADDRESS})"


def _slice(value: Any, go_type: str, depth: int) -> str:
    elem = go_type[2:]
    if elem == "uint8":
        value = _bytes(value)
    if not isinstance(value, (list, tuple, bytes)):
        return go_type + "(nil)"
    return go_type + "{" + ", ".join(_value(v, elem, depth + 1) for v in value) + "}"


def _bytes(value: Any) -> bytes | None:
    """A `[]byte` field's JSON: base64 text (`encoding/json`), or already bytes."""
    if isinstance(value, (bytes, list)):
        return bytes(value)
    if isinstance(value, str):
        try:
            return base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError):
            return value.encode()
    return None


def _map(value: Any, go_type: str, depth: int) -> str:
    key_type, elem = _split_map(go_type)
    if not isinstance(value, dict):
        return go_type + "(nil)"
    keys = sorted(value, key=(lambda k: int(k)) if key_type in _SIGNED | _UNSIGNED else
                  (lambda k: str(k).encode("utf-8", "surrogatepass")))
    return go_type + "{" + ", ".join(
        f"{_value(k, key_type, depth + 1)}:{_value(value[k], elem, depth + 1)}" for k in keys) + "}"


def _split_map(go_type: str) -> tuple[str, str]:
    """`map[K]V` → (K, V), K may itself hold brackets."""
    level = 0
    for i in range(3, len(go_type)):
        level += {"[": 1, "]": -1}.get(go_type[i], 0)
        if level == 0:
            return go_type[4:i], go_type[i + 1:]
    raise ValueError(f"not a Go map type: {go_type}")


def _struct(value: Any, go_type: str, depth: int) -> str:
    obj = value if isinstance(value, dict) else {}
    return go_type + "{" + ", ".join(
        f"{name}:{_value(obj.get(json_name), typ, depth + 1)}" for name, json_name, typ in STRUCTS[go_type]) + "}"


def _scalar(value: Any, kind: str) -> str:
    if kind == "bool":
        return "true" if value is True else "false"
    if kind in _SIGNED | _UNSIGNED:  # a JSON map's key is the integer's text
        number = int(value) if isinstance(value, (int, float, str)) and not isinstance(value, bool) else 0
        return hex(number) if kind in _UNSIGNED else str(number)
    if kind in _FLOAT:
        return format_float(float(value)) if isinstance(value, (int, float)) and not isinstance(value, bool) \
            else "0"
    if kind == "string":
        return go_quote("" if value is None else str(value))
    raise ValueError(f"no %#v for Go type {kind}")


def _decoded_time(value: Any) -> tuple[datetime.datetime, int, bool]:
    """A `metav1.Time`/`MicroTime` decoded from RFC 3339 text: its UTC civil time, nanoseconds, and whether it is
    set (`UnmarshalJSON` keeps it `Local()`); an absent or unreadable value is the zero time, in UTC."""
    unix, nsec, local = -62135596800, 0, False
    if isinstance(value, str) and value:
        try:
            unix, nsec = parse_rfc3339(value)
            local = True
        except TimeError:
            pass
    t = datetime.datetime(1, 1, 1, tzinfo=datetime.timezone.utc) + datetime.timedelta(seconds=unix + 62135596800)
    return t, nsec, local


def go_time(value: Any) -> str:
    """`time.Time.GoString` (src/time/format.go): `time.Date(...)`, a decoded time in `time.Local` (kube-apiserver's
    zone, UTC, gives the civil time), the zero time in `time.UTC`."""
    t, nsec, local = _decoded_time(value)
    return (f"time.Date({t.year}, time.{_MONTHS[t.month - 1]}, {t.day}, {t.hour}, {t.minute}, {t.second}, "
            f"{nsec}, {'time.Local' if local else 'time.UTC'})")


def time_string(value: Any) -> str:
    """`time.Time.String` (a `fmt.Stringer`, so what `ErrorBody` prints for a `metav1.Time` or `MicroTime`):
    `2006-01-02 15:04:05.999999999 -0700 MST`, the fraction without trailing zeros; UTC, kube-apiserver's `Local`
    (its image has no zone data), and the zero time's zone alike print `+0000 UTC`."""
    t, nsec, _ = _decoded_time(value)
    fraction = f".{nsec:09d}".rstrip("0") if nsec else ""
    return f"{t.year:04d}-{t.month:02d}-{t.day:02d} {t.hour:02d}:{t.minute:02d}:{t.second:02d}{fraction} +0000 UTC"
