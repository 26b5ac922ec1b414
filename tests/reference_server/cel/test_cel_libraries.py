"""The Kubernetes CEL libraries of 1.33's base environment (reference_server/cel/libs/): the examples of upstream's
`staging/src/k8s.io/apiserver/pkg/cel/library/{quantity,ip,cidr,urls,format}.go` doc comments and cel-go's
`ext/sets.go`, semverlib.go's and blang/semver's, with upstream's error texts."""
from __future__ import annotations

from typing import Any

import pytest

from conformance.reference_server.cel import EvalError, compile_detail, compile_expression
from conformance.reference_server.cel.environments import declared


def run(expression: str, activation: dict[str, Any] | None = None) -> Any:
    return compile_expression(expression, declared()).evaluate(activation or {})


@pytest.mark.parametrize("expression", [
    # quantity.go
    "isQuantity('1.3G') && isQuantity('1.3Gi') && !isQuantity('1,3G') && isQuantity('10000k')",
    "!isQuantity('200K') && !isQuantity('Three') && isQuantity('20Mi') && !isQuantity('20Mo') && !isQuantity('10Mm')",
    "quantity('200M') == quantity('0.2G') && quantity('2000k') == quantity('2M')",
    "quantity('200M') != quantity('0.3G') && quantity('50k').add(quantity('20')) == quantity('50.02k')",
    "!quantity('50k').add(20).isLessThan(quantity('50020'))",
    "quantity('50k').sub(quantity('20')) == quantity('49.98k') && quantity('50k').sub(20) == quantity('49980')",
    "quantity('50k').add(20).sub(quantity('100k')).asInteger() == -49980 && quantity('50').isInteger()",
    "quantity('50.703k').asApproximateFloat() == 50703.0",
    "quantity('50000000G').isInteger() && quantity('50k').isInteger()",
    "!quantity('9999999999999999999999999999999999999G').isInteger()",
    "quantity('50k').asInteger() == 50000",
    "quantity('50k').sub(20000).asApproximateFloat() == 30000.0",
    "quantity('50k').add(20) == quantity('50020')",
    "quantity('50k').sub(20000) == quantity('30k')",
    "quantity('50k').add(20).sub(quantity('100k')).sub(-50000) == quantity('20')",
    "quantity('200M').compareTo(quantity('0.2G')) == 0",
    "quantity('50M').compareTo(quantity('50Mi')) == -1 && quantity('50Mi').compareTo(quantity('50M')) == 1",
    "quantity('150Mi').isGreaterThan(quantity('100Mi')) && !quantity('50Mi').isGreaterThan(quantity('100Mi'))",
    "quantity('50M').isLessThan(quantity('100M')) && !quantity('100M').isLessThan(quantity('50M'))",
    "quantity('1Ki') == quantity('1024') && sign(quantity('-5')) == -1 && sign(quantity('0')) == 0",
    # ip.go
    "isIP('127.0.0.1') && isIP('::1') && !isIP('127.0.0.256') && !isIP(':::1')",
    "ip.isCanonical('127.0.0.1') && ip.isCanonical('2001:db8::abcd')",
    "!ip.isCanonical('2001:DB8::ABCD') && !ip.isCanonical('2001:db8::0:0:0:abcd')",
    "ip('127.0.0.1').family() == 4 && ip('::1').family() == 6",
    "ip('0.0.0.0').isUnspecified() && !ip('127.0.0.1').isUnspecified() && ip('::').isUnspecified()",
    "ip('127.0.0.1').isLoopback() && !ip('192.168.0.1').isLoopback() && ip('::1').isLoopback()",
    "ip('224.0.0.1').isLinkLocalMulticast() && !ip('224.0.1.1').isLinkLocalMulticast()",
    "ip('ff02::1').isLinkLocalMulticast() && !ip('fd00::1').isLinkLocalMulticast()",
    "ip('169.254.169.254').isLinkLocalUnicast() && !ip('192.168.0.1').isLinkLocalUnicast()",
    "ip('fe80::1').isLinkLocalUnicast() && !ip('fd80::1').isLinkLocalUnicast()",
    "ip('192.168.0.1').isGlobalUnicast() && !ip('255.255.255.255').isGlobalUnicast()",
    "ip('2001:db8::abcd').isGlobalUnicast() && !ip('ff00::1').isGlobalUnicast()",
    "string(ip('2001:DB8::0:0:ABCD')) == '2001:db8::abcd' && ip('10.0.0.1') == ip('10.0.0.1')",
    "string(ip('::ffff:0:1.2.3.4')) == '::ffff:0:102:304' && ip('1:2:3:4:5:6:7:8').family() == 6",
    "!isIP('1:2:3:4:5:6:7:8:9') && isIP('::') && !isIP(':') && !isIP('1.2.3.4%eth0')",
    # cidr.go
    "isCIDR('192.168.0.0/16') && isCIDR('::1/128') && !isCIDR('192.168.0.0/33') && !isCIDR('1.2.3.4')",
    "cidr('192.168.0.0/24').containsIP(ip('192.168.0.1')) && !cidr('192.168.0.0/24').containsIP('192.168.1.1')",
    "cidr('192.168.0.0/24').containsIP('192.168.0.1') && cidr('::1/128').containsIP('::1')",
    "cidr('192.168.0.0/24').containsCIDR(cidr('192.168.0.0/25'))",
    "!cidr('192.168.0.0/24').containsCIDR('192.168.0.0/23') && cidr('::1/128').containsCIDR('::1/128')",
    "cidr('192.168.0.1/24').ip() == ip('192.168.0.1') && cidr('::1/128').ip().family() == 6",
    "cidr('192.168.0.1/24').masked() == cidr('192.168.0.0/24')",
    "cidr('192.168.0.0/24') == cidr('192.168.0.0/24').masked()",
    "cidr('192.168.0.1/24') != cidr('192.168.0.1/24').masked()",
    "cidr('192.168.0.0/16').prefixLength() == 16 && cidr('::1/128').prefixLength() == 128",
    "string(cidr('192.168.0.1/24')) == '192.168.0.1/24'",
    "cidr('2001:db8:1::/32').masked() == cidr('2001:db8::/32') && cidr('2001:db8::/32').ip() == ip('2001:db8::')",
    "cidr('2001:db8::/32').containsCIDR('2001:db8::/33') && !cidr('2001:db8::/32').containsIP('2001:dc8::1')",
    # urls.go
    "isURL('https://user:pass@example.com:80/path?query=val#fragment') && isURL('/absolute-path')",
    "!isURL('https://a:b:c/') && !isURL('../relative-path')",
    "url('/path').getScheme() == '' && url('https://example.com/').getScheme() == 'https'",
    "url('https://example.com:80/').getHost() == 'example.com:80' && url('https://[::1]:80/').getHost() == '[::1]:80'",
    "url('https://[::1]/').getHost() == '[::1]' && url('/path').getHost() == ''",
    "url('https://example.com:80/').getHostname() == 'example.com' && url('https://[::1]:80/').getHostname() == '::1'",
    "url('https://example.com:80/').getPort() == '80' && url('https://example.com/').getPort() == ''",
    "url('https://example.com/path').getEscapedPath() == '/path' && url('https://example.com').getEscapedPath() == ''",
    "url('https://example.com/path with spaces/').getEscapedPath() == '/path%20with%20spaces/'",
    "url('https://example.com/path?k1=a&k2=b&k2=c').getQuery() == {'k1': ['a'], 'k2': ['b', 'c']}",
    ("url('https://example.com/path?key with spaces=value with spaces').getQuery() == "
     "{'key with spaces': ['value with spaces']}"),
    "url('https://example.com/path?').getQuery() == {} && url('https://example.com/path').getQuery() == {}",
    "url('https://example.com/p#frag').getEscapedPath() == '/p'",
    # ... with Go's net/url semantics (gonet/url.py): a host decoded, an IPv6 zone, ports, escapes kept
    "url('https://hello.%e4%b8%96.example/').getHost() == 'hello.世.example'",
    "url('https://[fe80::1%25en0]:8443/').getHostname() == 'fe80::1%en0' && url('https://[::1]/').getPort() == ''",
    "url('https://a:1:2/').getHostname() == 'a:1' && url('https://a:1:2/').getPort() == '2'",
    "url('https://h/a%2fb%20c').getEscapedPath() == '/a%2fb%20c' && url('https://h/a b').getEscapedPath() == '/a%20b'",
    "url('https://h/?a=1&b=%zz&c=x+y&d;e=1').getQuery() == {'a': ['1'], 'c': ['x y']}",
    "!isURL('http://[fe80::%31]/') && !isURL('http://192.168.0.%31/') && !isURL('https://user^@h/')",
    "isURL('http://2b01:e34:ef40:7730:8e70:5aff:fefe:edac:8080/foo') && isURL('*') && !isURL('')",
    # format.go
    "!format.dns1123Label().validate('my-label-name').hasValue()",
    "!format.dns1123Subdomain().validate('apiextensions.k8s.io').hasValue()",
    "!format.qualifiedName().validate('apiextensions.k8s.io/v1beta1').hasValue()",
    "!format.dns1123LabelPrefix().validate('my-label-prefix-').hasValue()",
    "!format.uri().validate('http://example.com').hasValue() && format.uri().validate('../x').hasValue()",
    "format.uri().validate('http://[::%31]/').value() == ['parse \"http://[::%31]/\": invalid URL escape \"%31\"']",
    "!format.uuid().validate('123e4567-e89b-12d3-a456-426614174000').hasValue()",
    "!format.byte().validate('aGVsbG8=').hasValue() && format.byte().validate('!!').value() == ['invalid base64']",
    "!format.date().validate('2021-01-01').hasValue() && format.date().validate('2021-13-01').hasValue()",
    "!format.datetime().validate('2021-01-01T00:00:00Z').hasValue()",
    "format.named('dns1123Label').hasValue() && !format.named('nope').hasValue()",
    "format.named('labelValue').value().validate('a b').value().size() == 1",
    # semverlib.go
    "semver('1.2.3').major() == 1 && semver('1.2.3').minor() == 2 && semver('1.2.3').patch() == 3",
    "semver('1.2.3').compareTo(semver('1.2.3')) == 0 && semver('1.2.3').compareTo(semver('2.0.0')) == -1",
    "semver('1.2.3').compareTo(semver('0.1.2')) == 1 && semver('1.0.0').isGreaterThan(semver('1.0.0-rc.1'))",
    "semver('1.0.0-alpha.1').isLessThan(semver('1.0.0-alpha.beta'))",
    "semver('1.0.0-2').isLessThan(semver('1.0.0-10'))",
    "semver('v1.0.0', true) == semver('1.0.0') && semver('1.0', true) == semver('1.0.0')",
    "semver('01.01.01', true) == semver('1.1.1') && semver('1.0.0+build.1') == semver('1.0.0')",
    "isSemver('1.0.0') && !isSemver('hello') && !isSemver('v1.0') && isSemver('v1.0', true)",
    "quantity('1').compareTo(quantity('2')) == -1 && semver('2.0.0').compareTo(semver('1.0.0')) == 1",
    # cel-go ext/sets.go
    "sets.contains([], []) && sets.contains([1], []) && sets.contains([1, 2, 3, 4], [2, 3])",
    "sets.contains([1, 2.0, 3u], [1.0, 2u, 3]) && !sets.contains([1], [1, 2])",
    "sets.equivalent([], []) && sets.equivalent([1], [1, 1]) && sets.equivalent([1, 2, 3], [3u, 2.0, 1])",
    "!sets.equivalent([2, 1], [1]) && sets.intersects([1], [1, 2]) && !sets.intersects([], [])",
    "!sets.intersects([true], [1]) && sets.intersects([[1], [2]], [[2]])",
])
def test_upstream_examples(expression: str) -> None:
    assert run(expression) is True


