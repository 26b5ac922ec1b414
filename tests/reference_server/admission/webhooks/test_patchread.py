"""admission/webhooks/patchread.py: a webhook's patched Go-written JSON read back onto the object as held, and
whether it changed (dispatcher.go `callAttrMutatingHook`'s `Semantic.DeepEqual`)."""
from __future__ import annotations

import copy

from conformance.reference_server.admission.webhooks import patchread, review

POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "n"},
       "spec": {"containers": [{"image": "b", "name": "c"}]}}


def test_what_the_encoding_added_and_the_patch_left_is_dropped():
    sent = review.encoded(POD)
    patched = copy.deepcopy(sent)
    del patched["metadata"]["creationTimestamp"]
    patched["spec"]["containers"][0]["resources"]["limits"] = {"cpu": "1"}
    new = patchread.held(patched, sent, POD, False)
    assert new == {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "n"},
                   "spec": {"containers": [{"image": "b", "name": "c", "resources": {"limits": {"cpu": "1"}}}]}}
    assert list(new) == list(POD) and list(new["spec"]["containers"][0])[:2] == ["image", "name"]
    assert patchread.changed(new, sent, False)


def test_a_removed_null_the_decode_restores_and_an_empty_slice_are_no_change():
    sent = review.encoded(POD)
    patched = copy.deepcopy(sent)
    del patched["metadata"]["creationTimestamp"]
    patched["metadata"]["finalizers"] = []
    new = patchread.held(patched, sent, POD, False)
    assert not patchread.changed(new, sent, False)


def test_a_null_the_patch_writes_is_read_as_go_holds_it():
    """`"labels": {"a": null}`: a map value held by value, the label `a: ""`."""
    sent = review.encoded(POD)
    patched = copy.deepcopy(sent)
    patched["metadata"]["labels"] = {"a": None}
    new = patchread.held(patched, sent, POD, False)
    assert new["metadata"]["labels"] == {"a": ""} and patchread.changed(new, sent, False)


def test_a_custom_resource_keeps_its_nulls_and_its_held_order():
    obj = {"apiVersion": "x.example.com/v1", "kind": "X", "metadata": {"name": "x"}, "spec": {"b": 1, "a": 2}}
    sent = review.encoded(obj, True)
    patched = copy.deepcopy(sent)
    patched["spec"]["a"] = None
    new = patchread.held(patched, sent, obj, True)
    assert new["spec"] == {"b": 1, "a": None} and list(new["spec"]) == ["b", "a"]
    assert patchread.changed(new, sent, True) and not patchread.changed(obj, sent, True)
