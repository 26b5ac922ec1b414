"""Table printers of the core/v1 kinds kind serves besides the usual namespace content, after upstream's
`pkg/printers/internalversion/printers.go` (`printPersistentVolumeClaim`, `printPersistentVolume`,
`printPodTemplate`, `printReplicationController`, `printComponentStatus`; `GetAccessModesAsString` of
`pkg/apis/core/helper`). Column descriptions are short paraphrases (kubectl does not print them).
"""
from __future__ import annotations

from datetime import datetime
from typing import Any, Callable

NONE = "<none>"
UNSET = "<unset>"
Col = Callable[..., dict[str, Any]]
_MODES = (("ReadWriteOnce", "RWO"), ("ReadOnlyMany", "ROX"), ("ReadWriteMany", "RWX"), ("ReadWriteOncePod", "RWOP"))
_CLASS_ANNOTATION = "volume.beta.kubernetes.io/storage-class"


def _d(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def access_modes(modes: Any) -> str:
    """`GetAccessModesAsString`: RWO, ROX, RWX, RWOP, in that order, each once."""
    have = set(modes) if isinstance(modes, list) else set()
    return ",".join(short for mode, short in _MODES if mode in have)


def format_labels(labels: Any) -> str:
    """`labels.FormatLabels`: `k=v` sorted by key, `<none>` when empty."""
    if not isinstance(labels, dict) or not labels:
        return NONE
    return ",".join(f"{k}={v}" for k, v in sorted(labels.items()))


def _storage_class(obj: dict[str, Any]) -> str:
    """`GetPersistentVolume(Claim)Class`: the beta annotation wins, then `spec.storageClassName`."""
    ann = _d(obj["metadata"].get("annotations"))
    if _CLASS_ANNOTATION in ann:
        return str(ann[_CLASS_ANNOTATION])
    return str(_d(obj.get("spec")).get("storageClassName") or "")


def _phase(obj: dict[str, Any]) -> str:
    if obj["metadata"].get("deletionTimestamp"):
        return "Terminating"
    return str(_d(obj.get("status")).get("phase") or "")


def _containers(template: Any) -> tuple[str, str]:
    cs = _d(_d(template).get("spec")).get("containers") or []
    return (",".join(str(c.get("name", "")) for c in cs if isinstance(c, dict)),
            ",".join(str(c.get("image", "")) for c in cs if isinstance(c, dict)))


def printers(col: Col, name: dict[str, Any], age_col: dict[str, Any],
             age: Callable[[dict[str, Any], datetime], str]) -> dict[str, tuple[list[dict[str, Any]], Callable]]:
    """kind → (columns, printer), built with `table`'s column helpers."""
    containers = col("Containers", "Names of each container in the template.", priority=1)
    images = col("Images", "Images referenced by each container in the template.", priority=1)
    storage_class = col("StorageClass", "StorageClass of the volume.")
    attributes_class = col("VolumeAttributesClass", "VolumeAttributesClass of the volume.")
    volume_mode = col("VolumeMode", "Whether the volume is a formatted filesystem or a raw block device.", priority=1)

    def pvc(obj: dict[str, Any], now: datetime) -> list[Any]:
        spec, status = _d(obj.get("spec")), _d(obj.get("status"))
        capacity = modes = ""
        if spec.get("volumeName"):
            modes = access_modes(status.get("accessModes"))
            capacity = str(_d(status.get("capacity")).get("storage") or "0")
        vac = spec.get("volumeAttributesClassName") or UNSET
        return [obj["metadata"].get("name", ""), _phase(obj), str(spec.get("volumeName") or ""), capacity, modes,
                _storage_class(obj), vac, age(obj, now), spec.get("volumeMode") or UNSET]

    def pv(obj: dict[str, Any], now: datetime) -> list[Any]:
        spec, status = _d(obj.get("spec")), _d(obj.get("status"))
        ref = spec.get("claimRef")
        claim = f"{ref.get('namespace', '')}/{ref.get('name', '')}" if isinstance(ref, dict) else ""
        return [obj["metadata"].get("name", ""), str(_d(spec.get("capacity")).get("storage") or "0"),
                access_modes(spec.get("accessModes")), str(spec.get("persistentVolumeReclaimPolicy") or ""),
                _phase(obj), claim, _storage_class(obj), spec.get("volumeAttributesClassName") or UNSET,
                str(status.get("reason") or ""), age(obj, now), spec.get("volumeMode") or UNSET]

    def podtemplate(obj: dict[str, Any], now: datetime) -> list[Any]:
        template = _d(obj.get("template"))
        c, i = _containers(template)
        return [obj["metadata"].get("name", ""), c, i, format_labels(_d(template.get("metadata")).get("labels"))]

    def rc(obj: dict[str, Any], now: datetime) -> list[Any]:
        spec, status = _d(obj.get("spec")), _d(obj.get("status"))
        c, i = _containers(spec.get("template"))
        return [obj["metadata"].get("name", ""), spec.get("replicas", 0), status.get("replicas", 0),
                status.get("readyReplicas", 0), age(obj, now), c, i, format_labels(spec.get("selector"))]

    def cs(obj: dict[str, Any], now: datetime) -> list[Any]:
        status, message, error = "Unknown", "", ""
        for c in obj.get("conditions") or []:
            if isinstance(c, dict) and c.get("type") == "Healthy":
                status = "Healthy" if c.get("status") == "True" else "Unhealthy"
                message, error = str(c.get("message") or ""), str(c.get("error") or "")
                break
        return [obj["metadata"].get("name", ""), status, message, error]

    return {
        "PersistentVolumeClaim": ([name, col("Status", "Phase represents the current phase of "
                                                        "PersistentVolumeClaim."),
                                   col("Volume", "The binding reference to the PersistentVolume backing this claim."),
                                   col("Capacity", "The actual resources of the underlying volume."),
                                   col("Access Modes", "The actual access modes the volume backing the PVC has."),
                                   storage_class, attributes_class, age_col, volume_mode], pvc),
        "PersistentVolume": ([name, col("Capacity", "The actual resources of the volume."),
                              col("Access Modes", "All ways the volume can be mounted."),
                              col("Reclaim Policy", "What happens to a persistent volume when released from its "
                                                    "claim."),
                              col("Status", "Phase indicates if a volume is available, bound to a claim, or "
                                            "released by a claim."),
                              col("Claim", "Part of a bi-directional binding between PersistentVolume and "
                                           "PersistentVolumeClaim."),
                              storage_class, attributes_class,
                              col("Reason", "Reason is a brief CamelCase string that describes any failure."),
                              age_col, volume_mode], pv),
        "PodTemplate": ([name, col("Containers", "Names of each container in the template."),
                         col("Images", "Images referenced by each container in the template."),
                         col("Pod Labels", "The labels for the pod template.")], podtemplate),
        "ReplicationController": ([name, col("Desired", "Number of desired pods.", type_="integer"),
                                   col("Current", "Number of actual replicas.", type_="integer"),
                                   col("Ready", "Number of ready replicas.", type_="integer"), age_col, containers,
                                   images, col("Selector", "Label selector for pods.", priority=1)], rc),
        "ComponentStatus": ([name, col("Status", "Status of the component conditions"),
                             col("Message", "Message of the component conditions"),
                             col("Error", "Error of the component conditions")], cs),
    }
