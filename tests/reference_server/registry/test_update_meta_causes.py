"""An update's 422 lists every metadata cause as kube-apiserver 1.33 does, repeats included: `rest.BeforeUpdate`'s
`validateCommonFields` (apiserver pkg/registry/rest/update.go: `ValidateObjectMetaAccessor` with
`path.ValidatePathSegmentName`, then `ValidateObjectMetaAccessorUpdate`) before the strategy's `ValidateUpdate`,
whose `ValidateXUpdate` (pkg/apis/*/validation) calls `ValidateObjectMetaUpdate` and/or `ValidateObjectMeta` again;
the message (`ToAggregate`) lists each once (registry/updatemeta.py)."""
from __future__ import annotations

import uuid
from typing import Any

import pytest
import requests

from conformance.reference_server.registry.validation import go_time_value
from tests.reference_server.conftest import NamespaceFactory
from tests.reference_server.crds import create_crd, delete_crd, schemaless_crd

LABEL_VALUE = ('Invalid value: "-x": a valid label must be an empty string or consist of alphanumeric characters, '
               "'-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
               "'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")
ANNOTATION_KEY = ('Invalid value: "a b": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', '
                  "and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or "
                  "'123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")
KUBE_FINALIZER = 'Invalid value: "foo": name is neither a standard finalizer name nor is it fully qualified'
BAD_LABEL = ("metadata.labels", LABEL_VALUE)
POD_SPEC = {"containers": [{"name": "c", "image": "busybox"}]}
PV_SPEC = {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "hostPath": {"path": "/tmp/pv"}}


def _causes(r: requests.Response) -> list[tuple[str, str]]:
    assert r.status_code == 422, r.text
    return [(c["field"], c["message"]) for c in r.json()["details"]["causes"]]


def _create(http: requests.Session, collection: str, body: dict[str, Any]) -> dict[str, Any]:
    r = http.post(collection, json=body)
    assert r.status_code == 201, r.text
    return r.json()


def _put_meta(http: requests.Session, collection: str, obj: dict[str, Any], sub: str = "", conditional: bool = False,
              **meta: Any) -> requests.Response:
    """PUT `obj` back (to its `sub` subresource) with its metadata's keys `meta` set, unconditionally (a controller
    may have written it since: a PersistentVolume's phase), or with its resourceVersion (`conditional`: a CRD's
    and a custom resource's strategies allow no unconditional update)."""
    obj["metadata"].update(meta)
    if not conditional:
        obj["metadata"].pop("resourceVersion", None)
    return http.put(f"{collection}/{obj['metadata']['name']}{sub}", json=obj)


@pytest.mark.parametrize("path, body, times", [
    ("/api/v1/namespaces/{ns}/configmaps", {"data": {}}, 4),  # ValidateObjectMetaUpdate, ValidateConfigMap
    ("/api/v1/namespaces/{ns}/pods", {"spec": POD_SPEC}, 4),  # ValidateObjectMetaUpdate, validatePodMetadataAndSpec
    ("/api/v1/namespaces/{ns}/services", {"spec": {"ports": [{"port": 80}]}}, 4),  # ...Update, ValidateService
    ("/api/v1/persistentvolumes", {"spec": PV_SPEC}, 4),  # ValidatePersistentVolume twice, no ...MetaUpdate
    ("/apis/apps/v1/namespaces/{ns}/deployments", {"spec": {
        "selector": {"matchLabels": {"a": "b"}},
        "template": {"metadata": {"labels": {"a": "b"}}, "spec": POD_SPEC}}}, 3),  # ValidateObjectMetaUpdate only
    ("/api/v1/namespaces/{ns}/limitranges", {"spec": {"limits": []}}, 3),  # ValidateLimitRange only
    ("/apis/discovery.k8s.io/v1/namespaces/{ns}/endpointslices",
     {"addressType": "IPv4", "endpoints": []}, 3),  # ValidateEndpointSliceUpdate: ValidateEndpointSlice
    ("/apis/storage.k8s.io/v1/csinodes", {"spec": {"drivers": []}}, 4),  # ValidateCSINode, then again in ...Update
    ("/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/roles", {"rules": []}, 5),  # ValidateRole, ...Update
    ("/api/v1/nodes", {}, 4),  # ValidateNode, then ValidateNodeUpdate
    ("/apis/storage.k8s.io/v1/storageclasses", {"provisioner": "example.com/x"}, 4),  # ValidateStorageClass, ...Update
    ("/apis/batch/v1/namespaces/{ns}/jobs", {"spec": {"template": {"spec": {**POD_SPEC, "restartPolicy": "Never"}}}},
     4),  # ValidateJob, then ValidateJobUpdate
    ("/apis/policy/v1/namespaces/{ns}/poddisruptionbudgets", {"spec": {"minAvailable": 1}}, 2),  # no metadata check
    ("/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations", {"webhooks": []}, 3),  # validateX only
    ("/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations", {"spec": {
        "type": "Limited", "limited": {"nominalConcurrencyShares": 1, "limitResponse": {"type": "Reject"}}}}, 3),
])
def test_a_bad_label_is_listed_once_per_check(http: requests.Session, url: str, namespaces: NamespaceFactory,
                                              path: str, body: dict[str, Any], times: int) -> None:
    """The two common checks, then the kind's own calls; the message names it once."""
    ns = namespaces.create("upr")["metadata"]["name"]
    collection = url + path.format(ns=ns)
    name = f"upr-{uuid.uuid4().hex[:8]}"
    obj = _create(http, collection, {"metadata": {"name": name}, **body})
    r = _put_meta(http, collection, obj, labels={"a": "-x"})
    try:
        assert _causes(r) == [BAD_LABEL] * times
        assert r.json()["message"].endswith(f'"{name}" is invalid: metadata.labels: {LABEL_VALUE}')
    finally:
        if "namespaces/" not in path:
            http.delete(f"{collection}/{name}")


