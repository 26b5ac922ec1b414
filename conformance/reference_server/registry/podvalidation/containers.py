"""A pod spec's containers as `pkg/apis/core/validation/validation.go` (1.33) judges them: `validateContainers`,
`validateInitContainers`, `validateContainerCommon` (name, image, terminationMessagePolicy, `validateContainerPorts`,
`ValidateEnv` (the downward API's selectors: downwardapi.py), `ValidateEnvFrom`, `ValidateVolumeMounts` (subPaths,
mountPropagation, recursiveReadOnly, overlap with devices), `ValidateVolumeDevices`, `validatePullPolicy`,
`ValidateContainerResourceRequirements`, `validateResizePolicy`, `ValidateSecurityContext` (security.py)), the
probes and lifecycle handlers (`validateProbe`, `validateHandler`, `validateSleepAction` with 1.33's
PodLifecycleSleepActionAllowZero), `checkHostPortConflicts`, and the pod-only `validateContainerOnlyForPod`, and
`validateEphemeralContainers` (the common rules, names, targets, `allowedEphemeralContainerFields`, subPaths).

Map-valued fields (resources) are walked in the order sent: upstream ranges over Go maps, in no fixed order.
"""
from __future__ import annotations

import re
from typing import Any, NamedTuple

from ...apierrors import FieldError, field_forbidden, field_invalid, field_not_supported, field_required
from ...quantity import Quantity, QuantityError, go_string
from ..resourcequota import quantity_errors
from ..shapes import as_dict, as_list
from ..validation import is_dns1123_label, is_dns1123_subdomain, is_qualified_name, regex_error
from .downwardapi import ENV_FIELD_PATHS, object_field_selector, resource_field_selector
from .fields import (config_map_key_errors, field_duplicate, integer, nonnegative, not_found, one_of,
                     port_name_errors, port_num_errors, relaxed_env_name_errors)
from .security import container_security_context
from .volumes import local_descending_path, path_no_backsteps

PROTOCOLS = ("SCTP", "TCP", "UDP")  # sets.List(supportedPortProtocols): sorted
PULL_POLICIES = ("Always", "IfNotPresent", "Never")
TERMINATION_MESSAGE_POLICIES = ("File", "FallbackToLogsOnError")
MOUNT_PROPAGATIONS = ("Bidirectional", "HostToContainer", "None")
RECURSIVE_READ_ONLY = ("Disabled", "Enabled", "IfPossible")
RESIZE_RESOURCES = ("cpu", "memory")
RESIZE_POLICIES = ("NotRequired", "RestartContainer")
_HEADER_FMT = "[-A-Za-z0-9]+"
_HEADER = re.compile("^" + _HEADER_FMT + "$")
_STANDARD_CONTAINER_RESOURCES = frozenset({"cpu", "memory", "ephemeral-storage"})
_STANDARD_RESOURCES = frozenset({
    "cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory", "requests.ephemeral-storage",
    "limits.cpu", "limits.memory", "limits.ephemeral-storage", "pods", "resourcequotas", "services",
    "replicationcontrollers", "secrets", "configmaps", "persistentvolumeclaims", "storage", "requests.storage",
    "services.nodeports", "services.loadbalancers"})


def _dns1123_label(value: str, path: str) -> list[FieldError]:
    return [field_invalid(path, value, m) for m in is_dns1123_label(value)]


def _text(raw: Any) -> str:
    return raw.strip() if isinstance(raw, str) else str(raw)


# --- ports, env --------------------------------------------------------------------------------------------


