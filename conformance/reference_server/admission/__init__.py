"""Admission plugins run by the http layer between decoding and the registry."""
from .lifecycle import IMMORTAL_NAMESPACES, NamespaceLifecycle

__all__ = ["IMMORTAL_NAMESPACES", "NamespaceLifecycle"]
