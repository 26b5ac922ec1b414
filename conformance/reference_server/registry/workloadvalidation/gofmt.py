"""Go's `%#v` of the values the apps/batch validation puts in its messages: `field.ErrorBody` prints a struct
that is not a `fmt.Stringer` with `%#v`; a pointer set by the decoder has an address no one can reproduce, shown
here as `0xc000000000`. Strings and string slices print as the package's `gofmt.py` renders them (`strconv.Quote`,
not JSON's escaping: a non-ASCII letter is kept, a control character is `\\t` or `\\x01`)."""
from __future__ import annotations

from typing import Any

from ...goport.gofmt import go_quote, sharp_v_string_map as go_string_map, sharp_v_strings
from ..shapes import as_dict

ADDRESS = "0xc000000000"


def go_label_selector(selector: Any) -> str:
    """`%#v` of a `metav1.LabelSelector`."""
    sel = as_dict(selector)
    exprs = sel.get("matchExpressions")
    if isinstance(exprs, list):
        items = ", ".join(
            f"v1.LabelSelectorRequirement{{Key:{go_quote(str(as_dict(r).get('key') or ''))}, "
            f"Operator:{go_quote(str(as_dict(r).get('operator') or ''))}, "
            f"Values:{sharp_v_strings(as_dict(r).get('values'))}}}" for r in exprs)
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
        return f"intstr.IntOrString{{Type:1, IntVal:0, StrVal:{go_quote(value)}}}"
    return f'intstr.IntOrString{{Type:0, IntVal:{value if isinstance(value, int) else 0}, StrVal:""}}'