def validate_container_ports(ports: Any, path: str) -> list[FieldError]:
    """`validateContainerPorts`."""
    errs: list[FieldError] = []
    names: set[str] = set()
    for i, port in enumerate(as_list(ports)):
        port, here = as_dict(port), f"{path}[{i}]"
        name = port.get("name")
        if isinstance(name, str) and name:
            msgs = port_name_errors(name)
            if msgs:
                errs += [field_invalid(f"{here}.name", name, m) for m in msgs]
            elif name in names:
                errs.append(field_duplicate(f"{here}.name", name))
            else:
                names.add(name)
        cport = integer(port.get("containerPort")) or 0
        if cport == 0:
            errs.append(field_required(f"{here}.containerPort"))
        else:
            errs += [field_invalid(f"{here}.containerPort", cport, m) for m in port_num_errors(cport)]
        hport = integer(port.get("hostPort")) or 0
        if hport:
            errs += [field_invalid(f"{here}.hostPort", hport, m) for m in port_num_errors(hport)]
        protocol = port.get("protocol") or ""
        if not protocol:
            errs.append(field_required(f"{here}.protocol"))
        elif protocol not in PROTOCOLS:
            errs.append(field_not_supported(f"{here}.protocol", protocol, PROTOCOLS))
    return errs


def validate_env(env: Any, path: str) -> list[FieldError]:
    """`ValidateEnv` with 1.33's relaxed names, and `validateEnvVarValueFrom`."""
    errs: list[FieldError] = []
    for i, ev in enumerate(as_list(env)):
        ev, here = as_dict(ev), f"{path}[{i}]"
        name = ev.get("name") or ""
        if not name:
            errs.append(field_required(f"{here}.name"))
        else:
            errs += [field_invalid(f"{here}.name", name, m) for m in relaxed_env_name_errors(str(name))]
        errs += _value_from(ev, f"{here}.valueFrom")
    return errs


def _value_from(ev: dict[str, Any], path: str) -> list[FieldError]:
    vf = ev.get("valueFrom")
    if not isinstance(vf, dict):
        return []
    errs: list[FieldError] = []
    sources = 0
    if isinstance(vf.get("fieldRef"), dict):
        sources += 1
        errs += object_field_selector(vf["fieldRef"], ENV_FIELD_PATHS, f"{path}.fieldRef")
    if isinstance(vf.get("resourceFieldRef"), dict):
        sources += 1
        errs += resource_field_selector(vf["resourceFieldRef"], f"{path}.resourceFieldRef", volume=False)
    for key in ("configMapKeyRef", "secretKeyRef"):
        if isinstance(vf.get(key), dict):
            sources += 1
            errs += _key_selector(vf[key], f"{path}.{key}")
    if sources == 0:
        errs.append(field_invalid(path, "", "must specify one of: `fieldRef`, `resourceFieldRef`, "
                                            "`configMapKeyRef` or `secretKeyRef`"))
    elif ev.get("value"):
        errs.append(field_invalid(path, "", "may not be specified when `value` is not empty"))
    elif sources > 1:
        errs.append(field_invalid(path, "", "may not have more than one field specified at a time"))
    return errs


def _key_selector(sel: dict[str, Any], path: str) -> list[FieldError]:
    """`validateConfigMapKeySelector` / `validateSecretKeySelector` (names as Secret names: DNS subdomains)."""
    name = sel.get("name") or ""
    errs = [field_invalid(f"{path}.name", name, m) for m in is_dns1123_subdomain(str(name))]
    key = sel.get("key") or ""
    if not key:
        errs.append(field_required(f"{path}.key"))
    else:
        errs += [field_invalid(f"{path}.key", key, m) for m in config_map_key_errors(key)]
    return errs


def validate_env_from(env_from: Any, path: str) -> list[FieldError]:
    """`ValidateEnvFrom` (note upstream's path for a missing/duplicate source: the list, not the item)."""
    errs: list[FieldError] = []
    for i, ev in enumerate(as_list(env_from)):
        ev, here = as_dict(ev), f"{path}[{i}]"
        prefix = ev.get("prefix") or ""
        if prefix:
            errs += [field_invalid(f"{here}.prefix", prefix, m) for m in relaxed_env_name_errors(str(prefix))]
        sources = 0
        for key in ("configMapRef", "secretRef"):
            if isinstance(ev.get(key), dict):
                sources += 1
                name = ev[key].get("name") or ""
                if not name:
                    errs.append(field_required(f"{here}.{key}.name"))
                else:
                    errs += [field_invalid(f"{here}.{key}.name", name, m) for m in is_dns1123_subdomain(name)]
        if sources == 0:
            errs.append(field_invalid(path, "", "must specify one of: `configMapRef` or `secretRef`"))
        elif sources > 1:
            errs.append(field_invalid(path, "", "may not have more than one field specified at a time"))
    return errs


