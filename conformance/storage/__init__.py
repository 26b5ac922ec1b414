"""The opt-in storage suite's harness side: a read-only etcd reader (`reader.py`), kube-apiserver's key layout
as the harness knows it (`layout.py`), and the pytest options (`options.py`, `--etcd-endpoints`)."""
