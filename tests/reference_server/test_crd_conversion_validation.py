"""A CRD's `spec.conversion` validated as kube-apiserver 1.33 validates it (registry/crdconversion.py,
`validateCustomResourceConversion`): its webhook URL by Go's `url.Parse` (`ValidateWebhookURL`, gonet), errors on
upstream's internal paths (`conversion.webhookClientConfig`)."""
from __future__ import annotations

import pytest
import requests

from .test_crd_rules import CRDS, crd, spec_schema, srv, unique  # noqa: F401 (srv: fixture)
from tests.reference_server.crds import create_crd


def _crd(conversion: dict, **spec) -> dict:
    body = crd(f"{unique('g')}.example.com", spec_schema({"a": {"type": "string"}}))
    body["spec"]["conversion"] = conversion
    body["spec"].update(spec)
    return body


def _webhook(url: str | None = None, versions: list[str] | None = None, **client) -> dict:
    if url is not None:
        client["url"] = url
    return {"strategy": "Webhook", "webhook": {"clientConfig": client, "conversionReviewVersions": versions or ["v1"]}}


@pytest.mark.parametrize("conversion, spec, message", [
    (_webhook("https://conv example.com/x"), {},
     'spec.conversion.webhookClientConfig.url: Required value: url must be a valid URL: parse '
     '"https://conv example.com/x": invalid character " " in host name; desired format: https://host[/path]'),
    (_webhook("http://conv.example.com/x?a=1"), {},
     '[spec.conversion.webhookClientConfig.url: Invalid value: "http": \'https\' is the only allowed URL scheme; '
     'desired format: https://host[/path], spec.conversion.webhookClientConfig.url: Invalid value: "a=1": query '
     'parameters are not permitted in the URL]'),
    (_webhook("https://conv.example.com/x", ["v2", "v2"]), {},
     '[spec.conversion.conversionReviewVersions[1]: Invalid value: "v2": duplicate version, '
     'spec.conversion.conversionReviewVersions: Invalid value: []string{"v2", "v2"}: must include at least one of '
     'v1, v1beta1]'),
    ({"strategy": "Webhook"}, {},
     '[spec.conversion.webhookClientConfig: Required value: required when strategy is set to Webhook, '
     'spec.conversion.conversionReviewVersions: Required value]'),
    (_webhook(service={"name": "s"}), {},
     "spec.conversion.webhookClientConfig.service.namespace: Required value: service namespace is required"),
    ({"strategy": "Sideways"}, {},
     'spec.conversion.strategy: Unsupported value: "Sideways": supported values: "None", "Webhook"'),
    ({"strategy": "None", "webhook": {"conversionReviewVersions": ["v1"]}}, {},
     "spec.conversion.conversionReviewVersions: Forbidden: should not be set when strategy is not set to Webhook"),
])
def test_conversion_refused_in_upstreams_words(srv, conversion, spec, message):  # noqa: F811
    r = create_crd(requests, srv.url, _crd(conversion, **spec))
    assert r.status_code == 422, r.text
    assert r.json()["message"].split(" is invalid: ", 1)[1] == message


def test_a_valid_conversion_webhook_is_accepted(srv):  # noqa: F811
    body = _crd(_webhook("https://conv.example.com:8443/convert", ["v1", "v1beta1"]))
    r = create_crd(requests, srv.url, body)
    assert r.status_code == 201, r.text
    assert r.json()["spec"]["conversion"]["webhook"]["clientConfig"]["url"] == "https://conv.example.com:8443/convert"
