"""Custom resources' `/scale` subresource, for a CRD version whose `subresources.scale` is set.

Follows `ScaleREST` of `staging/src/k8s.io/apiextensions-apiserver/pkg/registry/customresource/etcd.go`: the
autoscaling/v1 Scale is built by `scaleFromCustomResource` (`spec.replicas` from `specReplicasPath`,
`status.replicas` from `statusReplicasPath`, `status.selector` from `labelSelectorPath`; an absent value reads
as 0 or ""; a value of another type fails with `unstructured.NestedInt64`'s accessor error, which upstream returns
unwrapped: a 500 without a reason); GET of an object without the spec path answers 500 InternalError
`the spec replicas field "<path>" does not exist`; an update starts from a Scale whose replicas are int32's least
value when the path is absent (`scaleUpdatedObjectInfo.UpdatedObject`), so a patch that leaves them answers 400
`the spec replicas field "<path>" cannot be empty`, and writes the new replicas at the path
(`unstructured.SetNestedField`), taking the Scale's resourceVersion as a precondition when it has one. There is
no `ValidateScale` and no UID precondition here (unlike apps' ScaleREST): the CR's own strategy and schema then
validate the object. managedFields map between Scale and CR by the CRD's versions' paths
(`customresource_handler.go`'s `replicasPathInCustomResource`; fieldmanager/scale.py).

Every write of such a custom resource checks the paths (`customResourceValidator.ValidateScaleSpec` and
`ValidateScaleStatus`, `customresource/validator.go`; `/status` the status paths only), and a CRD's
`subresources.scale` is validated as `ValidateCustomResourceDefinitionSubresources` (`apis/apiextensions/
validation/validation.go`) does.
"""
from __future__ import annotations

from typing import Any

from .. import apierrors as E
from ..fieldmanager.scale import Mapping
from ..goport.gofmt import go_type as _go_type
from ..goport.gofmt import plain_v as _go_v
from .subresources import SCALE_API_VERSION, SCALE_KIND

INVALID_SPEC_REPLICAS = -2147483648  # `invalidSpecReplicas`: the smallest int32, "not set before"


class AccessorError(Exception):
    """`unstructured.Nested*`'s error: a plain Go error, which the handlers answer as a 500 without reason."""


def split_path(path: str) -> list[str]:
    """`splitReplicasPath`: the path split at periods, a leading period ignored."""
    return path[1:].split(".") if path.startswith(".") else path.split(".")


def _json_path(fields: list[str]) -> str:
    return "." + ".".join(fields)


def nested(obj: dict[str, Any], fields: list[str], want: type, want_name: str) -> tuple[Any, bool]:
    """`unstructured.NestedInt64` / `NestedString`: (value, found); AccessorError for another type."""
    val: Any = obj
    for i, f in enumerate(fields):
        if val is None:
            return None, False
        if not isinstance(val, dict):
            raise AccessorError(f"{_json_path(fields[:i + 1])} accessor error: {_go_v(val)} is of the type "
                                f"{_go_type(val)}, expected map[string]interface{{}}")
        if f not in val:
            return None, False
        val = val[f]
    if not isinstance(val, want) or isinstance(val, bool):
        raise AccessorError(f"{_json_path(fields)} accessor error: {_go_v(val)} is of the type {_go_type(val)}, "
                            f"expected {want_name}")
    return val, True


def _int32(v: int) -> int:
    """Go's `int32(v)` of an int64: wraps."""
    return (v + 2**31) % 2**32 - 2**31


def set_nested(obj: dict[str, Any], value: Any, fields: list[str]) -> None:
    """`unstructured.SetNestedField`: missing maps are made; a non-map on the way is a plain error (a 500)."""
    m = obj
    for i, f in enumerate(fields[:-1]):
        if f in m:
            if not isinstance(m[f], dict):
                raise AccessorError(f"value cannot be set because {_json_path(fields[:i + 1])} is not a "
                                    f"map[string]interface{{}}")
            m = m[f]
        else:
            m[f] = {}
            m = m[f]
    m[fields[-1]] = value


def unknown_error(err: Exception) -> E.StatusError:
    """`ErrorToAPIStatus` of an error that is not a Status: 500, no reason, the error's text."""
    return E.StatusError(E.status_dict(500, None, str(err)))


