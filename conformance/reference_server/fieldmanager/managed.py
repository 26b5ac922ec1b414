"""managedFields entries: decoding, manager identity and encoding (upstream `managedfields/internal`
`managedfields.go` and `buildmanagerinfo.go`)."""
from __future__ import annotations

import datetime as _dt
import json
from dataclasses import dataclass
from typing import Any

from . import fieldpath as fp
from .fieldpath import FieldSet
from ..goport.gonet.strconv import quote

APPLY, UPDATE = "Apply", "Update"


def now() -> str:
    """metav1.Time: RFC 3339, second precision, UTC."""
    return _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class Entry:
    manager: str
    operation: str
    api_version: str
    subresource: str = ""
    time: str | None = None
    fields: FieldSet = frozenset()

    @property
    def ident(self) -> tuple[str, str, str, str]:
        """`BuildManagerIdentifier`: appliers are one manager whatever the apiVersion they applied with."""
        return (self.manager, self.operation, "" if self.operation == APPLY else self.api_version, self.subresource)

    def ident_json(self) -> str:
        """The identifier's JSON, as upstream sorts managers in a conflict message."""
        d: dict[str, str] = {}
        m, op, av, sub = self.ident
        for k, v in (("manager", m), ("operation", op), ("apiVersion", av), ("subresource", sub)):
            if v:
                d[k] = v
        return json.dumps(d, separators=(",", ":"))

    def describe(self) -> str:
        """`printManager`: `"mgr"`, `"mgr" with subresource "status"`, `"mgr" using v1` for updaters."""
        out = quote(self.manager)
        if self.subresource:
            out += f" with subresource {quote(self.subresource)}"
        if self.operation == UPDATE:
            out += f" using {self.api_version}"
        return out


def is_reset(entries: Any) -> bool:
    """`isResetManagedFields`: `managedFields: [{}]` asks to clear them."""
    return isinstance(entries, list) and len(entries) == 1 and entries[0] == {}


def decode(entries: Any) -> list[Entry]:
    """`DecodeManagedFields`; malformed entries raise ValueError (callers fall back as upstream does)."""
    if entries is None:
        return []
    if not isinstance(entries, list):
        raise ValueError("managedFields must be a list")
    out: dict[tuple[str, str, str, str], Entry] = {}
    for e in entries:
        if not isinstance(e, dict):
            raise ValueError("managedFields entry must be an object")
        if e.get("fieldsType") != "FieldsV1":
            raise ValueError(f"invalid fieldsType {e.get('fieldsType')!r}")
        op = e.get("operation")
        if op not in (APPLY, UPDATE):
            raise ValueError(f"invalid operation {op!r}")
        entry = Entry(str(e.get("manager") or ""), op, str(e.get("apiVersion") or ""),
                      str(e.get("subresource") or ""), e.get("time") if isinstance(e.get("time"), str) else None,
                      fp.from_fields_v1(e.get("fieldsV1") or {}))
        out[entry.ident] = entry
    return list(out.values())


def encode(entries: list[Entry]) -> list[dict[str, Any]]:
    """`encodeManagedFields` + `sortEncodedManagedFields`: Apply before Update, then oldest first."""
    ordered = sorted(entries, key=lambda e: (e.operation, e.time or "", e.manager, e.api_version, e.subresource))
    out = []
    for e in ordered:
        d: dict[str, Any] = {"manager": e.manager, "operation": e.operation, "apiVersion": e.api_version}
        if not e.manager:
            del d["manager"]
        if e.time:
            d["time"] = e.time
        d["fieldsType"] = "FieldsV1"
        d["fieldsV1"] = fp.to_fields_v1(e.fields)
        if e.subresource:
            d["subresource"] = e.subresource
        out.append(d)
    return out
