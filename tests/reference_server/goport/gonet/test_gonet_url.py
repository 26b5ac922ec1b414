"""gonet/url.py against Go's own tables (src/net/url/url_test.go of Go 1.24: `urltests` with their String()
round trip, `parseRequestURLTests`, `TestParseErrors`, `unescapeTests`, `TestURLHostnameAndPort`,
`TestRejectControlCharacters`, `TestInvalidUserPassword`, `parseTests` of ParseQuery), plus Go's error texts."""
from __future__ import annotations

import pytest

from conformance.reference_server.goport.gonet import url as gourl
from conformance.reference_server.goport.gonet.url import URL, Userinfo

# (input, expected URL, round trip: "" means the input itself)
URLTESTS = [
    ("http://www.google.com", URL(scheme="http", host="www.google.com"), ""),
    ("http://www.google.com/", URL(scheme="http", host="www.google.com", path="/"), ""),
    ("http://www.google.com/file%20one%26two",
     URL(scheme="http", host="www.google.com", path="/file one&two", raw_path="/file%20one%26two"), ""),
    ("http://www.google.com/#file%20one%26two",
     URL(scheme="http", host="www.google.com", path="/", fragment="file one&two", raw_fragment="file%20one%26two"),
     ""),
    ("ftp://webmaster@www.google.com/",
     URL(scheme="ftp", user=Userinfo("webmaster"), host="www.google.com", path="/"), ""),
    ("ftp://john%20doe@www.google.com/", URL(scheme="ftp", user=Userinfo("john doe"), host="www.google.com", path="/"),
     "ftp://john%20doe@www.google.com/"),
    ("http://www.google.com/?", URL(scheme="http", host="www.google.com", path="/", force_query=True), ""),
    ("http://www.google.com/?foo=bar?", URL(scheme="http", host="www.google.com", path="/", raw_query="foo=bar?"), ""),
    ("http://www.google.com/?q=go+language",
     URL(scheme="http", host="www.google.com", path="/", raw_query="q=go+language"), ""),
    ("http://www.google.com/?q=go%20language",
     URL(scheme="http", host="www.google.com", path="/", raw_query="q=go%20language"), ""),
    ("http://www.google.com/a%20b?q=c+d",
     URL(scheme="http", host="www.google.com", path="/a b", raw_query="q=c+d"), ""),
    ("http:www.google.com/?q=go+language", URL(scheme="http", opaque="www.google.com/", raw_query="q=go+language"),
     "http:www.google.com/?q=go+language"),
    ("http:%2f%2fwww.google.com/?q=go+language",
     URL(scheme="http", opaque="%2f%2fwww.google.com/", raw_query="q=go+language"),
     "http:%2f%2fwww.google.com/?q=go+language"),
    ("mailto:/webmaster@golang.org", URL(scheme="mailto", path="/webmaster@golang.org", omit_host=True), ""),
    ("mailto:webmaster@golang.org", URL(scheme="mailto", opaque="webmaster@golang.org"), ""),
    ("/foo?query=http://bad", URL(path="/foo", raw_query="query=http://bad"), ""),
    ("//foo", URL(host="foo"), ""),
    ("//user@foo/path?a=b", URL(user=Userinfo("user"), host="foo", path="/path", raw_query="a=b"), ""),
    ("///threeslashes", URL(path="///threeslashes"), ""),
    ("http://user:password@google.com", URL(scheme="http", user=Userinfo("user", "password", True), host="google.com"),
     "http://user:password@google.com"),
    ("http://j@ne:password@google.com", URL(scheme="http", user=Userinfo("j@ne", "password", True), host="google.com"),
     "http://j%40ne:password@google.com"),
    ("http://jane:p@ssword@google.com", URL(scheme="http", user=Userinfo("jane", "p@ssword", True), host="google.com"),
     "http://jane:p%40ssword@google.com"),
    ("http://j@ne:password@google.com/p@th?q=@go",
     URL(scheme="http", user=Userinfo("j@ne", "password", True), host="google.com", path="/p@th", raw_query="q=@go"),
     "http://j%40ne:password@google.com/p@th?q=@go"),
    ("http://www.google.com/?q=go+language#foo",
     URL(scheme="http", host="www.google.com", path="/", raw_query="q=go+language", fragment="foo"), ""),
    ("http://www.google.com/?q=go+language#foo&bar",
     URL(scheme="http", host="www.google.com", path="/", raw_query="q=go+language", fragment="foo&bar"),
     "http://www.google.com/?q=go+language#foo&bar"),
    ("http://www.google.com/?q=go+language#foo%26bar",
     URL(scheme="http", host="www.google.com", path="/", raw_query="q=go+language", fragment="foo&bar",
         raw_fragment="foo%26bar"), "http://www.google.com/?q=go+language#foo%26bar"),
    ("file:///home/adg/rabbits", URL(scheme="file", path="/home/adg/rabbits"), "file:///home/adg/rabbits"),
    ("file:///C:/FooBar/Baz.txt", URL(scheme="file", path="/C:/FooBar/Baz.txt"), "file:///C:/FooBar/Baz.txt"),
    ("MaIlTo:webmaster@golang.org", URL(scheme="mailto", opaque="webmaster@golang.org"), "mailto:webmaster@golang.org"),
    ("a/b/c", URL(path="a/b/c"), "a/b/c"),
    ("http://%3Fam:pa%3Fsword@google.com",
     URL(scheme="http", user=Userinfo("?am", "pa?sword", True), host="google.com"), ""),
    ("http://192.168.0.1/", URL(scheme="http", host="192.168.0.1", path="/"), ""),
    ("http://192.168.0.1:8080/", URL(scheme="http", host="192.168.0.1:8080", path="/"), ""),
    ("http://[fe80::1]/", URL(scheme="http", host="[fe80::1]", path="/"), ""),
    ("http://[fe80::1]:8080/", URL(scheme="http", host="[fe80::1]:8080", path="/"), ""),
    ("http://[fe80::1%25en0]/", URL(scheme="http", host="[fe80::1%en0]", path="/"), ""),
    ("http://[fe80::1%25en0]:8080/", URL(scheme="http", host="[fe80::1%en0]:8080", path="/"), ""),
    ("http://[fe80::1%25%65%6e%301-._~]/", URL(scheme="http", host="[fe80::1%en01-._~]", path="/"),
     "http://[fe80::1%25en01-._~]/"),
    ("http://[fe80::1%25%65%6e%301-._~]:8080/", URL(scheme="http", host="[fe80::1%en01-._~]:8080", path="/"),
     "http://[fe80::1%25en01-._~]:8080/"),
    ("http://rest.rsc.io/foo%2fbar/baz%2Fquux?alt=media",
     URL(scheme="http", host="rest.rsc.io", path="/foo/bar/baz/quux", raw_path="/foo%2fbar/baz%2Fquux",
         raw_query="alt=media"), ""),
    ("mysql://a,b,c/bar", URL(scheme="mysql", host="a,b,c", path="/bar"), ""),
    ("scheme://!$&'()*+,;=hello!:1/path", URL(scheme="scheme", host="!$&'()*+,;=hello!:1", path="/path"), ""),
    ("http://host/!$&'()*+,;=:@[hello]",
     URL(scheme="http", host="host", path="/!$&'()*+,;=:@[hello]", raw_path="/!$&'()*+,;=:@[hello]"), ""),
    ("http://example.com/oid/[order_id]",
     URL(scheme="http", host="example.com", path="/oid/[order_id]", raw_path="/oid/[order_id]"), ""),
    ("http://192.168.0.2:8080/foo", URL(scheme="http", host="192.168.0.2:8080", path="/foo"), ""),
    ("http://192.168.0.2:/foo", URL(scheme="http", host="192.168.0.2:", path="/foo"), ""),
    ("http://2b01:e34:ef40:7730:8e70:5aff:fefe:edac:8080/foo",
     URL(scheme="http", host="2b01:e34:ef40:7730:8e70:5aff:fefe:edac:8080", path="/foo"), ""),
    ("http://2b01:e34:ef40:7730:8e70:5aff:fefe:edac:/foo",
     URL(scheme="http", host="2b01:e34:ef40:7730:8e70:5aff:fefe:edac:", path="/foo"), ""),
    ("http://[2b01:e34:ef40:7730:8e70:5aff:fefe:edac]:8080/foo",
     URL(scheme="http", host="[2b01:e34:ef40:7730:8e70:5aff:fefe:edac]:8080", path="/foo"), ""),
    ("http://[2b01:e34:ef40:7730:8e70:5aff:fefe:edac]:/foo",
     URL(scheme="http", host="[2b01:e34:ef40:7730:8e70:5aff:fefe:edac]:", path="/foo"), ""),
    ("http://hello.世界.com/foo", URL(scheme="http", host="hello.世界.com", path="/foo"),
     "http://hello.%E4%B8%96%E7%95%8C.com/foo"),
    ("http://hello.%e4%b8%96%e7%95%8c.com/foo", URL(scheme="http", host="hello.世界.com", path="/foo"),
     "http://hello.%E4%B8%96%E7%95%8C.com/foo"),
    ("http://hello.%E4%B8%96%E7%95%8C.com/foo", URL(scheme="http", host="hello.世界.com", path="/foo"), ""),
    ("http://example.com//foo", URL(scheme="http", host="example.com", path="//foo"), ""),
    ('myscheme://authority<"hi">/foo', URL(scheme="myscheme", host='authority<"hi">', path="/foo"), ""),
    ("tcp://[2020::2020:20:2020:2020%25Windows%20Loves%20Spaces]:2020",
     URL(scheme="tcp", host="[2020::2020:20:2020:2020%Windows Loves Spaces]:2020"), ""),
    ("magnet:?xt=urn:btih:c12fe1c06bba254a9dc9f519b335aa7c1367a88a&dn",
     URL(scheme="magnet", raw_query="xt=urn:btih:c12fe1c06bba254a9dc9f519b335aa7c1367a88a&dn"),
     "magnet:?xt=urn:btih:c12fe1c06bba254a9dc9f519b335aa7c1367a88a&dn"),
    ("mailto:?subject=hi", URL(scheme="mailto", raw_query="subject=hi"), "mailto:?subject=hi"),
]


