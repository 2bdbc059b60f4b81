"""Run vLLM's own start-up for each launch, on a CPU-only machine; one JSON line each.

Run with the vLLM venv that tools/oracle/setup.sh makes (not with drafter-lint's):
    VENV/bin/python tools/oracle/run_vllm.py LAUNCHES.json OUT.jsonl

Stages, each the runtime's own code:
  config  EngineArgs(...).create_engine_config(): the target ModelConfig, SpeculativeConfig
          (the draft's config through vLLM's registry, method detection, the EAGLE and
          speculators rewrites, k checks, the draft max_model_len) and VllmConfig
          (model-runner choice, V1 refusals).
  readers the mask id and tap list each model runner's own reader takes from the draft
          config (V2's spec_decode helpers; V1's runner and proposer methods).
  init    the draft model's __init__ on the meta device under that config (no weights).
The platform is vLLM's CUDA platform with capability 9.0 (an H100), so the model runner is
the one a CUDA host gets; a driver-less libcuda stub (setup.sh) lets the extensions import.
Not reached: weight loading, the proposer's load_model checks, KV-cache grouping, kernels.
"""

from __future__ import annotations

import os
import sys
import tempfile

os.environ.setdefault("VLLM_TARGET_DEVICE", "cpu")
os.environ.setdefault("DRAFTER_LINT_EMULATE_GPU", "h100")   # no GPU here
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("VLLM_LOGGING_LEVEL", "ERROR")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("VLLM_CACHE_ROOT", os.path.join(tempfile.gettempdir(), "dl-oracle-vllm"))

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir,
                                os.pardir, "drafter_lint", "dryrun"))
# the gate's dry run: the same platform emulation, error reading and meta-device __init__
from runner import launch_conditions, record  # noqa: E402
from verdict import refusal  # noqa: E402
from vllm_startup import (  # noqa: E402
    emulate_h100,
    init_draft_on_meta,
    load_weights_on_meta,
    message,
    raised_at,
)

RESOLVED_KEYS = ("eagle_aux_hidden_state_layer_ids", "target_layer_ids", "layer_types",
                 "sliding_window", "max_position_embeddings", "num_hidden_layers",
                 "draft_vocab_size", "vocab_size", "block_size", "n_predict",
                 "dflash_config")


def resolved(cfg) -> dict:
    spec = cfg.speculative_config
    # no such attribute before Model Runner V2 (0.9.2: V1 alone) and after V1's removal
    # (0.34.0: V2 alone): which one the release has answers then
    v2 = getattr(cfg, "use_v2_model_runner", None)
    if v2 is None:
        import importlib.util
        v2 = importlib.util.find_spec("vllm.v1.worker.gpu_model_runner") is None
    out = {"use_v2_model_runner": bool(v2),
           "target_max_model_len": cfg.model_config.max_model_len}
    if spec is None:
        return out
    # vllm==0.8.2 config.py: SpeculativeConfig has no method yet
    out.update(method=getattr(spec, "method", None),
               num_speculative_tokens=spec.num_speculative_tokens)
    draft = spec.draft_model_config
    if draft is None:
        return out
    out.update(draft_architectures=list(draft.architectures or []),
               draft_max_model_len=draft.max_model_len)
    for key in RESOLVED_KEYS:
        value = getattr(draft.hf_config, key, None)
        if value is not None:
            out[key] = value if not hasattr(value, "items") else dict(value)
    return out


def _reader(module: str, name: str):
    """The release's function (or an unbound method, "Class.method") `name` of `module`;
    None when this release has no such reader."""
    import importlib

    try:
        obj = importlib.import_module(module)
    except Exception:  # noqa: BLE001  (a reader this release does not ship)
        return None
    for part in name.split("."):
        obj = getattr(obj, part, None)
    return obj


def _read(call):
    """What a reader returns: its value, or the exception it raises, as JSON."""
    try:
        value = call()
    except Exception as exc:  # noqa: BLE001
        return {"raised": f"{type(exc).__name__}: {str(exc)[:200]}"}
    return list(value) if isinstance(value, tuple) else value


