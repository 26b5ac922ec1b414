"""wire/legacyscheme.py: json.go `gvkWithDefaults`, `UseOrCreateObject` / `Scheme.New` (runtime/error.go's
`notRegisteredErr` words) and the versioning codec's conversion, for the legacy scheme's kinds."""
from __future__ import annotations

import pytest

from conformance.reference_server.wire import legacyscheme as L

SCHEME = "pkg/api/legacyscheme/scheme.go:30"
CONFIGMAP = ("", L.INTERNAL, "ConfigMap")


@pytest.mark.parametrize("api_version,kind,default,expected", [
    ("v2", "ConfigMap", "v1", L.Read("", "v2", "ConfigMap",
                                     f'no kind "ConfigMap" is registered for version "v2" in scheme "{SCHEME}"')),
    ("", "", "v1", L.Read("", "v1", "ConfigMap")),
    ("/", "", "v1", L.Read("", "v1", "ConfigMap")),  # `ParseGroupVersion("/")`: none
    ("/v1", "", "v1", L.Read("", "v1", "ConfigMap")),
    ("a/", "", "v1", L.Read("a", "", "ConfigMap", "Object 'apiVersion' is missing", missing_version=True)),
    ("v1", "Secret", "v1", L.Read("", "v1", "Secret", "converting (v1.Secret) to (core.ConfigMap): unknown "
                                  "conversion", unconverted=True)),
    ("v1", "DeleteOptions", "v1", L.Read("", "v1", "DeleteOptions", "converting (v1.DeleteOptions) to "
                                         "(core.ConfigMap): unknown conversion", unconverted=True)),
    ("v7", "APIGroup", "v1", L.Read("", "v7", "APIGroup", "converting (v1.APIGroup) to (core.ConfigMap): unknown "
                                    "conversion", unconverted=True)),  # unversioned: any version
    ("", "", None, L.Read("", L.INTERNAL, "ConfigMap", internal=True)),  # `DecodeInto`: no default
    ("apps/__internal", "ConfigMap", None, L.Read("apps", L.INTERNAL, "ConfigMap", 'no kind "ConfigMap" is '
                                                  f'registered for the internal version of group "apps" in scheme '
                                                  f'"{SCHEME}"')),
])
def test_read_into_a_config_map(api_version, kind, default, expected):
    assert L.read(api_version, kind, CONFIGMAP, default) == expected


def test_a_named_group_s_kinds():
    deployment = ("apps", L.INTERNAL, "Deployment")
    assert L.read("extensions/v1beta1", "Deployment", deployment, "v1") == L.Read("extensions", "v1beta1", "Deployment")
    assert L.read("apps/v1", "Scale", deployment, "v1").error == \
        f'no kind "Scale" is registered for version "apps/v1" in scheme "{SCHEME}"'
    assert L.read("apps/v1beta2", "Scale", deployment, "v1").error == \
        "converting (v1beta2.Scale) to (apps.Deployment): unknown conversion"
    event = ("events.k8s.io", L.INTERNAL, "Event")  # events.k8s.io's internal type is core's
    assert L.read("v1", "Pod", event, "v1").error == "converting (v1.Pod) to (core.Event): unknown conversion"
    assert L.holds("apps") and L.holds("") and not L.holds("apiextensions.k8s.io")
    assert not L.holds("apiregistration.k8s.io") and not L.holds("apidiscovery.k8s.io")


def test_a_versioned_into_object():
    """The dispatcher decodes into the versioned object: its own kind is no conversion."""
    assert L.read("", "", ("", "v1", "ConfigMap")) == L.Read("", "v1", "ConfigMap")
    assert L.read("v1", "Secret", ("", "v1", "ConfigMap")).unconverted
