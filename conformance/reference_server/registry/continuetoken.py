"""A LIST's `continue` token written and read as storage writes and reads it, its refusals in upstream's words.

Follows k8s.io/apiserver v0.33.1 `pkg/storage/continue.go` `DecodeContinue` (`base64.RawURLEncoding`, then
`json.Unmarshal` into `continueToken{v, rv, start}`, then the version's checks and `path.Clean` of the start key)
and `pkg/storage/interfaces.go` `ValidateListOptions`, which answers every such error as
`NewBadRequest("invalid continue token: " + err)`: the base64 decoder's `illegal base64 data at input byte N`
(Go's `decodeQuantum`: no padding, CR and LF skipped), encoding/json's syntax and type errors, each word for word.
A nesting deeper than Python's decoder follows is refused as Go refuses one past its 10000 levels.

The start key is relative to the list's key prefix: `DecodeContinue` returns `keyPrefix + cleaned[1:]` (the start
with one leading `/` dropped) and `EncodeContinue(key, keyPrefix, rv)` writes `strings.TrimPrefix(key, keyPrefix)`
with `json.Marshal` (HTML-safe) and `base64.RawURLEncoding`; `PrepareContinueToken` passes the page's last key
with `"\x00"` appended (the first key after it). See `list_key` for which prefix a page's token is relative to.
"""
from __future__ import annotations

import base64
import json
import posixpath
import re
from typing import Any

from .. import apierrors as E
from ..goport.gojsonhtml import escape_html, utf8_bytes
from ..goport.gonet.strconv import to_bytes
from ..wire.gojson import syntax_error
from ..wire.textdecode import go_text, replace_lone_surrogates

__all__ = ["decode", "encode", "list_key"]

