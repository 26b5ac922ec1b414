"""The outermost apply check (upstream `managedfields/internal/versioncheck.go`, first in `NewDefaultFieldManager`'s
stack, for built-in kinds and custom resources alike): an applied configuration whose group, version and kind are
not the endpoint's is a 400 `invalid object type: <group>/<version>, Kind=<kind>`, before any other manager
(structured-merge's own version check and typing are never reached with another kind or version).

The configuration is an `unstructured.Unstructured`: its `GroupVersionKind()` reads `apiVersion` and `kind` as
strings (anything else reads as ""), and an `apiVersion` `schema.ParseGroupVersion` refuses (more than one `/`)
makes the whole kind the empty one (`/, Kind=`).
"""
from __future__ import annotations

from typing import Any

from .. import apierrors as E
from ..wire.gometa import parse_group_version


def applied_gvk(config: dict[str, Any]) -> tuple[str, str, str]:
    """`Unstructured.GroupVersionKind()` of the applied configuration: (group, version, kind)."""
    api_version, kind = (v if isinstance(v, str) else "" for v in (config.get("apiVersion"), config.get("kind")))
    gv = parse_group_version(api_version)
    return ("", "", "") if gv is None else (gv[0], gv[1], kind)


def check_version(config: dict[str, Any], api_version: str, kind: str) -> None:
    """`versionCheckManager.Apply`: the 400 when the configuration's kind is not `kind` in `api_version`."""
    gvk = applied_gvk(config)
    if gvk != (*(parse_group_version(api_version) or ("", "")), kind):
        group, version, found = gvk
        raise E.bad_request(f"invalid object type: {group}/{version}, Kind={found}")
