"""CustomResourceDefinitions' `x-kubernetes-validations` rules: compiled when the CRD is written, enforced on every
write of its custom resources (create, update, `/status`). Follows apiextensions-apiserver 1.33 (v0.33):

- `compiler.py`: one rule at one schema node (`pkg/apiserver/schema/cel/compilation.go`, `self`/`oldSelf` typed by
  the node's schema, property names escaped as `apiserver/pkg/cel/escaping.go`), `fieldPath` (`ValidFieldPath`);
- `crdwrite.py`: the CRD write (`pkg/apis/apiextensions/validation/validation.go`);
- `validator.py`: the rules run on a custom resource (`pkg/apiserver/schema/cel/validation.go` `Validator`, the
  strategy's blocking errors and CRDValidationRatcheting, `pkg/registry/customresource/strategy.go`);
- `values.py`: a custom resource's values as CEL sees them (`apiserver/pkg/cel/common/values.go`).

The CEL engine and partial type checker are `cel/`'s; validators are built once per CRD uid and resourceVersion."""
from .compiler import escape, valid_field_path
from .crdwrite import validate_crd_rules
from .validator import Node, build, validate, validate_value, validator_for

__all__ = ["Node", "build", "escape", "valid_field_path", "validate", "validate_crd_rules", "validate_value",
           "validator_for"]
