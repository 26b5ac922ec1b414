"""A CRD's accepted names and its NamesAccepted and Established conditions, as kube-apiserver's naming and
establishing controllers compute them:
`staging/src/k8s.io/apiextensions-apiserver/pkg/controller/status/naming_controller.go`
(`getAcceptedNamesForGroup`, `calculateNamesAndConditions`, `equalToAcceptedOrFresh`, `sync`) and
`pkg/controller/establish/establishing_controller.go` (`sync`); and the KubernetesAPIApprovalPolicyConformant
condition of a protected group's CRD (`pkg/controller/apiapproval/apiapproval_controller.go` `calculateCondition`,
`pkg/apihelpers/helpers.go` `IsProtectedCommunityGroup`, `GetAPIApprovalState`) with the CRD write's check of
its annotation (`pkg/apis/apiextensions/validation/validation.go` `validateAPIApproval`).

Pure functions over the stored CRDs; the controllers (controller/crd_naming.py, crd_establishing.py,
crd_apiapproval.py) write what they answer as their `UpdateStatus` calls (`customresourcedefinitions/status`,
manager `kube-apiserver`); the CRD write itself only checks the approval annotation.
"""
from __future__ import annotations

import base64
import copy
from typing import Any, Iterable

NAMES_ACCEPTED, ESTABLISHED = "NamesAccepted", "Established"
APPROVAL_CONDITION = "KubernetesAPIApprovalPolicyConformant"
APPROVAL_ANNOTATION = "api-approved.kubernetes.io"
_KEP = "see https://github.com/kubernetes/enhancements/pull/1111"
INVALID, APPROVED, BYPASSED, MISSING = "Invalid", "Approved", "Bypassed", "Missing"
_SLICES = ("shortNames", "categories")


def _condition(crd: dict[str, Any], typ: str) -> dict[str, Any] | None:
    return next((c for c in (crd.get("status") or {}).get("conditions") or [] if c.get("type") == typ), None)


def condition_true(crd: dict[str, Any], typ: str) -> bool:
    c = _condition(crd, typ)
    return bool(c and c.get("status") == "True")


def _accepted(crd: dict[str, Any]) -> dict[str, Any]:
    return (crd.get("status") or {}).get("acceptedNames") or {}


