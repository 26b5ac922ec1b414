"""Post-start hooks that have a counterpart here are real checks: on an etcd store holding a webhook that refuses
the system PriorityClasses (a restart), `scheduling/bootstrap-system-priority-classes` never finishes
(controller/system_objects.py: the hook fails), so `/readyz`, `/livez` and `/healthz` answer upstream's 500 naming
it; with a webhook that allows them the hook finishes and `/readyz` turns `ok`."""
from __future__ import annotations

from typing import Any

import pytest
import requests

from ..controller.test_bootstrap import _wait, served  # noqa: F401 - served: a fixture
from ..test_admission_webhooks import Hook, hook  # noqa: F401 - hook: a fixture

HOOK = "poststarthook/scheduling/bootstrap-system-priority-classes"


@pytest.mark.parametrize("served", ["/deny"], indirect=True)
def test_a_failed_hook_fails_every_health_root(served: Any, hook: Hook) -> None:  # noqa: F811
    _wait(served.server.failed.is_set)
    for endpoint in ("healthz", "livez", "readyz"):
        r = requests.get(f"{served.url}/{endpoint}")
        assert r.status_code == 500
        assert f"[+]poststarthook/rbac/bootstrap-roles ok\n[-]{HOOK} failed: reason withheld\n" in r.text
        assert r.text.endswith(f"{endpoint} check failed\n")
        assert r.headers["Content-Type"] == "text/plain; charset=utf-8"
        assert r.headers["X-Content-Type-Options"] == "nosniff"
        one = requests.get(f"{served.url}/{endpoint}/{HOOK}")
        assert (one.status_code, one.text) == (500, "internal server error: not finished\n")
        assert requests.get(f"{served.url}/{endpoint}?exclude={HOOK}").text == "ok"
    slis = requests.get(f"{served.url}/metrics/slis").text
    assert f'kubernetes_healthcheck{{name="{HOOK}",type="readyz"}} 0' in slis
    assert f'kubernetes_healthchecks_total{{name="{HOOK}",status="error",type="readyz"}} 1' in slis


@pytest.mark.parametrize("served", ["/allow"], indirect=True)
def test_readyz_turns_ok_once_the_hook_finishes(served: Any, hook: Hook) -> None:  # noqa: F811
    _wait(lambda: requests.get(f"{served.url}/readyz").status_code == 200)
    assert requests.get(f"{served.url}/readyz/{HOOK}").text == "ok"
    pcs = requests.get(f"{served.url}/apis/scheduling.k8s.io/v1/priorityclasses").json()["items"]
    assert {"system-cluster-critical", "system-node-critical"} <= {pc["metadata"]["name"] for pc in pcs}
