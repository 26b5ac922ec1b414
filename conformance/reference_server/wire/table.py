"""``meta.k8s.io/v1 Table`` rendering, matching upstream's printers for the served kinds.

``kubectl get`` asks for a Table and prints its cells verbatim, so the columns and cell
values here are what a user sees (NS-30). Kinds without a printer use the apiserver's
``DefaultTableConvertor`` (Name, Created At).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from typing import Any

from .. import eventsv1
from . import (table_admissionregistration, table_autoscaling, table_certsevents, table_core, table_flowcontrol,
               table_groupkinds, table_workloads)
from . import schema

_NAME_DOC = ("Name must be unique within a namespace. Is required when creating resources, although some "
             "resources may allow a client to request the generation of an appropriate name automatically. "
             "Name is primarily intended for creation idempotence and configuration definition. Cannot be "
             "updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names")
_CREATED_DOC = ("CreationTimestamp is a timestamp representing the server time when this object was created. "
                "It is not guaranteed to be set in happens-before order across separate operations. Clients "
                "may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the "
                "system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/"
                "sig-architecture/api-conventions.md#metadata")
NONE = "<none>"


def _col(name: str, description: str, *, type_: str = "string", format_: str = "", priority: int = 0) -> dict[str, Any]:
    return {"name": name, "type": type_, "format": format_, "description": description, "priority": priority}


_NAME = _col("Name", _NAME_DOC, format_="name")
_AGE = _col("Age", _CREATED_DOC)


def parse_time(value: str | None) -> datetime | None:
    """RFC3339 -> aware datetime; None for a missing/null timestamp."""
    if not value:
        return None
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def human_duration(seconds: float) -> str:
    """Go's ``duration.HumanDuration`` (apimachinery/pkg/util/duration), used for Age cells."""
    s = int(seconds)
    if s < -1:
        return "<invalid>"
    if s < 0:
        return "0s"
    if s < 120:
        return f"{s}s"
    minutes = s // 60
    if minutes < 10:
        rem = s % 60
        return f"{minutes}m" if rem == 0 else f"{minutes}m{rem}s"
    if minutes < 180:
        return f"{minutes}m"
    hours = s // 3600
    if hours < 8:
        rem = minutes % 60
        return f"{hours}h" if rem == 0 else f"{hours}h{rem}m"
    if hours < 48:
        return f"{hours}h"
    if hours < 24 * 8:
        rem = hours % 24
        return f"{hours // 24}d" if rem == 0 else f"{hours // 24}d{rem}h"
    if hours < 24 * 365 * 2:
        return f"{hours // 24}d"
    if hours < 24 * 365 * 8:
        days = (hours // 24) % 365
        return f"{hours // 24 // 365}y" if days == 0 else f"{hours // 24 // 365}y{days}d"
    return f"{hours // 24 // 365}y"


def age(obj: dict[str, Any], now: datetime) -> str:
    """Age cell (``translateTimestampSince``): ``<unknown>`` without a creationTimestamp."""
    created = parse_time(obj.get("metadata", {}).get("creationTimestamp"))
    if created is None:
        return "<unknown>"
    return human_duration((now - created).total_seconds())


# ------------------------------------------------------------------ per-kind printers

def _namespace(obj: dict[str, Any], now: datetime) -> list[Any]:
    return [obj["metadata"].get("name", ""), obj.get("status", {}).get("phase", ""), age(obj, now)]


def _configmap(obj: dict[str, Any], now: datetime) -> list[Any]:
    return [obj["metadata"].get("name", ""), len(obj.get("data") or {}) + len(obj.get("binaryData") or {}),
            age(obj, now)]


def _secret(obj: dict[str, Any], now: datetime) -> list[Any]:
    return [obj["metadata"].get("name", ""), obj.get("type", ""), len(obj.get("data") or {}), age(obj, now)]


def _serviceaccount(obj: dict[str, Any], now: datetime) -> list[Any]:
    return [obj["metadata"].get("name", ""), len(obj.get("secrets") or []), age(obj, now)]


def _service_external_ip(svc: dict[str, Any]) -> str:
    spec = svc.get("spec", {})
    external = list(spec.get("externalIPs") or [])
    typ = spec.get("type", "ClusterIP")
    if typ in ("ClusterIP", "NodePort"):
        return ",".join(external) if external else NONE
    if typ == "LoadBalancer":
        ingress = [i.get("ip") or i.get("hostname") or "" for i in
                   svc.get("status", {}).get("loadBalancer", {}).get("ingress") or []]
        ips = [i for i in ingress if i] + external
        return ",".join(ips) if ips else "<pending>"
    if typ == "ExternalName":
        return spec.get("externalName", "")
    return "<unknown>"


def _service_ports(spec: dict[str, Any]) -> str:
    out = []
    for p in spec.get("ports") or []:
        proto = p.get("protocol", "TCP")
        if p.get("nodePort"):
            out.append(f"{p.get('port', 0)}:{p['nodePort']}/{proto}")
        else:
            out.append(f"{p.get('port', 0)}/{proto}")
    return ",".join(out) if out else NONE


def _selector(selector: dict[str, str] | None) -> str:
    if not selector:
        return NONE
    return ",".join(f"{k}={v}" for k, v in sorted(selector.items()))


def _service(obj: dict[str, Any], now: datetime) -> list[Any]:
    spec = obj.get("spec", {})
    return [obj["metadata"].get("name", ""), spec.get("type", "ClusterIP"), spec.get("clusterIP") or NONE,
            _service_external_ip(obj), _service_ports(spec), age(obj, now), _selector(spec.get("selector"))]


def _container_reason(status: dict[str, Any]) -> str | None:
    state = status.get("state", {})
    if state.get("waiting", {}).get("reason"):
        return state["waiting"]["reason"]
    term = state.get("terminated")
    if term is not None:
        if term.get("reason"):
            return term["reason"]
        return f"Signal:{term['signal']}" if term.get("signal") else f"ExitCode:{term.get('exitCode', 0)}"
    return None


def _pod(obj: dict[str, Any], now: datetime) -> list[Any]:
    """Simplified ``printPod``: the Ready/Status/Restarts logic for regular and init containers."""
    spec, status = obj.get("spec", {}), obj.get("status", {})
    total = len(spec.get("containers") or [])
    ready = restarts = 0
    last_restart: datetime | None = None
    reason = status.get("reason") or status.get("phase") or ""
    if any(isinstance(c, dict) and c.get("type") == "PodScheduled" and c.get("reason") == "SchedulingGated"
           for c in status.get("conditions") or []):
        reason = "SchedulingGated"

    def note_restart(cs: dict[str, Any]) -> None:
        nonlocal restarts, last_restart
        restarts += int(cs.get("restartCount", 0))
        finished = parse_time(cs.get("lastState", {}).get("terminated", {}).get("finishedAt"))
        if finished is not None and (last_restart is None or finished > last_restart):
            last_restart = finished

    initializing = False
    init_specs = spec.get("initContainers") or []
    for i, cs in enumerate(status.get("initContainerStatuses") or []):
        note_restart(cs)
        term = cs.get("state", {}).get("terminated")
        if term is not None and term.get("exitCode", 0) == 0:
            continue
        if term is not None:
            reason = "Init:" + (term.get("reason") or (f"Signal:{term['signal']}" if term.get("signal")
                                                       else f"ExitCode:{term.get('exitCode', 0)}"))
        elif cs.get("state", {}).get("waiting", {}).get("reason") not in (None, "", "PodInitializing"):
            reason = "Init:" + cs["state"]["waiting"]["reason"]
        else:
            reason = f"Init:{i}/{len(init_specs)}"
        initializing = True
        break
    if not initializing:
        has_running = False
        for cs in reversed(status.get("containerStatuses") or []):
            note_restart(cs)
            container_reason = _container_reason(cs)
            if container_reason is not None:
                reason = container_reason
            elif cs.get("ready") and "running" in cs.get("state", {}):
                has_running = True
                ready += 1
        if reason == "Completed" and has_running:
            conditions = {c.get("type"): c.get("status") for c in status.get("conditions") or []}
            reason = "Running" if conditions.get("Ready") == "True" else "NotReady"
    if obj.get("metadata", {}).get("deletionTimestamp"):
        reason = "Unknown" if status.get("reason") == "NodeLost" else "Terminating"
    restarts_cell = str(restarts)
    if restarts and last_restart is not None:
        restarts_cell = f"{restarts} ({human_duration((now - last_restart).total_seconds())} ago)"
    gates = spec.get("readinessGates") or []
    if gates:
        true_types = {c.get("type") for c in status.get("conditions") or [] if c.get("status") == "True"}
        gates_cell = f"{sum(1 for g in gates if g.get('conditionType') in true_types)}/{len(gates)}"
    else:
        gates_cell = NONE
    return [obj["metadata"].get("name", ""), f"{ready}/{total}", reason, restarts_cell, age(obj, now),
            status.get("podIP") or NONE, spec.get("nodeName") or NONE, status.get("nominatedNodeName") or NONE,
            gates_cell]


def _since(value: str | None, now: datetime) -> str:
    moment = parse_time(value)
    return "<unknown>" if moment is None else human_duration((now - moment).total_seconds())


def _event(obj: dict[str, Any], now: datetime) -> list[Any]:
    """``printEvent`` with Wide=true, as the server's TableConvertor renders it."""
    first = _since(obj.get("firstTimestamp"), now) if obj.get("firstTimestamp") else _since(obj.get("eventTime"), now)
    last = _since(obj.get("lastTimestamp"), now) if obj.get("lastTimestamp") else first
    count = obj.get("count", 0)
    series = obj.get("series")
    if series is not None:
        last, count = _since(series.get("lastObservedTime"), now), series.get("count", 0)
    elif count == 0:
        count = 1  # singleton events of the events.k8s.io API carry no count
    involved = obj.get("involvedObject", {})
    kind = involved.get("kind", "").lower()
    target = f"{kind}/{involved['name']}" if involved.get("name") else kind
    source = obj.get("source", {})
    component = source.get("component") or obj.get("reportingComponent", "")
    instance = source.get("host") or obj.get("reportingInstance", "")
    source_cell = "" if not component else (f"{component}, {instance}" if instance else component)
    return [last, obj.get("type", ""), obj.get("reason", ""), target, involved.get("fieldPath", ""), source_cell,
            obj.get("message", "").strip(), first, count, obj.get("metadata", {}).get("name", "")]


def _host_port(ip: str, port: Any) -> str:
    """Go's `net.JoinHostPort`: an IPv6 address is bracketed."""
    return f"[{ip}]:{port}" if ":" in ip else f"{ip}:{port}"


def _endpoints(obj: dict[str, Any], now: datetime) -> list[Any]:
    """`printEndpoints` → `formatEndpoints(endpoints, nil)`: up to 3 ready `ip:port` (a port-less subset shows
    the bare IP), then ` + N more...`; `<none>` without subsets."""
    subsets = [ss for ss in obj.get("subsets") or [] if isinstance(ss, dict)]
    if not subsets:
        return [obj["metadata"].get("name", ""), NONE, age(obj, now)]
    shown: list[str] = []
    count, more = 0, False
    for ss in subsets:
        ips = [str(a.get("ip", "")) for a in ss.get("addresses") or [] if isinstance(a, dict)]
        ports = [p for p in ss.get("ports") or [] if isinstance(p, dict)]
        for port in ports or [None]:
            count += len(ips)
            for ip in ips:
                if len(shown) == 3:
                    more = True
                    break
                shown.append(ip if port is None else _host_port(ip, port.get("port", 0)))
    cell = ",".join(shown) + (f" + {count - 3} more..." if more else "")
    return [obj["metadata"].get("name", ""), cell, age(obj, now)]


def _resourcequota(obj: dict[str, Any], now: datetime) -> list[Any]:
    """``printResourceQuota``: ``used/hard`` per resource, ``limits.*`` in the Limit column."""
    status = obj.get("status", {})
    hard, used = status.get("hard") or {}, status.get("used") or {}
    requests, limits = [], []
    for resource in sorted(hard):
        text = f"{resource}: {used.get(resource, '0')}/{hard[resource]}"
        (limits if resource.split(".")[0] == "limits" and "." in resource else requests).append(text)
    return [obj["metadata"].get("name", ""), age(obj, now), ", ".join(requests), ", ".join(limits)]


def _apiservice(obj: dict[str, Any], now: datetime) -> list[Any]:
    """kube-aggregator's `ConvertToTable` (registry/apiservice/etcd): Service `Local` or `<ns>/<name>`;
    Available `Unknown` without the condition, `True`, or `False (<reason>)`."""
    svc = (obj.get("spec") or {}).get("service")
    service = f"{svc.get('namespace', '')}/{svc.get('name', '')}" if isinstance(svc, dict) else "Local"
    cond = next((c for c in (obj.get("status") or {}).get("conditions") or []
                 if isinstance(c, dict) and c.get("type") == "Available"), None)
    available = "Unknown"
    if cond is not None:
        status = str(cond.get("status") or "")
        available = f"{status} ({cond['reason']})" if status != "True" and cond.get("reason") else status
    return [obj["metadata"].get("name", ""), service, available, age(obj, now)]


def _custom_resource(obj: dict[str, Any], now: datetime) -> list[Any]:
    return [obj.get("metadata", {}).get("name", ""), age(obj, now)]


def _default(obj: dict[str, Any], now: datetime) -> list[Any]:
    created = parse_time(obj.get("metadata", {}).get("creationTimestamp"))
    stamp = created.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ") if created else "0001-01-01T00:00:00Z"
    return [obj.get("metadata", {}).get("name", ""), stamp]


Printer = Callable[[dict[str, Any], datetime], list[Any]]
PRINTERS: dict[str, tuple[list[dict[str, Any]], Printer]] = {
    "Namespace": ([_NAME, _col("Status", "The status of the namespace"), _AGE], _namespace),
    "ConfigMap": ([_NAME, _col("Data", "Data contains the configuration data. Each key must consist of "
                                       "alphanumeric characters, '-', '_' or '.'. Values with non-UTF-8 byte "
                                       "sequences must use the BinaryData field. The keys stored in Data must "
                                       "not overlap with the keys in the BinaryData field, this is enforced "
                                       "during validation process."), _AGE], _configmap),
    "Secret": ([_NAME, _col("Type", "Used to facilitate programmatic handling of secret data. More info: "
                                    "https://kubernetes.io/docs/concepts/configuration/secret/#secret-types"),
                _col("Data", "Data contains the secret data. Each key must consist of alphanumeric characters, "
                             "'-', '_' or '.'. The serialized form of the secret data is a base64 encoded "
                             "string, representing the arbitrary (possibly non-string) data value here. "
                             "Described in https://tools.ietf.org/html/rfc4648#section-4"), _AGE], _secret),
    "ServiceAccount": ([_NAME, _col("Secrets", "Secrets is a list of the secrets in the same namespace that "
                                               "pods running using this ServiceAccount are allowed to use."),
                        _AGE], _serviceaccount),
    "Service": ([_NAME, _col("Type", "The type of the service."), _col("Cluster-IP", "The cluster IP of the service."),
                 _col("External-IP", "The external IP of the service."), _col("Port(s)", "The ports of the service."),
                 _AGE, _col("Selector", "Route service traffic to pods with label keys and values matching this "
                                        "selector.", priority=1)], _service),
    "Pod": ([_NAME, _col("Ready", "The aggregate readiness state of this pod for accepting traffic."),
             _col("Status", "The aggregate status of the containers in this pod."),
             _col("Restarts", "The number of times the containers in this pod have been restarted and when the "
                              "last container in this pod has restarted."), _AGE,
             _col("IP", "podIP address allocated to the pod. Routable at least within the cluster. Empty if not "
                        "yet allocated.", priority=1),
             _col("Node", "NodeName indicates in which node this pod is scheduled.", priority=1),
             _col("Nominated Node", "nominatedNodeName is set only when this pod preempts other pods on the node, "
                                    "but it cannot be scheduled right away as preemption victims receive their "
                                    "graceful termination periods.", priority=1),
             _col("Readiness Gates", "If specified, all readiness gates will be evaluated for pod readiness.",
                  priority=1)], _pod),
    "Event": ([_col("Last Seen", "The time at which the most recent occurrence of this event was recorded."),
               _col("Type", "Type of this event (Normal, Warning), new types could be added in the future"),
               _col("Reason", "This should be a short, machine understandable string that gives the reason for "
                              "the transition into the object's current status."),
               _col("Object", "The object that this event is about."),
               _col("Subobject", "If referring to a piece of an object instead of an entire object, this string "
                                 "should contain a valid JSON/Go field access statement, such as "
                                 "desiredState.manifest.containers[2].", priority=1),
               _col("Source", "The component reporting this event. Should be a short machine understandable "
                              "string.", priority=1),
               _col("Message", "A human-readable description of the status of this operation."),
               _col("First Seen", "The time at which the event was first recorded. (Time of server receipt is in "
                                  "TypeMeta.)", priority=1),
               _col("Count", "The number of times this event has occurred.", priority=1),
               {**_NAME, "priority": 1}], _event),
    "ResourceQuota": ([_NAME, _AGE,
                       _col("Request", "Request represents a minimum amount of cpu/memory that a container may "
                                       "consume."),
                       _col("Limit", "Limits control the maximum amount of cpu/memory that a container may use "
                                     "independent of contention on the node.")], _resourcequota),
}
PRINTERS["Endpoints"] = ([_NAME, _col("Endpoints", "The set of all endpoints is the union of all subsets. Addresses are "
                                    "placed into subsets according to the IPs they share. A single address with "
                                    "multiple ports, some of which are ready and some of which are not (because "
                                    "they come from different containers) will result in the address being "
                                    "displayed in different subsets for the different ports. No address will "
                                    "appear in both Addresses and NotReadyAddresses in the same subset. Sets of "
                                    "addresses and ports that comprise a service."), _AGE], _endpoints)
PRINTERS["APIService"] = ([_NAME, _col("Service", "The reference to the service that hosts this API endpoint."),
                           _col("Available", "Whether this service is available."), _AGE], _apiservice)
# apiextensions-apiserver's tableconvertor with `serveDefaultColumnsIfEmpty` (a CRD without
# additionalPrinterColumns): Name, then Age of type "date" whose cell is a human duration.
PRINTERS["CustomResource"] = ([_NAME, _col("Age", _CREATED_DOC, type_="date")], _custom_resource)
PRINTERS.update(table_workloads.printers(_col, _NAME, _AGE, age))
PRINTERS.update(table_groupkinds.printers(_col, _NAME, _AGE, age))
PRINTERS.update(table_admissionregistration.printers(_col, _NAME, _AGE, age))
PRINTERS.update(table_flowcontrol.printers(_col, _NAME, _AGE, age))  # registry/flowcontrol.py
PRINTERS.update(table_core.printers(_col, _NAME, _AGE, age))  # PVCs, PVs, PodTemplates, RCs, ComponentStatuses
PRINTERS.update(table_autoscaling.printers(_col, _NAME, _AGE, age))  # HorizontalPodAutoscalers, v1 and v2
PRINTERS.update(table_certsevents.printers(_col, _NAME, _AGE, age, human_duration, PRINTERS["Event"],
                                           eventsv1.to_core))  # CSRs, events.k8s.io/v1 Events
# `printScale` (`kubectl get deploy x --subresource=scale`): desired and observed replicas.
PRINTERS["Scale"] = ([_NAME, _col("Desired", "replicas is the desired number of instances for the scaled object.",
                                  type_="integer"),
                      _col("Available", "replicas is the actual number of observed instances of the scaled object.",
                           type_="integer"), _AGE],
                     lambda obj, now: [obj["metadata"].get("name", ""), (obj.get("spec") or {}).get("replicas", 0),
                                       (obj.get("status") or {}).get("replicas", 0), age(obj, now)])
DEFAULT_COLUMNS = [_NAME, _col("Created At", _CREATED_DOC, type_="date")]


def column_definitions(kind: str) -> list[dict[str, Any]]:
    """The columns ``to_table`` emits for a kind (copies; safe to mutate)."""
    columns = PRINTERS[kind][0] if kind in PRINTERS else DEFAULT_COLUMNS
    return [dict(c) for c in columns]


_OBJECT_META = tuple(f.name for f in schema.fields("meta.ObjectMeta"))  # the Go struct's order
_LIST_META = ("selfLink", "resourceVersion", "continue", "remainingItemCount")


def _struct_order(meta: dict[str, Any], order: tuple[str, ...]) -> dict[str, Any]:
    """A copy of `meta` in the Go struct's field order: a custom resource's metadata is a sorted map
    (wire/gomaps.py), the typed `ObjectMeta`/`ListMeta` it becomes here is not."""
    return {k: meta[k] for k in order if k in meta} | {k: v for k, v in meta.items() if k not in order}


_ENTRIES = {f: tuple(x.name for x in schema.fields(m)) for f, m in (
    ("managedFields", "meta.ManagedFieldsEntry"), ("ownerReferences", "meta.OwnerReference"))}


def _object_meta(meta: dict[str, Any], typed: bool) -> dict[str, Any]:
    """An object's metadata as the Go `ObjectMeta` writes it; a custom resource's (not `typed`: a sorted map,
    its list entries too) put in the structs' order."""
    if typed:
        return dict(meta)
    out = _struct_order(meta, _OBJECT_META)
    for name, order in _ENTRIES.items():
        entries = out.get(name)
        if isinstance(entries, list):
            out[name] = [_struct_order(e, order) if isinstance(e, dict) else e for e in entries]
    return out


def partial_object_metadata(obj: dict[str, Any], version: str = "v1") -> dict[str, Any]:
    """``meta.k8s.io PartialObjectMetadata`` of an object (what ``includeObject=Metadata`` embeds); a built-in
    kind's object starts with `kind` (registry/store.py `_normalize`), a custom resource's is sorted."""
    return {"kind": "PartialObjectMetadata", "apiVersion": f"meta.k8s.io/{version}",
            "metadata": _object_meta(obj.get("metadata", {}), next(iter(obj), "kind") == "kind")}


def partial_object_metadata_list(objects: Sequence[dict[str, Any]], list_meta: dict[str, Any] | None = None,
                                 version: str = "v1") -> dict[str, Any]:
    """``as=PartialObjectMetadataList`` answer for a list request."""
    return {"kind": "PartialObjectMetadataList", "apiVersion": f"meta.k8s.io/{version}",
            "metadata": _struct_order(list_meta or {}, _LIST_META),
            "items": [partial_object_metadata(o, version) for o in objects]}


def to_table(objects: Sequence[dict[str, Any]], kind: str, list_meta: dict[str, Any] | None = None, *,
             include_object: str = "Metadata", now: datetime | None = None, version: str = "v1") -> dict[str, Any]:
    """Render objects of one kind as a Table.

    ``include_object`` is the ``includeObject`` query parameter: "None", "Metadata" (default:
    PartialObjectMetadata) or "Object" (the full object). ``list_meta`` is the list's metadata
    (resourceVersion/continue/remainingItemCount); for a single GET pass None and the object's
    resourceVersion is used, as upstream does. ValueError for an unknown ``include_object``.
    """
    if include_object not in ("None", "Metadata", "Object"):
        raise ValueError(f"includeObject: Unsupported value: {include_object!r}: supported values: "
                         '"None", "Metadata", "Object"')
    now = now or datetime.now(timezone.utc)
    printer = PRINTERS[kind][1] if kind in PRINTERS else _default
    rows = []
    for obj in objects:
        row: dict[str, Any] = {"cells": printer(obj, now)}
        if include_object == "Metadata":
            row["object"] = partial_object_metadata(obj, version)
        elif include_object == "Object":
            row["object"] = obj
        rows.append(row)
    if list_meta is not None:
        metadata = _struct_order(list_meta, _LIST_META)
    elif len(objects) == 1 and objects[0].get("metadata", {}).get("resourceVersion"):
        metadata = {"resourceVersion": objects[0]["metadata"]["resourceVersion"]}
    else:
        metadata = {}
    return {"kind": "Table", "apiVersion": f"meta.k8s.io/{version}", "metadata": metadata,
            "columnDefinitions": column_definitions(kind), "rows": rows}
