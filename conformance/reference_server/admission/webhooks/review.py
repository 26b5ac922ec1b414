"""AdmissionReview v1 in and out (`staging/src/k8s.io/apiserver/pkg/admission/plugin/webhook/request/
admissionreview.go`) and the errors a webhook's answer becomes (`webhook/errors/statuserror.go` `ToStatusErr`,
`util/webhook/error.go` `ErrCallingWebhook`)."""
from __future__ import annotations

import uuid
from typing import Any

from ... import apierrors as E
from ...wire.gomaps import sort_unstructured
from ...wire.gostructs import typed_form
from ...wire.gowritten import written_object
from .matching import Attributes

API_VERSION, KIND = "admission.k8s.io/v1", "AdmissionReview"


class CallError(Exception):
    """`ErrCallingWebhook`: the call failed (the failure policy decides what follows)."""

    def __init__(self, webhook: str, reason: str, code: int = 400):
        super().__init__(f'failed calling webhook "{webhook}": {reason}')
        self.code = code  # its Status' (`apierrors.NewBadRequest("error calling webhook")` unless an answer's)


def request(a: Attributes, obj: dict[str, Any] | None, old: dict[str, Any] | None, user: Any,
            dry_run: bool, options: dict[str, Any] | None) -> dict[str, Any]:
    """`CreateV1AdmissionReview`."""
    kind_group, kind_version = a.kind_gv or (a.group, a.version)
    kind = {"group": kind_group, "version": kind_version, "kind": a.kind}
    resource = {"group": a.group, "version": a.version, "resource": a.resource}
    req: dict[str, Any] = {"uid": str(uuid.uuid4()), "kind": kind, "resource": resource}
    if a.subresource:
        req["subResource"] = a.subresource
    req.update({"requestKind": kind, "requestResource": resource})
    if a.subresource:
        req["requestSubResource"] = a.subresource
    if a.name:
        req["name"] = a.name
    if a.namespace:
        req["namespace"] = a.namespace
    info: dict[str, Any] = {"username": getattr(user, "name", "") or ""}
    if getattr(user, "uid", ""):
        info["uid"] = user.uid
    if getattr(user, "groups", ()):
        info["groups"] = list(user.groups)
    if getattr(user, "extra", None):
        info["extra"] = {k: list(v) for k, v in user.extra.items()}
    req.update({"operation": a.operation, "userInfo": info, "object": encoded(obj, a.custom),
                "oldObject": encoded(old, a.custom),
                "dryRun": dry_run, "options": options})
    return {"kind": KIND, "apiVersion": API_VERSION, "request": req}


def encoded(obj: Any, custom: bool = False) -> Any:
    """An object as the review encodes it (`RawExtension.MarshalJSON`: `json.Marshal` of the versioned object): a
    custom resource (`custom`, which the attributes know: its apiVersion and kind alone do not tell it from a kind
    the typed tables lack, a v1 Binding) is an `unstructured.Unstructured`, whose `MarshalJSON` encodes its map
    with encoding/json: keys sorted at every level (wire/gomaps.py `sort_unstructured`); a built-in kind's typed
    object has the fields encoding/json writes, zero values included (wire/gowritten.py, as decoded from JSON: an
    empty slice is not nil there), its structs' fields in Go's order and its maps sorted (wire/gostructs.py; the
    object decoded from a body still has the client's order and only the fields it sent)."""
    if not isinstance(obj, dict):
        return obj
    if custom:
        return sort_unstructured(obj)
    api_version, kind = obj.get("apiVersion"), obj.get("kind")
    if not isinstance(api_version, str) or not isinstance(kind, str):
        return obj
    try:
        return typed_form(api_version, kind)(written_object(obj, api_version, kind, stored=False))
    except (TypeError, AttributeError, KeyError):  # a shape the decoder let through that the walk cannot read
        return obj


def response(webhook: str, sent: dict[str, Any], body: Any, *, mutating: bool = False) -> dict[str, Any]:
    """`VerifyAdmissionResponse`: the review's `response`, or a `CallError` when the answer is not one."""
    body = body if isinstance(body, dict) else {}
    resp = body.get("response")
    uid = sent["request"]["uid"]
    problem = ""
    if not isinstance(resp, dict):
        problem = "webhook response was absent"
    elif resp.get("uid") != uid:
        problem = f'expected response.uid="{uid}", got "{resp.get("uid", "")}"'
    elif body.get("apiVersion") != API_VERSION or body.get("kind") != KIND:
        problem = (f"expected webhook response of {API_VERSION}, Kind={KIND}, got "
                   f'{body.get("apiVersion", "")}, Kind={body.get("kind", "")}')
    elif mutating and resp.get("patch") and not resp.get("patchType"):
        problem = "webhook returned response.patch but not response.patchType"
    elif mutating and resp.get("patchType") and not resp.get("patch"):
        problem = "webhook returned response.patchType but not response.patch"
    if problem:
        raise CallError(webhook, f"received invalid webhook response: {problem}", 503)
    return resp  # type: ignore[return-value]


def denied(webhook: str, status: Any) -> E.StatusError:
    """`ToStatusErr`: the webhook's Status with its code (at least 400) and message prefixed."""
    result = dict(status) if isinstance(status, dict) else {}
    code = result.get("code") if isinstance(result.get("code"), int) else 0
    denied_by = f'admission webhook "{webhook}" denied the request'
    if result.get("message"):
        message = f"{denied_by}: {result['message']}"
    elif result.get("reason"):
        message = f"{denied_by}: {result['reason']}"
    else:
        message = f"{denied_by} without explanation"
    out: dict[str, Any] = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                           "message": message}
    if result.get("reason"):
        out["reason"] = result["reason"]
    if isinstance(result.get("details"), dict):
        out["details"] = result["details"]
    out["code"] = code if code >= 400 else 400
    return E.StatusError(out)


def internal(err: Exception) -> E.StatusError:
    """`apierrors.NewInternalError(err)`: what a failed call becomes under failurePolicy Fail."""
    return E.StatusError(E.status_dict(500, "InternalError", f"Internal error occurred: {err}",
                                       {"causes": [{"message": str(err)}]}))
