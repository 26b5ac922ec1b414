"""An `Accept` header's clauses as github.com/munnerz/goautoneg's `ParseAccept` reads them (v0.0.0-20191010083416-
a7dc8b61c822, what kube-apiserver 1.33 and kube-openapi vendor): the parser behind every output negotiation
upstream (apiserver `negotiation.NegotiateMediaTypeOptions`, kube-openapi's `/openapi/v2` and `/openapi/v3`
handlers).

Its rules, which a client can tell from a lenient parser's:
* nothing is lower-cased: `Application/JSON` is a type no server offers (kube-apiserver answers 406 when it is all
  the header asks for), `Pretty=1` a parameter nobody reads;
* only spaces (not tabs) are trimmed, around a clause, its type, its subtype, a parameter's name and value; a
  parameter's value keeps its quotes (`pretty="1"` is not `pretty=1`);
* a clause without a `/` is dropped unless it is `*` (read as `*/*`), as is one with a second `/` followed by
  anything; a parameter without `=`, with an empty value, or with a second `=` followed by anything is dropped;
* `q` is `strconv.ParseFloat(value, 32)` of the value as written (not trimmed, gostrconv.py): what does not parse
  is 0, what overflows float32 is ±Inf; the last `q` wins, as the last of a repeated parameter does;
* the clauses are sorted by Go's `sort.Sort` (gosort.py) with goautoneg's `Less` (higher q first, else a concrete
  type before `*`, else a concrete subtype before `*`), which is not a strict weak order: a concrete clause may
  come before a wildcard with a higher q, depending on which pairs Go's algorithm compares.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..goport import gosort
from ..goport.gostrconv import parse_float

__all__ = ["Accept", "parse_accept"]


@dataclass(frozen=True)
class Accept:
    """One clause: `type`/`subtype` as written (spaces trimmed), `q`, and the parameters but `q`."""

    type: str
    subtype: str
    q: float = 1.0
    params: dict[str, str] = field(default_factory=dict, compare=False, hash=False)


def _less(a: Accept, b: Accept) -> bool:
    """goautoneg's `acceptSlice.Less`."""
    if a.q > b.q:
        return True
    if a.type != "*" and b.type == "*":
        return True
    return a.subtype != "*" and b.subtype == "*"


def _split(s: str, sep: str) -> tuple[str, str]:
    """`nextSplitElement`: before and after the first `sep` (after is empty when there is none)."""
    before, _, after = s.partition(sep)
    return before, after


def parse_accept(header: str) -> list[Accept]:
    """`goautoneg.ParseAccept(header)`: the clauses, best first."""
    out: list[Accept] = []
    remaining = header
    while remaining:
        part, remaining = _split(remaining, ",")
        part = part.strip(" ")
        media, params_text = _split(part, ";")
        typ, rest = _split(media, "/")
        typ = typ.strip(" ")
        if not rest:
            if typ != "*":
                continue
            sub = "*"
        else:
            sub, rest = _split(rest, "/")
            if rest:
                continue
            sub = sub.strip(" ")
        q = 1.0
        params: dict[str, str] = {}
        while params_text:
            param, params_text = _split(params_text, ";")
            name, rest = _split(param, "=")
            if not rest:
                continue
            value, rest = _split(rest, "=")
            if rest:
                continue
            name = name.strip(" ")
            if name == "q":
                q = parse_float(value, 32)[0]  # `a.Q, _ = strconv.ParseFloat(sp1, 32)`
            else:
                params[name] = value.strip(" ")
        out.append(Accept(typ, sub, q, params))
    gosort.sort(out, _less)
    return out
