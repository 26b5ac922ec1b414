"""Storage-level errors (upstream `storage.StorageError`); the registry maps them to API errors."""
from __future__ import annotations


FUTURE_REVISION = "etcdserver: mvcc: required revision is a future revision"  # etcd's rpctypes.ErrGRPCFutureRev


class BackendError(Exception):
    """The backend itself failed (etcd unreachable, no quorum, a lost connection): upstream's storage returns the
    etcd client's error as is, and the handler answers it with `ErrorToAPIStatus`'s fallback, a 500 Status without
    a reason carrying its text."""


class StorageError(Exception):
    """Base class; `key` is the storage key involved."""

    def __init__(self, key: str, msg: str = ""):
        super().__init__(msg or key)
        self.key = key


class KeyNotFoundError(StorageError):
    pass


class KeyExistsError(StorageError):
    """Create of an existing key; `existing` is a copy of the stored object."""

    def __init__(self, key: str, existing: dict):
        super().__init__(key, f"key exists: {key}")
        self.existing = existing


class TooOldResourceVersionError(StorageError):
    """A watch/list asked for history that has been compacted; `oldest` is upstream's `oldest-1`."""

    def __init__(self, requested: int, oldest: int):
        super().__init__("", f"too old resource version: {requested} ({oldest})")
        self.requested = requested
        self.oldest = oldest
