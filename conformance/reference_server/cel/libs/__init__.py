"""The Kubernetes CEL libraries beyond lists/regex/strings (`staging/src/k8s.io/apiserver/pkg/cel/library/`) and
cel-go's `ext.Sets`, as 1.33's base environment enables them (`pkg/cel/environment/base.go`): one module a library,
each exporting `FUNCTIONS` (name -> Python callable, receiver first) that `cel/library.py` merges.

Their opaque values (Quantity, IP, CIDR, URL, Format) travel through the engine as tagged maps (`values.py`):
cel-rust converts only plain data across the Python boundary."""
