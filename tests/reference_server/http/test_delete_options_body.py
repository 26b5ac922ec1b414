"""A DELETE's DeleteOptions body as kube-apiserver 1.33 reads it (http/deleteoptions.py): apiserver
handlers/delete.go decodes a non-empty body and then reads nothing of the query (its `dryRun` neither); the body's
decoding error reaches `scope.err` unwrapped, which `ErrorToAPIStatus` answers as a 500 with the error's text and
no reason. Each answered otherwise before (the query's `dryRun` honoured too; a 400 `invalid value for <field>`)."""
from __future__ import annotations

import pytest

JSON = {"Content-Type": "application/json"}
SCHEME = "pkg/apis/meta/internalversion/scheme/register.go:27"


def _failed(r, message):
    body = r.json()
    assert r.status_code == 500, (r.status_code, body)
    assert body == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": message,
                    "code": 500}


@pytest.fixture
def cms(http, url, namespaces):
    """A namespace's ConfigMaps URL, with `c` in it."""
    base = f"{url}/api/v1/namespaces/{namespaces.create()['metadata']['name']}/configmaps"
    assert http.post(base, json={"metadata": {"name": "c"}}).status_code == 201
    return base


def test_a_body_s_options_leave_the_query_s_unread(http, cms):
    """`DeleteResource`: with a body, `DecodeParameters` of the query is never called: its `dryRun=All` does not
    make the deletion a dry run, its unparsable `gracePeriodSeconds` is no 400."""
    r = http.delete(f"{cms}/c", params={"dryRun": "All", "gracePeriodSeconds": "soon"}, data=b"{}", headers=JSON)
    assert r.status_code == 200, r.text
    assert http.get(f"{cms}/c").status_code == 404


def test_a_body_s_dry_run_is_honoured_and_a_collection_s_likewise(http, cms):
    r = http.delete(f"{cms}/c", data=b'{"dryRun":["All"]}', headers=JSON)
    assert r.status_code == 200, r.text
    assert http.get(f"{cms}/c").status_code == 200
    r = http.delete(cms, params={"dryRun": "All"}, data=b'{"kind":"DeleteOptions","apiVersion":"v1"}', headers=JSON)
    assert r.status_code == 200, r.text
    assert http.get(f"{cms}/c").status_code == 404


def test_a_repeated_dry_run_is_decoded_into_the_first(http, cms):
    """sigs.k8s.io/json decodes the second `dryRun` into the first's slice: its `null` item leaves the string the
    first put there (`["All"]`, a dry run), where the last value alone would be `[""]` (a 422)."""
    r = http.delete(f"{cms}/c", data=b'{"dryRun":["All","All"],"dryRun":[null]}', headers=JSON)
    assert r.status_code == 200, r.text
    assert http.get(f"{cms}/c").status_code == 200
    r = http.delete(f"{cms}/c", data=b'{"dryRun":[null]}', headers=JSON)
    assert r.status_code == 422 and r.json()["message"] == (
        'DeleteOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{""}: supported values: "All"')


@pytest.mark.parametrize("body, message", [
    (b'{"gracePeriodSeconds":"5"}',
     "json: cannot unmarshal string into Go struct field DeleteOptions.gracePeriodSeconds of type int64"),
    (b'{"gracePeriodSeconds":1.5}',
     "json: cannot unmarshal number 1.5 into Go struct field DeleteOptions.gracePeriodSeconds of type int64"),
    (b'{"orphanDependents":"true"}',
     "json: cannot unmarshal string into Go struct field DeleteOptions.orphanDependents of type bool"),
    (b'{"propagationPolicy":1}',
     "json: cannot unmarshal number into Go struct field DeleteOptions.propagationPolicy of type "
     "v1.DeletionPropagation"),
    (b'{"preconditions":{"uid":1}}',
     "json: cannot unmarshal number into Go struct field Preconditions.preconditions.uid of type types.UID"),
    (b'{"dryRun":"All"}', "json: cannot unmarshal string into Go struct field DeleteOptions.dryRun of type []string"),
    (b'{"gracePeriodSeconds":"x","gracePeriodSeconds":1}',
     "json: cannot unmarshal string into Go struct field DeleteOptions.gracePeriodSeconds of type int64"),
    (b'{"kind":"Pod","apiVersion":"v1"}', f'no kind "Pod" is registered for version "v1" in scheme "{SCHEME}"'),
    (b'{"kind":"CreateOptions"}', "converting (v1.CreateOptions) to (v1.DeleteOptions): unknown conversion"),
    (b'{"apiVersion":"a/b/c"}', "unexpected GroupVersion string: a/b/c"),
    (b'{"apiVersion":"foo/"}', "Object 'apiVersion' is missing in '{\"apiVersion\":\"foo/\"}'"),
    (b'{"Kind":5}', "couldn't get version/kind; json parse error: json: cannot unmarshal number into Go struct "
                    "field .kind of type string"),
    (b" ", "couldn't get version/kind; json parse error: unexpected end of JSON input"),
])
def test_a_body_decoding_error_is_a_500_in_the_decoder_s_words(http, cms, body, message):
    _failed(http.delete(f"{cms}/c", data=body, headers=JSON), message)
    _failed(http.delete(cms, data=body, headers=JSON), message)
    assert http.get(f"{cms}/c").status_code == 200


