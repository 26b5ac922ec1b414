"""`flowcontrol.apiserver.k8s.io/v1` FlowSchemas and PriorityLevelConfigurations (API Priority and Fairness), the
only flowcontrol version kube-apiserver 1.33 serves (v1beta1/v1beta2 were removed in 1.26 and 1.29, v1beta3 in
1.32), as storage kinds with `/status`:

- strategies: `pkg/registry/flowcontrol/{flowschema,prioritylevelconfiguration}/strategy.go` (status reset on
  create, kept on update; generation 1 on create, bumped on a spec change; `/status` keeps the spec);
- defaults: `pkg/apis/flowcontrol/v1/defaults.go` (matchingPrecedence 1000; Limited nominalConcurrencyShares 30
  and lendablePercent 0; Exempt's both 0; queuing handSize 8, queues 64, queueLengthLimit 50);
- validation: `pkg/apis/flowcontrol/validation/validation.go` (ValidateFlowSchema, ValidatePriorityLevelConfiguration
  for a v1 request: zero nominalConcurrencyShares allowed; the mandatory objects' fixed specs,
  `ValidateIfMandatoryPriorityLevelConfigurationObject`), errors in its order and words.

The bootstrap objects and the Dangling condition are the config producer's and consumer's, not the registry's:
`registry/flowcontrol_bootstrap.py` (upstream's bootstrap objects, data) and `controller/apf_config.py`.
"""
from __future__ import annotations

import copy
import json
import math
from typing import Any

from ..apierrors import FieldError, field_forbidden, field_invalid, field_not_supported, field_required
from ..goport.gofmt import go_quote, sharp_v_strings
from .kinds import ResourceInfo
from .strategy import Strategy
from .flowcontrol_bootstrap import MANDATORY_SPECS
from .validation import is_dns1123_label, is_dns1123_subdomain
from .workloads import GroupKind
from .shapes import as_dict, as_int, as_list

GROUP, VERSION = "flowcontrol.apiserver.k8s.io", "v1"
API_VERSION = f"{GROUP}/{VERSION}"
MAX_MATCHING_PRECEDENCE = 10000
MAX_QUEUES = 10 * 1000 * 1000
MAX_HASH_BITS = 60  # shufflesharding.MaxHashBits
SUPPORTED_VERBS = ("create", "delete", "deletecollection", "get", "list", "patch", "proxy", "update", "watch")
DISTINGUISHER_METHODS = ("ByNamespace", "ByUser")
SUBJECT_KINDS = ("Group", "ServiceAccount", "User")
PL_TYPES = ("Exempt", "Limited")
LIMIT_RESPONSE_TYPES = ("Queue", "Reject")
_NS_INTRO = "each member of this list must be '*' or a DNS-1123 label; "


def _invalid_raw(path: str, shown: str, detail: str) -> FieldError:
    return FieldError("FieldValueInvalid", path, f"Invalid value: {shown}: {detail}")


# ---- defaults ---------------------------------------------------------------------------------------------
def default_flow_schema(obj: dict[str, Any]) -> None:
    """`SetDefaults_FlowSchemaSpec`."""
    if obj.get("spec") is None:
        obj["spec"] = {}
    spec = obj["spec"]
    if isinstance(spec, dict) and not spec.get("matchingPrecedence"):
        spec["matchingPrecedence"] = 1000


