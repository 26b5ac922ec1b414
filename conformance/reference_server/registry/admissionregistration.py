"""`admissionregistration.k8s.io/v1` as kube-apiserver 1.33 serves it: ValidatingWebhookConfiguration,
MutatingWebhookConfiguration, ValidatingAdmissionPolicy (`/status`) and ValidatingAdmissionPolicyBinding, all
cluster-scoped, with

- the v1 defaults of `pkg/apis/admissionregistration/v1/defaults.go` (webhooks: failurePolicy Fail, matchPolicy
  Equivalent, namespaceSelector/objectSelector `{}`, timeoutSeconds 10, reinvocationPolicy Never for mutating ones;
  rules' scope `*`; a service reference's port 443; policies: failurePolicy Fail; MatchResources: matchPolicy
  Equivalent, selectors `{}`);
- the validation of `pkg/apis/admissionregistration/validation/validation.go` (and `apiserver/pkg/util/webhook/
  validation.go` for clientConfig: registry/webhookclient.py), errors in upstream's order and words;
- the strategies of `pkg/registry/admissionregistration/<kind>/strategy.go`: generation 1 on create and + 1 when
  `webhooks` / `spec` change; a policy's status reset on create and kept on update, its `/status` changing only
  status.

CEL expressions (matchConditions, validations, messageExpression, auditAnnotations, variables) are compiled on
write (`reference_server/cel/`): one that does not parse, or names a variable its environment does not declare, is
refused as upstream refuses it (`compilation failed: ...` in cel-go's parser's and checker's words, `must evaluate
to ...`). admission/policy/ enforces the policies; controller/policystatus.py writes their `status.typeChecking`.
"""
from __future__ import annotations

import re
from typing import Any

from ..apierrors import FieldError, _go_quote, field_forbidden, field_invalid, field_not_supported, field_required
from .kinds import ResourceInfo
from .rehearsed import LARGE_CRD, larger_than
from .strategy import PerThread, Strategy
from .validation import is_dns1035_label, is_dns1123_subdomain, is_label_value, is_qualified_name, validate_labels
from .webhookclient import webhook_service_errors, webhook_url_errors
from .workloads import GroupKind
from .shapes import as_dict, as_list

GROUP, VERSION = "admissionregistration.k8s.io", "v1"

FAILURE_POLICIES = ("Fail", "Ignore")
MATCH_POLICIES = ("Equivalent", "Exact")
NO_SIDE_EFFECTS = ("None", "NoneOnDryRun")
OPERATIONS = ("*", "CONNECT", "CREATE", "DELETE", "UPDATE")
REINVOCATION_POLICIES = ("IfNeeded", "Never")
SCOPES = ("*", "Cluster", "Namespaced")
REASONS = ("Forbidden", "Invalid", "RequestEntityTooLarge")
ACTIONS = ("Audit", "Deny", "Warn")
REVIEW_VERSIONS = ("v1", "v1beta1")  # AcceptedAdmissionReviewVersions


def go_slice(values: list[Any], elem: str = "string") -> str:
    """Go's `%#v` of a string slice (what `field.Invalid` prints for one)."""
    return f"[]{elem}{{" + ", ".join(_go_quote(str(v)) for v in values) + "}"


def _invalid_slice(path: str, values: list[Any], detail: str, elem: str = "string") -> FieldError:
    return FieldError("FieldValueInvalid", path, f"Invalid value: {go_slice(values, elem)}: {detail}")


def _duplicate(path: str, value: Any) -> FieldError:
    return FieldError("FieldValueDuplicate", path, f"Duplicate value: {_go_quote(value)}")


# ---- defaults (pkg/apis/admissionregistration/v1/defaults.go) ----------------------------------------------
def _default_rule(rule: Any) -> None:
    """`SetDefaults_Rule`: scope `*`."""
    if isinstance(rule, dict) and rule.get("scope") is None:
        rule["scope"] = "*"


