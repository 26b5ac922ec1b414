"""Assertions the suites use on HTTP responses; their failure text is what a user reads in the report.

Every failure names the request (`METHOD /path?query`), what was expected, what came back, and the response
body (truncated), so a finding can be understood without re-running anything:

    POST /api/v1/namespaces/nsc-x/configmaps: expected HTTP 404, got HTTP 201
      reason: expected 'NotFound', got None
      response body: {"kind":"ConfigMap", ...}
"""

from __future__ import annotations

import json
import re
import warnings
from collections.abc import Callable, Iterable, Mapping
from typing import Any

__all__ = [
    "CLIENT_ERROR",
    "BODY_LIMIT",
    "describe_request",
    "body_excerpt",
    "json_body",
    "expect_code",
    "expect_ok",
    "expect_status",
    "expect_rejected",
    "subset_mismatches",
    "expect_subset",
    "finalizers",
    "phase",
    "labels",
    "condition",
    "MessageMismatch",
    "MESSAGE_MODES",
    "set_message_mode",
]

BODY_LIMIT = 2000
"""How many characters of a response body a failure message shows."""

CLIENT_ERROR = range(400, 500)
"""Pass as `code` when any 4xx answer is acceptable (profiles whose source fixes no exact code)."""

_MISSING = object()

MESSAGE_MODES = ("exact", "warn")
_message_mode = "exact"


class MessageMismatch(UserWarning):
    """A Status message worded otherwise than kube-apiserver's, under `--messages warn`: an implementation
    may word its errors its own way and still get every code, reason and field right."""


def set_message_mode(mode: str) -> None:
    """`exact` (default): a different Status message fails the test; `warn`: it is a MessageMismatch warning."""
    global _message_mode
    if mode not in MESSAGE_MODES:
        raise ValueError(f"message mode must be one of {', '.join(MESSAGE_MODES)}, not {mode!r}")
    _message_mode = mode


# --------------------------------------------------------------------------------------------- describing

def describe_request(resp: Any) -> str:
    """`METHOD /path?query` of the request that produced `resp` (best effort for fakes)."""
    req = getattr(resp, "request", None)
    method = getattr(req, "method", None) or "?"
    path = getattr(req, "path_url", None)
    if not path:
        url = getattr(req, "url", None) or getattr(resp, "url", None) or "?"
        path = re.sub(r"^[a-z]+://[^/]+", "", str(url)) or str(url)
    return f"{method} {path}"


def body_excerpt(resp: Any, limit: int = BODY_LIMIT) -> str:
    """The response body as compact text, truncated to `limit` characters."""
    try:
        text = resp.text
    except Exception:  # pragma: no cover - exotic fakes
        text = ""
    if text is None:
        text = ""
    try:
        text = json.dumps(json.loads(text), separators=(",", ":"), sort_keys=False)
    except (ValueError, TypeError):
        pass
    if not text:
        return "<empty>"
    if len(text) > limit:
        return text[:limit] + f"... ({len(text) - limit} more characters)"
    return text


def _fmt_code(code: Any) -> str:
    if isinstance(code, int):
        return str(code)
    if isinstance(code, range):
        if code == CLIENT_ERROR:
            return "4xx"
        return f"{code.start}..{code.stop - 1}"
    return " or ".join(str(c) for c in code)


def _code_matches(got: int | None, code: Any) -> bool:
    if isinstance(code, int):
        return got == code
    return got in code


def _fail(resp: Any, headline: str, lines: Iterable[str] = ()) -> None:
    __tracebackhide__ = True
    text = f"{describe_request(resp)}: {headline}"
    for line in lines:
        text += f"\n  {line}"
    text += f"\n  response body: {body_excerpt(resp)}"
    raise AssertionError(text)


def _content_type(resp: Any) -> str:
    headers = getattr(resp, "headers", None) or {}
    try:
        return headers.get("Content-Type", "") or ""
    except Exception:  # pragma: no cover
        return ""


def json_body(resp: Any, what: str = "a JSON body") -> Any:
    """Parse the response body as JSON or fail with a message naming the request and the content type."""
    __tracebackhide__ = True
    try:
        return json.loads(resp.text)
    except (ValueError, TypeError):
        _fail(resp, f"expected {what}, got Content-Type {_content_type(resp)!r} that does not parse as JSON",
              [f"HTTP {getattr(resp, 'status_code', None)}"])


# --------------------------------------------------------------------------------------------- comparisons