@pytest.mark.parametrize("raw, want, roundtrip", URLTESTS, ids=[t[0] for t in URLTESTS])
def test_parse_and_string_round_trip(raw, want, roundtrip):
    got = gourl.parse(raw)
    assert got == want
    assert got.string() == (roundtrip or raw)


@pytest.mark.parametrize("url, want", [
    (URL(scheme="http", host="www.google.com", path="search"), "http://www.google.com/search"),
    (URL(path="this:that"), "./this:that"),
    (URL(path="here/this:that"), "here/this:that"),
    (URL(scheme="http", host="www.google.com", path="this:that"), "http://www.google.com/this:that"),
])
def test_string_of_built_urls(url, want):
    assert url.string() == want


PATH_LOOKS_SCHEME_RELATIVE = "//not.a.user@not.a.host/just/a/path"
PARSE_REQUEST_URL_TESTS = [
    ("http://foo.com", True), ("http://foo.com/", True), ("http://foo.com/path", True), ("/", True),
    (PATH_LOOKS_SCHEME_RELATIVE, True), ("//not.a.user@%66%6f%6f.com/just/a/path/also", True), ("*", True),
    ("http://192.168.0.1/", True), ("http://192.168.0.1:8080/", True), ("http://[fe80::1]/", True),
    ("http://[fe80::1]:8080/", True), ("http://[fe80::1%25en0]/", True), ("http://[fe80::1%25en0]:8080/", True),
    ("http://[fe80::1%25%65%6e%301-._~]/", True), ("http://[fe80::1%25%65%6e%301-._~]:8080/", True),
    ("foo.html", False), ("../dir/", False), (" http://foo.com", False), ("http://192.168.0.%31/", False),
    ("http://192.168.0.%31:8080/", False), ("http://[fe80::%31]/", False), ("http://[fe80::%31]:8080/", False),
    ("http://[fe80::%31%25en0]/", False), ("http://[fe80::%31%25en0]:8080/", False),
    ("http://[fe80::1%en0]/", False), ("http://[fe80::1%en0]:8080/", False),
]


