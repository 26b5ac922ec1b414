"""The CEL engine under the admission plugins: the `common-expression-language` wheel (cel-rust bindings), loaded
on first use so the server's start-up does not pay for it.

Why this library: it parses CEL with cel-go's grammar, runs the standard macros (`has`, `all`, `exists`, `exists_one`, `map`, `filter`) and
compiles and evaluates in tens of microseconds (cel-python 0.5: about a millisecond each). It does not type-check
(no declared types: `Program.variables()` is all it reports; `checker.py` does, at write time), runs optional
values but does not parse their syntax nor run two-variable comprehensions (`desugar.py` rewrites both) and has no
cel-go extension libraries; `library.py` adds the Kubernetes functions. Syntax is judged first by cel-go's own
parser (`syntax.py`: its ANTLR grammar and messages); cel-rust's words are left only for what it alone refuses.
Its arithmetic is cel-go's where it differs (`libs/arith.py`): negations, conversions and, where an expression makes
durations, `+`/`-` are rewritten when it compiles; an operation cel-rust refuses (`_RETRY`) runs the expression
again with all of cel-go's (`Program._exact_program`), so the common path keeps cel-rust's own operators.
cel-rust tracks no cost: `Program.evaluate` runs without limits, and `budget.py` keeps kube-apiserver's
(`runtimecost.py` walks an evaluation for cel-go's tracked cost where it has to be known).

The package's `__init__` imports its command-line interface (typer, rich: ~0.3 s); only the native module is
loaded here (`cel.cel`), registered under its own name so a later `import cel` reuses it."""
from __future__ import annotations

import importlib.machinery
import importlib.util
import logging
import os
import re
import sys
from functools import lru_cache
from typing import Any, Iterable

from . import syntax
from .library import FUNCTIONS
from .desugar import EXACT, NAMESPACES, PLAIN, TIME, desugar
from .exacttime import TimePaths

# qualified function and type names (`math.greatest`, `net.IP`) parse here as variable references: never
# "undeclared" (the checker judges them)
_NAMESPACES = NAMESPACES
# the type identifiers (`type(x) == int`): declared in every cel-go environment
TYPE_NAMES = frozenset({"int", "uint", "double", "bool", "string", "bytes", "list", "map", "null_type", "type", "dyn",
                        "optional_type"})
# an expression that asks a value's type or names a library type: rewritten (desugar.py) so that library values,
# maps to cel-rust, have their own types
_TYPES = re.compile(r"(?<![\w.])type\s*\(|(?<![\w.])(?:net|kubernetes|google)\s*\.")
# a conversion cel-rust would read otherwise than cel-go (libs/conversions.py): rewritten (desugar.py)
_CONVERSIONS = re.compile(r"(?<![\w.])(?:int|uint|double|duration|timestamp|string|bytes)\s*\(")
# an expression that makes durations or timestamps: its `+` and `-` are cel-go's (desugar.py's TIME)
_TIME = re.compile(r"(?<![\w.])(?:duration|timestamp)\s*\(")
# cel-rust's refusals of an operation cel-go may compute or word otherwise: the expression runs again with cel-go's
# arithmetic (desugar.py's EXACT)
_RETRY = ("No such overload", "Unsupported operation", "Unexpected type", "Arithmetic overflow",
          "Value of type float cannot be used as a map key")
# a missing key that is a number: cel-go may find it as a number of another type (libs/mapkeys.py), so the
# expression runs again with cel-go's lookups
_NUMERIC_KEY = re.compile(r"-?[0-9]+")
# an `in`, `==` or `!=` in an expression that may make a map with numeric keys (desugar.py `_numeric_maps`
# decides)
_OPS = r"(?:(?<![\w.])in(?!\w)|==|!=)"
_MAKERS = r"(?:\{|transformMap|variables)"
_IN_NUMERIC_MAP = re.compile(rf"{_OPS}[\s\S]*{_MAKERS}|{_MAKERS}[\s\S]*{_OPS}")
# a `matches` call: Go's regexp rather than cel-rust's (desugar.py)
_MATCHES = re.compile(r"(?<!\w)matches\s*\(")
# how cel-rust reports an exception a library function raised: the exception's own text is cel-go's
_PY_FAILURE = re.compile(r"Python function call failed: \w+: (.*)\. Check function arguments and their types\.?$",
                         re.S)
