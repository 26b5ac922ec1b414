"""The Priority admission plugin (`plugin/pkg/admission/priority/admission.go`), default-enabled upstream.

On a pod's create (`admitPod`): without `spec.priorityClassName` the global default class applies (the
`globalDefault` class of lowest value; its name is written to `priorityClassName`), else priority 0 and
`PreemptLowerPriority`; a named class must exist (403 `no PriorityClass with name <n> was found`); a
`spec.priority` or `spec.preemptionPolicy` the client sent that differs from the class's is refused (403).
Since 1.17 the system classes may be used in any namespace (the old kube-system-only rule is gone; a
ResourceQuota limits them where an administrator wants).

On a PriorityClass's create or update (`validatePriorityClass`): a second `globalDefault` class is refused (403
`PriorityClass <other> is already marked as default. Only one default can exist`); an update of the default
class itself is not. A pod update keeps the stored `priority`/`preemptionPolicy` (admitPod's update half) through
the pod strategy (registry/pod.py).
"""
from __future__ import annotations

from typing import Any

from .. import apierrors as E
from ..registry import Registry
from ..storage import KeyNotFoundError

SCHEDULING = "scheduling.k8s.io"
DEFAULT_PRIORITY = 0  # scheduling.DefaultPriorityWhenNoDefaultClassExists
PREEMPT_LOWER = "PreemptLowerPriority"


def _classes(registry: Registry) -> list[dict[str, Any]]:
    if registry.group(SCHEDULING, "priorityclasses") is None:
        return []
    return registry.store.list("priorityclasses", None, shared=True)[0]


def default_priority_class(registry: Registry) -> dict[str, Any] | None:
    """`getDefaultPriorityClass`: of several `globalDefault` classes (a race), the one of lowest value."""
    best = None
    for pc in _classes(registry):
        if pc.get("globalDefault") is True and (best is None or _value(best) > _value(pc)):
            best = pc
    return best


def _value(pc: dict[str, Any]) -> int:
    v = pc.get("value")
    return v if isinstance(v, int) else 0


def _name(obj: dict[str, Any]) -> str:
    """`extractResourceName`: the name, else the generateName (admission runs before name generation)."""
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    return meta.get("name") or meta.get("generateName") or ""


def admit_pod(registry: Registry, pod: dict[str, Any]) -> None:
    spec = pod.get("spec")
    if not isinstance(spec, dict):
        return  # validation answers
    class_name = spec.get("priorityClassName") or ""
    if not class_name:
        pc = default_priority_class(registry)
        if pc is not None:
            class_name, priority, policy = pc["metadata"]["name"], _value(pc), pc.get("preemptionPolicy")
            spec["priorityClassName"] = class_name
        else:
            priority, policy = DEFAULT_PRIORITY, PREEMPT_LOWER
    else:
        try:
            pc = registry.store.get("priorityclasses", "", class_name, shared=True) \
                if registry.group(SCHEDULING, "priorityclasses") is not None else None
        except KeyNotFoundError:
            pc = None
        if pc is None:
            raise E.forbidden("pods", _name(pod), f"no PriorityClass with name {class_name} was found")
        priority, policy = _value(pc), pc.get("preemptionPolicy")
    sent = spec.get("priority")
    if sent is not None and sent != priority:
        raise E.forbidden("pods", _name(pod), f"the integer value of priority ({sent}) must not be provided in "
                                              f"pod spec; priority admission controller computed {priority} from "
                                              "the given PriorityClass name")
    spec["priority"] = priority
    if policy:
        sent_policy = spec.get("preemptionPolicy")
        if sent_policy is not None and sent_policy != policy:
            raise E.forbidden("pods", _name(pod), f"the string value of PreemptionPolicy ({sent_policy}) must not "
                                                  f"be provided in pod spec; priority admission controller computed "
                                                  f"{policy} from the given PriorityClass name")
        spec["preemptionPolicy"] = policy


def validate_priority_class(registry: Registry, pc: dict[str, Any], update: bool = False) -> None:
    """`validatePriorityClass` on create and update: one `globalDefault` class at most."""
    if pc.get("globalDefault") is not True:
        return
    current = default_priority_class(registry)
    if current is not None and not (update and current["metadata"]["name"] == _name(pc)):
        raise E.forbidden("priorityclasses", _name(pc),
                          f"PriorityClass {current['metadata']['name']} is already marked as default. "
                          "Only one default can exist", SCHEDULING)
