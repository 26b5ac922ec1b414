"""Which scalar fields of the named-group built-in kinds keep a zero value on the protobuf -> JSON path.

Go's protobuf marshaller writes every non-pointer field, zero or not; ``encoding/json`` drops a zero
``omitempty`` field but keeps a set pointer (``*int32`` 0, ``*bool`` false: ``kubectl create deployment
--replicas=0``, ``create cronjob`` with ``suspend: false``) and every field without ``omitempty``.
The descriptors cannot tell these apart, so they are listed here, per message, from upstream's Go types
(v1.33): ``staging/src/k8s.io/api/{apps,batch,coordination,discovery,networking,policy,rbac,scheduling,storage,
node}/v1/types.go``.
``wire.schema.KEEP_ZERO`` (the same rule for the core kinds) includes them.
"""
from __future__ import annotations

# message -> field names: Go pointers (`*int32`, `*bool`, `*string`, `*<named string>`) and fields whose JSON
# tag has no `omitempty`.
_KEEP_ZERO: dict[str, tuple[str, ...]] = {
    # apps/v1/types.go
    "apps.DeploymentSpec": ("replicas", "revisionHistoryLimit", "progressDeadlineSeconds"),
    "apps.DeploymentStatus": ("terminatingReplicas", "collisionCount"),
    "apps.ReplicaSetSpec": ("replicas",),
    "apps.ReplicaSetStatus": ("replicas", "terminatingReplicas"),  # `json:"replicas"`
    "apps.StatefulSetSpec": ("replicas", "revisionHistoryLimit"),
    "apps.RollingUpdateStatefulSetStrategy": ("partition",),
    "apps.StatefulSetOrdinals": ("start",),  # `json:"start"`
    "apps.StatefulSetStatus": ("replicas", "collisionCount", "availableReplicas"),  # replicas, available: no omitempty
    "apps.DaemonSetSpec": ("revisionHistoryLimit",),
    "apps.ControllerRevision": ("revision",),  # `json:"revision"`
    "apps.DaemonSetStatus": ("currentNumberScheduled", "numberMisscheduled", "desiredNumberScheduled", "numberReady",
                             "collisionCount"),
    **{f"apps.{kind}Condition": ("type", "status") for kind in ("Deployment", "ReplicaSet", "StatefulSet",
                                                                 "DaemonSet")},
    # batch/v1/types.go
    "batch.JobSpec": ("parallelism", "completions", "activeDeadlineSeconds", "backoffLimit", "backoffLimitPerIndex",
                      "maxFailedIndexes", "manualSelector", "ttlSecondsAfterFinished", "completionMode", "suspend",
                      "podReplacementPolicy", "managedBy"),
    "batch.JobStatus": ("terminating", "failedIndexes", "ready"),
    "batch.JobCondition": ("type", "status"),
    "batch.CronJobSpec": ("schedule", "timeZone", "startingDeadlineSeconds", "suspend", "successfulJobsHistoryLimit",
                          "failedJobsHistoryLimit"),
    "batch.PodFailurePolicyRule": ("action",),
    "batch.PodFailurePolicyOnExitCodesRequirement": ("containerName", "operator"),
    "batch.PodFailurePolicyOnPodConditionsPattern": ("type", "status"),
    "batch.SuccessPolicyRule": ("succeededIndexes", "succeededCount"),
    # coordination/v1/types.go
    "coordination.LeaseSpec": ("holderIdentity", "leaseDurationSeconds", "leaseTransitions", "strategy",
                               "preferredHolder"),
    # discovery/v1/types.go
    "discovery.EndpointSlice": ("addressType",),
    "discovery.Endpoint": ("hostname", "nodeName", "zone"),
    "discovery.EndpointConditions": ("ready", "serving", "terminating"),
    "discovery.EndpointPort": ("name", "protocol", "port", "appProtocol"),
    "discovery.ForZone": ("name",),
    "discovery.ForNode": ("name",),
    # networking/v1/types.go
    "networking.IPBlock": ("cidr",),
    "networking.NetworkPolicyPort": ("protocol", "endPort"),
    # policy/v1/types.go
    "policy.PodDisruptionBudgetSpec": ("unhealthyPodEvictionPolicy",),
    "policy.PodDisruptionBudgetStatus": ("disruptionsAllowed", "currentHealthy", "desiredHealthy", "expectedPods"),
    # rbac/v1/types.go
    "rbac.RoleRef": ("apiGroup", "kind", "name"),
    "rbac.Subject": ("kind", "name"),
}
_KEEP_ZERO.update({  # registry/groupkinds.py: {networking,scheduling,storage,node}/v1/types.go
    "networking.HTTPIngressPath": ("pathType",),
    "networking.IngressSpec": ("ingressClassName",),
    "networking.IngressServiceBackend": ("name",),
    "networking.IngressClassParametersReference": ("apiGroup", "kind", "name", "scope", "namespace"),
    "networking.IngressPortStatus": ("port", "protocol", "error"),
    "scheduling.PriorityClass": ("value", "preemptionPolicy"),
    "storage.StorageClass": ("provisioner", "reclaimPolicy", "allowVolumeExpansion", "volumeBindingMode"),
    "storage.CSIDriverSpec": ("attachRequired", "podInfoOnMount", "storageCapacity", "requiresRepublish",
                              "seLinuxMount", "fsGroupPolicy", "nodeAllocatableUpdatePeriodSeconds"),
    "storage.TokenRequest": ("audience", "expirationSeconds"),
    "storage.CSINodeDriver": ("name", "nodeID"),
    "storage.VolumeNodeResources": ("count",),
    "storage.VolumeAttachmentSpec": ("attacher", "nodeName"),
    "storage.VolumeAttachmentSource": ("persistentVolumeName",),
    "storage.VolumeAttachmentStatus": ("attached",),
    "storage.CSIStorageCapacity": ("storageClassName",),
    "node.RuntimeClass": ("handler",),
})
_KEEP_ZERO.update({  # registry/autoscaling.py: autoscaling/{v1,v2}/types.go (HorizontalPodAutoscaler)
    "autoscaling.CrossVersionObjectReference": ("kind", "name"),
    "autoscaling.HorizontalPodAutoscalerSpec": ("minReplicas", "maxReplicas", "targetCPUUtilizationPercentage"),
    "autoscaling.HorizontalPodAutoscalerStatus": ("observedGeneration", "currentReplicas", "desiredReplicas",
                                                  "currentCPUUtilizationPercentage"),
    "autoscalingv2.CrossVersionObjectReference": ("kind", "name"),
    "autoscalingv2.HorizontalPodAutoscalerSpec": ("minReplicas", "maxReplicas"),
    "autoscalingv2.HorizontalPodAutoscalerStatus": ("observedGeneration", "desiredReplicas"),
    "autoscalingv2.MetricSpec": ("type",),
    "autoscalingv2.MetricStatus": ("type",),
    "autoscalingv2.MetricIdentifier": ("name",),
    "autoscalingv2.MetricTarget": ("type", "averageUtilization"),
    "autoscalingv2.MetricValueStatus": ("averageUtilization",),
    "autoscalingv2.ResourceMetricSource": ("name",),
    "autoscalingv2.ResourceMetricStatus": ("name",),
    "autoscalingv2.ContainerResourceMetricSource": ("name", "container"),
    "autoscalingv2.ContainerResourceMetricStatus": ("name", "container"),
    "autoscalingv2.HPAScalingRules": ("stabilizationWindowSeconds", "selectPolicy", "tolerance"),
    "autoscalingv2.HPAScalingPolicy": ("type", "value", "periodSeconds"),
    "autoscalingv2.HorizontalPodAutoscalerCondition": ("type", "status"),
})
_KEEP_ZERO.update({  # registry/certificates.py, registry/eventsview.py: {certificates,events}/v1/types.go
    "certificates.CertificateSigningRequestSpec": ("request", "signerName", "expirationSeconds"),
    "certificates.CertificateSigningRequestCondition": ("type", "status"),
    "events.EventSeries": ("count",),
})

