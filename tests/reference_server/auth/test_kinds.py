"""RBAC kinds: declarations, defaulting and validation texts (pkg/apis/rbac/validation/validation.go)."""
from __future__ import annotations

from conformance.reference_server.apierrors import invalid
from conformance.reference_server.auth import kinds as K

G = "rbac.authorization.k8s.io"


def test_declarations():
    by_plural = {k.plural: k for k in K.RBAC_KINDS}
    assert set(by_plural) == {"roles", "rolebindings", "clusterroles", "clusterrolebindings"}
    assert by_plural["roles"].namespaced and by_plural["rolebindings"].namespaced
    assert not by_plural["clusterroles"].namespaced and not by_plural["clusterrolebindings"].namespaced
    assert K.GROUP_VERSION == "rbac.authorization.k8s.io/v1"
    assert all(d["group"] == G for d in K.RBAC_KIND_DECLARATIONS)


def test_defaults():
    rb = {"kind": "RoleBinding", "metadata": {"name": "rb", "namespace": "a"},
          "roleRef": {"kind": "Role", "name": "r"},
          "subjects": [{"kind": "User", "name": "alice"}, {"kind": "ServiceAccount", "name": "sa"}]}
    d = K.apply_defaults(rb)
    assert d["roleRef"]["apiGroup"] == G
    assert d["subjects"][0]["apiGroup"] == G and "apiGroup" not in d["subjects"][1]
    assert "apiGroup" not in rb["roleRef"]  # pure


def test_role_validation_messages():
    role = {"kind": "Role", "metadata": {"name": "a/b", "namespace": "n"},
            "rules": [{"apiGroups": [""], "resources": ["pods"]},
                      {"verbs": ["get"], "nonResourceURLs": ["/x"]},
                      {"verbs": ["get"], "resources": ["pods", "secrets"], "resourceNames": ["x"]}]}
    msgs = [str(e) for e in K.validate(role)]
    assert msgs == [
        'metadata.name: Invalid value: "a/b": may not contain \'/\'',
        "rules[0].verbs: Required value: verbs must contain at least one value",
        'rules[1].nonResourceURLs: Invalid value: []string{"/x"}: namespaced rules cannot apply to non-resource URLs',
        "rules[2].apiGroups: Required value: resource rules must supply at least one api group",
        "rules[2].resourceNames: Required value: resource names cannot apply to multiple resources",
    ]
    assert K.validate({"kind": "ClusterRole", "metadata": {"name": "system:x"},
                       "rules": [{"verbs": ["get"], "nonResourceURLs": ["/x"]}]}) == []


def test_binding_validation_messages():
    crb = {"kind": "ClusterRoleBinding", "metadata": {"name": "b"},
           "roleRef": {"apiGroup": G, "kind": "Role", "name": ""},
           "subjects": [{"kind": "ServiceAccount", "name": "sa"}, {"kind": "Robot", "name": "r"}]}
    msgs = [str(e) for e in K.validate(crb)]
    assert msgs == [
        'roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"',
        "roleRef.name: Required value",
        "subjects[0].namespace: Required value",
        'subjects[1].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"',
    ]


def test_role_ref_is_immutable_exact():
    old = {"kind": "RoleBinding", "metadata": {"name": "rb", "namespace": "a"},
           "roleRef": {"apiGroup": G, "kind": "Role", "name": "r"}, "subjects": []}
    new = {**old, "roleRef": {"apiGroup": G, "kind": "ClusterRole", "name": "view"}}
    errs = K.validate_update(new, old)
    err = invalid("RoleBinding", "rb", errs, group=G)
    assert err.code == 422
    assert err.message == ('RoleBinding.rbac.authorization.k8s.io "rb" is invalid: roleRef: Invalid value: '
                           'rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"ClusterRole", Name:"view"}: '
                           'cannot change roleRef')
    assert K.validate_update(old, old) == []


def test_strategy_defaults_and_validates():
    s = K.RbacStrategy(K.ROLE_BINDINGS)
    obj = {"metadata": {"name": "rb", "namespace": "a"}, "roleRef": {"kind": "Role", "name": "r"},
           "subjects": [{"kind": "Group", "name": "devs"}]}
    s.prepare_for_create(obj)
    assert obj["roleRef"]["apiGroup"] == G and obj["subjects"][0]["apiGroup"] == G
    assert s.validate(obj) == []