def default_priority_level(obj: dict[str, Any]) -> None:
    """`SetDefaults_ExemptPriorityLevelConfiguration`, `..._LimitedPriorityLevelConfiguration`,
    `..._QueuingConfiguration` (each only where its struct is present, as generated defaulters do)."""
    spec = obj.get("spec")
    if spec is None:
        obj["spec"] = spec = {}
    if not isinstance(spec, dict):
        return
    exempt = spec.get("exempt")
    if isinstance(exempt, dict):
        if exempt.get("lendablePercent") is None:
            exempt["lendablePercent"] = 0
        if exempt.get("nominalConcurrencyShares") is None:
            exempt["nominalConcurrencyShares"] = 0
    limited = spec.get("limited")
    if isinstance(limited, dict):
        if limited.get("nominalConcurrencyShares") is None:
            limited["nominalConcurrencyShares"] = 30
        if limited.get("lendablePercent") is None:
            limited["lendablePercent"] = 0
        response = limited.get("limitResponse")
        queuing = as_dict(response).get("queuing")
        if isinstance(queuing, dict):
            for key, value in (("handSize", 8), ("queues", 64), ("queueLengthLimit", 50)):
                if not queuing.get(key):
                    queuing[key] = value


# ---- FlowSchema validation --------------------------------------------------------------------------------
_SUBJECT_FIELDS = (("serviceAccount", "ServiceAccount"), ("user", "User"), ("group", "Group"))
"""Each subject kind's own field, in the order upstream checks the others are absent."""


def _subject_errors(subject: dict[str, Any], path: str) -> list[FieldError]:
    """`ValidateFlowSchemaSubject` and the per-kind subject checks: the kind's own field required (and checked),
    every other kind's field forbidden."""
    kind = subject.get("kind") or ""
    own = next((f for f, k in _SUBJECT_FIELDS if k == kind), None)
    if own is None:
        return [field_not_supported(f"{path}.kind", kind, SUBJECT_KINDS)]
    errs: list[FieldError] = []
    value = subject.get(own)
    if value is None:
        errs.append(field_required(f"{path}.{own}", f"{own} is required when subject kind is '{kind}'"))
    elif kind == "ServiceAccount":
        sa = as_dict(value)
        name, ns = sa.get("name") or "", sa.get("namespace") or ""
        if not name:
            errs.append(field_required(f"{path}.serviceAccount.name"))
        elif name != "*":
            errs += [field_invalid(f"{path}.serviceAccount.name", name, m) for m in is_dns1123_subdomain(name)]
        if ns:
            errs += [field_invalid(f"{path}.serviceAccount.namespace", ns, m) for m in is_dns1123_label(ns)]
        else:
            errs.append(field_required(f"{path}.serviceAccount.namespace",
                                       "must specify namespace for service account"))
    elif not as_dict(value).get("name"):
        errs.append(field_required(f"{path}.{own}.name"))
    for field, field_kind in _SUBJECT_FIELDS:
        if field != own and subject.get(field) is not None:
            errs.append(field_forbidden(f"{path}.{field}",
                                        f"{field} is forbidden when subject kind is not '{field_kind}'"))
    return errs


def _verb_errors(verbs: list[Any], path: str) -> list[FieldError]:
    if not verbs:
        return [field_required(path, "verbs must contain at least one value")]
    if "*" in verbs:
        return [_invalid_raw(path, sharp_v_strings(verbs), "if '*' is present, must not specify other verbs")] \
            if len(verbs) > 1 else []
    if not set(verbs) <= set(SUPPORTED_VERBS):
        return [FieldError("FieldValueNotSupported", path,
                           f"Unsupported value: {sharp_v_strings(verbs)}: supported values: "
                           + ", ".join(go_quote(v) for v in SUPPORTED_VERBS))]
    return []


def non_resource_url_error(url: str, path: str) -> FieldError | None:
    """`ValidateNonResourceURLPath`."""
    if not url:
        return field_invalid(path, url, "must not be empty")
    if url == "/":
        return None
    if not url.startswith("/"):
        return field_invalid(path, url, "must start with slash")
    if " " in url:
        return field_invalid(path, url, "must not contain white-space")
    if "//" in url:
        return field_invalid(path, url, "must not contain double slash")
    stars = url.count("*")
    if stars > 1 or (stars == 1 and url[-2:] != "/*"):
        return field_invalid(path, url, "wildcard can only do suffix matching")
    return None


