"""At most ten Update managers per object (upstream `managedfields/internal/capmanagers.go`).

After every Update the oldest Update entries beyond the cap are folded, per API version, into one
`ancient-changes` entry: the first (oldest) entry of a version is kept until a second one of the same
version has to go, then both become the version's bucket. Apply entries are never counted nor merged.
"""
from __future__ import annotations

import datetime as _dt

from .managed import APPLY, UPDATE, Entry

MAX_UPDATE_MANAGERS = 10  # `DefaultMaxUpdateManagers`
BUCKET_MANAGER = "ancient-changes"


def _seconds(time: str | None) -> int:
    """`Time.Unix()`; a missing (or unreadable) time counts as 0."""
    if not time:
        return 0
    try:
        return int(_dt.datetime.fromisoformat(time.replace("Z", "+00:00")).timestamp())
    except ValueError:
        return 0


def cap_update_managers(entries: list[Entry], limit: int = MAX_UPDATE_MANAGERS) -> list[Entry]:
    """`capUpdateManagers`: the entries with the oldest Update ones merged into versioned buckets."""
    updaters = [e for e in entries if e.operation != APPLY]
    if len(updaters) <= limit:
        return entries
    # oldest first; equal seconds: by the manager identifier's JSON, as upstream sorts its map keys
    updaters.sort(key=lambda e: (_seconds(e.time), e.ident_json()))
    out = list(entries)
    first_of_version: dict[str, Entry] = {}
    buckets: dict[str, Entry] = {e.api_version: e for e in entries
                                 if e.operation == UPDATE and e.manager == BUCKET_MANAGER and not e.subresource}
    length = len(updaters)
    for e in updaters:
        if length <= limit:
            break
        version = e.api_version
        first = first_of_version.get(version)
        if first is None:
            first_of_version[version] = e
            continue
        bucket = buckets.get(version)
        if bucket is None:  # the version's first entry becomes the bucket
            bucket = Entry(BUCKET_MANAGER, UPDATE, version, "", first.time, first.fields)
            out[out.index(first)] = bucket
            buckets[version] = bucket
        bucket.fields = e.fields | bucket.fields
        bucket.time = e.time
        out.remove(e)  # upstream deletes the merged entry even when it is the bucket itself
        if e is bucket:
            del buckets[version]
        length -= 1
    return out