_MACRO_VAR = re.compile(r"\.\s*(?:all|exists|exists_one|existsOne|map|filter)\s*\(\s*([A-Za-z_][A-Za-z0-9_]*)\s*,")
_TWO_VAR_CALL = re.compile(r"\.\s*(?:all|exists|existsOne|exists_one|transformList|transformMap|transformMapEntry)"
                           r"\s*\(\s*[A-Za-z_]\w*\s*,\s*[A-Za-z_]\w*\s*,")
_BIND_VAR = re.compile(r"\bcel\s*\.\s*bind\s*\(\s*([A-Za-z_][A-Za-z0-9_]*)\s*,")


class CompileError(Exception):
    """The expression does not compile; `str()` is the issues' text in cel-go's layout."""


class EvalError(Exception):
    """Evaluation failed; `str()` is the error in cel-go's words where we know them."""


_native_module: Any = None


def native() -> Any:
    """The extension module `cel.cel`, without the package's `__init__`."""
    global _native_module
    if _native_module is None:
        loaded = sys.modules.get("cel.cel")
        if loaded is None:
            spec = importlib.util.find_spec("cel")
            if spec is None or not spec.submodule_search_locations:
                raise ImportError("the common-expression-language package is not installed")
            folder = list(spec.submodule_search_locations)[0]
            path = next((os.path.join(folder, "cel" + s) for s in importlib.machinery.EXTENSION_SUFFIXES
                         if os.path.exists(os.path.join(folder, "cel" + s))), None)
            if path is None:
                raise ImportError("the common-expression-language package has no native module")
            ext_spec = importlib.util.spec_from_file_location("cel.cel", path)
            assert ext_spec is not None and ext_spec.loader is not None
            loaded = importlib.util.module_from_spec(ext_spec)
            ext_spec.loader.exec_module(loaded)
            sys.modules["cel.cel"] = loaded
        # cel-rust also logs each exception a library function raises; Program.evaluate reports it once
        logging.getLogger("cel").setLevel(logging.CRITICAL)
        _native_module = loaded
    return _native_module


_RUST_DEPTH = re.compile(r"Recursion limit of (\d+) exceeded")


def _issues_text(message: str) -> str:
    """What cel-rust refuses in an expression cel-go's parser read (syntax.py judged it first): its nesting limit
    in this server's words, else its error as cel-go's `Issues.String()` (without the wrapper's prefix, source
    lines indented ` | ` as cel-go prints them)."""
    depth = _RUST_DEPTH.search(message)
    if depth:
        return (f"ERROR: <input>:-1:0: expression nests more than {depth.group(1)} levels deep, this server's "
                "limit")
    at = message.find("ERROR: ")
    text = message[at:] if at >= 0 else message
    return "\n".join(" " + line if line.startswith("|") else line for line in text.split("\n"))


def issue_text(expression: str, offset: int, message: str) -> str:
    """One issue as cel-go prints it: `ERROR: <input>:L:C: message`, the source line and a caret under it."""
    return syntax.display(expression, *syntax.line_col(expression, offset), message)


def _undeclared(expression: str, name: str) -> str:
    """cel-go's `undeclared reference` at the first free use of `name`."""
    m = re.search(r"(?<![\w.])" + re.escape(name) + r"\b", expression)
    return issue_text(expression, m.start() if m else 0, f"undeclared reference to '{name}' (in container '')")


_OVERFLOW = re.compile(r"Arithmetic overflow in '(\w+)' on (.*) and (.*?)\.?$", re.S)
_INT64_RANGE = range(-(1 << 63), 1 << 63)


