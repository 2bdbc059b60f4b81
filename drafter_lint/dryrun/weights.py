"""The weights layer of a dry run: a release's own loader fed tensors made from the
checkpoint's safetensors headers (name, dtype, shape) on the meta device. No tensor data is
read and nothing is allocated, so a 60 GB checkpoint loads as fast as a 6 MB one.

Runs in the runtime's interpreter beside vllm_startup.py / sglang_startup.py (it imports
torch, never drafter_lint). `HeaderFile` stands in for `safetensors.safe_open`; `Recorder`
wraps every parameter's `weight_loader` to note which tensor filled which parameter, so the
result does not depend on what a release's `load_weights` returns (some return nothing).
"""

from __future__ import annotations

import json
import os
import struct

# safetensors dtype codes -> torch dtype names (torch may lack the newest: skipped then)
DTYPES = {"F64": "float64", "F32": "float32", "F16": "float16", "BF16": "bfloat16",
          "I64": "int64", "I32": "int32", "I16": "int16", "I8": "int8", "U8": "uint8",
          "U16": "uint16", "U32": "uint32", "U64": "uint64", "BOOL": "bool",
          "F8_E4M3": "float8_e4m3fn", "F8_E5M2": "float8_e5m2", "F8_E8M0": "float8_e8m0fnu"}
MAX_HEADER = 100 << 20          # the safetensors format's own limit
# integer tensors this small are made as zeros on the CPU: loaders do arithmetic with index
# tensors (EAGLE-3's d2t/t2d) that the meta device cannot do; their values are never read
SMALL_INDEX = 1 << 22
# float-to-float copies every release makes when the model dtype differs from the stored one
CASTS = {"torch.float16", "torch.bfloat16", "torch.float32"}


class BadHeader(ValueError):
    pass


def header(path: str) -> dict[str, tuple[str, list[int]]]:
    """name -> (dtype code, shape) from a safetensors file's header, bounds-checked."""
    size = os.path.getsize(path)
    with open(path, "rb") as handle:
        head = handle.read(8)
        if len(head) < 8:
            raise BadHeader(f"{os.path.basename(path)}: shorter than a safetensors header")
        (length,) = struct.unpack("<Q", head)
        if length > MAX_HEADER or length > size - 8:
            raise BadHeader(f"{os.path.basename(path)}: header length {length} is beyond "
                            f"the file ({size} bytes)")
        parsed = json.loads(handle.read(length))
    if not isinstance(parsed, dict):
        raise BadHeader(f"{os.path.basename(path)}: the header is not a JSON object")
    out = {}
    for name, entry in parsed.items():
        if name == "__metadata__":
            continue
        if not isinstance(entry, dict) or not isinstance(entry.get("dtype"), str) or \
                not isinstance(entry.get("shape"), list) or \
                not all(isinstance(n, int) and 0 <= n < 1 << 40 for n in entry["shape"]):
            raise BadHeader(f"{os.path.basename(path)}: tensor {name!r} has no valid "
                            f"dtype and shape")
        out[name] = (entry["dtype"], entry["shape"])
    return out


def safetensors_files(folder: str) -> list[str]:
    """The checkpoint's *.safetensors files, sorted; only regular files inside `folder`."""
    real = os.path.realpath(folder)
    out = []
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        if name.endswith(".safetensors") and os.path.isfile(path) and \
                os.path.realpath(path).startswith(real + os.sep):
            out.append(path)
    return out


def make_tensor(dtype: str, shape: list[int]):
    import torch

    torch_dtype = getattr(torch, DTYPES.get(dtype, ""), None)
    if torch_dtype is None:
        raise BadHeader(f"dtype {dtype} has no torch dtype in this release's torch")
    numel = 1
    for n in shape:
        numel *= n
    if not torch_dtype.is_floating_point and torch_dtype != torch.bool and \
            numel <= SMALL_INDEX:
        return torch.zeros(shape, dtype=torch_dtype)
    return torch.empty(shape, dtype=torch_dtype, device="meta")


