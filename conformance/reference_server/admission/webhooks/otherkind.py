"""A mutating webhook's patch naming another built-in kind (a ConfigMap's `kind` replaced by `Secret`), as the
dispatcher goes on with it (k8s.io/apiserver v0.33 `pkg/admission/plugin/webhook/mutating/dispatcher.go`).

`callAttrMutatingHook` decodes the patched bytes with `jsonSerializer.Decode(patchedJS, nil, newVersionedObject)`
(`New(attr.VersionedKind)`): the kind read names another registered type, so `runtime.UseOrCreateObject` makes
that one (`Scheme.New`) and the bytes are decoded into it (non-strict `UnmarshalCaseSensitivePreserveInts`: the
other type's unknown fields dropped, its Go type errors `NewInternalError`'d, patchread.py `check_decode`:
`illegal base64 data at input byte 0` for a ConfigMap's `data: {"a": "b"}` read as a Secret's `[]byte`). No error
there: the object becomes `attr.VersionedObject` (`changed`: two types are never `Semantic.DeepEqual`), and the
scheme's defaulter defaults it as its own kind (`SetDefaults_Secret`: `type: Opaque`). The later webhooks are sent
that object (the review's `kind` still the versioned kind: `CreateV1AdmissionReview` takes `invocation.Kind`), and
a later patch is decoded the same way (back into the versioned kind when it names it again). Only at the end of
`Dispatch` is the object converted into the internal one (`GetObjectConvertor().Convert`), whose error between two
kinds is returned bare (`converting (v1.Secret) to (core.ConfigMap): unknown conversion`, a 500 of no reason); the
reinvocation round never comes (the chain stops at that error).
"""
from __future__ import annotations

from typing import Any

from ... import apierrors as E
from ...wire import legacyscheme


def kind_of(obj: Any) -> tuple[Any, Any]:
    """The object's (`apiVersion`, `kind`) as held."""
    return (obj.get("apiVersion"), obj.get("kind")) if isinstance(obj, dict) else (None, None)


def default(obj: dict[str, Any], registry: Any) -> None:
    """`o.GetObjectDefaulter().Default(attr.VersionedObject)`, after every applied patch: the scheme's defaults of
    the object's own version and kind, the versioned kind's or another's (its store's decode-time defaulting; none
    for a kind this server does not serve). A Secret's
    `stringData` stays as it is: merging it into `data` is the conversion to the internal object's, not a
    default's. In place."""
    api_version, kind = kind_of(obj)
    store = _store(registry, api_version, kind)
    if store is None:
        return
    string_data = obj.pop("stringData", None) if kind == "Secret" else None
    store.strategy.default(obj)
    if string_data is not None:
        obj["stringData"] = string_data


def _store(registry: Any, api_version: Any, kind: Any) -> Any:
    """The store serving `api_version`'s `kind` (storage version or a view of another), or None."""
    stores = [*registry.namespaced(), *registry.cluster_stores(), *registry.views()]
    for store in stores:
        if store.info.kind == kind and getattr(store, "api_version", "v1") == api_version:
            return store
    return None


def refuse_unconverted(obj: Any, start: tuple[Any, Any], into: tuple[str, str, str] | None) -> None:
    """`Dispatch`'s end: the versioned object converted into the internal one of the versioned kind `into`; one
    a webhook's patch made another kind (not `start`'s, the object's before the webhooks) is `Convert`'s error,
    returned bare (500, no reason)."""
    if into is None or not isinstance(obj, dict) or kind_of(obj) == start:
        return
    api_version, kind = kind_of(obj)
    if not isinstance(api_version, str) or not isinstance(kind, str):
        return
    found = legacyscheme.read(api_version, kind, into)
    if found.unconverted:
        raise E.StatusError(E.status_dict(500, None, found.error or ""))


__all__ = ["default", "kind_of", "refuse_unconverted"]
