"""Versioned object storage: the interface the registry depends on and an in-memory implementation."""
from .errors import BackendError, KeyExistsError, KeyNotFoundError, StorageError, TooOldResourceVersionError
from .interface import DELETE, Event, Progress, Store, Watcher, object_key
from .memory import MemoryStore

__all__ = ["BackendError", "DELETE", "Event", "KeyExistsError", "KeyNotFoundError", "MemoryStore", "Progress", "StorageError", "Store",
           "TooOldResourceVersionError", "Watcher", "object_key"]
