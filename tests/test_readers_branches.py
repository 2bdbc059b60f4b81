"""Branch by branch, the readers: each test holds one outcome a user sees (a header refused
or accepted and why, a folder found as a checkpoint, a target's field, a module built
quantized or not, a position) that a small edit of the reader would change. Each docstring
names the mutation it catches; each was applied alone and seen to fail the test."""

from __future__ import annotations

import copy
import json
import pickle
import struct
from pathlib import Path
from types import SimpleNamespace

import pytest
from sparse import write_json, write_safetensors

from drafter_lint import jsondoc, loading, quantization, readonly, structure, target
from drafter_lint.checkpoint import find_root, is_checkpoint, read_checkpoint
from drafter_lint.errors import ReferenceUnusable, TargetError
from drafter_lint.quantization import Built, Scheme
from drafter_lint.reference import read_reference
from drafter_lint.safetensors_header import read_header
from drafter_lint.tokenizer import read_tokenizer

F32 = {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}


def header_outcome(tmp_path, body: bytes | dict, data: int) -> str:
    """'ok', or the reader's one-line refusal (any other exception named by its type, so a
    crash fails the comparison like a wrong message)."""
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    path = tmp_path / "x.safetensors"
    path.write_bytes(struct.pack("<Q", len(raw)) + raw + b"\0" * data)
    try:
        read_header(path, "x.safetensors")
    except Exception as exc:   # noqa: BLE001 - the outcome, whatever it is
        return f"{type(exc).__name__}: {exc}"
    return "ok"


def refused(reason: str) -> str:
    return f"HeaderError: {reason}"


# --- safetensors_header.py -----------------------------------------------------------------


def test_an_eight_byte_file_is_read_as_an_empty_header_not_a_truncated_length(tmp_path):
    """Mutation caught: `size < 8` made `size <= 8` (safetensors_header.py:65): an
    8-byte file is "truncated" instead of holding a zero-length header."""
    path = tmp_path / "e.safetensors"
    path.write_bytes(b"\0" * 8)
    with pytest.raises(Exception, match="header does not start with '{'"):
        read_header(path, "e.safetensors")
    path.write_bytes(b"\0" * 7)
    with pytest.raises(Exception, match="truncated: 7 bytes"):
        read_header(path, "e.safetensors")


def test_a_length_a_few_bytes_past_the_end_says_it_runs_past_the_end(tmp_path):
    """Mutation caught: `length > size - 8` made `length > size` (safetensors_header.py:70):
    a length 4 bytes too long reads short and says "truncated while reading" instead."""
    raw = json.dumps({"a": F32}).encode()
    path = tmp_path / "l.safetensors"
    path.write_bytes(struct.pack("<Q", len(raw) + 4) + raw)
    with pytest.raises(Exception, match=f"header length {len(raw) + 4} runs past the end "
                                        f"of the {8 + len(raw)}-byte file"):
        read_header(path, "l.safetensors")


def test_a_header_of_another_json_type_is_refused_for_its_first_byte(tmp_path):
    """Mutation caught: the `startswith("{")` test dropped (safetensors_header.py:80): an
    array header is refused later, as "not a JSON object"."""
    assert header_outcome(tmp_path, b"[1, 2]", 0) == refused("header does not start with '{'")


def test_a_header_nested_past_the_bound_is_invalid_json_not_a_crash(tmp_path):
    """Mutation caught: `RecursionError` dropped from the json.loads except
    (safetensors_header.py:85): a header nested 100,000 deep escapes as RecursionError."""
    body = b'{"a": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    assert header_outcome(tmp_path, body, 0) == refused(
        "header is not valid JSON: nested deeper than 200 levels")


def test_metadata_written_twice_is_refused(tmp_path):
    """Mutation caught: the `__metadata__` count dropped from `_plainly_unique`
    (safetensors_header.py:107): two `__metadata__` objects pass (json.loads keeps the
    last; the safetensors package refuses the header)."""
    body = b'{"__metadata__": {"a": "1"}, "__metadata__": {"a": "2"}, "t": ' + \
        json.dumps(F32).encode() + b"}"
    assert header_outcome(tmp_path, body, 4) == refused("header names '__metadata__' twice")


@pytest.mark.parametrize("metadata", ["", 0, [], False])
def test_falsy_metadata_that_is_not_an_object_is_refused(tmp_path, metadata):
    """Mutation caught: `metadata is not None` made `metadata` (safetensors_header.py:127):
    `"__metadata__": ""` (or 0, [], false) is taken as no metadata and the header passes;
    the safetensors package refuses it."""
    assert header_outcome(tmp_path, {"__metadata__": metadata, "a": F32}, 4) == refused(
        "__metadata__ must map strings to strings")


def test_metadata_that_is_a_string_is_refused_not_a_crash(tmp_path):
    """Mutation caught: `isinstance(metadata, dict)` dropped (safetensors_header.py:128): a
    string `__metadata__` raises AttributeError (`.values()`)."""
    assert header_outcome(tmp_path, {"__metadata__": "pt", "a": F32}, 4) == refused(
        "__metadata__ must map strings to strings")


def test_tensors_written_out_of_offset_order_are_valid(tmp_path):
    """Mutation caught: the offsets sort dropped in `_validate` (safetensors_header.py:136):
    tensors listed in another order than their bytes read as a gap."""
    body = {"b": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}, "a": F32}
    assert header_outcome(tmp_path, body, 8) == "ok"
    path = tmp_path / "x.safetensors"
    assert read_header(path, "x.safetensors").tensors["b"].offsets == (4, 8)


@pytest.mark.parametrize("entry,reason", [
    ({"dtype": ["F32"], "shape": [1], "data_offsets": [0, 4]},
     "tensor 'a' has unknown dtype ['F32']"),
    ({"dtype": "F32", "shape": {}, "data_offsets": [0, 4]},
     "tensor 'a' has an invalid shape {}"),
    ({"dtype": "F32", "shape": [2**64, 0], "data_offsets": [0, 0]},
     f"tensor 'a' has an invalid shape [{2**64}, 0]"),
    ({"dtype": "F32", "shape": [True], "data_offsets": [0, 4]},
     "tensor 'a' has an invalid shape [True]"),
    ({"dtype": "F32", "shape": [1], "data_offsets": [0, 4, 4]},
     "tensor 'a' has invalid data_offsets [0, 4, 4]"),
    ({"dtype": "F32", "shape": [1], "data_offsets": [0, 4.0]},
     "tensor 'a' has invalid data_offsets [0, 4.0]"),
    ({"dtype": "F32", "shape": [1], "data_offsets": [False, 4]},
     "tensor 'a' has invalid data_offsets [False, 4]"),
    ({"dtype": "F32", "shape": [1], "data_offsets": [-4, 0]},
     "tensor 'a' has invalid data_offsets [-4, 0]"),
], ids=["dtype-list", "shape-object", "dim-2-pow-64", "dim-bool", "three-offsets",
        "float-end", "bool-begin", "negative-begin"])
