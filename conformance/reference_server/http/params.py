"""Query parameters and DeleteOptions parsing shared by the handlers. The query's values are converted as
upstream's parameter codec converts them (paramcodec.py: a bool is false only for `0`/`false`, an int64 is
`strconv.ParseInt` with its error a 400)."""
from __future__ import annotations

from typing import Any, Mapping

from .. import apierrors as E
from .. import paramcodec as C
from ..fieldmanager.manager import manager_or_user_agent, validate_manager
from ..registry import DeleteOptions, ListOptions, fieldselector
from ..registry.labelselector import SelectorSyntaxError
from . import goquery

MAX_BODY = 3 * 1024 * 1024
NO_QUERY = goquery.NO_QUERY  # what `request.query` is without a query string (or with nothing Go reads in it)


def truthy(value: str | None) -> bool:
    """A bool option's first value (`watch`): `Convert_Slice_string_To_bool` (None: absent)."""
    return C.go_bool(value)


_FIELD_VALIDATION = ("", "Ignore", "Strict", "Warn")  # `allowedFieldValidationValues.List()`, sorted


def _dry_run_errors(values: list[str]) -> list[E.FieldError]:
    """`ValidateDryRun`: every value `All`, else NotSupported with the whole `[]string` (`dryRun=` too)."""
    if any(v != "All" for v in values):
        return [E.field_not_supported("dryRun", list(values), ["All"])]
    return []


def _write_option_errors(query: Mapping[str, str], dry_run_values: list[str]) -> list[E.FieldError]:
    """`ValidateCreateOptions` / `ValidateUpdateOptions` (and the tail of `ValidatePatchOptions`), in their order:
    fieldManager, dryRun, fieldValidation (apimachinery meta/v1/validation/validation.go)."""
    errs = validate_manager(query.get("fieldManager") or "") + _dry_run_errors(dry_run_values)
    fv = query.get("fieldValidation") or ""
    if fv not in _FIELD_VALIDATION:
        errs.append(E.field_not_supported("fieldValidation", fv, _FIELD_VALIDATION))
    return errs


def dry_run(values: list[str], options_kind: str = "CreateOptions") -> bool:
    """`dryRun=All` ⇒ True; any other value ⇒ 422 as upstream's option validation (`dryrun.IsDryRun`: any value)."""
    errs = _dry_run_errors(values)
    if errs:
        raise E.invalid(options_kind, "", errs, group="meta.k8s.io")
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
    """`ValidatePatchOptions`: `force` only with apply, `fieldManager` required by apply, then the write options'
    checks; (manager, force)."""
    fm = query.get("fieldManager") or ""
    errs: list[E.FieldError] = []
    if not apply and "force" in query:
        errs.append(E.field_forbidden("force", "may not be specified for non-apply patch"))
    if apply and not fm:
        errs.append(E.field_required("fieldManager", "is required for apply patch"))
    errs += _write_option_errors(query, list(query.getall("dryRun", [])) if hasattr(query, "getall") else [])
    if errs:
        raise E.invalid("PatchOptions", "", errs, group="meta.k8s.io")
    return fm, bool(C.optional_flag(query, "force"))


def field_validation(query: Mapping[str, str], options_kind: str = "CreateOptions") -> str:
    """The `fieldValidation` directive (`Warn` unless set), once the request's write options are valid: a create's
    or update's handler validates them all (`Validate<options_kind>`, one 422) before it decodes the body."""
    errs = _write_option_errors(query, list(query.getall("dryRun", [])) if hasattr(query, "getall") else [])
    if errs:
        raise E.invalid(options_kind, "", errs, group="meta.k8s.io")
    return query.get("fieldValidation") or "Warn"


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
    """ListOptions from the query (`Convert_url_Values_To_v1_ListOptions`: `timeoutSeconds` is decoded, so
    checked, before `limit`, even for a LIST); a single-object path implies `metadata.name=<name>` (NS-90)."""
    C.optional_int64(query, "timeoutSeconds")
    limit = C.optional_int64(query, "limit") or 0
    fs = query.get("fieldSelector", "")
    if name:
        fs = named_field_selector(fs, name)
    return ListOptions(label_selector=query.get("labelSelector", ""), field_selector=fs, limit=limit,
                       continue_token=query.get("continue", ""), resource_version=query.get("resourceVersion", ""),
                       resource_version_match=query.get("resourceVersionMatch", ""),
                       send_initial_events=C.optional_flag(query, "sendInitialEvents"))


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
    """The options of a body (http/deleteoptions.py: its fields of Go's types already), else of the query and its
    `dryRun` (delete.go reads one or the other, never both), validated as `ValidateDeleteOptions`."""
    src: dict[str, Any] = body if body is not None else _query_delete_options(query)
    dr_list = list(src.get("dryRun") or []) if body is not None else list(query_dry_run)
    # `ValidateDeleteOptions`, in its order
    errs: list[E.FieldError] = []
    pp = src.get("propagationPolicy")
    orphan = src.get("orphanDependents")
    if orphan is not None and pp is not None:
        errs.append(E.field_invalid("propagationPolicy", pp,
                                    "orphanDependents and deletionPropagation cannot be both set"))
    if pp is not None and pp not in ("Orphan", "Background", "Foreground"):
        errs.append(E.field_not_supported("propagationPolicy", pp, ["Foreground", "Background", "Orphan", "nil"]))
    errs += _dry_run_errors(dr_list)
    if errs:
        raise E.invalid("DeleteOptions", "", errs, group="meta.k8s.io")
    pre = src.get("preconditions") or {}
    return DeleteOptions(dry_run=bool(dr_list), propagation_policy=pp, orphan_dependents=orphan,
                         uid=pre.get("uid"), resource_version=pre.get("resourceVersion"),
                         grace_period_seconds=src.get("gracePeriodSeconds"))
