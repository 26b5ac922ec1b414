"""Pod-spec validation as `pkg/apis/core/validation/validation.go` (1.33) words it: `ValidatePodSpec`
(podspec.py), its containers (containers.py), volumes (volumes.py, the legacy in-tree sources in
legacyvolumes.py), security contexts and OS rules (security.py),
affinity and topology spread (affinity.py), the downward API's selectors (downwardapi.py) and the rules reading a
pod's metadata (podmeta.py), shared by pods (registry/pod.py) and the workload kinds' pod templates (registry/workloadvalidation/)."""
from .podmeta import validate_pod_object
from .podspec import validate_pod, validate_pod_spec, validate_pod_template_spec

__all__ = ["validate_pod", "validate_pod_object", "validate_pod_spec", "validate_pod_template_spec"]