def _names_equal(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """`equality.Semantic.DeepEqual` of two CustomResourceDefinitionNames (an empty slice is a nil one)."""
    keys = ("plural", "singular", "kind", "listKind")
    return all((a.get(k) or "") == (b.get(k) or "") for k in keys) and \
        all(list(a.get(k) or []) == list(b.get(k) or []) for k in _SLICES)


def group_names(crds: Iterable[dict[str, Any]], group: str) -> tuple[set[str], set[str]]:
    """`getAcceptedNamesForGroup`: the resource names and kinds the group's CRDs (this one included) accepted."""
    resources: set[str] = set()
    kinds: set[str] = set()
    for crd in crds:
        if (crd.get("spec") or {}).get("group") != group:
            continue
        names = _accepted(crd)
        resources |= {names.get("plural") or "", names.get("singular") or "", *(names.get("shortNames") or [])}
        kinds |= {names.get("kind") or "", names.get("listKind") or ""}
    return resources, kinds


def _fresh(requested: Any, accepted: Any, used: set[str]) -> str | None:
    """`equalToAcceptedOrFresh`: None, or the conflict's message."""
    requested, accepted = requested or "", accepted or ""
    if requested == accepted or requested not in used:
        return None
    return f'"{requested}" is already in use'


def naming_status(crd: dict[str, Any], crds: Iterable[dict[str, Any]]) -> dict[str, Any] | None:
    """The naming controller's `sync`: the new status (a copy), or None when it writes nothing."""
    spec_names = (crd.get("spec") or {}).get("names") or {}
    if _names_equal(spec_names, _accepted(crd)):
        return None
    resources, kinds = group_names(crds, (crd.get("spec") or {}).get("group"))
    accepted = _accepted(crd)
    new = copy.deepcopy(accepted)
    state, reason, message = "Unknown", "", ""

    def check(field: str, used: set[str], why: str) -> None:
        nonlocal state, reason, message
        err = _fresh(spec_names.get(field), accepted.get(field), used)
        if err is None:
            _set(new, field, spec_names.get(field))
        else:
            state, reason, message = "False", why, err

    check("plural", resources, "PluralConflict")
    check("singular", resources, "SingularConflict")
    if list(spec_names.get("shortNames") or []) != list(accepted.get("shortNames") or []):
        mine = set(accepted.get("shortNames") or [])
        errs = [e for e in (_fresh(s, "", resources) for s in spec_names.get("shortNames") or [] if s not in mine)
                if e]
        if errs:  # utilerrors.NewAggregate: one error bare, several in brackets
            state, reason = "False", "ShortNamesConflict"
            message = errs[0] if len(errs) == 1 else f"[{', '.join(errs)}]"
        else:
            _set(new, "shortNames", spec_names.get("shortNames"))
    check("kind", kinds, "KindConflict")
    check("listKind", kinds, "ListKindConflict")
    _set(new, "categories", spec_names.get("categories"))
    if state == "Unknown":
        state, reason, message = "True", "NoConflicts", "no conflicts found"

    established = {"status": "False", "reason": "NotAccepted", "message": "not all names are accepted"}
    old = _condition(crd, ESTABLISHED)
    if old is not None:
        established = {k: old.get(k) for k in ("status", "reason", "message")}
    if established["status"] != "True" and state == "True":
        established = {"status": "False", "reason": "Installing", "message": "the initial names have been accepted"}

    was = _condition(crd, NAMES_ACCEPTED)
    if _names_equal(accepted, new) and was is not None and \
            (was.get("status"), was.get("reason"), was.get("message")) == (state, reason, message):
        return None  # IsCRDConditionEquivalent: nothing changed
    status = copy.deepcopy(crd.get("status") or {})
    status["acceptedNames"] = _ordered(new)
    return {"status": status, "conditions": [(NAMES_ACCEPTED, state, reason, message),
                                             (ESTABLISHED, established["status"], established["reason"],
                                              established["message"])]}


def establishing_condition(crd: dict[str, Any]) -> tuple[str, str, str, str] | None:
    """The establishing controller's `sync`: Established True once the names are accepted, False
    `InvalidCABundle` while the conversion webhook's caBundle holds no certificate (None: no write)."""
    if not condition_true(crd, NAMES_ACCEPTED) or condition_true(crd, ESTABLISHED):
        return None
    if _invalid_ca_bundle(crd):
        return ESTABLISHED, "False", "InvalidCABundle", "The conversion webhook CABundle is invalid"
    return ESTABLISHED, "True", "InitialNamesAccepted", "the initial names have been accepted"


def _invalid_ca_bundle(crd: dict[str, Any]) -> bool:
    """`webhook.ValidateCABundle` (apiserver `pkg/util/webhook/validation.go`): a non-empty bundle must give
    `AppendCertsFromPEM` at least one certificate."""
    webhook = ((crd.get("spec") or {}).get("conversion") or {}).get("webhook")
    config = webhook.get("clientConfig") if isinstance(webhook, dict) else None
    bundle = config.get("caBundle") if isinstance(config, dict) else None
    if not bundle:
        return False
    from cryptography import x509
    try:
        return not x509.load_pem_x509_certificates(base64.b64decode(str(bundle)))
    except ValueError:
        return True


def _set(names: dict[str, Any], field: str, value: Any) -> None:
    """Go's `omitempty` for the optional names: an empty value is not written."""
    if value or field in ("plural", "kind"):
        names[field] = value if value is not None else ""
    else:
        names.pop(field, None)


def _ordered(names: dict[str, Any]) -> dict[str, Any]:
    """CustomResourceDefinitionNames in its Go field order (the JSON v1 encodes)."""
    order = ("plural", "singular", "shortNames", "kind", "listKind", "categories")
    return {k: names[k] for k in order if k in names} | {k: v for k, v in names.items() if k not in order}


# ---- API approval of the protected community groups ------------------------------------------------------------
def protected_group(group: Any) -> bool:
    """`IsProtectedCommunityGroup`: k8s.io and kubernetes.io and their subdomains."""
    group = str(group or "")
    return group in ("k8s.io", "kubernetes.io") or group.endswith((".k8s.io", ".kubernetes.io"))


def approval_state(crd: dict[str, Any]) -> tuple[str, str]:
    """`GetAPIApprovalState`: (state, reason) of the `api-approved.kubernetes.io` annotation."""
    from ..goport.gonet.strconv import quote
    from ..goport.gonet.url import URLError, parse_request_uri
    value = str(((crd.get("metadata") or {}).get("annotations") or {}).get(APPROVAL_ANNOTATION) or "")
    if not value:
        return MISSING, f"protected groups must have approval annotation {quote(APPROVAL_ANNOTATION)}, {_KEP}"
    if value.startswith("unapproved"):
        return BYPASSED, f"not approved: {quote(value)}"
    try:
        url = parse_request_uri(value)
    except URLError:
        url = None
    if url is not None and url.host and url.scheme:
        return APPROVED, f"approved in {value}"
    return INVALID, (f"protected groups must have approval annotation {quote(APPROVAL_ANNOTATION)} with either a URL "
                     f'or a reason starting with "unapproved", {_KEP}')


def approval_condition(crd: dict[str, Any]) -> tuple[str, str, str, str] | None:
    """The API-approval controller's `sync`: the condition to write, None when none is due (an unprotected group,
    or the same condition already there)."""
    if not protected_group((crd.get("spec") or {}).get("group")):
        return None
    state, reason = approval_state(crd)
    status, why = {APPROVED: ("True", "ApprovedAnnotation"), BYPASSED: ("False", "UnapprovedAnnotation"),
                   MISSING: ("False", "MissingAnnotation")}.get(state, ("False", "InvalidAnnotation"))
    old = _condition(crd, APPROVAL_CONDITION)
    if old is not None and (old.get("status"), old.get("reason"), old.get("message")) == (status, why, reason):
        return None
    return APPROVAL_CONDITION, status, why, reason


def validate_api_approval(new: dict[str, Any], old: dict[str, Any] | None) -> list[Any]:
    """`validateAPIApproval`: a protected group's CRD needs a URL or an `unapproved...` reason, unless an update
    leaves the state as it was."""
    from ..apierrors import field_invalid, field_required
    if not protected_group((new.get("spec") or {}).get("group")):
        return []
    state, reason = approval_state(new)
    if old is not None and approval_state(old)[0] == state:
        return []
    path = f"metadata.annotations[{APPROVAL_ANNOTATION}]"
    if state == MISSING:
        return [field_required(path, reason)]
    if state == INVALID:
        value = ((new.get("metadata") or {}).get("annotations") or {}).get(APPROVAL_ANNOTATION)
        return [field_invalid(path, value, reason)]
    return []
