"""Table printers of the named-group kinds (and nodes), after upstream's
`pkg/printers/internalversion/printers.go` (`printDeployment`, `printReplicaSet`, `printStatefulSet`,
`printDaemonSet`, `printControllerRevision`, `printJob`, `printCronJob`, `printNetworkPolicy`,
`printPodDisruptionBudget`, `printLease`,
`printEndpointSlice`, `printNode`). Column descriptions are short paraphrases (kubectl does not print them).
"""
from __future__ import annotations

from datetime import datetime
from typing import Any, Callable

NONE = "<none>"
Col = Callable[..., dict[str, Any]]


def _containers(template: dict[str, Any]) -> tuple[str, str]:
    cs = ((template or {}).get("spec") or {}).get("containers") or []
    return (",".join(str(c.get("name", "")) for c in cs if isinstance(c, dict)),
            ",".join(str(c.get("image", "")) for c in cs if isinstance(c, dict)))


def _label_selector(sel: Any) -> str:
    """`metav1.FormatLabelSelector`."""
    if not isinstance(sel, dict):
        return NONE
    parts = [f"{k}={v}" for k, v in sorted((sel.get("matchLabels") or {}).items())]
    for r in sel.get("matchExpressions") or []:
        op, key, vals = r.get("operator"), r.get("key"), ",".join(r.get("values") or [])
        parts.append({"In": f"{key} in ({vals})", "NotIn": f"{key} notin ({vals})", "Exists": f"{key}",
                      "DoesNotExist": f"!{key}"}.get(op, f"{key} {op}"))
    out = ",".join(parts)
    return out if out else NONE


