"""kubectl 1.33 and the official client meet admissionregistration.k8s.io/v1 (registry/admissionregistration.py) as
on a kind cluster: `apply -f` of a webhook configuration, a policy and its binding, `get` with printers.go's columns,
a refused configuration with upstream's message, and AdmissionregistrationV1Api's typed calls."""
from __future__ import annotations

import uuid
from pathlib import Path
from typing import Iterator

import pytest

from .test_real_clients import AGE, Kube, kube, serve_kube, table  # noqa: F401 - kube: a fixture

MANIFEST = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {{name: {u}}}
webhooks:
- name: pods.{u}.example.com
  clientConfig:
    service: {{namespace: default, name: hooks, path: /validate}}
  rules:
  - {{operations: [CREATE, UPDATE], apiGroups: [""], apiVersions: [v1], resources: [pods]}}
  sideEffects: None
  admissionReviewVersions: [v1]
  failurePolicy: Ignore
- name: svc.{u}.example.com
  clientConfig: {{url: "https://hooks.example.com/svc"}}
  rules:
  - {{operations: ["*"], apiGroups: [""], apiVersions: [v1], resources: [services]}}
  sideEffects: NoneOnDryRun
  admissionReviewVersions: [v1, v1beta1]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {{name: {u}}}
spec:
  matchConstraints:
    resourceRules:
    - {{operations: [CREATE], apiGroups: [apps], apiVersions: [v1], resources: [deployments]}}
  validations:
  - expression: "object.spec.replicas <= 5"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {{name: {u}}}
spec:
  policyName: {u}
  validationActions: [Deny]
"""


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kube]:
    yield from serve_kube(tmp_path_factory, "admissionregistration", flavor="bare")


def test_kubectl_apply_and_get(kube: Kube, tmp_path: Path) -> None:
    u = f"ar-{uuid.uuid4().hex[:6]}"
    manifest = tmp_path / "m.yaml"
    manifest.write_text(MANIFEST.format(u=u))
    try:
        assert kube.ok("apply", "-f", str(manifest)) == (
            f"validatingwebhookconfiguration.admissionregistration.k8s.io/{u} created\n"
            f"validatingadmissionpolicy.admissionregistration.k8s.io/{u} created\n"
            f"validatingadmissionpolicybinding.admissionregistration.k8s.io/{u} created\n")
        # again: kubectl's three-way patch replaces the atomic `rules` lists (the live ones carry the defaulted
        # `scope`), the defaults come back, so nothing changes and the generation stays
        assert kube.ok("apply", "-f", str(manifest)).endswith(
            f"validatingadmissionpolicybinding.admissionregistration.k8s.io/{u} unchanged\n")
        for plural in ("validatingwebhookconfigurations", "validatingadmissionpolicies"):
            obj = kube.get(f"/apis/admissionregistration.k8s.io/v1/{plural}/{u}").json()
            assert obj["metadata"]["generation"] == 1, obj
        header, rows = table(kube.ok("get", "validatingwebhookconfigurations", u))
        assert header == ["NAME", "WEBHOOKS", "AGE"]
        assert rows[0][:2] == [u, "2"] and AGE.match(rows[0][2])
        header, rows = table(kube.ok("get", "validatingadmissionpolicies", u))
        assert header == ["NAME", "VALIDATIONS", "PARAMKIND", "AGE"] and rows[0][:3] == [u, "1", "<unset>"]
        header, rows = table(kube.ok("get", "validatingadmissionpolicybindings", u))
        assert header == ["NAME", "POLICYNAME", "PARAMREF", "AGE"] and rows[0][:3] == [u, u, "<unset>"]
        hooks = kube.get(f"/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/{u}").json()
        assert hooks["webhooks"][0]["clientConfig"]["service"]["port"] == 443
        assert hooks["webhooks"][1]["failurePolicy"] == "Fail" and hooks["webhooks"][1]["timeoutSeconds"] == 10
        bad = tmp_path / "bad.yaml"
        bad.write_text(MANIFEST.format(u=u + "x").split("---")[0].replace("  sideEffects: None\n", ""))
        stderr = kube.fails("apply", "-f", str(bad))
        assert (f'The ValidatingWebhookConfiguration "{u}x" is invalid: webhooks[0].sideEffects: Required value: '
                "must specify one of None, NoneOnDryRun") in stderr, stderr
    finally:
        kube.run("delete", "-f", str(manifest), "--ignore-not-found")


def test_official_client(served: Kube) -> None:
    from kubernetes import client, config

    u = f"ar-{uuid.uuid4().hex[:6]}"
    api_client = config.new_client_from_config(config_file=str(served.kubeconfig))
    try:
        api = client.AdmissionregistrationV1Api(api_client)
        rule = client.V1RuleWithOperations(operations=["CREATE"], api_groups=[""], api_versions=["v1"],
                                           resources=["configmaps"])
        hook = client.V1MutatingWebhook(
            name=f"cm.{u}.example.com", side_effects="None", admission_review_versions=["v1"], rules=[rule],
            client_config=client.AdmissionregistrationV1WebhookClientConfig(url="https://hooks.example.com/m"))
        created = api.create_mutating_webhook_configuration(client.V1MutatingWebhookConfiguration(
            metadata=client.V1ObjectMeta(name=u), webhooks=[hook]))
        got = created.webhooks[0]
        assert (got.reinvocation_policy, got.timeout_seconds, got.rules[0].scope) == ("Never", 10, "*")
        assert u in [c.metadata.name for c in api.list_mutating_webhook_configuration().items]
        policy = api.create_validating_admission_policy(client.V1ValidatingAdmissionPolicy(
            metadata=client.V1ObjectMeta(name=u), spec=client.V1ValidatingAdmissionPolicySpec(
                match_constraints=client.V1MatchResources(resource_rules=[client.V1NamedRuleWithOperations(
                    operations=["CREATE"], api_groups=["apps"], api_versions=["v1"], resources=["deployments"])]),
                validations=[client.V1Validation(expression="object.spec.replicas <= 5")])))
        assert policy.spec.failure_policy == "Fail" and policy.metadata.generation == 1
        condition = {"type": "Checked", "status": "True", "reason": "ByHand", "message": "",
                     "lastTransitionTime": "2026-01-01T00:00:00Z"}
        status = api.patch_validating_admission_policy_status(u, {"status": {"conditions": [condition]}})
        assert [c.reason for c in status.status.conditions] == ["ByHand"]
        assert status.spec.failure_policy == "Fail"
        api.delete_mutating_webhook_configuration(u)
        api.delete_validating_admission_policy(u)
        assert u not in [c.metadata.name for c in api.list_validating_admission_policy().items]
    finally:
        api_client.close()


POLICY = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {{name: {u}}}
spec:
  matchConstraints:
    resourceRules:
    - {{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [configmaps]}}
    namespaceSelector: {{matchLabels: {{kubernetes.io/metadata.name: {u}}}}}
  validations:
  - expression: "object.metadata.name.startsWith('ok-')"
    messageExpression: "'name ' + object.metadata.name + ' must start with ok-'"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {{name: {u}}}
spec:
  policyName: {u}
  validationActions: [Deny]
"""


