"""A registry with one namespace, and bodies of the workload kinds (controllers' syncs are called directly)."""
from __future__ import annotations

from typing import Any

import pytest

from conformance.reference_server.registry import DeleteOptions, ListOptions, Registry
from conformance.reference_server.storage import MemoryStore

NS = "w"
# how kubectl and the controllers delete a Job: a batch/v1 Job's own default is to orphan its pods (an `orphan`
# finalizer that only the garbage collector, not running in these tests, would take off)
BACKGROUND = DeleteOptions(propagation_policy="Background")
CONTAINERS = [{"name": "c", "image": "nginx"}]


@pytest.fixture
def reg() -> Registry:
    r = Registry(MemoryStore())
    r.namespaces.create({"metadata": {"name": NS}})
    return r


def template(labels: dict[str, str], restart: str = "Always", image: str = "nginx") -> dict[str, Any]:
    return {"metadata": {"labels": labels},
            "spec": {"restartPolicy": restart, "containers": [{"name": "c", "image": image}]}}


def apps(reg: Registry, plural: str, name: str, spec: dict[str, Any], group: str = "apps") -> dict[str, Any]:
    store = reg.group(group, plural)
    return store.create({"metadata": {"name": name, "namespace": NS}, "spec": spec})


def get(reg: Registry, plural: str, name: str, group: str = "apps") -> dict[str, Any]:
    return reg.group(group, plural).get(NS, name)


def pods(reg: Registry) -> list[dict[str, Any]]:
    return reg.content("pods").list(NS, ListOptions())["items"]


def patch_spec(reg: Registry, plural: str, name: str, change: dict[str, Any], group: str = "apps") -> dict[str, Any]:
    def t(cur: dict[str, Any]) -> dict[str, Any]:
        cur["spec"].update(change)
        return cur
    return reg.group(group, plural).update(NS, name, transform=t)