_KEEP_ZERO.update({  # registry/admissionregistration.py: admissionregistration/v1/types.go
    "admissionregistration.ValidatingWebhook": ("name",), "admissionregistration.MutatingWebhook": ("name",),
    "admissionregistration.ServiceReference": ("namespace", "name"),
    "admissionregistration.Validation": ("expression",),
    "admissionregistration.MatchCondition": ("name", "expression"),
    "admissionregistration.Variable": ("name", "expression"),
    "admissionregistration.AuditAnnotation": ("key", "valueExpression"),
    "admissionregistration.ExpressionWarning": ("fieldRef", "warning"),
})

_KEEP_ZERO.update({  # registry/flowcontrol.py: flowcontrol/v1/types.go (non-omitempty and pointer fields)
    "flowcontrol.PriorityLevelConfigurationReference": ("name",), "flowcontrol.FlowDistinguisherMethod": ("type",),
    "flowcontrol.Subject": ("kind",), "flowcontrol.UserSubject": ("name",), "flowcontrol.GroupSubject": ("name",),
    "flowcontrol.ServiceAccountSubject": ("namespace", "name"),
    "flowcontrol.PriorityLevelConfigurationSpec": ("type",), "flowcontrol.LimitResponse": ("type",),
    "flowcontrol.LimitedPriorityLevelConfiguration": ("nominalConcurrencyShares", "lendablePercent",
                                                      "borrowingLimitPercent"),
    "flowcontrol.ExemptPriorityLevelConfiguration": ("nominalConcurrencyShares", "lendablePercent"),
    "flowcontrol.QueuingConfiguration": ("queues", "handSize", "queueLengthLimit"),
})

KEEP_ZERO: frozenset[str] = frozenset(f"{message}.{name}" for message, names in _KEEP_ZERO.items() for name in names)