def test_kubectl_create_refused_by_a_policy(kube: Kube, tmp_path: Path) -> None:
    """`apply -f` of a policy and its binding, then `kubectl create configmap` refused with upstream's text."""
    u = f"vap-{uuid.uuid4().hex[:6]}"
    manifest = tmp_path / "policy.yaml"
    manifest.write_text(POLICY.format(u=u))
    try:
        kube.ok("create", "namespace", u)
        assert kube.ok("apply", "-f", str(manifest)).endswith(
            f"validatingadmissionpolicybinding.admissionregistration.k8s.io/{u} created\n")
        stderr = kube.fails("create", "configmap", "bad", "-n", u)
        # kubectl's `create configmap` wraps the Status's message (its own `failed to create configmap: `)
        assert stderr == ('error: failed to create configmap: configmaps "bad" is forbidden: ValidatingAdmissionPolicy '
                          f"'{u}' with binding '{u}' denied request: name bad must start with ok-\n"), stderr
        assert kube.ok("create", "configmap", "ok-1", "-n", u) == "configmap/ok-1 created\n"
        broken = tmp_path / "broken.yaml"
        broken.write_text(POLICY.format(u=u + "x").split("---")[0].replace(
            "object.metadata.name.startsWith('ok-')", "object.metadata.name.startsWith('ok-'"))
        stderr = kube.fails("apply", "-f", str(broken))
        assert (f'The ValidatingAdmissionPolicy "{u}x" is invalid: spec.validations[0].expression: Invalid value: '
                '"object.metadata.name.startsWith(\'ok-\'": compilation failed: ERROR: <input>:1:38: Syntax error: '
                ) in stderr, stderr
    finally:
        kube.run("delete", "-f", str(manifest), "--ignore-not-found")
        kube.run("delete", "namespace", u, "--wait=false")


def test_kubectl_sees_gos_verdict_on_a_webhook_url(kube: Kube, tmp_path: Path) -> None:
    """A URL Go's url.Parse refuses (gonet/url.py; Python's urlsplit takes it) is refused with
    ValidateWebhookURL's words, as kubectl prints them."""
    u = f"ar-{uuid.uuid4().hex[:6]}"
    bad = tmp_path / "bad.yaml"
    bad.write_text(MANIFEST.format(u=u).split("---")[0].replace("https://hooks.example.com/svc",
                                                                "https://hooks.example.com:https/svc"))
    stderr = kube.fails("apply", "-f", str(bad))
    assert (f'The ValidatingWebhookConfiguration "{u}" is invalid: webhooks[1].clientConfig.url: Required value: '
            'url must be a valid URL: parse "https://hooks.example.com:https/svc": invalid port ":https" after host; '
            "desired format: https://host[/path]") in stderr, stderr
