"""A CRD's `spec.conversion` as kube-apiserver 1.33 validates it (`apiextensions-apiserver/pkg/apis/apiextensions/
validation/validation.go`: `validateCustomResourceConversion`, `validateConversionReviewVersions`, and the
`must be None if spec.preserveUnknownFields is true` check of `validateCustomResourceDefinitionSpec`).

Paths are upstream's internal ones, as its errors show them: a v1 `conversion.webhook.clientConfig` is
`conversion.webhookClientConfig` and `conversion.webhook.conversionReviewVersions` is
`conversion.conversionReviewVersions`. `default_conversion` is v1's defaulting (`apis/apiextensions/v1/
defaults.go`: `SetDefaults_CustomResourceDefinitionSpec`, `SetDefaults_ServiceReference`); the conversion itself
is registry/crconversion/'s."""
from __future__ import annotations

from typing import Any

from ..apierrors import FieldError, field_forbidden, field_invalid, field_not_supported, field_required
from .admissionregistration import go_slice
from .validation import is_dns1035_label
from .webhookclient import webhook_service_errors, webhook_url_errors

ACCEPTED_REVIEW_VERSIONS = ("v1", "v1beta1")  # acceptedConversionReviewVersions, sorted


def default_conversion(spec: dict[str, Any]) -> None:
    """v1's defaults: `conversion: {strategy: None}` when absent, a webhook service's `port: 443`."""
    if spec.get("conversion") is None:
        spec["conversion"] = {"strategy": "None"}
        return
    webhook = spec["conversion"].get("webhook") if isinstance(spec["conversion"], dict) else None
    service = (webhook.get("clientConfig") or {}).get("service") if isinstance(webhook, dict) else None
    if isinstance(service, dict) and service.get("port") is None:
        service["port"] = 443


def _internal(conversion: dict[str, Any]) -> tuple[Any, Any]:
    """(webhookClientConfig, conversionReviewVersions) as v1's conversion to the internal type sets them."""
    webhook = conversion.get("webhook")
    if not isinstance(webhook, dict):
        return None, None
    return webhook.get("clientConfig"), webhook.get("conversionReviewVersions")


def recognized_or_empty(conversion: Any) -> bool:
    """`hasValidConversionReviewVersionOrEmpty` of a stored CRD's conversion (an update keeps requiring a
    recognized version only when the old object had one)."""
    versions = _internal(conversion)[1] if isinstance(conversion, dict) else None
    return not versions or any(v in ACCEPTED_REVIEW_VERSIONS for v in versions)


def _review_versions_errors(versions: Any, require_recognized: bool, path: str) -> list[FieldError]:
    if not isinstance(versions, list) or not versions:
        return [field_required(path)]
    errs: list[FieldError] = []
    seen: set[str] = set()
    for i, v in enumerate(versions):
        if v in seen:
            errs.append(field_invalid(f"{path}[{i}]", v, "duplicate version"))
            continue
        seen.add(v)
        errs += [field_invalid(f"{path}[{i}]", v, m) for m in is_dns1035_label(str(v))]
    if require_recognized and not any(v in ACCEPTED_REVIEW_VERSIONS for v in versions):
        errs.append(FieldError("FieldValueInvalid", path, f"Invalid value: {go_slice(versions)}: must include at "
                                                          "least one of " + ", ".join(ACCEPTED_REVIEW_VERSIONS)))
    return errs


def conversion_errors(spec: dict[str, Any], require_recognized: bool = True) -> list[FieldError]:
    """The errors of `spec.conversion` (none when it is absent)."""
    conversion = spec.get("conversion")
    if not isinstance(conversion, dict):
        return []
    path = "spec.conversion"
    errs: list[FieldError] = []
    strategy = conversion.get("strategy")
    if strategy is not None and strategy != "None" and spec.get("preserveUnknownFields") is True:
        errs.append(field_invalid(f"{path}.strategy", strategy, "must be None if spec.preserveUnknownFields is true"))
    if not strategy:
        errs.append(field_required(f"{path}.strategy"))
    elif strategy not in ("None", "Webhook"):
        errs.append(field_not_supported(f"{path}.strategy", strategy, ["None", "Webhook"]))
    client_config, review_versions = _internal(conversion)
    cc_path = f"{path}.webhookClientConfig"
    if strategy == "Webhook":
        if not isinstance(client_config, dict):
            errs.append(field_required(cc_path, "required when strategy is set to Webhook"))
        elif (client_config.get("url") is None) == (client_config.get("service") is None):
            errs.append(field_required(cc_path, "exactly one of url or service is required"))
        elif client_config.get("url") is not None:
            errs += webhook_url_errors(f"{cc_path}.url", str(client_config["url"]))
        elif isinstance(client_config.get("service"), dict):
            service = {"port": 443, **client_config["service"]}
            errs += webhook_service_errors(f"{cc_path}.service", service)
        errs += _review_versions_errors(review_versions, require_recognized, f"{path}.conversionReviewVersions")
    else:
        if client_config is not None:
            errs.append(field_forbidden(cc_path, "should not be set when strategy is not set to Webhook"))
        if review_versions:
            errs.append(field_forbidden(f"{path}.conversionReviewVersions",
                                        "should not be set when strategy is not set to Webhook"))
    return errs