def test_each_field_of_a_tensor_entry_is_checked_for_its_type_and_bounds(tmp_path, entry,
                                                                          reason):
    """Mutations caught (safetensors_header.py:153-164), one case each: `type(dtype) is str`
    dropped (a list dtype: TypeError, unhashable); `type(shape) is not list` dropped (an
    object shape passes as a scalar); `d >= 2**64` dropped (a 2**64 dim times 0 passes);
    `type(d) is not int` made `not isinstance(d, int)` (a `true` dim passes);
    `len(offsets) != 2` dropped (three offsets: ValueError); `type(end) is not int` dropped
    (an end of 4.0 passes); `type(begin) is not int` dropped (a begin of `false` passes);
    `0 <=` dropped (a negative begin is "starts at byte -4" instead). The safetensors
    package refuses every one of these headers."""
    data = 0 if entry["data_offsets"][1] == 0 else 4
    assert header_outcome(tmp_path, {"a": entry}, data) == refused(reason)


def test_a_length_over_the_cap_is_refused_before_reading(tmp_path):
    """Mutation caught: the MAX_HEADER_BYTES test dropped (safetensors_header.py:68): a
    length of 2**62 in a small file is "runs past the end" instead of over the cap."""
    path = tmp_path / "c.safetensors"
    path.write_bytes(struct.pack("<Q", 2**62) + b"{}")
    with pytest.raises(Exception, match="header length 4611686018427387904 exceeds the "
                                        "100000000-byte cap"):
        read_header(path, "c.safetensors")


def test_sub_byte_values_must_fill_whole_bytes(tmp_path):
    """Mutation caught: `bits % 8` dropped (safetensors_header.py:167): three F4 values,
    a byte and a half, "fit" in one byte."""
    entry = {"dtype": "F4", "shape": [3], "data_offsets": [0, 1]}
    assert header_outcome(tmp_path, {"q": entry}, 1) == refused(
        "tensor 'q': F4 [3] needs 1.5 bytes but data_offsets span 1")


def test_a_header_read_by_range_is_judged_against_the_real_files_size(tmp_path):
    """Mutation caught: the `size` argument ignored (`size = info.st_size`,
    safetensors_header.py:64): the first bytes of a hub file, read by range, are judged as
    the whole file and refused as truncated."""
    raw = json.dumps({"a": F32}).encode()
    path = tmp_path / "head.safetensors"
    path.write_bytes(struct.pack("<Q", len(raw)) + raw)
    header = read_header(path, "model.safetensors", size=8 + len(raw) + 4)
    assert (header.size, header.tensors["a"].offsets) == (8 + len(raw) + 4, (0, 4))


@pytest.mark.xfail(strict=True, reason="bug: a header with leading whitespace is refused "
                   "('does not start with {') but safetensors 0.8.0 loads it "
                   "(safetensors_header.py:80)")
def test_a_header_with_leading_whitespace_is_read_as_the_package_reads_it(tmp_path):
    """Bug (safetensors_header.py:80): the module says it accepts exactly what the
    safetensors package accepts; the installed package (0.8.0) loads a header starting with
    a blank or a newline, the reader refuses it."""
    assert header_outcome(tmp_path, b'\n{"a": ' + json.dumps(F32).encode() + b"}", 4) == "ok"


@pytest.mark.xfail(strict=True, reason="bug: an unknown field written twice in a tensor "
                   "entry is refused as a duplicate; safetensors 0.8.0 loads it "
                   "(safetensors_header.py:89-93)")
def test_an_unknown_field_written_twice_in_a_tensor_is_read_as_the_package_reads_it(
        tmp_path):
    """Bug (safetensors_header.py:89-93): `{"a": {..., "x": 1, "x": 2}}` is refused ("header
    names 'a/x' twice"); the safetensors package ignores unknown fields, duplicated or not,
    and loads it. (Dropping `len(v) == 3` in `_plainly_unique`, line 105, makes it pass.)"""
    body = b'{"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4], "x": 1, "x": 2}}'
    assert header_outcome(tmp_path, body, 4) == "ok"


# --- checkpoint.py -------------------------------------------------------------------------


@pytest.mark.parametrize("key", ["speculators_config", "dflash_config", "architectures",
                                 "model_type", "medusa_num_heads"])
def test_a_file_below_a_folder_with_any_model_key_finds_that_folder(tmp_path, key):
    """Mutation caught: one of MODEL_KEYS dropped (checkpoint.py:82-83), e.g.
    `speculators_config` or `dflash_config`: a speculators or DFlash config with no
    `model_type` is not a checkpoint, and a file inside its subfolder is read alone."""
    write_json(tmp_path / "config.json", {key: {}})
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "notes.txt").write_text("x")
    assert find_root(tmp_path / "sub" / "notes.txt") == tmp_path


def test_an_editors_config_json_is_not_a_checkpoint_but_a_broken_one_is(tmp_path):
    """Mutations caught (checkpoint.py:94-97): `return True` for an unparsable config made
    `return False` (a broken config.json above is passed over, and its DL001 never said);
    `not isinstance(data, dict) or` dropped (a config.json holding an array is not a
    checkpoint). An object without a model key is not one (an editor's settings)."""
    folder = tmp_path / "m"
    folder.mkdir()
    (folder / "config.json").write_text('{"model_type": ')
    assert is_checkpoint(folder)
    (folder / "config.json").write_text("[1, 2]")
    assert is_checkpoint(folder)
    (folder / "config.json").write_text('{"editor.fontSize": 12}')
    assert not is_checkpoint(folder)