_LABEL = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and "
          "end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
          "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')")
_SUBDOMAIN = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
              "start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
              "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")
_DNS1035 = ("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic "
            "character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for "
            "validation is '[a-z]([-a-z0-9]*[a-z0-9])?')")


@pytest.mark.parametrize("expression, errors", [  # format_test.go
    ("format.dns1123SubdomainPrefix().validate('mysubdomain.prefix.-')", None),
    ("format.dns1035LabelPrefix().validate('my-label-prefix-')", None),
    ("format.dns1123Label().validate('contains a space')", [_LABEL]),
    ("format.dns1123Subdomain().validate('contains a space')", [_SUBDOMAIN]),
    ("format.dns1035Label().validate('contains a space')", [_DNS1035]),
    ("format.qualifiedName().validate('contains a space')", [(
        "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
        "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
        "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")]),
    ("format.dns1123LabelPrefix().validate('contains a space-')", [_LABEL]),
    ("format.dns1123SubdomainPrefix().validate('contains a space-')", [_SUBDOMAIN]),
    ("format.dns1035LabelPrefix().validate('contains a space-')", [_DNS1035]),
    ("format.qualifiedName().validate('my.name')", None),
    ("format.byte().validate('aGVsbG8')", ["invalid base64"]),
    ("format.date().validate('2020-01-32')", ["invalid date"]),
    ("format.datetime().validate('2020-01-32T00:00:00Z')", ["invalid datetime"]),
    ("format.labelValue().validate('my-cool-label-Value')", None),
    ("format.labelValue().validate('my-cool-label-Value!!\\n\\n!!!')", [(
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
        "start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for "
        "validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")]),
])
def test_format_validate(expression: str, errors: list[str] | None) -> None:
    assert run(f"{expression}.orValue(['<none>'])") == (errors or ["<none>"])