def _overflow_text(op: str, left: str, right: str) -> str:
    """cel-go's overflow error (`common/types/overflow.go`, `err.go`) for cel-rust's `Arithmetic overflow in '<op>'
    on <a> and <b>`: a timestamp plus or minus a duration `timestamp overflow`, a difference of timestamps or
    durations `integer overflow` (their nanoseconds); of integers, `unsigned integer overflow` when
    only uint arithmetic could have overflowed (an operand or the exact result past int64's range and below 0 or
    past uint64's), else `integer overflow`."""
    if ("Timestamp(" in left) != ("Timestamp(" in right):  # a timestamp moved by a duration out of years 1-9999
        return "timestamp overflow"
    if "Timestamp(" in left or "Duration(" in left or "Duration(" in right:  # int64 nanoseconds
        return "integer overflow"
    try:
        a, b = int(left), int(right)
    except ValueError:
        return "integer overflow"
    exact = {"add": a + b, "sub": a - b, "mul": a * b}.get(op)
    if a not in _INT64_RANGE or b not in _INT64_RANGE or (exact is not None and exact in _INT64_RANGE):
        return "unsigned integer overflow"
    return "integer overflow"


# what cel-rust calls an `Undefined variable or function` when a standard function's argument has a type none of
# its overloads takes, as cel-go v0.23.2 words it: `size` (a singleton bound to the Sizer trait) and the timestamp
# and duration getters (bound to their receivers) by `evalUnary`/`evalBinary`'s `no such overload: <function>`
# (interpreter/interpretable.go); `contains`, `startsWith`, `endsWith` (type guards disabled) by their own
# `MaybeNoSuchOverloadErr` (common/types/string.go)
_UNDEFINED = re.compile(r"Undefined variable or function: '([\w.]+)'")
_RECEIVED = frozenset({"size", "getFullYear", "getMonth", "getDayOfYear", "getDayOfMonth", "getDate", "getDayOfWeek",
                       "getHours", "getMinutes", "getSeconds", "getMilliseconds"})
_UNGUARDED = frozenset({"contains", "startsWith", "endsWith"})


def error_text(message: str) -> str:
    """cel-go's words for an evaluation error cel-rust reported as `message`: a library function's own text; an
    overflow as cel-go names it; a missing overload or an unsupported operation `no such overload`."""
    failure = _PY_FAILURE.search(message)
    if failure:
        return failure.group(1)
    overflow = _OVERFLOW.match(message)
    if overflow:
        return _overflow_text(*overflow.groups())
    if message.startswith(("No such overload", "Unsupported operation")):
        return "no such overload"
    undefined = _UNDEFINED.match(message)
    if undefined and undefined.group(1) in _RECEIVED:  # cel-rust found no overload for the value's type
        return f"no such overload: {undefined.group(1)}"
    if undefined and undefined.group(1) in _UNGUARDED:
        return "no such overload"
    return message


class Program:
    """A compiled expression and the library functions it calls."""

    __slots__ = ("expression", "_program", "_functions", "_exact", "_times")

    def __init__(self, expression: str, program: Any, functions: dict[str, Any], exact: bool = False,
                 times: TimePaths = frozenset()):
        self.expression, self._program, self._functions, self._times = expression, program, functions, times
        # the program with cel-go's arithmetic (desugar.py's EXACT), made on first need; False: none (this is it,
        # or it does not compile)
        self._exact: Program | bool | None = False if exact else None

    @property
    def times(self) -> TimePaths:
        """The paths to the duration and timestamp fields it reads exactly (exacttime.py)."""
        return self._times

    def _exact_program(self) -> Program | None:
        if self._exact is None:
            self._exact = _exact_program(self.expression, self._times) or False
        return self._exact or None

    def evaluate(self, activation: dict[str, Any]) -> Any:
        """The value over `activation`, without cost limits (`budget.py` keeps them)."""
        try:
            return self._program.execute({**activation, **self._functions} if self._functions else activation)
        except KeyError as exc:
            key = exc.args[0] if exc.args else ''
            exact = self._exact_program() if _NUMERIC_KEY.fullmatch(str(key)) else None
            if exact is not None:
                return exact.evaluate(activation)
            raise EvalError(f"no such key: {key}") from None
        except ZeroDivisionError as exc:  # cel-go's errDivideByZero, errModulusByZero
            raise EvalError("modulus by zero" if "modulo" in str(exc) else "division by zero") from None
        except IndexError as exc:
            raise EvalError(str(exc)) from None
        except (TypeError, ValueError, RuntimeError, OverflowError) as exc:
            message = str(exc)
            exact = self._exact_program() if message.startswith(_RETRY) else None
            if exact is not None:
                return exact.evaluate(activation)
            raise EvalError(error_text(message)) from None
        except BaseException as exc:  # a panic in cel-rust: an evaluation error, not an escape
            if not _is_panic(exc):
                raise
            raise EvalError("internal error evaluating the expression") from None


