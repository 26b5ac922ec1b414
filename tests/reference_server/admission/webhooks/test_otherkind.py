"""admission/webhooks/otherkind.py and patchread.py's part in it: a webhook's patch naming another built-in kind,
decoded and defaulted as that kind, refused only at the dispatcher's end (dispatcher.go `callAttrMutatingHook`,
`Dispatch`)."""
from __future__ import annotations

import copy
from types import SimpleNamespace

import pytest

from conformance.reference_server import apierrors as E
from conformance.reference_server.admission.webhooks import otherkind, patchread, review
from conformance.reference_server.registry.strategy import Strategy

CM = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "n"}, "data": {"a": "YWJj"}}
INTO = ("", "v1", "ConfigMap")


def test_only_a_patch_that_changed_the_kind_is_refused_at_the_end():
    start = otherkind.kind_of(CM)
    otherkind.refuse_unconverted(CM, start, INTO)  # (unchanged: converted)
    secret = {**CM, "kind": "Secret"}
    otherkind.refuse_unconverted(secret, ("v1", "Secret"), INTO)  # (the object's own kind: not a patch's)
    with pytest.raises(E.StatusError) as err:
        otherkind.refuse_unconverted(secret, start, INTO)
    assert (err.value.status["code"], err.value.status.get("reason"), err.value.status["message"]) == (
        500, None, "converting (v1.Secret) to (core.ConfigMap): unknown conversion")


def test_the_other_type_s_decode_error_is_an_internal_error():
    with pytest.raises(E.StatusError) as err:
        patchread.check_decode({**CM, "kind": "Secret", "data": {"a": "b"}})
    assert err.value.status["message"] == "Internal error occurred: illegal base64 data at input byte 0"
    patchread.check_decode({**CM, "kind": "Secret"})


def test_the_other_kind_is_defaulted_as_its_store_defaults_it_its_string_data_unmerged():
    info = SimpleNamespace(kind="Secret")
    store = SimpleNamespace(info=info, api_version="v1", strategy=Strategy(info))  # type: ignore[arg-type]
    registry = SimpleNamespace(namespaced=lambda: [store], cluster_stores=list, views=list)
    obj = {**CM, "kind": "Secret", "stringData": {"x": "y"}}
    otherkind.default(obj, registry)
    assert (obj["type"], obj["data"], obj["stringData"]) == ("Opaque", {"a": "YWJj"}, {"x": "y"})


def test_a_patch_back_to_the_versioned_kind_keeps_none_of_the_other_kind_s_fields():
    held = {**CM, "kind": "Secret", "type": "Opaque"}
    sent = review.encoded(held)
    patched = copy.deepcopy(sent)
    patched["kind"] = "ConfigMap"
    new = patchread.held(patched, sent, held, False)
    assert "type" not in new and (new["kind"], new["data"]) == ("ConfigMap", {"a": "YWJj"})
