"""Run SGLang's own start-up for each launch, on a CPU-only machine; one JSON line each.

Run with the SGLang venv that tools/oracle/setup.sh makes (not with drafter-lint's):
    VENV/bin/python tools/oracle/run_sglang.py LAUNCHES.json OUT.jsonl

Stages, each the runtime's own code:
  args    the release's parser on the algorithm name (its choices), then
          ServerArgs(...).resolve_once() (before 0.5.19: __post_init__ at construction)
          and check_server_args(): the whole argument pipeline, with the speculative hook
          (algorithm aliases, per-algorithm checks, DFlash block size, EAGLE defaults).
  config  the target ModelConfig, then the draft's (is_draft_model=True, the target's
          context length), as the draft worker builds them; then the model registry lookup.
  init    the draft class's __init__ on the meta device (no weights).
The platform is SGLang's CUDA platform with capability 9.0, its facts overridden through
SGLang's own runtime_context.override_platform; module-level `_is_cuda` flags computed at
import on this CPU host are set as a CUDA host computes them before `init`.
Not reached: weight loading, the draft worker's post-load checks, KV-pool sizing, kernels;
code that calls torch.cuda at run time raises (run.py records that as an oracle limit).
"""

from __future__ import annotations

import os
import sys

os.environ.setdefault("DRAFTER_LINT_EMULATE_GPU", "h100")   # no GPU here
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir,
                                os.pardir, "drafter_lint", "dryrun"))
# the gate's dry run: the same platform emulation, error reading and meta-device __init__
from runner import launch_conditions, record  # noqa: E402
from sglang_startup import (  # noqa: E402
    build_draft_on_meta,
    describe,
    draft_model_config,
    emulate_h100,
    load_weights_on_meta,
    raised_at,
    resolve_arguments,
    speculative_settings,
    target_model_config,
)
from verdict import refusal  # noqa: E402

DRAFT_KEYS = ("architectures", "model_type", "max_position_embeddings", "num_hidden_layers",
              "vocab_size", "draft_vocab_size", "tie_word_embeddings", "sliding_window",
              "layer_types", "block_size", "dflash_config")


def server_args(launch: dict):
    from sglang.srt.server_args import ServerArgs

    kw = dict(model_path=launch["target"], device="cuda", skip_tokenizer_init=True,
              trust_remote_code=False, speculative_algorithm=launch["algorithm"])
    if not launch.get("self_draft"):
        kw["speculative_draft_model_path"] = launch["drafter"]
    for key, name in (("num_steps", "speculative_num_steps"),
                      ("topk", "speculative_eagle_topk"),
                      ("num_draft_tokens", "speculative_num_draft_tokens")):
        if launch.get(key) is not None:
            kw[name] = launch[key]
    return ServerArgs(**kw)


def parse(launch: dict) -> None:
    """The release's own argument parser on the launch's speculative flags: an algorithm
    name it does not list is refused there (sglang==0.5.10 server_args.py:4760-4763 lists
    no DFLASH; 0.5.11 does). Raises argparse.ArgumentError; parses nothing else."""
    import argparse

    from sglang.srt.server_args import ServerArgs

    parser = argparse.ArgumentParser(prog="sglang.launch_server", exit_on_error=False)
    ServerArgs.add_cli_args(parser)
    parser.parse_known_args(["--model-path", launch["target"],
                             "--speculative-algorithm", launch["algorithm"]])


def run(launch: dict) -> dict:
    out = {"id": launch["id"], "stages": {}}
    stage = "args"
    with launch_conditions(launch.get("env") or {}):
        return _run(launch, out, stage)


def _run(launch: dict, out: dict, stage: str) -> dict:
    try:
        parse(launch)
        args = server_args(launch)
        resolve_arguments(args)
        out["stages"]["args"] = "accepted"
        stage = "config"
        from sglang.srt.model_loader.utils import get_model_architecture

        spec = speculative_settings(args)
        target = target_model_config(args)
        out["resolved"] = {"algorithm": str(spec.speculative_algorithm),
                           "num_draft_tokens": spec.speculative_num_draft_tokens,
                           "target_context_len": target.context_len}
        draft = draft_model_config(args, spec, target.context_len)
        out["resolved"]["draft_context_len"] = draft.context_len
        for key in DRAFT_KEYS:
            value = getattr(draft.hf_config, key, None)
            if value is not None:
                out["resolved"][key] = value
        cls, arch = get_model_architecture(draft)
        out["resolved"]["draft_architecture"] = arch
        out["stages"]["config"] = "accepted"
        stage = "init"
        model = build_draft_on_meta(args, draft)
        out["resolved"].update(describe(model))
        out["stages"]["init"] = "accepted"
        stage = "weights"
        out["weights"] = load_weights_on_meta(draft, model, out["resolved"]["algorithm"])
        out["stages"]["weights"] = "skipped" if "skipped" in out["weights"] else "accepted"
        out["verdict"] = "accepted"
    except Exception as exc:  # noqa: BLE001  (every refusal is a verdict)
        out["stages"][stage] = "raised"
        out.update(refusal(stage, exc, " ".join(str(exc).split()), raised_at(exc)))
    return out


def main() -> int:
    emulate_h100()
    import sglang

    return record("sglang", sglang.__version__, run)


if __name__ == "__main__":
    sys.exit(main())
