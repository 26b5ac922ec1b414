"""ReplicationControllers and PodTemplates, the core/v1 pod-template kinds.

ReplicationController: `pkg/registry/core/replicationcontroller/strategy.go` (generation 1 on create, +1 on a
spec change, status kept from storage and `{replicas: 0}` on create), `SetDefaults_ReplicationController` of
`pkg/apis/core/v1/defaults.go` (an empty selector and empty object labels take the template's labels;
`replicas: 1`) and `ValidateReplicationControllerSpec` / `ValidatePodTemplateSpecForRC` of
`pkg/apis/core/validation/validation.go` (`spec.selector: Required value`, "`selector` does not match template
`labels`", restartPolicy `Always`). Its pods are made by controller/workloads/replication.py (upstream's
replication manager wraps the ReplicaSet controller).

PodTemplate: `pkg/registry/core/podtemplate/strategy.go` (generation 1 on create, +1 when `template` changes)
and `ValidatePodTemplate` (`template.spec.containers: Required value`, ...).
"""
from __future__ import annotations

from typing import Any

from ..apierrors import FieldError, field_forbidden, field_invalid, field_not_supported, field_required
from .pod import default_pod_spec
from .podprepare import drop_disabled_template_fields
from .podvalidation import validate_pod_template_spec
from .podwarnings import name_warnings, template_warnings
from .strategy import Strategy
from .workloads import OldTemplateOptions, _Generation, go_string_map
from .shapes import as_dict


def _default_template(holder: dict[str, Any], key: str = "template") -> None:
    template = holder.get(key)
    if isinstance(template, dict):
        if not isinstance(template.get("spec"), dict):
            template["spec"] = {}
        default_pod_spec(template["spec"])


class ReplicationControllerStrategy(OldTemplateOptions, _Generation):
    template_spec = ("spec", "template", "spec")

    def default(self, obj: dict[str, Any], *, update: bool = False) -> None:
        super().default(obj, update=update)
        self.defaults(obj)

    def defaults(self, obj: dict[str, Any]) -> None:
        """`SetDefaults_ReplicationController`."""
        spec = obj["spec"]
        template = spec.get("template")
        labels = as_dict(template).get("metadata", {}).get("labels") if isinstance(template, dict) and \
            isinstance(template.get("metadata"), dict) else None
        if isinstance(labels, dict) and labels:
            if not spec.get("selector"):
                spec["selector"] = dict(labels)
            meta = obj.setdefault("metadata", {})
            if isinstance(meta, dict) and not meta.get("labels"):
                meta["labels"] = dict(labels)
        spec.setdefault("replicas", 1)
        _default_template(spec)

    def initial_status(self) -> dict[str, Any]:
        return {"replicas": 0}

    def warnings_on_create(self, obj: dict[str, Any]) -> list[str]:
        name = as_dict(obj.get("metadata")).get("name")
        template = as_dict(obj.get("spec")).get("template")
        return name_warnings(name, pod=False) + template_warnings("spec.template", template)

    def warnings_on_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[str]:
        """When the generation moved: the STORED template's warnings, as upstream's `rcStrategy.WarningsOnUpdate`
        passes `oldRc.Spec.Template` where the new one belongs."""
        if as_dict(new.get("metadata")).get("generation") == as_dict(old.get("metadata")).get("generation"):
            return []
        return template_warnings("spec.template", as_dict(old.get("spec")).get("template"))

    def spec_errors(self, spec: dict[str, Any], old_template: Any = None) -> list[FieldError]:
        """`ValidateReplicationControllerSpec`'s order: minReadySeconds, selector, replicas, template."""
        errs: list[FieldError] = []
        selector = spec.get("selector")
        for key in ("minReadySeconds", "selector", "replicas"):
            value = spec.get(key)
            if key == "selector":
                if not isinstance(selector, dict) or not selector:
                    errs.append(field_required("spec.selector"))
            elif isinstance(value, int) and not isinstance(value, bool) and value < 0:
                errs.append(field_invalid(f"spec.{key}", value, "must be greater than or equal to 0"))
        template = spec.get("template")
        if not isinstance(template, dict):
            return errs + [field_required("spec.template")]
        labels = as_dict(template.get("metadata")).get("labels")
        if isinstance(selector, dict) and selector:
            have = labels if isinstance(labels, dict) else {}
            if any(have.get(k) != v for k, v in selector.items()):
                errs.append(FieldError("FieldValueInvalid", "spec.template.metadata.labels",
                                       f"Invalid value: {go_string_map(labels)}: `selector` does not match "
                                       "template `labels`"))
        tspec = as_dict(template.get("spec"))
        errs += validate_pod_template_spec(template, "spec.template", old_template)
        policy = tspec.get("restartPolicy")
        if policy != "Always":
            errs.append(field_not_supported("spec.template.spec.restartPolicy", policy, ["Always"]))
        if tspec.get("activeDeadlineSeconds") is not None:
            errs.append(field_forbidden("spec.template.spec.activeDeadlineSeconds",
                                        "activeDeadlineSeconds in ReplicationController is not Supported"))
        return errs


class PodTemplateStrategy(Strategy):
    """`podTemplateStrategy`: metadata.generation follows `template`."""

    def default(self, obj: dict[str, Any], *, update: bool = False) -> None:
        super().default(obj, update=update)
        if obj.get("template") is None:
            obj["template"] = {}
        _default_template(obj)

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        super().prepare_for_create(obj)
        drop_disabled_template_fields(obj, None, ("template", "spec"))
        obj["metadata"]["generation"] = 1

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        super().prepare_for_update(new, old)
        drop_disabled_template_fields(new, old, ("template", "spec"))

    def canonicalize_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        """After the store restored the old system metadata: the stored generation, + 1 when the template
        changed (`podTemplateStrategy.PrepareForUpdate`), judged against this update's own stored object."""
        super().canonicalize_update(new, old)
        new["metadata"]["generation"] = as_dict(old.get("metadata")).get("generation", 1) + \
            (new.get("template") != old.get("template"))

    def warnings_on_create(self, obj: dict[str, Any]) -> list[str]:
        return template_warnings("template", obj.get("template"))

    def warnings_on_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[str]:
        if as_dict(new.get("metadata")).get("generation") == as_dict(old.get("metadata")).get("generation"):
            return []
        return template_warnings("template", new.get("template"))

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return super().validate(obj) + validate_pod_template_spec(as_dict(obj.get("template")), "template")

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        """`GetValidationOptionsFromPodTemplate(&template.Template, &oldTemplate.Template)`: the stored template's
        options (validate_pod_template_spec)."""
        return super().validate_update(new, old) + validate_pod_template_spec(as_dict(new.get("template")),
                                                                              "template", old.get("template"))
