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


def new_uid() -> str:
    return str(uuid.uuid4())


def generate_name(base: str) -> str:
    """`names.SimpleNameGenerator`: base truncated to 58 characters + 5 random characters."""
    return base[:58] + "".join(random.choice(_NAME_CHARS) for _ in range(5))


def wipe_system_fields(meta: dict[str, Any]) -> None:
    """`rest.WipeObjectMetaSystemFields` (NS-15)."""
    for f in SYSTEM_FIELDS:
        meta.pop(f, None)
