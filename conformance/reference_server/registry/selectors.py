"""Label and field selectors of a LIST or watch: parsed as `labels.Parse` (labelselector.py) and
`fields.ParseSelector` (fieldselector.py) parse them, answered as apiserver's get.go answers a refusal (400
BadRequest with the parser's text), and turned into one predicate."""
from __future__ import annotations

from functools import lru_cache
from typing import Any, Callable

from ..apierrors import bad_request
from ..goport.gofmt import go_quote
from . import fieldselector, labelselector
from .fieldselector import FieldTerm
from .labelselector import LabelRequirement, SelectorSyntaxError
from .selectablefields import field_value


@lru_cache(maxsize=256)  # a selector is parsed twice a request (`check_syntax`, then `make_predicate`)
def _parse_labels(s: str) -> tuple[LabelRequirement, ...]:
    return tuple(labelselector.parse(s))


@lru_cache(maxsize=256)
def _parse_field_terms(s: str) -> tuple[FieldTerm, ...]:
    return tuple(fieldselector.parse(s))


def parse_label_selector(s: str) -> tuple[LabelRequirement, ...]:
    """`labels.Parse`; refused ⇒ 400 BadRequest with the parser's own text (get.go: `NewBadRequest(err.Error())`)."""
    try:
        return _parse_labels(s or "")
    except SelectorSyntaxError as e:
        raise bad_request(str(e)) from None


def labels_match(reqs: tuple[LabelRequirement, ...], labels: dict[str, str] | None) -> bool:
    labels = labels or {}
    return all(r.matches(labels) for r in reqs)


def _parse_fields(s: str) -> tuple[FieldTerm, ...]:
    """`fields.ParseSelector`; refused ⇒ 400 BadRequest with its text."""
    try:
        return _parse_field_terms(s or "")
    except SelectorSyntaxError as e:
        raise bad_request(str(e)) from None


def check_syntax(label_sel: str | None, field_sel: str | None) -> None:
    """What `DecodeParameters` refuses (400) before `ValidateListOptions` (422) and before any field label is
    checked (get.go `ListResource`, delete.go `DeleteCollection`): the label selector, then the field selector."""
    parse_label_selector(label_sel or "")
    _parse_fields(field_sel or "")


_RENAMED = {("Pod", "spec.host"): "spec.nodeName"}  # pods' conversion func: what old v1 clients send


def convert_field_labels(terms: tuple[FieldTerm, ...], allowed: tuple[str, ...], custom_labels: bool,
                         kind: str = "") -> tuple[FieldTerm, ...]:
    """get.go's `FieldSelector.Transform(ConvertFieldLabel)`, term by term in the parsed (sorted) order: a kind's
    own conversion func says `field label not supported: %s` (and renames pods' `spec.host`),
    `DefaultMetaV1FieldSelectorConversion` says `%q is not a known field selector: only %q, %q` (NS-26, NS-82)."""
    out = []
    for t in terms:
        field = _RENAMED.get((kind, t.field), t.field)
        if field not in allowed:
            if custom_labels:
                raise bad_request(f"field label not supported: {t.field}")
            raise bad_request(f'{go_quote(t.field)} is not a known field selector: only "metadata.name", '
                              '"metadata.namespace"')
        out.append(t if field == t.field else FieldTerm(field, t.op, t.value))
    return tuple(out)


def parse_field_selector(s: str, allowed: tuple[str, ...], custom_labels: bool,
                         kind: str = "") -> tuple[FieldTerm, ...]:
    """Parse a field selector and convert its field labels, as a LIST does."""
    return convert_field_labels(_parse_fields(s), allowed, custom_labels, kind)


def exact_match(s: str | None, field: str, kind: str = "") -> str | None:
    """The value the field selector `s` (already parsed once, so valid) requires `field` to equal, None when it
    requires none (`fields.Selector.RequiresExactMatch`: the first `=` term on it in the sorted order), read on
    the selector as get.go's `Transform(ConvertFieldLabel)` handed it to storage, so a pod's `spec.host` is
    `spec.nodeName`: what lets the watch cache read an index on that field (`SelectionPredicate.MatcherIndex`)."""
    for t in _parse_fields(s or ""):
        if t.op == "=" and _RENAMED.get((kind, t.field), t.field) == field:
            return t.value
    return None


def selects_exactly(s: str | None, field: str, kind: str = "") -> bool:
    """Whether `exact_match` finds a value."""
    return exact_match(s, field, kind) is not None


def fields_match(reqs: tuple[FieldTerm, ...], obj: dict[str, Any], kind: str = "") -> bool:
    for r in reqs:
        if (field_value(kind, obj, r.field) == r.value) != (r.op == "="):
            return False
    return True


def EVERYTHING(obj: dict[str, Any]) -> bool:  # noqa: N802 - `labels.Everything()`'s counterpart
    """The predicate of a LIST or watch without selectors (nothing to judge: no conversion needed for it)."""
    return True


def make_predicate(label_sel: str | None, field_sel: str | None, allowed: tuple[str, ...],
                   custom_labels: bool, kind: str = "") -> Callable[[dict[str, Any]], bool]:
    """One matcher for list filtering and watch selector transitions."""
    lreqs = parse_label_selector(label_sel or "")  # `DecodeParameters`: labels first, then fields
    freqs = parse_field_selector(field_sel or "", allowed, custom_labels, kind)
    if not lreqs and not freqs:
        return EVERYTHING
    return lambda obj: labels_match(lreqs, obj.get("metadata", {}).get("labels")) and fields_match(freqs, obj, kind)
