"""goregexp/parser.py against Go's own tables (`src/regexp/syntax/parse_test.go`, Go 1.24): the parse trees of
`parseTests` (flags MatchNL | PerlX | UnicodeGroups), `foldcaseTests`, `matchnlTests`, `nomatchnlTests` as
`dump` prints them, and `invalidRegexps`/`onlyPOSIX` refused under `syntax.Perl`, each with the error text
parse.go builds for it (`error parsing regexp: <code>: `<expr>``)."""
from __future__ import annotations

import time

import pytest

from conformance.reference_server.goport.goregexp import error_text
from conformance.reference_server.goport.goregexp.parser import CLASS_NL, DOT_NL, FOLD_CASE, PERL_X, UNICODE_GROUPS, GoRegexpError, dump, parse

TEST_FLAGS = CLASS_NL | DOT_NL | PERL_X | UNICODE_GROUPS

PARSE_TESTS = [
    ("a", "lit{a}"), ("a.", "cat{lit{a}dot{}}"), ("a.b", "cat{lit{a}dot{}lit{b}}"), ("ab", "str{ab}"),
    ("a.b.c", "cat{lit{a}dot{}lit{b}dot{}lit{c}}"), ("abc", "str{abc}"), ("a|^", "alt{lit{a}bol{}}"),
    ("a|b", "cc{0x61-0x62}"), ("(a)", "cap{lit{a}}"), ("(a)|b", "alt{cap{lit{a}}lit{b}}"), ("a*", "star{lit{a}}"),
    ("a+", "plus{lit{a}}"), ("a?", "que{lit{a}}"), ("a{2}", "rep{2,2 lit{a}}"), ("a{2,3}", "rep{2,3 lit{a}}"),
    ("a{2,}", "rep{2,-1 lit{a}}"), ("a*?", "nstar{lit{a}}"), ("a+?", "nplus{lit{a}}"), ("a??", "nque{lit{a}}"),
    ("a{2}?", "nrep{2,2 lit{a}}"), ("a{2,3}?", "nrep{2,3 lit{a}}"), ("a{2,}?", "nrep{2,-1 lit{a}}"),
    ("x{1001", "str{x{1001}"), ("x{9876543210", "str{x{9876543210}"), ("x{9876543210,", "str{x{9876543210,}"),
    ("x{2,1", "str{x{2,1}"), ("x{1,9876543210", "str{x{1,9876543210}"), ("", "emp{}"), ("|", "emp{}"),
    ("|x|", "alt{emp{}lit{x}emp{}}"), (".", "dot{}"), ("^", "bol{}"), ("$", "eol{}"), (r"\|", "lit{|}"),
    (r"\(", "lit{(}"), (r"\)", "lit{)}"), (r"\*", "lit{*}"), (r"\+", "lit{+}"), (r"\?", "lit{?}"), ("{", "lit{{}"),
    ("}", "lit{}}"), (r"\.", "lit{.}"), (r"\^", "lit{^}"), (r"\$", "lit{$}"), ("\\\\", "lit{\\}"),
    ("[ace]", "cc{0x61 0x63 0x65}"), ("[abc]", "cc{0x61-0x63}"), ("[a-z]", "cc{0x61-0x7a}"), ("[a]", "lit{a}"),
    (r"\-", "lit{-}"), ("-", "lit{-}"), (r"\_", "lit{_}"), ("abc|def", "alt{str{abc}str{def}}"),
    ("abc|def|ghi", "alt{str{abc}str{def}str{ghi}}"),
    ("[[:lower:]]", "cc{0x61-0x7a}"), ("[^[:lower:]]", "cc{0x0-0x60 0x7b-0x10ffff}"),
    ("[[:^lower:]]", "cc{0x0-0x60 0x7b-0x10ffff}"), ("(?i)[[:lower:]]", "cc{0x41-0x5a 0x61-0x7a 0x17f 0x212a}"),
    ("(?i)[a-z]", "cc{0x41-0x5a 0x61-0x7a 0x17f 0x212a}"),
    ("(?i)[^[:lower:]]", "cc{0x0-0x40 0x5b-0x60 0x7b-0x17e 0x180-0x2129 0x212b-0x10ffff}"),
    ("(?i)[[:^lower:]]", "cc{0x0-0x40 0x5b-0x60 0x7b-0x17e 0x180-0x2129 0x212b-0x10ffff}"),
    (r"\d", "cc{0x30-0x39}"), (r"\D", "cc{0x0-0x2f 0x3a-0x10ffff}"), (r"\s", "cc{0x9-0xa 0xc-0xd 0x20}"),
    (r"\S", "cc{0x0-0x8 0xb 0xe-0x1f 0x21-0x10ffff}"), (r"\w", "cc{0x30-0x39 0x41-0x5a 0x5f 0x61-0x7a}"),
    (r"\W", "cc{0x0-0x2f 0x3a-0x40 0x5b-0x5e 0x60 0x7b-0x10ffff}"),
    (r"(?i)\w", "cc{0x30-0x39 0x41-0x5a 0x5f 0x61-0x7a 0x17f 0x212a}"),
    (r"(?i)\W", "cc{0x0-0x2f 0x3a-0x40 0x5b-0x5e 0x60 0x7b-0x17e 0x180-0x2129 0x212b-0x10ffff}"),
    (r"[^\\]", "cc{0x0-0x5b 0x5d-0x10ffff}"),
    (r"\p{Braille}", "cc{0x2800-0x28ff}"), (r"\P{Braille}", "cc{0x0-0x27ff 0x2900-0x10ffff}"),
    (r"\p{^Braille}", "cc{0x0-0x27ff 0x2900-0x10ffff}"), (r"\P{^Braille}", "cc{0x2800-0x28ff}"),
    (r"\pZ", "cc{0x20 0xa0 0x1680 0x2000-0x200a 0x2028-0x2029 0x202f 0x205f 0x3000}"),
    (r"[\p{Braille}]", "cc{0x2800-0x28ff}"), (r"[\P{Braille}]", "cc{0x0-0x27ff 0x2900-0x10ffff}"),
    (r"[\p{^Braille}]", "cc{0x0-0x27ff 0x2900-0x10ffff}"), (r"[\P{^Braille}]", "cc{0x2800-0x28ff}"),
    (r"[\pZ]", "cc{0x20 0xa0 0x1680 0x2000-0x200a 0x2028-0x2029 0x202f 0x205f 0x3000}"),
    (r"\p{Any}", "dot{}"), (r"\p{^Any}", "cc{}"),
    (r"[\012-\234]\141", "cat{cc{0xa-0x9c}lit{a}}"), (r"[\x{41}-\x7a]\x61", "cat{cc{0x41-0x7a}lit{a}}"),
    ("a{,2}", "str{a{,2}}"), (r"\.\^\$\\", "str{.^$\\}"), ("[a-zABC]", "cc{0x41-0x43 0x61-0x7a}"),
    ("[^a]", "cc{0x0-0x60 0x62-0x10ffff}"), ("[α-ε☺]", "cc{0x3b1-0x3b5 0x263a}"), ("a*{", "cat{star{lit{a}}lit{{}}"),
    ("(?:ab)*", "star{str{ab}}"), ("(ab)*", "star{cap{str{ab}}}"), ("ab|cd", "alt{str{ab}str{cd}}"),
    ("a(b|c)d", "cat{lit{a}cap{cc{0x62-0x63}}lit{d}}"),
    ("(?:a)", "lit{a}"), ("(?:ab)(?:cd)", "str{abcd}"),
    ("(?:a+b+)(?:c+d+)", "cat{plus{lit{a}}plus{lit{b}}plus{lit{c}}plus{lit{d}}}"),
    ("(?:a+|b+)|(?:c+|d+)", "alt{plus{lit{a}}plus{lit{b}}plus{lit{c}}plus{lit{d}}}"),
    ("(?:a|b)|(?:c|d)", "cc{0x61-0x64}"), ("a|.", "dot{}"), (".|a", "dot{}"),
    ("(?:[abc]|A|Z|hello|world)", "alt{cc{0x41 0x5a 0x61-0x63}str{hello}str{world}}"),
    ("(?:[abc]|A|Z)", "cc{0x41 0x5a 0x61-0x63}"),
    (r"\Q+|*?{[\E", "str{+|*?{[}"), (r"\Q+\E+", "plus{lit{+}}"), (r"\Qab\E+", "cat{lit{a}plus{lit{b}}}"),
    (r"\Q\\E", "lit{\\}"), (r"\Q\\\E", "str{\\\\}"),
    ("(?m)^", "bol{}"), ("(?m)$", "eol{}"), ("(?-m)^", "bot{}"), ("(?-m)$", "eot{}"), (r"(?m)\A", "bot{}"),
    (r"(?m)\z", "eot{\\z}"), (r"(?-m)\A", "bot{}"), (r"(?-m)\z", "eot{\\z}"),
    ("(?P<name>a)", "cap{name:lit{a}}"), ("(?<name>a)", "cap{name:lit{a}}"),
    ("[Aa]", "litfold{A}"), (r"[\x{100}\x{101}]", "litfold{Ā}"), ("[Δδ]", "litfold{Δ}"),
    ("abcde", "str{abcde}"), ("[Aa][Bb]cd", "cat{strfold{AB}str{cd}}"),
    ("(?:.)", "dot{}"), ("(?:A(?:A|a))", "cat{lit{A}litfold{A}}"), ("(?:A|a)", "litfold{A}"), ("A|(?:A|a)", "litfold{A}"),
    ("(?s).", "dot{}"), ("(?-s).", "dnl{}"), ("(?:(?:^).)", "cat{bol{}dot{}}"), ("(?-s)(?:(?:^).)", "cat{bol{}dnl{}}"),
    (r"[\s\S]a", "cat{cc{0x0-0x10ffff}lit{a}}"),
]
# not ported: parse_test.go's "Factoring" and "RE2 prefix_tests" trees (parser.py leaves alternations unfactored)