_URL_ALPHABET = {c: i for i, c in enumerate(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")}
_INVALID = "continue key is not valid"
_INT64 = re.compile(r"-?[0-9]+\Z")
_FIELDS = {"v": "string", "rv": "int64", "start": "string"}  # `continueToken`'s JSON names and Go types


class _Invalid(ValueError):
    """An error `DecodeContinue` returns (its text)."""


class _Number(str):
    """A JSON number's literal (Go's type errors quote it: `number 1.5`)."""


class _Object(list):  # type: ignore[type-arg]
    """A JSON object's (key, value) pairs, in their order."""


def _raw_url_decode(data: bytes) -> bytes:
    """`base64.RawURLEncoding.DecodeString`, or `illegal base64 data at input byte N` (`CorruptInputError`)."""
    out, si, n = bytearray(), 0, len(data)
    while True:
        quantum: list[int] = []
        while len(quantum) < 4:
            if si == n:
                if not quantum:
                    return bytes(out)
                if len(quantum) == 1:
                    raise _Invalid(f"{_INVALID}: illegal base64 data at input byte {si - 1}")
                break
            c = data[si]
            si += 1
            v = _URL_ALPHABET.get(c)
            if v is not None:
                quantum.append(v)
            elif c not in (0x0A, 0x0D):  # (`=` too: this encoding has no padding)
                raise _Invalid(f"{_INVALID}: illegal base64 data at input byte {si - 1}")
        value = 0
        for k in range(4):
            value = value << 6 | (quantum[k] if k < len(quantum) else 0)
        out += value.to_bytes(3, "big")[:len(quantum) - 1]
        if len(quantum) < 4:
            return bytes(out)


def _kind(value: Any) -> str:
    """The `UnmarshalTypeError.Value` of a JSON value."""
    if isinstance(value, _Number):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "bool"
    return "object" if isinstance(value, _Object) else "array"


def _field(name: str, value: Any) -> tuple[Any, str | None]:
    """(the Go value, the type error's text or None) of one of `continueToken`'s fields."""
    go_type = _FIELDS[name]
    wrong = f"json: cannot unmarshal {{}} into Go struct field continueToken.{name} of type {go_type}"
    if go_type == "string":
        if isinstance(value, str) and not isinstance(value, _Number):
            return value, None
        return None, wrong.format(_kind(value))
    if isinstance(value, _Number):  # `literalStore`: `strconv.ParseInt` of the literal, within int64
        if _INT64.match(value) and -(1 << 63) <= int(value) < (1 << 63):
            return int(value), None
        return None, wrong.format(f"number {value}")
    return None, wrong.format(_kind(value))


def _unmarshal(data: bytes) -> dict[str, Any]:
    """`json.Unmarshal(data, &c)`: the fields set (matched as Go matches keys: exactly, else ignoring case), or the
    syntax error, or the first type error (decoding goes on past one, as `saveError` does)."""
    err = syntax_error(data)
    if err is not None:
        raise _Invalid(f"{_INVALID}: {err}")
    try:
        top = json.loads(go_text(data), parse_int=_Number, parse_float=_Number, object_pairs_hook=_Object)
    except RecursionError:  # Go's own limit is 10000 levels (scanner.go `maxNestingDepth`)
        raise _Invalid(f"{_INVALID}: invalid character '{chr(data.lstrip()[0])}' exceeded max depth") from None
    if top is None:  # `null` leaves the token empty
        return {}
    if not isinstance(top, _Object):
        raise _Invalid(f"{_INVALID}: json: cannot unmarshal {_kind(top)} into Go value of type "
                       "storage.continueToken")
    out: dict[str, Any] = {}
    first: str | None = None
    for key, value in top:
        name = key if key in _FIELDS else next((f for f in _FIELDS if f.casefold() == key.casefold()), None)
        if name is None or value is None:  # unknown keys are skipped; `null` leaves a field as it is
            continue
        got, wrong = _field(name, value)
        if wrong is None:
            out[name] = got
        elif first is None:
            first = wrong
    if first is not None:
        raise _Invalid(f"{_INVALID}: {first}")
    return out


def _decode(token: str) -> tuple[str, int]:
    """`DecodeContinue`'s start key relative to the key prefix (`cleaned[1:]`: the token's start without one
    leading `/`, what upstream joins to the prefix) and resourceVersion, or `_Invalid`."""
    c = _unmarshal(_raw_url_decode(to_bytes(token).encode("latin-1")))
    version = c.get("v", "")
    if version != "meta.k8s.io/v1":
        raise _Invalid(f"{_INVALID}: server does not recognize this encoded version {version}")
    rv, start = c.get("rv", 0), c.get("start", "")
    if rv == 0:
        raise _Invalid(f"{_INVALID}: incorrect encoded start resourceVersion (version meta.k8s.io/v1)")
    if not start:
        raise _Invalid(f"{_INVALID}: encoded start key empty (version meta.k8s.io/v1)")
    key = start if start.startswith("/") else "/" + start
    if "/" + posixpath.normpath(key).lstrip("/") != key:  # `path.Clean`: a path traversal is refused
        raise _Invalid(f"{_INVALID}: {start}")
    return replace_lone_surrogates(key[1:]), rv  # (Go's decoder made each lone surrogate U+FFFD)


def decode(token: str) -> tuple[int, str]:
    """The token's resourceVersion and start key (relative to the list's key prefix: the first key to list), or
    `ValidateListOptions`'s 400."""
    try:
        start, rv = _decode(token)
    except _Invalid as exc:
        raise E.bad_request(f"invalid continue token: {exc}") from None
    return rv, start


def encode(rv: int, start: str) -> str:
    """`EncodeContinue`'s token of `start` (the key relative to the prefix, as `list_key` and `decode` give it)."""
    text = json.dumps({"v": "meta.k8s.io/v1", "rv": rv, "start": start}, separators=(",", ":"), ensure_ascii=False)
    return base64.urlsafe_b64encode(utf8_bytes(escape_html(text))).decode().rstrip("=")


def list_key(obj: dict[str, Any], one_namespace: bool, cached: bool = False) -> str:
    """The object's key relative to a LIST's key prefix, which `encode` writes and storage orders keys by.

    etcd3 `store.GetList` (a continued page, an `Exact` or legacy exact one) makes its prefix `/registry/<resource>/`
    or `/registry/<resource>/<namespace>/` (the registry's `KeyRootFunc` key, `/` appended for a recursive list):
    `<namespace>/<name>` across namespaces, else `<name>`. The cacher's `GetList` (a first page the watch cache
    serves: a consistent or not-older-than read) passes `PrepareContinueToken` the `KeyRootFunc` key itself,
    `/<resource>` or `/<resource>/<namespace>` without the `/` (cacher.go: `preparedKey` lists, `key` encodes), so
    its tokens' starts keep a leading `/`: `/<name>`, `/<namespace>/<name>`. `DecodeContinue` reads both alike."""
    meta = obj["metadata"]
    namespace = "" if one_namespace else meta.get("namespace") or ""
    key = f"{namespace}/{meta['name']}" if namespace else meta["name"]
    return "/" + key if cached else key
