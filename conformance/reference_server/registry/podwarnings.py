"""The warnings a pod or a pod template's write earns (`warning.AddWarning`, sent as `Warning: 299` headers):
`pkg/api/pod/warnings.go` 1.33 (`GetWarningsForPod`, `GetWarningsForPodTemplate`: `warningsForPodSpecAndMeta`,
in its order and words), `pkg/api/node/util.go` (the deprecated node labels, `GetWarningsForNodeSelectorTerm`,
its label-value check for preferred terms only, as warnings.go calls it), `pkg/api/persistentvolumeclaim/util.go`
(`GetWarningsForPersistentVolumeClaimSpec`: fractional storage bytes), `pkg/api/job/warnings.go`
(`WarningsForJobSpec`) and the name warnings of the strategies' `WarningsOnCreate` (`pkg/registry/core/pod`,
`apps/deployment|replicaset`, `batch/job|cronjob`, `core/replicationcontroller`: a name that is not a DNS label).

`warningsForOverlappingVirtualPaths` is 1.33's (kubernetes#121968 as merged, with its path-and-source rework):
items of a configMap, secret or downwardAPI volume, and the sources of a projected volume, whose paths are equal
or one a directory of the other, each pair warned of once (`"a/b" (Secret "s") with "a" (ConfigMap "c")`), the
later path first; a projected source with nothing set is warned of too. Its words are those of the 1.33-era
`warnings_test.go` (the one whose gitRepo case says "disabled by default in v1.33+"), as are a duplicate port
name's (kubernetes#122170, merged after October 2024 and seen from 1.33 clusters) and a gitRepo volume's (its
driver's gate is off from 1.33).

So are, from 1.33's changelog, a preferred node affinity term's values that are not label values
(kubernetes#128212) and the IP addresses of `dnsConfig.nameservers` and `hostAliases` in a deprecated form
(kubernetes#128786: registry/ipwarnings.py), the last warnings of all, as later releases place them.

A field path is rendered as `field.Path.String()` renders it: `a.b[key]`, `a[0].b`. Maps are walked in the
object's order, where Go's map order is random (only the order of a pod's several warnings can differ)."""
from __future__ import annotations

from typing import Any

from ..goport.gofmt import go_quote, plain_v
from ..quantity import Quantity, QuantityError
from .shapes import as_dict, as_list
from .ipwarnings import entry_ip_warnings, ip_warnings
from .validation import is_dns1123_label, is_label_value

DEPRECATED_NODE_LABELS = {  # pkg/api/node/util.go `deprecatedNodeLabels`
    "beta.kubernetes.io/arch": 'deprecated since v1.14; use "kubernetes.io/arch" instead',
    "beta.kubernetes.io/os": 'deprecated since v1.14; use "kubernetes.io/os" instead',
    "failure-domain.beta.kubernetes.io/region": 'deprecated since v1.17; use "topology.kubernetes.io/region" instead',
    "failure-domain.beta.kubernetes.io/zone": 'deprecated since v1.17; use "topology.kubernetes.io/zone" instead',
    "beta.kubernetes.io/instance-type": 'deprecated since v1.17; use "node.kubernetes.io/instance-type" instead',
    "app.kubernetes.io/created-by": "deprecated since v1.9",
    "scheduler.alpha.kubernetes.io/preferAvoidPods": "deprecated since v1.22; use Taints and Tolerations instead",
    "node-role.kubernetes.io/master": 'use "node-role.kubernetes.io/control-plane" instead',
}
DEPRECATED_ANNOTATIONS = (  # warnings.go `deprecatedAnnotations` (none has a prefix in 1.33)
    ("scheduler.alpha.kubernetes.io/critical-pod",
     'non-functional in v1.16+; use the "priorityClassName" field instead'),
    ("security.alpha.kubernetes.io/sysctls", 'non-functional in v1.11+; use the "sysctls" field instead'),
    ("security.alpha.kubernetes.io/unsafe-sysctls", 'non-functional in v1.11+; use the "sysctls" field instead'),
)
DEPRECATED_VOLUMES = (  # the removed/deprecated plugins, in warnings.go's order (ephemeral sits between)
    ("photonPersistentDisk", "deprecated in v1.11, non-functional in v1.16+"),
    # GitRepoVolumeDriver is deprecated and off by default from 1.33 (kube_features.go), so its disabled words
    ("gitRepo", "deprecated in v1.11, and disabled by default in v1.33+"),
    ("scaleIO", "deprecated in v1.16, non-functional in v1.22+"),
    ("flocker", "deprecated in v1.22, non-functional in v1.25+"),
    ("storageos", "deprecated in v1.22, non-functional in v1.25+"),
    ("quobyte", "deprecated in v1.22, non-functional in v1.25+"),
    ("glusterfs", "deprecated in v1.25, non-functional in v1.26+"),
    (None, ""),  # ephemeral.volumeClaimTemplate: the PVC spec's warnings
    ("cephfs", "deprecated in v1.28, non-functional in v1.31+"),
    ("rbd", "deprecated in v1.28, non-functional in v1.31+"),
)
# the internal field names warnings.go prints, where v1's JSON name differs
_VOLUME_FIELD = {"storageos": "storageOS"}
SECCOMP_POD = "seccomp.security.alpha.kubernetes.io/pod"
SECCOMP_CONTAINER = "container.seccomp.security.alpha.kubernetes.io/"
APPARMOR_CONTAINER = "container.apparmor.security.beta.kubernetes.io/"
CONTAINER_KINDS = ("initContainers", "containers", "ephemeralContainers")  # VisitContainersWithPath's order
POD_NAME = ("metadata.name: this is used in the Pod's hostname, which can result in surprising behavior; "
            "a DNS label is recommended: ")
