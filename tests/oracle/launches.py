"""The oracle lane's launches: every drafter + target pair the repository ships, under the
launch settings a user would pass, for vLLM and for SGLang.

Pairs come from the published corpus (cases with `target.config.json`, and MTP checkpoints,
which are their own target), the header manifests, the tiny Qwen3.6 fixtures, and
`VARIANTS`: one edit (op, pointer, value) (or one environment variable) on a shipped pair, each the
shape of a documented refusal. `build(dest)` writes every pair under `dest` and returns the
launches; the runtime runners (`vllm_startup.py`, `sglang_startup.py`) execute them and the
quick-lane test (tests/test_oracle.py) rebuilds the same pairs to lint them.
"""

from __future__ import annotations

import json
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path

from drafter_lint import family as families

TESTS = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(TESTS))

from corpus import cases, materialize  # noqa: E402
from sparse import FIXTURES, apply_ops, write_json, write_safetensors  # noqa: E402

TINY = FIXTURES / "tiny-qwen3.6"


@dataclass
class Pair:
    id: str
    family: str
    drafter: Path                 # for MTP: the checkpoint, also the target
    target: Path | None
    source: str                   # where the configs come from


@dataclass
class Variant:
    """A shipped pair with one change, named for the refusal it exercises."""
    id: str
    base: str
    edits: list = field(default_factory=list)
    env: dict = field(default_factory=dict)
    runtimes: tuple = ("vllm", "sglang")
    why: str = ""


VARIANTS = [
    Variant("tiny-drafter+v1-runner", "tiny-drafter", env={"VLLM_USE_V2_MODEL_RUNNER": "0"},
            runtimes=("vllm",), why="V1 refuses mixed sliding/full layer_types"),
    Variant("tiny-drafter+unregistered-arch", "tiny-drafter",
            [("replace", "/architectures", ["DFlashQwen9Model"])],
            why="a draft architecture no runtime registers"),
    Variant("tiny-drafter+domino-arch", "tiny-drafter",
            [("replace", "/architectures", ["DominoDraftModel"])],
            why="SpecForge's Domino class name"),
    Variant("tiny-drafter+angelslim-dflash-arch", "tiny-drafter",
            [("replace", "/architectures", ["QwenDFlashDraftModel"])],
            why="AngelSlim's DFlash class name"),
    Variant("sglang-test-qwen3-8b-eagle3+peagle-arch", "sglang-test-qwen3-8b-eagle3",
            [("replace", "/architectures", ["PEagleDraftModel"])],
            why="SpecForge's P-EAGLE class name"),
    Variant("tiny-drafter+dspark", "tiny-drafter",
            [("replace", "/architectures", ["DSparkDraftModel"]), ("add", "/markov_rank", 8),
             ("add", "/markov_head_type", "vanilla")],
            why="the tiny pair as a DSpark draft"),
    Variant("tiny-drafter+dspark-nested-markov-rank", "tiny-drafter",
            [("replace", "/architectures", ["DSparkDraftModel"]),
             ("add", "/dflash_config/markov_rank", 8),
             ("add", "/dflash_config/markov_head_type", "vanilla")],
            why="SpecForge's layout: the Markov head under dflash_config"),
    Variant("tiny-drafter+dspark-no-markov-rank", "tiny-drafter",
            [("replace", "/architectures", ["DSparkDraftModel"])],
            why="a DSpark draft without markov_rank"),
    Variant("sglang-test-qwen3-8b-eagle3+no-draft-vocab-size", "sglang-test-qwen3-8b-eagle3",
            [("remove", "/draft_vocab_size")],
            why="SGLang's Llama EAGLE-3 head reads config.draft_vocab_size"),
    # where each model runner's readers take the mask id and the taps from
    Variant("tiny-drafter+top-level-mask", "tiny-drafter",
            [("remove", "/dflash_config/mask_token_id"), ("add", "/mask_token_id", 248070)],
            runtimes=("vllm",), why="the mask id only at the top level"),
    Variant("tiny-drafter+eagle-aux-ids", "tiny-drafter",
            [("add", "/eagle_aux_hidden_state_layer_ids", [1, 9, 17])],
            runtimes=("vllm",), why="EAGLE-3 aux ids beside the DFlash taps"),
    Variant("tiny-drafter+nested-eagle-aux-ids", "tiny-drafter",
            [("add", "/eagle_config", {"eagle_aux_hidden_state_layer_ids": [1, 9, 17]})],
            runtimes=("vllm",), why="nested EAGLE-3 aux ids beside the DFlash taps"),
    Variant("sglang-test-qwen3-8b-eagle3+nested-aux-ids", "sglang-test-qwen3-8b-eagle3",
            [("add", "/eagle_config", {"eagle_aux_hidden_state_layer_ids": [2, 18, 33]})],
            runtimes=("vllm",), why="EAGLE-3 aux ids only under eagle_config"),
    Variant("tiny-drafter+sample-from-anchor", "tiny-drafter",
            [("add", "/dflash_config/sample_from_anchor", True)],
            why="vLLM's V2 DFlash speculator refuses sample_from_anchor"),
    Variant("tiny-drafter+model-type-dflash", "tiny-drafter",
            [("replace", "/model_type", "dflash")],
            why="transformers does not know model_type dflash"),
    Variant("sglang-test-qwen3-8b-eagle3+vllm-arch", "sglang-test-qwen3-8b-eagle3",
            [("replace", "/architectures", ["Eagle3LlamaForCausalLM"])],
            why="vLLM's class name, which SGLang does not register"),
    Variant("sglang-test-qwen3-8b-eagle3+tied", "sglang-test-qwen3-8b-eagle3",
            [("replace", "/tie_word_embeddings", True)],
            why="SGLang then uses embed_tokens as the output layer"),
    Variant("sglang-test-qwen3-8b-eagle3+maxpos2048", "sglang-test-qwen3-8b-eagle3",
            [("replace", "/max_position_embeddings", 2048)],
            why="SGLang refuses a draft context below the target's"),
    Variant("sglang-test-qwen3-8b-eagle3+maxpos2048+allow", "sglang-test-qwen3-8b-eagle3",
            [("replace", "/max_position_embeddings", 2048)],
            env={"SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN": "1"}, runtimes=("sglang",),
            why="... unless SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1"),
]