def printers(col: Col, name: dict[str, Any], age_col: dict[str, Any],
             age: Callable[[dict[str, Any], datetime], str]) -> dict[str, tuple[list[dict[str, Any]], Callable]]:
    """kind → (columns, printer), built with `table`'s column helpers."""
    containers = col("Containers", "Names of each container in the template.", priority=1)
    images = col("Images", "Images referenced by each container in the template.", priority=1)
    selector = col("Selector", "Label selector for pods.", priority=1)

    def n(obj: dict[str, Any]) -> str:
        return obj["metadata"].get("name", "")

    def deployment(obj: dict[str, Any], now: datetime) -> list[Any]:
        spec, st = obj.get("spec") or {}, obj.get("status") or {}
        c, i = _containers(spec.get("template"))
        return [n(obj), f"{st.get('readyReplicas', 0)}/{spec.get('replicas', 0)}", st.get("updatedReplicas", 0),
                st.get("availableReplicas", 0), age(obj, now), c, i, _label_selector(spec.get("selector"))]

    def replicaset(obj: dict[str, Any], now: datetime) -> list[Any]:
        spec, st = obj.get("spec") or {}, obj.get("status") or {}
        c, i = _containers(spec.get("template"))
        return [n(obj), spec.get("replicas", 0), st.get("replicas", 0), st.get("readyReplicas", 0), age(obj, now),
                c, i, _label_selector(spec.get("selector"))]

    def statefulset(obj: dict[str, Any], now: datetime) -> list[Any]:
        spec, st = obj.get("spec") or {}, obj.get("status") or {}
        c, i = _containers(spec.get("template"))
        return [n(obj), f"{st.get('readyReplicas', 0)}/{spec.get('replicas', 0)}", age(obj, now), c, i]

    def daemonset(obj: dict[str, Any], now: datetime) -> list[Any]:
        spec, st = obj.get("spec") or {}, obj.get("status") or {}
        c, i = _containers(spec.get("template"))
        node_sel = ((spec.get("template") or {}).get("spec") or {}).get("nodeSelector") or {}
        return [n(obj), st.get("desiredNumberScheduled", 0), st.get("currentNumberScheduled", 0),
                st.get("numberReady", 0), st.get("updatedNumberScheduled", 0), st.get("numberAvailable", 0),
                ",".join(f"{k}={v}" for k, v in sorted(node_sel.items())) or NONE, age(obj, now), c, i,
                _label_selector(spec.get("selector"))]

    def job(obj: dict[str, Any], now: datetime) -> list[Any]:
        spec, st = obj.get("spec") or {}, obj.get("status") or {}
        c, i = _containers(spec.get("template"))
        conds = {x.get("type"): x.get("status") for x in st.get("conditions") or []}
        status = ("Complete" if conds.get("Complete") == "True" else "Failed" if conds.get("Failed") == "True"
                  else "Suspended" if conds.get("Suspended") == "True" else "Running")
        completions = f"{st.get('succeeded', 0)}/{spec['completions']}" if spec.get("completions") is not None \
            else f"{st.get('succeeded', 0)}/1 of {spec.get('parallelism', 1)}"
        return [n(obj), status, completions, "", age(obj, now), c, i, _label_selector(spec.get("selector"))]

    def cronjob(obj: dict[str, Any], now: datetime) -> list[Any]:
        spec, st = obj.get("spec") or {}, obj.get("status") or {}
        template = ((spec.get("jobTemplate") or {}).get("spec") or {})
        c, i = _containers(template.get("template"))
        return [n(obj), spec.get("schedule", ""), spec.get("timeZone") or NONE, str(bool(spec.get("suspend"))),
                len(st.get("active") or []), NONE if not st.get("lastScheduleTime") else st["lastScheduleTime"],
                age(obj, now), c, i, _label_selector(template.get("selector"))]

    def netpol(obj: dict[str, Any], now: datetime) -> list[Any]:
        sel = (obj.get("spec") or {}).get("podSelector") or {}
        formatted = _label_selector(sel)
        return [n(obj), "<none>" if formatted == NONE else formatted, age(obj, now)]

    def pdb(obj: dict[str, Any], now: datetime) -> list[Any]:
        spec, st = obj.get("spec") or {}, obj.get("status") or {}
        return [n(obj), "N/A" if spec.get("minAvailable") is None else str(spec["minAvailable"]),
                "N/A" if spec.get("maxUnavailable") is None else str(spec["maxUnavailable"]),
                st.get("disruptionsAllowed", 0), age(obj, now)]

    def lease(obj: dict[str, Any], now: datetime) -> list[Any]:
        return [n(obj), (obj.get("spec") or {}).get("holderIdentity") or "", age(obj, now)]

    def endpointslice(obj: dict[str, Any], now: datetime) -> list[Any]:
        ports = [str(p.get("port")) for p in obj.get("ports") or [] if isinstance(p, dict) and p.get("port")]
        addrs = [a for e in obj.get("endpoints") or [] if isinstance(e, dict) for a in e.get("addresses") or []]
        shown = ",".join(addrs[:3]) + (f" + {len(addrs) - 3} more..." if len(addrs) > 3 else "")
        return [n(obj), obj.get("addressType", ""), ",".join(ports) or NONE, shown or NONE, age(obj, now)]

    def controllerrevision(obj: dict[str, Any], now: datetime) -> list[Any]:
        """`formatResourceName(gvk.GroupKind(), ref.Name, true)`: `statefulset.apps/web`."""
        ref = next((r for r in obj["metadata"].get("ownerReferences") or () if isinstance(r, dict)
                    and r.get("controller")), None)
        owner = NONE
        if ref is not None:
            group = str(ref.get("apiVersion", "")).rpartition("/")[0]
            owner = f"{ref.get('kind', '')}.{group}".lower().rstrip(".") + f"/{ref.get('name', '')}"
        return [n(obj), owner, obj.get("revision", 0), age(obj, now)]

    def node(obj: dict[str, Any], now: datetime) -> list[Any]:
        conds = {c.get("type"): c.get("status") for c in (obj.get("status") or {}).get("conditions") or []}
        status = "Ready" if conds.get("Ready") == "True" else "NotReady" if "Ready" in conds else "Unknown"
        version = ((obj.get("status") or {}).get("nodeInfo") or {}).get("kubeletVersion", "")
        return [n(obj), status, NONE, age(obj, now), version]

    ready = col("Ready", "Number of the pod with ready state")
    return {
        "Deployment": ([name, ready, col("Up-to-date", "Total number of non-terminated pods targeted by this "
                                                         "deployment that have the desired template spec."),
                        col("Available", "Total number of available pods (ready for at least minReadySeconds) "
                                         "targeted by this deployment."), age_col, containers, images, selector],
                       deployment),
        "ReplicaSet": ([name, col("Desired", "Number of desired pods.", type_="integer"),
                        col("Current", "Number of actual replicas.", type_="integer"),
                        col("Ready", "Number of ready replicas.", type_="integer"), age_col, containers, images,
                        selector], replicaset),
        "StatefulSet": ([name, ready, age_col, containers, images], statefulset),
        "DaemonSet": ([name, col("Desired", "The desired number of nodes.", type_="integer"),
                       col("Current", "The number of nodes running a daemon pod.", type_="integer"),
                       col("Ready", "The number of ready daemon pods.", type_="integer"),
                       col("Up-to-date", "The number of nodes running the updated daemon pod.", type_="integer"),
                       col("Available", "The number of nodes with an available daemon pod.", type_="integer"),
                       col("Node Selector", "The nodes the daemon pod may run on."), age_col, containers, images,
                       selector], daemonset),
        "Job": ([name, col("Status", "Status of the job."),
                 col("Completions", "The desired number of successfully finished pods the job should be run with."),
                 col("Duration", "Time required to complete the job."), age_col, containers, images, selector],
                job),
        "CronJob": ([name, col("Schedule", "The schedule in Cron format."),
                     col("Timezone", "The time zone of the schedule."),
                     col("Suspend", "Whether subsequent executions are suspended.", type_="boolean"),
                     col("Active", "Number of running jobs.", type_="integer"),
                     col("Last Schedule", "When the job was last successfully scheduled."), age_col, containers,
                     images, selector], cronjob),
        "NetworkPolicy": ([name, col("Pod-Selector", "Pods to which this policy applies."), age_col], netpol),
        "PodDisruptionBudget": ([name, col("Min Available", "Minimum available pods."),
                                 col("Max Unavailable", "Maximum unavailable pods."),
                                 col("Allowed Disruptions", "Allowed pod disruptions.", type_="integer"), age_col],
                                pdb),
        "Lease": ([name, col("Holder", "The holder of the lease."), age_col], lease),
        "ControllerRevision": ([name, col("Controller", "Controller of the object"),
                                col("Revision", "Revision indicates the revision of the state represented by Data."),
                                age_col], controllerrevision),
        "EndpointSlice": ([name, col("AddressType", "The type of address carried by this EndpointSlice."),
                           col("Ports", "Port numbers exposed by this EndpointSlice."),
                           col("Endpoints", "Addresses of endpoints in this EndpointSlice."), age_col],
                          endpointslice),
        "Node": ([name, col("Status", "The status of the node"), col("Roles", "The roles of the node"), age_col,
                  col("Version", "Kubelet Version reported by the node.")], node),
    }