@pytest.mark.parametrize("expression, message", [  # the compile errors of ip_test.go, cidr_test.go, quantity_test.go
    ("cidr(192168)", "found no matching overload for 'cidr' applied to '(int)'"),
    ("isIP(cidr('192.168.0.0/24'))", "found no matching overload for 'isIP' applied to '(net.CIDR)'"),
    ("isQuantity([1, 2, 3])", "found no matching overload for 'isQuantity' applied to '(list(int))'"),
])
def test_library_overloads_are_type_checked(expression: str, message: str) -> None:
    assert message in (compile_detail(expression, declared(), ()) or "")


def test_format_constants_compare() -> None:
    assert run("format.named('dns1123Label').value() == format.dns1123Label() && format.uri() != format.uuid()")


def test_format_messages_are_apimachinerys() -> None:
    assert run("format.dns1123Label().validate('My_label').value()") == [(
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and "
        "end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')")]


@pytest.mark.parametrize("expression, message", [
    ("quantity('200K')", "unable to parse quantity's suffix"),
    ("quantity('Three')", "quantities must match the regular expression"),
    ("quantity('10Mo')", "quantities must match the regular expression"),
    ("quantity('10Mm')", "unable to parse quantity's suffix"),
    ("quantity('9999999999999999999999999999999999999G').asInteger()", "cannot convert value to integer"),
    ("ip('127.0.0.256')", ('IP Address "127.0.0.256" parse error during conversion from string: '
                           'ParseAddr("127.0.0.256"): IPv4 field has value >255')),
    ("ip('01.2.3.4')", 'ParseAddr("01.2.3.4"): IPv4 field has octet with leading zero'),
    ("ip('1.2.3')", 'ParseAddr("1.2.3"): IPv4 address too short'),
    ("ip('192.168.0.1.0')", ('IP Address "192.168.0.1.0" parse error during conversion from string: '
                             'ParseAddr("192.168.0.1.0"): IPv4 address too long')),
    ("ip('2001:db8:::68')", ('IP Address "2001:db8:::68" parse error during conversion from string: '
                             'ParseAddr("2001:db8:::68"): each colon-separated field must have at least one digit '
                             '(at ":68")')),
    ("ip('1:2:3:4:5:6:7:8:9')", 'ParseAddr("1:2:3:4:5:6:7:8:9"): trailing garbage after address (at "9")'),
    ("ip('1::2::3')", 'ParseAddr("1::2::3"): multiple :: in address (at ":3")'),
    ("ip('12345::')", 'ParseAddr("12345::"): each group must have 4 or less digits (at "12345::")'),
    ("ip('1:2')", 'ParseAddr("1:2"): address string too short'),
    ("ip('::ffff:1.2.3.4')", 'IPv4-mapped IPv6 address "::ffff:1.2.3.4" is not allowed'),
    ("ip('fe80::1%eth0')", 'IP address "fe80::1%eth0" with zone value is not allowed'),
    ("cidr('1.2.3.4')", ('network address parse error during conversion from string: network address parse error '
                         'during conversion from string: netip.ParsePrefix("1.2.3.4"): no \'/\'')),
    ("cidr('1.2.3.4/33')", 'netip.ParsePrefix("1.2.3.4/33"): prefix length out of range'),
    ("cidr('2001:db8::/')", ('network address parse error during conversion from string: network address parse '
                             'error during conversion from string: netip.ParsePrefix("2001:db8::/"): bad bits after '
                             'slash: ""')),
    ("cidr('1.2.3.4/016')", 'netip.ParsePrefix("1.2.3.4/016"): bad bits after slash: "016"'),
    ("url('https://a:b:c/')", ('URL parse error during conversion from string: parse "https://a:b:c/": '
                               'invalid port ":c" after host')),
    ("url('../relative-path')", 'parse "../relative-path": invalid URI for request'),
    ("url('http://[fe80::%31]/')", ('URL parse error during conversion from string: parse "http://[fe80::%31]/": '
                                    'invalid URL escape "%31"')),
    # ParseRequestURI takes "#%zz" as the query; Parse (the second parse) refuses the fragment
    ("url('http://h?#%zz')", ('URL parse error during conversion from string: parse "http://h?#%zz": invalid URL '
                              'escape "%zz"')),
    ("quantity(1)", "no such overload"),
    ("semver('Three')", "No Major.Minor.Patch elements found"),
    ("semver('01.1.1')", 'Major number must not contain leading zeroes "01"'),
    ("semver('1.0.0-01')", 'Numeric PreRelease version must not contain leading zeroes "01"'),
    ("semver('1.0-rc', true)", "short version cannot contain PreRelease/Build meta data"),
    ("quantity('1').compareTo(semver('1.0.0'))", "no such overload: compareTo"),
    ("ip('1.2.3.4').getHost()", "no such overload: getHost"),
])
def test_errors(expression: str, message: str) -> None:
    with pytest.raises(EvalError) as exc:
        run(expression)
    assert message in str(exc.value)


