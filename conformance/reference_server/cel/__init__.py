"""CEL as kube-apiserver compiles and runs it for admissionregistration.k8s.io/v1 (`staging/src/k8s.io/apiserver/
pkg/admission/plugin/cel/compile.go`, `filter.go`): the engine (`engine.py`, loaded lazily), the Kubernetes
library functions (`library.py`, `libs/`), which variables each kind of expression may use and the type it must
have (`environments.py`, over our own parser and partial type checker: `parser.py`, `checker.py`, `types.py`), the
rewrites cel-rust needs (`desugar.py`) and a served kind's CEL types (`schematypes.py`).

Used by the registry (expressions are compiled when a policy or webhook configuration is written), the admission
plugins (evaluation) and the policy status controller (type checking); knows nothing of them, but for the name
validators of apimachinery that `libs/format.py` borrows from `registry/validation.py` (imported when first called)."""
from .engine import CompileError, EvalError, Program, compile_expression
from .environments import compile_detail
from .libs.values import runtime_type

__all__ = ["CompileError", "EvalError", "Program", "compile_detail", "compile_expression", "runtime_type"]
