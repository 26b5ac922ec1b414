"""Query parameters and DeleteOptions parsing shared by the handlers. The query's values are converted as
upstream's parameter codec converts them (paramcodec.py: a bool is false only for `0`/`false`, an int64 is
`strconv.ParseInt` with its error a 400)."""
from __future__ import annotations

from typing import Any, Mapping

from multidict import MultiDict, MultiDictProxy

from .. import apierrors as E
from .. import paramcodec as C
from ..fieldmanager.manager import manager_or_user_agent, validate_manager
from ..registry import DeleteOptions, ListOptions

MAX_BODY = 3 * 1024 * 1024
NO_QUERY: MultiDictProxy[str] = MultiDictProxy(MultiDict())  # what `request.query` is without a query string


def truthy(value: str | None) -> bool:
    """A bool option's first value (`watch`): `Convert_Slice_string_To_bool` (None: absent)."""
    return C.go_bool(value)


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
    return fm, bool(C.optional_flag(query, "force"))


def field_validation(query: Mapping[str, str]) -> str:
    v = query.get("fieldValidation", "Warn") or "Warn"
    if v not in ("Strict", "Warn", "Ignore"):
        raise E.bad_request(f'fieldValidation must be one of "Ignore", "Warn", or "Strict", got "{v}"')
    return v


def list_options(query: Mapping[str, str], name: str = "") -> ListOptions:
    """ListOptions from the query (`Convert_url_Values_To_v1_ListOptions`: `timeoutSeconds` is decoded, so
    checked, before `limit`, even for a LIST); a single-object path implies `metadata.name=<name>` (NS-90)."""
    C.optional_int64(query, "timeoutSeconds")
    limit = C.optional_int64(query, "limit") or 0
    fs = query.get("fieldSelector", "")
    if name:
        implied = f"metadata.name={name}"
        if fs:
            terms = [t for t in fs.split(",") if t]
            for t in terms:
                if t.replace("==", "=").startswith("metadata.name=") and t.replace("==", "=") != implied:
                    raise E.bad_request("fieldSelector metadata.name doesn't match requested name")
            fs = ",".join(terms + [implied])
        else:
            fs = implied
    return ListOptions(label_selector=query.get("labelSelector", ""), field_selector=fs, limit=limit,
                       continue_token=query.get("continue", ""), resource_version=query.get("resourceVersion", ""),
                       resource_version_match=query.get("resourceVersionMatch", ""),
                       send_initial_events=C.optional_flag(query, "sendInitialEvents"))


def _bool_opt(v: Any, field: str) -> bool | None:
    """A body's `orphanDependents` (a JSON bool; anything else refused as before)."""
    if v is None or isinstance(v, bool):
        return v
    raise E.bad_request(f'invalid value for {field}: "{v}"')


def _query_delete_options(query: Mapping[str, str]) -> dict[str, Any]:
    """`Convert_url_Values_To_v1_DeleteOptions`: gracePeriodSeconds (`*int64`, its ParseInt error a 400),
    orphanDependents (`*bool`: any value but `0`/`false` is true), propagationPolicy (as given)."""
    src: dict[str, Any] = {}
    grace = C.optional_int64(query, "gracePeriodSeconds")
    if grace is not None:
        src["gracePeriodSeconds"] = grace
    orphan = C.optional_flag(query, "orphanDependents")
    if orphan is not None:
        src["orphanDependents"] = orphan
    pp = C.first(query, "propagationPolicy")
    if pp is not None:
        src["propagationPolicy"] = pp
    return src


def delete_options(body: dict[str, Any] | None, query: Mapping[str, str], query_dry_run: list[str]) -> DeleteOptions:
    """DeleteOptions from a JSON body, else from the query (NS-57), validated like upstream."""
    src: dict[str, Any] = dict(body) if body is not None else _query_delete_options(query)
    dr = src.get("dryRun")
    dr_list = (dr if isinstance(dr, list) else [dr]) if dr is not None else []
    dr_list = [str(x) for x in dr_list] + list(query_dry_run)
    grace = src.get("gracePeriodSeconds")
    if grace is not None:  # (a query's is an int64 already; a body's is checked here)
        try:
            grace = int(grace)
            if not -(1 << 63) <= grace < (1 << 63):
                raise ValueError
        except (TypeError, ValueError):
            raise E.bad_request(f'invalid value for gracePeriodSeconds: "{src.get("gracePeriodSeconds")}"') from None
    # `ValidateDeleteOptions`, in its order
    errs: list[E.FieldError] = []
    pp = src.get("propagationPolicy")
    orphan = _bool_opt(src.get("orphanDependents"), "orphanDependents")
    if orphan is not None and pp is not None:
        errs.append(E.field_invalid("propagationPolicy", pp,
                                    "orphanDependents and deletionPropagation cannot be both set"))
    if pp is not None and pp not in ("Orphan", "Background", "Foreground"):
        errs.append(E.field_not_supported("propagationPolicy", pp, ["Foreground", "Background", "Orphan", "nil"]))
    bad = [v for v in dr_list if v and v != "All"]
    if bad:
        errs.append(E.field_not_supported("dryRun", bad, ["All"]))
    if errs:
        raise E.invalid("DeleteOptions", "", errs, group="meta.k8s.io")
    pre = src.get("preconditions") or {}
    if not isinstance(pre, dict):
        raise E.bad_request("preconditions must be an object")
    return DeleteOptions(dry_run=bool(dr_list), propagation_policy=pp, orphan_dependents=orphan,
                         uid=pre.get("uid"), resource_version=pre.get("resourceVersion"),
                         grace_period_seconds=grace)