def test_a_missing_path_that_is_not_ascii_says_it_is_not_a_hub_repo_id(tmp_path,
                                                                      monkeypatch):
    """Mutations caught in `_looks_like_repo` (checkpoint.py:76-78): `not text.isascii()`
    made `text.isascii()`, or `count("/") == 1` dropped: the hint is given to a path with
    no chance of being a repo id, or not to `org/namé`."""
    from drafter_lint.errors import CheckpointNotFound

    monkeypatch.chdir(tmp_path)
    with pytest.raises(CheckpointNotFound, match="not a hub repo id"):
        find_root(Path("org/namé"))
    for plain in ("org/name", "a/b/namé"):
        with pytest.raises(CheckpointNotFound) as info:
            find_root(Path(plain))
        assert "hub repo id" not in str(info.value)


def _problems(ckpt):
    return [(p.rule, p.file, p.pointer, p.message) for p in ckpt.problems]


def test_an_hf_quant_config_that_is_not_an_object_is_a_dl001(tmp_path):
    """Mutation caught: the `not isinstance(doc.value, dict)` branch of `_read_quant` dropped
    (checkpoint.py:211-212): an array hf_quant_config.json is kept as the quantization
    description and the problem unsaid; `_kind`'s article fixed to "a " (checkpoint.py:360:
    "holds a array")."""
    write_json(tmp_path / "config.json", {"model_type": "llama"})
    write_json(tmp_path / "hf_quant_config.json", [1])
    ckpt = read_checkpoint(tmp_path)
    assert ckpt.quant_doc is None
    assert ("DL001", "hf_quant_config.json", "",
            "hf_quant_config.json holds an array, not an object") in _problems(ckpt)


def test_a_broken_hf_quant_config_is_a_dl001_at_its_position(tmp_path):
    """Mutation caught: the JsonSyntaxError branch of `_read_quant` folded into the
    OSError one (checkpoint.py:215-220): the problem loses its line and column and says
    "cannot be read"."""
    write_json(tmp_path / "config.json", {"model_type": "llama"})
    (tmp_path / "hf_quant_config.json").write_text('{\n  "producer": ]\n}')
    problem = next(p for p in read_checkpoint(tmp_path).problems
                   if p.file == "hf_quant_config.json")
    assert problem.rule == "DL001" and problem.position == (2, 15)
    assert problem.message.startswith("hf_quant_config.json is not valid JSON: ")
    assert problem.message.endswith("; vLLM fails to read it")


def test_an_index_without_a_weight_map_of_strings_is_a_dl004(tmp_path):
    """Mutation caught: the `all(isinstance(v, str) ...)` test of `_read_index` dropped
    (checkpoint.py:309-310): a weight_map with a number for a shard is taken, and reading
    its shards crashes or names shard `1`."""
    write_json(tmp_path / "config.json", {"model_type": "llama"})
    write_json(tmp_path / "model.safetensors.index.json", {"weight_map": {"a": 1}})
    ckpt = read_checkpoint(tmp_path)
    assert _problems(ckpt) == [(
        "DL004", "model.safetensors.index.json", "/weight_map",
        ("model.safetensors.index.json has no weight_map object of tensor name -> shard "
        "file"))]
    assert ckpt.weights is None


def test_a_tensor_the_index_maps_to_the_wrong_shard_is_a_dl005(tmp_path):
    """Mutation caught: `held.file != shard` dropped from `_check_index_map`
    (checkpoint.py:328): a tensor held by another shard than the index names passes."""
    write_json(tmp_path / "config.json", {"model_type": "llama"})
    write_safetensors(tmp_path / "a.safetensors", [["x", "F32", [1]], ["z", "F32", [1]]])
    write_safetensors(tmp_path / "b.safetensors", [["y", "F32", [1]]])
    write_json(tmp_path / "model.safetensors.index.json",
               {"weight_map": {"x": "b.safetensors", "y": "b.safetensors",
                               "z": "a.safetensors"}})
    assert _problems(read_checkpoint(tmp_path)) == [(
        "DL005", "model.safetensors.index.json", "/weight_map/x",
        ("model.safetensors.index.json maps x to b.safetensors, but it is in a.safetensors; "
        "loaders following the index will fail to find it"))]


def test_a_shard_named_with_a_backslash_is_not_opened(tmp_path):
    """Mutation caught: `"\\" in name` dropped from `_contained` (checkpoint.py:345): an
    index naming `sub\\w.safetensors` (a Windows path) is looked up as a file of that name
    and said to be missing, not refused as a path that leaves the folder."""
    write_json(tmp_path / "config.json", {"model_type": "llama"})
    write_json(tmp_path / "model.safetensors.index.json",
               {"weight_map": {"w": "sub\\w.safetensors"}})
    ckpt = read_checkpoint(tmp_path)
    assert _problems(ckpt) == [(
        "DL004", "model.safetensors.index.json", "/weight_map",
        "shard 'sub\\\\w.safetensors' resolves outside the checkpoint folder; not opened")]
    assert ckpt.unreadable_shards == ["sub\\w.safetensors"]


def test_a_tokenizer_json_that_is_a_folder_is_a_dl006_of_that_file(tmp_path):
    """Mutations caught: the not-a-regular-file check of `read_tokenizer` dropped
    (tokenizer.py:43: a folder named tokenizer.json is passed over, nothing said); the
    DL006 file name taken whole (`str(exc)` for `str(exc).split(":")[0]`,
    checkpoint.py:147: the problem's file is the whole message)."""
    write_json(tmp_path / "config.json", {"model_type": "llama"})
    (tmp_path / "tokenizer.json").mkdir()
    ckpt = read_checkpoint(tmp_path)
    assert ckpt.tokenizer is None
    assert _problems(ckpt) == [("DL006", "tokenizer.json", "",
                                "tokenizer.json: not a regular file (a folder); not read")]


# --- tokenizer.py --------------------------------------------------------------------------


def test_a_bool_token_id_in_a_vocabulary_is_not_an_id(tmp_path):
    """Mutation caught: `type(i) is int` made `isinstance(i, int)` in the BPE vocabulary
    (tokenizer.py:57): `"a": true` makes id 1 a text token."""
    write_json(tmp_path / "tokenizer.json", {"model": {"vocab": {"a": True, "b": 2}}})
    facts = read_tokenizer(tmp_path)
    assert dict(facts.ordinary) == {2: "b"}
    assert not facts.is_text_token(1)


