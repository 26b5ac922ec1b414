"""Wire compatibility as pure functions, so unmodified kubectl and client-go work against the server.

- ``protobuf.decode(body)``: ``application/vnd.kubernetes.protobuf`` request body -> JSON-shaped dict.
- ``negotiation.negotiate(accept)``: JSON / Table / PartialObjectMetadata(List) / None (406).
- ``table.to_table(objects, kind, list_meta)``: ``meta.k8s.io/v1 Table`` like upstream's printers.
- ``openapi.openapi_v3_root/openapi_v3_group/openapi_v2(kinds)``: what ``kubectl apply|create -f`` download.
- ``kinds.KindInfo``: the core's declaration of a served resource.

Nothing here does I/O or imports the HTTP layer.
"""
