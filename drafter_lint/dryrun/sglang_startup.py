"""SGLang's own start-up resolution for one launch line, run by SGLang's interpreter.

A standalone script (it imports SGLang, never drafter_lint): the gate runs it as
    INTERPRETER sglang_startup.py '{"argv": [...], "init": true, "out": FILE}'
with the launch line's environment and reads the JSON it writes to FILE: the verdict
("accepted", "refused" with the exception, message and raising sglang file:line, or
"unavailable"), the release and the seconds.

What runs is SGLang's own code: `prepare_server_args` (its argument parser),
`resolve_once()` and `check_server_args()` (the speculative hook included), the target's
and the draft's `ModelConfig` as the draft worker builds them (the target's context
length), the model registry lookup and, with "init", the draft class's `__init__` on the
meta device. No weights are read and no device memory is used. With
DRAFTER_LINT_EMULATE_GPU=h100 the platform is SGLang's CUDA platform with a 9.0 device
(for CPU-only hosts); code that calls torch.cuda at run time still fails there.
"""

from __future__ import annotations

import contextlib
import inspect
import json
import os
import sys
import tempfile
import time
import traceback

from verdict import refusal, write  # beside this script (run as one, not imported)
from weights import HeaderFile, Recorder, safetensors_files


H100_NAME = "NVIDIA H100 80GB HBM3"


def _no_device(*_args):
    raise RuntimeError("no CUDA device (the libcuda stub answers none)")


def emulate_h100() -> None:
    # releases whose modules import sgl_kernel unconditionally (sglang==0.5.9
    # mem_cache/memory_pool_host.py:31) need libcuda.so.1: setup.sh builds a stub that
    # answers "no device" into such a venv
    stub = os.path.join(sys.prefix, "lib", "oracle-libcuda", "libcuda.so.1")
    if os.path.exists(stub):
        import ctypes
        ctypes.CDLL(stub, mode=ctypes.RTLD_GLOBAL)
        # sgl_kernel imports here as on a CUDA host: modules take their CUDA branch at
        # import too (those before 0.5.6 import vLLM's layers otherwise, sglang==0.5.5
        # layers/activation.py:383-392)
        _KERNELS.append(True)
        # triton then needs an active CUDA driver at import (0.4.x autotunes kernels at
        # module level, sglang==0.4.10.post2 layers/quantization/fp8_kernel.py:1323-1326);
        # the stub's folder also holds the libcuda.so it links against
        os.environ.setdefault("TRITON_LIBCUDA_PATH", os.path.dirname(stub))
        try:
            from triton.backends.nvidia.driver import CudaDriver
            from triton.runtime import driver
            active = CudaDriver()
            # the stub has no device: asking its properties raises, as on a host without
            # one (the native call crashed the process: sglang==0.5.8
            # layers/attention/fla/utils.py:275-286 asks at import and catches the raise)
            active.utils.get_device_properties = _no_device
            driver.set_active(active)
        except Exception:  # noqa: BLE001  (no triton, or one that finds its own driver)
            pass
    try:
        from sglang.srt.runtime_context import override_platform  # noqa: F401
    except ImportError:         # before 0.5.19: no platform override to install
        return emulate_h100_before_override()
    import sglang.srt.platforms as platforms
    from sglang.srt.platforms.cuda import CudaSRTPlatform, DeviceCapability
    from sglang.srt.platforms.interface import SRTPlatform
    from sglang.srt.runtime_context import override_platform

    class H100(CudaSRTPlatform):
        def get_device_capability(self, device_id=0):
            return DeviceCapability(9, 0)

        def get_device_name(self, device_id=0):
            return "NVIDIA H100 80GB HBM3"

        def get_device_total_memory(self, device_id=0):
            return 80 << 30

        def get_available_memory(self, device_id=0):
            return (78 << 30, 80 << 30)

        def get_device_uuid(self, device_id=0):
            return "GPU-00000000"

    platform = H100()
    platforms._current_platform = platform
    facts = dict(
        is_cuda=True, is_hip=False, is_npu=False, is_xpu=False, is_musa=False, is_mps=False,
        is_sm90=True, is_sm100=False, is_sm100_or_sm110=False, is_sm110=False,
        is_sm120=False, is_blackwell=False, is_hopper_with_cuda_12_3=True, device_sm=90,
        device_capability=(9, 0))
    import sglang.srt.runtime_context as context

    known = set(getattr(context, "_PLATFORM_PROBES", facts)) | \
        set(getattr(context, "_PLATFORM_VALUES", ()))
    # older releases know fewer platform facts (0.5.21: no is_mps / is_sm110)
    override_platform(**{k: v for k, v in facts.items() if k in known}).install()
    for module in list(sys.modules.values()):
        bound = getattr(module, "__dict__", {}).get("current_platform")
        if isinstance(bound, SRTPlatform) and bound is not platform:
            module.current_platform = platform