def _container_mount_errors(mnt: dict[str, Any], c: dict[str, Any], path: str, here: str) -> list[FieldError]:
    """`ValidateVolumeMounts`' subPath, subPathExpr, `validateMountPropagation` and `validateMountRecursiveReadOnly`
    (their paths lack the mount's index, as upstream's)."""
    errs: list[FieldError] = []
    sub, expr = str(mnt.get("subPath") or ""), str(mnt.get("subPathExpr") or "")
    if sub:
        errs += local_descending_path(sub, f"{path}.subPath")
    if expr:
        if sub:
            errs.append(field_invalid(f"{here}.subPathExpr", expr, "subPathExpr and subPath are mutually exclusive"))
        errs += local_descending_path(expr, f"{path}.subPathExpr")
    propagation = mnt.get("mountPropagation")
    if propagation is not None:
        if propagation not in MOUNT_PROPAGATIONS:
            errs.append(field_not_supported(f"{path}.mountPropagation", propagation, MOUNT_PROPAGATIONS))
        privileged = as_dict(c.get("securityContext")).get("privileged") is True
        if propagation == "Bidirectional" and not privileged:
            errs.append(field_forbidden(f"{path}.mountPropagation",
                                        "Bidirectional mount propagation is available only to privileged containers"))
    rro = mnt.get("recursiveReadOnly")
    if rro in ("Enabled", "IfPossible"):
        if mnt.get("readOnly") is not True:
            errs.append(field_forbidden(f"{path}.recursiveReadOnly", "may only be specified when readOnly is true"))
        if propagation is not None and propagation != "None":
            errs.append(field_forbidden(f"{path}.recursiveReadOnly",
                                        "may only be specified when mountPropagation is None or not specified"))
    elif rro is not None and rro != "Disabled":
        errs.append(field_not_supported(f"{path}.recursiveReadOnly", rro, RECURSIVE_READ_ONLY))
    return errs


def _name_map(items: Any, path_key: str) -> dict[str, str]:
    """`GetVolumeMountMap` / `GetVolumeDeviceMap`: name → path (the last of a repeated name)."""
    return {str(as_dict(i).get("name") or ""): str(as_dict(i).get(path_key) or "") for i in as_list(items)}


def validate_volume_mounts(c: dict[str, Any], volumes: dict[str, Any], path: str) -> list[FieldError]:
    """`ValidateVolumeMounts` (name known, mountPath set and unique, no overlap with the container's devices)."""
    errs: list[FieldError] = []
    seen: set[str] = set()
    devices = _name_map(c.get("volumeDevices"), "devicePath") if c.get("volumeDevices") else {}
    for i, mnt in enumerate(as_list(c.get("volumeMounts"))):
        mnt, here = as_dict(mnt), f"{path}[{i}]"
        name = mnt.get("name") or ""
        if not name:
            errs.append(field_required(f"{here}.name"))
        if name not in volumes:
            errs.append(not_found(f"{here}.name", name))
        mpath = mnt.get("mountPath") or ""
        if not mpath:
            errs.append(field_required(f"{here}.mountPath"))
        if mpath in seen:
            errs.append(field_invalid(f"{here}.mountPath", mpath, "must be unique"))
        seen.add(mpath)
        if name in devices:
            errs.append(field_invalid(f"{here}.name", name, "must not already exist in volumeDevices"))
        if mpath in devices.values():
            errs.append(field_invalid(f"{here}.mountPath", mpath, "must not already exist as a path in volumeDevices"))
        errs += _container_mount_errors(mnt, c, path, here)
    return errs


