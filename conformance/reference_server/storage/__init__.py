"""Versioned object storage: the interface the registry depends on and an in-memory implementation."""
from .errors import KeyExistsError, KeyNotFoundError, StorageError, TooOldResourceVersionError
from .interface import DELETE, Event, Store, Watcher, object_key
from .memory import MemoryStore

__all__ = ["DELETE", "Event", "KeyExistsError", "KeyNotFoundError", "MemoryStore", "StorageError", "Store",
           "TooOldResourceVersionError", "Watcher", "object_key"]
