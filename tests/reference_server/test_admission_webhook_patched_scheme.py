"""A mutating webhook's JSON patch naming another version or kind of a built-in object, as the dispatcher reads it
(apiserver v0.33 pkg/admission/plugin/webhook/mutating/dispatcher.go; admission/webhooks/__init__.py `_patched`,
wire/patchedgvk.py `read`).

`jsonSerializer.Decode(patchedJS, nil, newVersionedObject)` (`New(attr.VersionedKind)`): a version the scheme does
not register is `Scheme.New`'s error, `NewInternalError` of it (500 `Internal error occurred: ...`); another kind
decodes as that kind (`UseOrCreateObject`: its Go type's errors `NewInternalError`'d), is defaulted as it, and is
what the later webhooks are sent (admission/webhooks/otherkind.py); `Dispatch` then converts it to the internal
object (`GetObjectConvertor().Convert`), whose error it returns bare: a 500 of reason Unknown (no reason) in its
words. Before: the object kept its own version and kind, and was stored; then, the patch was refused at once.
What follows each applied patch for the next webhook: the Go type's decode errors, its defaults, and its selectors
judged on the patched object (`ShouldCallHook` with the versioned attributes).
"""
from __future__ import annotations

import base64
import uuid
from typing import Any, Iterator

import pytest
import requests

from tests.reference_server.test_admission_webhooks import Hook, cm, ns, server  # noqa: F401 - fixtures

from .webhookconfig import MUTATING, configure, unconfigure

PATCHES = {"/v9": b'[{"op":"replace","path":"/apiVersion","value":"v9"}]',
           "/secret": b'[{"op":"replace","path":"/kind","value":"Secret"}]',
           "/configmap": b'[{"op":"replace","path":"/kind","value":"ConfigMap"}]',
           "/noversion": b'[{"op":"remove","path":"/apiVersion"}]',
           "/number": b'[{"op":"add","path":"/data/x","value":1}]',
           "/notype": b'[{"op":"remove","path":"/type"}]'}


