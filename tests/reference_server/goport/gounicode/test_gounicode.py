"""gounicode: Go 1.24's Unicode 15.0.0 tables (`src/unicode/tables.go`), where Python 3.11's `unicodedata` is 14.0.0,
and the places that read them: Go's regexp classes, `strconv.IsPrint` in `%q`, govalidator's hostname letters,
`ValidateFieldManager`'s `unicode.IsPrint`."""
from __future__ import annotations

import unicodedata

import pytest

from conformance.reference_server.goport import goregexp, gounicode
from conformance.reference_server.fieldmanager.manager import (
    manager_or_user_agent,
    validate_manager,
)
from conformance.reference_server.goport.gonet.strconv import quote
from conformance.reference_server.goport.goregexp import tables
from conformance.reference_server.registry import crformats, crschema


def test_the_tables_are_unicode_15_where_python_is_14():
    assert unicodedata.unidata_version == "14.0.0"  # what this test guards against; a newer Python needs no fix
    assert gounicode.category_of("\U00011F00") == "Mn"  # KAWI SIGN CANDRABINDU, new in 15.0.0
    assert gounicode.category_of("\U0001E030") == "Lm"  # MODIFIER LETTER CYRILLIC SMALL A
    assert gounicode.category_of("\U00031350") == "Lo"  # CJK Extension H
    assert gounicode.category_of("\u0378") == "Cn"  # unassigned: in no table of Go's
    # Go 1.24's tables.go, verbatim: `var _Kawi = &RangeTable{R32: {0x11f00, 0x11f10, 1}, {0x11f12, 0x11f3a, 1},
    # {0x11f3e, 0x11f59, 1}}` and `_Nag_Mundari`'s `{0x1e4d0, 0x1e4f9, 1}`
    assert gounicode.script("Kawi") == (0x11F00, 0x11F10, 0x11F12, 0x11F3A, 0x11F3E, 0x11F59)
    assert gounicode.script("Nag_Mundari") == (0x1E4D0, 0x1E4F9)
    assert gounicode.script_names() == tables.SCRIPTS
    assert gounicode.category("C")[:6] == (0x0, 0x1F, 0x7F, 0x9F, 0xAD, 0xAD)  # Cc and Cf, never Cn


@pytest.mark.parametrize("pattern, text, matched", [
    (r"^\p{Kawi}+$", "\U00011F00\U00011F04", True),
    (r"^\pL$", "\U0001E030", True),
    (r"^\p{Han}$", "\U00031350", True),
    (r"^\p{Latin}$", "\U0001DF25", True),
    (r"^\p{Greek}$", "\u0374", False),  # GREEK NUMERAL SIGN: Common by Scripts.txt, Greek by its name
    (r"^\p{Common}$", "\u0374", True),
    (r"^\p{Greek}$", "\U0001D200", True),  # GREEK VOCAL NOTATION SYMBOL-1
    (r"^\p{Inherited}$", "\u0951", True),  # DEVANAGARI STRESS SIGN UDATTA: Inherited, not by its name
    (r"^\p{Han}$", "\u3005", True),  # IDEOGRAPHIC ITERATION MARK
    (r"^\P{Cn}$", "a", None),  # Cn is no category of Go 1.24's: refused
])
def test_regexp_classes_read_gos_tables(pattern, text, matched):
    if matched is None:
        with pytest.raises(goregexp.GoRegexpError):
            goregexp.compile(pattern)
        return
    assert goregexp.compile(pattern).search(text) is matched


def test_quote_prints_what_go_1_24_calls_printable():
    assert quote("\U00011F00") == '"\U00011F00"'  # Python 3.11 would call it unassigned: \U00011f00
    assert quote("\u0378") == '"\\u0378"'
    assert quote("a\u00a0") == '"a\\u00a0"'


def test_hostname_letters_are_gos():
    schema = {"type": "object", "properties": {"v": {"type": "string", "format": "hostname"}}}
    assert crformats.checks("hostname")
    assert crschema.validate({"v": "\U0001E030\U0001E031.com"}, schema) == []  # Lm letters of 15.0.0
    assert crschema.validate({"v": "\u0378.com"}, schema) != []


def test_field_manager_printable_as_go():
    assert validate_manager("m\U00011F00") == []
    errs = validate_manager("a\u00a0b")
    # `%#U` adds the character only where strconv.IsPrint holds, so never here
    assert [str(e) for e in errs] == [
        'fieldManager: Invalid value: "a\\u00a0b": invalid character U+00A0 (at position 1)']
    assert manager_or_user_agent(None, "k\U00011F00\u00a0x/1.0") == "k\U00011F00x"
