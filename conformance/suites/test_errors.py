"""Group `errors`: the Status envelope (kind, apiVersion, status, reason, message, details, code) per NS-01..04."""

from __future__ import annotations

import pytest

from conformance import assertions as A
from conformance.schemas import validate
from conformance.suites import create_namespace, namespace_body, read_namespace, skip_if_denied

_NOT_ALLOWED = "the server does not allow this method on the requested resource"


@pytest.mark.clause("NS-ERR-001")
@pytest.mark.parametrize("method", ["GET", "PUT", "PATCH", "DELETE"])
def test_missing_namespace_not_found(api, paths, namespaces, method):
    """GET/PUT/PATCH/DELETE of a missing namespace answer the 404 NotFound Status."""
    name = namespaces.name("gone")
    path = paths.namespace(name)
    if method == "PUT":
        resp = api.put(path, namespace_body(name, namespaces.labels))
    elif method == "PATCH":
        resp = api.patch(path, {"metadata": {"labels": {"nsconform.io/probe": "x"}}})
    else:
        resp = api.request(method, path)
    body = A.expect_status(resp, 404, reason="NotFound", message=f'namespaces "{name}" not found',
                           details={"name": name, "kind": "namespaces"})
    validate(body, "Status")
    assert "json" in (resp.headers.get("Content-Type") or ""), (
        f"{method} {path}: Content-Type {resp.headers.get('Content-Type')!r}, expected application/json")
    A.expect_code(api.get(path), 404)  # and no create-on-update


@pytest.mark.clause("NS-ERR-002")
@pytest.mark.parametrize("method, where", [
    pytest.param("DELETE", "collection", id="delete-namespaces-collection"),
    pytest.param("POST", "namespace", id="post-namespace"),
    pytest.param("POST", "status", id="post-status"),
    pytest.param("DELETE", "status", id="delete-status"),
    pytest.param("POST", "all-configmaps", id="post-all-configmaps"),
    pytest.param("DELETE", "all-configmaps", id="delete-all-configmaps"),
])
def test_method_not_allowed(api, paths, namespaces, content, method, where):
    """Unsupported methods on Namespace API paths answer the 405 MethodNotAllowed Status and change nothing."""
    ns = create_namespace(namespaces, "err")
    name = ns["metadata"]["name"]
    # Even a wrong server may only ever touch this test's objects, and only in a dry run.
    guard = {"labelSelector": namespaces.selector, "dryRun": "All"}
    body = namespace_body(name, namespaces.labels)
    if where == "collection":
        path, kw = paths.namespaces(), {"params": guard}
    elif where == "namespace":
        path, kw = paths.namespace(name), {"json": body}
    elif where == "status":
        path, kw = paths.status(name), ({"json": body} if method == "POST" else {"params": {"dryRun": "All"}})
    else:
        path = paths.all_namespaces("configmaps")
        kw = {"json": content.body_for("configmaps", "nsc-cm", name), "params": {"dryRun": "All"}} \
            if method == "POST" else {"params": guard}
    resp = api.request(method, path, **kw)
    skip_if_denied(api, resp, method, path)
    if resp.status_code == 201 and where == "all-configmaps":
        content.track(name, "configmaps", "nsc-cm")
    # Router-level 405 (NS-04): no name and no kind in details.
    body = A.expect_status(resp, 405, reason="MethodNotAllowed", message=_NOT_ALLOWED,
                           details={"name": None, "kind": None})
    validate(body, "Status")
    stored = read_namespace(api, paths, name)
    assert not stored["metadata"].get("deletionTimestamp"), f"{method} {path} started deleting {name}"


@pytest.mark.clause("NS-ERR-003")
def test_duplicate_namespace_already_exists(api, paths, namespaces):
    """A duplicate namespace create answers the 409 AlreadyExists Status."""
    name = create_namespace(namespaces, "err")["metadata"]["name"]
    resp = api.post(paths.namespaces(), namespace_body(name, namespaces.labels))
    body = A.expect_status(resp, 409, reason="AlreadyExists", message=f'namespaces "{name}" already exists',
                           details={"name": name, "kind": "namespaces"})
    validate(body, "Status")


@pytest.mark.clause("NS-ERR-004")
def test_invalid_status_envelope(api, paths, namespaces):
    """A validation failure answers 422 Invalid with details.kind `Namespace` and causes {reason, message, field}."""
    name = namespaces.name("err").replace("nsc-", "Nsc-", 1)
    namespaces.track(name)
    resp = api.post(paths.namespaces(), namespace_body(name, namespaces.labels))
    body = A.expect_status(resp, 422, reason="Invalid", message=A.where(
        lambda m: isinstance(m, str) and m.startswith(f'Namespace "{name}" is invalid: '),
        f'a message starting with `Namespace "{name}" is invalid: `'),
        details={"name": name, "kind": "Namespace"})
    validate(body, "Status")
    causes = body["details"].get("causes") or []
    assert causes, f"422 without details.causes: {body}"
    for cause in causes:
        assert {"reason", "message", "field"} <= set(cause) and "type" not in cause, (
            f"each cause must carry reason/message/field (the cause type is serialised as `reason`): {cause}")


@pytest.mark.clause("NS-ERR-005")
def test_stale_resource_version_conflict(api, paths, namespaces):
    """A PUT with a stale resourceVersion answers the 409 Conflict Status."""
    name = create_namespace(namespaces, "err")["metadata"]["name"]
    stale = read_namespace(api, paths, name)
    A.expect_ok(api.patch(paths.namespace(name), {"metadata": {"labels": {"nsconform.io/probe": "1"}}}))
    stale["metadata"]["labels"]["nsconform.io/probe"] = "stale"
    resp = api.put(paths.namespace(name), stale)
    body = A.expect_status(
        resp, 409, reason="Conflict",
        message=(f'Operation cannot be fulfilled on namespaces "{name}": the object has been modified; please apply '
                 "your changes to the latest version and try again"),
        details={"name": name, "kind": "namespaces"})
    validate(body, "Status")
    assert A.labels(read_namespace(api, paths, name)).get("nsconform.io/probe") == "1"


@pytest.mark.clause("NS-ERR-006")
def test_name_mismatch_bad_request(api, paths, namespaces):
    """A PUT whose body name differs from the URL answers 400 naming both."""
    one = create_namespace(namespaces, "err")["metadata"]["name"]
    other = create_namespace(namespaces, "err")["metadata"]["name"]
    body = read_namespace(api, paths, other)
    body["metadata"].pop("resourceVersion", None)
    body["metadata"].pop("uid", None)
    resp = api.put(paths.namespace(one), body)
    A.expect_status(resp, 400, reason="BadRequest",
                    message=f"the name of the object ({other}) does not match the name on the URL ({one})")


@pytest.mark.clause("NS-ERR-007")
def test_design_list_path_not_served(api, paths):
    """The design document's /api/v1/list/{resource} is not a Kubernetes path: 404 Status."""
    resp = api.get("/api/v1/list/configmaps")
    skip_if_denied(api, resp, "GET", "/api/v1/list/configmaps")
    A.expect_status(resp, 404, reason="NotFound", message="the server could not find the requested resource")