def test_a_namespace_judges_its_metadata_then_its_update(http: requests.Session, url: str,
                                                         namespaces: NamespaceFactory) -> None:
    """namespace strategy.go: `ValidateNamespace` then `ValidateNamespaceUpdate` (four causes); its `/status`
    (`ValidateNamespaceStatusUpdate`: `ValidateObjectMetaUpdate`) three."""
    name = namespaces.create("upr")["metadata"]["name"]
    collection = f"{url}/api/v1/namespaces"
    r = _put_meta(http, collection, http.get(f"{collection}/{name}").json(), labels={"a": "-x"})
    assert _causes(r) == [BAD_LABEL] * 4
    r = _put_meta(http, collection, http.get(f"{collection}/{name}").json(), "/status", labels={"a": "-x"})
    assert _causes(r) == [BAD_LABEL] * 3


def test_a_persistent_volume_status_write_validates_the_metadata_update_only(http: requests.Session,
                                                                             url: str) -> None:
    """`ValidatePersistentVolumeStatusUpdate` is `ValidateObjectMetaUpdate`: three causes."""
    collection = f"{url}/api/v1/persistentvolumes"
    name = f"upr-{uuid.uuid4().hex[:8]}"
    obj = _create(http, collection, {"metadata": {"name": name}, "spec": PV_SPEC})
    try:
        assert _causes(_put_meta(http, collection, obj, "/status", labels={"a": "-x"})) == [BAD_LABEL] * 3
    finally:
        http.delete(f"{collection}/{name}")


def test_a_status_update_that_judges_the_status_alone(http: requests.Session, url: str) -> None:
    """`ValidatePriorityLevelConfigurationStatusUpdate` judges no metadata: the common checks' two causes."""
    collection = f"{url}/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations"
    name = f"upr-{uuid.uuid4().hex[:8]}"
    obj = _create(http, collection, {"metadata": {"name": name}, "spec": {
        "type": "Limited", "limited": {"nominalConcurrencyShares": 1, "limitResponse": {"type": "Reject"}}}})
    try:
        assert _causes(_put_meta(http, collection, obj, "/status", labels={"a": "-x"})) == [BAD_LABEL] * 2
    finally:
        http.delete(f"{collection}/{name}")


def test_each_check_lists_labels_then_annotations(http: requests.Session, url: str,
                                                  namespaces: NamespaceFactory) -> None:
    """Every metadata check judges the labels, then the annotations: the pairs repeat in that order."""
    ns = namespaces.create("upr")["metadata"]["name"]
    collection = f"{url}/api/v1/namespaces/{ns}/configmaps"
    obj = _create(http, collection, {"metadata": {"name": "cm"}})
    r = _put_meta(http, collection, obj, labels={"a": "-x"}, annotations={"a b": "v"})
    assert _causes(r) == [BAD_LABEL, ("metadata.annotations", ANNOTATION_KEY)] * 4
    assert r.json()["message"] == (f'ConfigMap "cm" is invalid: [metadata.labels: {LABEL_VALUE}, '
                                   f"metadata.annotations: {ANNOTATION_KEY}]")


