"""Query parameters and DeleteOptions parsing shared by the handlers."""
from __future__ import annotations

from typing import Any, Mapping

from multidict import MultiDict, MultiDictProxy

from .. import apierrors as E
from ..fieldmanager.manager import manager_or_user_agent, validate_manager
from ..registry import DeleteOptions, ListOptions, fieldselector
from ..registry.labelselector import SelectorSyntaxError

MAX_BODY = 3 * 1024 * 1024
NO_QUERY: MultiDictProxy[str] = MultiDictProxy(MultiDict())  # what `request.query` is without a query string


def truthy(value: str | None) -> bool:
    return (value or "").lower() in ("true", "1")


def dry_run(values: list[str]) -> bool:
    """`dryRun=All` ⇒ True; anything else ⇒ 422 as upstream's option validation."""
    values = [v for v in values if v != ""]
    bad = [v for v in values if v != "All"]
    if bad:
        raise E.invalid("CreateOptions", "", [E.field_not_supported("dryRun", bad, ["All"])], group="meta.k8s.io")
    return bool(values)


def field_manager(query: Mapping[str, str], user_agent: str | None, options_kind: str = "CreateOptions") -> str:
    """The manager of a create/update/non-apply patch (`managerOrUserAgent`), after `ValidateFieldManager`
    (422 `<options_kind>.meta.k8s.io "" is invalid`)."""
    fm = query.get("fieldManager") or ""
    errs = validate_manager(fm)
    if errs:
        raise E.invalid(options_kind, "", errs, group="meta.k8s.io")
    return manager_or_user_agent(fm, user_agent) or "unknown"


def patch_options(query: Mapping[str, str], apply: bool) -> tuple[str, bool]:
    """`ValidatePatchOptions`: `force` only with apply, `fieldManager` required by apply; (manager, force)."""
    fm = query.get("fieldManager") or ""
    errs: list[E.FieldError] = []
    if not apply and "force" in query:
        errs.append(E.field_forbidden("force", "may not be specified for non-apply patch"))
    if apply and not fm:
        errs.append(E.field_required("fieldManager", "is required for apply patch"))
    errs += validate_manager(fm)
    if errs:
        raise E.invalid("PatchOptions", "", errs, group="meta.k8s.io")
    force = (query.get("force") or "") in ("1", "t", "T", "TRUE", "true", "True")
    return fm, force


def field_validation(query: Mapping[str, str]) -> str:
    v = query.get("fieldValidation", "Warn") or "Warn"
    if v not in ("Strict", "Warn", "Ignore"):
        raise E.bad_request(f'fieldValidation must be one of "Ignore", "Warn", or "Strict", got "{v}"')
    return v


def named_field_selector(fs: str, name: str) -> str:
    """get.go `ListResource` for a path naming one object: an empty field selector becomes
    `metadata.name=<name>`; any other must pin that name (`RequiresExactMatch`: its first `=`/`==` term on
    `metadata.name` in the parsed, sorted order), else 400. A selector that does not parse is left for the store
    to refuse with the parser's words, which upstream sends first."""
    try:
        terms = fieldselector.parse(fs)
    except SelectorSyntaxError:
        return fs
    if not terms:
        return f"metadata.name={name}"
    pinned = next((t.value for t in terms if t.field == "metadata.name" and t.op == "="), None)
    if pinned != name:
        raise E.bad_request("fieldSelector metadata.name doesn't match requested name")
    return fs


def list_options(query: Mapping[str, str], name: str = "") -> ListOptions:
    """ListOptions from the query; a single-object path implies `metadata.name=<name>` (NS-90)."""
    fs = query.get("fieldSelector", "")
    if name:
        fs = named_field_selector(fs, name)
    limit_s = query.get("limit", "")
    try:
        limit = int(limit_s) if limit_s else 0
    except ValueError:
        raise E.bad_request(f'invalid value for limit: "{limit_s}"') from None
    return ListOptions(label_selector=query.get("labelSelector", ""), field_selector=fs, limit=limit,
                       continue_token=query.get("continue", ""), resource_version=query.get("resourceVersion", ""),
                       resource_version_match=query.get("resourceVersionMatch", ""))


def _bool_opt(v: Any, field: str) -> bool | None:
    if v is None:
        return None
    if isinstance(v, bool):
        return v
    if isinstance(v, str) and v.lower() in ("true", "false", "1", "0"):
        return v.lower() in ("true", "1")
    raise E.bad_request(f'invalid value for {field}: "{v}"')


def delete_options(body: dict[str, Any] | None, query: Mapping[str, str], query_dry_run: list[str]) -> DeleteOptions:
    """DeleteOptions from a JSON body, else from the query (NS-57), validated like upstream."""
    src: dict[str, Any] = dict(body or {})
    if body is None:
        for k in ("propagationPolicy", "gracePeriodSeconds", "orphanDependents"):
            if k in query:
                src[k] = query[k]
    dr = src.get("dryRun")
    dr_list = (dr if isinstance(dr, list) else [dr]) if dr is not None else []
    dr_list = [str(x) for x in dr_list] + list(query_dry_run)
    errs: list[E.FieldError] = []
    bad = [v for v in dr_list if v and v != "All"]
    if bad:
        errs.append(E.field_not_supported("dryRun", bad, ["All"]))
    pp = src.get("propagationPolicy")
    if pp is not None and pp not in ("Orphan", "Background", "Foreground"):
        errs.append(E.field_not_supported("propagationPolicy", pp, ["Foreground", "Background", "Orphan"]))
    orphan = _bool_opt(src.get("orphanDependents"), "orphanDependents")
    if orphan is not None and pp is not None:
        errs.append(E.field_invalid("propagationPolicy", pp,
                                    "orphanDependents and deletionPropagation cannot be both set"))
    grace = src.get("gracePeriodSeconds")
    if grace is not None:
        try:
            grace = int(grace)
            if not -(1 << 63) <= grace < (1 << 63):  # an int64, as upstream decodes it
                raise ValueError
        except (TypeError, ValueError):
            raise E.bad_request(f'invalid value for gracePeriodSeconds: "{src.get("gracePeriodSeconds")}"') from None
    if errs:
        raise E.invalid("DeleteOptions", "", errs, group="meta.k8s.io")
    pre = src.get("preconditions") or {}
    if not isinstance(pre, dict):
        raise E.bad_request("preconditions must be an object")
    return DeleteOptions(dry_run=bool(dr_list), propagation_policy=pp, orphan_dependents=orphan,
                         uid=pre.get("uid"), resource_version=pre.get("resourceVersion"),
                         grace_period_seconds=grace)
