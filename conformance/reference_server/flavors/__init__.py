"""Cluster flavours: what real distributions do around kube-apiserver, as data plus small behaviours.

A `Flavor` is a frozen record (catalogue.py) of timings and of what the controllers, admission plugins and
authorizers of a distribution write or answer; `behaviours.py` turns it into controllers, an admission
wrapper, an authorizer wrapper and middlewares that `ReferenceServer` installs. No other layer knows about
flavours: they see ordinary controllers writing through the registry and ordinary admission/authorizers.
"""
from __future__ import annotations

from .catalogue import DEFAULT_FLAVOR, FLAVORS, Flavor, Source, get_flavor

__all__ = ["DEFAULT_FLAVOR", "FLAVORS", "Flavor", "Source", "get_flavor"]