def _resource_rule_errors(rule: dict[str, Any], path: str) -> list[FieldError]:
    """`ValidateFlowSchemaResourcePolicyRule`."""
    errs = _verb_errors(as_list(rule.get("verbs")), f"{path}.verbs")
    groups, resources, namespaces = as_list(rule.get("apiGroups")), as_list(rule.get("resources")), \
        as_list(rule.get("namespaces"))
    if not groups:
        errs.append(field_required(f"{path}.apiGroups", "resource rules must supply at least one api group"))
    elif len(groups) > 1 and "*" in groups:
        errs.append(_invalid_raw(f"{path}.apiGroups", sharp_v_strings(groups),
                                 "if '*' is present, must not specify other api groups"))
    if not resources:
        errs.append(field_required(f"{path}.resources", "resource rules must supply at least one resource"))
    elif len(resources) > 1 and "*" in resources:
        errs.append(_invalid_raw(f"{path}.resources", sharp_v_strings(resources),
                                 "if '*' is present, must not specify other resources"))
    if not namespaces and not rule.get("clusterScope"):
        errs.append(field_required(f"{path}.namespaces",
                                   "resource rules that are not cluster scoped must supply at least one namespace"))
    elif "*" in namespaces:
        if len(namespaces) > 1:
            errs.append(_invalid_raw(f"{path}.namespaces", sharp_v_strings(namespaces),
                                     "if '*' is present, must not specify other namespaces"))
    else:
        for i, ns in enumerate(namespaces):
            ns = ns if isinstance(ns, str) else str(ns)
            errs += [field_invalid(f"{path}.namespaces[{i}]", ns, _NS_INTRO + m) for m in is_dns1123_label(ns)]
    return errs


def _non_resource_rule_errors(rule: dict[str, Any], path: str) -> list[FieldError]:
    """`ValidateFlowSchemaNonResourcePolicyRule`."""
    errs = _verb_errors(as_list(rule.get("verbs")), f"{path}.verbs")
    urls = as_list(rule.get("nonResourceURLs"))
    if not urls:
        errs.append(field_required(f"{path}.nonResourceURLs", "nonResourceURLs must contain at least one value"))
    elif "*" in urls:
        if len(urls) > 1:
            errs.append(_invalid_raw(f"{path}.nonResourceURLs", sharp_v_strings(urls),
                                     "if '*' is present, must not specify other non-resource URLs"))
    else:
        for i, url in enumerate(urls):
            err = non_resource_url_error(url if isinstance(url, str) else str(url), f"{path}.nonResourceURLs[{i}]")
            if err is not None:
                errs.append(err)
    return errs


def _rules_errors(rule: dict[str, Any], path: str) -> list[FieldError]:
    """`ValidateFlowSchemaPolicyRulesWithSubjects`."""
    errs: list[FieldError] = []
    subjects = as_list(rule.get("subjects"))
    if subjects:
        for i, s in enumerate(subjects):
            errs += _subject_errors(as_dict(s), f"{path}.subjects[{i}]")
    else:
        errs.append(field_required(f"{path}.subjects", "subjects must contain at least one value"))
    resource_rules, non_resource_rules = as_list(rule.get("resourceRules")), as_list(rule.get("nonResourceRules"))
    if not resource_rules and not non_resource_rules:
        errs.append(field_required(path, "at least one of resourceRules and nonResourceRules has to be non-empty"))
    for i, r in enumerate(resource_rules):
        errs += _resource_rule_errors(as_dict(r), f"{path}.resourceRules[{i}]")
    for i, r in enumerate(non_resource_rules):
        errs += _non_resource_rule_errors(as_dict(r), f"{path}.nonResourceRules[{i}]")
    return errs


