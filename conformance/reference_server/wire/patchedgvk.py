"""The version and kind kube-apiserver's JSON serializer reads from a patched document, and its refusals.

A JSON or merge patch (handlers/patch.go `applyPatchToCurrentObject`: `runtime.DecodeInto(p.codec, patchedObjJS,
objToUpdate)`) and a mutating webhook's JSON patch (admission/plugin/webhook/mutating/dispatcher.go:
`jsonSerializer.Decode(patchedJS, nil, newVersionedObject)`) decode the bytes evanphx/json-patch wrote, and the
serializer (apimachinery `pkg/runtime/serializer/json/json.go` `Decode`) reads them in two steps before any kind
does: `SimpleMetaFactory.Interpret` (`meta.go`: `json.Unmarshal` into a struct of two strings, then
`schema.ParseGroupVersion`), and, into an `unstructured.Unstructured` (a custom resource), its `kind`
(`runtime.NewMissingKindErr(string(originalData))`: the patched bytes, quoted whole). A built-in kind's missing
`kind` is its type's (`gvkWithDefaults`): no refusal. What a built-in kind's readable version and kind then meet
(`read`): `UseOrCreateObject`'s `Scheme.New` and the versioning codec's conversion (wire/legacyscheme.py) with no
default but the `into` object's own kind (patch.go: `DecodeInto`, the internal object; the dispatcher: the versioned
one); a custom resource's: README "Known gaps".

Go's `json.Unmarshal` matches a struct's field names without regard to case and keeps the first type error while
it reads on; evanphx writes the patched document's top-level object with its keys sorted (it reads it), which is
the order checked here.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import gometa, legacyscheme

def interpret_error(doc: dict[str, Any]) -> str | None:
    """`SimpleMetaFactory.Interpret`'s error on `doc` (the patched top-level object, its keys as evanphx writes
    them: sorted), or None (wire/gometa.py)."""
    return gometa.interpret_error(doc, sorted_keys=True)


def decode_error(doc: dict[str, Any], custom: bool, text: Callable[[], str]) -> str | None:
    """The serializer's error reading the patched `doc` before its kind decodes it (None: no error); `custom`: a
    custom resource (decoded into an `Unstructured`, whose `kind` must be a non-empty string); `text()`: the
    patched bytes (asked only for the missing kind's message)."""
    err = interpret_error(doc)
    if err is None and custom and not (isinstance(kind := doc.get("kind"), str) and kind):
        err = f"Object 'Kind' is missing in '{text()}'"
    return err


def read(doc: dict[str, Any], into: tuple[str, str, str], served: tuple[str, str, str] | None = None
         ) -> legacyscheme.Read:
    """The serializer's and the codec's reading of the patched `doc`'s version and kind (as `Interpret` reads them,
    its keys sorted) for a decode into `into` (`(group, version, kind)`: `legacyscheme.read`'s, as `served`), no
    default given."""
    api_version, kind, _ = gometa.interpret(doc, gometa.members(doc, sorted_keys=True))
    return legacyscheme.read(api_version, kind, into, served=served)


def scheme_error(found: legacyscheme.Read, text: Callable[[], str]) -> str | None:
    """`found`'s error as the decoder words it (a missing version's `NewMissingVersionErr` quotes the patched
    bytes, `text()`), or None."""
    if found.error is None:
        return None
    return f"{found.error} in '{text()}'" if found.missing_version else found.error


__all__ = ["decode_error", "interpret_error", "read", "scheme_error"]