def test_core_finalizer_rule_is_the_kinds_own(http: requests.Session, url: str, namespaces: NamespaceFactory) -> None:
    """An unqualified non-standard finalizer passes the common (generic) checks; core's `ValidateObjectMetaUpdate`
    and `ValidateObjectMeta` each refuse it at its index. A qualified name's error is apimachinery's
    `ValidateFinalizers`', without an index, in the common check only for a Deployment (`ValidateObjectMetaUpdate`
    judges no name)."""
    ns = namespaces.create("upr")["metadata"]["name"]
    collection = f"{url}/api/v1/namespaces/{ns}/configmaps"
    obj = _create(http, collection, {"metadata": {"name": "cm"}})
    assert _causes(_put_meta(http, collection, obj, finalizers=["foo"])) == [("metadata.finalizers[0]",
                                                                              KUBE_FINALIZER)] * 2
    deployments = f"{url}/apis/apps/v1/namespaces/{ns}/deployments"
    obj = _create(http, deployments, {"metadata": {"name": "d"}, "spec": {
        "selector": {"matchLabels": {"a": "b"}}, "template": {"metadata": {"labels": {"a": "b"}}, "spec": POD_SPEC}}})
    r = _put_meta(http, deployments, obj, finalizers=["a/b/c"])
    assert [(f, m.split(": ")[1]) for f, m in _causes(r)] == [("metadata.finalizers", '"a/b/c"')]


def test_an_object_being_deleted_takes_no_new_finalizer(http: requests.Session, url: str,
                                                        namespaces: NamespaceFactory) -> None:
    """`ValidateNoNewFinalizers` in the common update check and in the ConfigMap's `ValidateObjectMetaUpdate`."""
    ns = namespaces.create("upr")["metadata"]["name"]
    collection = f"{url}/api/v1/namespaces/{ns}/configmaps"
    _create(http, collection, {"metadata": {"name": "cm", "finalizers": ["example.com/a"]}})
    assert http.delete(f"{collection}/cm").status_code == 200
    obj = http.get(f"{collection}/cm").json()
    r = _put_meta(http, collection, obj, finalizers=["example.com/a", "example.com/b"])
    forbidden = ("metadata.finalizers", ('Forbidden: no new finalizers can be added if the object is being deleted, '
                                         'found new finalizers []string{"example.com/b"}'))
    assert _causes(r) == [forbidden] * 2
    _put_meta(http, collection, http.get(f"{collection}/cm").json(), finalizers=[])


def test_immutable_deletion_fields_print_as_go_does(http: requests.Session, url: str,
                                                    namespaces: NamespaceFactory) -> None:
    """`ValidateImmutableField` of a `*metav1.Time` prints its `String()`, of a `*int64` the number; a grace period
    on an object not being deleted is immutable too (it was stored as sent)."""
    ns = namespaces.create("upr")["metadata"]["name"]
    collection = f"{url}/api/v1/namespaces/{ns}/configmaps"
    obj = _create(http, collection, {"metadata": {"name": "cm"}})
    r = _put_meta(http, collection, obj, deletionTimestamp="2026-01-02T03:04:05Z", deletionGracePeriodSeconds=30)
    assert _causes(r) == [
        ("metadata.deletionTimestamp", "Invalid value: 2026-01-02 03:04:05 +0000 UTC: field is immutable"),
        ("metadata.deletionGracePeriodSeconds", "Invalid value: 30: field is immutable")] * 2
    assert http.get(f"{collection}/cm").json()["metadata"].get("deletionGracePeriodSeconds") is None


def test_go_time_value() -> None:
    assert go_time_value("2026-01-02T03:04:05.250Z") == "2026-01-02 03:04:05.25 +0000 UTC"
    assert go_time_value("2026-01-02T04:04:05+01:00") == "2026-01-02 03:04:05 +0000 UTC"


