"""The bootstrap policy's namespaced Roles and RoleBindings (`plugin/pkg/auth/authorizer/rbac/bootstrappolicy/
namespace_policy.go`: `NamespaceRoles()`, `NamespaceRoleBindings()`; expanded in its `testdata/namespace-roles.yaml`
and `namespace-role-bindings.yaml`): kube-system's `extension-apiserver-authentication-reader`, the bootstrap
signer's, cloud provider's and token cleaner's roles, the leader-locking roles of kube-controller-manager and
kube-scheduler, and kube-public's bootstrap-signer role, each bound as upstream binds it. `addDefaultMetadata`:
the `kubernetes.io/bootstrapping: rbac-defaults` label and the `autoupdate` annotation.
"""
from __future__ import annotations

from typing import Any

GROUP = "rbac.authorization.k8s.io"
SYSTEM, PUBLIC = "kube-system", "kube-public"
SA_ROLE_PREFIX = "system:controller:"  # saRolePrefix
READ = ["get", "list", "watch"]


def _meta(name: str, namespace: str) -> dict[str, Any]:
    return {"name": name, "namespace": namespace, "labels": {"kubernetes.io/bootstrapping": "rbac-defaults"},
            "annotations": {"rbac.authorization.kubernetes.io/autoupdate": "true"}}


def _rule(verbs: list[str], resources: list[str], groups: tuple[str, ...] = ("",),
          names: tuple[str, ...] = ()) -> dict[str, Any]:
    rule: dict[str, Any] = {"verbs": verbs, "apiGroups": list(groups), "resources": resources}
    if names:
        rule["resourceNames"] = list(names)
    return rule


EVENTS = _rule(["create", "update", "patch"], ["events"], ("", "events.k8s.io"))  # eventsRule()


def _role(namespace: str, name: str, *rules: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": f"{GROUP}/v1", "kind": "Role", "metadata": _meta(name, namespace), "rules": list(rules)}


def _binding(namespace: str, role: str, *, users: tuple[str, ...] = (), sas: tuple[str, ...] = (),
             name: str = "") -> dict[str, Any]:
    """`NewRoleBinding(role, namespace).Users(...).SAs(kube-system, ...)`: users first, then service accounts."""
    subjects = [{"apiGroup": GROUP, "kind": "User", "name": u} for u in users]
    subjects += [{"kind": "ServiceAccount", "name": sa, "namespace": SYSTEM} for sa in sas]
    return {"apiVersion": f"{GROUP}/v1", "kind": "RoleBinding", "metadata": _meta(name or role, namespace),
            "roleRef": {"apiGroup": GROUP, "kind": "Role", "name": role}, "subjects": subjects}


KCM, SCHEDULER = "system:kube-controller-manager", "system:kube-scheduler"
NAMESPACE_POLICY: tuple[dict[str, Any], ...] = (
    _role(SYSTEM, "extension-apiserver-authentication-reader",
          _rule(READ, ["configmaps"], names=("extension-apiserver-authentication",))),
    _role(SYSTEM, SA_ROLE_PREFIX + "bootstrap-signer", _rule(READ, ["secrets"])),
    _role(SYSTEM, SA_ROLE_PREFIX + "cloud-provider", _rule(["create", "get", "list", "watch"], ["configmaps"])),
    _role(SYSTEM, SA_ROLE_PREFIX + "token-cleaner", _rule(["get", "list", "watch", "delete"], ["secrets"]), EVENTS),
    _role(SYSTEM, "system::leader-locking-kube-controller-manager",
          _rule(["watch"], ["configmaps"]),
          _rule(["get", "update"], ["configmaps"], names=("kube-controller-manager",)),
          _rule(["get", "watch", "list", "create", "update"], ["leases"], ("coordination.k8s.io",))),
    _role(SYSTEM, "system::leader-locking-kube-scheduler",
          _rule(["watch"], ["configmaps"]),
          _rule(["get", "update"], ["configmaps"], names=("kube-scheduler",))),
    _binding(SYSTEM, "extension-apiserver-authentication-reader", users=(KCM, SCHEDULER),
             name="system::extension-apiserver-authentication-reader"),
    _binding(SYSTEM, "system::leader-locking-kube-controller-manager", users=(KCM,),
             sas=("kube-controller-manager", "leader-election-controller")),
    _binding(SYSTEM, "system::leader-locking-kube-scheduler", users=(SCHEDULER,), sas=("kube-scheduler",)),
    _binding(SYSTEM, SA_ROLE_PREFIX + "bootstrap-signer", sas=("bootstrap-signer",)),
    _binding(SYSTEM, SA_ROLE_PREFIX + "cloud-provider", sas=("cloud-provider",)),
    _binding(SYSTEM, SA_ROLE_PREFIX + "token-cleaner", sas=("token-cleaner",)),
    _role(PUBLIC, SA_ROLE_PREFIX + "bootstrap-signer", _rule(READ, ["configmaps"]),
          _rule(["update"], ["configmaps"], names=("cluster-info",)), EVENTS),
    _binding(PUBLIC, SA_ROLE_PREFIX + "bootstrap-signer", sas=("bootstrap-signer",)),
)