# cel-go's `ExpressionSizeCodePointLimit` default; and a bound of our own on operators: cel-rust recurses on the
# AST (a chain of ~15,000 selections or operators overflows its stack and kills the process); cel-go refuses deep
# expressions with its own recursion limits, which this count only approximates.
MAX_CODE_POINTS = 100_000
MAX_OPERATORS = 2_000
_LITERALS = re.compile(r"""'''.*?'''|\"\"\".*?\"\"\"|'(?:\\.|[^'\\])*'|"(?:\\.|[^"\\])*\"""", re.S)
_OPERATORS = re.compile(r"[.\[(+\-*/%!<>=&|?]")


def _too_large(expression: str) -> str:
    if len(expression) > MAX_CODE_POINTS:
        return (f"ERROR: <input>:-1:0: expression code point size exceeds limit: size: {len(expression)}, "
                f"limit {MAX_CODE_POINTS}")
    operators = len(_OPERATORS.findall(_LITERALS.sub("''", expression)))
    if operators > MAX_OPERATORS:
        return (f"ERROR: <input>:-1:0: expression has {operators} operators, more than this server's limit of "
                f"{MAX_OPERATORS}")
    return ""


SYNTAX_ALWAYS = 2_000   # characters: cel-go's parser judges every expression this long or shorter
SYNTAX_AT_MOST = 20_000  # characters: a longer one this server's parser refuses is refused in its words


def _syntax_issues(expression: str) -> str:
    """cel-go's syntax issues of `expression` (syntax.py), "" when none. Its generated parser costs some 50 µs a token
    in Python, on the event loop: an expression longer than SYNTAX_ALWAYS that this server's own parser reads (a
    tenth of the time) is taken as read, without cel-go's visitor checks (reserved words, literal ranges, macro
    arguments: cel-rust and the checker still judge it); one it cannot read longer than SYNTAX_AT_MOST is refused
    with its words (cel-rust may panic formatting the error of so long an input), so no write stalls the loop for
    more than some 0.4 s."""
    if len(expression) > SYNTAX_ALWAYS:
        from .parser import ParseError, parse_own
        try:
            tree = parse_own(expression)
        except (ParseError, RecursionError) as exc:
            if len(expression) > SYNTAX_AT_MOST:
                reason = str(exc) if isinstance(exc, ParseError) else "too deeply nested"
                return f"ERROR: <input>:-1:0: Syntax error: {reason}"
        else:
            if _depth(tree) <= syntax.KUBERNETES.max_recursion:
                return ""
            if len(expression) > SYNTAX_AT_MOST:  # deeper than cel-go's visitor goes: its words
                return "ERROR: <input>:-1:0: max recursion depth exceeded"
    return syntax.parse(expression)[1]  # cel-go's parser judges syntax, with its words