def test_a_unigram_vocabulary_keeps_each_entrys_index_as_its_id(tmp_path):
    """Mutations caught (tokenizer.py:58-60): `enumerate(vocab)` started at 1 (every id one
    off); `e and` dropped (an empty entry: IndexError); `isinstance(e[0], str)` dropped
    (a number for a token becomes a text token)."""
    vocab = [["a", 0.0], [], [5, -1.0], "x", ["b", -2.0]]
    write_json(tmp_path / "tokenizer.json", {"model": {"vocab": vocab}})
    facts = read_tokenizer(tmp_path, "target")
    assert dict(facts.ordinary) == {0: "a", 4: "b"}
    assert facts.source == "target tokenizer.json"


def test_added_tokens_keep_their_content_and_special_flag_with_tokenizer_json_first(
        tmp_path):
    """Mutations caught (tokenizer.py:62-74): `type(entry.get("id")) is int` made
    `isinstance` (an added token with id `true` is added as 1); `special` defaulting to True
    (an added token that does not say is special); `setdefault` made an assignment
    (tokenizer_config.json's entry replaces tokenizer.json's for the same id);
    `key.isdigit()` dropped (a key `"x"` raises ValueError); the `* bool(label)` of the
    source dropped (tokenizer.py:75: an unlabelled source starts with a blank)."""
    write_json(tmp_path / "tokenizer.json", {
        "model": {"vocab": {"a": 0, "b": 1, "c": 5}},
        "added_tokens": [{"id": 5, "content": "<x>"}, {"id": True, "content": "<t>"},
                         {"id": 7, "content": "<s>", "special": True}]})
    write_json(tmp_path / "tokenizer_config.json", {"added_tokens_decoder": {
        "5": {"content": "<other>", "special": True}, "x": {"content": "?"},
        "9": {"content": "<pad>", "special": True}}})
    facts = read_tokenizer(tmp_path)
    assert dict(facts.added) == {5: ("<x>", False), 7: ("<s>", True), 9: ("<pad>", True)}
    assert facts.is_text_token(1) and not facts.is_text_token(5)
    assert facts.source == "tokenizer.json + tokenizer_config.json"


def test_a_tokenizer_config_alone_is_read(tmp_path):
    """Mutation caught: `and` made `or` in the neither-file test (tokenizer.py:46): a folder
    with tokenizer_config.json only has no tokenizer facts."""
    write_json(tmp_path / "tokenizer_config.json",
               {"added_tokens_decoder": {"3": {"content": "<m>", "special": True}}})
    facts = read_tokenizer(tmp_path)
    assert facts is not None
    assert dict(facts.added) == {3: ("<m>", True)} and facts.ordinary == {}


def test_a_tokenizer_json_that_is_not_an_object_is_a_dl006(tmp_path):
    """Mutation caught: the `not isinstance(data, dict)` test of `_load` dropped
    (tokenizer.py:89): an array tokenizer.json raises AttributeError out of the read."""
    write_json(tmp_path / "config.json", {"model_type": "llama"})
    write_json(tmp_path / "tokenizer.json", [1])
    assert _problems(read_checkpoint(tmp_path)) == [
        ("DL006", "tokenizer.json", "", "tokenizer.json: not a JSON object")]


# --- target.py -----------------------------------------------------------------------------


def test_special_ids_are_integers_once_each_across_configs():
    """Mutations caught (target.py:70-73): `type(v) is int` made `isinstance` (an
    `eos_token_id: true` counts as id 1); `if i not in out[key]` dropped (an id written in
    both the outer and the text config is listed twice)."""
    assert target.special_ids({"eos_token_id": [2, True], "pad_token_id": None},
                              {"eos_token_id": 2, "bos_token_id": 1}) == {
        "eos_token_id": [2], "bos_token_id": [1]}


@pytest.mark.parametrize("value,want", [(4096, 4096), (4097, None), (0, 0), (-1, None),
                                        (True, None), (32.0, None)])
def test_a_layer_count_is_an_integer_from_0_to_4096(value, want):
    """Mutations caught (target.py:79): `<= MAX_LAYERS` made `<` (4096 layers refused);
    `0 <=` dropped (-1 taken); `type(value) is int` made `isinstance` (`true` taken)."""
    assert target.layer_count(value) == want


def test_a_vl_targets_fields_fall_back_to_its_outer_config():
    """Mutations caught (target.py:126-136): `or outer.get("model_type")` dropped (a
    text_config without model_type has none); `or _int(outer, "vocab_size")` dropped (a
    vocabulary written at the top only is lost); the text_config operand of `quantized`
    dropped; the `isinstance(a, str)` filter of `architectures` dropped; `or None` after
    the layer count dropped (a depth of 0 read as known)."""
    outer = {"model_type": "qwen3_vl", "vocab_size": 151936, "architectures": ["A", 7],
             "text_config": {"num_hidden_layers": 0, "hidden_size": 64,
                             "quantization_config": {"quant_method": "fp8"}}}
    t = target.target_of(outer, "t")
    assert (t.model_type, t.vocab_size, t.quantized, t.architectures, t.num_hidden_layers) \
        == ("qwen3_vl", 151936, True, ["A"], None)
    assert t.hidden_size == 64


def test_width_and_vocabulary_are_plain_integers():
    """Mutation caught: `type(value) is int` made `isinstance` in target `_int`
    (target.py:84): `hidden_size: true` is a width of 1."""
    t = target.target_of({"hidden_size": True, "vocab_size": 32000.0}, "t")
    assert (t.hidden_size, t.vocab_size) == (None, None)


def test_layer_types_with_a_non_string_are_not_read():
    """Mutation caught: the `all(isinstance(t, str) ...)` test dropped (target.py:121): a
    layer_types list with a number is taken as the target's layer kinds."""
    assert target.target_of({"layer_types": ["full_attention", 1]}, "t").layer_types is None
    assert target.target_of({"layer_types": ["sliding_attention"]}, "t").layer_types == [
        "sliding_attention"]


def test_deepstack_layers_count_the_vision_indexes():
    """Mutation caught: `len(indexes) if isinstance(indexes, list) else 0` made `else 1`
    or the vision_config test dropped (target.py:91-92)."""
    assert target.target_of({"vision_config": {"deepstack_visual_indexes": [8, 16, 24]}},
                            "t").deepstack_layers == 3
    assert target.target_of({"vision_config": {}}, "t").deepstack_layers == 0
    assert target.target_of({"vision_config": [1]}, "t").deepstack_layers == 0


