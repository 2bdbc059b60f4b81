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

import json
import os
import sys
import tempfile
import time
import traceback

from verdict import refusal, write  # beside this script (run as one, not imported)
from weights import HeaderFile, Recorder, safetensors_files


def emulate_h100() -> None:
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
    from sglang.srt.layers.moe.utils import draft_model_build_scope
    from sglang.srt.model_loader.loader import _initialize_model
    from sglang.srt.model_loader.utils import set_default_torch_dtype

    if not _DISTRIBUTED:
        path = tempfile.mktemp(prefix="drafter-lint-sgl-dist-")
        init_distributed_environment(backend="gloo", world_size=1, rank=0, local_rank=0,
                                     distributed_init_method=f"file://{path}")
        initialize_model_parallel()
        _DISTRIBUTED.append(path)
    if os.environ.get("DRAFTER_LINT_EMULATE_GPU") == "h100":
        cuda_module_flags()
    try:
        from sglang.srt.layers.dp_attention import initialize_dp_attention
        initialize_dp_attention(server_args=server_args)
    except Exception:  # noqa: BLE001  (only some models need it)
        pass
    with draft_model_build_scope(), set_default_torch_dtype(draft_config.dtype), \
            torch.device("meta"):
        model = _initialize_model(draft_config, LoadConfig(), quant_config=None)
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
    spawn ranks; 0.5.19-0.5.20 only the role)."""
    import sglang.srt.runtime_context as context

    if hasattr(context, "SpawnRanks"):
        context.publish(server_args, role="scheduler",
                        ranks=context.SpawnRanks(world_rank=0, dp_rank=None, gpu_id=0))
    else:
        context.publish(server_args, role="scheduler")


def resolve(server_args, out: dict, init: bool, weights: bool = False) -> str:
    """Run SGLang's resolution of `server_args`; returns the stage reached."""
    server_args.resolve_once()
    server_args.check_server_args()
    from sglang.srt.configs.model_config import ModelConfig
    from sglang.srt.model_loader.utils import get_model_architecture
    from sglang.srt.runtime_context import get_spec

    publish_scheduler(server_args)
    target = ModelConfig.from_server_args(server_args)
    spec = get_spec()
    out["resolved"] = {"algorithm": str(spec.speculative_algorithm),
                       "num_draft_tokens": spec.speculative_num_draft_tokens,
                       "target_context_len": target.context_len}
    if spec.speculative_draft_model_path is None:
        return "config"
    draft = ModelConfig.from_server_args(
        server_args, model_path=spec.speculative_draft_model_path,
        model_revision=spec.speculative_draft_model_revision, is_draft_model=True,
        context_length=target.context_len)
    out["resolved"]["draft_context_len"] = draft.context_len
    _, arch = get_model_architecture(draft)
    out["resolved"]["draft_architecture"] = arch
    if init:
        model = build_draft_on_meta(server_args, draft)
        out["resolved"].update(describe(model))
        if weights:
            out["weights"] = load_weights_on_meta(draft, model, out["resolved"]["algorithm"])
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