def _matches(expected: Any, got: Any) -> bool:
    if isinstance(expected, re.Pattern):
        return isinstance(got, str) and expected.search(got) is not None
    if callable(expected) and not isinstance(expected, (str, bytes, Mapping, list, tuple, int, float, bool)):
        try:
            return bool(expected(got))
        except Exception:
            return False
    return expected == got


def _show(expected: Any) -> str:
    if isinstance(expected, re.Pattern):
        return f"text matching /{expected.pattern}/"
    if callable(expected) and not isinstance(expected, (str, bytes, Mapping, list, tuple, int, float, bool)):
        return getattr(expected, "__doc__", None) or getattr(expected, "__name__", "a value satisfying a check")
    return repr(expected)


def subset_mismatches(expected: Mapping[str, Any], got: Any, where: str = "") -> list[str]:
    """Lines describing where `got` differs from `expected`, comparing only the keys `expected` names.

    Nested mappings recurse; a value of `None` in `expected` means "absent or null"; a compiled regex matches text;
    any other callable is a predicate; everything else compares with `==`.
    """
    out: list[str] = []
    if not isinstance(got, Mapping):
        return [f"{where or '$'}: expected an object, got {got!r}"]
    for key, want in expected.items():
        path = f"{where}.{key}" if where else str(key)
        have = got.get(key, _MISSING)
        if want is None:
            if have is not _MISSING and have is not None:
                out.append(f"{path}: expected absent, got {have!r}")
            continue
        if have is _MISSING:
            out.append(f"{path}: expected {_show(want)}, got nothing (missing)")
            continue
        if isinstance(want, Mapping) and not isinstance(want, re.Pattern):
            out.extend(subset_mismatches(want, have, path))
            continue
        if not _matches(want, have):
            out.append(f"{path}: expected {_show(want)}, got {have!r}")
    return out


def expect_subset(got: Any, expected: Mapping[str, Any], what: str = "object") -> None:
    """Assert `got` has (at least) the fields of `expected` with those values; message lists every difference."""
    __tracebackhide__ = True
    diffs = subset_mismatches(expected, got)
    if diffs:
        raise AssertionError(f"{what} differs from the expectation:\n  " + "\n  ".join(diffs)
                             + f"\n  got: {_trunc(got)}")


def _trunc(obj: Any, limit: int = BODY_LIMIT) -> str:
    try:
        text = json.dumps(obj, separators=(",", ":"))
    except (TypeError, ValueError):
        text = repr(obj)
    return text if len(text) <= limit else text[:limit] + f"... ({len(text) - limit} more characters)"


# --------------------------------------------------------------------------------------------- expectations

def expect_code(resp: Any, code: int | Iterable[int]) -> None:
    """Assert only the HTTP status code."""
    __tracebackhide__ = True
    got = getattr(resp, "status_code", None)
    if not _code_matches(got, code):
        _fail(resp, f"expected HTTP {_fmt_code(code)}, got HTTP {got}")


def expect_ok(resp: Any, code: int | Iterable[int] = 200) -> dict[str, Any]:
    """Assert a success code and a JSON object body; return the body.

    A Status body on an unexpected code is summarised (reason, message) in the failure text.
    """
    __tracebackhide__ = True
    got = getattr(resp, "status_code", None)
    if not _code_matches(got, code):
        lines = []
        try:
            body = json.loads(resp.text)
        except (ValueError, TypeError):
            body = None
        if isinstance(body, Mapping) and body.get("kind") == "Status":
            lines.append(f"reason: {body.get('reason')!r}")
            lines.append(f"message: {body.get('message')!r}")
        _fail(resp, f"expected HTTP {_fmt_code(code)}, got HTTP {got}", lines)
    body = json_body(resp, "a JSON object body")
    if not isinstance(body, dict):
        _fail(resp, f"expected a JSON object body, got {type(body).__name__}")
    return body


