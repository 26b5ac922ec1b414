"""Status errors with the exact texts of apimachinery `pkg/api/errors/errors.go` (catalogue NS-01..NS-04).

Every layer raises `StatusError`; only the http layer turns it into a response, so the envelope is built
in one place and matches upstream byte for byte.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from .goport.gofmt import format_float, go_quote, sharp_v, sharp_v_string_map, sharp_v_strings


class GoPanic(Exception):
    """Where kube-apiserver's handler panics (its `WithPanicRecovery` answers the plain-text 500: http/app.py):
    not a bug of this server, so logged without a traceback."""


class StatusError(Exception):
    """An error that is answered with a `Status` object (`status` is the full JSON-ready dict)."""

    def __init__(self, status: dict[str, Any]):
        super().__init__(status.get("message", ""))
        self.status = status

    @property
    def code(self) -> int:
        return int(self.status.get("code", 500))

    @property
    def reason(self) -> str:
        return self.status.get("reason", "")

    @property
    def message(self) -> str:
        return self.status.get("message", "")


class RetriedStatusError(StatusError):
    """A refusal upstream retries inside the request before answering it (`attempts` tries, `interval` s
    apart; e.g. the ServiceAccount plugin's live look-ups of `default`). Nothing was stored: the HTTP layer
    awaits `interval` (never blocking the event loop) and runs the write again, then answers `status`."""

    def __init__(self, status: dict[str, Any], attempts: int, interval: float):
        super().__init__(status)
        self.attempts, self.interval = attempts, interval


def status_dict(code: int, reason: str | None, message: str, details: dict | None = None) -> dict[str, Any]:
    """Build a Failure Status the way `ErrorToAPIStatus` serialises it (omitempty fields left out)."""
    st: dict[str, Any] = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure"}
    if message:
        st["message"] = message
    if reason:
        st["reason"] = reason
    if details is not None:
        st["details"] = details
    st["code"] = code
    return st


def _details(name: str, group: str, kind: str, **extra: Any) -> dict[str, Any]:
    d: dict[str, Any] = {}
    if name:
        d["name"] = name
    if group:
        d["group"] = group
    if kind:
        d["kind"] = kind
    d.update({k: v for k, v in extra.items() if v})
    return d


def _qualified(resource: str, group: str = "") -> str:
    return f"{resource}.{group}" if group else resource


def not_found(resource: str, name: str, group: str = "") -> StatusError:
    return StatusError(status_dict(404, "NotFound", f"{_qualified(resource, group)} {go_quote(name)} not found",
                                   _details(name, group, resource)))


def already_exists(resource: str, name: str, group: str = "", *, being_deleted: bool = False) -> StatusError:
    msg = f"{_qualified(resource, group)} {go_quote(name)} already exists"
    if being_deleted:
        msg = f"object is being deleted: {msg}"
    return StatusError(status_dict(409, "AlreadyExists", msg, _details(name, group, resource)))


def generate_name_conflict(resource: str, name: str, retry_after: int = 1, group: str = "") -> StatusError:
    msg = (f"{_qualified(resource, group)} {go_quote(name)} already exists, "
           "the server was not able to generate a unique name for the object")
    return StatusError(status_dict(409, "AlreadyExists", msg,
                                   _details(name, group, resource, retryAfterSeconds=retry_after)))


OPTIMISTIC_LOCK_MSG = "the object has been modified; please apply your changes to the latest version and try again"


def conflict(resource: str, name: str, err: str, group: str = "") -> StatusError:
    msg = f"Operation cannot be fulfilled on {_qualified(resource, group)} {go_quote(name)}: {err}"
    return StatusError(status_dict(409, "Conflict", msg, _details(name, group, resource)))


def forbidden(resource: str, name: str, err: str, group: str = "",
              causes: Iterable[dict] = ()) -> StatusError:
    qr = _qualified(resource, group)
    if not qr and not name:
        msg = f"forbidden: {err}"
    elif not name:
        msg = f"{qr} is forbidden: {err}"
    else:
        msg = f"{qr} {go_quote(name)} is forbidden: {err}"
    details = _details(name, group, resource)
    causes = list(causes)
    if causes:
        details["causes"] = causes
    return StatusError(status_dict(403, "Forbidden", msg, details))


@dataclass(frozen=True)
class FieldError:
    """One `field.Error`: `type` is the cause reason, `body` the ErrorBody (without the field path)."""

    type: str
    field: str
    body: str

    def __str__(self) -> str:
        """`field.Error.Error()`: `"%s: %s"` of the path and the body, an empty path too (`: Forbidden: ...`)."""
        return f"{self.field}: {self.body}"

    def cause(self) -> dict[str, str]:
        """A `StatusCause` (its `field` `omitempty`: an error at the empty path has none)."""
        if not self.field:
            return {"reason": self.type, "message": self.body}
        return {"reason": self.type, "message": self.body, "field": self.field}


class GoValue(str):
    """A bad value already printed as `ErrorBody` prints its Go value, for a caller that knows a Go type the
    Python value cannot tell (`[]core.ResourceQuotaScope{...}`, or `sharp_v(x)` of an unstructured value:
    `[]interface {}{"a"}` where a typed `[]string` would print `[]string{"a"}`)."""


def unstructured_value(value: Any) -> Any:
    """A decoded JSON value (a custom resource's, an `interface{}`) as `field.Error` holds it: a list or map
    prints as `[]interface {}{...}` / `map[string]interface {}{...}`, whatever its items."""
    return GoValue(sharp_v(value)) if isinstance(value, (list, dict)) else value


def _go_quote(value: Any) -> str:
    """A bad value as `field.Error.ErrorBody` (apimachinery util/validation/field/errors.go v0.33) prints it:
    nil (or a nil pointer; Python's None) becomes the string "null", so `%q` prints `"null"`; an int64, float64
    or bool `%v` (a float `strconv.FormatFloat(f, 'g', -1, 64)`: `1e+06`, `0.5`); a string `%q`; anything else
    `%#v`: a list of strings as the `[]string` typed fields hold (`[]string{"a", "b"}`), a map of strings as a
    `map[string]string` (`map[string]string{"k":"v"}`, keys sorted as fmt sorts them), any other list or map as
    the decoded JSON it is (`[]interface {}{...}`, `map[string]interface {}{...}`); a `GoValue` as it is."""
    if isinstance(value, GoValue):
        return str(value)
    if isinstance(value, str):
        return go_quote(value)
    if value is None:
        return '"null"'
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return format_float(value)
    if isinstance(value, (list, tuple)):
        if all(isinstance(v, str) for v in value):
            return sharp_v_strings(list(value))
        return sharp_v(list(value))
    if isinstance(value, dict):
        if all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
            return sharp_v_string_map(value)
        return sharp_v(value)
    return go_quote(str(value))


def field_invalid(field: str, value: Any, detail: str) -> FieldError:
    body = f"Invalid value: {_go_quote(value)}"
    if detail:
        body += f": {detail}"
    return FieldError("FieldValueInvalid", field, body)


def field_duplicate(field: str, value: Any) -> FieldError:
    """`field.Duplicate`: the value printed as `ErrorBody` prints any bad value (a string with `%q`)."""
    return FieldError("FieldValueDuplicate", field, f"Duplicate value: {_go_quote(value)}")


def field_required(field: str, detail: str = "") -> FieldError:
    return FieldError("FieldValueRequired", field, f"Required value: {detail}" if detail else "Required value")


def field_forbidden(field: str, detail: str) -> FieldError:
    return FieldError("FieldValueForbidden", field, f"Forbidden: {detail}")


def field_not_supported(field: str, value: Any, valid: Iterable[str]) -> FieldError:
    quoted = ", ".join(go_quote(str(v)) for v in valid)  # `strconv.Quote(fmt.Sprint(v))`
    return FieldError("FieldValueNotSupported", field,
                      f"Unsupported value: {_go_quote(value)}: supported values: {quoted}")


def aggregate(errs: list[FieldError]) -> str:
    """`field.ErrorList.ToAggregate().Error()`: one ⇒ plain text, several (deduplicated) ⇒ `[e1, e2]`."""
    texts: list[str] = []
    for e in errs:
        if str(e) not in texts:
            texts.append(str(e))
    return texts[0] if len(texts) == 1 else "[" + ", ".join(texts) + "]"


def invalid(kind: str, name: str, errs: list[FieldError], group: str = "") -> StatusError:
    qk = f"{kind}.{group}" if group else kind
    msg = f"{qk} {go_quote(name)} is invalid: {aggregate(errs)}" if errs else f"{qk} {go_quote(name)} is invalid"
    details: dict[str, Any] = {"name": name} if name else {}
    if group:
        details["group"] = group
    details["kind"] = kind
    details["causes"] = [e.cause() for e in errs]
    return StatusError(status_dict(422, "Invalid", msg, details))


def bad_request(msg: str) -> StatusError:
    return StatusError(status_dict(400, "BadRequest", msg))


def method_not_supported(resource: str, action: str) -> StatusError:
    return StatusError(status_dict(405, "MethodNotAllowed",
                                   f"{action} is not supported on resources of kind {go_quote(resource)}",
                                   {"kind": resource}))


def expired(msg: str) -> StatusError:
    return StatusError(status_dict(410, "Expired", msg))


def gone(msg: str) -> StatusError:
    return StatusError(status_dict(410, "Gone", msg))


def internal(err: str) -> StatusError:
    return StatusError(status_dict(500, "InternalError", f"Internal error occurred: {err}",
                                   {"causes": [{"message": err}]}))


def timeout(msg: str, retry_after: int = 0) -> StatusError:
    details = {"retryAfterSeconds": retry_after} if retry_after else {}
    return StatusError(status_dict(504, "Timeout", f"Timeout: {msg}", details))


SUPPORTED_MEDIA_TYPES = ("application/json", "application/yaml", "application/vnd.kubernetes.protobuf")


def unsupported_media_type(content_type: str = "", accepted: Iterable[str] = SUPPORTED_MEDIA_TYPES) -> StatusError:
    """The handler-level 415 (`NegotiateInputSerializer`, or `PatchResource` for a patch type the resource
    does not take): the body format is unknown."""
    msg = ("the body of the request was in an unknown format - accepted media types include: "
           + ", ".join(accepted))
    return StatusError(status_dict(415, "UnsupportedMediaType", msg))


def router_unsupported_media_type() -> StatusError:
    """go-restful's 415 for a PATCH whose Content-Type is not in the route's Consumes list."""
    return StatusError(status_dict(415, "UnsupportedMediaType", "415: Unsupported Media Type", {}))


def not_acceptable(available: Iterable[str] = ("application/json", "application/yaml",
                                               "application/vnd.kubernetes.protobuf")) -> StatusError:
    msg = "406: Not Acceptable\n\nAvailable representations: " + ", ".join(available)
    return StatusError(status_dict(406, "NotAcceptable", msg, {}))


def request_entity_too_large(msg: str = "limit is 3145728") -> StatusError:
    return StatusError(status_dict(413, "RequestEntityTooLarge", f"Request entity too large: {msg}"))


def unauthorized() -> StatusError:
    return StatusError(status_dict(401, "Unauthorized", "Unauthorized"))


def route_not_found() -> StatusError:
    """go-restful: no route under a registered web service matches the path (NS-04)."""
    return StatusError(status_dict(404, "NotFound", "the server could not find the requested resource", {}))


def route_method_not_allowed() -> StatusError:
    """go-restful: the path matches a route but the method does not (NS-04); no Allow header."""
    return StatusError(status_dict(405, "MethodNotAllowed",
                                   "the server does not allow this method on the requested resource", {}))