def _depth(tree: Any) -> int:
    """The depth of a parsed expression (iteratively: it may be deeper than Python's recursion limit)."""
    from .parser import children
    deepest, stack = 0, [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        stack.extend((c, depth + 1) for c in children(node) if c is not None)
    return deepest


def _native_compile(source: str) -> Any:
    """cel-rust's compile; a panic inside it (pyo3's PanicException, a BaseException) becomes the ValueError of a
    refused expression, never an escape past the server's error handling."""
    try:
        return native().compile(source)
    except ValueError:
        raise
    except BaseException as exc:
        if not _is_panic(exc):
            raise
        raise ValueError("ERROR: <input>:-1:0: the expression could not be compiled") from None


def _is_panic(exc: BaseException) -> bool:
    """pyo3's PanicException (a Rust panic in cel-rust): a BaseException, not importable by name."""
    return type(exc).__name__ == "PanicException"


def _compiled(expression: str, durations: bool = False, times: TimePaths = frozenset()
              ) -> tuple[Any, tuple[str, ...], tuple[str, ...], str] | str:
    """cel-rust's program of `expression` (rewritten by desugar.py where needed; `durations`: its inputs may hold
    durations or timestamps; `times`: the paths to those of `self`, exacttime.py), its free variables and
    functions, and the source it compiled; or the issues text."""
    if len(expression) <= MAX_CODE_POINTS:
        issues = _syntax_issues(expression)
        if issues:
            return issues
    refused = _too_large(expression)
    if refused:
        return refused
    # two-variable comprehensions parse in cel-rust but do not run: rewritten first (desugar.py), as are
    # conversions, negations and, in an expression that makes durations or timestamps, `+` and `-`
    level = TIME if durations or _TIME.search(expression) else PLAIN
    source = (desugar(expression, level, times) if level == TIME or _TWO_VAR_CALL.search(expression)
              or _TYPES.search(expression) or _CONVERSIONS.search(expression) or _MATCHES.search(expression)
              or "-" in expression or _IN_NUMERIC_MAP.search(expression) else None) or expression
    try:
        program = _native_compile(source)
    except ValueError as exc:  # noqa: F841 - read below (a rewrite's refusal replaces it with the text's own)
        if source != expression:  # the rewrite is refused (cel-rust's limits): the user's own text judged instead
            source = expression
            try:
                program = _native_compile(expression)
                return program, tuple(program.variables()), tuple(program.functions()), source
            except ValueError as own:
                exc = own
        rewritten = desugar(expression) if "unsupported syntax" in str(exc) else None
        if rewritten is None:
            return _issues_text(str(exc))
        try:
            program = _native_compile(rewritten)  # optional syntax cel-rust does not parse (desugar.py)
        except ValueError:
            return _issues_text(str(exc))
        source = rewritten
    return program, tuple(program.variables()), tuple(program.functions()), source


def compile_expression(expression: str, declared: Iterable[str], durations: bool = False,
                       times: TimePaths = frozenset()) -> Program:
    """Parse `expression`; refuse a free variable that is not `declared` (cel-go's `undeclared reference`).
    `durations`: the inputs may hold durations or timestamps (a CRD's `duration`/`date-time` fields), so `+` and
    `-` check them as cel-go does even where the expression makes none; `times`: the paths from `self` to such
    fields, whose values may come as exact texts (exacttime.py)."""
    out = _checked(expression, frozenset(declared), durations or bool(times), times)
    if isinstance(out, str):
        raise CompileError(out)
    return out


@lru_cache(maxsize=4096)
def _checked(expression: str, declared: frozenset[str], durations: bool = False,
             times: TimePaths = frozenset()) -> Program | str:
    out = _compiled(expression, durations, times)
    if isinstance(out, str):
        return out
    program, variables, functions, source = out
    bound = {name for text in {expression, source} for pattern in (_MACRO_VAR, _BIND_VAR)
             for name in pattern.findall(text)}
    for name in variables:
        if name in declared or name in bound or name in _NAMESPACES or name in FUNCTIONS or name in TYPE_NAMES:
            continue
        return _undeclared(expression, name)
    return Program(expression, program, _library(variables, functions), times=times)


def _library(variables: Iterable[str], functions: Iterable[str]) -> dict[str, Any]:
    """The library functions a program calls: a qualified function (`sets.contains`, `ip.isCanonical`) is a call
    of `contains` on the variable `sets`."""
    functions = tuple(functions)
    names = set(functions) | {f"{ns}.{f}" for ns in variables for f in functions}
    return {f: FUNCTIONS[f] for f in names if f in FUNCTIONS}


def _exact_program(expression: str, times: TimePaths = frozenset()) -> Program | None:
    """`expression` with cel-go's arithmetic throughout (desugar.py's EXACT), None when that rewrite is the program
    already run or cel-rust refuses it (its nesting limit)."""
    source = desugar(expression, EXACT, times)
    if source is None:
        return None
    try:
        program = _native_compile(source)
    except ValueError:
        return None
    return Program(expression, program, _library(program.variables(), program.functions()), exact=True)
