"""`structuredMergeManager.Apply`'s last step for a built-in kind (upstream
`managedfields/internal/structuredmerge.go` `toVersioned`, through `runtime.Scheme.unstructuredToTyped` and
`runtime/converter.go` `fromUnstructured`): the merged object, which structured-merge-diff typed, must also
convert into the Go type. Where it does not, upstream answers 500 `failed to convert new object (<ns>/<name>;
<gvk>) to proper version: unable to convert unstructured object to <gvk>: <error>`.

For a kind of the field model the converter itself is wire/goconvert.py, for a CRD and an APIService
wire/jsonkindconvert.py (`failed_to_convert` words its error). For the other kinds outside it (custom resources:
their metadata), `convert_error` reads the Go decoder's refusal (wire/gotypes.py words) where the converter says
the same: a number with a fraction for an integer field (`cannot convert float64 to int32`: a number with a
fraction is a float64 there) and an `UnmarshalJSON`'s error, which the converter gets alone
(`gotypes.FieldTypeError.bare`)."""
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
    return failed_to_convert(config, detail)


def failed_to_convert(config: dict[str, Any], detail: str) -> str:
    """`failed to convert new object (<ns>/<name>; <gvk>) to proper version: unable to convert unstructured
    object to <gvk>: <detail>`, the object named as the applied configuration names it (`objectGVKNN`)."""
    meta = config.get("metadata") if isinstance(config.get("metadata"), dict) else {}
    where = "/".join(v if isinstance(v, str) else "" for v in (meta.get("namespace"), meta.get("name")))
    group, _, version = str(config.get("apiVersion") or "").rpartition("/")
    kind = config.get("kind") if isinstance(config.get("kind"), str) else ""
    gvk = f"{group}/{version}, Kind={kind}"
    return (f"failed to convert new object ({where}; {gvk}) to proper version: unable to convert unstructured "
            f"object to {gvk}: {detail}")