def _wrong(value: str, struct: str, path: str, go_type: str) -> str:
    return f"json: cannot unmarshal {value} into Go struct field {struct}.{path} of type {go_type}"


@pytest.mark.parametrize("body, message", [
    (b'{"kind":"CreateOptions","dryRun":"All"}', _wrong("string", "CreateOptions", "dryRun", "[]string")),
    (b'{"kind":"CreateOptions","fieldManager":1,"dryRun":"x"}',  # the first in the body's order
     _wrong("number", "CreateOptions", "fieldManager", "string")),
    (b'{"kind":"UpdateOptions","apiVersion":"v1","fieldValidation":true}',
     _wrong("bool", "UpdateOptions", "fieldValidation", "string")),
    (b'{"kind":"PatchOptions","apiVersion":"meta.k8s.io/v1","force":"yes"}',
     _wrong("string", "PatchOptions", "force", "bool")),
    (b'{"kind":"GetOptions","apiVersion":"meta.k8s.io/v1","resourceVersion":5}',
     _wrong("number", "GetOptions", "resourceVersion", "string")),
    (b'{"kind":"ListOptions","apiVersion":"meta.k8s.io/v1","limit":1.5}',
     _wrong("number 1.5", "ListOptions", "limit", "int64")),
    (b'{"kind":"ListOptions","apiVersion":"meta.k8s.io/v1","resourceVersionMatch":0}',
     _wrong("number", "ListOptions", "resourceVersionMatch", "v1.ResourceVersionMatch")),
    (b'{"kind":"ListOptions","apiVersion":"meta.k8s.io/__internal","LabelSelector":"a=b"}',
     _wrong("string", "ListOptions", "LabelSelector", "labels.Selector")),
    (b'{"kind":"WatchEvent","apiVersion":"meta.k8s.io/__internal","Object":{}}',
     _wrong("object", "InternalEvent", "Object", "runtime.Object")),
    (b'{"kind":"TableOptions","apiVersion":"meta.k8s.io/v1beta1","includeObject":[]}',
     _wrong("array", "TableOptions", "includeObject", "v1.IncludeObjectPolicy")),
    ((b'{"kind":"Table","apiVersion":"meta.k8s.io/v1","rows":[{"cells":[1,"x",{}],"object":{"a":1},'
      b'"conditions":[{"status":true}]}]}'),
     _wrong("bool", "TableRowCondition", "rows.conditions.status", "v1.ConditionStatus")),
    (b'{"kind":"Table","apiVersion":"meta.k8s.io/v1","rows":[{"cells":{}}]}',
     _wrong("object", "TableRow", "rows.cells", "[]interface {}")),
    (b'{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"remainingItemCount":"1"}}',
     _wrong("string", "ListMeta", "metadata.remainingItemCount", "int64")),
    (b'{"kind":"Table","apiVersion":"meta.k8s.io/v1","columnDefinitions":[{"priority":2147483648}]}',
     _wrong("number 2147483648", "TableColumnDefinition", "columnDefinitions.priority", "int32")),
    (b'{"kind":"APIGroup","apiVersion":"v1","versions":[{"version":1}]}',
     _wrong("number", "GroupVersionForDiscovery", "versions.version", "string")),
    (b'{"kind":"APIGroup","preferredVersion":"v1"}', _wrong("string", "APIGroup", "preferredVersion",
                                                            "v1.GroupVersionForDiscovery")),
    (b'{"kind":"APIGroupList","groups":[{"serverAddressByClientCIDRs":[1]}]}',
     _wrong("number", "APIGroup", "groups.serverAddressByClientCIDRs", "v1.ServerAddressByClientCIDR")),
    (b'{"kind":"APIVersions","versions":[1]}', _wrong("number", "APIVersions", "versions", "string")),
    (b'{"kind":"APIResourceList","resources":[{"verbs":"get"}]}',
     _wrong("string", "APIResource", "resources.verbs", "v1.Verbs")),
    (b'{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1beta1","items":{}}',
     _wrong("object", "PartialObjectMetadataList", "items", "[]v1.PartialObjectMetadata")),
    (b'{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","items":{"a":1}}',  # (a list's object
     _wrong("object", "PartialObjectMetadataList", "items", "[]v1.PartialObjectMetadata")),  # was walked as one)
    # what decodes is then the conversion's error: a RawExtension and an `interface{}` take anything, an unknown
    # (or differently cased) key is skipped, `null` leaves a field as it is
    (b'{"kind":"Table","apiVersion":"meta.k8s.io/v1","rows":[{"cells":[1,[],null],"object":5}]}',
     "converting (v1.Table) to (v1.DeleteOptions): unknown conversion"),
    (b'{"kind":"GetOptions","ResourceVersion":5,"resourceVersion":null}',
     "converting (v1.GetOptions) to (v1.DeleteOptions): unknown conversion"),
])
def test_a_body_of_another_meta_kind_is_decoded_into_it_first(http, cms, body, message):
    """The JSON serializer decodes the body into the kind the scheme made for it (`UseOrCreateObject`, then
    `unmarshal`) before the versioning codec's conversion fails; before, every such body was answered the
    conversion's error (wire/metakinds.py's kinds were outside the field model)."""
    _failed(http.delete(f"{cms}/c", data=body, headers=JSON), message)


