"""The Kubernetes CEL libraries' call costs at compile time: `staging/src/k8s.io/apiserver/pkg/cel/library/cost.go`
(1.33) `EstimateCallCost` for authz and its selectors, lists, cel-go's strings as Kubernetes costs them, regex, url,
ip/cidr, quantity, semver, format, and the O(1) equality of their opaque values. `cost.py`'s coster asks it before
cel-go's own per-overload costs."""
from __future__ import annotations

import math
from collections.abc import Callable

from .cost import (LIST_CREATE, MAX, REGEX_STRING_LENGTH, STRING_TRAVERSAL, STRUCT_CREATE, AstNode, Estimate, add,
                   factor, multiply, union)
from .parser import Node
from .types import (AUTHORIZER, CIDR, DECISION, FORMAT, GROUP_CHECK, IP, PATH_CHECK, QUANTITY, RESOURCE_CHECK, SEMVER,
                    URL)

# apiserver/pkg/cel/limits.go
MAX_FORMAT_SIZE, MAX_NAME_FORMAT_REGEX_SIZE = 64, 128
_OPAQUE_EQ_O1 = {IP.name, CIDR.name}
_STRUCT_EQ_O1 = {QUANTITY.name, AUTHORIZER.name, PATH_CHECK.name, GROUP_CHECK.name, RESOURCE_CHECK.name,
                 DECISION.name, SEMVER.name}


