"""APIServices (`apiregistration.k8s.io/v1`): what kube-aggregator knows about aggregated APIs.

This server proxies nothing: an APIService backed by a service (`spec.service`) is never reachable, so
its group version is *unavailable* — discovery of it fails (503) and the namespace controller reports
NamespaceDeletionDiscoveryFailure while it exists, exactly what a cluster with a broken metrics-server
shows. `availability` gives the Available condition kube-aggregator's `AvailableConditionController`
(`controllers/status/remote`) would write, first failing check wins.
"""
from __future__ import annotations

import base64
import copy
from typing import Any, Callable

from ..apierrors import FieldError, field_invalid, field_not_supported, field_required
from ..deviations import NONE, Deviations
from ..goport.gonet.strconv import quote as go_quote
from ..storage import Store
from .crd import _KeyedStore
from .group import GroupStore
from .kinds import ResourceInfo
from .strategy import Strategy
from .validation import (is_dns1035_label, is_dns1123_subdomain, is_path_segment_name, validate_object_meta,
                         validate_object_meta_update)

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
    allow_unconditional_update = False  # its strategy.go's `AllowUnconditionalUpdate` (and its status one's)

    def default(self, obj: dict[str, Any], *, update: bool = False) -> None:
        """v1's `SetDefaults_ServiceReference` (kube-aggregator `apiregistration/v1/defaults.go`), run as the body
        is decoded: a service's `port` is 443 when not given."""
        service = (obj.get("spec") or {}).get("service") if isinstance(obj.get("spec"), dict) else None
        if isinstance(service, dict) and service.get("port") is None:
            service["port"] = 443

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        obj.pop("status", None)
        obj["status"] = {}

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return validate_apiservice(obj)

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        new["status"] = copy.deepcopy(old.get("status") or {})

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        """`ValidateAPIServiceUpdate`: ObjectMetaUpdate, then the whole `ValidateAPIService`."""
        return validate_object_meta_update(new.get("metadata", {}), old.get("metadata", {})) + validate_apiservice(new)


def _name_errors(meta: dict[str, Any], required: str) -> list[FieldError]:
    """`ValidateAPIService`'s name function, for generateName and name: a path segment, then `version.group`."""
    errs: list[FieldError] = []
    for field, value in (("metadata.generateName", meta.get("generateName")), ("metadata.name", meta.get("name"))):
        if value:
            messages = is_path_segment_name(value) or (
                [f'must be `spec.version+"."+spec.group`: {go_quote(required)}'] if value != required else [])
            errs += [field_invalid(field, value, m) for m in messages]
    return errs


def validate_apiservice(obj: dict[str, Any]) -> list[FieldError]:
    """`ValidateAPIService` (kube-aggregator `pkg/apis/apiregistration/validation/validation.go`), in its order."""
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
    group, version = str(spec.get("group") or ""), str(spec.get("version") or "")
    errs = _name_errors(meta, f"{version}.{group}")
    errs += validate_object_meta(meta, namespaced=False, name_rule="pathsegment", check_name=False,
                                 kube_finalizers=False)
    if not group and version != "v1":
        errs.append(field_required("spec.group", "only v1 may have an empty group and it better be legacy kube"))
    if group:
        errs += [field_invalid("spec.group", group, m) for m in is_dns1123_subdomain(group)]
    errs += [field_invalid("spec.version", version, m) for m in is_dns1035_label(version)]
    for f, top in (("groupPriorityMinimum", 20000), ("versionPriority", 1000)):
        v = spec.get(f) or 0
        if not isinstance(v, int) or isinstance(v, bool) or v <= 0 or v > top:
            errs.append(field_invalid(f"spec.{f}", v, f"must be positive and less than {top}"))
    insecure, ca_bundle = bool(spec.get("insecureSkipTLSVerify")), spec.get("caBundle") or ""
    service = spec.get("service")
    if not isinstance(service, dict):
        if ca_bundle:
            errs.append(field_invalid("spec.caBundle", f"{_decoded_size(ca_bundle)} bytes",
                                      "local APIServices may not have a caBundle"))
        if insecure:
            errs.append(field_invalid("spec.insecureSkipTLSVerify", True,
                                      "local APIServices may not have insecureSkipTLSVerify"))
        return errs
    if not service.get("namespace"):
        errs.append(field_required("spec.service.namespace", ""))
    if not service.get("name"):
        errs.append(field_required("spec.service.name", ""))
    if insecure and ca_bundle:
        errs.append(field_invalid("spec.insecureSkipTLSVerify", True, "may not be true if caBundle is present"))
    return errs


def _decoded_size(ca_bundle: Any) -> int:
    """`len(CABundle)`: the bytes a base64 `[]byte` field decodes to (the decoder refused any other)."""
    try:
        return len(base64.b64decode(str(ca_bundle), validate=False))
    except (ValueError, TypeError):
        return len(str(ca_bundle))


class APIServiceStatusStrategy(APIServiceStrategy):
    subresource = "status"

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        new["spec"] = copy.deepcopy(old.get("spec"))

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        """`ValidateAPIServiceStatusUpdate`: ObjectMetaUpdate and the conditions' status."""
        errs = validate_object_meta_update(new.get("metadata", {}), old.get("metadata", {}))
        for i, cond in enumerate(((new.get("status") or {}).get("conditions") or [])):
            status = cond.get("status") if isinstance(cond, dict) else None
            if status not in ("True", "False", "Unknown"):
                errs.append(field_not_supported(f"status.conditions[{i}].status", status,
                                                ["True", "False", "Unknown"]))
        return errs


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