def flow_schema_spec_errors(name: str, spec: dict[str, Any]) -> list[FieldError]:
    """`ValidateFlowSchemaSpec`."""
    errs: list[FieldError] = []
    precedence = as_int(spec.get("matchingPrecedence"))
    if precedence <= 0:
        errs.append(field_invalid("spec.matchingPrecedence", precedence, "must be a positive value"))
    if precedence > MAX_MATCHING_PRECEDENCE:
        errs.append(field_invalid("spec.matchingPrecedence", precedence,
                                  f"must not be greater than {MAX_MATCHING_PRECEDENCE}"))
    if precedence == 1 and name != "exempt":
        errs.append(field_invalid("spec.matchingPrecedence", precedence,
                                  "only the schema named 'exempt' may have matchingPrecedence 1"))
    method = spec.get("distinguisherMethod")
    if method is not None:
        mtype = as_dict(method).get("type") or ""
        if mtype not in DISTINGUISHER_METHODS:
            errs.append(FieldError("FieldValueNotSupported", "spec.distinguisherMethod.type",
                                   "Unsupported value: flowcontrol.FlowDistinguisherMethod"
                                   f"{{Type:{go_quote(str(mtype))}}}"
                                   ": supported values: " + ", ".join(go_quote(v) for v in DISTINGUISHER_METHODS)))
    pl_name = as_dict(spec.get("priorityLevelConfiguration")).get("name") or ""
    if pl_name:
        errs += [field_invalid("spec.priorityLevelConfiguration.name", pl_name, m)
                 for m in is_dns1123_subdomain(pl_name)]
    else:
        errs.append(field_required("spec.priorityLevelConfiguration.name", "must reference a priority level"))
    for i, rule in enumerate(as_list(spec.get("rules"))):
        errs += _rules_errors(as_dict(rule), f"spec.rules[{i}]")
    return errs


def _condition_errors(status: dict[str, Any]) -> list[FieldError]:
    """`Validate<Kind>Status`: condition types present and unique."""
    errs: list[FieldError] = []
    seen: set[str] = set()
    for i, cond in enumerate(as_list(status.get("conditions"))):
        ctype = as_dict(cond).get("type") or ""
        if ctype in seen:
            errs.append(FieldError("FieldValueDuplicate", f"status.conditions[{i}].type",
                                   f"Duplicate value: {go_quote(str(ctype))}"))
        seen.add(ctype)
        if not ctype:
            errs.append(field_required(f"status.conditions[{i}].type", "must not be empty"))
    return errs


# ---- PriorityLevelConfiguration validation ----------------------------------------------------------------
def required_entropy_bits(deck: int, hand: int) -> int:
    """`shufflesharding.RequiredEntropyBits`."""
    return int(math.ceil(math.log2(deck) * hand))


def _queuing_errors(queuing: dict[str, Any], path: str) -> list[FieldError]:
    """`ValidatePriorityLevelQueuingConfiguration`."""
    errs: list[FieldError] = []
    qll, queues, hand = as_int(queuing.get("queueLengthLimit")), as_int(queuing.get("queues")), \
        as_int(queuing.get("handSize"))
    if qll <= 0:
        errs.append(field_invalid(f"{path}.queueLengthLimit", qll, "must be positive"))
    if queues <= 0:
        errs.append(field_invalid(f"{path}.queues", queues, "must be positive"))
    elif queues > MAX_QUEUES:
        errs.append(field_invalid(f"{path}.queues", queues, f"must not be greater than {MAX_QUEUES}"))
    if hand <= 0:
        errs.append(field_invalid(f"{path}.handSize", hand, "must be positive"))
    elif hand > queues:
        errs.append(field_invalid(f"{path}.handSize", hand, f"should not be greater than queues ({queues})"))
    elif required_entropy_bits(queues, hand) > MAX_HASH_BITS:
        errs.append(field_invalid(f"{path}.handSize", hand, f"required entropy bits of deckSize {queues} and handSize "
                                                            f"{hand} should not be greater than {MAX_HASH_BITS}"))
    return errs


