"""cel-go's parser front end (reference_server/cel/syntax.py, cel/gen/): cel-go v0.23.2's own parser test table
(`parser/parser_test.go`, in data/), kube-apiserver's parser options, the hand-written parser's fallback on its tree,
and the engine's compile errors in cel-go's words where cel-rust's differed."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conformance.reference_server.cel import compile_detail, parser, syntax
from conformance.reference_server.cel.environments import declared

CASES = json.loads((Path(__file__).parent / "data" / "cel_go_parser_cases.json").read_text())
ROOT = Path(__file__).resolve().parents[3]


def test_options(opts: str) -> syntax.Options:
    """newTestParser's defaults and a case's `Opts` (Go source) as our Options."""
    kw: dict = dict(max_recursion=32, error_recovery_limit=4, lookahead_limit=4, optional_syntax=False,
                    escaped_idents=False, extended_macros=False)
    setters = {"EnableIdentEscapeSyntax": ("escaped_idents", lambda a: a == "true"),
               "EnableOptionalSyntax": ("optional_syntax", lambda a: a == "true"),
               "ErrorRecoveryLookaheadTokenLimit": ("lookahead_limit", int),
               "ErrorRecoveryLimit": ("error_recovery_limit", int),
               "ErrorReportingLimit": ("error_reporting_limit", int)}
    for name, arg in re.findall(r"(\w+)\(([^()]*)\)", opts):
        if name in setters:
            key, convert = setters[name]
            kw[key] = convert(arg)
    return syntax.Options(**kw)


test_options.__test__ = False  # type: ignore[attr-defined]  # a helper, not a test


def _squash(text: str) -> str:
    """cel-go's `test.Compare`: whitespace (spaces, tabs, newlines) does not count."""
    return re.sub(r"[ \t\n]", "", text)


@pytest.mark.parametrize("case", CASES["errors"], ids=lambda c: c["input"][:40])
def test_cel_go_error_cases(case: dict) -> None:
    node, issues = syntax.parse(case["input"], test_options(case["opts"]))
    assert node is None
    assert _squash(issues) == _squash(case["expected"]), issues


def test_cel_go_accepted_cases() -> None:
    for case in CASES["accepted"]:
        node, issues = syntax.parse(case["input"], test_options(case["opts"]))
        assert issues == "" and node is not None, (case["input"], issues)


def test_issue_layout_marks_wide_characters_and_sorts_by_position() -> None:
    """`common/error.go`: a multi-byte character before the caret is a wide dot; issues are sorted by position
    (the visitor's has() error comes after the grammar's in time, before it in the text)."""
    _, issues = syntax.parse("'😁' == has(a) &&")
    assert issues == ("ERROR: <input>:1:12: invalid argument to has() macro\n | '😁' == has(a) &&\n | .．.........^\n"
                      "ERROR: <input>:1:17: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', "
                      "'-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n"
                      " | '😁' == has(a) &&\n | .．..............^")
    _, issues = syntax.parse("x.`y`")
    assert issues == "ERROR: <input>:1:3: unsupported syntax: '`'\n | x.`y`\n | ..^"


@pytest.mark.parametrize("expression, error", [
    ("a.?b && a[?b] && [?a] == {?1: a}", ""),                                       # cel.OptionalTypes
    ("object.all(k, v, k == v) && object.transformMap(k, v, v)", ""),               # two-variable comprehensions
    ("x.`y-z`", "ERROR: <input>:1:3: unsupported syntax: '`'"),                    # escapes stay off
    ("object.all(k, k, true)", "ERROR: <input>:1:15: duplicate variable name: k"),
    ("object.optMap(1, 2)", "ERROR: <input>:1:15: optMap() variable name must be a simple identifier"),
    ("has(object.?a)", "ERROR: <input>:1:11: invalid argument to has() macro"),
    ("'\\ud800' == ''", "ERROR: <input>:1:1: invalid unicode code point"),
    ("-9223372036854775809 < 0", "ERROR: <input>:1:1: invalid int literal"),
    ("(" * 251 + "1" + ")" * 251, "ERROR: <input>:-1:0: expression recursion limit exceeded: 250"),
    ("a" + ".b" * 251, "ERROR: <input>:-1:0: max recursion depth exceeded"),
])
def test_kubernetes_options(expression: str, error: str) -> None:
    """The options kube-apiserver's environment gives cel-go's parser (environment/base.go: OptionalTypes,
    TwoVarComprehensions; no identifier escapes; default limits)."""
    node, issues = syntax.parse(expression)
    assert issues.split("\n")[0] == error
    assert (node is None) == bool(error)


def test_hand_parser_falls_back_on_cel_gos_tree() -> None:
    """What the hand-written parser cannot read but cel-go can is still parsed (and so type-checked)."""
    node = parser.parse("a.b.Msg{f: 1}")
    assert (node.kind, node.value, node.at, [k.value for k, _, _ in node.entries]) == \
        ("struct", "a.b.Msg", 7, [("string", "f")])
    assert compile_detail("msg{} == 1", declared()) == (
        "compilation failed: ERROR: <input>:1:4: undeclared reference to 'msg' (in container '')\n | msg{} == 1\n"
        " | ...^")
    with pytest.raises(parser.ParseError, match="Syntax error: mismatched input"):
        parser.parse("a +")