class KindHook(Hook):
    """`/v9`, `/secret`, `/configmap`, `/noversion`: a JSONPatch of the object's `apiVersion` or `kind`; `/number`:
    a number in a ConfigMap's `data`; `/notype`: a Secret's `type` removed."""

    def answer(self, path: str, body: dict[str, Any]) -> tuple[int, Any]:
        if path not in PATCHES:
            return super().answer(path, body)
        resp = {"uid": body["request"]["uid"], "allowed": True, "patchType": "JSONPatch",
                "patch": base64.b64encode(PATCHES[path]).decode()}
        return 200, {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": resp}


@pytest.fixture(scope="module")
def hook() -> Iterator[KindHook]:
    h = KindHook()
    yield h
    h.stop()


@pytest.mark.parametrize("path,code,status", [
    ("/v9", 500, {"message": 'Internal error occurred: no kind "ConfigMap" is registered for version "v9" in scheme '
                             '"pkg/api/legacyscheme/scheme.go:30"', "reason": "InternalError",
                  "details": {"causes": [{"message": 'no kind "ConfigMap" is registered for version "v9" in scheme '
                                                     '"pkg/api/legacyscheme/scheme.go:30"'}]}}),
    ("/secret", 500, {"message": "Internal error occurred: illegal base64 data at input byte 0",
                      "reason": "InternalError",
                      "details": {"causes": [{"message": "illegal base64 data at input byte 0"}]}}),
])
def test_a_patch_naming_another_version_or_kind(server, hook, ns, path, code, status):  # noqa: F811
    """`/secret`: the ConfigMap's `data: {"a": "b"}` decoded into a v1.Secret's `map[string][]byte` (`b` is no
    base64): the decoder's error, `NewInternalError`'d."""
    cfg = configure(server, MUTATING, ns, None, f"{hook.url}{path}", hook.ca_bundle, operations=["CREATE"])
    try:
        r = cm(server, ns, path.strip("/"))
        assert (r.status_code, r.json()) == (code, {"kind": "Status", "apiVersion": "v1", "metadata": {},
                                                    "status": "Failure", **status, "code": code})
        assert requests.get(f"{server.url}/api/v1/namespaces/{ns}/configmaps/{path.strip('/')}").status_code == 404
    finally:
        unconfigure(server, MUTATING, cfg)


def test_a_patch_removing_the_version_is_the_versioned_kind_s(server, hook, ns):  # noqa: F811
    """`gvkWithDefaults` from `newVersionedObject`'s own kind (v1 ConfigMap): decoded as it."""
    cfg = configure(server, MUTATING, ns, None, f"{hook.url}/noversion", hook.ca_bundle, operations=["CREATE"])
    try:
        r = cm(server, ns, "noversion")
        assert r.status_code == 201 and (r.json()["apiVersion"], r.json()["kind"]) == ("v1", "ConfigMap"), r.text
    finally:
        unconfigure(server, MUTATING, cfg)


def _cm64(srv: Any, namespace: str, name: str) -> requests.Response:
    """A ConfigMap whose `data` a Secret's decode reads too (base64)."""
    return requests.post(f"{srv.url}/api/v1/namespaces/{namespace}/configmaps",
                         json={"metadata": {"name": name}, "data": {"a": "YWJj"}})


def _two(srv: Any, kind_hook: KindHook, namespace: str, first: str, second: str,
         resources: tuple[str, ...] = ("configmaps",)) -> tuple[str, str]:
    """Two mutating configurations calling `first` then `second` (webhooks are called in configuration-name
    order)."""
    tag = uuid.uuid4().hex[:8]
    url, ca = kind_hook.url, kind_hook.ca_bundle
    one = configure(srv, MUTATING, namespace, f"a-{tag}", f"{url}{first}", ca, resources, operations=["CREATE"])
    two = configure(srv, MUTATING, namespace, f"b-{tag}", f"{url}{second}", ca, resources, operations=["CREATE"])
    return one, two


def _sent(kind_hook: KindHook, namespace: str, path: str) -> list[dict[str, Any]]:
    """The reviews of `namespace` posted to `path`."""
    return [body["request"] for p, body in kind_hook.reviews
            if p.split("?")[0] == path and body["request"].get("namespace") == namespace]


def test_the_next_webhook_is_sent_the_other_kind_defaulted_then_dispatch_s_end_refuses(server, hook, ns):  # noqa: F811
    """Webhook A's patch makes the ConfigMap a Secret: B is sent that Secret (defaulted: `type: Opaque`) under the
    review's `kind` ConfigMap; then `Dispatch` converts it into a core.ConfigMap: `Convert`'s error, bare (500,
    no reason). Before: refused at A, B never called."""
    one, two = _two(server, hook, ns, "/secret", "/allow")
    try:
        r = _cm64(server, ns, "tosecret")
        assert (r.status_code, r.json()) == (500, {
            "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "code": 500,
            "message": "converting (v1.Secret) to (core.ConfigMap): unknown conversion"}), r.text
        [sent] = _sent(hook, ns, "/allow")
        assert sent["kind"] == {"group": "", "version": "v1", "kind": "ConfigMap"}
        obj = sent["object"]
        assert (obj["apiVersion"], obj["kind"], obj["type"], obj["data"]) == ("v1", "Secret", "Opaque", {"a": "YWJj"})
        assert obj["metadata"]["name"] == "tosecret"
        assert requests.get(f"{server.url}/api/v1/namespaces/{ns}/configmaps/tosecret").status_code == 404
    finally:
        unconfigure(server, MUTATING, one)
        unconfigure(server, MUTATING, two)


def test_a_later_patch_back_to_the_versioned_kind_is_decoded_as_it_and_stored(server, hook, ns):  # noqa: F811
    """B's patch names ConfigMap again: decoded into the versioned kind (the Secret's `type` is no ConfigMap
    field: dropped), so `Dispatch` converts it and the ConfigMap is created."""
    one, two = _two(server, hook, ns, "/secret", "/configmap")
    try:
        r = _cm64(server, ns, "roundtrip")
        assert r.status_code == 201, r.text
        body = r.json()
        assert (body["kind"], body["data"], "type" in body) == ("ConfigMap", {"a": "YWJj"}, False), r.text
        [sent] = _sent(hook, ns, "/configmap")
        assert (sent["object"]["kind"], sent["object"]["type"]) == ("Secret", "Opaque")
    finally:
        unconfigure(server, MUTATING, one)
        unconfigure(server, MUTATING, two)


def test_a_single_webhook_s_other_kind_is_refused_at_the_dispatcher_s_end(server, hook, ns):  # noqa: F811
    """One webhook, a ConfigMap whose data a Secret reads: decoded, defaulted, then `Convert`'s bare 500."""
    cfg = configure(server, MUTATING, ns, None, f"{hook.url}/secret", hook.ca_bundle, operations=["CREATE"])
    try:
        r = _cm64(server, ns, "single")
        assert (r.status_code, r.json().get("reason"), r.json()["message"]) == (
            500, None, "converting (v1.Secret) to (core.ConfigMap): unknown conversion"), r.text
    finally:
        unconfigure(server, MUTATING, cfg)


def test_a_patch_its_own_go_type_cannot_decode_is_an_internal_error(server, hook, ns):  # noqa: F811
    """The decode into the versioned kind's Go type (`map[string]string`) refuses a number:
    `NewInternalError`. Before: the ConfigMap was stored with `"x": 1`."""
    cfg = configure(server, MUTATING, ns, None, f"{hook.url}/number", hook.ca_bundle, operations=["CREATE"])
    try:
        r = cm(server, ns, "number")
        why = "json: cannot unmarshal number into Go struct field ConfigMap.data of type string"
        assert (r.status_code, r.json()["message"], r.json()["details"]) == (
            500, f"Internal error occurred: {why}", {"causes": [{"message": why}]}), r.text
        assert requests.get(f"{server.url}/api/v1/namespaces/{ns}/configmaps/number").status_code == 404
    finally:
        unconfigure(server, MUTATING, cfg)


def test_a_patched_object_of_the_versioned_kind_is_defaulted_again_for_the_next_webhook(server, hook, ns):  # noqa: F811
    """`Default(attr.VersionedObject)` follows every applied patch: A removes a Secret's `type`, B is sent it
    `Opaque` again. Before: B was sent the Secret without a `type`."""
    one, two = _two(server, hook, ns, "/notype", "/allow", ("secrets",))
    try:
        r = requests.post(f"{server.url}/api/v1/namespaces/{ns}/secrets", json={"metadata": {"name": "s"}})
        assert r.status_code == 201 and r.json()["type"] == "Opaque", r.text
        [sent] = _sent(hook, ns, "/allow")
        assert sent["object"]["type"] == "Opaque"
    finally:
        unconfigure(server, MUTATING, one)
        unconfigure(server, MUTATING, two)


def test_a_later_webhook_s_object_selector_is_judged_on_the_object_as_patched(server, hook, ns):  # noqa: F811
    """`ShouldCallHook(ctx, hook, attrForCheck, ...)`: after the first call the versioned attributes, whose
    `GetObject` is the patched `VersionedObject`: B, selecting `x: "yes"`, is called once A added that label. Before:
    the selectors were judged once, on the object as sent (B never called)."""
    tag = uuid.uuid4().hex[:8]
    url, ca = hook.url, hook.ca_bundle
    one = configure(server, MUTATING, ns, f"a-{tag}", f"{url}/addlabel-x", ca, operations=["CREATE"])
    two = configure(server, MUTATING, ns, f"b-{tag}", f"{url}/allow", ca, operations=["CREATE"],
                    objectSelector={"matchLabels": {"x": "yes"}})
    try:
        r = cm(server, ns, "selected")
        assert r.status_code == 201 and r.json()["metadata"]["labels"] == {"x": "yes"}, r.text
        [sent] = _sent(hook, ns, "/allow")
        assert sent["object"]["metadata"]["labels"] == {"x": "yes"}
    finally:
        unconfigure(server, MUTATING, one)
        unconfigure(server, MUTATING, two)


def test_a_patch_the_defaults_undo_still_changed_the_object(server, hook, ns):  # noqa: F811
    """`changed` compares the decoded object before `Default` restores what the patch removed: A (IfNeeded) is
    reinvoked after B removed the Secret's `type`, and sent it `Opaque`."""
    tag = uuid.uuid4().hex[:8]
    url, ca = hook.url, hook.ca_bundle
    one = configure(server, MUTATING, ns, f"a-{tag}", f"{url}/allow", ca, ["secrets"], operations=["CREATE"],
                    reinvocationPolicy="IfNeeded")
    two = configure(server, MUTATING, ns, f"b-{tag}", f"{url}/notype", ca, ["secrets"], operations=["CREATE"])
    try:
        r = requests.post(f"{server.url}/api/v1/namespaces/{ns}/secrets", json={"metadata": {"name": "again"}})
        assert r.status_code == 201 and r.json()["type"] == "Opaque", r.text
        assert [sent["object"]["type"] for sent in _sent(hook, ns, "/allow")] == ["Opaque", "Opaque"]
    finally:
        unconfigure(server, MUTATING, one)
        unconfigure(server, MUTATING, two)