@pytest.mark.parametrize("raw, valid", PARSE_REQUEST_URL_TESTS, ids=[t[0] for t in PARSE_REQUEST_URL_TESTS])
def test_parse_request_uri(raw, valid):
    if valid:
        gourl.parse_request_uri(raw)
    else:
        with pytest.raises(gourl.URLError):
            gourl.parse_request_uri(raw)


def test_parse_request_uri_keeps_a_scheme_relative_looking_path():
    assert gourl.parse_request_uri(PATH_LOOKS_SCHEME_RELATIVE).path == PATH_LOOKS_SCHEME_RELATIVE


# TestParseErrors, with the error each refusal prints
PARSE_ERRORS = [
    ("http://[::1]", None), ("http://[::1]:80", None),
    ("http://[::1]:namedport", 'invalid port ":namedport" after host'),
    ("http://x:namedport", 'invalid port ":namedport" after host'),
    ("http://[::1]/", None), ("http://[::1]a", 'invalid port "a" after host'),
    ("http://[::1]%23", 'invalid port "%23" after host'), ("http://[::1%25en0]", None), ("http://[::1]:", None),
    ("http://x:", None), ("http://[::1]:%38%30", 'invalid port ":%38%30" after host'),
    ("http://[::1%25%41]", None), ("http://[%10::1]", 'invalid URL escape "%10"'), ("http://[::1]/%48", None),
    ("http://%41:8080/", 'invalid URL escape "%41"'),
    ("mysql://x@y(z:123)/foo", 'invalid port ":123)" after host'),
    ("mysql://x@y(1.2.3.4:123)/foo", 'invalid port ":123)" after host'),
    (" http://foo.com", "first path segment in URL cannot contain colon"),
    ("ht tp://foo.com", "first path segment in URL cannot contain colon"), ("ahttp://foo.com", None),
    ("1http://foo.com", "first path segment in URL cannot contain colon"),
    ("http://[]%20%48%54%54%50%2f%31%2e%31%0a%4d%79%48%65%61%64%65%72%3a%20%31%32%33%0a%0a/",
     'invalid port "%20%48%54%54%50%2f%31%2e%31%0a%4d%79%48%65%61%64%65%72%3a%20%31%32%33%0a%0a" after host'),
    ("http://a b.com/", 'invalid character " " in host name'),
    ("cache_object://foo", "first path segment in URL cannot contain colon"),
    ("cache_object:foo", "first path segment in URL cannot contain colon"),
    ("cache_object:foo/bar", "first path segment in URL cannot contain colon"), ("cache_object/:foo/bar", None),
    # texts the brief names and TestRejectControlCharacters / TestInvalidUserPassword
    (":foo", "missing protocol scheme"),
    ("http://foo.com/%zz", 'invalid URL escape "%zz"'),
    ("http://foo.com/?foo\nbar", "net/url: invalid control character in URL"),
    ("http\r://foo.com/", "net/url: invalid control character in URL"),
    ("http://foo\x7f.com/", "net/url: invalid control character in URL"),
    ("http://user^:passwo^rd@foo.com/", "net/url: invalid userinfo"),
    ("http://[::1", "missing ']' in host"),
    ("http://foo.com/ctl\x80", None),
]


