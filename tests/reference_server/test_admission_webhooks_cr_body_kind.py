"""A mutating webhook and a custom resource's updated body naming another kind (http/crbodygvk.py): as for a
patched object (admission/webhooks/crversioned.py), the dispatcher's `ConvertToGVK` sends it in the request's kind
and `Convert` brings the webhook's object back (`crConverter.Convert` sets its content, kind `Thing`), so the
strategy's `ValidateTypeMeta` finds the request's kind and the update is made. Before, the decoder refused the
body (a 400) and no webhook was called."""
from __future__ import annotations

import json

import requests

from .test_admission_webhooks_cr_version import VersionHook, _sent, hook, server, thing  # noqa: F401 (fixtures)


def test_an_updated_body_naming_another_kind_is_sent_as_the_request_s_kind(thing: tuple[str, str],  # noqa: F811
                                                                         hook: VersionHook) -> None:  # noqa: F811
    _, url = thing
    current = requests.get(url).json()
    r = requests.put(url, data=json.dumps({**current, "kind": "Other"}), headers={"Content-Type": "application/json"})
    assert hook.reviews and _sent(hook)["kind"] == "Thing", r.text
    assert r.status_code == 200, r.text
    assert (r.json()["kind"], r.json()["metadata"]["labels"]) == ("Thing", {"hooked": "yes"}), r.text