def emulate_h100_before_override() -> None:
    """Releases before 0.5.19 decide "CUDA host" in their utils module, each call site
    asking it (or torch) again: `is_cuda()` is `torch.cuda.is_available() and
    torch.version.cuda` (sglang==0.5.2 srt/utils.py:118-123, ==0.5.18 srt/utils/common.py:
    149-157), read at import into module-level `_is_cuda` flags; capabilities come from
    `get_device_capability()` / `get_device_sm()` (==0.5.18 utils/common.py:615,968), which
    answer None/0 without a device, and the SM checks (`is_sm90_supported`, ...) ask
    `torch.cuda.get_device_capability()` after `is_cuda()` (==0.5.18 utils/common.py:252-
    310); the GPU memory default is `get_nvgpu_memory_capacity()` (nvidia-smi, ==0.5.18
    utils/common.py:655). Those answer as on an H100; every other torch.cuda call still
    needs a device. 0.5.14-0.5.18 also have a platform object (`current_platform`), set to
    the CUDA one with capability 9.0, as from 0.5.19.
    While a module's top level runs (an import) they answer as this host does, as the
    0.5.19+ shim leaves import-time flags: a module that imports CUDA kernels when
    `is_cuda()` (sglang==0.5.18 layers/quantization/fp8_utils.py:175) would fail here on
    a kernel a CUDA host has; `cuda_module_flags` sets the `_is_cuda` flags before init."""
    import torch

    import sglang.srt.utils as utils

    answers = dict(
        is_cuda=True, is_cuda_alike=True, get_device_capability=(9, 0), get_device_sm=90,
        get_nvgpu_memory_capacity=81559.0,          # MiB, as nvidia-smi reports
        get_device_name=H100_NAME)
    # 0.5.3 on: a package whose __init__ star-imports utils/common.py
    for module in (utils, sys.modules.get("sglang.srt.utils.common")):
        for name, answer in answers.items():
            if module is not None and hasattr(module, name):
                setattr(module, name, _at_call_time(getattr(module, name), answer))
    torch.cuda.get_device_capability = lambda device=None: (9, 0)
    torch.cuda.get_device_name = lambda device=None: H100_NAME
    try:
        import sglang.srt.platforms as platforms
        from sglang.srt.platforms.cuda import CudaSRTPlatform
        from sglang.srt.platforms.interface import SRTPlatform
    except ImportError:         # before 0.5.14: no platform objects
        return

    class H100(CudaSRTPlatform):
        def get_device_capability(self, device_id=0):
            from sglang.srt.platforms.cuda import DeviceCapability
            return DeviceCapability(9, 0)

        def get_device_name(self, device_id=0):
            return H100_NAME

        def get_device_total_memory(self, device_id=0):
            return 80 << 30

        def get_available_memory(self, device_id=0):
            return (78 << 30, 80 << 30)

    platform = H100()
    platforms._current_platform = platform
    for module in list(sys.modules.values()):
        bound = getattr(module, "__dict__", {}).get("current_platform")
        if isinstance(bound, SRTPlatform) and bound is not platform:
            module.current_platform = platform


_HOST_TRUTH = []     # non-empty: the probes answer as this host (the oracle's own set-up)
_KERNELS = []        # non-empty: sgl_kernel imports (a libcuda stub): CUDA at import too


def _at_call_time(original, answer):
    """`answer` when called from a function, `original()` from a module's top level."""
    def probe(*args, **kwargs):
        if _HOST_TRUTH:
            return original(*args, **kwargs)
        if _KERNELS:
            return answer
        frame = sys._getframe(1)
        while frame is not None:
            if frame.f_code.co_name == "<module>" and "/sglang/" in frame.f_code.co_filename:
                return original(*args, **kwargs)
            frame = frame.f_back
        return answer
    return probe


def cuda_module_flags() -> None:
    """Module-level `_is_cuda` flags computed at import on a CPU host, set as on CUDA."""
    for name, module in list(sys.modules.items()):
        if name.startswith("sglang") and module is not None and \
                getattr(module, "__dict__", {}).get("_is_cuda") is False:
            module._is_cuda = True