@pytest.mark.parametrize("expression", [
    "type(ip('1.2.3.4')) == net.IP && type(ip('1.2.3.4')) != map && type(cidr('10.0.0.0/8')) == net.CIDR",
    "type(quantity('1')) == kubernetes.Quantity && type(url('https://a/b')) == kubernetes.URL",
    "type(format.dns1123Label()) == kubernetes.NamedFormat",
    "type(1) == int && type(1u) == uint && type(1.0) == double && type('a') == string && type(null) == null_type",
    "type([1]) == list && type({'a': 1}) == map && type(type(1)) == type && type(ip('::1')) != net.CIDR",
    "type(timestamp('2024-01-01T00:00:00Z')) == google.protobuf.Timestamp && type(optional.of(1)) == optional_type",
    "[ip('1.2.3.4'), ip('::1')].all(i, type(i) == net.IP) && type(authorizer) == kubernetes.authorization.Authorizer",
    "type(authorizer.path('/').check('get')) == kubernetes.authorization.Decision",
    "string(ip('1.2.3.4')) == '1.2.3.4' && ip('1.2.3.4') == ip('1.2.3.4') && string(cidr('::1/128')) == '::1/128'",
])
def test_library_values_have_their_own_types(expression: str) -> None:
    """`type()` of a library value is its library type (cel-go's `net.IP`, `kubernetes.Quantity`, ...), the
    library types' names are values (`cel.Types` in each library's CompileOptions), equality and `string()` are
    the types' own."""
    from conformance.reference_server.cel.libs.authz import authorizer_value
    assert compile_detail(expression, declared(), ("bool",)) is None
    assert run(expression, {"authorizer": authorizer_value({})}) is True