def _tiny(dest: Path) -> list[Pair]:
    target = dest / "tiny-target"
    shutil.copytree(TINY / "target", target)
    out = []
    for name in ("drafter", "drafter-guessed"):
        folder = dest / f"tiny-{name}"
        shutil.copytree(TINY / name, folder)
        out.append(Pair(f"tiny-{name}", "dflash", folder, target,
                        f"fixtures/tiny-qwen3.6/{name}"))
    return out


def _manifests(dest: Path) -> list[Pair]:
    out = []
    for path in sorted((FIXTURES / "manifests").glob("*.json")):
        manifest = json.loads(path.read_text())
        pid = f"manifest-{path.stem}"
        drafter, target = dest / pid, dest / f"{pid}.target"
        write_json(drafter / "config.json", manifest["drafter"]["config"])
        for name, spec in manifest["drafter"].get("files", {}).items():
            write_safetensors(drafter / name, spec["tensors"], spec.get("metadata"))
        write_json(target / "config.json", manifest["target"]["config"])
        out.append(Pair(pid, manifest["drafter"].get("family", ""), drafter, target,
                        f"fixtures/manifests/{path.name}"))
    return out


def _corpus(dest: Path) -> list[Pair]:
    out = []
    for case in cases():
        if case.constructed or (case.meta["family"] != "mtp"
                                and not (case.folder / "target.config.json").is_file()):
            continue            # constructed cases: a recorded base with a thread's change
        drafter, target = materialize(case, dest)
        out.append(Pair(case.id, case.meta["family"], drafter, target,
                        f"fixtures/published/{case.id}"))
    return out


