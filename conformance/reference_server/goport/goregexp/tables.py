"""The character tables Go's `regexp/syntax` reads: Perl and POSIX groups (`perl_groups.go`), Unicode general
categories and scripts (`unicode/tables.go`, as `parse.go`'s 1.24 `unicodeTable` names them: exact names, `Any`),
and simple case folding orbits (`unicode.SimpleFold`).

Categories and scripts are Go 1.24's own (Unicode 15.0.0: `gounicode/`); case folding orbits are read from
Python's `str.lower`/`casefold` (Unicode 14.0.0, whose simple case pairs 15.0.0 left as they were). Tables are
built on first use and kept."""
from __future__ import annotations

import functools
import sys

from .. import gounicode

MAX_RUNE = 0x10FFFF
MIN_FOLD, MAX_FOLD = 0x0041, 0x1E943

PERL_GROUPS: dict[str, tuple[int, tuple[int, ...]]] = {
    r"\d": (+1, (0x30, 0x39)), r"\D": (-1, (0x30, 0x39)),
    r"\s": (+1, (0x9, 0xA, 0xC, 0xD, 0x20, 0x20)), r"\S": (-1, (0x9, 0xA, 0xC, 0xD, 0x20, 0x20)),
    r"\w": (+1, (0x30, 0x39, 0x41, 0x5A, 0x5F, 0x5F, 0x61, 0x7A)),
    r"\W": (-1, (0x30, 0x39, 0x41, 0x5A, 0x5F, 0x5F, 0x61, 0x7A)),
}

_POSIX = {
    "alnum": (0x30, 0x39, 0x41, 0x5A, 0x61, 0x7A), "alpha": (0x41, 0x5A, 0x61, 0x7A), "ascii": (0x0, 0x7F),
    "blank": (0x9, 0x9, 0x20, 0x20), "cntrl": (0x0, 0x1F, 0x7F, 0x7F), "digit": (0x30, 0x39),
    "graph": (0x21, 0x7E), "lower": (0x61, 0x7A), "print": (0x20, 0x7E),
    "punct": (0x21, 0x2F, 0x3A, 0x40, 0x5B, 0x60, 0x7B, 0x7E), "space": (0x9, 0xD, 0x20, 0x20),
    "upper": (0x41, 0x5A), "word": (0x30, 0x39, 0x41, 0x5A, 0x5F, 0x5F, 0x61, 0x7A),
    "xdigit": (0x30, 0x39, 0x41, 0x46, 0x61, 0x66),
}
POSIX_GROUPS: dict[str, tuple[int, tuple[int, ...]]] = {
    **{f"[:{k}:]": (+1, v) for k, v in _POSIX.items()}, **{f"[:^{k}:]": (-1, v) for k, v in _POSIX.items()}}

CATEGORIES = frozenset("C Cc Cf Co Cs L Ll Lm Lo Lt Lu M Mc Me Mn N Nd Nl No P Pc Pd Pe Pf Pi Po Ps S Sc Sk Sm So "
                       "Z Zl Zp Zs".split())

# unicode.Scripts' keys in Go 1.24 (Unicode 15.0.0)
SCRIPTS = frozenset("""Adlam Ahom Anatolian_Hieroglyphs Arabic Armenian Avestan Balinese Bamum Bassa_Vah Batak Bengali
Bhaiksuki Bopomofo Brahmi Braille Buginese Buhid Canadian_Aboriginal Carian Caucasian_Albanian Chakma Cham Cherokee
Chorasmian Common Coptic Cuneiform Cypriot Cypro_Minoan Cyrillic Deseret Devanagari Dives_Akuru Dogra Duployan
Egyptian_Hieroglyphs Elbasan Elymaic Ethiopic Georgian Glagolitic Gothic Grantha Greek Gujarati Gunjala_Gondi Gurmukhi
Han Hangul Hanifi_Rohingya Hanunoo Hatran Hebrew Hiragana Imperial_Aramaic Inherited Inscriptional_Pahlavi
Inscriptional_Parthian Javanese Kaithi Kannada Katakana Kawi Kayah_Li Kharoshthi Khitan_Small_Script Khmer Khojki
Khudawadi Lao Latin Lepcha Limbu Linear_A Linear_B Lisu Lycian Lydian Mahajani Makasar Malayalam Mandaic Manichaean
Marchen Masaram_Gondi Medefaidrin Meetei_Mayek Mende_Kikakui Meroitic_Cursive Meroitic_Hieroglyphs Miao Modi Mongolian
Mro Multani Myanmar Nabataean Nag_Mundari Nandinagari New_Tai_Lue Newa Nko Nushu Nyiakeng_Puachue_Hmong Ogham Ol_Chiki
Old_Hungarian Old_Italic Old_North_Arabian Old_Permic Old_Persian Old_Sogdian Old_South_Arabian Old_Turkic Old_Uyghur
Oriya Osage Osmanya Pahawh_Hmong Palmyrene Pau_Cin_Hau Phags_Pa Phoenician Psalter_Pahlavi Rejang Runic Samaritan
Saurashtra Sharada Shavian Siddham SignWriting Sinhala Sogdian Sora_Sompeng Soyombo Sundanese Syloti_Nagri Syriac
Tagalog Tagbanwa Tai_Le Tai_Tham Tai_Viet Takri Tamil Tangsa Tangut Telugu Thaana Thai Tibetan Tifinagh Tirhuta Toto
Ugaritic Vai Vithkuqi Wancho Warang_Citi Yezidi Yi Zanabazar_Square""".split())

