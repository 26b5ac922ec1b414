"""Upstream validation of the storage-only group kinds (registry/groupkinds.py, registry/workloads.py's
networking/discovery/coordination/policy kinds) and of a ResourceQuota's scopes, one module per upstream file:

- `formats.py`: apimachinery `pkg/util/validation` helpers these need (ports, wildcard subdomains,
  domain-prefixed paths, sloppy CIDRs);
- `networking.py`: `pkg/apis/networking/validation/validation.go` (Ingress, IngressClass, NetworkPolicy);
- `discovery.py`: `pkg/apis/discovery/validation/validation.go` (EndpointSlice);
- `coordination.py`: `pkg/apis/coordination/validation/validation.go` (Lease);
- `quotascopes.py`: `pkg/apis/core/validation/validation.go` `validateResourceQuotaScopes` and
  `validateScopeSelector`, with `pkg/apis/core/helper/helpers.go`'s scope tables;
- `storage.py`: `pkg/apis/storage/validation/validation.go` (StorageClass, CSIDriver name, CSINode drivers and
  their immutability, VolumeAttachment spec);
- `inlinepv.py`: `pkg/apis/core/validation/validation.go` `ValidatePersistentVolumeSpec` for a VolumeAttachment's
  inline volume;
- `node.py`: `pkg/apis/node/validation/validation.go` (RuntimeClass overhead, nodeSelector and tolerations).

LimitRange (a core kind) has its own module, registry/limitrange.py (`ValidateLimitRange`).

Each function returns `FieldError`s in upstream's order; the strategies add them after the metadata's.
"""
