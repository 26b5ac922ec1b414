"""ConfigMaps' and Secrets' own checks: keys, total size, a Secret's type-specific keys, `immutable`.

Upstream: pkg/apis/core/validation/validation.go `ValidateConfigMap`/`ValidateConfigMapUpdate` and
`ValidateSecret`/`ValidateSecretUpdate` (1.33), `IsConfigMapKey` (apimachinery util/validation). Each update is
`ValidateObjectMetaUpdate`, the update's own checks (`type`, `immutable`, `data`), then `ValidateX` (its
`ValidateObjectMeta`, then the content): `update_meta_calls` `UCMV` (registry/updatemeta.py). Go ranges over the
data maps in random order; their keys' errors come here in the body's order.
"""
from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from ..apierrors import FieldError, field_forbidden, field_invalid, field_required
from ..goport.gonet.strconv import to_bytes
from ..wire import gojson
from .podvalidation.fields import config_map_key_errors
from .shapes import as_dict
from .strategy import Strategy

MAX_SECRET_SIZE = 1024 * 1024  # core.MaxSecretSize (a ConfigMap's limit too)
IMMUTABLE = "field is immutable when `immutable` is set"
SA_NAME_KEY = "kubernetes.io/service-account.name"  # core.ServiceAccountNameKey
REDACTED = "<secret contents redacted>"


def _too_long(path: str) -> FieldError:
    """`field.TooLong(path, "", MaxSecretSize)`: no value printed."""
    return FieldError("FieldValueTooLong", path, f"Too long: may not be more than {MAX_SECRET_SIZE} bytes")


def _decoded(value: Any) -> bytes:
    """A `[]byte` value (canonical base64 once decoded: registry/strategy.py)."""
    try:
        return base64.b64decode(value) if isinstance(value, str) else b""
    except (binascii.Error, ValueError):
        return b""


def _key_errors(path: str, key: str) -> list[FieldError]:
    return [field_invalid(f"{path}[{key}]", key, m) for m in config_map_key_errors(key)]


def config_map_errors(obj: dict[str, Any]) -> list[FieldError]:
    """`ValidateConfigMap` after its `ValidateObjectMeta`: each key of `data` (and one also in `binaryData`), then
    of `binaryData`, then the total size (at the empty path: `field.NewPath("")`)."""
    data, binary = as_dict(obj.get("data")), as_dict(obj.get("binaryData"))
    errs: list[FieldError] = []
    size = 0
    for key, value in data.items():
        errs += _key_errors("data", key)
        if key in binary:
            errs.append(field_invalid(f"data[{key}]", key, "duplicate of key present in binaryData"))
        size += len(to_bytes(value)) if isinstance(value, str) else 0
    for key, value in binary.items():
        errs += _key_errors("binaryData", key)
        size += len(_decoded(value))
    if size > MAX_SECRET_SIZE:
        errs.append(_too_long(""))
    return errs


def _json_map_error(raw: bytes) -> str | None:
    """`json.Unmarshal(raw, &map[string]interface{}{})`'s error: Go's syntax error, or the top value's type."""
    why = gojson.syntax_error(raw)
    if why is not None:
        return why
    value = json.loads(raw.decode("utf-8", "replace"))
    if value is None or isinstance(value, dict):
        return None
    word = ("bool" if isinstance(value, bool) else "number" if isinstance(value, (int, float))
            else "string" if isinstance(value, str) else "array")  # (`UnmarshalTypeError`: no number's literal)
    return f"json: cannot unmarshal {word} into Go value of type map[string]interface {{}}"


def _type_errors(secret: dict[str, Any], data: dict[str, Any]) -> list[FieldError]:
    """`ValidateSecret`'s switch on the type: the keys each built-in type needs."""
    typ = secret.get("type") or ""
    if typ == "kubernetes.io/service-account-token":
        annotations = as_dict(as_dict(secret.get("metadata")).get("annotations"))
        if not annotations.get(SA_NAME_KEY):
            return [field_required(f"metadata.annotations[{SA_NAME_KEY}]")]
    elif typ in ("kubernetes.io/dockercfg", "kubernetes.io/dockerconfigjson"):
        key = ".dockercfg" if typ == "kubernetes.io/dockercfg" else ".dockerconfigjson"
        if key not in data:
            return [field_required(f"data[{key}]")]
        why = _json_map_error(_decoded(data[key]))
        if why is not None:
            return [field_invalid(f"data[{key}]", REDACTED, why)]
    elif typ == "kubernetes.io/basic-auth":
        if "username" not in data and "password" not in data:
            return [field_required("data[username]"), field_required("data[password]")]
    elif typ == "kubernetes.io/ssh-auth":
        if not _decoded(data.get("ssh-privatekey")):
            return [field_required("data[ssh-privatekey]")]
    elif typ == "kubernetes.io/tls":
        return [field_required(f"data[{k}]") for k in ("tls.crt", "tls.key") if k not in data]
    return []


def secret_errors(obj: dict[str, Any]) -> list[FieldError]:
    """`ValidateSecret` after its `ValidateObjectMeta`: each key, the total size (at `data`), then the type's."""
    data = as_dict(obj.get("data"))
    errs: list[FieldError] = []
    size = 0
    for key, value in data.items():
        errs += _key_errors("data", key)
        size += len(_decoded(value))
    if size > MAX_SECRET_SIZE:
        errs.append(_too_long("data"))
    return errs + _type_errors(obj, data)


def _held(obj: dict[str, Any], field: str) -> Any:
    """A map as Go holds it: nil when absent or null (an empty one read from storage too: `old` is stored)."""
    value = obj.get(field)
    return value if isinstance(value, dict) else None


def immutable_errors(new: dict[str, Any], old: dict[str, Any], fields: tuple[str, ...]) -> list[FieldError]:
    """Once `immutable` is true: it stays true and `fields` do not change (`reflect.DeepEqual`: a nil map and an
    empty one differ; the stored object's empty map is nil)."""
    if old.get("immutable") is not True:
        return []
    errs = [] if new.get("immutable") is True else [field_forbidden("immutable", IMMUTABLE)]
    for field in fields:
        if _held(new, field) != (_held(old, field) or None):
            errs.append(field_forbidden(field, IMMUTABLE))
    return errs


class ConfigMapStrategy(Strategy):
    """`configMapStrategy`: `ValidateConfigMap`, `ValidateConfigMapUpdate`."""

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return super().validate(obj) + config_map_errors(obj)

    def update_checks(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return immutable_errors(new, old, ("data", "binaryData"))

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return super().validate_update(new, old) + self.update_checks(new, old) + config_map_errors(new)


class SecretStrategy(Strategy):
    """`secretStrategy`: `ValidateSecret`, `ValidateSecretUpdate` (its `type` immutable; `stringData` was merged
    into `data` when the body was read)."""

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return super().validate(obj) + secret_errors(obj)

    def update_checks(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        errs = []
        if (new.get("type") or "") != (old.get("type") or ""):  # `ValidateImmutableField`
            errs.append(field_invalid("type", new.get("type") or "", "field is immutable"))
        return errs + immutable_errors(new, old, ("data",))

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return super().validate_update(new, old) + self.update_checks(new, old) + secret_errors(new)


__all__ = ["MAX_SECRET_SIZE", "ConfigMapStrategy", "SecretStrategy", "config_map_errors", "immutable_errors",
           "secret_errors"]
