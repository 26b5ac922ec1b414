"""`authorization.k8s.io/v1` access reviews: ask the authorizer a hypothetical question, store nothing.

Upstream sources reproduced here:
- `pkg/registry/authorization/selfsubjectaccessreview/rest.go` (the requester is the user asking),
  `subjectaccessreview/rest.go` (the user comes from `spec.user/groups/uid/extra`),
  `localsubjectaccessreview/rest.go` (the path namespace must equal `spec.resourceAttributes.namespace`);
- `pkg/registry/authorization/util/helpers.go` (`ResourceAttributesFrom`: empty version ⇒ `*`;
  `NonResourceAttributesFrom`; status `allowed`/`denied`/`reason`);
- `pkg/apis/authorization/validation/validation.go` (the 422 texts; the bad values are printed with Go's
  `%#v` of the internal types, hence `_go_struct`);
- `staging/src/k8s.io/apiserver/pkg/authorization/authorizerfactory/builtin.go` (AlwaysAllow: allowed,
  empty reason; its `RulesFor`: one `*` resource rule and one `*` non-resource rule, complete);
- `pkg/registry/authorization/selfsubjectrulesreview/rest.go` (SelfSubjectRulesReview: 400s for a missing
  user or `spec.namespace`, no validation otherwise, a fresh object holding only the status is returned);
- `staging/src/k8s.io/apiserver/pkg/authorization/union/union.go` (`unionAuthzRulesHandler`: with one
  rule resolver configured, its answer unchanged; with none, empty lists).

Here rather than in the registry because the answer needs the authorizer, which lives in this package;
the http layer only decodes the body, passes the requester and encodes the result.
Not reproduced: field/label-selector authorization (selectors are echoed, never
evaluated), `status.denied` (no authorizer here ever denies: RBAC and AlwaysAllow allow or have no opinion).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Mapping

from .. import apierrors as E
from .rbac import Attributes, Authorizer, RuleResolver, RuleSet, UserInfo
from ..goport.gofmt import go_quote, sharp_v_string_map

GROUP = "authorization.k8s.io"
VERSION = "v1"
API_VERSION = f"{GROUP}/{VERSION}"


@dataclass(frozen=True)
class ReviewKind:
    """One served review resource (all are create-only and unstored)."""

    kind: str
    plural: str
    singular: str
    namespaced: bool
    self_review: bool  # the subject is the requester (Self*), not `spec.user`
    rules: bool = False  # lists the subject's rules (SelfSubjectRulesReview) instead of checking one action


REVIEW_KINDS: tuple[ReviewKind, ...] = (
    ReviewKind("LocalSubjectAccessReview", "localsubjectaccessreviews", "localsubjectaccessreview", True, False),
    ReviewKind("SelfSubjectAccessReview", "selfsubjectaccessreviews", "selfsubjectaccessreview", False, True),
    ReviewKind("SelfSubjectRulesReview", "selfsubjectrulesreviews", "selfsubjectrulesreview", False, True, True),
    ReviewKind("SubjectAccessReview", "subjectaccessreviews", "subjectaccessreview", False, False),
)
BY_PLURAL = {k.plural: k for k in REVIEW_KINDS}


class AlwaysAllowAuthorizer:
    """`authorizerfactory.NewAlwaysAllowAuthorizer`: what reviews answer without `--authorization rbac`."""

    def authorize(self, attrs: Attributes) -> tuple[bool, str]:
        return True, ""

    def rules_for(self, user: UserInfo | None, namespace: str) -> RuleSet:
        """`alwaysAllowAuthorizer.RulesFor`: everything, for anyone, complete."""
        return RuleSet([{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}],
                       [{"verbs": ["*"], "nonResourceURLs": ["*"]}])


# ---- normalisation: what Go's decode + re-encode of the typed object leaves ------------------------------

_RESOURCE_KEYS = ("namespace", "verb", "group", "version", "resource", "subresource", "name")
_META_STRINGS = ("name", "generateName", "namespace")


def _strings(src: Mapping[str, Any], keys: tuple[str, ...]) -> dict[str, str]:
    """The non-empty string fields (every one is `omitempty` upstream); a non-string is a 400 at decode."""
    out: dict[str, str] = {}
    for k in keys:
        v = src.get(k)
        if v is None or v == "":
            continue
        if not isinstance(v, str):
            raise E.bad_request(f"unable to decode field {k}: expected a string, got {json.dumps(v)}")
        out[k] = v
    return out


def _obj(v: Any, what: str) -> dict[str, Any] | None:
    """A pointer-to-struct field: absent/null ⇒ None, an object ⇒ the dict (empty objects count as set)."""
    if v is None:
        return None
    if not isinstance(v, dict):
        raise E.bad_request(f"unable to decode field {what}: expected an object")
    return v


def _selector(v: Any, what: str) -> dict[str, Any] | None:
    sel = _obj(v, what)
    if sel is None:
        return None
    out: dict[str, Any] = _strings(sel, ("rawSelector",))
    if sel.get("requirements"):
        out["requirements"] = sel["requirements"]
    return out


def normalize_spec(spec: Mapping[str, Any], kind: ReviewKind) -> dict[str, Any]:
    """The spec with unknown and empty fields dropped (Go's typed decode + `omitempty` re-encode)."""
    out: dict[str, Any] = {}
    ra = _obj(spec.get("resourceAttributes"), "resourceAttributes")
    if ra is not None:
        attrs: dict[str, Any] = _strings(ra, _RESOURCE_KEYS)
        for key in ("fieldSelector", "labelSelector"):
            sel = _selector(ra.get(key), key)
            if sel is not None:
                attrs[key] = sel
        out["resourceAttributes"] = attrs
    nra = _obj(spec.get("nonResourceAttributes"), "nonResourceAttributes")
    if nra is not None:
        out["nonResourceAttributes"] = _strings(nra, ("path", "verb"))
    if not kind.self_review:
        out.update(_strings(spec, ("user",)))
        if spec.get("groups"):
            out["groups"] = [str(g) for g in spec["groups"]]
        if spec.get("extra"):
            out["extra"] = {str(k): [str(x) for x in (v or [])] for k, v in dict(spec["extra"]).items()}
        out.update(_strings(spec, ("uid",)))
    return out


def normalize_meta(meta: Mapping[str, Any]) -> dict[str, Any]:
    """ObjectMeta as the apiserver writes it back: only set fields, and `creationTimestamp: null`."""
    out: dict[str, Any] = _strings(meta, _META_STRINGS)
    out["creationTimestamp"] = None
    for key in ("labels", "annotations"):
        if meta.get(key):
            out[key] = {str(k): str(v) for k, v in dict(meta[key]).items()}
    return out


# ---- validation texts ------------------------------------------------------------------------------------

def _go_map(m: Mapping[str, str] | None) -> str:
    return sharp_v_string_map(m or None)  # (an empty map printed as nil, as this module always has)


def _go_non_resource(nra: Mapping[str, str]) -> str:
    """`%#v` of the internal `authorization.NonResourceAttributes` (no JSON tags: Go field names)."""
    return (f"authorization.NonResourceAttributes{{Path:{go_quote(nra.get('path', ''))}, "
            f"Verb:{go_quote(nra.get('verb', ''))}}}")


def _go_object_meta(meta: Mapping[str, Any]) -> str:
    """`%#v` of `metav1.ObjectMeta` for the fields a review body can carry (others are zero)."""
    return ("v1.ObjectMeta{" + ", ".join([
        f"Name:{go_quote(meta.get('name', ''))}", f"GenerateName:{go_quote(meta.get('generateName', ''))}",
        f"Namespace:{go_quote(meta.get('namespace', ''))}", 'SelfLink:""', 'UID:""', 'ResourceVersion:""',
        "Generation:0", "CreationTimestamp:time.Date(1, time.January, 1, 0, 0, 0, 0, time.UTC)",
        "DeletionTimestamp:<nil>", "DeletionGracePeriodSeconds:(*int64)(nil)",
        f"Labels:{_go_map(meta.get('labels'))}", f"Annotations:{_go_map(meta.get('annotations'))}",
        "OwnerReferences:[]v1.OwnerReference(nil)", "Finalizers:[]string(nil)",
        "ManagedFields:[]v1.ManagedFieldsEntry(nil)"]) + "}")


def _invalid_value(field: str, rendered: str, detail: str) -> E.FieldError:
    """`field.Invalid` whose bad value is already rendered (structs print with `%#v`, nil as `"null"`)."""
    return E.FieldError("FieldValueInvalid", field, f"Invalid value: {rendered}: {detail}")


def validate(kind: ReviewKind, spec: Mapping[str, Any], meta: Mapping[str, Any]) -> list[E.FieldError]:
    """`ValidateSelfSubjectAccessReview` / `ValidateSubjectAccessReview` / `ValidateLocalSubjectAccessReview`."""
    errs: list[E.FieldError] = []
    ra, nra = spec.get("resourceAttributes"), spec.get("nonResourceAttributes")
    if ra is not None and nra is not None:
        errs.append(_invalid_value("spec.nonResourceAttributes", _go_non_resource(nra),
                                   "cannot be specified in combination with resourceAttributes"))
    if ra is None and nra is None:
        errs.append(_invalid_value("spec.resourceAttributes", '"null"',
                                   "exactly one of nonResourceAttributes or resourceAttributes must be specified"))
    if not kind.self_review and not spec.get("user") and not spec.get("groups"):
        errs.append(E.field_invalid("spec.user", spec.get("user", ""), "at least one of user or group must be specified"))
    set_meta = {k: v for k, v in meta.items() if k != "creationTimestamp" and not (kind.namespaced and k == "namespace")}
    if set_meta:
        errs.append(_invalid_value("metadata", _go_object_meta(meta), "must be empty except for namespace"
                                   if kind.namespaced else "must be empty"))
    if kind.namespaced:
        if ra is not None and ra.get("namespace", "") != meta.get("namespace", ""):
            errs.append(E.field_invalid("spec.resourceAttributes.namespace", ra.get("namespace", ""),
                                        "must match metadata.namespace"))
        if nra is not None:
            errs.append(_invalid_value("spec.nonResourceAttributes", _go_non_resource(nra),
                                       "disallowed on this kind of request"))
    return errs


# ---- the review ------------------------------------------------------------------------------------------

def attributes_for(spec: Mapping[str, Any], user: UserInfo | None) -> Attributes:
    """`ResourceAttributesFrom` / `NonResourceAttributesFrom`."""
    ra = spec.get("resourceAttributes")
    if ra is not None:
        return Attributes(user=user, verb=ra.get("verb", ""), api_group=ra.get("group", ""),
                          resource=ra.get("resource", ""), subresource=ra.get("subresource", ""),
                          namespace=ra.get("namespace", ""), name=ra.get("name", ""), resource_request=True,
                          api_version=ra.get("version") or "*")
    nra = spec["nonResourceAttributes"]
    return Attributes(user=user, verb=nra.get("verb", ""), resource_request=False, path=nra.get("path", ""))


def subject_of(spec: Mapping[str, Any]) -> UserInfo:
    """`AuthorizationAttributesFrom`: the user named in a (Local)SubjectAccessReview spec."""
    extra = {k: tuple(v) for k, v in (spec.get("extra") or {}).items()}
    return UserInfo(name=spec.get("user", ""), uid=spec.get("uid", ""), groups=tuple(spec.get("groups") or ()),
                    extra=extra)


def review(kind: ReviewKind, body: Mapping[str, Any], requester: UserInfo | None, authorizer: Authorizer,
           namespace: str = "") -> dict[str, Any]:
    """Answer one review `body` (already decoded to a dict) for `requester`, asked at `namespace` (the path's,
    LocalSubjectAccessReview only). Raises the upstream 400/422 Status errors; returns the 201 body."""
    if kind.rules:
        return rules_review(kind, body, requester, authorizer)
    meta = normalize_meta(_obj(body.get("metadata"), "metadata") or {})
    spec = normalize_spec(_obj(body.get("spec"), "spec") or {}, kind)
    if kind.namespaced:  # the create handler defaults metadata.namespace from the path, refusing a mismatch
        if meta.get("namespace", namespace) != namespace:
            raise E.bad_request("the namespace of the provided object does not match the namespace sent on "
                                "the request")
        meta["namespace"] = namespace
    else:  # cluster-scoped: the create handler clears it (`EnsureObjectNamespaceMatchesRequestNamespace`)
        meta.pop("namespace", None)
    errs = validate(kind, spec, {k: v for k, v in meta.items() if v is not None})
    if errs:
        raise E.invalid(kind.kind, "", errs, GROUP)
    if kind.self_review:
        if requester is None and not isinstance(authorizer, AlwaysAllowAuthorizer):
            raise E.bad_request("no user present on request")
        subject = requester
    else:
        subject = subject_of(spec)
    allowed, reason = authorizer.authorize(attributes_for(spec, subject))
    status: dict[str, Any] = {"allowed": allowed}
    if reason:
        status["reason"] = reason
    return {"kind": kind.kind, "apiVersion": API_VERSION, "metadata": meta, "spec": spec, "status": status}


def rules_review(kind: ReviewKind, body: Mapping[str, Any], requester: UserInfo | None,
                 authorizer: Authorizer) -> dict[str, Any]:
    """SelfSubjectRulesReview `Create`: the requester's rules in `spec.namespace`.

    Upstream runs no validation and builds a new object with only `status` set, so the request's metadata
    and spec are not echoed (`metadata: {creationTimestamp: null}`, `spec: {}`). An authorizer that resolves
    no rules (none here, but upstream's union of zero resolvers) answers empty lists, complete."""
    _obj(body.get("metadata"), "metadata")  # still typed at decode: a non-object is a 400
    spec = _strings(_obj(body.get("spec"), "spec") or {}, ("namespace",))
    if requester is None and not isinstance(authorizer, AlwaysAllowAuthorizer):
        raise E.bad_request("no user present on request")
    if not spec.get("namespace"):
        raise E.bad_request("no namespace on request")
    rules = RuleSet()
    if isinstance(authorizer, RuleResolver):
        rules = authorizer.rules_for(requester or UserInfo(""), spec["namespace"])
    status: dict[str, Any] = {"resourceRules": rules.resource_rules, "nonResourceRules": rules.non_resource_rules,
                              "incomplete": rules.incomplete}
    if rules.evaluation_error:
        status["evaluationError"] = rules.evaluation_error
    return {"kind": kind.kind, "apiVersion": API_VERSION, "metadata": {"creationTimestamp": None}, "spec": {},
            "status": status}


__all__ = ["API_VERSION", "AlwaysAllowAuthorizer", "BY_PLURAL", "GROUP", "REVIEW_KINDS", "ReviewKind",
           "attributes_for", "review", "rules_review", "subject_of", "validate"]