def test_hf_overrides_replace_a_quantization_config_whole():
    """Mutation caught: `key != "quantization_config"` dropped (target.py:148): an
    override of the quantization method keeps the old method's keys merged in."""
    t = target.target_of({"quantization_config": {"quant_method": "fp8", "ignored_layers":
                                                  ["lm_head"]}}, "t")
    out = target.overridden(t, {"quantization_config": {"quant_method": "awq"}})
    assert out.whole["quantization_config"] == {"quant_method": "awq"}


def test_hf_overrides_of_a_nested_config_the_target_lacks_set_it():
    """Mutation caught: `isinstance(out.get(key), dict)` dropped (target.py:149): an
    override of a `text_config` the target does not have raises KeyError."""
    t = target.target_of({"model_type": "llama", "hidden_size": 8}, "t")
    out = target.overridden(t, {"text_config": {"hidden_size": 16}})
    assert out.hidden_size == 16 and out.model_type == "llama"


def test_a_target_config_that_is_not_an_object_or_not_json_is_a_target_error(tmp_path):
    """Mutations caught (target.py:103-108): the not-an-object test dropped (an array
    config raises AttributeError); the JsonSyntaxError branch dropped (a broken config
    escapes as JsonSyntaxError, not a TargetError)."""
    write_json(tmp_path / "config.json", [1])
    with pytest.raises(TargetError, match="not a JSON object"):
        target.read_target(tmp_path)
    (tmp_path / "config.json").write_text("{")
    with pytest.raises(TargetError, match="not valid JSON"):
        target.read_target(tmp_path)
    with pytest.raises(TargetError, match="no such file or folder"):
        target.resolve_target(str(tmp_path / "nowhere" / "x" / "y"))


def test_an_unreadable_target_tokenizer_is_a_note_not_an_error(tmp_path):
    """Mutation caught: the TokenizerError branch of `read_target` dropped (target.py:112):
    a target whose tokenizer.json is not an object cannot be used at all."""
    write_json(tmp_path / "config.json", {"model_type": "llama", "num_hidden_layers": 4})
    write_json(tmp_path / "tokenizer.json", [1])
    t = target.read_target(tmp_path)
    assert t.num_hidden_layers == 4 and t.tokenizer is None
    assert list(t.notes) == [("target tokenizer unreadable (tokenizer.json: not a JSON "
                             "object); tokenizer checks skipped")]


# --- reference.py --------------------------------------------------------------------------


def test_a_reference_card_is_read_only_when_asked(tmp_path):
    """Mutation caught: `card and` dropped (reference.py:37): the card's front matter is
    read into a reference that did not ask for it; and the local card branch itself
    (reference.py:38)."""
    write_json(tmp_path / "config.json", {"model_type": "llama"})
    (tmp_path / "README.md").write_text("---\nbase_model: org/base\n---\n# card\n")
    assert read_reference(str(tmp_path)).card == {}
    assert read_reference(str(tmp_path), card=True).card == {"base_model": "org/base"}


def test_a_reference_that_is_neither_a_folder_nor_a_repo_id_says_so(tmp_path):
    """Mutation caught: the `parse_repo_arg(arg) is None` test dropped (reference.py:41): a
    missing path is looked up on the hub and the message is the hub's."""
    with pytest.raises(ReferenceUnusable, match="no such folder, and not a hub repo id"):
        read_reference(str(tmp_path / "a" / "b"))


def test_a_reference_config_that_is_not_an_object_is_refused(tmp_path):
    """Mutation caught: the `not isinstance(value, dict)` test of reference `_load` dropped
    (reference.py:58): an array config becomes a reference (and fails later, unsaid)."""
    write_json(tmp_path / "config.json", [1])
    with pytest.raises(ReferenceUnusable, match="config.json is not a JSON object"):
        read_reference(str(tmp_path))


# --- readonly.py ---------------------------------------------------------------------------


@pytest.mark.parametrize("call", [
    lambda d: d.__setitem__("k", 1), lambda d: d.__delitem__("a"), lambda d: d.clear(),
    lambda d: d.pop("a"), lambda d: d.popitem(), lambda d: d.setdefault("k", 1),
    lambda d: d.update(k=1), lambda d: d.__ior__({"k": 1})])
def test_every_change_of_a_read_only_dict_is_refused(call):
    """Mutation caught: any one name dropped from ReadOnlyDict's refused methods
    (readonly.py:17-18), e.g. `update` or `__ior__`: that change goes through."""
    d = readonly.readonly({"a": [1]})
    with pytest.raises(TypeError, match="ReadOnlyDict is read-only"):
        call(d)
    assert d == {"a": [1]}


@pytest.mark.parametrize("name,args", [
    ("__setitem__", (0, 9)), ("__delitem__", (0,)), ("__iadd__", ([9],)),
    ("__imul__", (2,)), ("append", (9,)), ("clear", ()), ("extend", ([9],)),
    ("insert", (0, 9)), ("pop", ()), ("remove", (1,)), ("reverse", ()), ("sort", ())])
def test_every_change_of_a_read_only_list_is_refused(name, args):
    """Mutation caught: any one name dropped from ReadOnlyList's refused methods
    (readonly.py:32-33), e.g. `sort` or `__imul__`."""
    items = readonly.readonly({"a": [2, 1]})["a"]
    with pytest.raises(TypeError, match="ReadOnlyList is read-only"):
        getattr(items, name)(*args)
    assert items == [2, 1]


def test_copies_of_a_read_only_value_are_writable_and_pickles_stay_read_only():
    """Mutations caught (readonly.py:20-27, 54, 63): `__deepcopy__` or `__copy__` dropped
    (a copy stays read-only: a fix cannot build on it); `writable` without its list branch
    (a deep copy's nested list stays read-only); `__reduce__` dropped (unpickling calls the
    refused `__setitem__`); the tuple branch of `readonly` dropped (a tuple's dicts stay
    writable)."""
    ro = readonly.readonly({"a": [1, {"b": 2}], "t": ({"c": 3},)})
    deep = copy.deepcopy(ro)
    deep["a"].append(4)
    deep["a"][1]["b"] = 5
    assert type(deep) is dict and type(deep["a"]) is list
    shallow = copy.copy(ro)
    shallow["new"] = 1
    back = pickle.loads(pickle.dumps(ro))
    assert back == ro and type(back) is readonly.ReadOnlyDict
    with pytest.raises(TypeError):
        back["a"].append(1)
    with pytest.raises(TypeError):
        ro["t"][0]["c"] = 4
    items = copy.copy(ro["a"])
    items.append(9)
    assert ro == {"a": [1, {"b": 2}], "t": ({"c": 3},)}


