"""From findings to plain words: what holds a namespace and the least destructive way to release it.

Order of remedies = order of preference: fix or remove what the controller is waiting for (a broken
aggregated API, a controller that should remove its finalizer) before touching any finalizer; a finalizer
is only ever removed one at a time, by name, and never as the first advice.
"""
from __future__ import annotations

import json
import shlex

from .model import APIServiceProblem, Diagnosis, NamespaceDiagnosis, Remedy
from .owners import owner_of


def _q(s: str) -> str:
    return shlex.quote(s)


def _owner(f: str) -> str:
    owner = owner_of(f)
    return f"usually removed by {owner}" if owner else "set by a controller or operator nsconform does not know"


def _apiservice_remedy(problems: list[APIServiceProblem]) -> Remedy:
    names = ", ".join(f"{p.name} ({p.reason}: {p.message})" for p in problems)
    cmds = []
    for p in problems:
        cmds.append(f"kubectl get apiservice {_q(p.name)} -o yaml")
        cmds.append(f"kubectl delete apiservice {_q(p.name)}   # only if nothing uses {p.group_version} any more")
    return Remedy("apiservice", (
        f"Unavailable aggregated API: {names}. While any aggregated API cannot be discovered, the namespace "
        "controller cannot tell whether the namespace still holds objects of that API, so it keeps every "
        "terminating namespace. Repair the service behind it (its pods and endpoints), or, if that API is no "
        "longer used, delete its APIService; the namespaces then finish on their own."), cmds)


def _pods_first(ns: str, pods: list, waiting: list) -> list[Remedy]:
    """Pods remain: since 1.33 the controller deletes nothing else until they are gone (OrderedNamespaceDeletion,
    `namespaced_resources_deleter.go`), and a pod without finalizers waits for its kubelet (grace period) or, its
    node gone, for the pod garbage collector (`pkg/controller/podgc`: force-deletes after a 40 s quarantine)."""
    out: list[Remedy] = []
    terminating = [o for o in pods if not o.finalizers]
    if terminating:
        listing = ", ".join(o.name for o in terminating[:5]) + (" ..." if len(terminating) > 5 else "")
        out.append(Remedy("pods-terminating", (
            f"{len(terminating)} pod(s) without finalizers remain: {listing}. A pod bound to a node is removed "
            "once its kubelet has stopped its containers (its grace period, usually 30 s); a pod whose node is "
            "gone is force-deleted by kube-controller-manager's pod garbage collector about a minute later. "
            "Check the pods' nodes; force-delete a pod only if its node is gone for good."),
            [f"kubectl get pods -n {_q(ns)} -o wide"]
            + [f"kubectl delete pod {_q(o.name)} -n {_q(ns)} --grace-period=0 --force   # last resort"
               for o in terminating[:3]]))
    if waiting:
        listing = ", ".join(f"{o.resource}/{o.name}" for o in waiting[:5]) + (" ..." if len(waiting) > 5 else "")
        out.append(Remedy("pods-first", (
            f"{len(waiting)} other object(s) wait for the pods: {listing}. Since Kubernetes 1.33 "
            "(OrderedNamespaceDeletion) the namespace controller deletes the pods first and nothing else while "
            "a pod remains; these go once the pods are gone.")))
    return out


def advise(d: Diagnosis) -> None:
    """Fill `remedies` of every terminating namespace."""
    for n in d.namespaces:
        if n.stuck:
            n.remedies = _remedies(n, d)


