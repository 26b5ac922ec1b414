"""The official Python client's own end-to-end tests, vendored to run against the embedded server.

Source: https://github.com/kubernetes-client/python, `kubernetes/e2e_test/`, commit
024658493d124f046fc0a9827a2a3165cf2aee28 (Apache License 2.0, see LICENSE here; each file keeps its header).
Run with the `kubernetes` client the project installs (37.x). Changes, each marked `# nsconform:`:
`from kubernetes.e2e_test import base` became `from . import base`; `test_utils.py` finds `test_yaml/` next to
itself instead of relative to the working directory; `base.py` is ours (it points the suite at the embedded
server instead of a kubeconfig or localhost:8443). The tests that need nodes are skipped by name in
`conftest.py` here, each with its reason."""