class CustomScale:
    """One CRD version's scale paths (`subresources.scale`), as the scale model `scale_update` and the HTTP
    layer use (registry/subresources.py's `BuiltinScale` is apps')."""

    # etcd.go `scaleUpdatedObjectInfo`: the Scale's resourceVersion is set on the object only when it has one
    # (the stored one otherwise, as a custom resource's update needs one)
    keeps_parent_version = True

    def __init__(self, scale: dict[str, Any], api_version: str, mapping: Mapping):
        self.spec_path = str(scale.get("specReplicasPath") or "")
        self.status_path = str(scale.get("statusReplicasPath") or "")
        self.selector_path = str(scale.get("labelSelectorPath") or "")
        self.parent_version, self.mapping = api_version, mapping

    def read(self, cr: dict[str, Any]) -> tuple[dict[str, Any], bool]:
        """`scaleFromCustomResource`: the Scale and whether the spec replicas were found."""
        spec, found = nested(cr, split_path(self.spec_path), int, "int64")
        status, _ = nested(cr, split_path(self.status_path), int, "int64")
        selector = ""
        if self.selector_path:
            selector = nested(cr, split_path(self.selector_path), str, "string")[0] or ""
        meta = cr.get("metadata") or {}
        smeta = {k: meta[k] for k in ("name", "namespace", "uid", "resourceVersion", "creationTimestamp")
                 if meta.get(k)}
        replicas = _int32(spec or 0)
        out_status: dict[str, Any] = {"replicas": _int32(status or 0)}
        if selector:
            out_status["selector"] = selector
        return {"kind": SCALE_KIND, "apiVersion": SCALE_API_VERSION, "metadata": smeta,
                "spec": {"replicas": replicas} if replicas else {}, "status": out_status}, found

    def _read(self, cr: dict[str, Any]) -> tuple[dict[str, Any], bool]:
        try:
            return self.read(cr)
        except AccessorError as exc:
            raise unknown_error(exc) from None

    def view(self, cr: dict[str, Any]) -> dict[str, Any]:
        """The Scale admission sees (`toScaleUpdateValidation`: absent replicas read as 0)."""
        return self._read(cr)[0]

    def scale_of(self, cr: dict[str, Any]) -> dict[str, Any]:
        """`ScaleREST.Get`."""
        scale, found = self._read(cr)
        if not found:
            raise E.internal(f'the spec replicas field "{self.spec_path}" does not exist')
        return scale

    def old_scale(self, cr: dict[str, Any]) -> dict[str, Any]:
        """The Scale an update starts from; replicas int32's least value when the path is absent."""
        scale, found = self._read(cr)
        if not found:
            scale["spec"]["replicas"] = INVALID_SPEC_REPLICAS
        return scale

    def answer(self, cr: dict[str, Any]) -> dict[str, Any]:
        """`ScaleREST.Update`'s answer: the stored object's Scale, a 400 when it cannot be read."""
        try:
            return self.read(cr)[0]
        except AccessorError as exc:
            raise E.bad_request(str(exc)) from None

    def write(self, current: dict[str, Any], scale: dict[str, Any], resource: str, group: str) -> None:
        """The new Scale's replicas at the spec path (the rest of `UpdatedObject`)."""
        replicas = (scale.get("spec") or {}).get("replicas") or 0
        if replicas == INVALID_SPEC_REPLICAS:
            raise E.bad_request(f'the spec replicas field "{self.spec_path}" cannot be empty')
        try:
            set_nested(current, replicas, split_path(self.spec_path))
        except AccessorError as exc:
            raise unknown_error(exc) from None


    def validate(self, obj: dict[str, Any], *, spec: bool = True) -> list[E.FieldError]:
        """`customResourceValidator.ValidateScaleSpec` (`spec`) and `ValidateScaleStatus` (customresource/
        validator.go), run on every write of the custom resource: each path, when present, an int32 (the selector
        a string); the field is the path as written in the CRD."""
        errs: list[E.FieldError] = []
        paths = ([self.spec_path] if spec else []) + [self.status_path]
        for path in paths:
            try:
                value, _ = nested(obj, split_path(path), int, "int64")
            except AccessorError as exc:
                errs.append(E.field_invalid(path, 0, str(exc)))
                continue
            if value is not None and value < 0:
                errs.append(E.field_invalid(path, value, "should be a non-negative integer"))
            elif value is not None and value > 2**31 - 1:
                errs.append(E.field_invalid(path, value, f"should be less than or equal to {2**31 - 1}"))
        if self.selector_path:
            try:
                nested(obj, split_path(self.selector_path), str, "string")
            except AccessorError as exc:
                errs.append(E.field_invalid(self.selector_path, "", str(exc)))
        return errs


def scale_model(crd: dict[str, Any], version: dict[str, Any]) -> CustomScale | None:
    """The scale model of one version of `crd`, None when that version has no scale subresource."""
    scale = (version.get("subresources") or {}).get("scale")
    if not isinstance(scale, dict):
        return None
    spec = crd.get("spec") or {}
    group = spec.get("group", "")
    return CustomScale(scale, f"{group}/{version.get('name', '')}", path_mapping(crd))


def path_mapping(crd: dict[str, Any]) -> Mapping:
    """`replicasPathInCustomResource`: each version's replicas path in managedFields' form (None without scale)."""
    spec = crd.get("spec") or {}
    out: Mapping = {}
    for v in spec.get("versions") or []:
        if not isinstance(v, dict):
            continue
        scale = (v.get("subresources") or {}).get("scale")
        path = scale.get("specReplicasPath") if isinstance(scale, dict) else None
        out[f"{spec.get('group', '')}/{v.get('name', '')}"] = (
            tuple(f"f:{p}" for p in split_path(path)) if isinstance(path, str) and path else None)
    return out


def _simple_json_path(path: str, fld: str) -> list[E.FieldError]:
    """`validateSimpleJSONPath`."""
    if not path:
        return [E.field_invalid(fld, path, "must not be empty")]
    if path[0] != ".":
        return [E.field_invalid(fld, path, "must be a simple json path starting with .")]
    return []


def validate_subresources(subresources: Any, fld: str) -> list[E.FieldError]:
    """`ValidateCustomResourceDefinitionSubresources`' scale rules (`fld`: `spec.versions[i].subresources`): the
    replicas paths required, simple JSON paths under `.spec.` / `.status.`, the selector path under `.status.`."""
    scale = subresources.get("scale") if isinstance(subresources, dict) else None
    if not isinstance(scale, dict):
        return []
    errs: list[E.FieldError] = []
    for key, under in (("specReplicasPath", ".spec."), ("statusReplicasPath", ".status."),
                       ("labelSelectorPath", ".status.")):
        path, where = scale.get(key), f"{fld}.scale.{key}"
        if not isinstance(path, str) or not path:
            if key != "labelSelectorPath":
                errs.append(E.field_required(where, ""))
            continue
        found = _simple_json_path(path, where)
        if not found and not path.startswith(under):
            found = [E.field_invalid(where, path, f"should be a json path under {under.rstrip('.')}")]
        errs += found
    return errs
