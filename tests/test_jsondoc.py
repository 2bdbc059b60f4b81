"""The positional JSON reader: same values as json.loads, plus positions and duplicates."""

from __future__ import annotations

import json

import pytest

from drafter_lint import jsondoc

SAMPLES = [
    '{"a": 1, "b": [1, 2.5, -3e2, true, false, null], "c": {"d": "x\\u00e9\\n"}}',
    "[]", "{}", '"s"', "0", "-0.0", '{"a": {"b": {"c": [[], {}]}}}',
    '{"big": 123456789012345678901234567890, "nan": NaN, "inf": -Infinity}',
    ' \n\t{"spaced" :\n 1 } \n',
]


@pytest.mark.parametrize("text", SAMPLES)
def test_value_equals_json_loads(text):
    expected = json.loads(text)
    got = jsondoc.parse(text).value
    assert json.dumps(got, sort_keys=True) == json.dumps(expected, sort_keys=True)
    assert type(got) is type(expected)


@pytest.mark.parametrize("text", ['{"a": 1,}', '{"a" 1}', "[1 2]", '{"a": tru}', "{", "",
                                  '{"a": 1} x', "\ufeff{}", '{"a": "\x01"}', "[01]"])
def test_rejects_what_json_loads_rejects(text):
    with pytest.raises(ValueError):
        json.loads(text)
    with pytest.raises(jsondoc.JsonSyntaxError):
        jsondoc.parse(text)


def test_syntax_error_position_is_where_parsing_stopped():
    with pytest.raises(jsondoc.JsonSyntaxError) as info:
        jsondoc.parse('{\n  "a": 1,\n  "b": ]\n}')
    assert (info.value.line, info.value.column) == (3, 8)


def test_positions_of_keys_and_items():
    text = '{\n  "dflash_config": {\n    "mask_token_id": 5,\n    "ids": [1,\n      2]\n  }\n}'
    doc = jsondoc.parse(text)
    assert doc.positions["/dflash_config"] == (2, 3)
    assert doc.positions["/dflash_config/mask_token_id"] == (3, 5)
    assert doc.positions["/dflash_config/ids/1"] == (5, 7)
    assert doc.position("/dflash_config/missing") == (2, 3)   # a missing key: its parent
    assert doc.position("/nothing/here") == (1, 1)


def test_pointer_escaping_round_trips():
    doc = jsondoc.parse('{"a/b": {"m~n": 1}}')
    ptr = jsondoc.pointer("a/b", "m~n")
    assert ptr == "/a~1b/m~0n"
    assert ptr in doc.positions
    assert jsondoc.resolve(doc.value, ptr) == 1


def test_duplicates_keep_every_copy_and_the_last_value():
    doc = jsondoc.parse('{"w": 1,\n "x": {"k": 1, "k": 2},\n "w": 3}')
    assert doc.value == {"w": 3, "x": {"k": 2}}
    found = {d.pointer: (d.values, d.positions) for d in doc.duplicates}
    assert found["/w"] == ([1, 3], [(1, 2), (3, 2)])
    assert found["/x/k"][0] == [1, 2]


def test_deep_nesting_is_refused_not_a_recursion_error():
    with pytest.raises(jsondoc.JsonSyntaxError, match="nested deeper"):
        jsondoc.parse("[" * 100000 + "]" * 100000)


def test_style_is_recorded():
    assert jsondoc.parse('{\n    "a": 1\n}\n').indent == 4
    assert jsondoc.parse('{\n\t"a": 1\n}').trailing_newline is False
    assert jsondoc.parse('{"a": 1}').indent is None


def test_positions_past_the_limit_are_found_by_search():
    """A shard index over POSITIONS_LIMIT keeps real positions (found by text search),
    equal to what the positional parser gives. Mutation caught: every finding of a large
    file at 1:1 with no word why."""
    import json as _json

    from drafter_lint import jsondoc

    weight_map = {f"model.layers.{i}.mlp.w{j}.weight": f"model-{i % 7:05d}.safetensors"
                  for i in range(2500) for j in range(10)}
    weight_map["lm_head.weight"] = "model-00006.safetensors"
    text = _json.dumps({"metadata": {"total_size": 3}, "weight_map": weight_map}, indent=2)
    assert len(text) > jsondoc.POSITIONS_LIMIT
    fast, exact = jsondoc.parse_fast(text), jsondoc.parse(text)
    for pointer in ("/metadata/total_size", "/weight_map/lm_head.weight",
                    "/weight_map/model.layers.1234.mlp.w3.weight", "/weight_map"):
        assert fast.position(pointer) == exact.position(pointer) != (1, 1), pointer