def test_a_crd_and_its_custom_resources_validate_the_metadata_update_only(http: requests.Session, url: str,
                                                                          namespaces: NamespaceFactory) -> None:
    """`ValidateCustomResourceDefinitionUpdate` and the custom resource validator's `ValidateUpdate` call
    apimachinery's `ValidateObjectMetaUpdate` (`...AccessorUpdate`) alone: three causes each."""
    ns = namespaces.create("upr")["metadata"]["name"]
    group = f"upr{uuid.uuid4().hex[:8]}.example.com"
    crd_name = f"widgets.{group}"
    assert create_crd(http, url, schemaless_crd(group, "widgets", "Widget")).status_code == 201
    try:
        crds = f"{url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
        r = _put_meta(http, crds, http.get(f"{crds}/{crd_name}").json(), conditional=True, labels={"a": "-x"})
        assert _causes(r) == [BAD_LABEL] * 3
        assert r.json()["message"] == (f'CustomResourceDefinition.apiextensions.k8s.io "{crd_name}" is invalid: '
                                       f"metadata.labels: {LABEL_VALUE}")
        widgets = f"{url}/apis/{group}/v1/namespaces/{ns}/widgets"
        obj = _create(http, widgets, {"apiVersion": f"{group}/v1", "kind": "Widget", "metadata": {"name": "w"}})
        assert _causes(_put_meta(http, widgets, obj, conditional=True, labels={"a": "-x"})) == [BAD_LABEL] * 3
    finally:
        delete_crd(http, url, crd_name)


def test_a_service_refused_its_cluster_ip_lists_that_cause_alone(http: requests.Session, url: str,
                                                                 namespaces: NamespaceFactory) -> None:
    """`beginUpdate` allocates (storage.go, alloc.go `allocIPs`) before `rest.BeforeUpdate`: its error is the 422's
    only cause, no common check's (a generateName's `/`) before it."""
    ns = namespaces.create("upr")["metadata"]["name"]
    services = f"{url}/api/v1/namespaces/{ns}/services"
    held = _create(http, services, {"metadata": {"name": "held"}, "spec": {"ports": [{"port": 80}]}})
    ip = held["spec"]["clusterIP"]
    ext = _create(http, services, {"metadata": {"name": "ext"},
                                   "spec": {"type": "ExternalName", "externalName": "example.com"}})
    ext["spec"] = {"type": "ClusterIP", "clusterIP": ip, "ports": [{"port": 80}]}
    r = _put_meta(http, services, ext, generateName="a/b-")
    refused = f'Invalid value: []string{{"{ip}"}}: failed to allocate IP {ip}: provided IP is already allocated'
    assert _causes(r) == [("spec.clusterIPs", refused)]


def test_a_kind_that_returns_early_keeps_its_list_after_the_common_checks() -> None:
    """A custom resource validator whose `ValidateTypeMeta` refuses returns that error alone: the common checks'
    causes, then it, no copy of the kind's metadata calls."""
    from conformance.reference_server.apierrors import field_invalid
    from conformance.reference_server.registry.kinds import CONTENT_KINDS
    from conformance.reference_server.registry.strategy import Strategy
    from conformance.reference_server.registry.updatemeta import update_causes

    strategy = Strategy(CONTENT_KINDS[0])
    old = {"metadata": {"name": "cm", "namespace": "ns", "uid": "u"}}
    new = {"metadata": {**old["metadata"], "labels": {"a": "-x"}}}
    kind = field_invalid("kind", "Other", "must be Widget")
    causes = [(e.field, e.body) for e in update_causes(strategy, new, old, [kind])]
    assert causes == [BAD_LABEL, BAD_LABEL, ("kind", 'Invalid value: "Other": must be Widget')]
    causes = [(e.field, e.body) for e in update_causes(strategy, new, old, strategy.validate_update(new, old))]
    assert causes == [BAD_LABEL] * 4  # ConfigMap: `UM` after the two common checks


IMMUTABLE = "Forbidden: field is immutable when `immutable` is set"


def test_a_config_map_lists_its_immutable_data_between_its_metadata_calls(http: requests.Session, url: str,
                                                                          namespaces: NamespaceFactory) -> None:
    """`ValidateConfigMapUpdate`: `ValidateObjectMetaUpdate`, the `immutable` checks, then `ValidateConfigMap`
    (its `ValidateObjectMeta`, then the keys): `UCMV`."""
    ns = namespaces.create("upr")["metadata"]["name"]
    collection = f"{url}/api/v1/namespaces/{ns}/configmaps"
    obj = _create(http, collection, {"metadata": {"name": "cm"}, "data": {"a": "b"}, "immutable": True})
    obj["data"] = {"a": "c", "b c": "d"}
    causes = _causes(_put_meta(http, collection, obj, labels={"a": "-x"}))
    assert [f for f, _ in causes] == ["metadata.labels"] * 3 + ["data", "metadata.labels", "data[b c]"]
    assert causes[3] == ("data", IMMUTABLE)