WORKLOAD_NAME = ("metadata.name: this is used in Pod names and hostnames, which can result in surprising "
                 "behavior; a DNS label is recommended: ")
INDEXED_JOB = ("In Indexed Jobs with a number of completions higher than 10^5 and a parallelism higher than 10^4, "
               "Kubernetes might not be able to track completedIndexes when a big number of indexes fail")
FRACTIONAL = 'fractional byte value "{}" is invalid, must be an integer'


def _join(prefix: str, child: str) -> str:
    return f"{prefix}.{child}" if prefix else child


def name_warnings(name: Any, *, pod: bool) -> list[str]:
    """The strategies' `IsDNS1123Label(name)` warning: a pod's own words, or a workload's."""
    msgs = is_dns1123_label(name) if isinstance(name, str) else []
    return [(POD_NAME if pod else WORKLOAD_NAME) + plain_v(msgs)] if msgs else []


_WHOLE_SUFFIXES = frozenset(("Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "k", "M", "G", "T", "P", "E"))


def _whole(value: Any) -> bool:
    """A quantity plainly whole (`128Mi`, `1G`, `64`): the common case, answered without parsing."""
    if isinstance(value, int):
        return True
    if not isinstance(value, str):
        return False
    digits = value.rstrip("kMGTPEi")
    return digits.isdigit() and digits.isascii() and (digits == value or value[len(digits):] in _WHOLE_SUFFIXES)


def _fractional(value: Any, path: str) -> list[str]:
    """`value.MilliValue()%1000 != 0` of a quantity present in its map; a value validation refuses is not one."""
    if _whole(value):
        return []
    try:
        q = Quantity.parse(value)
    except QuantityError:
        return []
    return [f"{path}: " + FRACTIONAL.format(q.canonical())] if q.milli_value() % 1000 else []


def pvc_spec_warnings(path: str, spec: Any) -> list[str]:
    """`GetWarningsForPersistentVolumeClaimSpec`: fractional storage requests and limits (a missing one is 0)."""
    resources = as_dict(as_dict(spec).get("resources"))
    out: list[str] = []
    for kind in ("requests", "limits"):
        amounts = as_dict(resources.get(kind))
        if "storage" in amounts:
            out += _fractional(amounts["storage"], f"{path}.resources.{kind}[storage]")
    return out


def node_selector_term_warnings(term: Any, path: str, check_values: bool) -> list[str]:
    """`GetWarningsForNodeSelectorTerm(term, checkLabelValue, path)`: deprecated labels among the match
    expressions' keys, and (a preferred term's, kubernetes#128212 in 1.33) each value that is not a label value."""
    out = []
    for i, expression in enumerate(as_list(as_dict(term).get("matchExpressions"))):
        expression = as_dict(expression)
        key = expression.get("key")
        if isinstance(key, str) and key in DEPRECATED_NODE_LABELS:
            out.append(f"{path}.matchExpressions[{i}].key: {key} is {DEPRECATED_NODE_LABELS[key]}")
        if check_values:
            for j, value in enumerate(as_list(expression.get("values"))):
                if isinstance(value, str):
                    out += [f"{path}.matchExpressions[{i}].values[{j}]: {value} is invalid, {msg}"
                            for msg in is_label_value(value)]
    return out


def _node_labels(spec: dict[str, Any], p: str) -> list[str]:
    """Deprecated node labels in the nodeSelector, the node affinity and the topology spread constraints (and
    their null label selectors)."""
    out = [f"{p}nodeSelector[{k}]: {DEPRECATED_NODE_LABELS[k]}"
           for k in as_dict(spec.get("nodeSelector")) if k in DEPRECATED_NODE_LABELS]
    node = as_dict(as_dict(spec.get("affinity")).get("nodeAffinity"))
    if node:
        required = node.get("requiredDuringSchedulingIgnoredDuringExecution")
        if isinstance(required, dict):
            base = f"{p}affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"
            for i, term in enumerate(as_list(required.get("nodeSelectorTerms"))):
                out += node_selector_term_warnings(term, f"{base}[{i}]", False)
        base = f"{p}affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution"
        for i, term in enumerate(as_list(node.get("preferredDuringSchedulingIgnoredDuringExecution"))):
            out += node_selector_term_warnings(as_dict(term).get("preference"), f"{base}[{i}].preference", True)
    for i, t in enumerate(as_list(spec.get("topologySpreadConstraints"))):
        t = as_dict(t)
        key = t.get("topologyKey")
        if isinstance(key, str) and key in DEPRECATED_NODE_LABELS:
            out.append(f"{p}topologySpreadConstraints[{i}].topologyKey: {key} is {DEPRECATED_NODE_LABELS[key]}")
        if t.get("labelSelector") is None:
            out.append(f"{p}topologySpreadConstraints[{i}].labelSelector: a null labelSelector results in "
                       "matching no pod")
    return out


def _volumes(spec: dict[str, Any], p: str) -> list[str]:
    out = []
    for i, v in enumerate(as_list(spec.get("volumes"))):
        v = as_dict(v)
        for source, message in DEPRECATED_VOLUMES:
            if source is None:
                claim = as_dict(v.get("ephemeral")).get("volumeClaimTemplate")
                if isinstance(claim, dict):
                    out += pvc_spec_warnings(f"{p}volumes[{i}].ephemeral.volumeClaimTemplate.spec", claim.get("spec"))
            elif isinstance(v.get(source), dict):
                out.append(f"{p}volumes[{i}].{_VOLUME_FIELD.get(source, source)}: {message}")
    return out


PROJECTED_SOURCES = ("secret", "downwardAPI", "configMap", "serviceAccountToken", "clusterTrustBundle")


def _item_paths(items: Any, source: str) -> list[tuple[str, str]]:
    """`extractPaths`: each item's path with its source ("" for a volume's own items)."""
    return [(path if isinstance(path := as_dict(item).get("path"), str) else "", source) for item in as_list(items)]


def _source_paths(source: dict[str, Any]) -> list[tuple[str, str]]:
    """A projected source's paths, the first member that has them in warnings.go's order."""
    config_map, secret, downward = (as_dict(source.get(k)) for k in ("configMap", "secret", "downwardAPI"))
    if config_map.get("items") is not None:
        return _item_paths(config_map["items"], f"ConfigMap {go_quote(str(config_map.get('name') or ''))}")
    if secret.get("items") is not None:
        return _item_paths(secret["items"], f"Secret {go_quote(str(secret.get('name') or ''))}")
    if downward.get("items") is not None:
        return _item_paths(downward["items"], "DownwardAPI")
    for key, label in (("serviceAccountToken", "ServiceAccountToken"), ("clusterTrustBundle", "ClusterTrustBundle")):
        member = source.get(key)
        if isinstance(member, dict):
            if key == "clusterTrustBundle":
                label += " " + go_quote(str(member.get("name") or member.get("signerName") or ""))
            return [(member.get("path") if isinstance(member.get("path"), str) else "", label)]
    return []


def _shown(ps: tuple[str, str]) -> str:
    return go_quote(ps[0]) + (f" ({ps[1]})" if ps[1] else "")


def _overlapping(paths: list[tuple[str, str]], seen: list[tuple[str, str]]) -> list[str]:
    """`checkVolumeMappingForOverlap` over `seen` (extended): each path, trailing slashes trimmed, against every
    earlier one that is equal or is its directory or file (`checkForOverlap`); empty paths never collide."""
    out = []
    for path, source in paths:
        ps = (path.rstrip("/"), source)
        if ps[0]:
            out += [f"{_shown(ps)} with {_shown(c)}" for c in seen
                    if c[0] and ((c[0] + "/").startswith(ps[0] + "/") or (ps[0] + "/").startswith(c[0] + "/"))]
        seen.append(ps)
    return out


def _overlapping_paths(spec: dict[str, Any]) -> list[str]:
    """`warningsForOverlappingVirtualPaths`: no field path, the same words for a pod and a template."""
    out = []
    for v in as_list(spec.get("volumes")):
        v = as_dict(v)
        name = go_quote(v["name"] if isinstance(v.get("name"), str) else "")
        config_map, secret, downward = (as_dict(v.get(k)) for k in ("configMap", "secret", "downwardAPI"))
        for member, desc in ((config_map, f"ConfigMap {go_quote(str(config_map.get('name') or ''))}"),
                             (secret, f"Secret {go_quote(str(secret.get('secretName') or ''))}"),
                             (downward, "DownwardAPI")):
            if member.get("items") is not None:
                out += [f"volume {name} ({desc}): overlapping paths: {w}"
                        for w in _overlapping(_item_paths(member["items"], ""), [])]
        projected = v.get("projected")
        if isinstance(projected, dict):
            seen: list[tuple[str, str]] = []
            for source in as_list(projected.get("sources")):
                source = as_dict(source)
                if all(source.get(k) is None for k in PROJECTED_SOURCES):
                    out.append(f"volume {name} (Projected) has no sources provided")
                    continue
                out += [f"volume {name} (Projected): overlapping paths: {w}"
                        for w in _overlapping(_source_paths(source), seen)]
    return out


def _duplicates(spec: dict[str, Any], p: str) -> list[str]:
    """Duplicate hostAliases IPs and imagePullSecrets names, then imagePullSecrets with an empty name."""
    out = []
    for key, item_key, what in (("hostAliases", "ip", "ip"), ("imagePullSecrets", "name", "name")):
        items = as_list(spec.get(key))
        if len(items) > 1:
            seen: set[Any] = set()
            for i, item in enumerate(items):
                value = as_dict(item).get(item_key) or ""
                if value in seen:
                    out.append(f'{p}{key}[{i}].{item_key}: duplicate {what} "{value}"')
                else:
                    seen.add(value)
    for i, item in enumerate(as_list(spec.get("imagePullSecrets"))):
        if not as_dict(item).get("name"):
            out.append(f'{p}imagePullSecrets[{i}].name: invalid empty name ""')
    return out


def _containers(spec: dict[str, Any], p: str) -> list[tuple[dict[str, Any], str]]:
    return [(c, f"{p}{kind}[{i}]") for kind in CONTAINER_KINDS
            for i, c in enumerate(as_list(spec.get(kind))) if isinstance(c, dict)]


def _container(c: dict[str, Any], cp: str, annotations: dict[str, Any], ap: str, template: bool,
               pod_apparmor: bool) -> list[str]:
    """The per-container warnings of the first `VisitContainersWithPath`."""
    out = []
    name = c.get("name") if isinstance(c.get("name"), str) else ""
    security = as_dict(c.get("securityContext"))
    if security.get("seccompProfile") is None and SECCOMP_CONTAINER + name in annotations:
        out.append(f'{ap}[{SECCOMP_CONTAINER}{name}]: non-functional in v1.27+; use the "seccompProfile" field '
                   "instead")
    # a pod's AppArmor annotations are warned about by applyAppArmorVersionSkew (podprepare.py)
    if template and not pod_apparmor and security.get("appArmorProfile") is None \
            and APPARMOR_CONTAINER + name in annotations:
        out.append(f'{ap}[{APPARMOR_CONTAINER}{name}]: deprecated since v1.30; use the "appArmorProfile" field '
                   "instead")
    resources = as_dict(c.get("resources"))
    for resource in ("memory", "ephemeral-storage"):
        for kind in ("limits", "requests"):
            amounts = as_dict(resources.get(kind))
            if resource in amounts:
                out += _fractional(amounts[resource], f"{cp}.resources.{kind}[{resource}]")
    env = as_list(c.get("env"))
    if len(env) > 1:
        seen: set[Any] = set()
        for i, item in enumerate(env):
            item = as_dict(item)
            env_name = item.get("name") if isinstance(item.get("name"), str) else ""
            if env_name not in seen:
                seen.add(env_name)
                continue
            ref = f"$({env_name})"
            value = item.get("value") if isinstance(item.get("value"), str) else ""
            if item.get("valueFrom") is not None or value == ref or ref not in value:
                out.append(f'{cp}.env[{i}]: hides previous definition of "{env_name}", which may be dropped when '
                           "using apply")
    return out


def _go_port(port: dict[str, Any]) -> str:
    """Go's `%+v` of an internal `api.ContainerPort`."""
    return (f"{{Name:{port.get('name') or ''} HostPort:{port.get('hostPort') or 0} "
            f"ContainerPort:{port.get('containerPort') or 0} Protocol:{port.get('protocol') or ''} "
            f"HostIP:{port.get('hostIP') or ''}}}")


def _ports(containers: list[tuple[dict[str, Any], str]]) -> list[str]:
    """Ports across all containers (init and sidecar ones included): hostIP without hostPort and
    duplicate/overlapping/ambiguous definitions, then each name an earlier port already has (kubernetes#122170)."""
    out = []
    seen: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    names: dict[str, str] = {}
    for c, cp in containers:
        for i, port in enumerate(as_list(c.get("ports"))):
            port = as_dict(port)
            here = f"{cp}.ports[{i}]"
            host_ip, host_port = port.get("hostIP") or "", port.get("hostPort") or 0
            if host_ip and not host_port:
                out.append(f"{here}: hostIP set without hostPort: {_go_port(port)}")
            key = f"{port.get('containerPort') or 0}/{port.get('protocol') or ''}"
            for other_path, other in seen.get(key, ()):
                other_ip, other_port = other.get("hostIP") or "", other.get("hostPort") or 0
                if host_ip == other_ip and host_port == other_port:
                    out.append(f"{here}: duplicate port definition with {other_path}")
                elif not host_port or not other_port:
                    out.append(f"{here}: overlapping port definition with {other_path}")
                elif host_port == other_port and (not host_ip) != (not other_ip):
                    out.append(f"{here}: dangerously ambiguous port definition with {other_path}")
            seen.setdefault(key, []).append((here, port))
    for c, cp in containers:  # then, in a walk of its own, the port names
        for i, port in enumerate(as_list(c.get("ports"))):
            name = as_dict(port).get("name")
            if isinstance(name, str) and name:
                if name in names:
                    first = names[name]
                    out.append(f"{cp}.ports[{i}]: duplicate port name {go_quote(name)} with {first}, services and "
                               f"probes that select ports by name will use {first}")
                else:
                    names[name] = f"{cp}.ports[{i}]"
    return out


def _pod_affinity(spec: dict[str, Any], p: str) -> list[str]:
    out = []
    affinity = as_dict(spec.get("affinity"))
    for kind in ("podAffinity", "podAntiAffinity"):
        terms = affinity.get(kind)
        if not isinstance(terms, dict):
            continue
        base = f"{p}affinity.{kind}"
        for i, t in enumerate(as_list(terms.get("requiredDuringSchedulingIgnoredDuringExecution"))):
            if as_dict(t).get("labelSelector") is None:
                out.append(f"{base}.requiredDuringSchedulingIgnoredDuringExecution[{i}].labelSelector: a null "
                           "labelSelector results in matching no pod")
        for i, t in enumerate(as_list(terms.get("preferredDuringSchedulingIgnoredDuringExecution"))):
            if as_dict(as_dict(t).get("podAffinityTerm")).get("labelSelector") is None:
                out.append(f"{base}.preferredDuringSchedulingIgnoredDuringExecution[{i}].podAffinityTerm."
                           "labelSelector: a null labelSelector results in matching no pod")
    return out


def spec_and_meta_warnings(prefix: str, spec: Any, meta: Any, *, template: bool) -> list[str]:
    """`warningsForPodSpecAndMeta(fieldPath, spec, meta, ...)`: `prefix` is the template's path ("" for a pod);
    the old spec is not read (upstream passes it and does not either)."""
    spec, meta = as_dict(spec), as_dict(meta)
    p, ap = _join(prefix, "spec") + ".", _join(prefix, "metadata.annotations")
    annotations = as_dict(meta.get("annotations"))
    out = _node_labels(spec, p)
    out += [f"{ap}[{key}]: {message}" for key, message in DEPRECATED_ANNOTATIONS if key in annotations]
    out += _volumes(spec, p)
    out += _overlapping_paths(spec)
    out += _duplicates(spec, p)
    overhead = as_dict(spec.get("overhead"))
    for resource in ("memory", "ephemeral-storage"):
        if resource in overhead:
            out += _fractional(overhead[resource], f"{p}overhead[{resource}]")
    security = as_dict(spec.get("securityContext"))
    if security.get("seccompProfile") is None and SECCOMP_POD in annotations:
        out.append(f'{ap}[{SECCOMP_POD}]: non-functional in v1.27+; use the "seccompProfile" field instead')
    pod_apparmor = security.get("appArmorProfile") is not None
    containers = _containers(spec, p)
    for c, cp in containers:
        out += _container(c, cp, annotations, ap, template, pod_apparmor)
    out += _ports(containers)
    grace = spec.get("terminationGracePeriodSeconds")
    if isinstance(grace, int) and not isinstance(grace, bool) and grace < 0:
        out.append(f"{p}terminationGracePeriodSeconds: must be >= 0; negative values are invalid and will be "
                   "treated as 1")
    return out + _pod_affinity(spec, p) + _ip_formats(spec, p)


def _ip_formats(spec: dict[str, Any], p: str) -> list[str]:
    """The deprecated IP address formats (kubernetes#128786, 1.33): the DNS nameservers, then the host aliases."""
    out = []
    for i, server in enumerate(as_list(as_dict(spec.get("dnsConfig")).get("nameservers"))):
        if isinstance(server, str):
            out += ip_warnings(f"{p}dnsConfig.nameservers[{i}]", server)
    return out + entry_ip_warnings(f"{p}hostAliases", spec.get("hostAliases"))


def pod_warnings(pod: dict[str, Any]) -> list[str]:
    """The pod strategy's `WarningsOnCreate`: the hostname warning, then `GetWarningsForPod`."""
    meta = as_dict(pod.get("metadata"))
    return name_warnings(meta.get("name"), pod=True) + spec_and_meta_warnings("", pod.get("spec"), meta,
                                                                             template=False)


def template_warnings(path: str, template: Any) -> list[str]:
    """`GetWarningsForPodTemplate(ctx, path, template, old)`; none for a null template (an RC's may be)."""
    if not isinstance(template, dict):
        return []
    return spec_and_meta_warnings(path, template.get("spec"), template.get("metadata"), template=True)


def job_spec_warnings(path: str, spec: Any) -> list[str]:
    """`WarningsForJobSpec`: an Indexed Job past both soft limits, then its template's warnings."""
    spec = as_dict(spec)
    out = []
    if spec.get("completionMode") == "Indexed":
        completions, parallelism = spec.get("completions"), spec.get("parallelism")
        if isinstance(completions, int) and isinstance(parallelism, int) \
                and completions > 100_000 and parallelism > 10_000:
            out.append(f"{path}: {INDEXED_JOB}")
    return out + template_warnings(f"{path}.template", spec.get("template"))


__all__ = ["job_spec_warnings", "name_warnings", "node_selector_term_warnings", "pod_warnings", "pvc_spec_warnings",
           "spec_and_meta_warnings", "template_warnings"]