VALID_ONLY = ["((((((((((x{2}){2}){2}){2}){2}){2}){2}){2}){2}))", "((((((((((x{1}){2}){2}){2}){2}){2}){2}){2}){2}){2})",
              "(" * 999 + ")" * 999, "(?:" * 999 + ")*" * 999, "(" + "|" * 12345 + ")",
              "[a-b-c]", r"\Qabc\E", r"\Q*+?{[\E", r"\Q\\E", r"\Q\\\E", r"\Q\\\\E", r"\Q\\\\\E", "(?P<name>a)"]

FOLDCASE_TESTS = [("AbCdE", "strfold{ABCDE}"), ("[Aa]", "litfold{A}"), ("a", "litfold{A}"),
                  ("A[F-g]", "cat{litfold{A}cc{0x41-0x7a 0x17f 0x212a}}"),
                  ("[[:upper:]]", "cc{0x41-0x5a 0x61-0x7a 0x17f 0x212a}"),
                  ("[[:lower:]]", "cc{0x41-0x5a 0x61-0x7a 0x17f 0x212a}")]
MATCHNL_TESTS = [(".", "dot{}"), ("\n", "lit{\n}"), ("[^a]", "cc{0x0-0x60 0x62-0x10ffff}"), ("[a\\n]", "cc{0xa 0x61}")]
NOMATCHNL_TESTS = [(".", "dnl{}"), ("\n", "lit{\n}"), ("[^a]", "cc{0x0-0x9 0xb-0x60 0x62-0x10ffff}"),
                   ("[a\\n]", "cc{0xa 0x61}")]

