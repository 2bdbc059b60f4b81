"""Build checkpoints for tests: real safetensors headers, a hole where the data would be."""

from __future__ import annotations

import json
import math
from pathlib import Path

from drafter_lint.safetensors_header import DTYPE_BITS

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def write_safetensors(path: Path, tensors, metadata: dict | None = None) -> int:
    """Write a header for `tensors` ([name, dtype, shape] items) and extend the file to its
    full size without writing data (a sparse file). Returns the apparent size."""
    header: dict = {}
    if metadata is not None:
        header["__metadata__"] = metadata
    offset = 0
    for name, dtype, shape in tensors:
        nbytes = math.prod(shape) * DTYPE_BITS[dtype] // 8
        header[name] = {"dtype": dtype, "shape": list(shape),
                        "data_offsets": [offset, offset + nbytes]}
        offset += nbytes
    raw = json.dumps(header, separators=(",", ":")).encode()
    raw += b" " * (-len(raw) % 8)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as handle:
        handle.write(len(raw).to_bytes(8, "little"))
        handle.write(raw)
        handle.truncate(8 + len(raw) + offset)
    return 8 + len(raw) + offset


def write_json(path: Path, value) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=2) + "\n", encoding="utf-8")


def load_manifest(name: str) -> dict:
    return json.loads((FIXTURES / "manifests" / f"{name}.json").read_text())


def materialize(manifest: dict, dest: Path, config: dict | None = None,
                tensors: list | None = None) -> tuple[Path, Path]:
    """Write the manifest's drafter (config, sparse weights) and target (config) under `dest`.

    `config` and `tensors` replace the manifest's drafter config and the tensor list of its
    single weights file. Returns (drafter folder, target folder).
    """
    drafter, target = dest / "drafter", dest / "target"
    write_json(drafter / "config.json", config if config is not None
               else manifest["drafter"]["config"])
    for name, spec in manifest["drafter"]["files"].items():
        write_safetensors(drafter / name, tensors if tensors is not None else spec["tensors"],
                          spec.get("metadata"))
    write_json(target / "config.json", manifest["target"]["config"])
    return drafter, target


def apply_ops(document, ops):
    """Apply (op, pointer[, value]) edits (RFC 6902 add/replace/remove) to a copy."""
    document = json.loads(json.dumps(document))
    for op, ptr, *value in ops:
        *parents, last = [t.replace("~1", "/").replace("~0", "~") for t in ptr[1:].split("/")]
        node = document
        for token in parents:
            node = node[int(token)] if isinstance(node, list) else node[token]
        if isinstance(node, list):
            index = len(node) if last == "-" else int(last)
            if op == "remove":
                del node[index]
            elif op == "add":
                node.insert(index, value[0])
            else:
                node[index] = value[0]
        elif op == "remove":
            del node[last]
        else:
            node[last] = value[0]
    return document


# --- MTP targets: big sharded checkpoints, generated (tens of thousands of tensors) -------

