"""managedFields through the `scale` subresource (upstream `apimachinery/pkg/util/managedfields/scalehandler.go`,
used by `scaleUpdatedObjectInfo.UpdatedObject` of `pkg/registry/apps/{deployment,replicaset,statefulset}/storage`).

A write to `/scale` is field-managed on the Scale object: `to_subresource` gives the Scale the parent's entries
that own `spec.replicas` (only that path; their manager identities unchanged), the Scale's own field manager
records the Update or Apply (manager, operation, subresource `scale`; 409 on a conflict over `.spec.replicas`
unless forced), and `to_parent` merges the result back: a parent entry whose manager lost the field there loses
`spec.replicas` (dropped when nothing is left), an entry still present keeps what it had, and a manager new on
the Scale gets an entry with `spec.replicas` at the parent's apiVersion and, as upstream's `ToParent` takes the
time from the parent's entries, no `time`.

`mapping` (upstream's `ResourcePathMappings`): the parent's apiVersion → where that version keeps replicas (None: a
version without a scale subresource); apps' kinds by default, a custom resource's from its CRD (registry/crscale.py).
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from .managed import Entry, decode, encode
from .manager import FieldManager

SCALE_API_VERSION, SCALE_KIND = "autoscaling/v1", "Scale"
REPLICAS = ("f:spec", "f:replicas")  # the replicas path in the Scale and in apps' Deployment/ReplicaSet/StatefulSet
# `replicasPathIn<Kind>`: the apps group-versions whose objects keep replicas at spec.replicas
APPS_VERSIONS = frozenset({"apps/v1", "apps/v1beta1", "apps/v1beta2"})
PARENT_VERSION = "apps/v1"  # the only apps version served here (the request's group-version upstream)
Mapping = dict[str, "tuple[str, ...] | None"]
APPS_MAPPING: Mapping = {v: REPLICAS for v in APPS_VERSIONS}

SCALE_FIELD_MANAGER = FieldManager(SCALE_KIND, SCALE_API_VERSION, zero={"spec": {}, "status": {}},
                                   ignored={"scale": frozenset({"status"})})


def _entries(managed_fields: Any) -> list[Entry]:
    try:
        return decode(managed_fields)
    except ValueError:  # upstream's DecodeManagedFields error fails the write; ours keeps the write going
        return []


def to_subresource(parent_managed_fields: Any, mapping: Mapping = APPS_MAPPING) -> list[dict[str, Any]]:
    """`ScaleHandler.ToSubresource`: the parent's entries that own `spec.replicas`, as the Scale's (the Scale's
    managedFields are never shown: each entry keeps its identity, apiVersion included, so `to_parent` and a
    conflict message name the manager as the parent knows it)."""
    return encode([replace(e, fields=frozenset({REPLICAS})) for e in _entries(parent_managed_fields)
                   if mapping.get(e.api_version) is not None and mapping[e.api_version] in e.fields])


def to_parent(parent_managed_fields: Any, scale_managed_fields: Any, mapping: Mapping = APPS_MAPPING,
              parent_version: str = PARENT_VERSION) -> list[dict[str, Any]]:
    """`ScaleHandler.ToParent`: the parent's entries after a write through `/scale` (in `parent_version`)."""
    scale = {e.ident: e for e in _entries(scale_managed_fields)}
    out: list[Entry] = []
    for e in _entries(parent_managed_fields):
        if e.api_version not in mapping:
            continue  # an entry of an unknown apiVersion is dropped
        path = mapping[e.api_version]
        if path is None or path not in e.fields:
            out.append(e)
        elif e.ident in scale:
            out.append(e)  # still owns replicas on the Scale: kept as it is
            del scale[e.ident]
        elif e.fields - {path}:
            out.append(replace(e, fields=e.fields - {path}))  # replicas "stolen" by the Scale's writer
    own = mapping.get(parent_version)
    for e in scale.values():
        if REPLICAS in e.fields and own is not None:
            out.append(Entry(e.manager, e.operation, parent_version, e.subresource, None, frozenset({own})))
    return encode(out)
