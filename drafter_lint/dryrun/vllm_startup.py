"""vLLM's own start-up resolution for one launch line, run by vLLM's interpreter.

A standalone script (it imports vLLM, never drafter_lint): the gate runs it as
    INTERPRETER vllm_startup.py '{"argv": [...], "init": true, "out": FILE}'
with the launch line's environment, and reads the JSON it writes to FILE: the verdict
("accepted", "refused" with the exception, its message and the raising vllm file:line, or
"unavailable" when vLLM's start-up modules do not import), the release and the seconds.

What runs is vLLM's own code: its `serve` argument parser, `EngineArgs.from_cli_args`,
`create_engine_config()` (target and draft model configs, the speculative config, the
model-runner choice) and, with "init", the draft model's `__init__` on the meta device.
No weights are read and no device memory is used. With DRAFTER_LINT_EMULATE_GPU=h100 the
platform is vLLM's CUDA platform with a 9.0 device and no driver (for CPU-only hosts:
CI, the oracle lane), which needs the driver-less libcuda stub tools/oracle/setup.sh builds.
"""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
import time
import traceback

from verdict import refusal, write  # beside this script (run as one, not imported)
from weights import HeaderFile, Recorder, safetensors_files

os.environ.setdefault("VLLM_LOGGING_LEVEL", "ERROR")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def emulate_h100() -> None:
    """vLLM's current platform as a CUDA H100 with no driver behind it."""
    import ctypes

    stub = os.environ.get("DRAFTER_LINT_LIBCUDA_STUB") or os.path.join(
        sys.prefix, "lib", "oracle-libcuda", "libcuda.so.1")
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
    # torch's own answer, as that host gives it: vllm==0.11.0 attention/utils/fa_utils.py:37
    # asks vllm_flash_attn's is_fa_version_supported, which reads torch.cuda's capability
    import torch
    torch.cuda.get_device_capability = lambda device=None: (9, 0)
    # triton_utils keeps the real triton only when it sees a driver, or an empty
    # CUDA_VISIBLE_DEVICES; without it some target model modules do not import
    saved = os.environ.pop("CUDA_VISIBLE_DEVICES", None)
    os.environ["CUDA_VISIBLE_DEVICES"] = ""
    import vllm.triton_utils  # noqa: F401
    del os.environ["CUDA_VISIBLE_DEVICES"]
    if saved is not None:
        os.environ["CUDA_VISIBLE_DEVICES"] = saved
    _inspect_as_cuda_host()
    for module in list(sys.modules.values()):
        bound = getattr(module, "__dict__", {}).get("current_platform")
        if isinstance(bound, Platform) and bound is not platform:
            module.current_platform = platform
    try:
        import vllm.config.vllm as vllm_config
    except ImportError:     # vllm<=0.11: config/__init__.py, which reads no HAS_TRITON
        return
    vllm_config.HAS_TRITON = True       # a CUDA host has triton; the CPU build says no


def _inspect_as_cuda_host() -> None:
    """The registry inspects a model class in a fresh interpreter (vllm==0.11.0
    model_executor/models/registry.py:948-972), which imports the model module with
    triton as its own start-up finds it: with no driver, a placeholder, and modules that
    use triton.language at import (vllm==0.11.0 layers/fla/ops/op.py:26, Qwen3-Next) fail
    where a CUDA host has triton. The child gets the empty CUDA_VISIBLE_DEVICES that
    keeps the real triton here too (no device is visible either way)."""
    import subprocess
    import types

    import vllm.model_executor.models.registry as registry

    if not isinstance(getattr(registry, "subprocess", None), types.ModuleType):
        return

    def run(*args, **kwargs):
        kwargs["env"] = {**(kwargs.get("env") or os.environ), "CUDA_VISIBLE_DEVICES": ""}
        return subprocess.run(*args, **kwargs)

    registry.subprocess = types.SimpleNamespace(run=run)


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
        for package in ("/vllm/", "/transformers/"):
            if package in frame.filename:
                at = frame.filename.rindex(package) + 1
                return f"{frame.filename[at:]}:{frame.lineno}"
    return ""