def library_cost(function: str, oid: str, target: AstNode | None, args: list[AstNode],
                 sized: Callable[[AstNode], Estimate]) -> tuple[Estimate, Estimate | None] | None:
    """`CostEstimator.EstimateCallCost`: the call's cost without its arguments', and its result's size; None for a
    function it leaves to cel-go. `sized` is `sizeEstimate`: a node's computed or estimated size."""
    one: Estimate = (1, 1)
    if function == "check":
        return (350000, 350000), None
    if function in ("serviceAccount", "path", "group", "resource", "subresource", "namespace", "name",
                    "allowed", "reason", "error", "errored"):
        return one, None
    if function in ("fieldSelector", "labelSelector"):
        if len(args) == 1:
            length = sized(args[0])
            parse = factor(length, STRING_TRAVERSAL)
            requirements = factor(factor(length, 0.5), float(LIST_CREATE + STRUCT_CREATE))
            return add(add((LIST_CREATE, LIST_CREATE), parse), requirements), None
        return None
    if function in ("isSorted", "sum", "max", "min", "indexOf", "lastIndexOf"):
        if target is None:
            return None
        element = list_element(target)
        if element is not None:
            el = one
            if element.type.name in ("string", "bytes"):
                el = add(el, factor(sized(element), STRING_TRAVERSAL))
            return multiply(sized(target), el), None
        return factor(sized(target), STRING_TRAVERSAL), None
    if function in ("url", "jsonpatch.escapeKey"):
        if len(args) == 1:
            sz = sized(args[0])
            return factor(sz, STRING_TRAVERSAL), sz
        return None
    if function in ("lowerAscii", "upperAscii", "substring", "trim"):
        if target is None:
            return None
        sz = sized(target)
        return factor(sz, STRING_TRAVERSAL), sz
    if function == "replace":
        if target is None or len(args) < 2:
            return None
        return _replace_cost(sized(target), sized(args[0]), sized(args[1]))
    if function == "split":
        if target is None:
            return None
        sz = sized(target)
        most = sz[1]
        if len(args) > 1 and isinstance(args[1].expr, Node) and args[1].expr.kind == "lit" \
                and args[1].expr.value[0] == "int":
            most = args[1].expr.value[1] & MAX
        return factor(sz, 2 * STRING_TRAVERSAL), (0, most)
    if function == "join":
        if target is None:
            return None
        sz: Estimate = (0, 0)
        count = sized(target)
        element = list_element(target)
        if element is not None:
            sz = multiply(count, sized(element))
        if args:
            separators = (max(count[0] - 1, 0), max(count[1] - 1, 0))
            sz = add(sz, multiply(sized(args[0]), separators))
        return factor(sz, STRING_TRAVERSAL), sz
    if function in ("find", "findAll"):
        if target is None or not args:
            return None
        sz = sized(target)
        s = factor(add(sz, one), STRING_TRAVERSAL)
        return multiply(s, factor(sized(args[0]), REGEX_STRING_LENGTH)), (0, sz[1])
    if function in ("cidr", "isIP", "isCIDR", "quantity", "isQuantity", "semver", "isSemver"):
        return (factor(sized(args[0]), STRING_TRAVERSAL), None) if args else None
    if function == "ip":
        if oid == "cidr_ip" or not args:
            return one, None
        return factor(sized(args[0]), STRING_TRAVERSAL), None
    if function == "ip.isCanonical":
        return (factor(sized(args[0]), 2 * STRING_TRAVERSAL), None) if args else None
    if function in ("masked", "prefixLength", "family", "isUnspecified", "isLoopback", "isLinkLocalMulticast",
                    "isLinkLocalUnicast", "isGlobalUnicast"):
        return one, None
    if function in ("containsIP", "containsCIDR"):
        if target is None or not args:
            return None
        ip: Estimate = (4, 16)
        cost = factor(add(ip, ip), STRING_TRAVERSAL)
        if function == "containsCIDR":
            cost = add(add(cost, factor(ip, STRING_TRAVERSAL)), one)
        if oid.endswith("_string"):
            cost = add(cost, factor(sized(args[0]), STRING_TRAVERSAL))
        return cost, None
    if function == "validate":
        if target is None or not args:
            return None
        return factor(factor(sized(args[0]), STRING_TRAVERSAL),
                      MAX_NAME_FORMAT_REGEX_SIZE * REGEX_STRING_LENGTH), None
    if function in ("format.named", "sign", "asInteger", "isInteger", "asApproximateFloat", "isGreaterThan",
                    "isLessThan", "compareTo", "add", "sub", "major", "minor", "patch", "getScheme",
                    "getHostname", "getHost", "getPort", "getEscapedPath", "getQuery"):
        return one, None
    if function == "_==_" and len(args) == 2 and args[0].type == args[1].type:
        t = args[0].type
        if t.name in _OPAQUE_EQ_O1 or t.name in _STRUCT_EQ_O1:
            return one, None
        if t == FORMAT:
            return factor((1, MAX_FORMAT_SIZE), STRING_TRAVERSAL), None
        if t == URL:
            size = one
            rhs = args[1].computed
            if rhs is not None:  # upstream compares the right-hand size with itself
                size = union(rhs, rhs)
            return factor((1, size[1]), STRING_TRAVERSAL), None
    return None

def _replace_cost(sz: Estimate, old: Estimate, new: Estimate) -> tuple[Estimate, Estimate]:
    count_max = count_min = retained_max = retained_min = 0
    if old[0] == 0:
        count_max = sz[1] + 1 if sz[1] < MAX else sz[1]
        retained_max = sz[1]
    elif new[1] <= old[0]:
        retained_max = sz[1]
    else:
        count_max = math.ceil(float(sz[1]) / float(old[0]))
        count_max = MAX if count_max >= 2 ** 64 else count_max
    if old[1] == 0:
        count_min = sz[0] + 1 if sz[0] < MAX else sz[0]
        retained_min = sz[0]
    elif old[1] <= new[0]:
        retained_min = sz[0]
    else:
        count_min = math.ceil(float(sz[0]) / float(old[1]))
    size = add(multiply((count_min, count_max), new), (retained_min, retained_max))
    return factor(sz, 2 * STRING_TRAVERSAL), size

def list_element(node: AstNode) -> AstNode | None:
    """`listElementNode`: the element of a list-typed node, with the `@items` path when the list has one."""
    if not node.type.params:
        return None
    path = (*node.path, "@items") if node.path is not None else None
    return AstNode(path, node.type.params[0], None, None)
