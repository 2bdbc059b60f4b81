"""Run vLLM's own start-up for each launch, on a CPU-only machine; one JSON line each.

Run with the vLLM venv that tests/oracle/setup.sh makes (not with drafter-lint's):
    VENV/bin/python tests/oracle/vllm_startup.py LAUNCHES.json OUT.jsonl

Stages, each the runtime's own code:
  config  EngineArgs(...).create_engine_config(): the target ModelConfig, SpeculativeConfig
          (the draft's config through vLLM's registry, method detection, the EAGLE and
          speculators rewrites, k checks, the draft max_model_len) and VllmConfig
          (model-runner choice, V1 refusals).
  init    the draft model's __init__ on the meta device under that config (no weights).
The platform is vLLM's CUDA platform with capability 9.0 (an H100), so the model runner is
the one a CUDA host gets; a driver-less libcuda stub (setup.sh) lets the extensions import.
Not reached: weight loading, the proposer's load_model checks, KV-cache grouping, kernels.
"""

from __future__ import annotations

import json
import os
import re
import signal
import sys
import tempfile
import traceback

os.environ.setdefault("VLLM_TARGET_DEVICE", "cpu")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("VLLM_LOGGING_LEVEL", "ERROR")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("VLLM_CACHE_ROOT", os.path.join(tempfile.gettempdir(), "dl-oracle-vllm"))

SECONDS_PER_LAUNCH = 120
RESOLVED_KEYS = ("eagle_aux_hidden_state_layer_ids", "target_layer_ids", "layer_types",
                 "sliding_window", "max_position_embeddings", "num_hidden_layers",
                 "draft_vocab_size", "vocab_size", "block_size", "n_predict",
                 "dflash_config")


def cuda_without_a_device():
    """Make vLLM's current platform a CUDA H100 that has no driver behind it."""
    import ctypes

    stub = os.path.join(sys.prefix, "lib", "oracle-libcuda", "libcuda.so.1")
    ctypes.CDLL(stub, mode=os.RTLD_NOW | ctypes.RTLD_GLOBAL)
    import vllm.platforms as platforms
    from vllm.platforms import cuda
    from vllm.platforms.interface import DeviceCapability, Platform

    class H100(cuda.NonNvmlCudaPlatform):
        @classmethod
        def get_device_capability(cls, device_id: int = 0):
            return DeviceCapability(major=9, minor=0)

        @classmethod
        def get_device_name(cls, device_id: int = 0) -> str:
            return "NVIDIA H100 80GB HBM3"

        @classmethod
        def get_device_total_memory(cls, device_id: int = 0) -> int:
            return 80 << 30

        @classmethod
        def is_fully_connected(cls, physical_device_ids) -> bool:
            return True

        @classmethod
        def device_count(cls) -> int:
            return 1

        @classmethod
        def log_warnings(cls):
            pass

    platform = H100()
    platforms._current_platform = platform
    # triton_utils keeps the real triton only when it sees a driver, or an empty
    # CUDA_VISIBLE_DEVICES; without it some target model modules do not import
    saved = os.environ.pop("CUDA_VISIBLE_DEVICES", None)
    os.environ["CUDA_VISIBLE_DEVICES"] = ""
    import vllm.triton_utils  # noqa: F401
    del os.environ["CUDA_VISIBLE_DEVICES"]
    if saved is not None:
        os.environ["CUDA_VISIBLE_DEVICES"] = saved
    for module in list(sys.modules.values()):
        bound = getattr(module, "__dict__", {}).get("current_platform")
        if isinstance(bound, Platform) and bound is not platform:
            module.current_platform = platform
    import vllm.config.vllm as vllm_config
    vllm_config.HAS_TRITON = True       # a CUDA host has triton; the CPU build says no


def message(exc: BaseException) -> str:
    text = str(exc)
    found = re.search(r"(?:Value|Assertion|Key|Type|Runtime) error, (.*?) \[type=", text, re.S)
    return " ".join((found.group(1) if found else text).split())[:500]


