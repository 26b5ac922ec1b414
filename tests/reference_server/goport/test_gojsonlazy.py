"""evanphx/json-patch v4.12.0's bytes (gojsonlazy.py), each expectation derived from its `patch.go` and `merge.go`:
a `lazyNode` keeps the bytes it was read from until something reads inside it; `json.Marshal` then writes an
untouched node's bytes compacted (encoding/json `appendCompact`: `<`, `>`, `&` escaped, `\\u00e9` and `1.0` kept),
a node read as an object with its keys sorted (a Go map), a node read as an array element by element."""
from __future__ import annotations

import pytest

from conformance.reference_server.goport import gojsonlazy as L

DOC = '{"kind":"ControllerRevision","data":{"s":"t","a":[ "\\u00e9", 1.0, {"z":1,"y":2} ]}}'


def test_merge_keeps_untouched_bytes_and_the_patch_s_own() -> None:
    """`mergeDocs`: `data` and the top document are read (`intoDoc`: keys sorted); `a`, untouched, keeps its bytes
    (compacted); `s` gets the patch's node as sent (`merge`: the current value is no object, so `pruneNulls` of
    the patch, which leaves a string raw): `\\u00e9` kept, `<` escaped by the compaction."""
    out = L.merge_patch(DOC, '{"data":{"s":"\\u00e9<"}}')
    assert out == ('{"data":{"a":["\\u00e9",1.0,{"z":1,"y":2}],"s":"\\u00e9\\u003c"},'
                   '"kind":"ControllerRevision"}')


def test_merge_prunes_and_sorts_what_it_brings_where_nothing_was() -> None:
    """A new member: `pruneNulls` reads every object and array inside it (so they are written sorted), drops the
    objects' nulls, keeps the arrays' and every scalar's bytes."""
    out = L.merge_patch(DOC, '{"data":{"n":{"z":"\\u00e9","a":[{"x":null,"w":1.0},null]}}}')
    assert out == ('{"data":{"a":["\\u00e9",1.0,{"z":1,"y":2}],"n":{"a":[{"w":1.0},null],"z":"\\u00e9"},'
                   '"s":"t"},"kind":"ControllerRevision"}')


def test_merge_over_an_object_with_no_object_keeps_the_patch_unpruned() -> None:
    """`merge`: the current value reads as an object, the patch's does not: the patch's node as it is (nulls and
    key order inside kept)."""
    out = L.merge_patch('{"data":{"m":{"k":1}}}', '{"data":{"m":[{"x":null, "b":1,"a":2}]}}')
    assert out == '{"data":{"m":[{"x":null,"b":1,"a":2}]}}'


def test_merge_patch_that_is_an_array_is_the_result() -> None:
    """`doMergePatch`: the patch does not read into a `partialDoc`, so it is read as a `partialArray`, pruned and
    written: its strings' and numbers' bytes as sent (`\\u00e9`, `\\/`, `1.50`), `<` escaped, objects' keys sorted
    and written as encoding/json writes a string (`"k<"` is `"k\\u003c"`)."""
    out = L.merge_patch("{}", '["\\u00e9<", {"b":null,"k<":"x\\/y"}, 1.50, null]')
    assert out == '["\\u00e9\\u003c",{"k\\u003c":"x\\/y"},1.50,null]'
    with pytest.raises(L.PatchFailed, match="Invalid JSON Patch"):
        L.merge_patch("{}", "3")


def test_json_patch_keeps_an_array_s_untouched_elements_and_the_value_s_bytes() -> None:
    """`add` at an index: the array is read (`intoAry`), its elements stay raw; the value is the operation's
    `value` bytes (`Operation.value()`: key order and escapes as sent, compacted)."""
    ops = '[{"op":"add","path":"/data/a/1","value":{ "q":"\\u00e9<", "p":2.50 }}]'
    assert L.apply_patch(DOC, ops) == ('{"data":{"a":["\\u00e9",{"q":"\\u00e9\\u003c","p":2.50},1.0,{"z":1,"y":2}],'
                                       '"s":"t"},"kind":"ControllerRevision"}')