@pytest.mark.parametrize("expression, message", [  # cel-go v0.23.2 decls.go's guards: MaybeNoSuchOverload
    ("dyn(1).lowerAscii()", "no such overload: lowerAscii(int)"),
    ("dyn('abc').replace('a', 'b', dyn(1.5))", "no such overload: replace(string, string, string, double)"),
    ("['a'].join(dyn(1))", "no such overload: join(list, int)"),
    ("['a', 1].sum()", "no such overload: sum(list)"),  # the first element decides which overload is taken
    ("[1, 'a'].sum()", "no such overload"),  # list(int)'s, whose Add then fails (MaybeNoSuchOverloadErr)
    ("dyn({}).sum()", "no such overload: sum(map)"),
    ("dyn(1).isSorted()", "no such overload: isSorted(int)"),
    ("dyn(1).indexOf(1)", "no such overload: indexOf(int, int)"),
    ("sets.contains([1], dyn(1))", "no such overload: sets.contains(list, int)"),
    ("quantity(dyn(1))", "no such overload: quantity(int)"),
    ("quantity('1').compareTo(semver('1.0.0'))", "no such overload: compareTo(kubernetes.Quantity, kubernetes.Semver)"),
    ("ip('1.2.3.4').getHost()", "no such overload: getHost(net.IP)"),
    ("['a', 1].join()", "join: invalid input: 1"),  # ext/strings.go joinValSeparator
    ("['a', 1.5].join('-')", "join: invalid input: 1.5"),
    # standard functions, cel-go v0.23.2 interpreter/interpretable.go and types/string.go
    ("size(dyn(1))", "no such overload: size"),  # a singleton bound to the Sizer trait: evalUnary's words
    ("dyn(1).size()", "no such overload: size"),
    ("dyn(1).getFullYear()", "no such overload: getFullYear"),  # bound to the Timestamp receiver
    ("dyn(1).contains('a')", "no such overload"),  # type guards disabled: StringContains' MaybeNoSuchOverloadErr
    ("dyn(1).startsWith('a')", "no such overload"),
    ("dyn(1).endsWith('a')", "no such overload"),
])
def test_mistyped_arguments_are_refused_as_cel_go_guards_them(expression: str, message: str) -> None:
    with pytest.raises(EvalError) as exc:
        run(expression)
    assert str(exc.value) == message