def readers(cfg) -> dict:
    """Mask id and tap list as each model runner's own code reads them from the draft
    config (pure functions, run on CPU): V2's spec_decode helpers, and V1's runner and
    proposer methods called with only the attributes they read."""
    from types import SimpleNamespace

    spec = cfg.speculative_config
    hf = spec.draft_model_config.hf_config
    out: dict = {"v1": {}, "v2": {}}
    taps2 = _reader("vllm.v1.worker.gpu.spec_decode.eagle.eagle3_utils",
                    "get_eagle3_aux_layers_from_config")
    mask2 = _reader("vllm.v1.worker.gpu.spec_decode.utils", "get_parallel_drafting_token_id")
    taps1 = _reader("vllm.v1.worker.gpu_model_runner",
                    "GPUModelRunner._get_eagle3_aux_layers_from_config")
    mask1 = _reader("vllm.v1.spec_decode.llm_base_proposer",
                    "SpecDecodeBaseProposer._init_parallel_drafting_params")
    if taps2 is not None:
        out["v2"]["taps"] = _read(lambda: taps2(spec))
    if taps1 is not None:
        out["v1"]["taps"] = _read(lambda: taps1(SimpleNamespace(speculative_config=spec)))
    if getattr(spec, "method", None) in ("dflash", "dspark"):
        if mask2 is not None:
            out["v2"]["mask_token_id"] = _read(lambda: mask2(hf))
        if mask1 is not None:
            me = SimpleNamespace(draft_model_config=spec.draft_model_config,
                                 pass_hidden_states_to_model=False)
            out["v1"]["mask_token_id"] = _read(
                lambda: mask1(me) or me.parallel_drafting_token_id)
    return {runner: got for runner, got in out.items() if got}


def engine_args(launch: dict):
    from vllm.engine.arg_utils import EngineArgs

    common = dict(skip_tokenizer_init=True, trust_remote_code=False, enforce_eager=True)
    if "speculative_config" not in getattr(EngineArgs, "__dataclass_fields__", {}):
        # vllm==0.8.2 engine/arg_utils.py:181-184: --speculative-model and
        # --num-speculative-tokens, no method (the draft's config decides; MTP is the
        # target itself as the speculative model)
        draft = launch["target"] if launch["mode"] == "mtp" else launch["drafter"]
        return EngineArgs(model=launch["target"], speculative_model=draft,
                          num_speculative_tokens=launch["k"], **common)
    if launch["mode"] == "mtp":
        return EngineArgs(model=launch["target"], speculative_config={
            "method": "mtp", "num_speculative_tokens": launch["k"]}, **common)
    spec = {"model": launch["drafter"], "num_speculative_tokens": launch["k"]}
    if launch.get("method"):
        spec["method"] = launch["method"]
    return EngineArgs(model=launch["target"], speculative_config=spec, **common)


def run(launch: dict) -> dict:
    import vllm.envs as envs

    out = {"id": launch["id"], "stages": {}}
    stage = "config"
    # vllm.envs caches what it has read
    with launch_conditions(launch.get("env") or {}, lambda key: envs.__dict__.pop(key, None)):
        try:
            cfg = engine_args(launch).create_engine_config()
            out["stages"]["config"] = "accepted"
            out["resolved"] = resolved(cfg)
            if cfg.speculative_config is not None and \
                    cfg.speculative_config.draft_model_config is not None:
                out["readers"] = readers(cfg)
                stage = "init"
                model = init_draft_on_meta(cfg)
                out["resolved"]["draft_class"] = type(model).__name__
                out["stages"]["init"] = "accepted"
                stage = "weights"
                out["weights"] = load_weights_on_meta(cfg, model)
                out["stages"]["weights"] = "skipped" if "skipped" in out["weights"] \
                    else "accepted"
            out["verdict"] = "accepted"
        except Exception as exc:  # noqa: BLE001  (every refusal is a verdict)
            out["stages"][stage] = "raised"
            out.update(refusal(stage, exc, message(exc), raised_at(exc)))
    return out


def main() -> int:
    emulate_h100()
    import vllm

    return record("vllm", vllm.__version__, run)


if __name__ == "__main__":
    sys.exit(main())
