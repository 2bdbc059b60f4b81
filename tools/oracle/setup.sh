#!/usr/bin/env bash
# The oracle lane's runtimes on a CPU-only machine: every vLLM and SGLang release it records.
#   bash tools/oracle/setup.sh DIR [vllm|vllm==VERSION|sglang|sglang==VERSION|all]   (default: all)
# Makes DIR/vllm-<version> and DIR/sglang-<version>, one venv each (~5.5-6.5 GB: torch with
# its CUDA runtime wheels; no driver and no GPU needed; ~4-10 min each, built one at a time).
# Releases with the same pins can share one venv: `pip install --no-deps vllm==X` into it
# swaps the release in about 10 s (how the recorded ones were made).
# Keep DIR outside the repository. The pins come from each wheel's METADATA; the
# pure-python dependencies are the ones the start-up modules import (vllm.engine.arg_utils,
# sglang.srt.server_args, the model registries).
set -euo pipefail
DIR=${1:?usage: setup.sh DIR [vllm|vllm==VERSION|sglang|all]}
WHICH=${2:-all}
mkdir -p "$DIR"

# libcuda.so.1 answering "no device" (100, CUDA_ERROR_NO_DEVICE) to the driver calls the
# runtimes' CUDA extensions link: the usual few, and each extra symbol given
libcuda_stub() {
  local L=$1; shift; mkdir -p "$L"
  printf '%s\n' \
    'int cuInit(unsigned int f) { return 100; }' \
    'int cuDriverGetVersion(int *v) { if (v) *v = 0; return 100; }' \
    'int cuDeviceGetCount(int *c) { if (c) *c = 0; return 100; }' \
    'int cuGetProcAddress(const char *s, void **p, int v, unsigned long long f) { if (p) *p = 0; return 100; }' \
    'int cuGetProcAddress_v2(const char *s, void **p, int v, unsigned long long f, void *st) { if (p) *p = 0; return 100; }' \
    'int cuPointerGetAttribute(void *d, int a, unsigned long long p) { return 100; }' \
    'int cuTensorMapEncodeTiled(void) { return 100; }' > "$L/stub.c"
  local sym
  for sym in "$@"; do
    grep -q "int $sym(" "$L/stub.c" || echo "int $sym(void) { return 100; }" >> "$L/stub.c"
  done
  gcc -shared -fPIC -Wl,-soname,libcuda.so.1 -o "$L/libcuda.so.1" "$L/stub.c"
}

# per vLLM release: its torch, torchvision and transformers pins (METADATA Requires-Dist), and
# the compressed-tensors and xgrammar it pins (its quantization and guided-decoding modules
# import them at start-up). Releases before 0.19.1 allow only transformers 4.x: 0.10.2-0.19.1
# get the newest 4.x, 4.57.6 (0.11.0 registers Qwen3-VL, whose model types came with 4.57;
# 0.19.1 also allows 5.5.1+), older ones the 4.x of their time (recorded here, as the
# verdicts depend on it: a model type newer than that transformers is refused at start-up).
vllm_pins() {
  local NEW="compressed-tensors==0.17.0 xgrammar==0.2.8"
  case "$1" in
    0.33.0) echo "torch==2.14.0 torchvision==0.29.0 transformers>=5.16.1,<5.21.0 $NEW" ;;
    0.21.0|0.22.0|0.22.1|0.23.0|0.24.0|0.25.0|0.25.1|0.26.0)      # transformers of their time
      echo "torch==2.11.0 torchvision==0.26.0 transformers>=5.5.3,<5.10 $NEW" ;;
    0.27.0|0.27.1|0.28.0|0.29.0|0.30.0|0.31.0|0.32.0)
      echo "torch==2.13.0 torchvision==0.28.0 transformers>=5.16.1,<5.18 $NEW" ;;
    0.20.0|0.20.1|0.20.2)
      echo "torch==2.11.0 torchvision==0.26.0 transformers>=5.5.3,<5.10 compressed-tensors==0.15.0.1 xgrammar==0.1.33" ;;
    0.17.0|0.17.1|0.18.0|0.18.1|0.19.0|0.19.1)      # 0.19.1 also allows 5.5.1+
      echo "torch==2.10.0 torchvision==0.25.0 transformers==4.57.6 compressed-tensors==0.13.0 xgrammar==0.1.29" ;;
    0.14.0|0.14.1|0.15.0|0.15.1|0.16.0)
      echo "torch==2.9.1 torchvision==0.24.1 transformers==4.57.6 compressed-tensors==0.13.0 xgrammar==0.1.29" ;;
    0.11.1|0.11.2|0.12.0|0.13.0)
      echo "torch==2.9.0 torchvision==0.24.0 transformers==4.57.6 compressed-tensors==0.12.2 xgrammar==0.1.27" ;;
    0.10.2|0.11.0)
      echo "torch==2.8.0 torchvision==0.23.0 transformers==4.57.6 compressed-tensors==0.11.0 xgrammar==0.1.25" ;;
    0.10.0|0.10.1|0.10.1.1)
      echo "torch==2.7.1 torchvision==0.22.1 transformers==4.55.4 compressed-tensors==0.10.2 xgrammar==0.1.21" ;;
    0.9.0|0.9.0.1|0.9.1|0.9.2)
      echo "torch==2.7.0 torchvision==0.22.0 transformers==4.53.3 compressed-tensors==0.10.2 xgrammar==0.1.19" ;;
    0.8.0|0.8.1|0.8.2|0.8.3|0.8.4|0.8.5|0.8.5.post1)
      echo "torch==2.6.0 torchvision==0.21.0 transformers==4.51.3 compressed-tensors==0.9.3 xgrammar==0.1.18" ;;
    *) echo "setup.sh: no pins recorded for vllm==$1" >&2; exit 2 ;;
  esac
}

