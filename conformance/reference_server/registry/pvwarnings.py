"""A PersistentVolume's warnings, `pkg/api/persistentvolume/util.go` `GetWarningsForPersistentVolume`, which
`persistentvolumeStrategy` returns from `WarningsOnCreate` and `WarningsOnUpdate` (its status strategy warns of
nothing): the deprecated beta annotations (`volume.beta.kubernetes.io/storage-class`, and since kubernetes#124819,
1.31, `volume.beta.kubernetes.io/mount-options`), the Recycle reclaim policy, deprecated node labels among the
node affinity's required terms (`GetWarningsForNodeSelectorTerm` without the label-value check), then the
deprecated volume plugins, each at its Go field path (`spec.storageOS`, not the JSON `storageos`); and a
PersistentVolumeClaim's (`GetWarningsForPersistentVolumeClaim`)."""
from __future__ import annotations

from typing import Any

from .podwarnings import node_selector_term_warnings, pvc_spec_warnings
from .shapes import as_dict, as_list

DEPRECATED_ANNOTATIONS = (  # `deprecatedAnnotations`, in its order
    ("volume.beta.kubernetes.io/storage-class", 'deprecated since v1.8; use "storageClassName" attribute instead'),
    ("volume.beta.kubernetes.io/mount-options", 'deprecated since v1.31; use "mountOptions" attribute instead'),
)
RECYCLE = ("spec.persistentVolumeReclaimPolicy: The Recycle reclaim policy is deprecated. Instead, the recommended "
           "approach is to use dynamic provisioning.")
DEPRECATED_PLUGINS = (  # JSON name, the path printed, the words; in util.go's order
    ("cephfs", "spec.cephfs", "deprecated in v1.28, non-functional in v1.31+"),
    ("photonPersistentDisk", "spec.photonPersistentDisk", "deprecated in v1.11, non-functional in v1.16+"),
    ("scaleIO", "spec.scaleIO", "deprecated in v1.16, non-functional in v1.22+"),
    ("storageos", "spec.storageOS", "deprecated in v1.22, non-functional in v1.25+"),
    ("glusterfs", "spec.glusterfs", "deprecated in v1.25, non-functional in v1.26+"),
    ("rbd", "spec.rbd", "deprecated in v1.28, non-functional in v1.31+"),
)


def persistent_volume_claim_warnings(pvc: dict[str, Any]) -> list[str]:
    """`pkg/api/persistentvolumeclaim/util.go` `GetWarningsForPersistentVolumeClaim`, which
    `persistentvolumeclaimStrategy` returns on create and update: the beta storage-class annotation, then the
    spec's fractional storage bytes (`GetWarningsForPersistentVolumeClaimSpec`)."""
    key, words = DEPRECATED_ANNOTATIONS[0]
    annotations = as_dict(as_dict(pvc.get("metadata")).get("annotations"))
    out = [f"metadata.annotations[{key}]: {words}"] if key in annotations else []
    return out + pvc_spec_warnings("spec", pvc.get("spec"))


def persistent_volume_warnings(pv: dict[str, Any]) -> list[str]:
    """`warningsForPersistentVolumeSpecAndMeta(nil, &pv.Spec, &pv.ObjectMeta)`: an annotation counts when
    present (any value), a source when present and not `null`."""
    annotations = as_dict(as_dict(pv.get("metadata")).get("annotations"))
    out = [f"metadata.annotations[{key}]: {words}" for key, words in DEPRECATED_ANNOTATIONS if key in annotations]
    spec = as_dict(pv.get("spec"))
    if spec.get("persistentVolumeReclaimPolicy") == "Recycle":
        out.append(RECYCLE)
    required = as_dict(spec.get("nodeAffinity")).get("required")
    if isinstance(required, dict):
        path = "spec.nodeAffinity.required.nodeSelectorTerms"
        for i, term in enumerate(as_list(required.get("nodeSelectorTerms"))):
            out += node_selector_term_warnings(term, f"{path}[{i}]", False)
    out += [f"{shown}: {words}" for source, shown, words in DEPRECATED_PLUGINS if spec.get(source) is not None]
    return out


__all__ = ["DEPRECATED_ANNOTATIONS", "DEPRECATED_PLUGINS", "persistent_volume_claim_warnings",
           "persistent_volume_warnings"]