@pytest.mark.parametrize("raw, why", PARSE_ERRORS, ids=[repr(t[0]) for t in PARSE_ERRORS])
def test_parse_errors_in_go_words(raw, why):
    if why is None:
        gourl.parse(raw)
        return
    with pytest.raises(gourl.URLError) as exc:
        gourl.parse(raw)
    assert str(exc.value).endswith(": " + why)
    assert str(exc.value).startswith("parse ")


def test_the_error_names_the_url_as_go_quotes_it():
    with pytest.raises(gourl.URLError) as exc:
        gourl.parse("x:y\x00")
    assert str(exc.value) == 'parse "x:y\\x00": net/url: invalid control character in URL'
    with pytest.raises(gourl.URLError) as exc:  # a bad fragment: the whole URL named
        gourl.parse("http://h/p#%zz")
    assert str(exc.value) == 'parse "http://h/p#%zz": invalid URL escape "%zz"'
    with pytest.raises(gourl.URLError) as exc:  # a bad URL before the fragment: named without it
        gourl.parse("http://a b/#x")
    assert str(exc.value) == 'parse "http://a b/": invalid character " " in host name'
    with pytest.raises(gourl.URLError) as exc:
        gourl.parse_request_uri("")
    assert str(exc.value) == 'parse "": empty url'
    with pytest.raises(gourl.URLError) as exc:
        gourl.parse_request_uri("foo.html")
    assert str(exc.value) == 'parse "foo.html": invalid URI for request'