def _remedies(n: NamespaceDiagnosis, d: Diagnosis) -> list[Remedy]:
    out: list[Remedy] = []
    ns = n.name
    cond = {c.get("type"): c for c in n.conditions}
    if d.unavailable_apiservices:
        out.append(_apiservice_remedy(d.unavailable_apiservices))
    elif (cond.get("NamespaceDeletionDiscoveryFailure") or {}).get("status") == "True":
        out.append(Remedy("discovery", (
            "The namespace controller reports a discovery failure: "
            f"{cond['NamespaceDeletionDiscoveryFailure'].get('message')}. It keeps the namespace until every API "
            "can be discovered again."), ["kubectl get apiservices | grep -v True"]))
    held: dict[str, list] = {}
    for o in n.remaining:
        for f in o.finalizers:
            held.setdefault(f, []).append(o)
    for f, objs in sorted(held.items()):
        listing = ", ".join(f"{o.resource}/{o.name}" for o in objs[:5]) + (" ..." if len(objs) > 5 else "")
        cmds = []
        for o in objs[:5]:
            others = [x for x in o.finalizers if x != f]
            cmds.append(f"kubectl patch {_q(o.resource)} {_q(o.name)} -n {_q(ns)} --type=merge -p "
                        + _q(json.dumps({"metadata": {"finalizers": others or None}}))
                        + f"   # last resort: removes only {f}")
        out.append(Remedy("content-finalizer", (
            f"{len(objs)} object(s) carry the finalizer {f} ({_owner(f)}): {listing}. The namespace waits until "
            f"that controller has done its cleanup and removed {f}. First check that it is running and look at "
            "its logs; remove the finalizer yourself only if that controller is gone for good (its cleanup, "
            "e.g. of external resources, will then not happen)."), cmds))
    plain = [o for o in n.remaining if not o.finalizers]
    pods = [o for o in n.remaining if o.resource == "pods"]
    if pods:
        out += _pods_first(ns, pods, [o for o in plain if o.resource != "pods"])
        plain = []
    if plain:
        listing = ", ".join(f"{o.resource}/{o.name}" for o in plain[:5]) + (" ..." if len(plain) > 5 else "")
        out.append(Remedy("content", (
            f"{len(plain)} object(s) without finalizers remain: {listing}. The namespace controller deletes these "
            "itself; if they stay, something refuses their deletion (often an admission webhook). Deleting one "
            "by hand shows the error."), [f"kubectl delete {_q(o.resource)} {_q(o.name)} -n {_q(ns)}"
                                           for o in plain[:3]]))
    discovery = {f.what for f in d.discovery_failures}
    for u in n.unreadable:
        if u.what in discovery:  # a group version (or /api, /apis) whose discovery failed: a non-resource URL
            path = "/api/v1" if u.what == "v1" else u.what if u.what.startswith("/") else f"/apis/{u.what}"
            out.append(Remedy("unreadable", (
                f"Could not discover {u.what} ({u.reason}): whether objects of the resources it serves remain in "
                f"{ns} is unknown. Re-run diagnose with credentials that may read {path} (the "
                "system:discovery role)."), [f"kubectl auth can-i get {_q(path)}"]))
            continue
        out.append(Remedy("unreadable", (
            f"Could not list {u.what} in {ns} ({u.reason}): whether such objects remain is unknown. Re-run "
            "diagnose with credentials that may list them."),
            [f"kubectl auth can-i list {_q(u.what)} -n {_q(ns)}"]))
    for f, owner in n.foreign_finalizers.items():
        fixed = [x for x in n.spec_finalizers if x != f]
        cmd = (f"kubectl get namespace {_q(ns)} -o json | jq " + _q(f'.spec.finalizers = {json.dumps(fixed)}')
               + f" | kubectl replace --raw /api/v1/namespaces/{_q(ns)}/finalize -f -"
               + f"   # last resort: removes only {f}")
        out.append(Remedy("spec-finalizer", (
            f"spec.finalizers holds {f} ({_owner(f)}). The namespace is removed only after that component "
            f"finalizes it. Check that it is running; remove {f} through the finalize subresource only if it "
            "is gone for good."), [cmd]))
    for f in n.metadata_finalizers:
        others = [x for x in n.metadata_finalizers if x != f]
        out.append(Remedy("metadata-finalizer", (
            f"metadata.finalizers of the namespace holds {f} ({_owner(f)}); the namespace stays until it is "
            "removed."), [f"kubectl patch namespace {_q(ns)} --type=merge -p "
                          + _q(json.dumps({"metadata": {"finalizers": others or None}}))
                          + f"   # last resort: removes only {f}"]))
    if not out:
        if "kubernetes" in n.spec_finalizers:
            out.append(Remedy("controller", (
                "Nothing found that holds it: the namespace controller has not finished yet (it retries with "
                "backoff, up to a minute between attempts). If this lasts, check that kube-controller-manager "
                "is running and look at its namespace controller logs."),
                ["kubectl get events -n kube-system --field-selector involvedObject.kind=Pod | tail",
                 f"kubectl get namespace {_q(ns)} -o yaml"]))
        else:
            out.append(Remedy("none", "No finalizer is left: the server should remove the namespace momentarily.",
                              [f"kubectl get namespace {_q(ns)}"]))
    return out
