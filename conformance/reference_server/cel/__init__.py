"""CEL as kube-apiserver compiles and runs it for admissionregistration.k8s.io/v1 (`staging/src/k8s.io/apiserver/
pkg/admission/plugin/cel/compile.go`, `filter.go`): the engine (`engine.py`, loaded lazily), the Kubernetes
library functions (`library.py`) and which variables each kind of expression may use (`environments.py`).

Used by the registry (expressions are compiled when a policy or webhook configuration is written) and by the
admission plugins (evaluation); knows nothing of either."""
from .engine import CompileError, EvalError, Program, compile_expression
from .environments import compile_detail

__all__ = ["CompileError", "EvalError", "Program", "compile_detail", "compile_expression"]