def pairs(dest: Path) -> list[Pair]:
    """Write every pair under `dest` (empty or missing) and return them."""
    dest.mkdir(parents=True, exist_ok=True)
    found = _tiny(dest) + _manifests(dest) + _corpus(dest)
    by_id = {p.id: p for p in found}
    for variant in VARIANTS:
        base = by_id[variant.base]
        folder = dest / variant.id
        shutil.copytree(base.drafter, folder)
        if variant.edits:
            config = json.loads((folder / "config.json").read_text())
            write_json(folder / "config.json", apply_ops(config, variant.edits))
        found.append(Pair(variant.id, "", folder, base.target,      # family: detected
                          f"{base.source} + {variant.why}"))
    return found


def _config(pair: Pair) -> dict:
    return json.loads((pair.drafter / "config.json").read_text())


# corpus labels of trainer variants -> the family they are launched as
LAUNCHED_AS = {"domino": "dflash", "dflare": "dflash", "hass": "eagle", "peagle": "eagle3"}


def _family(pair: Pair) -> str:
    from drafter_lint.family import detect

    if pair.family and not pair.family.startswith("speculators"):
        return LAUNCHED_AS.get(pair.family, pair.family)
    return detect(_config(pair), None)


def _block(config: dict, default: int = 16) -> int:
    block = config.get("block_size") or (config.get("dflash_config") or {}).get("block_size")
    return block if isinstance(block, int) and block > 1 else default


def _mtp_layers(config: dict) -> int:
    from drafter_lint.family import mtp_count

    found = mtp_count(config)          # (field, count) or None
    count = found[1] if found else None
    return count if isinstance(count, int) and count > 0 else 1


def vllm_launch(pair: Pair, env: dict) -> dict | None:
    """`vllm serve TARGET --speculative-config '{...}'` as its documentation shows it."""
    family, config = _family(pair), _config(pair)
    if family == "mtp":
        return {"mode": "mtp", "method": "mtp", "k": _mtp_layers(config), "env": env}
    method = families.method(family, "vllm") if not family.startswith("speculators") else None
    if method is None or pair.target is None:
        return None
    k = {"dflash": _block(config) - 1, "dspark": _block(config, 8)}.get(method, 3)
    return {"mode": "spec", "method": method, "k": k, "env": env}


def sglang_launch(pair: Pair, env: dict) -> dict | None:
    """`python -m sglang.launch_server --speculative-algorithm ...` as its docs show it."""
    family, config = _family(pair), _config(pair)
    if family == "mtp":
        return {"algorithm": "NEXTN", "num_steps": 3, "topk": 1, "num_draft_tokens": 4,
                "env": env, "self_draft": True}
    if pair.target is None:
        return None
    if family in ("dflash", "dflash2"):
        return {"algorithm": "DFLASH", "num_draft_tokens": _block(config), "env": env}
    if family == "dspark":
        # gamma = draft tokens - 1 slots after the anchor (LCH102)
        return {"algorithm": "DSPARK", "num_draft_tokens": _block(config, 8) + 1, "env": env}
    if family in ("eagle3", "eagle"):
        return {"algorithm": family.upper(), "num_steps": 3, "topk": 1,
                "num_draft_tokens": 4, "env": env}
    return None


def build(dest: Path) -> list[dict]:
    """Every launch, for both runtimes: id, pair, runtime, paths and settings."""
    envs = {v.id: v for v in VARIANTS}
    out = []
    for pair in pairs(dest):
        variant = envs.get(pair.id)
        for runtime, make in (("vllm", vllm_launch), ("sglang", sglang_launch)):
            if variant and runtime not in variant.runtimes:
                continue
            launch = make(pair, dict(variant.env) if variant else {})
            if launch is None:
                continue
            out.append({"id": f"{pair.id}@{runtime}", "pair": pair.id, "runtime": runtime,
                        "source": pair.source, "drafter": str(pair.drafter),
                        "target": str(pair.target or pair.drafter), **launch})
    return out


if __name__ == "__main__":
    import tempfile

    where = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp())
    print(json.dumps(build(where), indent=1))