def _default_webhook(hook: dict[str, Any], *, mutating: bool) -> None:
    """`SetDefaults_ValidatingWebhook` / `SetDefaults_MutatingWebhook`, then the rules and service reference."""
    for key, value in (("failurePolicy", "Fail"), ("matchPolicy", "Equivalent"), ("timeoutSeconds", 10)):
        if hook.get(key) is None:
            hook[key] = value
    for key in ("namespaceSelector", "objectSelector"):
        if hook.get(key) is None:
            hook[key] = {}
    if mutating and hook.get("reinvocationPolicy") is None:
        hook["reinvocationPolicy"] = "Never"
    for rule in as_list(hook.get("rules")):
        _default_rule(rule)
    service = as_dict(hook.get("clientConfig")).get("service")
    if isinstance(service, dict) and service.get("port") is None:
        service["port"] = 443  # SetDefaults_ServiceReference


def _default_match_resources(match: Any) -> None:
    """`SetDefaults_MatchResources` (only for a set MatchResources: it is a pointer), and its rules' scope."""
    if not isinstance(match, dict):
        return
    if match.get("matchPolicy") is None:
        match["matchPolicy"] = "Equivalent"
    for key in ("namespaceSelector", "objectSelector"):
        if match.get(key) is None:
            match[key] = {}
    for key in ("resourceRules", "excludeResourceRules"):
        for rule in as_list(match.get(key)):
            _default_rule(rule)