def raised_at(exc: BaseException) -> str:
    for frame in reversed(traceback.extract_tb(exc.__traceback__)):
        for package in ("/sglang/", "/transformers/"):
            if package in frame.filename:
                at = frame.filename.rindex(package) + 1
                return f"{frame.filename[at:]}:{frame.lineno}"
    return ""


_DISTRIBUTED = []


def build_draft_on_meta(server_args, draft_config):
    import torch
    from sglang.srt.configs.load_config import LoadConfig
    from sglang.srt.distributed.parallel_state import (
        init_distributed_environment,
        initialize_model_parallel,
    )
    from sglang.srt.model_loader.loader import _initialize_model
    from sglang.srt.model_loader.utils import set_default_torch_dtype
    try:
        from sglang.srt.layers.moe.utils import draft_model_build_scope
    except ImportError:         # before 0.5.18: no draft-specific MoE build scope
        draft_model_build_scope = contextlib.nullcontext

    if not _DISTRIBUTED:
        path = tempfile.mktemp(prefix="drafter-lint-sgl-dist-")
        _HOST_TRUTH.append(True)    # one CPU process group (before 0.5.19 it asks is_cuda)
        try:
            init_distributed_environment(backend="gloo", world_size=1, rank=0, local_rank=0,
                                         distributed_init_method=f"file://{path}")
            initialize_model_parallel()
        finally:
            _HOST_TRUTH.clear()
        _DISTRIBUTED.append(path)
    if os.environ.get("DRAFTER_LINT_EMULATE_GPU") == "h100":
        cuda_module_flags()
    try:
        from sglang.srt.layers.dp_attention import initialize_dp_attention
        accepts = inspect.signature(initialize_dp_attention).parameters
        if "enable_dp_attention" in accepts:
            # 0.4.x: the parallel sizes themselves (sglang==0.4.10.post2
            # model_executor/model_runner.py:565-572)
            initialize_dp_attention(
                enable_dp_attention=server_args.enable_dp_attention, tp_rank=0,
                tp_size=server_args.tp_size, dp_size=server_args.dp_size,
                moe_dense_tp_size=server_args.moe_dense_tp_size,
                pp_size=server_args.pp_size)
        elif "model_config" in accepts:
            # before 0.5.21 it reads the model's config too (sglang==0.5.18
            # layers/dp_attention.py:342-345)
            initialize_dp_attention(server_args=server_args, model_config=draft_config)
        else:
            initialize_dp_attention(server_args=server_args)
    except Exception:  # noqa: BLE001  (only some models need it)
        pass
    with draft_model_build_scope(), set_default_torch_dtype(draft_config.dtype), \
            torch.device("meta"):
        if "quant_config" in inspect.signature(_initialize_model).parameters:
            model = _initialize_model(draft_config, LoadConfig(), quant_config=None)
        else:   # sglang==0.5.0rc0 model_loader/loader.py:157: it reads the quantization
            model = _initialize_model(draft_config, LoadConfig())

    return model


def describe(model) -> dict:
    """What the draft's __init__ built, as JSON facts: its class and head."""
    out = {"draft_class": type(model).__name__}
    head = getattr(model, "lm_head", None)
    inner = getattr(model, "model", model)
    if head is not None and getattr(head, "weight", None) is not None:
        out["lm_head_shape"] = list(head.weight.shape)
        out["lm_head_is_embed_tokens"] = head is getattr(inner, "embed_tokens", None)
    logits = getattr(model, "logits_processor", None)
    if logits is not None and getattr(logits, "config", None) is not None:
        out["logits_vocab_size"] = getattr(logits.config, "vocab_size", None)
    return out


def shared_from_target(model, algorithm: str) -> tuple[str, ...]:
    """What the draft worker sets from the target after loading: the embedding always; the
    head too, except for an EAGLE-3 draft whose own __init__ decided to keep its head
    (`load_lm_head_from_target` False: it declares `draft_vocab_size`, sglang==0.5.23
    models/llama_eagle3.py:302-307, speculative/eagle_worker_v2.py:353-363)."""
    if "EAGLE3" in algorithm.upper() and \
            not getattr(model, "load_lm_head_from_target", True):
        return ("model.embed_tokens",)
    return ("model.embed_tokens", "lm_head")