# invalidRegexps and onlyPOSIX, with the error parse.go gives under syntax.Perl ("\xff"-style invalid UTF-8: a
# lone surrogate here, what undecodable bytes become in a Python string)
INVALID = [
    ("(", "missing closing ): `(`"), (")", "unexpected ): `)`"), ("(a", "missing closing ): `(a`"),
    ("a)", "unexpected ): `a)`"), ("(a))", "unexpected ): `(a))`"), ("(a|b|", "missing closing ): `(a|b|`"),
    ("a|b|)", "unexpected ): `a|b|)`"), ("(a|b|))", "unexpected ): `(a|b|))`"), ("(a|b", "missing closing ): `(a|b`"),
    ("a|b)", "unexpected ): `a|b)`"), ("(a|b))", "unexpected ): `(a|b))`"), ("[a-z", "missing closing ]: `[a-z`"),
    ("([a-z)", "missing closing ]: `[a-z)`"), ("[a-z)", "missing closing ]: `[a-z)`"),
    ("([a-z]))", "unexpected ): `([a-z]))`"), ("x{1001}", "invalid repeat count: `{1001}`"),
    ("x{9876543210}", "invalid repeat count: `{9876543210}`"), ("x{2,1}", "invalid repeat count: `{2,1}`"),
    ("x{1,9876543210}", "invalid repeat count: `{1,9876543210}`"),
    ("\ud800", "invalid UTF-8: `\ud800`"), ("[\ud800]", "invalid UTF-8: `\ud800]`"),
    ("(?P<name>a", "missing closing ): `(?P<name>a`"), ("(?P<name>", "missing closing ): `(?P<name>`"),
    ("(?P<name", "invalid named capture: `(?P<name`"), ("(?P<x y>a)", "invalid named capture: `(?P<x y>`"),
    ("(?P<>a)", "invalid named capture: `(?P<>`"), ("(?<name>a", "missing closing ): `(?<name>a`"),
    ("(?<name>", "missing closing ): `(?<name>`"), ("(?<name", "invalid named capture: `(?<name`"),
    ("(?<x y>a)", "invalid named capture: `(?<x y>`"), ("(?<>a)", "invalid named capture: `(?<>`"),
    ("[a-Z]", "invalid character class range: `a-Z`"), ("(?i)[a-Z]", "invalid character class range: `a-Z`"),
    (r"\Q\E*", "missing argument to repetition operator: `*`"), ("a{100000}", "invalid repeat count: `{100000}`"),
    ("a{100000,}", "invalid repeat count: `{100000,}`"),
    ("((((((((((x{2}){2}){2}){2}){2}){2}){2}){2}){2}){2})", "invalid repeat count: `{2}`"),
    ("(" * 1000 + ")" * 1000, "expression nests too deeply: `" + "(" * 1000 + ")" * 1000 + "`"),
    ("(?:" * 1000 + ")*" * 1000, "expression nests too deeply: `" + "(?:" * 1000 + ")*" * 1000 + "`"),
    ("(" + "(xx?)" * 1000 + "){1000}", "expression too large: `" + "(" + "(xx?)" * 1000 + "){1000}`"),
    ("(xx?){1000}" * 1000, "expression too large: `" + "(xx?){1000}" * 1000 + "`"),
    (r"\pL" * 27000, "expression too large: `" + r"\pL" * 27000 + "`"),
    ("a++", "invalid nested repetition operator: `++`"), ("a**", "invalid nested repetition operator: `**`"),
    ("a?*", "invalid nested repetition operator: `?*`"), ("a+*", "invalid nested repetition operator: `+*`"),
    ("a{1}*", "invalid nested repetition operator: `{1}*`"),
    (".{1}{2}.{3}", "invalid nested repetition operator: `{1}{2}`"),
    # what a schema author meets beyond Go's tables
    ("*", "missing argument to repetition operator: `*`"), ("a|*?", "missing argument to repetition operator: `*?`"),
    ("a*??", "invalid nested repetition operator: `*??`"), (r"\C", "invalid escape sequence: `\\C`"),
    (r"\Z", "invalid escape sequence: `\\Z`"), (r"\1", "invalid escape sequence: `\\1`"),
    (r"\8", "invalid escape sequence: `\\8`"), (r"\x", "invalid escape sequence: `\\x`"),
    (r"\xA", "invalid escape sequence: `\\xA`"), (r"\x{110000}", "invalid escape sequence: `\\x{110000`"),
    ("a\\", "trailing backslash at end of expression: ``"), ("(?=a)", "invalid or unsupported Perl syntax: `(?=`"),
    ("(?!a)", "invalid or unsupported Perl syntax: `(?!`"), ("(?<=a)b", "invalid named capture: `(?<=a)b`"),
    ("(?<!a)b", "invalid named capture: `(?<!a)b`"), ("(?i", "invalid or unsupported Perl syntax: `(?i`"),
    ("(?P=n)", "invalid or unsupported Perl syntax: `(?P`"), ("(?-)", "invalid or unsupported Perl syntax: `(?-)`"),
    ("(?x)", "invalid or unsupported Perl syntax: `(?x`"), (r"\pX", "invalid character class range: `\\pX`"),
    (r"\p{Foo}", "invalid character class range: `\\p{Foo}`"), (r"\p{greek}", "invalid character class range: `\\p{greek}`"),
    (r"\p{Greek", "invalid character class range: `\\p{Greek`"), ("[[:foo:]]", "invalid character class range: `[:foo:]`"),
    ("[]", "missing closing ]: `[]`"), ("a[b", "missing closing ]: `[b`"), ("[z-a]", "invalid character class range: `z-a`"),
]


