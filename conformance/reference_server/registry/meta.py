"""ObjectMeta bookkeeping shared by every strategy: timestamps, uids, system fields, managedFields."""
from __future__ import annotations

import datetime as _dt
import random
import uuid
from typing import Any

SYSTEM_FIELDS = ("creationTimestamp", "uid", "deletionTimestamp", "deletionGracePeriodSeconds", "selfLink")
_NAME_CHARS = "bcdfghjklmnpqrstvwxz2456789"  # names.SimpleNameGenerator alphabet


def now() -> str:
    """RFC 3339 with second precision, as metav1.Time serialises."""
    return _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def new_uid() -> str:
    return str(uuid.uuid4())


def generate_name(base: str) -> str:
    """`names.SimpleNameGenerator`: base truncated to 58 characters + 5 random characters."""
    return base[:58] + "".join(random.choice(_NAME_CHARS) for _ in range(5))


def wipe_system_fields(meta: dict[str, Any]) -> None:
    """`rest.WipeObjectMetaSystemFields` (NS-15)."""
    for f in SYSTEM_FIELDS:
        meta.pop(f, None)


def fields_v1(obj: Any) -> dict[str, Any]:
    """A FieldsV1 set for the object's own fields (maps become `f:` trees, leaves `{}`)."""
    if not isinstance(obj, dict):
        return {}
    out: dict[str, Any] = {}
    for k, v in obj.items():
        if k in ("apiVersion", "kind"):
            continue
        if k == "metadata" and isinstance(v, dict):
            sub = {kk: vv for kk, vv in v.items() if kk in ("labels", "annotations", "finalizers", "ownerReferences")}
            if sub:
                out["f:metadata"] = fields_v1(sub)
            continue
        out[f"f:{k}"] = fields_v1(v) if isinstance(v, dict) else {}
    return out


def record_manager(obj: dict[str, Any], manager: str, operation: str = "Update", subresource: str = "") -> None:
    """Add or refresh this manager's managedFields entry (a faithful shape, not full SSA tracking)."""
    meta = obj.setdefault("metadata", {})
    entries = [e for e in (meta.get("managedFields") or []) if isinstance(e, dict)]
    version = obj.get("apiVersion") if isinstance(obj.get("apiVersion"), str) and obj.get("apiVersion") else "v1"
    entry: dict[str, Any] = {"manager": manager or "unknown", "operation": operation, "apiVersion": version,
                             "time": now(), "fieldsType": "FieldsV1", "fieldsV1": fields_v1(obj)}
    if subresource:
        entry["subresource"] = subresource
    entries = [e for e in entries if not (e.get("manager") == entry["manager"]
                                          and e.get("operation") == operation
                                          and e.get("subresource", "") == subresource)]
    entries.append(entry)
    meta["managedFields"] = entries