vllm_env() {
  local VERSION=${1:-0.33.0}
  local V="$DIR/vllm-$VERSION"
  read -r TORCH VISION TRANSFORMERS COMPRESSED XGRAMMAR <<< "$(vllm_pins "$VERSION")"
  python3 -m venv "$V"
  local P="$V/bin/pip"
  # torchvision is imported by vLLM's Qwen3.5/VL modules; the index only has CUDA builds of it,
  # so torch comes with its CUDA runtime wheels (torch.cuda.is_available() stays False).
  # this disk holds a CPU build of torch 2.13.0; --isolated takes the CUDA one from PyPI
  if [ "$TORCH" = torch==2.13.0 ]; then "$P" install -q --isolated "$TORCH" "$VISION"
  else "$P" install -q "$TORCH" "$VISION"; fi
  "$P" install -q --no-deps "vllm==$VERSION"
  if [ "${TRANSFORMERS#transformers==4.}" != "$TRANSFORMERS" ]; then
    # transformers 4.x: huggingface_hub, tokenizers and their peers of that time
    "$P" install -q numpy regex cachetools psutil sentencepiece requests tqdm blake3 py-cpuinfo \
        "$TRANSFORMERS" 'huggingface_hub<1.0' safetensors 'pydantic>=2.11' pyyaml msgspec frozendict \
        cloudpickle einops 'protobuf<6' cbor2 pyzmq aiohttp 'openai<2' pillow pybase64 uvloop \
        prometheus_client 'prometheus-fastapi-instrumentator<8' 'fastapi>=0.115,<0.120' \
        partial-json-parser setproctitle openai-harmony 'lark==1.2.2' \
        loguru gguf 'mistral_common<1.9' lark typing_extensions filelock importlib_metadata \
        tiktoken 'setuptools<80' six python-json-logger watchfiles depyf \
        lm-format-enforcer diskcache
  else
    # transformers before 5.10 (vLLM 0.20.x-0.26.x here) predate tokenizers 0.23
    local TOKENIZERS='tokenizers>=0.23.2'
    case "$VERSION" in 0.2[0-6].*) TOKENIZERS=tokenizers ;; esac
    "$P" install -q numpy regex cachetools psutil sentencepiece 'requests>=2.33.0' tqdm blake3 \
        py-cpuinfo "$TRANSFORMERS" 'huggingface_hub>=1.31.0' $TOKENIZERS \
        'safetensors>=0.6.2' 'pydantic>=2.12.0' pyyaml msgspec cloudpickle einops \
        'protobuf>=5.29.6,!=6.30.*,!=6.31.*,!=6.32.*,!=6.33.0.*,!=6.33.1.*,!=6.33.2.*,!=6.33.3.*,!=6.33.4.*' \
        cbor2 'pyzmq>=25.0.0' 'aiohttp>=3.14.4' 'oss-harmony>=0.0.11' 'openai>=2.25.0' 'pillow>=13.0.0' \
        pybase64 uvloop 'prometheus_client>=0.18.0' 'fastapi<0.137.0,>=0.133.0' partial-json-parser \
        'llguidance>=1.7.0,<1.8.0' loguru gguf
  fi
  "$P" install -q --no-deps "$XGRAMMAR" 'apache-tvm-ffi==0.1.11' "$COMPRESSED"
  # vLLM 0.19.x-0.20.x import flashinfer where an NVFP4 MoE checkpoint is built
  case "$VERSION" in
    0.19.*) "$P" install -q --no-deps 'flashinfer-python==0.6.6' nvidia-ml-py ;;
    0.20.*) "$P" install -q --no-deps 'flashinfer-python==0.6.8.post1' nvidia-ml-py ;;
  esac
  # vLLM 0.22.1 and 0.23.0 import humming's kernels at start-up (their own pins)
  case "$VERSION" in
    0.22.1) "$P" install -q 'humming-kernels==0.1.2' pyelftools tabulate nvidia-ml-py ;;
    0.23.0) "$P" install -q 'humming-kernels==0.1.4' ;;
  esac
  # vLLM's CUDA extension modules need libcuda.so.1 with a few driver symbols; this stub
  # answers "no device" to each (drafter_lint/dryrun/vllm_startup.py loads it first).
  libcuda_stub "$V/lib/oracle-libcuda"
  VLLM_TARGET_DEVICE=cpu "$V/bin/python" -c 'import vllm; from vllm.engine.arg_utils import EngineArgs; print("vllm", vllm.__version__, "ready")'
}