def _percent_errors(obj: dict[str, Any], path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    lendable = obj.get("lendablePercent")
    if isinstance(lendable, int) and not 0 <= lendable <= 100:
        errs.append(field_invalid(f"{path}.lendablePercent", lendable, "must be between 0 and 100, inclusive"))
    return errs


def _limited_errors(limited: dict[str, Any], path: str) -> list[FieldError]:
    """`ValidateLimitedPriorityLevelConfiguration` for a v1 request (zero shares allowed)."""
    errs: list[FieldError] = []
    ncs = as_int(limited.get("nominalConcurrencyShares"))
    if ncs < 0:
        errs.append(field_invalid(f"{path}.nominalConcurrencyShares", ncs, "must be a non-negative integer"))
    response = as_dict(limited.get("limitResponse"))
    rtype = response.get("type") or ""
    rpath = f"{path}.limitResponse"
    if rtype == "Reject":
        if response.get("queuing") is not None:
            errs.append(field_forbidden(f"{rpath}.queuing", "must be nil if limited.limitResponse.type is not Limited"))
    elif rtype == "Queue":
        if response.get("queuing") is None:
            errs.append(field_required(f"{rpath}.queuing",
                                       "must not be empty if limited.limitResponse.type is Limited"))
        else:
            errs += _queuing_errors(as_dict(response["queuing"]), f"{rpath}.queuing")
    else:
        errs.append(field_not_supported(f"{rpath}.type", rtype, LIMIT_RESPONSE_TYPES))
    errs += _percent_errors(limited, path)
    borrowing = limited.get("borrowingLimitPercent")
    if isinstance(borrowing, int) and borrowing < 0:
        errs.append(field_invalid(f"{path}.borrowingLimitPercent", borrowing, "if specified, must be a non-negative "
                                                                               "integer"))
    return errs


def priority_level_spec_errors(name: str, spec: dict[str, Any]) -> list[FieldError]:
    """`ValidatePriorityLevelConfigurationSpec`."""
    errs: list[FieldError] = []
    ptype = spec.get("type") or ""
    if (name == "exempt") != (ptype == "Exempt"):
        errs.append(field_invalid("spec.type", ptype, "type must be 'Exempt' if and only if name is 'exempt'"))
    if ptype == "Exempt":
        if spec.get("limited") is not None:
            errs.append(field_forbidden("spec.limited", "must be nil if the type is not Limited"))
        exempt = spec.get("exempt")
        if exempt is not None:
            exempt = as_dict(exempt)
            ncs = exempt.get("nominalConcurrencyShares")
            if isinstance(ncs, int) and ncs < 0:
                errs.append(field_invalid("spec.exempt.nominalConcurrencyShares", ncs,
                                          "must be a non-negative integer"))
            errs += _percent_errors(exempt, "spec.exempt")
    elif ptype == "Limited":
        if spec.get("exempt") is not None:
            errs.append(field_forbidden("spec.exempt", "must be nil if the type is Limited"))
        if spec.get("limited") is None:
            errs.append(field_required("spec.limited", "must not be empty when type is Limited"))
        else:
            errs += _limited_errors(as_dict(spec["limited"]), "spec.limited")
    else:
        errs.append(field_not_supported("spec.type", ptype, PL_TYPES))
    return errs


def _go_spec(kind: str, spec: dict[str, Any]) -> str:
    """What `field.Invalid(specPath, spec, ...)` prints for a spec struct: Go's `%#v` holds pointer addresses,
    which no other server can reproduce; the JSON of the spec stands in for it."""
    return f"flowcontrol.{kind}Spec" + json.dumps(spec, separators=(",", ":"), sort_keys=True)


def mandatory_spec_errors(kind: str, name: str, spec: dict[str, Any]) -> list[FieldError]:
    """The mandatory objects' fixed specs (`ValidateFlowSchema`'s check and
    `ValidateIfMandatoryPriorityLevelConfigurationObject`: the `exempt` level's `spec.exempt` may change)."""
    want = MANDATORY_SPECS.get((kind, name))
    if want is None:
        return []
    if kind == "PriorityLevelConfiguration" and name == "exempt":
        have = {**spec, "exempt": want.get("exempt")}
        if have != want:
            return [_invalid_raw("spec", _go_spec(kind, spec),
                                 f"spec of '{name}' except the 'spec.exempt' field must equal the fixed value")]
        return []
    if spec != want:
        return [_invalid_raw("spec", _go_spec(kind, spec), f"spec of '{name}' must equal the fixed value")]
    return []


# ---- strategies --------------------------------------------------------------------------------------------
class _FlowcontrolStrategy(Strategy):
    """`flowSchemaStrategy` / `priorityLevelConfigurationStrategy`: status reset on create and kept on update,
    generation 1 on create and bumped when the spec changes."""

    def defaults(self, obj: dict[str, Any]) -> None:
        raise NotImplementedError

    def spec_errors(self, name: str, spec: dict[str, Any]) -> list[FieldError]:
        raise NotImplementedError

    def default(self, obj: dict[str, Any], *, update: bool = False) -> None:
        super().default(obj, update=update)
        self.defaults(obj)

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        obj["status"] = {}
        obj["metadata"]["generation"] = 1

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        new["status"] = copy.deepcopy(old.get("status", {}))  # stored objects are never changed in place

    def canonicalize_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        """Judged against this update's own stored object (nothing kept on the shared strategy)."""
        super().canonicalize_update(new, old)
        new["metadata"]["generation"] = (old.get("metadata") or {}).get("generation", 0) + \
            (new.get("spec") != old.get("spec"))

    def _errors(self, obj: dict[str, Any]) -> list[FieldError]:
        name = as_dict(obj.get("metadata")).get("name") or ""
        spec = as_dict(obj.get("spec"))
        return (self.spec_errors(name, spec) + mandatory_spec_errors(self.info.kind, name, spec)
                + _condition_errors(as_dict(obj.get("status"))))

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return super().validate(obj) + self._errors(obj)

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return super().validate_update(new, old) + self._errors(new)


class FlowSchemaStrategy(_FlowcontrolStrategy):
    def defaults(self, obj: dict[str, Any]) -> None:
        default_flow_schema(obj)

    def spec_errors(self, name: str, spec: dict[str, Any]) -> list[FieldError]:
        return flow_schema_spec_errors(name, spec)


class PriorityLevelConfigurationStrategy(_FlowcontrolStrategy):
    def defaults(self, obj: dict[str, Any]) -> None:
        default_priority_level(obj)

    def spec_errors(self, name: str, spec: dict[str, Any]) -> list[FieldError]:
        return priority_level_spec_errors(name, spec)


def status_update_errors(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """`ValidateFlowSchemaStatusUpdate` / `ValidatePriorityLevelConfigurationStatusUpdate`: the conditions."""
    return _condition_errors(as_dict(new.get("status")))


def _info(kind: str, plural: str) -> ResourceInfo:
    """Both kinds' `ValidateXUpdate` is `ValidateX` of the new object (its `ValidateObjectMeta` included, no
    `ValidateObjectMetaUpdate`); their `ValidateXStatusUpdate` judges the status alone."""
    return ResourceInfo(kind, plural, kind.lower(), (), namespaced=False, fields=frozenset({"spec", "status"}),
                        update_validates_meta=True, update_meta_calls="M", status_meta_calls="-")


FLOWCONTROL_KINDS: tuple[GroupKind, ...] = (
    GroupKind(GROUP, VERSION, _info("FlowSchema", "flowschemas"), FlowSchemaStrategy),
    GroupKind(GROUP, VERSION, _info("PriorityLevelConfiguration", "prioritylevelconfigurations"),
              PriorityLevelConfigurationStrategy),
)

__all__ = ["API_VERSION", "FLOWCONTROL_KINDS", "GROUP", "VERSION", "status_update_errors"]