@pytest.mark.parametrize("pattern, tree", PARSE_TESTS)
def test_parse_tests(pattern: str, tree: str) -> None:
    assert dump(parse(pattern, TEST_FLAGS)) == tree


@pytest.mark.parametrize("pattern", VALID_ONLY + [p for p, _ in PARSE_TESTS])
def test_valid_under_perl_flags(pattern: str) -> None:
    assert error_text(pattern) is None


@pytest.mark.parametrize("tests, flags", [(FOLDCASE_TESTS, FOLD_CASE), (MATCHNL_TESTS, CLASS_NL | DOT_NL),
                                          (NOMATCHNL_TESTS, 0)])
def test_flag_tables(tests: list[tuple[str, str]], flags: int) -> None:
    assert [dump(parse(p, flags)) for p, _ in tests] == [t for _, t in tests]


@pytest.mark.parametrize("pattern, message", INVALID, ids=lambda v: ascii(v)[:40])
def test_invalid_regexps_with_gos_messages(pattern: str, message: str) -> None:
    with pytest.raises(GoRegexpError) as exc:
        parse(pattern)
    assert str(exc.value) == f"error parsing regexp: {message}"
    assert error_text(pattern) == f"error parsing regexp: {message}"


def test_limits_are_judged_quickly() -> None:
    start = time.monotonic()
    for pattern in ("(" * 1000 + ")" * 1000, "(xx?){1000}" * 1000, "a{1000}" * 3355):
        error_text(pattern)
    assert time.monotonic() - start < 10
