"""APIServices (`apiregistration.k8s.io/v1`): what kube-aggregator knows about aggregated APIs.

This server proxies nothing: an APIService backed by a service (`spec.service`) is never reachable, so
its group version is *unavailable* — discovery of it fails (503) and the namespace controller reports
NamespaceDeletionDiscoveryFailure while it exists, exactly what a cluster with a broken metrics-server
shows. `availability` gives the Available condition kube-aggregator's `AvailableConditionController`
(`controllers/status/remote`) would write, first failing check wins.
"""
from __future__ import annotations

import copy
from typing import Any, Callable

from ..apierrors import FieldError, field_invalid, field_required
from ..deviations import NONE, Deviations
from ..storage import Store
from .crd import _KeyedStore
from .group import GroupStore
from .kinds import ResourceInfo
from .strategy import Strategy

GROUP, VERSION = "apiregistration.k8s.io", "v1"
INFO = ResourceInfo("APIService", "apiservices", "apiservice", (), namespaced=False,
                    fields=frozenset({"spec", "status"}), verbs=("create", "delete", "deletecollection", "get",
                                                                 "list", "patch", "update", "watch"))
KEY = f"{INFO.plural}.{GROUP}"


def group_version(apiservice: dict[str, Any]) -> tuple[str, str]:
    spec = apiservice.get("spec") or {}
    return str(spec.get("group") or ""), str(spec.get("version") or "")


def is_remote(apiservice: dict[str, Any]) -> bool:
    return bool((apiservice.get("spec") or {}).get("service"))


def availability(apiservice: dict[str, Any],
                 get_service: Callable[[str, str], dict[str, Any] | None]) -> tuple[str, str, str]:
    """(status, reason, message) of the Available condition."""
    svc = (apiservice.get("spec") or {}).get("service")
    if not svc:
        return "True", "Local", "Local APIServices are always available"
    ns, name = svc.get("namespace", ""), svc.get("name", "")
    service = get_service(ns, name)
    if service is None:
        return "False", "ServiceNotFound", f'service/{name} in "{ns}" is not present'
    port = svc.get("port", 443)
    ports = (service.get("spec") or {}).get("ports") or []
    if (service.get("spec") or {}).get("type", "ClusterIP") == "ClusterIP":
        if not any(p.get("port") == port for p in ports):
            return "False", "ServicePortError", f'service/{name} in "{ns}" is not listening on port {port}'
        # no EndpointSlice controller runs here: a service never has endpoint slices
        return "False", "EndpointsNotFound", f'cannot find endpointslices for service/{name} in "{ns}"'
    return "False", "FailedDiscoveryCheck", (f"failing or missing response from https://{name}.{ns}.svc:{port}"
                                             f"/apis/{'/'.join(group_version(apiservice))}: no route to service")


class APIServiceStrategy(Strategy):
    kube_finalizers = False  # apimachinery's generic ValidateObjectMeta: any qualified finalizer name
    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        obj.pop("status", None)
        obj["status"] = {}

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return super().validate(obj) + _validate_spec(obj)

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        new["status"] = copy.deepcopy(old.get("status") or {})

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return super().validate_update(new, old) + _validate_spec(new)


def _validate_spec(obj: dict[str, Any]) -> list[FieldError]:
    """`ValidateAPIService`'s name and priority rules."""
    spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
    errs: list[FieldError] = []
    group, version = group_version(obj)
    name = (obj.get("metadata") or {}).get("name")
    if not version:
        errs.append(field_required("spec.version"))
    expected = f"{version}.{group}" if group else version
    if version and name != expected:
        errs.append(field_invalid("metadata.name", name, f'must be `spec.version+"."+spec.group`: "{expected}"'))
    for f, top in (("groupPriorityMinimum", 20000), ("versionPriority", 1000)):
        v = spec.get(f)
        if not isinstance(v, int) or isinstance(v, bool) or v <= 0 or v > top:
            errs.append(field_invalid(f"spec.{f}", v, f"must be positive and less than {top}"))
    return errs


class APIServiceStatusStrategy(APIServiceStrategy):
    subresource = "status"

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        new["spec"] = copy.deepcopy(old.get("spec"))

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return Strategy.validate_update(self, new, old)


class APIServiceStore(GroupStore):
    def __init__(self, store: Store, deviations: Deviations = NONE):
        super().__init__(INFO, _KeyedStore(store, KEY), GROUP, VERSION,  # type: ignore[arg-type]
                         strategy=APIServiceStrategy(INFO), deviations=deviations)
        self.status_strategy = APIServiceStatusStrategy(INFO)
        self.storage_key = KEY  # what the garbage collector watches and reads owners under

    def all(self) -> list[dict[str, Any]]:
        return self.store.list(KEY, None, shared=True)[0]

    def unavailable(self) -> list[dict[str, Any]]:
        """Service-backed APIServices (this server can reach none of them), by name."""
        return [a for a in self.all() if is_remote(a)]