def _shard(tensors, shards: int):
    """Split [name, dtype, shape] items into `shards` runs of similar byte size."""
    sizes = [math.prod(s) * DTYPE_BITS[d] // 8 for _, d, s in tensors]
    budget = sum(sizes) / shards
    out, current, total = [], [], 0
    for item, size in zip(tensors, sizes):
        current.append(item)
        total += size
        if total >= budget and len(out) < shards - 1:
            out.append(current)
            current, total = [], 0
    out.append(current)
    return out


def write_sharded(folder: Path, config: dict, tensors, shards: int) -> int:
    """A sharded checkpoint (sparse shards + index); returns its apparent size."""
    write_json(folder / "config.json", config)
    weight_map, total = {}, 0
    parts = _shard(tensors, shards)
    for i, part in enumerate(parts, 1):
        name = f"model-{i:05d}-of-{len(parts):05d}.safetensors"
        total += write_safetensors(folder / name, part, {"format": "pt"})
        weight_map.update({t[0]: name for t in part})
    write_json(folder / "model.safetensors.index.json",
               {"metadata": {"total_size": total}, "weight_map": weight_map})
    return total


def deepseek_v3(folder: Path, mtp_layers: int = 1, experts: int = 256,
                shared_head: bool = True) -> int:
    """DeepSeek-V3 layout (61 layers, MLA attention, 3 dense + 58 MoE layers, FP8 matrices)
    with `mtp_layers` MTP layers stored as model.layers.61+ (without `shared_head.head`,
    as GLM ships them, when `shared_head` is false)."""
    H, L, V, moe, dense = 7168, 61, 129280, 2048, 18432
    config = {"architectures": ["DeepseekV3ForCausalLM"], "model_type": "deepseek_v3",
              "hidden_size": H, "intermediate_size": dense, "moe_intermediate_size": moe,
              "num_hidden_layers": L, "num_nextn_predict_layers": mtp_layers,
              "n_routed_experts": experts, "first_k_dense_replace": 3, "vocab_size": V,
              "num_attention_heads": 128, "kv_lora_rank": 512, "q_lora_rank": 1536,
              "qk_rope_head_dim": 64, "qk_nope_head_dim": 128, "v_head_dim": 128}
    tensors = [["model.embed_tokens.weight", "BF16", [V, H]]]

    def block(i):
        p = f"model.layers.{i}."
        out = [[p + "input_layernorm.weight", "BF16", [H]],
               [p + "post_attention_layernorm.weight", "BF16", [H]],
               [p + "self_attn.q_a_proj.weight", "F8_E4M3", [1536, H]],
               [p + "self_attn.q_a_layernorm.weight", "BF16", [1536]],
               [p + "self_attn.q_b_proj.weight", "F8_E4M3", [128 * 192, 1536]],
               [p + "self_attn.kv_a_proj_with_mqa.weight", "F8_E4M3", [576, H]],
               [p + "self_attn.kv_a_layernorm.weight", "BF16", [512]],
               [p + "self_attn.kv_b_proj.weight", "F8_E4M3", [128 * 256, 512]],
               [p + "self_attn.o_proj.weight", "F8_E4M3", [H, 128 * 128]]]
        if i < 3:
            out += [[p + f"mlp.{m}_proj.weight", "F8_E4M3", s] for m, s in
                    (("gate", [dense, H]), ("up", [dense, H]), ("down", [H, dense]))]
        else:
            out.append([p + "mlp.gate.weight", "BF16", [experts, H]])
            for e in [*range(experts), "shared"]:
                q = p + (f"mlp.experts.{e}." if e != "shared" else "mlp.shared_experts.")
                out += [[q + "gate_proj.weight", "F8_E4M3", [moe, H]],
                        [q + "up_proj.weight", "F8_E4M3", [moe, H]],
                        [q + "down_proj.weight", "F8_E4M3", [H, moe]]]
        return out

    for i in range(L):
        tensors += block(i)
    tensors += [["model.norm.weight", "BF16", [H]], ["lm_head.weight", "BF16", [V, H]]]
    for j in range(mtp_layers):
        p = f"model.layers.{L + j}."
        tensors += block(L + j) + [
            [p + "embed_tokens.weight", "BF16", [V, H]], [p + "enorm.weight", "BF16", [H]],
            [p + "hnorm.weight", "BF16", [H]], [p + "eh_proj.weight", "BF16", [H, 2 * H]],
            [p + "shared_head.norm.weight", "BF16", [H]]] + (
            [[p + "shared_head.head.weight", "BF16", [V, H]]] if shared_head else [])
    return write_sharded(folder, config, tensors, 163)


def _experts(prefix: str, count: int, moe: int, H: int) -> list:
    """`count` BF16 MoE experts (gate, up, down) under `prefix`mlp.experts.{e}."""
    return [[f"{prefix}mlp.experts.{e}.{name}.weight", "BF16", shape] for e in range(count)
            for name, shape in (("gate_proj", [moe, H]), ("up_proj", [moe, H]),
                                ("down_proj", [H, moe]))]


def qwen35_moe(folder: Path, mtp_layers: int = 1, drop_mtp: bool = False,
               experts: int = 256, quant_ignore: list | None = None,
               mtp_packed: bool = False, quant_config: dict | None = None,
               quant_file: dict | None = None, mtp_prefix: str = "mtp.") -> int:
    """A Qwen3.5-style MoE target (composite config, text_config.mtp_num_hidden_layers,
    `mtp.*` tensors); geometry illustrative, 48 layers x 256 experts, BF16.

    With `quant_ignore`, a ModelOpt NVFP4 export: body linears stored as U8 weight +
    weight_scale, `quantization_config.ignore` as given; the MTP layers' linears are
    stored that way too only with `mtp_packed` (else BF16, as NVIDIA ships them).
    `quant_config` replaces that description (another method, same stored layout);
    `quant_file` moves it to hf_quant_config.json, as ModelOpt exports before 0.31 did.
    `mtp_prefix` is where the MTP tensors are saved (`model.mtp.`: under the model's
    prefix, which the MTP rules read as the same layout)."""
    H, L, V, moe = 2048, 48, 248320, 512
    text = {"model_type": "qwen3_5_moe_text", "hidden_size": H, "num_hidden_layers": L,
            "vocab_size": V, "moe_intermediate_size": moe, "num_experts": experts,
            "mtp_num_hidden_layers": mtp_layers, "mtp_use_dedicated_embeddings": False,
            "full_attention_interval": 4, "num_attention_heads": 16, "num_key_value_heads": 2,
            "head_dim": 256}
    config = {"architectures": ["Qwen3_5MoeForConditionalGeneration"],
              "model_type": "qwen3_5_moe", "text_config": text}
    if quant_ignore is not None:
        config["quantization_config"] = quant_config or {
            "quant_method": "modelopt", "quant_algo": "NVFP4", "ignore": quant_ignore}
    if quant_file is not None:
        config.pop("quantization_config", None)
        write_json(folder / "hf_quant_config.json", quant_file)

    def block(p, packed=quant_ignore is not None):
        out = [[p + "input_layernorm.weight", "BF16", [H]],
               [p + "post_attention_layernorm.weight", "BF16", [H]],
               [p + "self_attn.q_proj.weight", "BF16", [16 * 256 * 2, H]],
               [p + "self_attn.k_proj.weight", "BF16", [2 * 256, H]],
               [p + "self_attn.v_proj.weight", "BF16", [2 * 256, H]],
               [p + "self_attn.o_proj.weight", "BF16", [H, 16 * 256]],
               [p + "mlp.gate.weight", "BF16", [experts, H]]]
        out += _experts(p, experts, moe, H)
        return [t for name, dtype, shape in out for t in _nvfp4(name, shape)] \
            if packed else out

    tensors = [["model.language_model.embed_tokens.weight", "BF16", [V, H]]]
    for i in range(L):
        tensors += block(f"model.language_model.layers.{i}.")
    tensors += [["model.language_model.norm.weight", "BF16", [H]],
                ["lm_head.weight", "BF16", [V, H]]]
    if not drop_mtp:
        m = mtp_prefix
        tensors += [[m + "fc.weight", "BF16", [H, 2 * H]], [m + "norm.weight", "BF16", [H]],
                    [m + "pre_fc_norm_hidden.weight", "BF16", [H]],
                    [m + "pre_fc_norm_embedding.weight", "BF16", [H]]]
        for j in range(mtp_layers):
            tensors += block(f"{m}layers.{j}.", packed=mtp_packed)
    return write_sharded(folder, config, tensors, 17)


def qwen3_next(folder: Path, experts: int | None = None, drop_mtp: bool = False) -> int:
    """Qwen3-Next-80B-A3B-Thinking: its published config.json, verbatim (fixtures/published;
    no MTP count field), and BF16 tensors named as the model class names them, with the
    `mtp.*` head unless `drop_mtp` (an export that lost it). `experts` trims the experts
    written per layer, not the config."""
    source = FIXTURES / "published" / "qwen3-next-80b-a3b-thinking-mtp" / "config.json"
    config = json.loads(source.read_text(encoding="utf-8"))
    H, L, V = config["hidden_size"], config["num_hidden_layers"], config["vocab_size"]
    moe, heads, head = config["moe_intermediate_size"], config["num_attention_heads"], \
        config["head_dim"]
    n = experts or config["num_experts"]

    def block(p: str, full: bool) -> list:
        out = [[p + "input_layernorm.weight", "BF16", [H]],
               [p + "post_attention_layernorm.weight", "BF16", [H]],
               [p + "mlp.gate.weight", "BF16", [config["num_experts"], H]]]
        if full:
            kv = config["num_key_value_heads"] * head
            out += [[p + "self_attn.q_proj.weight", "BF16", [2 * heads * head, H]],
                    [p + "self_attn.k_proj.weight", "BF16", [kv, H]],
                    [p + "self_attn.v_proj.weight", "BF16", [kv, H]],
                    [p + "self_attn.o_proj.weight", "BF16", [H, heads * head]]]
        else:
            keys = config["linear_num_key_heads"] * config["linear_key_head_dim"]
            values = config["linear_num_value_heads"] * config["linear_value_head_dim"]
            out += [[p + "linear_attn.in_proj_qkvz.weight", "BF16", [2 * keys + 2 * values, H]],
                    [p + "linear_attn.in_proj_ba.weight", "BF16",
                     [2 * config["linear_num_value_heads"], H]],
                    [p + "linear_attn.out_proj.weight", "BF16", [H, values]]]
        return out + _experts(p, n, moe, H)

    interval = config["full_attention_interval"]
    tensors = [["model.embed_tokens.weight", "BF16", [V, H]]]
    for i in range(L):
        tensors += block(f"model.layers.{i}.", (i + 1) % interval == 0)
    tensors += [["model.norm.weight", "BF16", [H]], ["lm_head.weight", "BF16", [V, H]]]
    if not drop_mtp:
        tensors += [["mtp.fc.weight", "BF16", [H, 2 * H]], ["mtp.norm.weight", "BF16", [H]],
                    ["mtp.pre_fc_norm_hidden.weight", "BF16", [H]],
                    ["mtp.pre_fc_norm_embedding.weight", "BF16", [H]]]
        tensors += block("mtp.layers.0.", True)
    return write_sharded(folder, config, tensors, 41)


def deepseek_v4(folder: Path, experts: int | None = None, stages: str = "dspark",
                drop: tuple = (), layers: int = 1, quantization: dict | None = None,
                plain_mtp: bool = False, plain: tuple = ()) -> int:
    """DeepSeek-V4-Flash-0731's public 160-expert derivative: its config.json verbatim and
    its mtp.* tensors as its headers list them (fixtures/headers/; `experts` copies of
    each MoE layer's expert 0), beside a stand-in body (embedding, head, one layer).
    `stages="dspark"` keeps the published stages (main_proj/main_norm, three of them);
    `stages="mtp"` is `layers` classic MTP stages instead (constructed: the dspark_* fields
    dropped; mtp.0's block, with e_proj/h_proj/enorm/hnorm, illustrative shapes, for
    main_*, written as mtp.0 ... mtp.{layers-1}).
    `drop` leaves those tensor names out. `quantization` replaces the config's
    quantization_config; `plain_mtp` stores the MTP stages' linears as BF16 with no scale
    (a recipe that left mtp.* unquantized, as vLLM #43304 describes); `plain` does that for
    the modules it names only (#43455's conversion: mtp.0.e_proj and mtp.0.h_proj)."""
    case = FIXTURES / "rules" / "DF143" / "pass-deepseek-v4-dspark-stages-in-the-target"
    config = json.loads((case / "config.json").read_text(encoding="utf-8"))
    listed = json.loads((FIXTURES / "headers" / "deepseek-v4-flash-0731-derivative-mtp.json")
                        .read_text(encoding="utf-8"))["tensors"]
    H, V = config["hidden_size"], config["vocab_size"]
    mtp = []
    for name, dtype, shape in listed:
        if ".ffn.experts.0." in name:
            mtp += [[name.replace(".experts.0.", f".experts.{e}."), dtype, shape]
                    for e in range(experts or config["n_routed_experts"])]
        else:
            mtp.append([name, dtype, shape])
    if stages == "mtp":
        config = {k: v for k, v in config.items() if not k.startswith("dspark_")}
        block = [t for t in mtp if t[0].startswith("mtp.0.") and ".main_" not in t[0]]
        # FP8 e_proj/h_proj with 128x128 block scales, as vLLM's V4 MTP builds them
        # (models/deepseek_v4/nvidia/mtp.py:101-118); shapes illustrative
        block += [[f"mtp.0.{proj}.{leaf}", dtype, shape] for proj in ("e_proj", "h_proj")
                  for leaf, dtype, shape in (("weight", "F8_E4M3", [H, H]),
                                             ("scale", "F8_E8M0", [H // 128, H // 128]))]
        block += [["mtp.0.enorm.weight", "BF16", [H]], ["mtp.0.hnorm.weight", "BF16", [H]]]
        mtp = [[f"mtp.{i}." + name[len("mtp.0."):], dtype, shape]
               for i in range(layers) for name, dtype, shape in block]
    if quantization is not None:
        config["quantization_config"] = quantization
    if plain_mtp or plain:
        def chosen(name: str) -> bool:
            return plain_mtp or name.rsplit(".", 1)[0] in plain
        mtp = [[name, "BF16" if chosen(name) and dtype.startswith(("F8", "I8")) else dtype,
                shape] for name, dtype, shape in mtp
               if not (chosen(name) and name.endswith(".scale"))]
    body = [["embed.weight", "BF16", [V, H]], ["head.weight", "BF16", [V, H]],
            ["norm.weight", "BF16", [H]], ["layers.0.attn_norm.weight", "BF16", [H]]]
    tensors = [t for t in body + mtp if t[0] not in set(drop)]
    return write_sharded(folder, config, tensors, 3)


def _nvfp4(name: str, shape: list) -> list:
    """A linear weight as ModelOpt NVFP4 stores it (two 4-bit values per byte, one FP8
    scale per 16 inputs); norms and routers stay BF16."""
    if not name.endswith("_proj.weight"):
        return [[name, "BF16", shape]]
    out, inp = shape
    return [[name, "U8", [out, inp // 2]], [name + "_scale", "F8_E4M3", [out, inp // 16]]]