def validate_volume_devices(c: dict[str, Any], volumes: dict[str, Any], path: str) -> list[FieldError]:
    """`ValidateVolumeDevices`: block devices of claims (persistentVolumeClaim or ephemeral volumes) only."""
    if not c.get("volumeDevices"):
        return []
    errs: list[FieldError] = []
    paths: set[str] = set()
    names: set[str] = set()
    mounts = _name_map(c.get("volumeMounts"), "mountPath")
    for i, dev in enumerate(as_dict(d) for d in as_list(c.get("volumeDevices"))):
        here = f"{path}[{i}]"
        name, dpath = str(dev.get("name") or ""), str(dev.get("devicePath") or "")
        vol = volumes.get(name)
        if not name:
            errs.append(field_required(f"{here}.name"))
        if name in names:
            errs.append(field_invalid(f"{here}.name", name, "must be unique"))
        if vol is not None and not (isinstance(vol.get("persistentVolumeClaim"), dict)
                                    or isinstance(vol.get("ephemeral"), dict)):
            errs.append(field_invalid(f"{here}.name", name, "can only use volume source type of "
                                                            "PersistentVolumeClaim or Ephemeral for block mode"))
        if vol is None:
            errs.append(not_found(f"{here}.name", name))
        if not dpath:
            errs.append(field_required(f"{here}.devicePath"))
        if dpath in paths:
            errs.append(field_invalid(f"{here}.devicePath", dpath, "must be unique"))
        if dpath and path_no_backsteps(dpath, ""):
            errs.append(field_invalid(f"{here}.devicePath", dpath, "can not contain backsteps ('..')"))
        else:
            paths.add(dpath)
        if name in mounts:
            errs.append(field_invalid(f"{here}.name", name, "must not already exist in volumeMounts"))
        if dpath in mounts.values():
            errs.append(field_invalid(f"{here}.devicePath", dpath, "must not already exist as a path in volumeMounts"))
        if name:
            names.add(name)
    return errs


def validate_resize_policy(policies: Any, pod_restart_policy: Any, path: str) -> list[FieldError]:
    """`validateResizePolicy` (its errors at the list's path, as upstream's)."""
    errs: list[FieldError] = []
    seen: set[str] = set()
    for i, p in enumerate(as_dict(p) for p in as_list(policies)):
        resource, restart = p.get("resourceName") or "", p.get("restartPolicy") or ""
        if resource in seen:
            errs.append(field_duplicate(f"{path}[{i}]", resource))
        seen.add(resource)
        if not resource:
            errs.append(field_required(path))
        elif resource not in RESIZE_RESOURCES:
            errs.append(field_not_supported(path, resource, RESIZE_RESOURCES))
        if not restart:
            errs.append(field_required(path))
        elif restart not in RESIZE_POLICIES:
            errs.append(field_not_supported(path, restart, RESIZE_POLICIES))
        if pod_restart_policy == "Never" and restart != "NotRequired":
            errs.append(field_invalid(path, restart, "must be 'NotRequired' when `restartPolicy` is 'Never'"))
    return errs


# --- resources ---------------------------------------------------------------------------------------------


def _native(name: str) -> bool:
    return "/" not in name or "kubernetes.io/" in name


def _hugepages(name: str) -> bool:
    return name.startswith("hugepages-")


def _overcommit_allowed(name: str) -> bool:
    """`IsOvercommitAllowed`: native resources except huge pages."""
    return _native(name) and not _hugepages(name)


