"""kube-controller-manager's validatingadmissionpolicy-status-controller
(`pkg/controller/validatingadmissionpolicystatus/controller.go`).

Every ValidatingAdmissionPolicy whose `metadata.generation` is ahead of `status.observedGeneration` gets, by a
forced server-side apply of its status (field manager `validatingadmissionpolicy-status-controller`),
`observedGeneration` = its generation and `typeChecking` with the type checker's warnings
(`staging/src/k8s.io/apiserver/pkg/admission/plugin/policy/validating/typechecking.go`): each validation's
`expression` and `messageExpression` checked with `object`/`oldObject` typed by each kind the policy's resource
rules name (at most 10, no wildcards or subresources, sorted by group, version, kind) and `params` by its
paramKind, a warning `<group>/<version>, Kind=<kind>: <issues>` per kind that does not type-check.

Only kinds the server's field model describes are checked (a custom resource's schema is not: no warning), with
the partial checker of `cel/checker.py` (a warning only where it is sure upstream gives one).

The write is the controller's service account's (`ClientOrDie("validatingadmissionpolicy-status-controller")`,
through admission/admitted.py), which no webhook or policy ever sees: a ValidatingAdmissionPolicy is one of the
configuration kinds upstream's dispatchers exempt (`IsExemptAdmissionConfigurationResource`).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .. import apierrors as E
from ..registry import Registry
from ..storage import KeyNotFoundError
from .loop import Controller, WorkQueue

GROUP, PLURAL = "admissionregistration.k8s.io", "validatingadmissionpolicies"
FIELD_MANAGER = "validatingadmissionpolicy-status-controller"


class PolicyStatusController(Controller):
    name = "validatingadmissionpolicy status"
    service_account = FIELD_MANAGER  # names.ValidatingAdmissionPolicyStatusController

    def __init__(self, registry: Registry):
        super().__init__()
        self.registry = registry
        self._names: WorkQueue[str] = self._queue()

    def start(self) -> None:
        """Start watching; must be called on the server's event loop."""
        store = self.registry.group(GROUP, PLURAL)
        if store is None:
            return
        self._inform(store, self._on_event)
        self._work(self._names, self._sync)

    def _on_event(self, ev: Any) -> None:
        if ev.type in ("ADDED", "MODIFIED"):
            self._names.add(ev.name)

    async def _sync(self, name: str) -> None:
        store = self.registry.group(GROUP, PLURAL)
        if store is None:
            return
        try:
            policy = self.registry.store.get(PLURAL, "", name, shared=True)
        except KeyNotFoundError:
            return
        generation = (policy.get("metadata") or {}).get("generation") or 0
        if generation <= ((policy.get("status") or {}).get("observedGeneration") or 0):
            return
        warnings = expression_warnings(self.registry, policy.get("spec") or {})
        checking: dict[str, Any] = {"expressionWarnings": warnings} if warnings else {}
        config = {"apiVersion": f"{GROUP}/v1", "kind": "ValidatingAdmissionPolicy", "metadata": {"name": name},
                  "status": {"observedGeneration": generation, "typeChecking": checking}}
        fm = store.field_manager
        try:
            self.writes.update(store, "", name,
                               transform=lambda live: fm.apply(live, config, FIELD_MANAGER, True, "status"),
                               strategy=store.status_strategy,  # type: ignore[attr-defined]
                               manage=lambda _live, new: new)
        except E.StatusError as exc:
            if exc.code not in (404, 409):  # deleted meanwhile, or changed again (its own event requeues it)
                raise


MAX_TYPES = 10  # typechecking.go maxTypesToCheck


def _kind(registry: Registry, group: str, version: str, resource: str) -> str | None:
    """The RESTMapper's `KindsFor`: the kind this server serves as group/version/resource."""
    if group == "":
        if version != "v1":
            return None
        store = registry.namespaces if resource == "namespaces" else \
            registry.content(resource) or registry.cluster(resource)
    else:
        store = registry.group(group, resource, version)
    return store.info.kind if store is not None else None


def types_to_check(registry: Registry, spec: dict[str, Any]) -> list[tuple[str, str, str]]:
    """`typesToCheck`: the (group, version, kind)s of the resource rules, sorted."""
    found: set[tuple[str, str, str]] = set()
    for rule in ((spec.get("matchConstraints") or {}).get("resourceRules") or []):
        groups, versions = rule.get("apiGroups") or [], rule.get("apiVersions") or []
        resources = sorted(r for r in rule.get("resources") or [] if "*" not in r and "/" not in r)
        if not groups or not versions or not resources or any("*" in x for x in groups + versions):
            continue
        for group in sorted(groups):
            for version in sorted(versions):
                for resource in resources:
                    kind = _kind(registry, group, version, resource)
                    if kind:
                        found.add((group, version, kind))
                        if len(found) == MAX_TYPES:
                            return sorted(found)
    return sorted(found)


def expression_warnings(registry: Registry, spec: dict[str, Any]) -> list[dict[str, str]]:
    """`TypeChecker.Check`: a warning per validation expression or messageExpression that does not type-check
    against one of the matched kinds."""
    from ..cel.environments import Schemas, type_check
    from ..cel.schematypes import kind_type, message_of
    params: dict[str, Any] = {}
    param_objects: Mapping[str, Any] = {}
    param_kind = spec.get("paramKind")
    if param_kind:
        message = message_of(str(param_kind.get("apiVersion") or ""), str(param_kind.get("kind") or ""))
        if message is None:
            return []  # upstream types params by the paramKind's schema: one this server cannot tell
        root, param_objects = kind_type(message)
        params = {"params": root}
    contexts = []
    for group, version, kind in types_to_check(registry, spec):
        message = message_of(f"{group}/{version}" if group else version, kind)
        if message is None:
            continue  # schema not found: skipped, as upstream skips ErrSchemaNotFound
        root, objects = kind_type(message)
        schemas = Schemas({"object": root, "oldObject": root, **params}, {**param_objects, **objects})
        contexts.append((f"{group}/{version}, Kind={kind}", schemas))
    if not contexts:
        return []
    variables = tuple((str(v.get("name") or ""), str(v.get("expression") or ""))
                      for v in spec.get("variables") or [] if isinstance(v, dict)) or None
    warnings = []
    for i, validation in enumerate(spec.get("validations") or []):
        for key in ("expression", "messageExpression"):
            expression = str(validation.get(key) or "")
            if not expression:
                continue
            results = [f"{gvk}: {issues}\n" for gvk, schemas in contexts
                       if (issues := type_check(expression, schemas, bool(param_kind), variables))]
            if results:
                warnings.append({"fieldRef": f"spec.validations[{i}].{key}", "warning": "\n".join(results)})
    return warnings