def test_a_yaml_body_of_another_meta_kind_meets_its_keys_sorted(http, cms):
    """sigs.k8s.io/yaml's `YAMLToJSON` writes a Go map: `dryRun` comes before `fieldManager`."""
    r = http.delete(f"{cms}/c", data=b"kind: CreateOptions\nfieldManager: 1\ndryRun: x\n",
                    headers={"Content-Type": "application/yaml"})
    _failed(r, _wrong("string", "CreateOptions", "dryRun", "[]string"))


def test_a_namespace_s_delete_body_too(http, url, namespaces):
    name = namespaces.create()["metadata"]["name"]
    _failed(http.delete(f"{url}/api/v1/namespaces/{name}", data=b'{"gracePeriodSeconds":true}', headers=JSON),
            "json: cannot unmarshal bool into Go struct field DeleteOptions.gracePeriodSeconds of type int64")
    r = http.delete(f"{url}/api/v1/namespaces/{name}", params={"dryRun": "All"}, data=b"null", headers=JSON)
    assert r.status_code == 200 and r.json()["status"]["phase"] == "Terminating"


def test_a_protobuf_body_s_options_likewise(http, cms):
    """What typed clients configured for protobuf send (client-go's `Body(&opts)`): the body's options only."""
    from conformance.reference_server.wire import protobuf
    body = protobuf.encode({"kind": "DeleteOptions", "apiVersion": "meta.k8s.io/v1", "dryRun": ["All"],
                            "gracePeriodSeconds": 0})
    r = http.delete(f"{cms}/c", data=body, headers={"Content-Type": "application/vnd.kubernetes.protobuf"})
    assert r.status_code == 200, r.text
    assert http.get(f"{cms}/c").status_code == 200
    body = protobuf.encode({"kind": "DeleteOptions", "apiVersion": "v1", "propagationPolicy": "Background"})
    r = http.delete(f"{cms}/c", params={"dryRun": "All"}, data=body,
                    headers={"Content-Type": "application/vnd.kubernetes.protobuf"})
    assert r.status_code == 200, r.text
    assert http.get(f"{cms}/c").status_code == 404


def test_a_custom_resource_s_delete_body_too(http, url, namespaces):
    """crdHandler serves a custom resource's DELETE with the same `DeleteResource` (and its collection's)."""
    from ..crds import create_crd, delete_crd, schemaless_crd
    ns = namespaces.create()["metadata"]["name"]
    r = create_crd(http, url, schemaless_crd("delopts.example.com", "delthings", "DelThing"))
    assert r.status_code in (201, 409), r.text
    try:
        base = f"{url}/apis/delopts.example.com/v1/namespaces/{ns}/delthings"
        body = {"apiVersion": "delopts.example.com/v1", "kind": "DelThing", "metadata": {"name": "t"}}
        assert http.post(base, json=body).status_code == 201
        for path in (f"{base}/t", base):
            _failed(http.delete(path, data=b'{"dryRun":[1]}', headers=JSON),
                    "json: cannot unmarshal number into Go struct field DeleteOptions.dryRun of type string")
        r = http.delete(f"{base}/t", params={"dryRun": "All"}, data=b'{"propagationPolicy":"Background"}',
                        headers=JSON)
        assert r.status_code == 200, r.text
        assert http.get(f"{base}/t").status_code == 404
    finally:  # (the shared server's discovery lists no group of ours after)
        delete_crd(http, url, "delthings.delopts.example.com")