def container_resource_name_errors(name: str, path: str) -> list[FieldError]:
    """`validateContainerResourceName` (→ `validateResourceName`)."""
    errs = [field_invalid(path, name, m) for m in is_qualified_name(name)]
    if not errs and "/" not in name and name not in _STANDARD_RESOURCES and not _hugepages(name):
        errs.append(field_invalid(path, name, "must be a standard resource type or fully qualified"))
    if "/" not in name:
        if name not in _STANDARD_CONTAINER_RESOURCES and not _hugepages(name):
            errs.append(field_invalid(path, name, "must be a standard resource for containers"))
    elif not _native(name) and (name.startswith("requests.") or is_qualified_name("requests." + name)):
        errs.append(field_invalid(path, name, "doesn't follow extended resource name standard"))
    return errs


def _parsed(raw: Any) -> Quantity | None:
    try:
        return Quantity.parse(_text(raw))
    except QuantityError:
        return None


def validate_resources(resources: Any, path: str) -> list[FieldError]:
    """`ValidateContainerResourceRequirements`: names, quantities, requests within limits (equal for
    resources that may not be overcommitted), huge pages only with cpu or memory."""
    res = as_dict(resources)
    limits, requests = as_dict(res.get("limits")), as_dict(res.get("requests"))
    lim_path, req_path = f"{path}.limits", f"{path}.requests"
    errs: list[FieldError] = []
    cpu_or_memory, huge = False, False
    for name, value in limits.items():
        key = f"{lim_path}[{name}]"
        errs += container_resource_name_errors(str(name), key) + quantity_errors(str(name), value, key)
        cpu_or_memory |= name in ("cpu", "memory")
        huge |= _hugepages(str(name))
    for name, value in requests.items():
        key = f"{req_path}[{name}]"
        errs += container_resource_name_errors(str(name), key) + quantity_errors(str(name), value, key)
        q = _parsed(value)
        if name in limits:
            limit = _parsed(limits[name])
            if q is not None and limit is not None:
                if q.cmp(limit) != 0 and not _overcommit_allowed(str(name)):
                    errs.append(field_invalid(req_path, go_string(value),
                                              f"must be equal to {name} limit of {go_string(limits[name])}"))
                elif q.cmp(limit) > 0:
                    errs.append(field_invalid(req_path, go_string(value), f"must be less than or equal to "
                                                                                 f"{name} limit of "
                                                                                 f"{go_string(limits[name])}"))
        elif not _overcommit_allowed(str(name)):
            errs.append(field_required(lim_path, "Limit must be set for non overcommitable resources"))
        cpu_or_memory |= name in ("cpu", "memory")
        huge |= _hugepages(str(name))
    if huge and not cpu_or_memory:
        errs.append(field_forbidden(path, "HugePages require cpu or memory"))
    return errs


# --- probes, lifecycle, security context -------------------------------------------------------------------


def port_num_or_name(port: Any, path: str) -> list[FieldError]:
    """`ValidatePortNumOrName`."""
    if isinstance(port, str):
        return [field_invalid(path, port, m) for m in port_name_errors(port)]
    n = integer(port) or 0
    return [field_invalid(path, n, m) for m in port_num_errors(n)]