# per SGLang release: torch, torchvision, transformers, tokenizers (METADATA Requires-Dist)
sglang_pins() {
  case "$1" in
    0.5.22|0.5.23) echo "torch==2.14.1 torchvision==0.29.1 transformers==5.19.0 tokenizers==0.23.2" ;;
    0.5.18|0.5.19|0.5.20|0.5.21)
      echo "torch==2.13.0 torchvision==0.28.0 transformers==5.12.1 tokenizers==0.22.2" ;;
    # before 0.5.19 the oracle poses as a CUDA host through the release's utils module
    # (sglang_startup.py emulate_h100_before_override); swap releases inside a group with
    # `pip install --no-deps sglang==X "transformers==Y"` (its METADATA pin)
    0.5.15|0.5.15.post1|0.5.16|0.5.17)
      echo "torch==2.11.0 torchvision==0.26.0 transformers==5.12.1 tokenizers xgrammar==0.2.1" ;;
    0.5.13|0.5.13.post1|0.5.14)
      echo "torch==2.11.0 torchvision==0.26.0 transformers==5.8.1 tokenizers xgrammar==0.2.1" ;;
    0.5.11|0.5.12|0.5.12.post1)
      echo "torch==2.11.0 torchvision==0.26.0 transformers==5.6.0 tokenizers xgrammar==0.2.0" ;;
    0.5.10rc0|0.5.10|0.5.10.post1)
      echo "torch==2.9.1 torchvision==0.24.1 transformers==5.3.0 tokenizers xgrammar==0.1.32 kernel" ;;
    0.5.6.post1)                    # it alone pins transformers 5.0.0rc0
      echo "torch==2.9.1 torchvision==0.24.1 transformers==5.0.0rc0 tokenizers xgrammar==0.1.27 kernel" ;;
    0.5.6|0.5.6.post2|0.5.7|0.5.8|0.5.8.post1|0.5.9)
      echo "torch==2.9.1 torchvision==0.24.1 transformers==4.57.1 tokenizers xgrammar==0.1.27 kernel" ;;
    0.5.3.post2|0.5.3.post3|0.5.4*|0.5.5*)
      echo "torch==2.8.0 torchvision==0.23.0 transformers==4.57.1 tokenizers xgrammar==0.1.25 kernel" ;;
    0.5.2|0.5.2rc*|0.5.3rc0)        # pins in the `srt` extra before 0.5.3
      echo "torch==2.8.0 torchvision==0.23.0 transformers==4.56.1 tokenizers xgrammar==0.1.24 kernel" ;;
    0.5.0rc*|0.5.1*)
      echo "torch==2.8.0 torchvision==0.23.0 transformers==4.55.0 tokenizers xgrammar==0.1.22 kernel" ;;
    # 0.4.7-0.4.10 swap into 0.4.10.post2's venv with their transformers, sgl-kernel and
    # compressed-tensors==0.10.2 (newer ones import transformers.masking_utils, 4.53 on)
    0.4.7*|0.4.8*|0.4.9*|0.4.10*)
      echo "torch==2.7.1 torchvision==0.22.1 transformers==4.54.1 tokenizers xgrammar==0.1.22 kernel" ;;
    # 0.4.6 swaps into 0.4.6.post5's venv with sgl-kernel==0.1.0 (its 0.0.9.post2 is not on
    # the index) and cuda-python / cuda-bindings 12.8.0 (deep_gemm.py imports `cuda`)
    0.4.6*)
      echo "torch==2.6.0 torchvision==0.21.0 transformers==4.51.1 tokenizers xgrammar==0.1.19 kernel" ;;
    # 0.4.2-0.4.5: torch 2.5.1; 0.4.2-0.4.4 import vLLM's layers (their `srt` extra pins
    # vllm 0.6.4.post1-0.7.2), swapped in with `pip install --no-deps vllm==0.7.2`
    0.4.1*|0.4.2*|0.4.3*|0.4.4*|0.4.5*)
      echo "torch==2.5.1 torchvision==0.20.1 transformers==4.51.0 tokenizers xgrammar==0.1.17 kernel" ;;
    *) echo "setup.sh: no pins recorded for sglang==$1" >&2; exit 2 ;;
  esac
}