def test_json_patch_negative_index_copy_and_move() -> None:
    """`SupportNegativeIndices` (true): `-1` is the last element; `copy` writes the source (`deepCopy`:
    `MarshalJSON`, a raw node's bytes compacted) and reads it lazily again; `move` moves the node itself."""
    ops = ('[{"op":"remove","path":"/data/a/-1"},{"op":"copy","from":"/data/a","path":"/data/c"},'
           '{"op":"move","from":"/data/s","path":"/data/m"}]')
    assert L.apply_patch(DOC, ops) == ('{"data":{"a":["\\u00e9",1.0],"c":["\\u00e9",1.0],"m":"t"},'
                                       '"kind":"ControllerRevision"}')


def test_json_patch_test_reads_what_it_compares() -> None:
    """`test` calls `equal`, whose `tryDoc`/`tryAry` read each node it looks into: an object compared is written
    sorted afterwards; scalars compare by their compacted bytes (`1.0` is not `1`)."""
    ops = '[{"op":"test","path":"/data/a","value":["\\u00e9",1.0,{"y":2,"z":1}]}]'
    assert L.apply_patch(DOC, ops) == ('{"data":{"a":["\\u00e9",1.0,{"y":2,"z":1}],"s":"t"},'
                                       '"kind":"ControllerRevision"}')
    with pytest.raises(L.PatchFailed, match="test failed"):
        L.apply_patch(DOC, '[{"op":"test","path":"/data/a/1","value":1}]')


def test_json_patch_replace_of_a_missing_key_adds_it() -> None:
    """v4.12.0's `replace` asks `con.get(key)` for an error, and a `partialDoc`'s `get` never answers one: a missing
    key is added (an array's missing index is refused, in `replace`'s words wrapping ErrMissing)."""
    assert L.apply_patch('{"data":{}}', '[{"op":"replace","path":"/data/x","value":1}]') == '{"data":{"x":1}}'
    with pytest.raises(L.PatchFailed) as exc:
        L.apply_patch('{"a":[]}', '[{"op":"replace","path":"/a/0","value":1}]')
    assert str(exc.value) == "replace operation does not apply: doc is missing key: /a/0: missing value"


@pytest.mark.parametrize("ops, message", [
    ('[{"op":"add","path":"/x/y","value":1}]', 'add operation does not apply: doc is missing path: "/x/y": missing value'),
    ('[{"op":"add","path":"/a/x","value":1}]',
     ("error in add for path: '/a/x': value was not a proper array index: 'x': strconv.Atoi: parsing \"x\": "
      "invalid syntax")),
    ('[{"op":"add","path":"/a/3","value":1}]',
     "error in add for path: '/a/3': Unable to access invalid index: 3: invalid index referenced"),
    ('[{"op":"remove","path":"/b"}]', "error in remove for path: '/b': Unable to remove nonexistent key: b: missing value"),
    ('[{"op":"remove","path":"/a/-2"}]',
     "error in remove for path: '/a/-2': Unable to access invalid index: -2: invalid index referenced"),
    ('[{"op":"move","from":"/b","path":"/c"}]',
     "error in move for path: 'b': Unable to remove nonexistent key: b: missing value"),
    ('[{"op":"copy","from":"/x/y","path":"/c"}]',
     "copy operation does not apply: doc is missing from path: /x/y: missing value"),
    ('[{"op":"test","path":"/a/0","value":"1"}]', "testing value /a/0 failed: test failed"),
    ('[{"op":"replace","value":1}]',
     "replace operation failed to decode path: operation missing path field: missing value"),
    ('[{"op":"add","path":5,"value":1}]', "add operation failed to decode path: missing value"),
    ('[{"op":"move","path":"/c"}]', "move operation failed to decode from: operation, missing from field: missing value"),
    ('[{"op":"test","path":5}]',
     "test operation failed to decode path: json: cannot unmarshal number into Go value of type string"),
    ('[{"path":"/a"}]', "Unexpected kind: unknown"),
])
def test_json_patch_errors_in_v4_12_0_s_words(ops: str, message: str) -> None:
    """Each operation's errors as patch.go writes them (pkg/errors `Wrapf`: "<message>: <cause>"; the `add` and
    `copy` path errors wrap ErrMissing whatever the cause; `move` names the key where it reads `from`)."""
    with pytest.raises(L.PatchFailed) as exc:
        L.apply_patch('{"a":[1]}', ops)
    assert str(exc.value) == message


