"""The ValidatingAdmissionPolicy plugin (`staging/src/k8s.io/apiserver/pkg/admission/plugin/policy/validating/`
`dispatcher.go`, `admission.go`; `policy/generic/`): every stored ValidatingAdmissionPolicy with the bindings that
name it, evaluated on each create, update (PUT) and delete made through the API, after the mutating webhooks and
before the validating ones (upstream's plugin order).

For each policy (by name) whose `matchConstraints` match (`matching.py`), for each binding whose `matchResources`
match, for each param (`params.py`), `validator.py` evaluates it; a deny is acted on per the binding's
`validationActions`: `Deny` refuses the request with the first denial (`ValidatingAdmissionPolicy '<p>' with
binding '<b>' denied request: <message>`, `admission.NewForbidden`'s message with the validation's reason, 422
Invalid by default, and a cause carrying the message), `Warn` adds a `Warning` (`Validation failed for
ValidatingAdmissionPolicy '<p>' with binding '<b>': <message>`), `Audit` would add an audit annotation: this
server keeps no audit log, so it records nothing (nor the policies' own `auditAnnotations` values). A binding that
cannot be evaluated (its params) is `failed to configure binding: ...` under `failurePolicy: Fail` and skipped
under `Ignore`, as is a policy whose paramKind no served resource has (`failed to configure policy: ...`, named
without a binding). `authorizer` asks the server's authorizer (`matchconditions.authorizing`) as the requester."""
from __future__ import annotations

import asyncio
import contextvars
import functools
import weakref
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from ... import apierrors as E
from ...registry import Registry
from ...registry.rehearsed import LARGE, larger_than
from ..webhooks.matching import EXEMPT, Attributes
from . import matching, params

POLICIES, BINDINGS = "validatingadmissionpolicies", "validatingadmissionpolicybindings"
GROUP = "admissionregistration.k8s.io"
REASON_CODES = {"Forbidden": 403, "Invalid": 422, "RequestEntityTooLarge": 413}


def _name(obj: dict[str, Any] | None) -> str:
    return ((obj or {}).get("metadata") or {}).get("name") or ""


def _unobserved(policy: str, binding: str, decision: Any, action: str) -> None:
    """No metrics (a registry no server serves)."""


