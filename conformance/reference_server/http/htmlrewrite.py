"""The links of an HTML answer proxied through `pods/proxy`, `services/proxy` or `nodes/proxy`, moved below the
proxy's path, as kube-apiserver's proxy transport moves them.

Follows `staging/src/k8s.io/apimachinery/pkg/util/proxy/transport.go` (`atomsToAttrs`, `rewriteHTML`,
`rewriteResponse`: gzip and deflate bodies undone and redone, another encoding left alone) over the part of
`golang.org/x/net/html`'s tokenizer it relies on: every start tag is written back as `Token.String()` writes it
(the tag and attribute names lowercased, each value double-quoted and escaped by `html.EscapeString`), every
other token as its raw bytes; the text of `script`, `style` and the other raw-text elements is not parsed for tags.
"""
from __future__ import annotations

import html
import re
import zlib
from collections.abc import Callable

URL_ATTRS: dict[str, frozenset[str]] = {k: frozenset(v) for k, v in {
    "a": ("href",), "applet": ("codebase",), "area": ("href",), "audio": ("src",), "base": ("href",),
    "blockquote": ("cite",), "body": ("background",), "button": ("formaction",), "command": ("icon",),
    "del": ("cite",), "embed": ("src",), "form": ("action",), "frame": ("longdesc", "src"), "head": ("profile",),
    "html": ("manifest",), "iframe": ("longdesc", "src"), "img": ("longdesc", "src", "usemap"),
    "input": ("src", "usemap", "formaction"), "ins": ("cite",), "link": ("href",),
    "object": ("classid", "codebase", "data", "usemap"), "q": ("cite",), "script": ("src",), "source": ("src",),
    "video": ("poster", "src")}.items()}
RAW_TEXT = frozenset({"iframe", "noembed", "noframes", "noscript", "plaintext", "script", "style", "textarea",
                      "title", "xmp"})
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_SPACE = " \t\n\f\r"
_ESCAPES = (("&", "&amp;"), ("'", "&#39;"), ("<", "&lt;"), (">", "&gt;"), ('"', "&#34;"), ("\r", "&#13;"))


def _escape(s: str) -> str:
    """`html.EscapeString`."""
    for ch, esc in _ESCAPES:
        s = s.replace(ch, esc)
    return s


def _start_tag(text: str, i: int) -> tuple[str, list[tuple[str, str]], bool, int]:
    """A start tag beginning at `text[i] == "<"`: its name, attributes, whether it closes itself, and where it ends
    (the tokenizer's `readStartTag`, `readTagName`, `readTagAttrKey`, `readTagAttrVal`)."""
    n, j = len(text), i + 1
    while j < n and text[j] not in _SPACE + "/>":
        j += 1
    name, attrs, closing = text[i + 1:j].translate(_ASCII_LOWER), [], False
    while j < n and text[j] != ">":
        if text[j] in _SPACE or text[j] == "/":
            closing = text[j] == "/" and j + 1 < n and text[j + 1] == ">"
            j += 1
            continue
        k = j + 1 if text[j] == "=" else j  # a leading "=" belongs to the key
        while k < n and text[k] not in _SPACE + "/=>":
            k += 1
        key, j = text[j:k].translate(_ASCII_LOWER), k
        while j < n and text[j] in _SPACE:
            j += 1
        value = ""
        if j < n and text[j] == "=":
            j += 1
            while j < n and text[j] in _SPACE:
                j += 1
            if j < n and text[j] in "\"'":
                end = text.find(text[j], j + 1)
                end = n if end < 0 else end
                value, j = text[j + 1:end], min(end + 1, n)
            else:
                k = j
                while k < n and text[k] not in _SPACE + ">":
                    k += 1
                value, j = text[j:k], k
        attrs.append((key, html.unescape(value)))
    return name, attrs, closing, min(j + 1, n)


def rewrite_html(text: str, rewrite: Callable[[str], str]) -> str:
    """`rewriteHTML`: each start tag re-serialised with its URL-valued attributes passed through `rewrite`."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        lt = text.find("<", i)
        if lt < 0:
            out.append(text[i:])
            break
        out.append(text[i:lt])
        nxt = text[lt + 1:lt + 2]
        if nxt.isascii() and nxt.isalpha():
            name, attrs, closing, i = _start_tag(text, lt)
            urls = URL_ATTRS.get(name, frozenset())
            parts = [f' {k}="{_escape(rewrite(v) if k in urls else v)}"' for k, v in attrs]
            out.append(f"<{_escape(name)}{''.join(parts)}{'/>' if closing else '>'}")
            if name in RAW_TEXT and not closing:  # raw text up to the element's end tag
                m = re.compile(rf"</{re.escape(name)}[{_SPACE}/>]", re.IGNORECASE).search(text, i)
                end = m.start() if m else n
                out.append(text[i:end])
                i = end
            continue
        if text.startswith("<!--", lt):
            end = text.find("-->", lt + 4)
            i = n if end < 0 else end + 3
        elif nxt in ("!", "?", "/"):
            end = text.find(">", lt + 1)
            i = n if end < 0 else end + 1
        else:
            i = lt + 1
        out.append(text[lt:i])
    return "".join(out)


def rewrite_body(body: bytes, encoding: str, rewrite: Callable[[str], str]) -> bytes | None:
    """`rewriteResponse`: the body (gzip and deflate undone and redone) with its links rewritten; None for an
    encoding the transport leaves alone."""
    encoding = encoding.strip().lower()
    if encoding == "gzip":
        raw = zlib.decompress(body, 16 + zlib.MAX_WBITS)
    elif encoding == "deflate":
        raw = zlib.decompress(body, -zlib.MAX_WBITS)  # Go's flate: raw DEFLATE
    elif encoding == "":
        raw = body
    else:
        return None
    text = rewrite_html(raw.decode("utf-8", "surrogateescape"), rewrite).encode("utf-8", "surrogateescape")
    if encoding == "gzip":
        c = zlib.compressobj(zlib.Z_DEFAULT_COMPRESSION, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
        return c.compress(text) + c.flush()
    if encoding == "deflate":
        c = zlib.compressobj(zlib.Z_BEST_COMPRESSION, zlib.DEFLATED, -zlib.MAX_WBITS)
        return c.compress(text) + c.flush()
    return text


__all__ = ["rewrite_body", "rewrite_html"]