def test_bytes_not_runes_in_escape_errors():
    with pytest.raises(gourl.URLError) as exc:
        gourl.parse("http://h/%é")  # Go slices three bytes: "%" and both bytes of é
    assert str(exc.value).endswith('invalid URL escape "%é"')
    with pytest.raises(gourl.URLError) as exc:
        gourl.parse("http://h/%\u00e9x")
    assert str(exc.value).endswith('invalid URL escape "%é"')


UNESCAPE = [("", "", None), ("abc", "abc", None), ("1%41", "1A", None), ("1%41%42%43", "1ABC", None),
            ("%4a", "J", None), ("%6F", "o", None), ("%", "", "%"), ("%a", "", "%a"), ("%1", "", "%1"),
            ("123%45%6", "", "%6"), ("%zzzzz", "", "%zz"), ("a+b", "a b", None), ("a%20b", "a b", None)]


@pytest.mark.parametrize("raw, out, bad", UNESCAPE)
def test_query_and_path_unescape(raw, out, bad):
    if bad is not None:
        with pytest.raises(gourl.Error, match=f'invalid URL escape "{bad}"'):
            gourl.query_unescape(raw)
        with pytest.raises(gourl.Error):
            gourl.path_unescape(raw)
        return
    assert gourl.query_unescape(raw) == out
    assert gourl.path_unescape(raw.replace("+", "%20")) == out
    assert gourl.path_unescape("a+b") == "a+b"


def test_escapes():
    assert gourl.query_escape(" ?&=#+%!<>#\"{}|\\^[]`☺\t:/@$'()*,;") == (
        "+%3F%26%3D%23%2B%25%21%3C%3E%23%22%7B%7D%7C%5C%5E%5B%5D%60%E2%98%BA%09%3A%2F%40%24%27%28%29%2A%2C%3B")
    assert gourl.path_escape(" ?&=#+%!<>#\"{}|\\^[]`☺\t:/@$'()*,;") == (
        "%20%3F&=%23+%25%21%3C%3E%23%22%7B%7D%7C%5C%5E%5B%5D%60%E2%98%BA%09:%2F@$%27%28%29%2A%2C%3B")


