"""ObjectMeta bookkeeping shared by every strategy: timestamps, uids, system fields (managedFields: fieldmanager/)."""
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


def parse_time(value: Any) -> _dt.datetime | None:
    """A metav1.Time's JSON (RFC 3339) as an aware datetime (UTC when it names no zone); None when unset or
    unreadable."""
    if not isinstance(value, str) or not value:
        return None
    try:
        t = _dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return t if t.tzinfo else t.replace(tzinfo=_dt.timezone.utc)


def new_uid() -> str:
    return str(uuid.uuid4())


def generate_name(base: str) -> str:
    """`names.SimpleNameGenerator`: base truncated to 58 characters + 5 random characters."""
    return base[:58] + "".join(random.choice(_NAME_CHARS) for _ in range(5))


def wipe_system_fields(meta: dict[str, Any]) -> None:
    """`rest.WipeObjectMetaSystemFields` (NS-15)."""
    for f in SYSTEM_FIELDS:
        meta.pop(f, None)