def test_trees_agree_with_the_hand_parser() -> None:
    """Where both parsers read an expression, the trees (kinds, values, spans, error offsets) are the same: cel-go's
    own table's inputs (but `!!`/`--`, which cel-go folds, and escaped names, which kube-apiserver refuses)."""
    def shape(n: parser.Node | None) -> object:
        if n is None:
            return None
        return (n.kind, n.start, n.end, n.at, n.value, [shape(a) for a in n.args], shape(n.target), n.optional,
                [(shape(k), shape(v), o) for k, v, o in n.entries], sorted(n.opt_elems))
    compared = 0
    for case in CASES["accepted"]:
        src = case["input"]
        tree, issues = syntax.parse(src, test_options(case["opts"]))
        try:
            hand = parser._Parser(src)
            own = hand.expr()
        except parser.ParseError:
            continue
        if issues or hand.peek()[0] != "eof" or "!!" in src or "--" in src or "`" in src:
            continue
        assert shape(own) == shape(tree), src
        compared += 1
    assert compared > 90


@pytest.mark.parametrize("expression, detail", [
    # cel-rust accepted these
    ("[1].all(__result__, true)", "ERROR: <input>:1:9: iteration variable overwrites accumulator variable\n"
                                  " | [1].all(__result__, true)\n | ........^"),
    ("object.all(k, k, true)", "ERROR: <input>:1:15: duplicate variable name: k\n | object.all(k, k, true)\n"
                               " | ..............^"),
    # cel-rust's words or positions differed
    ("[1].map(1, 2)", "ERROR: <input>:1:9: argument is not an identifier\n | [1].map(1, 2)\n | ........^"),
    ("object.`a`", "ERROR: <input>:1:8: unsupported syntax: '`'\n | object.`a`\n | .......^"),
    ("self.true == 1", "ERROR: <input>:1:6: Syntax error: mismatched input 'true' expecting IDENTIFIER\n"
                       " | self.true == 1\n | .....^"),
    ("rb'x' == b'x'", "ERROR: <input>:1:3: Syntax error: mismatched input ''x'' expecting <EOF>\n"
                      " | rb'x' == b'x'\n | ..^"),
    ("b'\\u00ff' == b''", "ERROR: <input>:1:1: unable to unescape string\n | b'\\u00ff' == b''\n | ^"),
    ("-9223372036854775809 < 0", "ERROR: <input>:1:1: invalid int literal\n | -9223372036854775809 < 0\n | ^"),
])
def test_compile_errors_in_cel_gos_words(expression: str, detail: str) -> None:
    assert compile_detail(expression, declared()) == f"compilation failed: {detail}"


def test_cel_rusts_nesting_limit_in_this_servers_words() -> None:
    """cel-go reads 250 levels; cel-rust's parser stops at 96: refused with our own message, not its debug text."""
    assert compile_detail("(" * 100 + "1" + ")" * 100 + " == 1", declared()) == \
        "compilation failed: ERROR: <input>:-1:0: expression nests more than 96 levels deep, this server's limit"


@pytest.mark.skipif(shutil.which("antlr4") is None, reason="Debian's antlr4 tool (4.7.2) is not installed")
def test_generated_parser_is_the_grammars(tmp_path: Path) -> None:
    """tools/celgrammar/regenerate.sh reproduces cel/gen/ byte for byte."""
    gen = ROOT / "conformance" / "reference_server" / "cel" / "gen"
    subprocess.run([str(ROOT / "tools" / "celgrammar" / "regenerate.sh"), str(tmp_path)], check=True,
                   capture_output=True)
    assert {p.name: p.read_bytes() for p in tmp_path.glob("*.py")} == \
        {p.name: p.read_bytes() for p in gen.glob("*.py")}


def test_runtime_loads_without_typing_io() -> None:
    """The ANTLR 4.7.2 runtime imports `typing.io`, which Python 3.13 removed: syntax.py stands in for it."""
    code = ("import sys, typing\n"
            "sys.modules.pop('typing.io', None)\n"
            "typing.__dict__.pop('io', None)\n"
            "class Block:\n"
            "    def find_spec(self, name, path=None, target=None):\n"
            "        if name == 'typing.io':\n"
            "            raise ImportError(name)\n"
            "sys.meta_path.insert(0, Block())\n"
            "from conformance.reference_server.cel import syntax\n"
            "print(syntax.parse('a.b + 1')[0].kind)\n")
    out = subprocess.run([sys.executable, "-W", "error::DeprecationWarning", "-c", code], capture_output=True,
                         text=True, check=True, cwd=ROOT).stdout
    assert out == "binary\n"