def load_weights_on_meta(draft_config, model, algorithm: str) -> dict:
    """The release's own weight loading of the draft (`DefaultModelLoader._get_all_weights`:
    its file selection and name filter, then the model's `load_weights`) over meta tensors
    made from the safetensors headers. SGLang checks no parameter is left unfilled, so
    `Recorder` notes it (a random head: sglang#27908). Post-processing (quantization
    kernels) needs a device and is not run."""
    import safetensors
    import torch
    from sglang.srt.configs.load_config import LoadConfig
    from sglang.srt.model_loader.loader import DefaultModelLoader

    if not safetensors_files(draft_config.model_path):
        return {"skipped": "no safetensors files"}
    recorder = Recorder()
    try:
        from sglang.srt.model_loader.weight_utils import default_weight_loader
    except ImportError:
        default_weight_loader = None
    recorder.install(model, default_weight_loader)
    saved = safetensors.safe_open
    safetensors.safe_open = HeaderFile
    try:
        loader = DefaultModelLoader(LoadConfig())
        with torch.device("meta"):
            model.load_weights(recorder.wrap_iterator(
                loader._get_all_weights(draft_config, model)))
    finally:
        safetensors.safe_open = saved
    return recorder.result(model, shared_from_target(model, algorithm))


def publish_scheduler(server_args) -> None:
    """Publish the resolved arguments as the scheduler process does (0.5.21 on take its
    spawn ranks; 0.5.17-0.5.20 only the role). Before 0.5.19 the target's model runner
    also sets them process-wide, which model __init__ code reads (sglang==0.5.18
    model_executor/model_runner.py:321, ==0.5.5 :298); before 0.5.5 as a dict of some
    fields (==0.5.2 model_executor/model_runner.py:226)."""
    try:
        import sglang.srt.runtime_context as context
    except ImportError:         # before 0.5.14
        context = None
    if hasattr(context, "SpawnRanks"):
        context.publish(server_args, role="scheduler",
                        ranks=context.SpawnRanks(world_rank=0, dp_rank=None, gpu_id=0))
    elif hasattr(context, "publish"):
        context.publish(server_args, role="scheduler")
    if hasattr(context, "override_platform"):
        return
    import sglang.srt.server_args as arguments

    if hasattr(arguments, "set_global_server_args_for_scheduler"):
        arguments.set_global_server_args_for_scheduler(server_args)
        return
    from sglang.srt.managers import schedule_batch

    if hasattr(schedule_batch, "global_server_args_dict"):
        keys = getattr(schedule_batch, "GLOBAL_SERVER_ARGS_KEYS", ())
        schedule_batch.global_server_args_dict.update(
            {k: getattr(server_args, k) for k in keys if hasattr(server_args, k)})
        try:
            from sglang.srt.speculative.spec_info import SpeculativeAlgorithm
            schedule_batch.global_server_args_dict["speculative_algorithm"] = \
                SpeculativeAlgorithm.from_string(server_args.speculative_algorithm)
        except Exception:  # noqa: BLE001  (releases that keep no such entry)
            pass


def resolve_arguments(server_args) -> None:
    """The release's own argument resolution after construction: `resolve_once()` from
    0.5.19; before it `ServerArgs.__post_init__` ran the same pipeline when the object was
    made (sglang==0.5.18 server_args.py:3585), and launch_server calls
    `check_server_args()` next in every release."""
    if hasattr(server_args, "resolve_once"):
        server_args.resolve_once()
    server_args.check_server_args()


def speculative_settings(server_args):
    """The resolved speculative settings the draft worker reads: the published `spec` bag
    (0.5.17 on, sglang==0.5.18 managers/tp_worker.py:447-458), before it ServerArgs
    itself (==0.5.9 managers/tp_worker.py:312-323). Publishes the arguments first."""
    publish_scheduler(server_args)
    try:
        from sglang.srt.runtime_context import get_spec
    except ImportError:
        return server_args
    return get_spec()


def draft_model_config(server_args, spec, target_context_len: int):
    """The draft's ModelConfig as the draft worker builds it, with the target's context
    length: a `context_length` argument from 0.5.18 (managers/tp_worker.py:447-460);
    before it the EAGLE worker writes it into ServerArgs first (sglang==0.5.9
    speculative/eagle_worker.py:107, ==0.5.0rc0 :96)."""
    from sglang.srt.configs.model_config import ModelConfig

    if not hasattr(ModelConfig, "from_server_args"):       # before 0.4.7
        server_args.context_length = target_context_len
        return built_before_0_4_7(server_args, spec.speculative_draft_model_path)
    accepts = inspect.signature(ModelConfig.from_server_args).parameters
    kw = dict(model_path=spec.speculative_draft_model_path, is_draft_model=True)
    if "model_revision" in accepts:         # from 0.5.1
        kw["model_revision"] = spec.speculative_draft_model_revision
    if "context_length" in accepts:
        kw["context_length"] = target_context_len
    else:
        server_args.context_length = target_context_len
    return ModelConfig.from_server_args(server_args, **kw)


