"""A CRD's converter (`converter.go` `NewConverter`): `None` (nop_converter.go: only `apiVersion` changes) or
`Webhook` (webhook_converter.go; the answers come from the request's memo, see memo.py)."""
from __future__ import annotations

import copy
from typing import Any, Callable

from . import memo
from .review import TIMEOUT_SECONDS


class Unconverted(dict):  # type: ignore[type-arg]
    """A write's answer still to be converted (the stored object, `target` its apiVersion to be): the write is
    made, so the HTTP layer converts it on the way out instead of running the request again."""

    __slots__ = ("converter", "target", "coerce")


class Converter:
    """Converts the custom resources of one CRD between its versions."""

    def __init__(self, crd: dict[str, Any], observe: Callable[..., None] | None = None):
        """`observe(crd_name, from_version, to_version, seconds, failure_type)`: each webhook call's metrics."""
        self.observe = observe
        spec = crd.get("spec") or {}
        conversion = spec.get("conversion") if isinstance(spec.get("conversion"), dict) else {}
        self.crd_name = str((crd.get("metadata") or {}).get("name") or "")
        self.strategy = conversion.get("strategy") or "None"
        webhook = conversion.get("webhook") if isinstance(conversion.get("webhook"), dict) else {}
        self.client_config: dict[str, Any] = dict(webhook.get("clientConfig") or {})
        self.review_versions: list[str] = list(webhook.get("conversionReviewVersions") or [])

    @property
    def webhook(self) -> bool:
        return self.strategy == "Webhook"

    def hook(self) -> dict[str, Any]:
        """The webhook as registry/webhooktransport.py posts to it (`webhookClientConfigForCRD`)."""
        cc = dict(self.client_config)
        if isinstance(cc.get("service"), dict):
            cc["service"] = {"port": 443, **cc["service"]}
        return {"name": f"conversion_webhook_for_{self.crd_name}", "clientConfig": cc,
                "timeoutSeconds": TIMEOUT_SECONDS}

    def convert(self, obj: dict[str, Any], api_version: str, tag: str = "") -> dict[str, Any]:
        """`obj` in `api_version` (a new object; `obj` is left untouched); `tag`: who asks, when its answers are
        its own (memo.py)."""
        if not self.webhook:
            return {**obj, "apiVersion": api_version}
        if obj.get("apiVersion") == api_version:
            self.no_call(obj, api_version)
            return {**obj, "apiVersion": api_version}
        hit = memo.recall(obj, api_version, tag)
        if hit is None:
            raise memo.ConversionPending(self, [obj], api_version, tag)
        return hit

    def for_field_manager(self, obj: dict[str, Any], from_version: str, to_version: str) -> dict[str, Any]:
        """The field manager's conversion (`versionConverter.Convert`, whose hub for a custom resource is the
        request's version: straight from one version to the other, one review), asked for on its own: the
        storage encoding asks again for the object it converts too."""
        return self.convert({**obj, "apiVersion": from_version}, to_version, tag="fieldmanager:")

    def no_call(self, obj: dict[str, Any], api_version: str) -> None:
        """v0.33's `crConverter.ConvertToVersion` has no early return for an object already in the version asked
        for: `webhookConverter.Convert` finds nothing to send and records a success (no call, no per-CRD
        duration: `converterMetric` times differing versions only). Once per object and version in a request,
        however often the request runs again (memo.py)."""
        meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
        tag = f"nocall:{self.crd_name}:{meta.get('namespace')}/{meta.get('name')}"
        if self.observe is not None and memo.first(tag, obj, api_version):
            self.observe(self.crd_name, _version(api_version), _version(api_version), 0.0, "")

    def convert_all(self, objs: list[dict[str, Any]], api_version: str) -> list[dict[str, Any]]:
        """Every object converted, or one `ConversionPending` naming all those still to be asked for."""
        missing = [o for o in objs if o.get("apiVersion") != api_version and self.webhook
                   and memo.recall(o, api_version) is None]
        if missing:
            raise memo.ConversionPending(self, missing, api_version)
        return [self.convert(o, api_version) for o in objs]

    def answer(self, stored: dict[str, Any], api_version: str,
               coerce: Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]]) -> dict[str, Any]:
        """A write's answer: converted when the memo has it, else `Unconverted` for the HTTP layer (which
        applies `coerce(converted, stored)` to the webhook's answer)."""
        try:
            return self.convert(stored, api_version)
        except memo.ConversionPending:
            out = Unconverted(copy.copy(stored))
            out.converter, out.target, out.coerce = self, api_version, coerce
            return out


def _version(api_version: str) -> str:
    return api_version.rpartition("/")[2]