HOSTNAME_AND_PORT = [
    ("foo.com:80", "foo.com", "80"), ("foo.com", "foo.com", ""), ("foo.com:", "foo.com", ""),
    ("FOO.COM", "FOO.COM", ""), ("1.2.3.4", "1.2.3.4", ""), ("1.2.3.4:80", "1.2.3.4", "80"),
    ("[1:2:3:4]", "1:2:3:4", ""), ("[1:2:3:4]:80", "1:2:3:4", "80"), ("[::1]:80", "::1", "80"),
    ("[::1]", "::1", ""), ("[::1]:", "::1", ""), ("localhost", "localhost", ""),
    ("localhost:443", "localhost", "443"),
    ("some.super.long.domain.example.org:8080", "some.super.long.domain.example.org", "8080"),
    ("[2001:0db8:85a3:0000:0000:8a2e:0370:7334]:17000", "2001:0db8:85a3:0000:0000:8a2e:0370:7334", "17000"),
    ("[2001:0db8:85a3:0000:0000:8a2e:0370:7334]", "2001:0db8:85a3:0000:0000:8a2e:0370:7334", ""),
    ("[google.com]:80", "google.com", "80"), ("google.com]:80", "google.com]", "80"),
    ("google.com:80_invalid_port", "google.com:80_invalid_port", ""), ("[::1]extra]:80", "::1]extra", "80"),
    ("google.com]extra:extra", "google.com]extra:extra", ""),
]


@pytest.mark.parametrize("host, hostname, port", HOSTNAME_AND_PORT)
def test_hostname_and_port(host, hostname, port):
    u = URL(host=host)
    assert (u.hostname(), u.port()) == (hostname, port)


PARSE_QUERY = [
    ("a=1", {"a": ["1"]}, True), ("a=1&b=2", {"a": ["1"], "b": ["2"]}, True),
    ("a=1&a=2&a=banana", {"a": ["1", "2", "banana"]}, True),
    ("ascii=%3Ckey%3A+0x90%3E", {"ascii": ["<key: 0x90>"]}, True), ("a=1;b=2", {}, False), ("a;b=1", {}, False),
    ("a=%3B", {"a": [";"]}, True), ("a%3Bb=1", {"a;b": ["1"]}, True), ("a=1&a=2;a=banana", {"a": ["1"]}, False),
    ("a;b&c=1", {"c": ["1"]}, False), ("a=1&b=2;a=3&c=4", {"a": ["1"], "c": ["4"]}, False),
    ("a=1&b=2;c=3", {"a": ["1"]}, False), (";", {}, False), ("a=1;", {}, False), ("a=1&;", {"a": ["1"]}, False),
    (";a=1&b=2", {"b": ["2"]}, False), ("a=1&b=2;", {"a": ["1"]}, False),
]


@pytest.mark.parametrize("query, out, ok", PARSE_QUERY, ids=[t[0] for t in PARSE_QUERY])
def test_parse_query(query, out, ok):
    got, err = gourl.parse_query(query)
    assert got == out
    assert (err is None) == ok


def test_escaped_path_and_request_uri():
    assert URL(scheme="http", host="example.com", path="/////", raw_path="/%2F/%2F/").request_uri() == "/%2F/%2F/"
    assert URL(scheme="http", host="example.com", path="/////", raw_path="/WRONG/").request_uri() == "/////"
    assert URL(scheme="http", host="example.com", path="/a?b", raw_path="/a?b", raw_query="q=go+language"
               ).request_uri() == "/a%3Fb?q=go+language"
    assert gourl.parse("*").request_uri() == "*"


def test_parsing_is_memoised_and_frozen():
    first = gourl.parse("https://memo.example/x")
    assert gourl.parse("https://memo.example/x") is first
    with pytest.raises(AttributeError):
        first.host = "other"  # type: ignore[misc]


@pytest.mark.parametrize("raw", [
    "http://h/" + "a" * 1_000_000, "http://h/" + "%41" * 300_000, "http://" + "a" * 1_000_000 + "/",
    "http://h/?" + "a=b&" * 200_000, "http://h/" + "é" * 500_000, "a" * 1_000_000 + ":",
])
def test_a_megabyte_url_is_parsed_in_linear_time(raw):
    import time
    start = time.monotonic()
    u = gourl.parse(raw)
    u.string(), u.escaped_path(), u.query()
    assert time.monotonic() - start < 10
    assert (raw, False) not in gourl._MEMO  # a long text is not kept