def test_a_secret_lists_its_type_and_data_checks_between_its_metadata_calls(http: requests.Session, url: str,
                                                                            namespaces: NamespaceFactory) -> None:
    """`ValidateSecretUpdate`: `ValidateObjectMetaUpdate`, the immutable `type`, then `ValidateSecret` (its
    `ValidateObjectMeta`, then the type's keys)."""
    ns = namespaces.create("upr")["metadata"]["name"]
    collection = f"{url}/api/v1/namespaces/{ns}/secrets"
    obj = _create(http, collection, {"metadata": {"name": "s"}, "data": {"a": "YQ=="}})
    obj["type"] = "kubernetes.io/tls"
    assert _causes(_put_meta(http, collection, obj, labels={"a": "-x"})) == [BAD_LABEL] * 3 + [
        ("type", 'Invalid value: "kubernetes.io/tls": field is immutable'), BAD_LABEL,
        ("data[tls.crt]", "Required value"), ("data[tls.key]", "Required value")]


def test_a_service_lists_its_update_checks_between_its_metadata_calls(http: requests.Session, url: str,
                                                                      namespaces: NamespaceFactory) -> None:
    """`ValidateServiceUpdate`: `ValidateObjectMetaUpdate`, the ClusterIPs' and IP families' update rules, then
    `ValidateService`."""
    ns = namespaces.create("upr")["metadata"]["name"]
    collection = f"{url}/api/v1/namespaces/{ns}/services"
    obj = _create(http, collection, {"metadata": {"name": "s"}, "spec": {"ports": [{"port": 80}]}})
    old_ip = obj["spec"]["clusterIP"]
    new_ip = "10.96.0.2" if old_ip != "10.96.0.2" else "10.96.0.3"
    obj["spec"]["clusterIP"], obj["spec"]["clusterIPs"] = new_ip, [new_ip]
    causes = _causes(_put_meta(http, collection, obj, labels={"a": "-x"}))
    assert causes == [BAD_LABEL] * 3 + [
        ("spec.clusterIPs[0]", f'Invalid value: []string{{"{new_ip}"}}: may not change once set'), BAD_LABEL]


def test_a_storage_class_judges_itself_then_its_update(http: requests.Session, url: str) -> None:
    """storageclass strategy.go: `ValidateStorageClass` (metadata, then content), then
    `ValidateStorageClassUpdate` (metadata update, then the immutable fields): `MVUC`."""
    collection = f"{url}/apis/storage.k8s.io/v1/storageclasses"
    name = f"upr-{uuid.uuid4().hex[:8]}"
    obj = _create(http, collection, {"metadata": {"name": name}, "provisioner": "example.com/x"})
    try:
        obj["provisioner"] = "-bad-"
        causes = _causes(_put_meta(http, collection, obj, labels={"a": "-x"}))
        assert [f for f, _ in causes] == ["metadata.labels"] * 3 + ["provisioner", "metadata.labels", "provisioner"]
        assert causes[-1] == ("provisioner", "Forbidden: updates to provisioner are forbidden.")
    finally:
        http.delete(f"{collection}/{name}")


def test_a_namespace_lists_its_spec_between_its_metadata_calls() -> None:
    """`ValidateNamespace` (metadata, then `spec.finalizers`), then `ValidateNamespaceUpdate`: `MVU` (its
    `PrepareForUpdate` keeps the stored finalizers, so only a stored bad one is judged: unit level)."""
    from conformance.reference_server.registry.namespace import NamespaceStrategy
    from conformance.reference_server.registry.updatemeta import update_causes

    strategy = NamespaceStrategy()
    old = {"metadata": {"name": "ns", "uid": "u"}, "spec": {"finalizers": ["kubernetes"]}}
    new = {"metadata": {**old["metadata"], "labels": {"a": "-x"}}, "spec": {"finalizers": ["a/b/c"]}}
    errs = strategy.validate_update(new, old)
    assert [e.field for e in update_causes(strategy, new, old, errs)] == (
        ["metadata.labels"] * 3 + ["spec.finalizers"] * len([e for e in errs if e.field == "spec.finalizers"])
        + ["metadata.labels"])
    assert any(e.field == "spec.finalizers" for e in errs)