# --- structure.py --------------------------------------------------------------------------


def test_a_bool_is_not_an_integer_to_the_schemas():
    """Mutation caught: `type(instance) is int` made `isinstance(instance, int)`
    (structure.py:44): `num_hidden_layers: true` passes the schema."""
    schema = {"type": "object", "properties": {"n": {"type": "integer",
                                                     "description": "layers"}}}
    found = list(structure.validate({"n": True}, schema, use_cache=False))
    assert [(f.pointer, f.message) for f in found] == [
        ("/n", "n: true is not of type 'integer' (layers)")]
    assert list(structure.validate({"n": 3}, schema, use_cache=False)) == []


def test_a_missing_required_field_is_reported_on_config():
    """Mutation caught: `or "config"` dropped (structure.py:95): a violation at the root
    is reported with an empty field name (": 'model_type' is a required property")."""
    found = list(structure.validate({}, {"required": ["model_type"]}, use_cache=False))
    assert [f.message for f in found] == ["config: 'model_type' is a required property"]


def test_configs_validated_without_a_source_are_not_cached_together():
    """Mutation caught: `or source is None` dropped (structure.py:69): configs validated
    with no source text share one cache entry, and the second gets the first's findings."""
    schema = {"properties": {"n": {"type": "integer"}}}
    assert len(list(structure.validate({"n": "x"}, schema))) == 1
    assert list(structure.validate({"n": 1}, schema)) == []


def test_a_long_message_is_cut_at_160_characters():
    """Mutation caught: `len(message) <= 160` made `< 160` (structure.py:107): a message of
    exactly 160 characters is cut."""
    exact = SimpleNamespace(validator="enum", message="m" * 160)
    assert structure._short(exact) == "m" * 160
    long = SimpleNamespace(validator="enum", message="m" * 161)
    assert structure._short(long) == "m" * 157 + "..."


def test_runtime_fields_are_never_cosmetic():
    """Mutation caught: `- runtime` dropped in `field_classes` (structure.py:38): EAGLE-3's
    `tie_word_embeddings`, which a runtime reads, is also cosmetic (REF102 would call a
    difference in it harmless)."""
    runtime, cosmetic, _ = structure.field_classes({"eagle3"})
    assert "tie_word_embeddings" in runtime and "tie_word_embeddings" not in cosmetic
    assert structure.field_classes({"no-such-family"}) == structure.field_classes(set())


# --- loading.py ----------------------------------------------------------------------------


def test_a_config_without_a_model_type_loads_as_its_familys_class():
    """Mutation caught: the `loader_model_type(family)` fallback of `_model_type` dropped
    (loading.py:48): a DFlash config without `model_type` is loaded with no class."""
    assert loading._model_type("{}", "dflash") == "qwen3"
    assert loading._model_type('{"model_type": 3}', "dflash") == "qwen3"
    assert loading._model_type('{"model_type": "llama"}', "dflash") == "llama"
    assert loading._model_type("{", "dflash") is None


def test_only_transformers_families_without_a_foreign_model_type_load():
    """Mutation caught: `model_type not in NOT_TRANSFORMERS_MODEL_TYPES` dropped
    (loading.py:34), or `(config or {})` (loading.py:33): an EAGLE-3 config naming
    `model_type: eagle` is loaded through transformers; a missing config crashes."""
    assert loading.loads_through_transformers("eagle3", {"model_type": "llama"})
    assert not loading.loads_through_transformers("eagle3", {"model_type": "eagle"})
    assert loading.loads_through_transformers("eagle3", None)
    assert not loading.loads_through_transformers("medusa", {"model_type": "llama"})


class _Worker:
    def __init__(self, answers):
        self.answers, self.asked, self.stopped = list(answers), 0, False

    def submit(self, request):
        return 1

    def answer(self, ticket, deadline):
        self.asked += 1
        item = self.answers.pop(0) if self.answers else json.dumps(
            {"transformers_version": "4.0", "model_type": "llama", "config_class": "Again"})
        if isinstance(item, BaseException):
            raise item
        return item

    def stop(self):
        self.stopped = True


@pytest.mark.parametrize("exc,why", [
    (TimeoutError(), f"loading did not finish within {loading.TIMEOUT_S} s"),
    (EOFError(), "the loader process failed"),
    (ValueError("bad json"), "the loader process failed")])
def test_a_failed_load_says_why_and_is_asked_once(monkeypatch, tmp_path, exc, why):
    """Mutations caught (loading.py:66-81): the `isinstance(exc, TimeoutError)` test
    inverted or dropped (a timeout said to be a crash, or the reverse); the `_done` memo
    dropped (a second `result()` asks the stopped worker again); the worker not stopped."""
    worker = _Worker([exc])
    monkeypatch.setattr(loading.child, "worker", lambda: worker)
    monkeypatch.setattr(loading.child, "forget", lambda w: None)
    pending = loading.Pending("{}", "4.0", "llama", tmp_path / "c.json")
    first = pending.result()
    assert (first.error, first.model_type, first.transformers_version) == (why, "llama",
                                                                           "4.0")
    assert pending.result() is first and worker.asked == 1 and worker.stopped
    assert not (tmp_path / "c.json").exists()


def test_a_finished_load_is_stored_only_with_a_path(monkeypatch, tmp_path):
    """Mutation caught: `if self.path is not None` dropped (loading.py:79): a load asked
    without the cache (`--no-cache`) crashes storing to None; with a path it is stored."""
    answer = json.dumps({"transformers_version": "4.0", "model_type": "llama",
                         "config_class": "LlamaConfig"})
    monkeypatch.setattr(loading.child, "worker", lambda: _Worker([answer, answer]))
    assert loading.Pending("{}", "4.0", "llama", None).result().config_class == "LlamaConfig"
    loading.Pending("{}", "4.0", "llama", tmp_path / "c.json").result()
    stored = json.loads((tmp_path / "c.json").read_text())
    assert stored["config_class"] == "LlamaConfig" and stored["cached"] is False


