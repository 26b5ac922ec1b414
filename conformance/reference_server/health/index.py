"""The root index `/` (and `/index.html`), as k8s.io/apiserver v0.33.1 `pkg/server/routes/index.go` serves it:
`IndexLister` writes `metav1.RootPaths{Paths: ListedPaths()}` with `WriteRawJSON` (json.MarshalIndent, two spaces,
`Content-Type: application/json`, no trailing newline), the paths being the union, sorted, of what the three
servers' muxes list (`PathRecorderMux.ListedPaths`, `APIServerHandler.ListedPaths`: each go-restful web
service's root path and each `Handle`/`HandlePrefix` path; `UnlistedHandle` paths such as `/`, `/index.html`,
`/debug/pprof` are not listed):

- `/api`, `/api/v1` (the legacy web services), `/apis` (the aggregator's `Handle`) and `/apis/`
  (apiextensions-apiserver's `HandlePrefix("/apis/", crdHandler)`);
- `/apis/<group>` and `/apis/<group>/<version>` for every served group and version, custom resources' included
  (the aggregator lists each APIService's group and `proxyPath`; CRDs' group-versions are autoregistered);
- `/healthz`, `/livez`, `/readyz` and each of their checks' paths (`InstallPathHandler`);
- `/metrics`, `/metrics/slis`, `/openapi/v2`, `/openapi/v3`, `/openapi/v3/` (a prefix), `/version`;
- `/.well-known/openid-configuration` and `/openid/v1/jwks` when the issuer discovery is served.

No `/logs`: `--enable-logs-handler` defaults to false since 1.31 (kubernetes/kubernetes#125787), so a 1.33 server
installs no logs web service.
"""
from __future__ import annotations

import json
from typing import Any, Iterable

FIXED = ("/api", "/api/v1", "/apis", "/apis/", "/metrics", "/metrics/slis", "/openapi/v2", "/openapi/v3",
         "/openapi/v3/", "/version")
OPENID = ("/.well-known/openid-configuration", "/openid/v1/jwks")
INDEX_PATHS = ("/", "/index.html")


def root_paths(group_versions: Iterable[tuple[str, Iterable[str]]], health_paths: Iterable[str],
               openid: bool) -> list[str]:
    """The sorted, unique paths `/` lists: `group_versions` as (group, its versions)."""
    paths = set(FIXED)
    paths.update(health_paths)
    for group, versions in group_versions:
        paths.add(f"/apis/{group}")
        paths.update(f"/apis/{group}/{v}" for v in versions)
    if openid:
        paths.update(OPENID)
    return sorted(paths)  # sets.String.List(): Go's byte order, which str order matches for these ASCII paths


def index_body(paths: list[str]) -> bytes:
    """`WriteRawJSON`'s bytes: `json.MarshalIndent(obj, "", "  ")` (HTML characters escaped as Go does)."""
    text = json.dumps({"paths": paths}, indent=2, ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026").encode()


def index_answer(paths: list[str]) -> tuple[int, dict[str, Any], bytes]:
    return 200, {"Content-Type": "application/json"}, index_body(paths)


__all__ = ["FIXED", "INDEX_PATHS", "OPENID", "index_answer", "index_body", "root_paths"]
