"""`library.Format` (`staging/src/k8s.io/apiserver/pkg/cel/library/format.go`, enabled since 1.31):
`format.<name>()`, `format.named(<string>)` (an optional) and `<Format>.validate(<string>)` (optional.none when
valid, else an optional list of upstream's messages: `apimachinery/pkg/util/validation` for the names, strfmt's
texts for `uri`, `uuid`, `byte`, `date`, `datetime`)."""
from __future__ import annotations

import base64
import binascii
import datetime
import re
from collections.abc import Callable
from functools import partial
from typing import Any

from .url import parse_request_uri
from .values import FORMAT, LibraryError, unwrap, wrap

_UUID = re.compile(r"(?i)(^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$)|(^[0-9a-f]{32}$)")
_DATETIME = re.compile(r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:[Zz]|[+-]\d{2}:\d{2})?")


def _names() -> dict[str, Callable[[str], list[str]]]:
    # the validators are apimachinery's; this server keeps them with the registry's field validation
    from ...registry import validation as v

    def prefix(check: Callable[[str], list[str]]) -> Callable[[str], list[str]]:
        # NameIs*(s, true): `maskTrailingDash` turns a trailing "x-" into "a"
        return lambda s: check(s[:-2] + "a" if len(s) > 1 and s.endswith("-") else s)
    return {
        "dns1123Label": v.is_dns1123_label, "dns1123Subdomain": v.is_dns1123_subdomain,
        "dns1035Label": v.is_dns1035_label, "qualifiedName": v.is_qualified_name,
        "dns1123LabelPrefix": prefix(v.is_dns1123_label), "dns1123SubdomainPrefix": prefix(v.is_dns1123_subdomain),
        "dns1035LabelPrefix": prefix(v.is_dns1035_label), "labelValue": v.is_label_value,
    }


def _uri(s: str) -> list[str]:
    try:
        parse_request_uri(s)
    except LibraryError as exc:
        return [str(exc)]
    return []


def _byte(s: str) -> list[str]:
    try:
        base64.b64decode(s, validate=True)
    except (binascii.Error, ValueError):
        return ["invalid base64"]
    return []


def _date(s: str) -> list[str]:
    try:
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", s):
            raise ValueError
        datetime.date.fromisoformat(s)
    except ValueError:
        return ["invalid date"]
    return []


def _datetime(s: str) -> list[str]:
    if not _DATETIME.fullmatch(s):
        return ["invalid datetime"]
    try:
        datetime.date.fromisoformat(s[:10])
    except ValueError:
        return ["invalid datetime"]
    return []


_STRFMT: dict[str, Callable[[str], list[str]]] = {
    "uri": _uri, "uuid": lambda s: [] if _UUID.search(s) else ["does not match the UUID format"],
    "byte": _byte, "date": _date, "datetime": _datetime,
}
NAMES = ("dns1123Label", "dns1123Subdomain", "dns1035Label", "qualifiedName", "dns1123LabelPrefix",
         "dns1123SubdomainPrefix", "dns1035LabelPrefix", "labelValue", *_STRFMT)


def named(name: Any) -> Any:
    from ..engine import native
    if not isinstance(name, str):
        raise LibraryError("no such overload: format.named")
    optional = native().OptionalValue
    return optional.of(wrap(FORMAT, name=name)) if name in NAMES else optional.none()


def validate(fmt: Any, text: Any) -> Any:
    from ..engine import native
    name = unwrap(fmt, FORMAT, "validate")["name"]
    if not isinstance(text, str):
        raise LibraryError("no such overload: validate")
    check = _STRFMT.get(name) or _names()[name]
    errors = check(text)
    optional = native().OptionalValue
    return optional.of(errors) if errors else optional.none()


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "format.named": named, "validate": validate,
    **{f"format.{name}": partial(wrap, FORMAT, name=name) for name in NAMES},
}
