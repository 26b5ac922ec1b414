"""The ServiceAccount admission plugin (`plugin/pkg/admission/serviceaccount/admission.go`), pod creates.

Upstream's `Admit`, in its order:
- a mirror pod (annotation `kubernetes.io/config.mirror`) is left alone;
- no `spec.serviceAccountName` ⇒ `default`;
- the account must exist: else 403 `pods "<name>" is forbidden: error looking up service account
  <ns>/<sa>: serviceaccount "<sa>" not found`. This is what a client meets when it creates a pod in a
  namespace the ServiceAccount controller has not reached yet. Upstream looks the account up in its informer,
  then live, up to 10 times 100-200 ms apart for `default` (`getServiceAccount`): so a pod created within
  about a second of its namespace waits instead of being refused. Here the store is the informer and the
  live copy at once; admission may not sleep on the event loop, so for `default` it raises
  `RetriedStatusError` and the HTTP layer waits and runs the create again (10 tries in all);
- `automountServiceAccountToken` (pod first, then the account; default true, `shouldAutomount`) ⇒ the
  projected `kube-api-access-<5 chars>` volume (`TokenVolumeSource`: a bound token of 3607 s at `token`,
  `kube-root-ca.crt`'s `ca.crt`, the namespace through the downward API; defaultMode 420), mounted read-only
  at /var/run/secrets/kubernetes.io/serviceaccount in every init container and container that has no
  mount there yet (`mountServiceAccountToken`); a volume named `kube-api-access-*` already present is reused;
- no `spec.imagePullSecrets` ⇒ the account's.
"""
from __future__ import annotations

import random
from typing import Any

from .. import apierrors as E
from ..goport.gofmt import go_quote
from ..registry import Registry
from ..registry.meta import generate_name
from ..storage import KeyNotFoundError

DEFAULT_SERVICE_ACCOUNT = "default"
DEFAULT_LOOKUP_ATTEMPTS = 10                      # getServiceAccount: numAttempts for `default`
MIRROR_POD_ANNOTATION = "kubernetes.io/config.mirror"
SERVICE_ACCOUNT_VOLUME_NAME = "kube-api-access"
DEFAULT_API_TOKEN_MOUNT_PATH = "/var/run/secrets/kubernetes.io/serviceaccount"
WARN_ONLY_BOUND_TOKEN_EXPIRATION_SECONDS = 3607  # pkg/serviceaccount: 1 h + 7 s, the "warn only" marker
PROJECTED_VOLUME_DEFAULT_MODE = 0o644             # api.ProjectedVolumeSourceDefaultMode (420)


def token_volume_source() -> dict[str, Any]:
    """`TokenVolumeSource()`: what every automounted pod gets, field for field."""
    return {
        "sources": [
            {"serviceAccountToken": {"expirationSeconds": WARN_ONLY_BOUND_TOKEN_EXPIRATION_SECONDS,
                                     "path": "token"}},
            {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
            {"downwardAPI": {"items": [{"path": "namespace",
                                        "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}]}},
        ],
        "defaultMode": PROJECTED_VOLUME_DEFAULT_MODE,
    }


def should_automount(account: dict[str, Any], spec: dict[str, Any]) -> bool:
    """`shouldAutomount`: the pod's preference wins, then the account's, else true."""
    for value in (spec.get("automountServiceAccountToken"), account.get("automountServiceAccountToken")):
        if isinstance(value, bool):
            return value
    return True


def mount_service_account_token(spec: dict[str, Any]) -> None:
    """`mountServiceAccountToken`: the token volume, mounted wherever the default path is still free."""
    volumes = spec.get("volumes") if isinstance(spec.get("volumes"), list) else []
    existing = next((v.get("name") for v in volumes if isinstance(v, dict)
                     and str(v.get("name") or "").startswith(SERVICE_ACCOUNT_VOLUME_NAME + "-")), None)
    name = existing or generate_name(SERVICE_ACCOUNT_VOLUME_NAME + "-")
    needs_volume = False
    for key in ("initContainers", "containers"):
        containers = spec.get(key)
        if not isinstance(containers, list):
            continue
        for container in containers:
            if not isinstance(container, dict):
                continue
            mounts = container.get("volumeMounts") if isinstance(container.get("volumeMounts"), list) else []
            if any(isinstance(m, dict) and m.get("mountPath") == DEFAULT_API_TOKEN_MOUNT_PATH for m in mounts):
                continue
            container["volumeMounts"] = [*mounts, {"name": name, "readOnly": True,
                                                   "mountPath": DEFAULT_API_TOKEN_MOUNT_PATH}]
            needs_volume = True
    if existing is None and needs_volume:
        spec["volumes"] = [*volumes, {"name": name, "projected": token_volume_source()}]


class ServiceAccountAdmission:
    def __init__(self, registry: Registry):
        self.registry = registry

    def admit_pod(self, obj: dict[str, Any]) -> None:
        meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
        if MIRROR_POD_ANNOTATION in (meta.get("annotations") or {}):
            return  # mirror pods are left alone
        spec = obj.get("spec")
        if not isinstance(spec, dict):
            return  # validation answers for the missing spec
        # v1 conversion (decode time upstream): the deprecated alias stands in for an empty serviceAccountName
        sa = spec.get("serviceAccountName") or spec.get("serviceAccount") or DEFAULT_SERVICE_ACCOUNT
        spec["serviceAccountName"] = sa
        ns = meta.get("namespace") or ""
        try:
            account = self.registry.store.get("serviceaccounts", ns, sa)
        except KeyNotFoundError:
            name = meta.get("name") or ""
            refusal = E.forbidden("pods", name, f"error looking up service account {ns}/{sa}: "
                                                f"serviceaccount {go_quote(sa)} not found")
            if sa != DEFAULT_SERVICE_ACCOUNT:
                raise refusal from None
            # getServiceAccount: `default` "should be auto-created by the controller": 10 live look-ups
            raise E.RetriedStatusError(refusal.status, DEFAULT_LOOKUP_ATTEMPTS,
                                       random.uniform(0.1, 0.2)) from None
        if should_automount(account, spec):
            mount_service_account_token(spec)
        if not spec.get("imagePullSecrets"):
            pulls = account.get("imagePullSecrets") if isinstance(account.get("imagePullSecrets"), list) else []
            copied = [{"name": p.get("name")} for p in pulls if isinstance(p, dict)]
            if copied:
                spec["imagePullSecrets"] = copied