def category(name: str) -> tuple[int, ...]:
    """A category's ranges (one letter: the union of its two-letter ones), from Go 1.24's tables."""
    return gounicode.category(name)


def script(name: str) -> tuple[int, ...]:
    """A script's ranges, from Go 1.24's tables."""
    return gounicode.script(name)


@functools.lru_cache(maxsize=1)
def _orbits() -> dict[int, tuple[int, ...]]:
    """Each folding rune's orbit, sorted: the runes equal under simple case folding (CaseFolding.txt's C and S
    entries, as Go's tables): a one-rune `casefold()` or `lower()` (the latter for S entries such as U+1E9E,
    whose full folding is two runes); `upper()` is not used (U+0131 dotless i upper-cases to I yet folds alone)."""
    parent: dict[int, int] = {}

    def find(x: int) -> int:
        while parent.get(x, x) != x:
            x = parent[x]
        return x

    for cp in range(MIN_FOLD, MAX_FOLD + 1):
        if 0xD800 <= cp <= 0xDFFF:
            continue
        ch = chr(cp)
        for other in (ch.lower(), ch.casefold()):
            if len(other) == 1 and other != ch:
                a, b = find(cp), find(ord(other))
                if a != b:
                    parent[max(a, b)] = min(a, b)
    groups: dict[int, list[int]] = {}
    for cp in parent:
        groups.setdefault(find(cp), []).append(cp)
    out: dict[int, tuple[int, ...]] = {}
    for root, members in groups.items():
        orbit = tuple(sorted(set(members) | {root}))
        for cp in orbit:
            out[cp] = orbit
    return out


def orbit(r: int) -> tuple[int, ...]:
    """The runes `r` folds to (itself included)."""
    if r < MIN_FOLD or r > MAX_FOLD:
        return (r,)
    return _orbits().get(r, (r,))


def simple_fold(r: int) -> int:
    """`unicode.SimpleFold`: the next rune of `r`'s orbit, wrapping around."""
    o = orbit(r)
    i = o.index(r)
    return o[(i + 1) % len(o)]


def clean(r: list[int] | tuple[int, ...]) -> tuple[int, ...]:
    """`cleanClass`: ranges sorted and merged."""
    pairs = sorted(((r[i], r[i + 1]) for i in range(0, len(r), 2)), key=lambda p: (p[0], -p[1]))
    out: list[int] = []
    for lo, hi in pairs:
        if out and lo <= out[-1] + 1:
            out[-1] = max(out[-1], hi)
        else:
            out.extend((lo, hi))
    return tuple(out)


def negate(r: tuple[int, ...] | list[int]) -> tuple[int, ...]:
    """`negateClass` of a clean class."""
    return _negate(tuple(r))


@functools.lru_cache(maxsize=64)
def _negate(r: tuple[int, ...]) -> tuple[int, ...]:
    out: list[int] = []
    next_lo = 0
    for i in range(0, len(r), 2):
        if next_lo <= r[i] - 1:
            out.extend((next_lo, r[i] - 1))
        next_lo = r[i + 1] + 1
    if next_lo <= MAX_RUNE:
        out.extend((next_lo, MAX_RUNE))
    return tuple(out)


def folded(r: tuple[int, ...] | list[int]) -> tuple[int, ...]:
    """`appendFoldedRange` over a class: each rune with its orbit."""
    out = list(r)
    for i in range(0, len(r), 2):
        lo, hi = max(r[i], MIN_FOLD), min(r[i + 1], MAX_FOLD)
        if r[i] <= MIN_FOLD and r[i + 1] >= MAX_FOLD:
            continue
        for c in range(lo, hi + 1):
            for f in orbit(c):
                if f != c:
                    out.extend((f, f))
    return clean(out)


assert sys.maxunicode == MAX_RUNE
