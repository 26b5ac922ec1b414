"""`structuredMergeManager.Apply`'s last step for a built-in kind (upstream
`managedfields/internal/structuredmerge.go` `toVersioned`, through `runtime.Scheme.unstructuredToTyped` and
`runtime/converter.go` `fromUnstructured`): the merged object, which structured-merge-diff typed, must also
convert into the Go type. Where it does not, upstream answers 500 `failed to convert new object (<ns>/<name>;
<gvk>) to proper version: unable to convert unstructured object to <gvk>: <error>`.

Two of the Go decoder's refusals (wire/gotypes.py words) are what the converter says too: a number with a
fraction for an integer field (`cannot convert float64 to int32`: every number of an apply body is a float64)
and a list, an object, a fraction or a number out of the int32 range for an int-or-string (its `UnmarshalJSON`,
called alone: `json: cannot unmarshal array into Go value of type int32`, `gotypes.FieldTypeError.bare`). An
integral number out of an integer field's range converts silently upstream (Go's conversion wraps it) and is
left to the caller's decoding error here."""
from __future__ import annotations

import re
from typing import Any

_FRACTION = re.compile(r"^json: cannot unmarshal number (\S+) into Go struct field \S+ of type (u?int(?:8|16|32|64)?)$")


def convert_error(config: dict[str, Any], go_error: str | None) -> str | None:
    """Upstream's 500 text for the Go decoding error `go_error` of the object merged from `config`, or None
    when upstream's converter would not refuse it that way."""
    if not go_error:
        return None
    detail = None
    if getattr(go_error, "bare", None):  # a type's own UnmarshalJSON, which the converter calls too
        detail = go_error.bare  # type: ignore[attr-defined]
    elif (found := _FRACTION.match(go_error)) is not None:
        try:
            number = float(found.group(1))
        except ValueError:
            return None
        if number == int(number):
            return None
        detail = f"cannot convert float64 to {found.group(2)}"
    if detail is None:
        return None
    meta = config.get("metadata") if isinstance(config.get("metadata"), dict) else {}
    where = "/".join(v if isinstance(v, str) else "" for v in (meta.get("namespace"), meta.get("name")))
    group, _, version = str(config.get("apiVersion") or "").rpartition("/")
    kind = config.get("kind") if isinstance(config.get("kind"), str) else ""
    gvk = f"{group}/{version}, Kind={kind}"
    return (f"failed to convert new object ({where}; {gvk}) to proper version: unable to convert unstructured "
            f"object to {gvk}: {detail}")
