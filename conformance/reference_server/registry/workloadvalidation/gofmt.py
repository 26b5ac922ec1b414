"""Go's `%#v` of the values the apps/batch validation puts in its messages: `field.ErrorBody` prints a struct
that is not a `fmt.Stringer` with `%#v`; a pointer set by the decoder has an address no one can reproduce, shown
here as `0xc000000000`."""
from __future__ import annotations

import json
from typing import Any

from ..shapes import as_dict

ADDRESS = "0xc000000000"


def go_string_map(value: Any) -> str:
    """`%#v` of a `map[string]string` (keys sorted; nil for an absent map)."""
    if not isinstance(value, dict):
        return "map[string]string(nil)"
    return "map[string]string{" + ", ".join(f"{json.dumps(k)}:{json.dumps(v)}" for k, v in sorted(value.items())) + "}"


def _strings(values: Any) -> str:
    if not isinstance(values, list):
        return "[]string(nil)"
    return "[]string{" + ", ".join(json.dumps(str(v)) for v in values) + "}"


def go_label_selector(selector: Any) -> str:
    """`%#v` of a `metav1.LabelSelector`."""
    sel = as_dict(selector)
    exprs = sel.get("matchExpressions")
    if isinstance(exprs, list):
        items = ", ".join(
            f"v1.LabelSelectorRequirement{{Key:{json.dumps(str(as_dict(r).get('key') or ''))}, "
            f"Operator:{json.dumps(str(as_dict(r).get('operator') or ''))}, "
            f"Values:{_strings(as_dict(r).get('values'))}}}" for r in exprs)
        shown = "[]v1.LabelSelectorRequirement{" + items + "}"
    else:
        shown = "[]v1.LabelSelectorRequirement(nil)"
    return f"v1.LabelSelector{{MatchLabels:{go_string_map(sel.get('matchLabels'))}, MatchExpressions:{shown}}}"


def go_pointer(value: Any, go_type: str) -> str:
    """`%#v` of a pointer field inside a struct: nil, or an address."""
    return f"({go_type})(nil)" if value is None else f"({go_type})({ADDRESS})"


def int_or_string(value: Any) -> str:
    """`%#v` of an `intstr.IntOrString` (its `String()` has a pointer receiver: field.Invalid prints the struct)."""
    if isinstance(value, str):
        return f"intstr.IntOrString{{Type:1, IntVal:0, StrVal:{json.dumps(value)}}}"
    return f'intstr.IntOrString{{Type:0, IntVal:{value if isinstance(value, int) else 0}, StrVal:""}}'