# --- quantization.py -----------------------------------------------------------------------


@pytest.mark.parametrize("algo,name", [("nvfp4", "modelopt_fp4"), ("MXFP8", "modelopt_mxfp8"),
                                       ("mixed_precision", "modelopt_mixed"),
                                       ("FP8", "modelopt"), (None, "modelopt")])
def test_modelopt_is_named_by_its_algorithm_in_any_case(algo, name):
    """Mutations caught (quantization.py:78-86): `.upper()` dropped (`nvfp4` in lower case
    is plain `modelopt`); the MXFP8 branch dropped or put after FP4; the MIXED_PRECISION
    comparison dropped."""
    assert Scheme("modelopt", {"quant_algo": algo}, "config.json", "/q").name == name


def test_only_excluded_and_unlisted_modules_are_built_unquantized():
    """Mutation caught: `Built.UNLISTED` dropped from `Decision.unquantized`
    (quantization.py:48): a module outside every listed block is taken as quantized."""
    assert quantization.NOT_LISTED.unquantized and quantization.excluded("x").unquantized
    assert not quantization.BY_DTYPE.unquantized and not quantization.UNKNOWN.unquantized
    assert not quantization.QUANTIZED.unquantized


def test_the_exclusion_list_pointer_is_the_one_written_else_the_first():
    """Mutation caught: the `k in self.config` search of `exclusions` dropped
    (quantization.py:96): an FP8 config listing `modules_to_not_convert` is pointed at
    `ignored_layers`, where a fix would add an entry vLLM then reads instead."""
    fp8 = Scheme("fp8", {"modules_to_not_convert": []}, "config.json", "/quantization_config")
    assert fp8.exclusions == "/quantization_config/modules_to_not_convert"
    assert Scheme("fp8", {}, "config.json", "/q").exclusions == "/q/ignored_layers"
    assert Scheme("bitsandbytes", {}, "config.json", "/q").exclusions == "/q"


def test_the_description_read_is_the_first_of_the_runtimes_order():
    """Mutations caught (quantization.py:125-142): `.lower()` dropped in `_method`
    (`GPTQ_Marlin` is no known method); the text_config or compression_config entries
    dropped; the `producer.name == "modelopt"` test dropped (another producer's
    hf_quant_config.json read as ModelOpt's)."""
    scheme = quantization.read({"text_config": {"quantization_config": {
        "quant_method": "GPTQ_Marlin"}}}, None)
    assert (scheme.method, scheme.pointer, scheme.known) == (
        "gptq", "/text_config/quantization_config", True)
    scheme = quantization.read({"compression_config": {"quant_method": "compressed-tensors"}},
                               None)
    assert scheme.pointer == "/compression_config"
    quant_file = {"producer": {"name": "other"}, "quantization": {"quant_algo": "FP8"}}
    assert quantization.read({}, quant_file) is None
    quant_file["producer"]["name"] = "modelopt"
    assert quantization.read(None, quant_file).file == "hf_quant_config.json"


def test_a_module_is_stored_quantized_by_its_siblings_or_its_weights_dtype():
    """Mutations caught (quantization.py:149-154): the sibling test dropped (a BF16 weight
    beside its `weight_scale` read as plain); `not in PLAIN_DTYPES` inverted; the
    `info is None` answer dropped (an unread header: AttributeError)."""
    info = {"m.weight": SimpleNamespace(dtype="BF16"), "f.weight": SimpleNamespace(dtype="F8_E4M3")}
    names = {"m.weight", "m.weight_scale", "p.weight", "f.weight", "u.weight"}
    weights = {**info, "p.weight": SimpleNamespace(dtype="BF16")}
    assert quantization.stored_quantized("m", names, weights) is True
    assert quantization.stored_quantized("p", names, weights) is False
    assert quantization.stored_quantized("f", names, weights) is True
    assert quantization.stored_quantized("u", names, weights) is None
    assert quantization.stored_quantized("z", names, weights) is None
    assert quantization.stored_quantized("p", names, None) is None


def test_any_quantized_expert_makes_the_experts_stored_quantized():
    """Mutations caught (quantization.py:161-172): `or bool(found)` dropped (the last
    expert read decides); the `"."` of the prefix dropped (`experts_shared` counted as an
    expert); a sibling not deciding at once."""
    e = "mtp.layers.0.mlp.experts"
    weights = {f"{e}.0.up_proj.weight": SimpleNamespace(dtype="F8_E4M3"),
               f"{e}.1.up_proj.weight": SimpleNamespace(dtype="BF16"),
               f"{e}_shared.up_proj.weight": SimpleNamespace(dtype="F8_E4M3")}
    assert quantization.experts_stored_quantized(e, list(weights), weights) is True
    plain = {k: v for k, v in weights.items() if k != f"{e}.0.up_proj.weight"}
    assert quantization.experts_stored_quantized(e, list(plain), plain) is False
    assert quantization.experts_stored_quantized(e, [f"{e}.1.up_proj.weight_scale"], {}) \
        is True
    assert quantization.experts_stored_quantized(e, [f"{e}.1.up_proj.weight"], {}) is None


def test_a_quark_regex_exclusion_and_a_broken_regex():
    """Mutations caught: the `re:` branch of `_quark` dropped (quantization.py:204-206: a
    regex entry is compared as a name); the `re.error` except of `_regex_match` dropped
    (quantization.py:286: an unbalanced `re:(` crashes the run)."""
    q = "mtp.layers.0.self_attn.q_proj"
    assert Scheme("quark", {"exclude": ["re:mtp[.].*"]}, "c", "/q").decide(q) == \
        quantization.excluded("re:mtp[.].*")
    assert Scheme("quark", {"exclude": ["re:("]}, "c", "/q").decide(q).built is Built.QUANTIZED


def test_compressed_tensors_targets_by_name_or_regex():
    """Mutations caught (quantization.py:271-279): `target == module` dropped (a group
    naming the module exactly does not target it); the `re:` operand dropped; the
    `isinstance(group, dict)` guard dropped (a group written as a list crashes)."""
    q = "mtp.layers.0.self_attn.q_proj"
    for targets in ([q], ["re:.*q_proj"]):
        config = {"config_groups": {"bad": [1], "g": {"targets": targets}}}
        assert Scheme("compressed-tensors", config, "c", "/q").decide(q).built is \
            Built.QUANTIZED
    config = {"config_groups": {"g": {"targets": ["re:.*k_proj"]}}}
    assert Scheme("compressed-tensors", config, "c", "/q").decide(q).built is Built.UNLISTED


