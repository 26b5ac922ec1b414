"""The version and kind kube-apiserver's JSON serializer reads from a patched document, and its refusals.

A JSON or merge patch (handlers/patch.go `applyPatchToCurrentObject`: `runtime.DecodeInto(p.codec, patchedObjJS,
objToUpdate)`) and a mutating webhook's JSON patch (admission/plugin/webhook/mutating/dispatcher.go:
`jsonSerializer.Decode(patchedJS, nil, newVersionedObject)`) decode the bytes evanphx/json-patch wrote, and the
serializer (apimachinery `pkg/runtime/serializer/json/json.go` `Decode`) reads them in two steps before any kind
does: `SimpleMetaFactory.Interpret` (`meta.go`: `json.Unmarshal` into a struct of two strings, then
`schema.ParseGroupVersion`), and, into an `unstructured.Unstructured` (a custom resource), its `kind`
(`runtime.NewMissingKindErr(string(originalData))`: the patched bytes, quoted whole). A built-in kind's missing
`kind` is its type's (`gvkWithDefaults`): no refusal. (What a readable version and kind then meet, another kind,
version or group, the decoder's `into`, conversion: README "Known gaps".)

Go's `json.Unmarshal` matches a struct's field names without regard to case and keeps the first type error while
it reads on; evanphx writes the patched document's top-level object with its keys sorted (it reads it), which is
the order checked here.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import gometa

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


__all__ = ["decode_error", "interpret_error"]