_DISTRIBUTED = []


def _set_default_torch_dtype():
    try:
        from vllm.utils.torch_utils import set_default_torch_dtype
    except ImportError:     # vllm==0.11.0 model_executor/model_loader/utils.py:32
        from vllm.model_executor.model_loader.utils import set_default_torch_dtype
    return set_default_torch_dtype


def _initialize_model():
    """The release's initialize_model, called with the draft's model_config."""
    try:
        from vllm.model_executor.model_loader.utils import initialize_model
        return initialize_model
    except ImportError:     # vllm==0.8.5 model_executor/model_loader/loader.py:114
        from vllm.model_executor.model_loader.loader import _initialize_model
    import dataclasses

    def initialize_model(vllm_config, model_config, prefix=""):
        # vllm==0.8.5 spec_decode/spec_decode_worker.py: the draft worker's vllm_config is
        # the target's with the draft's model_config (its loader reads that one)
        return _initialize_model(vllm_config=dataclasses.replace(
            vllm_config, model_config=model_config), prefix=prefix)
    return initialize_model


def init_draft_on_meta(cfg):
    """The draft model's __init__ as the model loader runs it, on the meta device."""
    import torch
    from vllm.config import set_current_vllm_config
    from vllm.distributed import (
        ensure_model_parallel_initialized,
        init_distributed_environment,
    )
    from vllm.distributed.parallel_state import destroy_model_parallel

    initialize_model = _initialize_model()
    set_default_torch_dtype = _set_default_torch_dtype()
    draft = cfg.speculative_config.draft_model_config
    with set_current_vllm_config(cfg):
        if not _DISTRIBUTED:
            path = tempfile.mktemp(prefix="drafter-lint-dist-")
            init_distributed_environment(world_size=1, rank=0, local_rank=0,
                                         distributed_init_method=f"file://{path}",
                                         backend="gloo")
            _DISTRIBUTED.append(path)
        destroy_model_parallel()
        ensure_model_parallel_initialized(1, 1)
        with set_default_torch_dtype(draft.dtype), torch.device("meta"):
            head = _v1_eagle_head(cfg)
            if head is not None:
                model = head(model_config=draft, start_layer_id=cfg.model_config.get_num_layers(
                    cfg.parallel_config))
            else:
                model = initialize_model(vllm_config=cfg, model_config=draft,
                                         prefix="draft_model")
    return model


def _v1_eagle_head(cfg):
    """The class V1's EAGLE proposer builds itself where it does not go through the model
    registry (vllm==0.8.5 v1/spec_decode/eagle.py:214-236; 0.8.4 EAGLE only), else None."""
    method = getattr(cfg.speculative_config, "method", None)
    if method not in ("eagle", "eagle3"):
        return None
    try:
        from vllm.v1.spec_decode import eagle
    except ImportError:
        return None
    if not hasattr(eagle, "EagleLlamaForCausalLM"):     # vllm>=0.9.0: get_model
        return None
    import vllm.envs as envs

    if not envs.VLLM_USE_V1:        # V0's spec-decode worker: the registry's class
        return None
    return getattr(eagle, "EagleLlamaForCausalLM" if method == "eagle" else
                   "Eagle3LlamaForCausalLM", None)


# what the proposer shares from the target after loading, when the draft has none of its
# own (vllm==0.33.0 v1/spec_decode/llm_base_proposer.py:1418-1560): never "left at init"
SHARED = ("model.embed_tokens", "model.embedding", "lm_head")


