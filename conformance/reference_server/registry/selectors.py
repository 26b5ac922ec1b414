"""Label selectors (equality and set-based) and field selectors, as `labels.Parse` / `fields.ParseSelector`."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable

from ..apierrors import bad_request
from ..gofmt import go_quote
from .validation import is_label_value, is_qualified_name


@dataclass(frozen=True)
class Requirement:
    key: str
    op: str  # =, ==, !=, in, notin, exists, !
    values: tuple[str, ...] = ()

    def matches(self, labels: dict[str, str]) -> bool:
        has = self.key in labels
        v = labels.get(self.key)
        if self.op in ("=", "==", "in"):
            return has and v in self.values
        if self.op in ("!=", "notin"):
            return not has or v not in self.values
        if self.op == "exists":
            return has
        return not has  # "!"


_TOKEN = re.compile(r"\s*(\(|\)|,|!=|==|=|!|[^\s(),!=]+)")


def _tokens(s: str) -> list[str]:
    out, pos = [], 0
    while pos < len(s):
        m = _TOKEN.match(s, pos)
        if not m or m.end() == pos:
            break
        out.append(m.group(1))
        pos = m.end()
        if s[pos:].strip() == "":
            break
    return out


def parse_label_selector(s: str) -> list[Requirement]:
    """Parse a label selector; malformed ⇒ 400 BadRequest with a labels-parser style message."""
    s = s or ""
    toks = _tokens(s)
    reqs: list[Requirement] = []
    i = 0

    def fail(msg: str) -> None:
        raise bad_request(f"unable to parse requirement: {msg}")

    def check_key(k: str) -> None:
        errs = is_qualified_name(k)
        if errs:
            fail(f"<nil>: Invalid value: {go_quote(k)}: {'; '.join(errs)}")  # `validateLabelKey`

    def check_vals(vals: list[str]) -> None:
        """`NewRequirement`'s `validateLabelValue` of each value (the parsed set, sorted), aggregated."""
        texts = [f"values[{n}][{key}]: Invalid value: {go_quote(v)}: {'; '.join(errs)}"
                 for n, v in enumerate(vals) if (errs := is_label_value(v))]
        if texts:
            fail(texts[0] if len(texts) == 1 else "[" + ", ".join(texts) + "]")

    while i < len(toks):
        if toks[i] == "!":
            if i + 1 >= len(toks):
                raise bad_request("found '', expected: identifier after '!'")
            key = toks[i + 1]
            check_key(key)
            reqs.append(Requirement(key, "!"))
            i += 2
        else:
            key = toks[i]
            if key in ("(", ")", ",", "=", "==", "!="):
                raise bad_request(f"found '{key}', expected: !, identifier, or 'end of string'")
            check_key(key)
            i += 1
            if i >= len(toks) or toks[i] == ",":
                reqs.append(Requirement(key, "exists"))
            else:
                op = toks[i]
                i += 1
                if op in ("=", "==", "!="):
                    val = ""
                    if i < len(toks) and toks[i] not in (",", "(", ")"):
                        val = toks[i]
                        i += 1
                    check_vals([val])
                    reqs.append(Requirement(key, op, (val,)))
                elif op in ("in", "notin"):
                    if i >= len(toks) or toks[i] != "(":
                        raise bad_request(f"found '{toks[i] if i < len(toks) else ''}', expected: '('")
                    i += 1
                    pieces = [""]  # `parseValues`: comma-separated identifiers, an empty piece (`()`, `(,a)`) is ""
                    while i < len(toks) and toks[i] != ")":
                        if toks[i] == ",":
                            pieces.append("")
                        elif pieces[-1]:
                            raise bad_request(f"unable to parse requirement: found '{toks[i]}', expected: ',' or ')'")
                        else:
                            pieces[-1] = toks[i]
                        i += 1
                    if i >= len(toks):
                        raise bad_request("found '', expected: ')'")
                    i += 1
                    vals = sorted(set(pieces))  # `values.List()`: the set, sorted
                    check_vals(vals)
                    reqs.append(Requirement(key, op, tuple(vals)))
                else:
                    raise bad_request(f"found '{op}', expected: in, notin, =, ==, !=, gt, lt")
        if i < len(toks):
            if toks[i] != ",":
                raise bad_request(f"found '{toks[i]}', expected: ',' or 'end of string'")
            i += 1
            if i >= len(toks):
                raise bad_request("found '', expected: identifier")
    return reqs


def labels_match(reqs: list[Requirement], labels: dict[str, str] | None) -> bool:
    labels = labels or {}
    return all(r.matches(labels) for r in reqs)


@dataclass(frozen=True)
class FieldRequirement:
    field: str
    op: str  # = or !=
    value: str


def parse_field_selector(s: str, allowed: tuple[str, ...], custom_labels: bool) -> list[FieldRequirement]:
    """Parse `a=b,c!=d`; labels outside `allowed` ⇒ 400 with upstream's conversion-error text (NS-26, NS-82)."""
    reqs: list[FieldRequirement] = []
    for term in (s or "").split(","):
        if not term.strip():
            continue
        m = re.match(r"^([^=!]*)(!=|==|=)(.*)$", term)
        if not m:
            raise bad_request(f"invalid selector: '{s}'; can't understand '{term}'")
        field, op, value = m.group(1).strip(), m.group(2), m.group(3)
        if field not in allowed:
            if custom_labels:
                raise bad_request(f"field label not supported: {field}")
            raise bad_request(f'"{field}" is not a known field selector: only "metadata.name", "metadata.namespace"')
        reqs.append(FieldRequirement(field, "!=" if op == "!=" else "=", value))
    return reqs


def selects_exactly(s: str | None, field: str) -> bool:
    """Whether the field selector `s` (already parsed once, so valid) requires `field` to equal a value
    (`fields.Selector.RequiresExactMatch`): what lets the watch cache read an index on that field."""
    for term in (s or "").split(","):
        m = re.match(r"^([^=!]*)(==|=)", term)
        if m and m.group(1).strip() == field:
            return True
    return False


def field_value(obj: dict[str, Any], path: str) -> str:
    cur: Any = obj
    for part in path.split("."):
        if not isinstance(cur, dict):
            return ""
        cur = cur.get(part)
    if cur is None:
        return ""
    return cur if isinstance(cur, str) else str(cur)


def fields_match(reqs: list[FieldRequirement], obj: dict[str, Any]) -> bool:
    for r in reqs:
        v = field_value(obj, r.field)
        if (v == r.value) != (r.op == "="):
            return False
    return True


def make_predicate(label_sel: str | None, field_sel: str | None, allowed: tuple[str, ...],
                   custom_labels: bool) -> Callable[[dict[str, Any]], bool]:
    """One matcher for list filtering and watch selector transitions."""
    lreqs = parse_label_selector(label_sel or "")
    freqs = parse_field_selector(field_sel or "", allowed, custom_labels)
    if not lreqs and not freqs:
        return lambda obj: True
    return lambda obj: labels_match(lreqs, obj.get("metadata", {}).get("labels")) and fields_match(freqs, obj)