def _http_get(action: dict[str, Any], path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    if not action.get("path"):
        errs.append(field_required(f"{path}.path"))
    errs += port_num_or_name(action.get("port"), f"{path}.port")
    scheme = action.get("scheme") or ""
    if scheme not in ("HTTP", "HTTPS"):
        errs.append(field_not_supported(f"{path}.scheme", scheme, ("HTTP", "HTTPS")))
    for header in as_list(action.get("httpHeaders")):
        name = str(as_dict(header).get("name") or "")
        if not _HEADER.match(name):
            errs.append(field_invalid(f"{path}.httpHeaders", name, regex_error(
                "a valid HTTP header must consist of alphanumeric characters or '-'", _HEADER_FMT, "X-Header-Name")))
    return errs


class PodContext(NamedTuple):
    """What a container's validation reads of its pod spec: terminationGracePeriodSeconds, restartPolicy, and
    whether the pod shares the host's user namespace (`hostUsers` unset or true)."""

    grace: int | None
    restart_policy: Any
    host_users: bool

    @staticmethod
    def of(spec: dict[str, Any]) -> "PodContext":
        return PodContext(integer(spec.get("terminationGracePeriodSeconds")), spec.get("restartPolicy"),
                          spec.get("hostUsers") is not False)


def _sleep(action: dict[str, Any], grace: int | None, path: str) -> list[FieldError]:
    """`validateSleepAction` with 1.33's AllowPodLifecycleSleepActionZeroValue."""
    seconds = integer(action.get("seconds")) or 0
    if grace is not None and not 0 <= seconds <= grace:
        return [field_invalid(path, seconds, f"must be non-negative and less than terminationGracePeriodSeconds "
                                             f"({grace})")]
    return []


def validate_handler(handler: dict[str, Any], kinds: tuple[str, ...], path: str,
                     grace: int | None = None) -> list[FieldError]:
    """`validateHandler`: exactly one action among `kinds` (a probe's or a lifecycle hook's)."""
    def check(kind: str, action: dict[str, Any]) -> list[FieldError]:
        if kind == "exec" and not as_list(action.get("command")):
            return [field_required(f"{path}.exec.command")]
        if kind == "httpGet":
            return _http_get(action, f"{path}.httpGet")
        if kind == "tcpSocket":
            return port_num_or_name(action.get("port"), f"{path}.tcpSocket.port")
        if kind == "grpc":
            return port_num_or_name(integer(action.get("port")) or 0, f"{path}.grpc.port")
        if kind == "sleep":
            return _sleep(action, grace, f"{path}.sleep")
        return []

    count, errs = one_of(handler, ((k, k) for k in kinds), path, "handler type", check)
    if count == 0:
        errs.append(field_required(path, "must specify a handler type"))
    return errs


PROBE_ACTIONS = ("exec", "httpGet", "tcpSocket", "grpc")
LIFECYCLE_ACTIONS = ("exec", "httpGet", "tcpSocket", "sleep")


def validate_probe(probe: Any, kind: str, path: str) -> list[FieldError]:
    """`validateLivenessProbe` / `validateReadinessProbe` / `validateStartupProbe` → `validateProbe`."""
    if not isinstance(probe, dict):
        return []
    errs = validate_handler(probe, PROBE_ACTIONS, path)
    for key in ("initialDelaySeconds", "timeoutSeconds", "periodSeconds", "successThreshold", "failureThreshold"):
        errs += nonnegative(probe.get(key), f"{path}.{key}")
    grace = integer(probe.get("terminationGracePeriodSeconds"))
    if grace is not None and grace <= 0:
        errs.append(field_invalid(f"{path}.terminationGracePeriodSeconds", grace, "must be greater than 0"))
    if kind == "readinessProbe":
        if grace is not None:
            errs.append(field_invalid(f"{path}.terminationGracePeriodSeconds", grace,
                                      "must not be set for readinessProbes"))
    else:
        success = integer(probe.get("successThreshold"))
        if success is not None and success != 1:
            errs.append(field_invalid(f"{path}.successThreshold", success, "must be 1"))
    return errs


def _lifecycle(lifecycle: dict[str, Any], grace: int | None, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    for hook in ("postStart", "preStop"):
        if isinstance(lifecycle.get(hook), dict):
            errs += validate_handler(lifecycle[hook], LIFECYCLE_ACTIONS, f"{path}.{hook}", grace)
    return errs


def _probes(c: dict[str, Any], pod: PodContext, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    if isinstance(c.get("lifecycle"), dict):
        errs += _lifecycle(c["lifecycle"], pod.grace, f"{path}.lifecycle")
    for kind in ("livenessProbe", "readinessProbe", "startupProbe"):
        errs += validate_probe(c.get(kind), kind, f"{path}.{kind}")
    return errs


# --- containers --------------------------------------------------------------------------------------------


def _common(c: dict[str, Any], volumes: dict[str, Any], pod: PodContext, path: str) -> list[FieldError]:
    """`validateContainerCommon`."""
    errs: list[FieldError] = []
    name = c.get("name") or ""
    if not name:
        errs.append(field_required(f"{path}.name"))
    else:
        errs += _dns1123_label(str(name), f"{path}.name")
    if not c.get("image"):
        errs.append(field_required(f"{path}.image"))
    policy = c.get("terminationMessagePolicy") or ""
    if not policy:
        errs.append(field_required(f"{path}.terminationMessagePolicy"))
    elif policy not in TERMINATION_MESSAGE_POLICIES:
        errs.append(field_not_supported(f"{path}.terminationMessagePolicy", policy, TERMINATION_MESSAGE_POLICIES))
    errs += validate_container_ports(c.get("ports"), f"{path}.ports")
    errs += validate_env(c.get("env"), f"{path}.env")
    errs += validate_env_from(c.get("envFrom"), f"{path}.envFrom")
    errs += validate_volume_mounts(c, volumes, f"{path}.volumeMounts")
    errs += validate_volume_devices(c, volumes, f"{path}.volumeDevices")
    pull = c.get("imagePullPolicy") or ""
    if not pull:
        errs.append(field_required(f"{path}.imagePullPolicy"))
    elif pull not in PULL_POLICIES:
        errs.append(field_not_supported(f"{path}.imagePullPolicy", pull, PULL_POLICIES))
    errs += validate_resources(c.get("resources"), f"{path}.resources")
    errs += validate_resize_policy(c.get("resizePolicy"), pod.restart_policy, f"{path}.resizePolicy")
    errs += container_security_context(c.get("securityContext"), f"{path}.securityContext", host_users=pod.host_users)
    return errs


def _host_port_conflicts(containers: list[dict[str, Any]], path: str,
                         indexes: list[int] | None = None) -> list[FieldError]:
    """`AccumulateUniqueHostPorts`: `protocol/hostIP/hostPort` once across the containers given."""
    errs: list[FieldError] = []
    seen: set[str] = set()
    for ci, c in zip(indexes or range(len(containers)), containers):
        for pi, port in enumerate(as_list(c.get("ports"))):
            port = as_dict(port)
            hport = integer(port.get("hostPort")) or 0
            if not hport:
                continue
            key = f"{port.get('protocol') or ''}/{port.get('hostIP') or ''}/{hport}"
            if key in seen:
                errs.append(field_duplicate(f"{path}[{ci}].ports[{pi}].hostPort", key))
            seen.add(key)
    return errs


def validate_containers(containers: Any, volumes: dict[str, Any], pod: PodContext, path: str) -> list[FieldError]:
    """`validateContainers`."""
    items = [as_dict(c) for c in as_list(containers)]
    if not items:
        return [field_required(path)]
    errs: list[FieldError] = []
    names: set[str] = set()
    for i, c in enumerate(items):
        here = f"{path}[{i}]"
        errs += _common(c, volumes, pod, here)
        name = c.get("name") or ""
        if name in names:
            errs.append(field_duplicate(f"{here}.name", name))
        else:
            names.add(name)
        errs += _probes(c, pod, here)
        if c.get("restartPolicy") is not None:
            errs.append(field_forbidden(f"{here}.restartPolicy", "may not be set for non-init containers"))
    return errs + _host_port_conflicts(items, path)


def validate_init_containers(init: Any, regular: Any, volumes: dict[str, Any], pod: PodContext,
                             path: str) -> list[FieldError]:
    """`validateInitContainers`: names unique with the regular containers', restartable (sidecar) containers
    may have probes and hooks, the others may not; a resizePolicy is allowed (1.33's AllowSidecarResizePolicy,
    InPlacePodVerticalScaling being beta)."""
    errs: list[FieldError] = []
    names = {str(as_dict(c).get("name") or "") for c in as_list(regular)}
    for i, c in enumerate(as_dict(c) for c in as_list(init)):
        here = f"{path}[{i}]"
        errs += _common(c, volumes, pod, here)
        policy = c.get("restartPolicy")
        if policy is not None and policy != "Always":
            errs.append(field_not_supported(f"{here}.restartPolicy", policy, ("Always",)))
        name = c.get("name") or ""
        if name in names:
            errs.append(field_duplicate(f"{here}.name", name))
        elif name:
            names.add(name)
        errs += _host_port_conflicts([c], path, [i])
        if policy == "Always":
            errs += _probes(c, pod, here)
        else:
            for key in ("lifecycle", "livenessProbe", "readinessProbe", "startupProbe"):
                if c.get(key) is not None:
                    errs.append(field_forbidden(f"{here}.{key}",
                                                "may not be set for init containers without restartPolicy=Always"))
    return errs


# EphemeralContainerCommon's fields an ephemeral container may not set (`allowedEphemeralContainerFields` false),
# in the Go struct's order, with whether the Go field is a struct value (zero when its own fields are unset) rather
# than a pointer or slice (zero only when absent)
_EPHEMERAL_FORBIDDEN = (("ports", False), ("resources", True), ("resizePolicy", False), ("restartPolicy", False),
                        ("livenessProbe", False), ("readinessProbe", False), ("startupProbe", False),
                        ("lifecycle", False))
EPHEMERAL_FORBIDDEN_MSG = "cannot be set for an Ephemeral Container"


def _go_set(value: Any, struct: bool) -> bool:
    """`validateFieldAllowList`'s test: the field differs from its Go zero value (a decoded `[]` or `{}` is a
    non-nil slice or map, so set; a struct is zero when each of its fields is)."""
    if struct:
        return isinstance(value, dict) and any(v is not None for v in value.values())
    return value is not None


def validate_ephemeral_containers(ephemeral: Any, containers: Any, init: Any, volumes: dict[str, Any],
                                  pod: PodContext, path: str) -> list[FieldError]:
    """`validateEphemeralContainers`: each container's common rules and `validateContainerOnlyForPod`, a name
    unique across every kind of container, `targetContainerName` a regular or init container, only
    `allowedEphemeralContainerFields`, no `subPath`/`subPathExpr`."""
    errs: list[FieldError] = []
    others = {str(as_dict(c).get("name") or "") for c in as_list(containers) + as_list(init)}
    names = set(others)
    for i, c in enumerate(as_dict(c) for c in as_list(ephemeral)):
        here = f"{path}[{i}]"
        errs += _common(c, volumes, pod, here)
        errs += _only_for_pod(c, here)
        name = str(c.get("name") or "")
        if name in names:
            errs.append(field_duplicate(f"{here}.name", name))
        else:
            names.add(name)
        target = c.get("targetContainerName")
        if target and target not in others:
            errs.append(not_found(f"{here}.targetContainerName", target))
        errs += [field_forbidden(f"{here}.{key}", EPHEMERAL_FORBIDDEN_MSG)
                 for key, struct in _EPHEMERAL_FORBIDDEN if _go_set(c.get(key), struct)]
        for j, mnt in enumerate(as_dict(m) for m in as_list(c.get("volumeMounts"))):
            errs += [field_forbidden(f"{here}.volumeMounts[{j}].{key}", EPHEMERAL_FORBIDDEN_MSG)
                     for key in ("subPath", "subPathExpr") if mnt.get(key)]
    return errs


def _only_for_pod(c: dict[str, Any], path: str) -> list[FieldError]:
    """`validateContainerOnlyForPod`: a pod's image may not carry surrounding whitespace (templates may)."""
    image = c.get("image")
    if isinstance(image, str) and image != image.strip():
        return [field_invalid(f"{path}.image", image, "must not have leading or trailing whitespace")]
    return []


def containers_only_for_pod(containers: Any, path: str) -> list[FieldError]:
    """`validateContainersOnlyForPod`."""
    errs: list[FieldError] = []
    for i, c in enumerate(as_dict(c) for c in as_list(containers)):
        errs += _only_for_pod(c, f"{path}[{i}]")
    return errs