def load_weights_on_meta(cfg, model) -> dict:
    """The release's own weight loading of the draft (`DefaultModelLoader.load_weights`:
    its file selection, the model's `load_weights` name mapping, the strict check of
    unquantized models) over meta tensors made from the safetensors headers. Raises what
    the release raises; returns what `Recorder.result` says the load left."""
    import torch
    from vllm.config import set_current_vllm_config
    from vllm.model_executor.model_loader import get_model_loader
    from vllm.model_executor.model_loader import weight_utils

    draft = cfg.speculative_config.draft_model_config
    if not safetensors_files(draft.model):
        return {"skipped": "no safetensors files"}
    recorder = Recorder()
    recorder.install(model, weight_utils.default_weight_loader)
    saved = weight_utils.safe_open
    weight_utils.safe_open = HeaderFile
    loader = get_model_loader(cfg.load_config)
    load_model_weights = model.load_weights
    model.load_weights = lambda weights: load_model_weights(recorder.wrap_iterator(weights))
    try:
        with set_current_vllm_config(cfg), torch.device("meta"):
            if hasattr(loader, "load_weights"):
                loader.load_weights(model, draft)
            else:           # releases before the split: load_model did this inline
                # (vllm==0.8.5 model_loader/loader.py:417 get_all_weights, public)
                weights = getattr(loader, "get_all_weights", None) or loader._get_all_weights
                model.load_weights(weights(draft, model))
    finally:
        weight_utils.safe_open = saved
        del model.load_weights
    return recorder.result(model, SHARED)


def _make_arg_parser():
    """vLLM's server argument parser, where each release keeps it: entrypoints/common/
    cli_args.py (0.33.0 on), entrypoints/launchers/cli_args.py (0.29.0-0.32.0),
    entrypoints/openai/cli_args.py (before)."""
    import importlib

    for module in ("vllm.entrypoints.common.cli_args", "vllm.entrypoints.launchers.cli_args",
                   "vllm.entrypoints.openai.cli_args"):
        try:
            return importlib.import_module(module).make_arg_parser
        except ModuleNotFoundError as exc:      # not this release's place; other errors rise
            if exc.name is None or not module.startswith(exc.name):
                raise
    raise ImportError("no make_arg_parser in vllm.entrypoints (common, launchers, openai)")


def engine_args_from(argv: list[str]):
    """EngineArgs parsed from the launch's server arguments by vLLM's own parser:
    `["serve", MODEL, ...]` (the CLI, whose parser takes the model as `model_tag`) or the
    api_server's `[--model MODEL, ...]`."""
    from vllm.engine.arg_utils import AsyncEngineArgs
    try:
        from vllm.utils.argparse_utils import FlexibleArgumentParser
    except ImportError:     # vllm==0.11.0 utils/__init__.py:1713
        from vllm.utils import FlexibleArgumentParser

    rest = argv[1:] if argv and argv[0] == "serve" else argv
    args = _make_arg_parser()(FlexibleArgumentParser(prog="vllm serve")).parse_args(rest)
    if getattr(args, "model_tag", None) is not None:
        args.model = args.model_tag       # as ServeSubcommand.cmd does
    return AsyncEngineArgs.from_cli_args(args)


def main() -> int:
    request = json.loads(sys.argv[1])
    started = time.monotonic()
    out = {"runtime": "vllm"}
    try:
        if os.environ.get("DRAFTER_LINT_EMULATE_GPU") == "h100":
            emulate_h100()
        import vllm
        from vllm.engine.arg_utils import AsyncEngineArgs  # noqa: F401
        out["version"] = vllm.__version__
    except Exception as exc:  # noqa: BLE001  (a runtime that does not import: no verdict)
        out.update(verdict="unavailable", message=f"{type(exc).__name__}: {message(exc)}")
        return write(request, out)
    stage = "arguments"
    try:
        engine_args = engine_args_from(request["argv"])
        stage = "config"
        cfg = engine_args.create_engine_config()
        spec = cfg.speculative_config
        if request.get("init") and spec is not None and spec.draft_model_config is not None:
            stage = "init"
            model = init_draft_on_meta(cfg)
            out["draft_class"] = type(model).__name__
            if request.get("weights"):
                stage = "weights"
                loading = time.monotonic()
                out["weights"] = load_weights_on_meta(cfg, model)
                out["weights"]["seconds"] = round(time.monotonic() - loading, 2)
        out["verdict"] = "accepted"
    except (SystemExit, Exception) as exc:  # noqa: BLE001  (every refusal is a verdict)
        out.update(refusal(stage, exc, message(exc), raised_at(exc)))
    out["seconds"] = round(time.monotonic() - started, 1)
    return write(request, out)


if __name__ == "__main__":
    sys.exit(main())