def raised_at(exc: BaseException) -> str:
    """`package/path.py:line` of the innermost vllm or transformers frame of the root cause."""
    while (exc.__cause__ or exc.__context__) is not None and \
            (exc.__cause__ or exc.__context__).__traceback__ is not None:
        exc = exc.__cause__ or exc.__context__
    for frame in reversed(traceback.extract_tb(exc.__traceback__)):
        if "/vllm/" in frame.filename or "/transformers/" in frame.filename:
            return f"{frame.filename.split('/site-packages/')[-1]}:{frame.lineno}"
    return ""


def resolved(cfg) -> dict:
    spec = cfg.speculative_config
    out = {"use_v2_model_runner": bool(getattr(cfg, "use_v2_model_runner", False)),
           "target_max_model_len": cfg.model_config.max_model_len}
    if spec is None:
        return out
    out.update(method=spec.method, num_speculative_tokens=spec.num_speculative_tokens)
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


_DISTRIBUTED = []


def init_draft_on_meta(cfg) -> str:
    import torch
    from vllm.config import set_current_vllm_config
    from vllm.distributed import ensure_model_parallel_initialized, init_distributed_environment
    from vllm.distributed.parallel_state import destroy_model_parallel
    from vllm.model_executor.model_loader.utils import initialize_model
    from vllm.utils.torch_utils import set_default_torch_dtype

    draft = cfg.speculative_config.draft_model_config
    with set_current_vllm_config(cfg):
        if not _DISTRIBUTED:
            path = tempfile.mktemp(prefix="dl-oracle-dist-")
            init_distributed_environment(world_size=1, rank=0, local_rank=0,
                                         distributed_init_method=f"file://{path}",
                                         backend="gloo")
            _DISTRIBUTED.append(path)
        destroy_model_parallel()
        ensure_model_parallel_initialized(1, 1)
        with set_default_torch_dtype(draft.dtype), torch.device("meta"):
            model = initialize_model(vllm_config=cfg, model_config=draft, prefix="draft_model")
    return type(model).__name__


def engine_args(launch: dict):
    from vllm.engine.arg_utils import EngineArgs

    common = dict(skip_tokenizer_init=True, trust_remote_code=False, enforce_eager=True)
    if launch["mode"] == "mtp":
        return EngineArgs(model=launch["target"], speculative_config={
            "method": "mtp", "num_speculative_tokens": launch["k"]}, **common)
    spec = {"model": launch["drafter"], "num_speculative_tokens": launch["k"]}
    if launch.get("method"):
        spec["method"] = launch["method"]
    return EngineArgs(model=launch["target"], speculative_config=spec, **common)


class Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise Timeout(f"no verdict within {SECONDS_PER_LAUNCH} s")


def run(launch: dict) -> dict:
    import vllm.envs as envs

    env = launch.get("env") or {}
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update({k: str(v) for k, v in env.items()})
    for key in env:
        envs.__dict__.pop(key, None)          # vllm.envs caches what it has read
    out = {"id": launch["id"], "stages": {}}
    stage = "config"
    signal.alarm(SECONDS_PER_LAUNCH)
    try:
        cfg = engine_args(launch).create_engine_config()
        out["stages"]["config"] = "accepted"
        out["resolved"] = resolved(cfg)
        if cfg.speculative_config is not None and \
                cfg.speculative_config.draft_model_config is not None:
            stage = "init"
            out["resolved"]["draft_class"] = init_draft_on_meta(cfg)
            out["stages"]["init"] = "accepted"
        out["verdict"] = "accepted"
    except Exception as exc:  # noqa: BLE001  (every refusal is a verdict)
        out["stages"][stage] = "raised"
        out.update(verdict="refused", stage=stage, error_type=type(exc).__name__,
                   message=message(exc), where=raised_at(exc))
    finally:
        signal.alarm(0)
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        for key in env:
            envs.__dict__.pop(key, None)
    return out


def main() -> int:
    launches = [x for x in json.loads(open(sys.argv[1]).read()) if x["runtime"] == "vllm"]
    signal.signal(signal.SIGALRM, _alarm)
    cuda_without_a_device()
    import vllm

    with open(sys.argv[2], "w") as out:
        out.write(json.dumps({"runtime": "vllm", "version": vllm.__version__}) + "\n")
        for launch in launches:
            out.write(json.dumps(run(launch), default=str) + "\n")
            out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