def test_json_patch_missing_values_in_v4_12_0() -> None:
    """Where v4.12.0 finds a nil node and goes on: `copy` from a missing key adds `null`, an `add` without `value`
    adds `null`, a `test` of a missing key against `null` passes, a `replace` of the document by a scalar is no
    error and replaces nothing (`Wrapf` of a nil error is nil)."""
    ops = ('[{"op":"copy","from":"/nope","path":"/c"},{"op":"add","path":"/d"},{"op":"test","path":"/e","value":null},'
           '{"op":"replace","path":"","value":5}]')
    assert L.apply_patch('{"a":1}', ops) == '{"a":1,"c":null,"d":null}'


def test_a_nil_node_walked_through_is_go_s_panic() -> None:
    """An `add` of `null` leaves a node of no bytes (`Operation.value()`: a node of a nil `*json.RawMessage`);
    v4.12.0's `findObject` reads `*next.raw` through it: a nil pointer dereference, kube-apiserver's panic."""
    with pytest.raises(L.GoPanicked):
        L.apply_patch('{"a":{}}', '[{"op":"add","path":"/a/b","value":null},{"op":"add","path":"/a/b/c","value":1}]')



NULL_COPIED = '[{"op":"add","path":"/a","value":null},{"op":"copy","from":"/a","path":"/b"}'


def test_an_add_into_a_copied_null_is_go_s_panic() -> None:
    """`copy` writes a node of no bytes as `null` (`deepCopy`: `MarshalJSON`), and `intoDoc` reads those bytes
    into a nil `partialDoc` without error: `partialDoc.add` (an `add`, `move` or `copy` into it) and `set` (a
    `replace`) assign to an entry of a nil map, Go's runtime panic."""
    for op in ('{"op":"add","path":"/b/c","value":1}', '{"op":"replace","path":"/b/c","value":1}',
               '{"op":"copy","from":"/x","path":"/b/c"}', '{"op":"move","from":"/x","path":"/b/c"}'):
        with pytest.raises(L.GoPanicked):
            L.apply_patch('{"x":1}', NULL_COPIED + "," + op + "]")


def test_a_copied_null_reads_as_a_nil_map() -> None:
    """What does not write into the nil map goes on: a `remove` from it finds no key (ErrMissing), a path through
    it finds no container, a `test` of it against `{}` passes (`tryDoc`: both empty), and it is written `null`."""
    with pytest.raises(L.PatchFailed) as exc:
        L.apply_patch("{}", NULL_COPIED + ',{"op":"remove","path":"/b/c"}]')
    assert str(exc.value) == "error in remove for path: '/b/c': Unable to remove nonexistent key: c: missing value"
    with pytest.raises(L.PatchFailed) as exc:
        L.apply_patch("{}", NULL_COPIED + ',{"op":"add","path":"/b/c/d","value":1}]')
    assert str(exc.value) == 'add operation does not apply: doc is missing path: "/b/c/d": missing value'
    assert L.apply_patch("{}", NULL_COPIED + ',{"op":"test","path":"/b","value":{}}]') == '{"a":null,"b":null}'


def test_copies_add_up_to_the_limit_kube_apiserver_sets() -> None:
    """`AccumulatedCopySizeLimit` is kube-apiserver's JSONPatchMaxCopyBytes (3 MiB): each `copy` adds its value's
    written size; past the limit, `NewAccumulatedCopySizeError` (not wrapped)."""
    value = "x" * (1024 * 1024)  # written with its quotes: 1048578 bytes
    doc = '{"a":"' + value + '"}'
    two = '[{"op":"copy","from":"/a","path":"/b"},{"op":"copy","from":"/a","path":"/c"}]'
    assert len(L.apply_patch(doc, two)) == 3 * 1048578 + len('{"a":,"b":,"c":}')
    with pytest.raises(L.PatchFailed) as exc:
        L.apply_patch(doc, two[:-1] + ',{"op":"copy","from":"/a","path":"/d"}]')
    assert str(exc.value) == ("Unable to complete the copy, the accumulated size increase of copy is 3145734, "
                              "exceeding the limit 3145728")