def built_before_0_4_7(server_args, model_path: str):
    """The ModelConfig a TpModelWorker builds before `ModelConfig.from_server_args` (0.4.7):
    its constructor with the server's arguments (sglang==0.4.6 managers/tp_worker.py:60-74;
    the EAGLE worker sets the target's context length first, speculative/eagle_worker.py:79),
    each keyword the release's constructor takes."""
    from sglang.srt.configs.model_config import ModelConfig

    takes = inspect.signature(ModelConfig.__init__).parameters
    kw = {name: getattr(server_args, attr) for name, attr in (
        ("trust_remote_code", "trust_remote_code"), ("revision", "revision"),
        ("context_length", "context_length"), ("model_override_args", "json_model_override_args"),
        ("is_embedding", "is_embedding"), ("enable_multimodal", "enable_multimodal"),
        ("dtype", "dtype"), ("quantization", "quantization"))
        if name in takes and hasattr(server_args, attr)}
    return ModelConfig(model_path, **kw)


def target_model_config(server_args):
    """The target's ModelConfig as the scheduler builds it."""
    from sglang.srt.configs.model_config import ModelConfig

    if hasattr(ModelConfig, "from_server_args"):
        return ModelConfig.from_server_args(server_args)
    return built_before_0_4_7(server_args, server_args.model_path)


def resolve(server_args, out: dict, init: bool, weights: bool = False) -> str:
    """Run SGLang's resolution of `server_args`; returns the stage reached."""
    resolve_arguments(server_args)
    from sglang.srt.configs.model_config import ModelConfig
    from sglang.srt.model_loader.utils import get_model_architecture

    spec = speculative_settings(server_args)
    target = target_model_config(server_args)
    out["resolved"] = {"algorithm": str(spec.speculative_algorithm),
                       "num_draft_tokens": spec.speculative_num_draft_tokens,
                       "target_context_len": target.context_len}
    if spec.speculative_draft_model_path is None:
        return "config"
    draft = draft_model_config(server_args, spec, target.context_len)
    out["resolved"]["draft_context_len"] = draft.context_len
    _, arch = get_model_architecture(draft)
    out["resolved"]["draft_architecture"] = arch
    if init:
        model = build_draft_on_meta(server_args, draft)
        out["resolved"].update(describe(model))
        if weights:
            loading = time.monotonic()
            out["weights"] = load_weights_on_meta(draft, model, out["resolved"]["algorithm"])
            out["weights"]["seconds"] = round(time.monotonic() - loading, 2)
            return "weights"
        return "init"
    return "config"


def main() -> int:
    request = json.loads(sys.argv[1])
    started = time.monotonic()
    out = {"runtime": "sglang"}
    try:
        if os.environ.get("DRAFTER_LINT_EMULATE_GPU") == "h100":
            emulate_h100()
        import sglang
        from sglang.srt.server_args import prepare_server_args
        out["version"] = sglang.__version__
    except Exception as exc:  # noqa: BLE001  (a runtime that does not import: no verdict)
        out.update(verdict="unavailable", message=f"{type(exc).__name__}: {exc}"[:500])
        return write(request, out)
    stage = "arguments"
    try:
        argv = list(request["argv"])
        if os.environ.get("DRAFTER_LINT_EMULATE_GPU") == "h100" and "--device" not in argv:
            argv += ["--device", "cuda"]    # no device to detect here: the one emulated
        server_args = prepare_server_args(argv)
        stage = "config"
        stage = resolve(server_args, out, bool(request.get("init")),
                        bool(request.get("weights")))
        out["verdict"] = "accepted"
    except (SystemExit, Exception) as exc:  # noqa: BLE001  (every refusal is a verdict)
        out.update(refusal(stage, exc, " ".join(str(exc).split()), raised_at(exc)))
    out["seconds"] = round(time.monotonic() - started, 1)
    return write(request, out)


if __name__ == "__main__":
    sys.exit(main())