def test_auto_round_extra_config_matches_a_whole_dotted_suffix():
    """Mutation caught: `"." + key` made `key` in `_auto_round` (quantization.py:250): an
    entry `proj` keeps `...q_proj` in 16 bits; and the `to_quant_block_names` spelling."""
    q = "mtp.layers.0.self_attn.q_proj"
    config = {"extra_config": {"proj": {"bits": 16}, "self_attn.q_proj": {"bits": 8}}}
    assert Scheme("auto-round", config, "c", "/q").decide(q).built is Built.QUANTIZED
    config = {"extra_config": {"self_attn.q_proj": {"bits": 16}}}
    assert Scheme("auto-round", config, "c", "/q").decide(q) == \
        quantization.excluded("self_attn.q_proj")
    config = {"to_quant_block_names": "model.layers,other"}
    assert Scheme("auto-round", config, "c", "/q").decide(q).built is Built.UNLISTED
    config = {"to_quant_block_names": "model.layers,mtp.layers"}
    assert Scheme("auto-round", config, "c", "/q").decide(q).built is Built.QUANTIZED


# --- jsondoc.py ----------------------------------------------------------------------------

PAD = " " * (jsondoc.POSITIONS_LIMIT + 1)


def test_a_large_file_finds_a_key_after_its_parents_key():
    """Mutation caught: `at = found.start() + 1` made `at = 0` in `_scan_position`
    (jsondoc.py:85): in an index over 1 MiB, `/a/b` is placed at an earlier top-level
    `b`."""
    text = '{"b": 1,\n "a": {\n  "b": 2}}' + PAD
    doc = jsondoc.parse_fast(text)
    assert doc.position("/a/b") == (3, 3)
    assert doc.position("/b") == (1, 2)
    assert doc.position("/missing") == (1, 1)


def test_a_large_file_skips_array_indexes_and_finds_unescaped_keys():
    """Mutations caught (jsondoc.py:77-79): the `token.isdigit()` skip dropped (an array
    index is searched as a key: not found, the position stops at the parent); the
    `ensure_ascii=False` spelling dropped (a key written `é` is not found)."""
    text = '{"x": [\n {"é": 1}]}' + PAD
    doc = jsondoc.parse_fast(text)
    assert doc.position("/x/0/é") == (2, 3)


def test_a_missing_member_is_placed_at_its_nearest_parent():
    """Mutation caught: the parent walk of `position` (jsondoc.py:67-69), e.g. `rsplit`
    keeping the last token or `(1, 1)` returned at once for a missing pointer."""
    doc = jsondoc.parse('{\n  "a": {\n    "b": 1\n  }\n}')
    assert doc.position("/a/zz/yy") == (2, 3)
    assert doc.position("/nope") == (1, 1)


def test_resolve_refuses_an_index_past_the_end_with_key_error():
    """Mutation caught: `int(token) < len(node)` made `<=` (jsondoc.py:115): one past the
    end raises IndexError, which callers do not catch."""
    assert jsondoc.resolve({"a/b": [5]}, "/a~1b/0") == 5
    with pytest.raises(KeyError):
        jsondoc.resolve({"a": [5]}, "/a/1")


def test_pointer_tokens_escape_tilde_before_slash():
    """Mutations caught: the two replaces of `escape` (jsondoc.py:94) or of `resolve`
    (jsondoc.py:112) swapped: `a/b` is written `a~01b`, or `~01` read back as `/`, and a
    finding's pointer misses a key holding `~` or `/` (RFC 6901 orders them)."""
    assert jsondoc.pointer("a/b", "~1") == "/a~1b/~01"
    assert jsondoc.resolve({"~1": 1, "/": 2}, "/~01") == 1
    assert jsondoc.resolve({"~1": 1, "/": 2}, "/~1") == 2


def test_a_number_too_long_for_python_is_a_syntax_error():
    """Mutation caught: the `except ValueError` of number parsing dropped (jsondoc.py:175):
    a 5,000-digit integer escapes as a bare ValueError without a position."""
    with pytest.raises(jsondoc.JsonSyntaxError) as info:
        jsondoc.parse('{"n": ' + "1" * 5000 + "}")
    assert (info.value.reason, info.value.line, info.value.column) == (
        "number too long", 1, 7)


@pytest.mark.parametrize("depth,ok", [(201, True), (202, False)])
def test_nesting_is_bounded_at_200_levels(depth, ok):
    """Mutation caught: `depth > MAX_DEPTH` made `>=` (jsondoc.py:153): a document 201
    arrays deep, which json.loads reads, is refused."""
    text = "[" * depth + "]" * depth
    if ok:
        assert jsondoc.parse(text).value == json.loads(text)
    else:
        with pytest.raises(jsondoc.JsonSyntaxError, match="nested deeper than 200"):
            jsondoc.parse(text)


def test_the_indent_unit_is_the_first_indented_lines_lead():
    """Mutations caught in `_style` (jsondoc.py:250-256): `set(lead) == {" "}` made a
    length always (a tab indent written back as one space); the `stripped and` test
    dropped (a blank line sets the indent)."""
    assert jsondoc.parse('{\n\t"a": 1\n}').indent == "\t"
    assert jsondoc.parse('{\n   \n    "a": 1\n}\n').indent == 4
    assert jsondoc.parse('{"a": 1}').indent is None


def test_parse_fast_finds_a_duplicate_before_a_clean_object():
    """Mutation caught: `duplicated or` dropped in `parse_fast`'s hook (jsondoc.py:291): a
    duplicate in an inner object is forgotten by the next object read."""
    doc = jsondoc.parse_fast('{"x": {"a": 1, "a": 2}, "y": {}}')
    assert [d.pointer for d in doc.duplicates] == ["/x/a"]


def test_parse_fast_reports_invalid_text_at_its_position():
    """Mutation caught: the fallback to `parse` on invalid text dropped in `parse_fast`
    (jsondoc.py:296): a broken index escapes as json's own error, no line to show."""
    with pytest.raises(jsondoc.JsonSyntaxError) as info:
        jsondoc.parse_fast('{\n  "a": ]\n}')
    assert (info.value.line, info.value.column) == (2, 8)