class PolicyAdmission:
    def __init__(self, registry: Registry, authorizer: Any = None):
        self.registry = registry
        self.authorizer = authorizer  # auth/: what `authorizer` checks ask (None: AlwaysAllow)
        self._pool: ThreadPoolExecutor | None = None  # large objects' evaluations, off the event loop

    async def validate_off_loop(self, a: Attributes, obj: dict[str, Any] | None, old: dict[str, Any] | None,
                                user: Any, dry_run: bool, options: dict[str, Any] | None, warnings: list[str]) -> None:
        """`validate`, in this plugin's thread when an object is large (CEL over it, its Go regexps and cost walks
        may take long: registry/rehearsed.py's measure), else inline. It writes nothing, so running it in a thread
        changes no order: the request awaits it where it would have run it, and nothing is stored meanwhile on its
        behalf (the store call comes after admission, as ever)."""
        if not (larger_than(obj, LARGE) or larger_than(old, LARGE)):
            return self.validate(a, obj, old, user, dry_run, options, warnings)
        if self._pool is None:
            self._pool = ThreadPoolExecutor(1, thread_name_prefix="policy-admission")
            weakref.finalize(self, self._pool.shutdown, wait=False)  # the thread ends with the plugin
        call = functools.partial(self.validate, a, obj, old, user, dry_run, options, warnings)
        await asyncio.get_running_loop().run_in_executor(self._pool, contextvars.copy_context().run, call)

    def _list(self, plural: str) -> list[dict[str, Any]]:
        return self.registry.store.list(plural, None, shared=True)[0]

    def _namespace(self, name: str) -> dict[str, Any] | None:
        try:
            return self.registry.store.get("namespaces", "", name, shared=True)
        except Exception:  # noqa: BLE001 - a missing namespace (lifecycle refused the request already)
            return None

    def _namespace_labels(self, name: str) -> dict[str, Any] | None:
        ns = self._namespace(name)
        return None if ns is None else (ns.get("metadata") or {}).get("labels") or {}

    def active(self) -> bool:
        """Any binding stored (a policy without one is never evaluated)."""
        return bool(self.registry.store.count(BINDINGS, None))

    def relevant(self, a: Attributes, obj: dict[str, Any] | None, old: dict[str, Any] | None) -> bool:
        """Whether a bound policy's `matchConstraints` select the request (no CEL evaluated: a cheap upper bound
        of what `validate` would evaluate, for writes that may skip it)."""
        if a.resource in EXEMPT and a.group == GROUP:
            return False
        return any(matching.matches((policy.get("spec") or {}).get("matchConstraints") or {}, a, obj, old,
                                    self._namespace_labels) for policy, _ in self._hooks())

    def _hooks(self) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
        bindings: dict[str, list[dict[str, Any]]] = {}
        for b in sorted(self._list(BINDINGS), key=_name):
            bindings.setdefault(str((b.get("spec") or {}).get("policyName") or ""), []).append(b)
        return [(p, bindings[_name(p)]) for p in sorted(self._list(POLICIES), key=_name) if _name(p) in bindings]

    def _namespace_object(self, a: Attributes) -> dict[str, Any] | None:
        """`CreateNamespaceObject`: the request's namespace, some metadata fields, spec and status (none for a
        cluster-scoped request or a Namespace's own)."""
        if not a.namespace or (a.resource == "namespaces" and not a.group):
            return None
        ns = self._namespace(a.namespace)
        if ns is None:
            return None
        meta = ns.get("metadata") or {}
        keep = ("name", "generateName", "namespace", "uid", "resourceVersion", "generation", "creationTimestamp",
                "deletionTimestamp", "deletionGracePeriodSeconds", "labels", "annotations", "finalizers")
        out: dict[str, Any] = {"metadata": {k: meta[k] for k in keep if k in meta}}
        for key in ("spec", "status"):
            if key in ns:
                out[key] = ns[key]
        return out

    def validate(self, a: Attributes, obj: dict[str, Any] | None, old: dict[str, Any] | None, user: Any,
                 dry_run: bool, options: dict[str, Any] | None, warnings: list[str]) -> None:
        """Raises the first denial; appends the warnings of `Warn` bindings."""
        if a.resource in EXEMPT and a.group == GROUP:
            return
        from ..matchconditions import admission_request, authorizer, authorizing  # CEL loads with the first binding
        from . import validator
        denied: list[tuple[str, str, Any]] = []
        observe = getattr(getattr(self.registry, "admission_metrics", None), "observe_policy", _unobserved)
        request: dict[str, Any] | None = None
        namespace: Any = ...
        for policy, bindings in self._hooks():
            spec = policy.get("spec") or {}
            if not matching.matches(spec.get("matchConstraints") or {}, a, obj, old, self._namespace_labels):
                continue
            fail = (spec.get("failurePolicy") or "Fail") == "Fail"
            problem = params.configuration_error(self.registry, policy)
            if problem:
                if fail:
                    denied.append((_name(policy), "", validator.Decision(f"failed to configure policy: {problem}")))
                continue
            for binding in bindings:
                bspec = binding.get("spec") or {}
                if not matching.matches(bspec.get("matchResources"), a, obj, old, self._namespace_labels):
                    continue
                try:
                    found = params.collect(self.registry, policy, binding, a.namespace)
                except params.ConfigError as exc:
                    if fail:
                        denied.append((_name(policy), _name(binding),
                                       validator.Decision(f"failed to configure binding: {exc}")))
                    continue
                if request is None:
                    request = admission_request(a, user, dry_run, options)
                    checks = authorizer(request)
                if namespace is ...:
                    namespace = self._namespace_object(a)
                actions = bspec.get("validationActions") or []
                for param in found:
                    activation = {"object": obj, "oldObject": old, "request": request, "params": param,
                                  "namespaceObject": namespace, "authorizer": checks}
                    with authorizing(self.authorizer):
                        decisions = validator.validate(policy, activation)
                    for decision in decisions:
                        if decision.admitted:  # an error ignored: only the metrics see it
                            observe(_name(policy), _name(binding), decision, "allow")
                            continue
                        if decision.error:
                            denied.append((_name(policy), _name(binding), decision))
                            observe(_name(policy), _name(binding), decision, "deny")
                            continue
                        if "Deny" in actions:
                            denied.append((_name(policy), _name(binding), decision))
                        if "Warn" in actions:
                            warnings.append(f"Validation failed for ValidatingAdmissionPolicy '{_name(policy)}' "
                                            f"with binding '{_name(binding)}': {decision.message}")
                        for action in actions:  # upstream's Deny, Audit and Warn each observed
                            if action in ("Deny", "Warn", "Audit"):
                                observe(_name(policy), _name(binding), decision, action.lower())
        if denied:
            raise self._refusal(a, obj, *denied[0])

    @staticmethod
    def _refusal(a: Attributes, obj: dict[str, Any] | None, policy: str, binding: str,
                 decision: Any) -> E.StatusError:
        """`admission.NewForbidden` with the decision's reason and its code (`reasonToCode`), plus a cause."""
        if binding:
            message = (f"ValidatingAdmissionPolicy '{policy}' with binding '{binding}' denied request: "
                       f"{decision.message}")
        else:
            message = f"ValidatingAdmissionPolicy '{policy}' denied request: {decision.message}"
        meta = (obj or {}).get("metadata") or {}
        name = a.name or meta.get("name") or meta.get("generateName") or "Unknown"
        err = E.forbidden(a.resource, name, message, a.group, causes=[{"message": message}])
        reason = decision.reason or "Invalid"
        err.status["reason"] = reason
        err.status["code"] = REASON_CODES.get(reason, 500)
        return err


__all__ = ["PolicyAdmission"]