# ---- shared validation -------------------------------------------------------------------------------------
def validate_label_selector(selector: Any, path: str) -> list[FieldError]:
    """`metav1validation.ValidateLabelSelector` (strict label values)."""
    selector = as_dict(selector)
    errs = validate_labels(as_dict(selector.get("matchLabels")), f"{path}.matchLabels")
    for i, req in enumerate(as_list(selector.get("matchExpressions"))):
        req, rpath = as_dict(req), f"{path}.matchExpressions[{i}]"
        op, values = req.get("operator"), as_list(req.get("values"))
        if op in ("In", "NotIn"):
            if not values:
                errs.append(field_required(f"{rpath}.values", "must be specified when `operator` is 'In' or 'NotIn'"))
        elif op in ("Exists", "DoesNotExist"):
            if values:
                errs.append(field_forbidden(f"{rpath}.values",
                                            "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
        else:
            errs.append(field_invalid(f"{rpath}.operator", op or "", "not a valid selector operator"))
        key = req.get("key") or ""
        errs += [field_invalid(f"{rpath}.key", key, m) for m in is_qualified_name(key)]
        for j, value in enumerate(values):
            errs += [field_invalid(f"{rpath}.values[{j}]", value, m) for m in is_label_value(str(value))]
    return errs


def _fully_qualified_name(path: str, name: str) -> list[FieldError]:
    """`utilvalidation.IsFullyQualifiedName`."""
    if not name:
        return [field_required(path)]
    errs = is_dns1123_subdomain(name)
    if errs:
        return [field_invalid(path, name, ",".join(errs))]
    if len(name.split(".")) < 3:
        return [field_invalid(path, name, "should be a domain with at least three segments separated by dots")]
    return []


def _resources_errors(resources: list[Any], path: str) -> list[FieldError]:
    """`validateResources` (subresources allowed)."""
    errs: list[FieldError] = []
    if not resources:
        errs.append(field_required(path))
    with_wild_sub: set[str] = set()
    wild_res_subs: set[str] = set()
    double = single = without_sub = False
    for i, res_sub in enumerate(resources):
        res_sub = str(res_sub) if res_sub is not None else ""
        if res_sub == "":
            errs.append(field_required(f"{path}[{i}]"))
            continue
        double = double or res_sub == "*/*"
        single = single or res_sub == "*"
        parts = res_sub.split("/", 1)
        if len(parts) == 1:
            without_sub = res_sub != "*"
            continue
        res, sub = parts
        if res in with_wild_sub:
            errs.append(field_invalid(f"{path}[{i}]", res_sub, f"if '{res}/*' is present, must not specify {res_sub}"))
        if sub in wild_res_subs:
            errs.append(field_invalid(f"{path}[{i}]", res_sub, f"if '*/{sub}' is present, must not specify {res_sub}"))
        if sub == "*":
            with_wild_sub.add(res)
        if res == "*":
            wild_res_subs.add(sub)
    if len(resources) > 1 and double:
        errs.append(_invalid_slice(path, resources, "if '*/*' is present, must not specify other resources"))
    if single and without_sub:
        errs.append(_invalid_slice(path, resources,
                                   "if '*' is present, must not specify other resources without subresources"))
    return errs


def _rule_with_operations_errors(rule: Any, path: str) -> list[FieldError]:
    """`validateRuleWithOperations` + `validateRule` (subresources allowed)."""
    rule = as_dict(rule)
    errs: list[FieldError] = []
    ops = as_list(rule.get("operations"))
    if not ops:
        errs.append(field_required(f"{path}.operations"))
    if len(ops) > 1 and "*" in ops:
        errs.append(_invalid_slice(f"{path}.operations", ops, "if '*' is present, must not specify other operations",
                                   "admissionregistration.OperationType"))
    for i, op in enumerate(ops):
        if op not in OPERATIONS:
            errs.append(field_not_supported(f"{path}.operations[{i}]", op, OPERATIONS))
    groups, versions = as_list(rule.get("apiGroups")), as_list(rule.get("apiVersions"))
    if not groups:
        errs.append(field_required(f"{path}.apiGroups"))
    if len(groups) > 1 and "*" in groups:
        errs.append(_invalid_slice(f"{path}.apiGroups", groups, "if '*' is present, must not specify other API groups"))
    if not versions:
        errs.append(field_required(f"{path}.apiVersions"))
    if len(versions) > 1 and "*" in versions:
        errs.append(_invalid_slice(f"{path}.apiVersions", versions,
                                   "if '*' is present, must not specify other API versions"))
    for i, version in enumerate(versions):
        if not version:
            errs.append(field_required(f"{path}.apiVersions[{i}]"))
    errs += _resources_errors(as_list(rule.get("resources")), f"{path}.resources")
    scope = rule.get("scope")
    if scope is not None and scope not in SCOPES:
        errs.append(field_not_supported(f"{path}.scope", scope, SCOPES))
    return errs


def declared(**kw: bool) -> frozenset[str]:
    from ..cel.environments import declared as names  # the CEL room loads on the first expression written
    return names(**kw)


Composition = tuple[tuple[str, str], ...]  # a policy's `spec.variables` as (name, expression) pairs


def _compile_errors(path: str, expression: str, names: frozenset[str], shown: str | None = None,
                    returns: tuple[str, ...] = ("bool",), variables: Composition | None = None) -> list[FieldError]:
    """`validateCELCondition` / `convertCELErrorToValidationError`: `field.Invalid(path, expression, detail)` with
    `compilation failed: ...` or `must evaluate to <returns> but got <type>` (`returns` empty: any type)."""
    from ..cel import compile_detail
    detail = compile_detail(expression, names, returns, variables)
    return [] if detail is None else [field_invalid(path, expression if shown is None else shown, detail)]


def _match_conditions_errors(conditions: list[Any], path: str, params: bool = False) -> list[FieldError]:
    """`validateMatchConditions`, each expression compiled (`validateMatchConditionsExpression`)."""
    errs: list[FieldError] = []
    if len(conditions) > 64:
        errs.append(FieldError("FieldValueTooMany", path, f"Too many: {len(conditions)}: must have at most 64 items"))
    names: set[str] = set()
    for i, cond in enumerate(conditions):
        cond = as_dict(cond)
        expression = str(cond.get("expression") or "").strip()
        if not expression:
            errs.append(field_required(f"{path}[{i}].expression"))
        else:
            errs += _compile_errors(f"{path}[{i}].expression", expression, declared(params=params))
        name = cond.get("name") or ""
        if not name:
            errs.append(field_required(f"{path}[{i}].name"))
        else:
            errs += [field_invalid(f"{path}[{i}].name", name, m) for m in is_qualified_name(name)]
        if name:
            if name in names:
                errs.append(_duplicate(f"{path}[{i}].name", name))
            names.add(name)
    return errs


def _review_versions_errors(versions: list[Any], path: str, require_recognized: bool) -> list[FieldError]:
    """`validateAdmissionReviewVersions`."""
    if not versions:
        return [field_required(path, f"must specify one of {', '.join(REVIEW_VERSIONS)}")]
    errs: list[FieldError] = []
    seen: set[str] = set()
    accepted = False
    for i, v in enumerate(versions):
        v = str(v)
        if v in seen:
            errs.append(field_invalid(f"{path}[{i}]", v, "duplicate version"))
            continue
        seen.add(v)
        errs += [field_invalid(f"{path}[{i}]", v, m) for m in is_dns1035_label(v)]
        accepted = accepted or v in REVIEW_VERSIONS
    if require_recognized and not accepted:
        errs.append(_invalid_slice(path, versions, f"must include at least one of {', '.join(REVIEW_VERSIONS)}"))
    return errs


def _webhook_errors(hook: dict[str, Any], path: str, *, mutating: bool, no_side_effects: bool,
                    match_conditions: bool) -> list[FieldError]:
    """`validateValidatingWebhook` / `validateMutatingWebhook`."""
    errs = _fully_qualified_name(f"{path}.name", hook.get("name") or "")
    for i, rule in enumerate(as_list(hook.get("rules"))):
        errs += _rule_with_operations_errors(rule, f"{path}.rules[{i}]")
    if hook.get("failurePolicy") is not None and hook["failurePolicy"] not in FAILURE_POLICIES:
        errs.append(field_not_supported(f"{path}.failurePolicy", hook["failurePolicy"], FAILURE_POLICIES))
    if hook.get("matchPolicy") is not None and hook["matchPolicy"] not in MATCH_POLICIES:
        errs.append(field_not_supported(f"{path}.matchPolicy", hook["matchPolicy"], MATCH_POLICIES))
    allowed = NO_SIDE_EFFECTS if no_side_effects else ("None", "NoneOnDryRun", "Some", "Unknown")
    side = hook.get("sideEffects")
    if side is None:
        errs.append(field_required(f"{path}.sideEffects", f"must specify one of {', '.join(allowed)}"))
    elif side not in allowed:
        errs.append(field_not_supported(f"{path}.sideEffects", side, allowed))
    timeout = hook.get("timeoutSeconds")
    if timeout is not None and (not isinstance(timeout, int) or not 1 <= timeout <= 30):
        errs.append(field_invalid(f"{path}.timeoutSeconds", timeout, "the timeout value must be between 1 and 30 "
                                                                     "seconds"))
    for key in ("namespaceSelector", "objectSelector"):
        if hook.get(key) is not None:
            errs += validate_label_selector(hook[key], f"{path}.{key}")
    if mutating and hook.get("reinvocationPolicy") is not None \
            and hook["reinvocationPolicy"] not in REINVOCATION_POLICIES:
        errs.append(field_not_supported(f"{path}.reinvocationPolicy", hook["reinvocationPolicy"],
                                        REINVOCATION_POLICIES))
    cc = as_dict(hook.get("clientConfig"))
    url, service = cc.get("url"), cc.get("service")
    if (url is None) == (service is None):
        errs.append(field_required(f"{path}.clientConfig", "exactly one of url or service is required"))
    elif url is not None:
        errs += webhook_url_errors(f"{path}.clientConfig.url", str(url))
    else:
        errs += webhook_service_errors(f"{path}.clientConfig.service", as_dict(service))
    if match_conditions:
        errs += _match_conditions_errors(as_list(hook.get("matchConditions")), f"{path}.matchConditions")
    return errs


# ---- strategies --------------------------------------------------------------------------------------------
class _GenerationOn(Strategy):
    """Generation 1 on create, + 1 when `watched` changes on update (every strategy of this group)."""
    kube_finalizers = False  # apimachinery's generic ValidateObjectMeta: any qualified finalizer name

    watched = "spec"
    _old = PerThread()  # the watched field and generation, between prepare_for_update and canonicalize

    def may_stall(self, obj: dict[str, Any] | None) -> bool:
        """An object past a few KiB may hold CEL expressions long enough to parse for a while (cel-go's parser
        here, syntax.py: some 50 µs a token): its write is rehearsed off the event loop (http/rehearse.py), the
        commit on the loop finds the parses cached."""
        return obj is not None and larger_than(obj, LARGE_CRD)

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        self._old = None
        obj["metadata"]["generation"] = 1

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        self._old = (old.get(self.watched), (old.get("metadata") or {}).get("generation", 0))

    def canonicalize(self, obj: dict[str, Any]) -> None:
        if self._old is not None:
            watched, generation = self._old
            self._old = None
            obj["metadata"]["generation"] = generation + (obj.get(self.watched) != watched)


class WebhookConfigurationStrategy(_GenerationOn):
    """`validatingWebhookConfigurationStrategy` / `mutatingWebhookConfigurationStrategy`; update validation relaxes
    the rules the stored object already broke (`ValidateValidatingWebhookConfigurationUpdate`)."""

    watched = "webhooks"
    mutating = False

    def default(self, obj: dict[str, Any], *, update: bool = False) -> None:
        super().default(obj, update=update)
        for hook in as_list(obj.get("webhooks")):
            if isinstance(hook, dict):
                _default_webhook(hook, mutating=self.mutating)

    def _errors(self, obj: dict[str, Any], old: dict[str, Any] | None) -> list[FieldError]:
        old_hooks = [as_dict(h) for h in as_list((old or {}).get("webhooks"))]
        new_hooks = [as_dict(h) for h in as_list(obj.get("webhooks"))]
        if old is None:
            no_side, recognized, unique, conditions = True, True, True, True
        else:
            no_side = all(h.get("sideEffects") in NO_SIDE_EFFECTS for h in old_hooks)
            recognized = all(not h.get("admissionReviewVersions")
                             or any(v in REVIEW_VERSIONS for v in as_list(h.get("admissionReviewVersions")))
                             for h in old_hooks)
            unique = len({h.get("name") for h in old_hooks}) == len(old_hooks)
            conditions = len(new_hooks) != len(old_hooks) or any(
                n.get("matchConditions") != o.get("matchConditions") for n, o in zip(new_hooks, old_hooks))
        errs: list[FieldError] = []
        names: set[str] = set()
        for i, hook in enumerate(new_hooks):
            path = f"webhooks[{i}]"
            errs += _webhook_errors(hook, path, mutating=self.mutating, no_side_effects=no_side,
                                    match_conditions=conditions)
            errs += _review_versions_errors(as_list(hook.get("admissionReviewVersions")),
                                            f"{path}.admissionReviewVersions", recognized)
            name = hook.get("name") or ""
            if unique and name:
                if name in names:
                    errs.append(_duplicate(f"{path}.name", name))
                names.add(name)
        return errs

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return super().validate(obj) + self._errors(obj, None)

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return super().validate_update(new, old) + self._errors(new, old)


class MutatingWebhookConfigurationStrategy(WebhookConfigurationStrategy):
    mutating = True


def _match_resources_errors(match: dict[str, Any], path: str) -> list[FieldError]:
    """`validateMatchResources`."""
    errs: list[FieldError] = []
    policy = match.get("matchPolicy")
    if policy is None:
        errs.append(field_required(f"{path}.matchPolicy"))
    elif policy not in MATCH_POLICIES:
        errs.append(field_not_supported(f"{path}.matchPolicy", policy, MATCH_POLICIES))
    for key in ("namespaceSelector", "objectSelector"):
        if match.get(key) is None:
            errs.append(field_required(f"{path}.{key}"))
        else:
            errs += validate_label_selector(match[key], f"{path}.{key}")
    for key in ("resourceRules", "excludeResourceRules"):
        for i, rule in enumerate(as_list(match.get(key))):
            rpath = f"{path}.{key}[{i}]"
            seen: set[str] = set()
            for j, name in enumerate(as_list(as_dict(rule).get("resourceNames"))):
                name = str(name)
                for msg in _path_segment_errors(name):
                    errs.append(field_invalid(f"{rpath}.resourceNames[{j}]", name, msg))
                if name in seen:
                    errs.append(_duplicate(f"{rpath}.resourceNames[{j}]", name))
                seen.add(name)
            errs += _rule_with_operations_errors(rule, rpath)
    return errs


def _path_segment_errors(name: str) -> list[str]:
    """`path.ValidatePathSegmentName(name, false)`."""
    if name in (".", ".."):
        return [f"may not be '{name}'"]
    return [f"may not contain '{c}'" for c in ("/", "%") if c in name]


_CEL_IDENT = re.compile(r"^[_a-zA-Z][_a-zA-Z0-9]*$")
_CEL_RESERVED = frozenset({"true", "false", "null", "in", "as", "break", "const", "continue", "else", "for",
                           "function", "if", "import", "let", "loop", "package", "namespace", "return", "var",
                           "void", "while"})


def _param_kind_errors(kind: dict[str, Any], path: str) -> list[FieldError]:
    """`validateParamKind`."""
    errs: list[FieldError] = []
    api_version = kind.get("apiVersion") or ""
    if not api_version:
        errs.append(field_required(f"{path}.apiVersion"))
    elif api_version.count("/") > 1:
        errs.append(field_invalid(f"{path}.apiVersion", api_version,
                                  f"unexpected GroupVersion string: {api_version}"))
    elif api_version != "/":
        group, _, version = api_version.rpartition("/")
        if group and is_dns1123_subdomain(group):
            errs.append(field_invalid(f"{path}.apiVersion", group, ",".join(is_dns1123_subdomain(group))))
        if not version:
            errs.append(field_invalid(f"{path}.apiVersion", api_version, "version must be specified"))
        elif is_dns1035_label(version):
            errs.append(field_invalid(f"{path}.apiVersion", version, ",".join(is_dns1035_label(version))))
    name = kind.get("kind") or ""
    if not name:
        errs.append(field_required(f"{path}.kind"))
    elif is_dns1035_label(name.lower()):
        errs.append(field_invalid(f"{path}.kind", name, "may have mixed case, but should otherwise match: "
                                  + ",".join(is_dns1035_label(name.lower()))))
    return errs


def _policy_spec_errors(meta: dict[str, Any], spec: dict[str, Any], match_conditions: bool) -> list[FieldError]:
    """`validateValidatingAdmissionPolicySpec`, expressions not compiled."""
    errs: list[FieldError] = []
    policy = spec.get("failurePolicy")
    if policy is None:
        errs.append(field_required("spec.failurePolicy"))
    elif policy not in FAILURE_POLICIES:
        errs.append(field_not_supported("spec.failurePolicy", policy, FAILURE_POLICIES))
    if spec.get("paramKind") is not None:
        errs += _param_kind_errors(as_dict(spec["paramKind"]), "spec.paramKind")
    match = spec.get("matchConstraints")
    if match is None:
        errs.append(field_required("spec.matchConstraints"))
    else:
        errs += _match_resources_errors(as_dict(match), "spec.matchConstraints")
        if not as_list(as_dict(match).get("resourceRules")):
            errs.append(field_required("spec.matchConstraints.resourceRules"))
    params, composition = spec.get("paramKind") is not None, bool(as_list(spec.get("variables")))
    pairs: Composition = tuple((str(as_dict(v).get("name") or ""), str(as_dict(v).get("expression") or ""))
                               for v in as_list(spec.get("variables")))
    if match_conditions:
        errs += _match_conditions_errors(as_list(spec.get("matchConditions")), "spec.matchConditions", params)
    for i, var in enumerate(as_list(spec.get("variables"))):
        var, vpath = as_dict(var), f"spec.variables[{i}]"
        name = str(var.get("name") or "")
        if not name.strip():
            errs.append(field_required(f"{vpath}.name", "name is not specified"))
        elif not _CEL_IDENT.match(name) or name in _CEL_RESERVED:
            errs.append(field_invalid(f"{vpath}.name", name, "name is not a valid CEL identifier"))
        if not str(var.get("expression") or "").strip():
            errs.append(field_required(f"{vpath}.expression", "expression is not specified"))
        else:
            errs += _compile_errors(f"{vpath}.expression", str(var["expression"]),
                                    declared(params=params, variables=True), returns=(), variables=pairs[:i])
    validations, audits = as_list(spec.get("validations")), as_list(spec.get("auditAnnotations"))
    if not validations and not audits:
        detail = "validations or auditAnnotations must contain at least one item"
        return errs + [field_required("spec.validations", detail), field_required("spec.auditAnnotations", detail)]
    for i, v in enumerate(validations):
        errs += _validation_errors(as_dict(v), f"spec.validations[{i}]", params, pairs if composition else None)
    if spec.get("auditAnnotations") is not None:
        if len(audits) > 20:
            errs.append(FieldError("FieldValueInvalid", "spec.auditAnnotations",
                                   "Invalid value: ...: must not have more than 20 auditAnnotations"))
        keys: set[str] = set()
        for i, a in enumerate(audits):
            a, apath = as_dict(a), f"spec.auditAnnotations[{i}]"
            key = str(a.get("key") or "")
            if meta.get("name"):
                errs += [field_invalid(f"{apath}.key", f"{meta['name']}/{key}", m)
                         for m in is_qualified_name(f"{meta['name']}/{key}")]
            else:
                errs.append(field_invalid(f"{apath}.key", key, "requires metadata.name be non-empty"))
            value = str(a.get("valueExpression") or "").strip()
            if not value:
                errs.append(field_required(f"{apath}.valueExpression", "valueExpression is not specified"))
            elif len(value) > 5 * 1024:
                errs.append(field_required(f"{apath}.valueExpression", "must not exceed 5120 bytes in length"))
            else:
                errs += _compile_errors(f"{apath}.valueExpression", value,
                                        declared(params=params, variables=composition),
                                        str(a.get("valueExpression")), ("string", "null_type"),
                                        pairs if composition else None)
            if key in keys:
                errs.append(_duplicate(f"{apath}.key", key))
            keys.add(key)
    return errs


def _validation_errors(v: dict[str, Any], path: str, params: bool = False,
                       variables: Composition | None = None) -> list[FieldError]:
    """`validateValidation`: the expression and the messageExpression compiled (the latter without
    `authorizer`)."""
    errs: list[FieldError] = []
    if not str(v.get("expression") or "").strip():
        errs.append(field_required(f"{path}.expression", "expression is not specified"))
    else:
        errs += _compile_errors(f"{path}.expression", str(v["expression"]),
                                declared(params=params, variables=variables is not None), variables=variables)
    msg_expr = str(v.get("messageExpression") or "")
    if msg_expr and not msg_expr.strip():
        errs.append(field_invalid(f"{path}.messageExpression", msg_expr, "must be non-empty if specified"))
    elif msg_expr:
        errs += _compile_errors(f"{path}.messageExpression", msg_expr,
                                declared(params=params, authorizer=False, variables=variables is not None),
                                returns=("string",), variables=variables)
    message = str(v.get("message") or "")
    if message and not message.strip():
        errs.append(field_invalid(f"{path}.message", message, "message must be non-empty if specified"))
    elif re.search(r"[\n\r]+", message.strip()):
        errs.append(field_invalid(f"{path}.message", message, "message must not contain line breaks"))
    reason = v.get("reason")
    if reason is not None and reason not in REASONS:
        errs.append(field_not_supported(f"{path}.reason", reason, REASONS))
    return errs


class ValidatingAdmissionPolicyStrategy(_GenerationOn):
    """`validatingAdmissionPolicyStrategy`: status reset on create and kept on update (`/status` has its own
    strategy); `SetDefaults_ValidatingAdmissionPolicySpec` and `SetDefaults_MatchResources`."""

    def default(self, obj: dict[str, Any], *, update: bool = False) -> None:
        super().default(obj, update=update)
        spec = obj.get("spec")
        if isinstance(spec, dict):
            if spec.get("failurePolicy") is None:
                spec["failurePolicy"] = "Fail"
            _default_match_resources(spec.get("matchConstraints"))

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        super().prepare_for_create(obj)
        obj["status"] = {}

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        super().prepare_for_update(new, old)
        if "status" in old:
            new["status"] = old["status"]
        else:
            new.pop("status", None)

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return super().validate(obj) + _policy_spec_errors(as_dict(obj.get("metadata")), as_dict(obj.get("spec")), True)

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        nspec, ospec = as_dict(new.get("spec")), as_dict(old.get("spec"))
        conditions = (nspec.get("paramKind") != ospec.get("paramKind")
                      or nspec.get("matchConditions") != ospec.get("matchConditions"))
        return super().validate_update(new, old) + _policy_spec_errors(as_dict(new.get("metadata")), nspec, conditions)


class ValidatingAdmissionPolicyBindingStrategy(_GenerationOn):
    """`validatingAdmissionPolicyBindingStrategy`; `SetDefaults_MatchResources` on a set `matchResources`."""

    def default(self, obj: dict[str, Any], *, update: bool = False) -> None:
        super().default(obj, update=update)
        _default_match_resources(as_dict(obj.get("spec")).get("matchResources"))

    def _errors(self, obj: dict[str, Any]) -> list[FieldError]:
        spec = as_dict(obj.get("spec"))
        errs: list[FieldError] = []
        policy = spec.get("policyName") or ""
        if not policy:
            errs.append(field_required("spec.policyName"))
        else:
            errs += [field_invalid("spec.policyName", policy, m) for m in is_dns1123_subdomain(policy)]
        if spec.get("paramRef") is not None:
            errs += _param_ref_errors(as_dict(spec["paramRef"]), "spec.paramRef")
        if spec.get("matchResources") is not None:
            errs += _match_resources_errors(as_dict(spec["matchResources"]), "spec.matchResouces")  # upstream's typo
        errs += _actions_errors(as_list(spec.get("validationActions")), "spec.validationActions")
        return errs

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return super().validate(obj) + self._errors(obj)

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return super().validate_update(new, old) + self._errors(new)


def _param_ref_errors(ref: dict[str, Any], path: str) -> list[FieldError]:
    """`validateParamRef`."""
    errs: list[FieldError] = []
    name, selector = ref.get("name") or "", ref.get("selector")
    if name:
        errs += [field_invalid(f"{path}.name", name, m) for m in _path_segment_errors(name)]
        if selector is not None:
            errs.append(field_forbidden(f"{path}.name", "name and selector are mutually exclusive"))
    if selector is not None:
        errs += validate_label_selector(selector, f"{path}.selector")
        if name:
            errs.append(field_forbidden(f"{path}.selector", "name and selector are mutually exclusive"))
    if not name and selector is None:
        errs.append(field_required(path, "one of name or selector must be specified"))
    action = ref.get("parameterNotFoundAction")
    if not action:
        errs.append(field_required(f"{path}.parameterNotFoundAction"))
    elif action not in ("Deny", "Allow"):
        errs.append(field_not_supported(f"{path}.parameterNotFoundAction", action, ("Deny", "Allow")))
    return errs


def _actions_errors(actions: list[Any], path: str) -> list[FieldError]:
    """`validateValidationActions`."""
    errs: list[FieldError] = []
    seen: set[str] = set()
    for i, action in enumerate(actions):
        if action not in ACTIONS:
            errs.append(field_not_supported(f"{path}[{i}]", action, ACTIONS))
        if action in seen:
            errs.append(_duplicate(f"{path}[{i}]", action))
        seen.add(str(action))
    if "Deny" in seen and "Warn" in seen:
        errs.append(_invalid_slice(path, actions, "must not contain both Deny and Warn (repeating the same validation "
                                                  "failure information in the API response and headers serves no "
                                                  "purpose)", "admissionregistration.ValidationAction"))
    if not seen:
        errs.append(field_required(path, "at least one validation action is required"))
    return errs


def _info(kind: str, plural: str, fields: frozenset[str]) -> ResourceInfo:
    """The four kinds' `ValidateXUpdate` is `validateX` of the new object (its `ValidateObjectMeta` included, no
    `ValidateObjectMetaUpdate`); a ValidatingAdmissionPolicy's status update judges its status alone."""
    return ResourceInfo(kind, plural, kind.lower(), namespaced=False, fields=fields, categories=("api-extensions",),
                        update_validates_meta=True, update_meta_calls="M", status_meta_calls="-")


ADMISSIONREGISTRATION_KINDS: tuple[GroupKind, ...] = (
    GroupKind(GROUP, VERSION, _info("MutatingWebhookConfiguration", "mutatingwebhookconfigurations",
                                    frozenset({"webhooks"})), MutatingWebhookConfigurationStrategy),
    GroupKind(GROUP, VERSION, _info("ValidatingAdmissionPolicy", "validatingadmissionpolicies",
                                    frozenset({"spec", "status"})), ValidatingAdmissionPolicyStrategy),
    GroupKind(GROUP, VERSION, _info("ValidatingAdmissionPolicyBinding", "validatingadmissionpolicybindings",
                                    frozenset({"spec"})), ValidatingAdmissionPolicyBindingStrategy),
    GroupKind(GROUP, VERSION, _info("ValidatingWebhookConfiguration", "validatingwebhookconfigurations",
                                    frozenset({"webhooks"})), WebhookConfigurationStrategy),
)

__all__ = ["ADMISSIONREGISTRATION_KINDS", "GROUP", "VERSION", "validate_label_selector"]