sglang_env() {
  local VERSION=${1:-0.5.23}
  local S="$DIR/sglang-$VERSION"
  read -r TORCH VISION TRANSFORMERS TOKENIZERS GRAMMAR KERNEL <<< "$(sglang_pins "$VERSION")"
  python3 -m venv "$S"
  local P="$S/bin/pip"
  if [ "$TORCH" = torch==2.13.0 ]; then "$P" install -q --isolated "$TORCH" "$VISION"
  else "$P" install -q "$TORCH" "$VISION"; fi
  "$P" install -q --no-deps "sglang==$VERSION"
  "$P" install -q numpy regex psutil 'sentencepiece==0.2.1' requests tqdm "$TRANSFORMERS" \
      "$TOKENIZERS" safetensors pydantic pyyaml msgspec einops 'pyzmq>=25.1.2' aiohttp pillow \
      pybase64 uvloop 'prometheus-client>=0.20.0' fastapi partial_json_parser orjson packaging \
      'python-dateutil<3' setproctitle scipy xxhash zstandard interegular distro easydict \
      python-multipart watchfiles 'uvicorn>=0.51' huggingface_hub tiktoken IPython dill loguru gguf \
      sniffio 'openai==2.8.0'
  "$P" install -q --no-deps 'apache-tvm-ffi==0.1.11' 'compressed-tensors==0.18.0'
  # 0.5.19-0.5.20 import xgrammar at start-up
  [ "$TORCH" != torch==2.13.0 ] || "$P" install -q --no-deps 'xgrammar==0.2.1'
  # before 0.5.18 too, at their own pin
  [ -z "${GRAMMAR:-}" ] || "$P" install -q --no-deps "$GRAMMAR"
  # up to 0.5.10 modules import sgl_kernel whatever the device (sglang==0.5.9
  # mem_cache/memory_pool_host.py:31): its METADATA pin (in the `srt` extra before 0.5.3),
  # and a libcuda.so.1 stub answering "no device" to every driver symbol its extensions
  # link (sglang_startup.emulate_h100 loads it)
  if [ "${KERNEL:-}" = kernel ]; then
    # (named sglang-kernel from 0.5.10)
    local K; K=$(grep -hE '^Requires-Dist: (sgl|sglang)-kernel==' "$S"/lib/python3*/site-packages/sglang-*.dist-info/METADATA \
                 | head -1 | sed 's/Requires-Dist: //; s/;.*//; s/ //g')
    # sgl-kernel before 0.1.0 is not on the index (SGLang 0.4.5, 0.4.6): the oldest that is
    "$P" install -q --no-deps "$K" || "$P" install -q --no-deps 'sgl-kernel==0.1.0' 
    # 0.5.10's DeepSeek and other MoE modules import flashinfer (and cutlass) when they take
    # their CUDA branch at import, as the oracle makes them: the release's own pin
    case "$VERSION" in 0.5.10*)
      local F; F=$(grep -hE '^Requires-Dist: flashinfer[-_]python==' "$S"/lib/python3*/site-packages/sglang-*.dist-info/METADATA \
                   | head -1 | sed 's/Requires-Dist: //; s/;.*//; s/ //g')
      "$P" install -q --no-deps "$F"; "$P" install -q nvidia-ml-py ninja nvidia-cutlass-dsl ;;
    esac
    # sglang.bench_serving (imported on start-up paths before 0.5.6) needs datasets;
    # transformers 4.x needs a huggingface_hub before 1.0
    "$P" install -q 'datasets<4'
    # transformers 5 a huggingface_hub from 1.0 (sglang==0.5.10's 5.3.0 imports its new API)
    case "$TRANSFORMERS" in
      transformers==4.*) "$P" install -q 'huggingface_hub>=0.34,<1.0' ;;
      transformers==5.*) "$P" install -q 'huggingface_hub>=1.0,<2' ;;
    esac
    # shellcheck disable=SC2046
    libcuda_stub "$S/lib/oracle-libcuda" $( (find "$S"/lib/python3*/site-packages/sgl_kernel \
        -name '*.so' -exec nm -D --undefined-only {} \; | awk '{print $2}' | sed 's/@.*//';
        grep -ohE '\bcu[A-Z][A-Za-z0-9_]*' "$S"/lib/python3*/site-packages/triton/backends/nvidia/driver.c) \
        | grep -E '^cu[A-Z]' | sort -u)
    # triton links its CUDA helper against libcuda.so (0.4.x: sglang_startup sets
    # TRITON_LIBCUDA_PATH to this folder)
    ln -sf libcuda.so.1 "$S/lib/oracle-libcuda/libcuda.so"
  fi
  case "$VERSION" in 0.4.*)
    # 0.4.x: layers/quantization/deep_gemm.py imports `cuda` (cuda-python's bindings,
    # which dlopen libnvrtc.so.12 by name: torch's copy is preloaded by sitecustomize);
    # 0.4.5's utils imports decord; compressed-tensors of the time (newer ones import
    # transformers.masking_utils, from 4.53)
    "$P" install -q --no-deps 'cuda-python==12.8.0' 'cuda-bindings==12.8.0' 'compressed-tensors==0.10.2'
    "$P" install -q decord
    printf '%s\n' '# the oracle: preload torch'"'"'s libnvrtc.so.12 for cuda-python (tools/oracle/setup.sh)' \
      'import ctypes, glob, os' \
      'for _lib in glob.glob(os.path.join(os.path.dirname(__file__), "nvidia", "cuda_nvrtc", "lib", "libnvrtc.so.12*")):' \
      '    ctypes.CDLL(_lib, mode=ctypes.RTLD_GLOBAL)' \
      '    break' > "$(echo "$S"/lib/python3*/site-packages)/sitecustomize.py" ;;
  esac
  case "$VERSION" in 0.4.1*|0.4.2*|0.4.3*|0.4.4*)
    # they import vLLM's layers: the vLLM their `srt` extra pins, and what it imports
    local VLLM=vllm==0.7.2; case "$VERSION" in 0.4.1*|0.4.2*) VLLM=vllm==0.6.4.post1 ;; esac
    "$P" install -q --no-deps "$VLLM"; "$P" install -q cloudpickle blake3 py-cpuinfo mistral_common ;;
  esac
  case "$VERSION" in 0.4.1*)
    # 0.4.1.postN import outlines (0.0.46, whose numpy 1.x needs a pyarrow before 17) and
    # outlines imports pyairports, whose PyPI release is empty: a one-list stand-in
    "$P" install -q 'outlines==0.0.46' 'pyarrow<17'
    local SP; SP=$(echo "$S"/lib/python3*/site-packages); mkdir -p "$SP/pyairports"
    : > "$SP/pyairports/__init__.py"; echo 'AIRPORT_LIST = []' > "$SP/pyairports/airports.py" ;;
  esac
  [ ! -f "$S/lib/oracle-libcuda/libcuda.so.1" ] || export LD_PRELOAD="$S/lib/oracle-libcuda/libcuda.so.1"
  "$S/bin/python" -c 'import sglang; from sglang.srt.server_args import ServerArgs; from sglang.srt.models.registry import ModelRegistry; print("sglang", sglang.__version__, len(ModelRegistry.models), "architectures, ready")'
}

case "$WHICH" in
  vllm) vllm_env 0.33.0 ;;
  vllm==*) vllm_env "${WHICH#vllm==}" ;;
  sglang) sglang_env 0.5.23 ;;
  sglang==*) sglang_env "${WHICH#sglang==}" ;;
  all) vllm_env 0.33.0; vllm_env 0.25.0; sglang_env ;;
  *) echo "setup.sh: the second argument is vllm, vllm==VERSION, sglang, sglang==VERSION or all" >&2
     exit 2 ;;
esac