class _Slice:
    """What `safe_open(...).get_slice(name)` gives: shape, dtype and indexing."""

    def __init__(self, tensor):
        self._tensor = tensor

    def get_shape(self):
        return list(self._tensor.shape)

    def get_dtype(self):
        return next((code for code, name in DTYPES.items()
                     if name == str(self._tensor.dtype).removeprefix("torch.")), "")

    def __getitem__(self, index):
        return self._tensor[index]


class HeaderFile:
    """`safetensors.safe_open(path, framework="pt")` answered from the header alone."""

    def __init__(self, path, framework: str = "pt", device="cpu"):
        self._entries = header(os.fspath(path))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def keys(self):
        return list(self._entries)

    def offset_keys(self):
        return list(self._entries)

    def metadata(self):
        return {}

    def get_tensor(self, name: str):
        return make_tensor(*self._entries[name])

    def get_slice(self, name: str):
        return _Slice(self.get_tensor(name))


class Recorder:
    """Which tensor each parameter's loader was given, and what nothing took."""

    def __init__(self):
        self.current: str | None = None     # the tensor the checkpoint last yielded
        self.yielded: list[str] = []
        self._names: dict[int, tuple[str, object]] = {}   # id(tensor) -> (name, tensor)
        self.taken: dict[str, str] = {}     # tensor -> the first parameter it filled
        self.filled: dict[str, tuple[str | None, str, list[int]]] = {}
        self.dtypes: list[dict] = []        # stored dtype differs from the parameter's

    def wrap_iterator(self, weights):
        for name, tensor in weights:
            self.current = name
            self.yielded.append(name)
            self._names[id(tensor)] = (name, tensor)      # kept alive: ids stay unique
            yield name, tensor
        self.current = None

    def wrap_loader(self, name: str, param, loader):
        recorder = self

        def recording(param_arg, loaded, *args, **kwargs):
            tensor = recorder.tensor_name(loaded)
            if tensor is not None:
                recorder.taken.setdefault(tensor, name)
            recorder.filled.setdefault(name, (tensor, str(loaded.dtype).removeprefix(
                "torch."), list(loaded.shape)))
            wanted = getattr(param_arg, "dtype", None)
            if wanted is not None and loaded.dtype != wanted and \
                    not {str(wanted), str(loaded.dtype)} <= CASTS:
                recorder.dtypes.append({
                    "parameter": name, "parameter_dtype": str(wanted).removeprefix("torch."),
                    "tensor": tensor, "tensor_dtype": str(loaded.dtype).removeprefix("torch.")})
            return loader(param_arg, loaded, *args, **kwargs)

        return recording

    def tensor_name(self, loaded) -> str | None:
        """The checkpoint tensor a loader was handed: by identity (loaders that buffer or
        rename still pass the yielded object, or a view of it), else the last yielded."""
        for candidate in (loaded, getattr(loaded, "_base", None)):
            found = self._names.get(id(candidate))
            if found is not None and found[1] is candidate:
                return found[0]
        return self.current

    def install(self, model, default_loader) -> None:
        """Wrap every parameter's loader (a release's default one where it has none)."""
        for name, param in model.named_parameters():
            loader = getattr(param, "weight_loader", None) or default_loader
            wrapped = self.wrap_loader(name, param, loader)
            try:
                param.weight_loader = wrapped
            except AttributeError:          # vLLM's parameter classes keep it behind a property
                param._weight_loader = wrapped

    def result(self, model, shared=()) -> dict:
        """What the load left: parameters no tensor filled (those the release shares from
        the target after loading listed apart), tensors no loader took, dtype changes, and
        which parameter each tensor that was taken filled (`took`)."""
        unfilled = sorted(name for name, param in model.named_parameters()
                          if name not in self.filled and param.numel() > 0)
        later = [n for n in unfilled if any(n == s or n.startswith(s + ".") for s in shared)]
        return {"tensors": len(self.yielded),
                "unfilled": [n for n in unfilled if n not in later],
                "shared_from_target": later,
                "dropped": [n for n in self.yielded if n not in self.taken],
                "dtype_changes": self.dtypes,
                "took": {n: self.taken[n] for n in self.yielded if n in self.taken}}