def test_a_kind_that_judges_itself_twice_lists_its_errors_twice(http: requests.Session, url: str,
                                                                namespaces: NamespaceFactory) -> None:
    """A RoleBinding's strategy runs `ValidateRoleBinding`, then `ValidateRoleBindingUpdate` (`ValidateRoleBinding`
    again, `ValidateObjectMetaUpdate`, the `roleRef` check): `MVMVUC`; a PersistentVolume's `ValidatePersistentVolume`
    twice, then its immutable fields: `MVMVC`."""
    ns = namespaces.create("upr")["metadata"]["name"]
    bindings = f"{url}/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/rolebindings"
    obj = _create(http, bindings, {"metadata": {"name": "rb"}, "subjects": [
        {"kind": "User", "name": "u", "apiGroup": "rbac.authorization.k8s.io"}],
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"}})
    obj["subjects"] = [{"kind": "Bad", "name": "u"}]
    obj["roleRef"]["name"] = "edit"
    causes = _causes(_put_meta(http, bindings, obj, labels={"a": "-x"}))
    subject = ("subjects[0].kind", 'Unsupported value: "Bad": supported values: "ServiceAccount", "User", "Group"')
    assert causes == [BAD_LABEL] * 3 + [subject, BAD_LABEL, subject, BAD_LABEL] + [
        ("roleRef", ('Invalid value: rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"ClusterRole", '
                     'Name:"edit"}: cannot change roleRef'))]
    collection = f"{url}/api/v1/persistentvolumes"
    name = f"upr-{uuid.uuid4().hex[:8]}"
    obj = _create(http, collection, {"metadata": {"name": name}, "spec": PV_SPEC})
    try:
        obj["spec"] = {**obj["spec"], "accessModes": ["Bad"], "volumeMode": "Block"}
        causes = _causes(_put_meta(http, collection, obj, labels={"a": "-x"}))
        assert [f for f, _ in causes] == ["metadata.labels"] * 3 + ["spec.accessModes", "metadata.labels",
                                                                    "spec.accessModes", "volumeMode"]
    finally:
        http.delete(f"{collection}/{name}")


def test_a_job_judges_itself_then_its_update(http: requests.Session, url: str, namespaces: NamespaceFactory) -> None:
    """job strategy.go: `ValidateJob` (metadata, then the spec), then `ValidateJobUpdate` (metadata update, then
    `ValidateJobSpecUpdate`, which judges the spec again): `MVUC`."""
    ns = namespaces.create("upr")["metadata"]["name"]
    collection = f"{url}/apis/batch/v1/namespaces/{ns}/jobs"
    obj = _create(http, collection, {"metadata": {"name": "j"}, "spec": {
        "template": {"spec": {**POD_SPEC, "restartPolicy": "Never"}}}})
    obj["spec"]["parallelism"] = -1
    causes = _causes(_put_meta(http, collection, obj, labels={"a": "-x"}))
    parallelism = ("spec.parallelism", "Invalid value: -1: must be greater than or equal to 0")
    assert causes == [BAD_LABEL] * 3 + [parallelism, BAD_LABEL, parallelism]


def test_a_volume_attachment_judges_itself_twice_then_its_read_only_spec(http: requests.Session, url: str) -> None:
    """volumeattachment strategy.go: `ValidateVolumeAttachment`, then `ValidateVolumeAttachmentUpdate` (the same
    again, then `spec: field is immutable`): `MVMVC`."""
    collection = f"{url}/apis/storage.k8s.io/v1/volumeattachments"
    name = f"upr-{uuid.uuid4().hex[:8]}"
    obj = _create(http, collection, {"metadata": {"name": name}, "spec": {
        "attacher": "example.com", "nodeName": "n1", "source": {"persistentVolumeName": "pv"}}})
    try:
        obj["spec"]["nodeName"] = "Bad_Node"
        causes = _causes(_put_meta(http, collection, obj, labels={"a": "-x"}))
        assert [f for f, _ in causes] == ["metadata.labels"] * 3 + ["spec.nodeName", "metadata.labels",
                                                                    "spec.nodeName", "spec"]
    finally:
        http.delete(f"{collection}/{name}")