def expect_status(resp: Any, code: int | Iterable[int], *, reason: Any = None, message: Any = None,
                  details: Mapping[str, Any] | None = None,
                  causes: Iterable[Mapping[str, Any]] | None = None) -> dict[str, Any]:
    """Assert an error answer: the HTTP code and a `Status` envelope (NS-01); return the Status body.

    Always checked: JSON body, `kind: Status`, `apiVersion: v1`, `status: Failure`, `code` equal to the HTTP
    code. Optionally: `reason`, `message` (string for equality, compiled regex to search, or a predicate),
    `details` (subset of the keys given, see `subset_mismatches`) and `causes` (each expected cause must match,
    as a subset, one distinct cause of `details.causes`).
    """
    __tracebackhide__ = True
    got_code = getattr(resp, "status_code", None)
    lines: list[str] = []
    try:
        body = json.loads(resp.text)
    except (ValueError, TypeError):
        body = _MISSING
    expected_bits = [f"HTTP {_fmt_code(code)}"]
    if reason is not None:
        expected_bits.append(f"reason {_show(reason)}")
    headline_code_ok = _code_matches(got_code, code)

    if body is _MISSING or not isinstance(body, dict):
        what = "no JSON" if body is _MISSING else f"JSON {type(body).__name__}"
        headline = (f"expected {' '.join(expected_bits)} with a Status body, got HTTP {got_code} with {what} "
                    f"(Content-Type {_content_type(resp)!r})")
        _fail(resp, headline)
    assert isinstance(body, dict)

    if not headline_code_ok:
        lines.append(f"reason: expected {_show(reason) if reason is not None else 'any'}, got {body.get('reason')!r}")
        if message is not None:
            lines.append(f"message: expected {_show(message)}, got {body.get('message')!r}")
        else:
            lines.append(f"message: {body.get('message')!r}")
        _fail(resp, f"expected {' '.join(expected_bits)}, got HTTP {got_code}", lines)

    envelope = {"kind": "Status", "apiVersion": "v1", "status": "Failure", "code": got_code}
    for key, want in envelope.items():
        have = body.get(key, _MISSING)
        if have != want:
            lines.append(f"{key}: expected {want!r}, got {'nothing (missing)' if have is _MISSING else repr(have)}")
    if reason is not None and not _matches(reason, body.get("reason")):
        lines.append(f"reason: expected {_show(reason)}, got {body.get('reason')!r}")
    if message is not None and not _matches(message, body.get("message")):
        text = f"message: expected {_show(message)}, got {body.get('message')!r}"
        if _message_mode == "exact":
            lines.append(text)
        else:
            warnings.warn(MessageMismatch(f"{describe_request(resp)}: {text}"), stacklevel=2)
    got_details = body.get("details") or {}
    if details is not None:
        for diff in subset_mismatches(details, got_details, "details"):
            lines.append(diff)
    if causes is not None:
        got_causes = list(got_details.get("causes") or []) if isinstance(got_details, Mapping) else []
        remaining = list(got_causes)
        for want in causes:
            hit = next((c for c in remaining if not subset_mismatches(want, c)), None)
            if hit is None:
                lines.append(f"details.causes: expected a cause {_trunc(dict(want))}, got {_trunc(got_causes)}")
            else:
                remaining.remove(hit)
    if not lines:
        lines.extend(f"schema Status: {err}" for err in _schema_errors(body, "Status"))
    if lines:
        _fail(resp, f"expected {' '.join(expected_bits)} Status, got a Status that differs", lines)
    return body


def _schema_errors(body: Any, name: str) -> list[str]:
    """Violations of the JSON Schema `name` (empty when the schemas package is unavailable)."""
    try:
        from conformance.schemas import errors
    except ImportError:  # pragma: no cover - schemas are part of the package
        return []
    return errors(body, name)


def expect_rejected(resp: Any, code: int | Iterable[int] = CLIENT_ERROR) -> None:
    """Assert the request was refused with an error code (default any 4xx), whatever the body looks like."""
    __tracebackhide__ = True
    got = getattr(resp, "status_code", None)
    if not _code_matches(got, code):
        _fail(resp, f"expected the request to be rejected with HTTP {_fmt_code(code)}, got HTTP {got}")


# --------------------------------------------------------------------------------------------- object helpers

def finalizers(ns: Mapping[str, Any]) -> list[str]:
    """spec.finalizers of a Namespace ([] when absent)."""
    return list(((ns or {}).get("spec") or {}).get("finalizers") or [])


def phase(ns: Mapping[str, Any]) -> str | None:
    """status.phase of a Namespace (None when absent)."""
    return ((ns or {}).get("status") or {}).get("phase")


def labels(obj: Mapping[str, Any]) -> dict[str, str]:
    """metadata.labels of an object ({} when absent)."""
    return dict(((obj or {}).get("metadata") or {}).get("labels") or {})


def condition(ns: Mapping[str, Any], type_: str) -> dict[str, Any] | None:
    """The status condition of the given type, or None."""
    for cond in ((ns or {}).get("status") or {}).get("conditions") or []:
        if isinstance(cond, Mapping) and cond.get("type") == type_:
            return dict(cond)
    return None


def where(pred: Callable[[Any], bool], doc: str) -> Callable[[Any], bool]:
    """Attach a description to a predicate used as an expected value (shown in failure messages)."""
    pred.__doc__ = doc
    return pred
