"""Run inside a Python that has torch and pydantic (tools/grammar.py --python): import one
unpacked release's own argument-parser construction, with the modules this Python lacks
(compiled kernels, GPU libraries) stood in by stubs, build its server parser and print
its options as JSON. The release's parser is executed, not re-implemented.

    python tools/grammar_probe.py vllm|sglang FOLDER
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import importlib.abc
import importlib.machinery
import json
import logging
import os
import sys
import tempfile
import types
import warnings


class _StubMeta(type):
    def __new__(mcs, name, bases, namespace, **kwargs):
        return super().__new__(mcs, name, bases, namespace)

    def __init__(cls, name, bases, namespace, **kwargs):
        super().__init__(name, bases, namespace)

    def __getattr__(cls, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return _stub_class(name)

    def __getitem__(cls, item):
        return cls

    def __iter__(cls):
        return iter(())

    def __len__(cls):
        return 0

    def __bool__(cls):
        return False


class _StubBase(metaclass=_StubMeta):
    def __init_subclass__(cls, **kwargs):
        pass

    @classmethod
    def __get_pydantic_core_schema__(cls, source, handler):
        from pydantic_core import core_schema
        return core_schema.any_schema()

    def __new__(cls, *args, **kwargs):
        if len(args) == 1 and callable(args[0]) and not kwargs:
            return args[0]             # used as a decorator: the function itself
        return object.__new__(cls)

    def __init__(self, *args, **kwargs):
        pass

    def __call__(self, *args, **kwargs):
        # a stub's result has nothing: code that probes a device through one falls back
        return args[0] if len(args) == 1 and callable(args[0]) else _Opaque()

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return _stub_class(name)()

    def __bool__(self):
        return False

    def __iter__(self):
        return iter(())


class _Opaque:
    pass


def _stub_class(name: str):
    return _StubMeta(str(name), (_StubBase,), {})


class _StubModule(types.ModuleType):
    __path__: list = []

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return _stub_class(name)


# hardware probes: a stub would make every accelerator look present
HARDWARE = tuple({"libtpu", "habana_frameworks", "transformers_neuronx", "torch_neuronx",
                      "neuronx_distributed", "intel_extension_for_pytorch", "amdsmi",
                      "pynvml", "tpu_info", "tpu_commons", "torch_xla", "vllm_hpu_extension",
                      "oneccl_bindings_for_pytorch", "torch_npu", "vllm_ascend", "vllm_tpu",
                      "tpu_inference", "habana_frameworks.torch", "vllm_gaudi", "ixformer",
                   "neuronx", "nki", "torch_neuron", "habana", "ipex", "xpu", "mindie", "npu"})


class _NoDriver(_StubModule):
    """triton's `runtime.driver` where no GPU driver is loaded: `active` raises as real
    triton does on such a machine, so a release's device probe (SGLang 0.5.7+
    layers/attention/fla/utils.py `get_available_device`) takes its own CPU fallback
    instead of reading a stub as a device name."""

    def __getattr__(self, name):
        if name == "active":
            raise RuntimeError("0 active drivers ([]). There should only be one.")
        return super().__getattr__(name)


def _driverless(module: types.ModuleType) -> None:
    if module.__name__ == "triton":
        module.runtime = _StubModule("triton.runtime")
        module.runtime.__path__ = []
    runtime = getattr(module, "runtime", None) if module.__name__ == "triton" else module
    if module.__name__ in ("triton", "triton.runtime"):
        runtime.driver = _NoDriver("triton.runtime.driver")


class _Stubs(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Last on sys.meta_path: any module no other finder has is a stub."""
    made: list = []
    root = ""

    def find_spec(self, fullname, path=None, target=None):
        if fullname.startswith(HARDWARE):
            return None
        if isinstance(sys.modules.get(fullname.split(".")[0]), _StubModule):
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        frame = sys._getframe(1)
        while frame is not None and (frame.f_code.co_filename.startswith("<frozen")
                                     or frame.f_code.co_filename == importlib.__file__):
            frame = frame.f_back
        if frame is None or not frame.f_code.co_filename.startswith(self.root):
            return None             # only the release's own imports are stood in
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec):
        kind = _NoDriver if spec.name == "triton.runtime.driver" else _StubModule
        module = kind(spec.name)
        module.__path__ = []
        module.__all__ = []
        _driverless(module)
        self.made.append(spec.name)
        return module

    def exec_module(self, module):
        pass


def _action(action: argparse.Action, where: dict) -> dict:
    nargs = action.nargs
    if nargs is None:
        takes = "one"
    elif nargs == 0:
        takes = "none"
    else:
        takes = str(nargs)          # "?", "*", "+", "N", argparse.REMAINDER
    choices = action.choices
    if choices is not None:
        try:
            items = list(choices)
        except TypeError:
            items = None
        if items is not None and all(isinstance(c, (str, int, float, bool)) for c in items):
            choices = [c for c in items]
        else:
            choices = None
    return {"options": list(action.option_strings), "takes": takes, "choices": choices,
            "action": type(action).__name__, "dest": action.dest,
            "type": getattr(action.type, "__name__", None) if action.type else None,
            "at": where.get(id(action))}


def _recorder(root: str, skip: tuple):
    """Hook argparse's add_argument to note the release's file:line that added each."""
    where: dict = {}
    original = argparse._ActionsContainer.add_argument

    def add_argument(self, *args, **kwargs):
        action = original(self, *args, **kwargs)
        frame = sys._getframe(1)
        while frame is not None:
            name = frame.f_code.co_filename
            if name.startswith(root) and not name.endswith(skip):
                where[id(action)] = f"{os.path.relpath(name, root)}:{frame.f_lineno}"
                break
            frame = frame.f_back
        return action

    argparse._ActionsContainer.add_argument = add_argument
    return where


def _find(root: str, package: str, needle: str, prefer: tuple) -> str:
    """The module (dotted) under `package` whose text defines `needle`, preferring `prefer`."""
    found = []
    for folder, _, files in os.walk(os.path.join(root, package)):
        for name in files:
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                with open(path, encoding="utf-8", errors="replace") as handle:
                    if needle in handle.read():
                        found.append(os.path.relpath(path, root)[:-3].replace(os.sep, "."))
    found.sort(key=lambda m: (not any(m.endswith(p) for p in prefer), m))
    if not found:
        raise SystemExit(f"no {needle!r} under {package}")
    return found[0]


def vllm(root: str) -> dict:
    where = _recorder(root, ("/argparse_utils.py", "vllm/utils/__init__.py", "vllm/utils.py"))
    module = importlib.import_module(_find(root, "vllm/entrypoints", "def make_arg_parser(",
                                           ("openai.cli_args", "common.cli_args")))
    flexible = getattr(module, "FlexibleArgumentParser", None)
    if flexible is None:
        flexible = importlib.import_module("vllm.utils").FlexibleArgumentParser
    parser = module.make_arg_parser(flexible(prog="vllm serve"))
    out = {"module": module.__name__, "allow_abbrev": parser.allow_abbrev,
           "actions": [_action(a, where) for a in parser._actions if a.option_strings]}
    try:
        from vllm.config import SpeculativeConfig
        out["speculative_keys"] = sorted(f.name for f in dataclasses.fields(SpeculativeConfig))
    except Exception as exc:        # noqa: BLE001 - recorded, not fatal
        out["speculative_keys_error"] = repr(exc)[:200]
    return out


def sglang(root: str) -> dict:
    where = _recorder(root, ())
    module = importlib.import_module("sglang.srt.server_args")
    parser = argparse.ArgumentParser(prog="sglang serve")
    module.ServerArgs.add_cli_args(parser)
    return {"module": module.__name__, "allow_abbrev": parser.allow_abbrev,
            "actions": [_action(a, where) for a in parser._actions if a.option_strings]}


def _tolerant_registries() -> None:
    """A release registering a config transformers (newer than it) already has: keep
    going; the parser does not depend on it."""
    try:
        from transformers.models.auto import configuration_auto
    except ImportError:
        return
    mapping = type(configuration_auto.CONFIG_MAPPING)
    register = mapping.register

    def tolerant(self, key, value, exist_ok=False):
        return register(self, key, value, exist_ok=True)

    mapping.register = tolerant


def main() -> None:
    runtime, root = sys.argv[1], os.path.abspath(sys.argv[2])
    sys.path.insert(0, root)
    _Stubs.root = root
    # the distribution's metadata, as an installed CPU build would have it (vLLM picks
    # its platform from the version's `+cpu`)
    meta = tempfile.mkdtemp(prefix="grammar-probe-")
    version = os.path.basename(root).split("-", 1)[1]
    local = "+cpu" if runtime == "vllm" else ""
    info = os.path.join(meta, f"{runtime}-{version}.dist-info")
    os.mkdir(info)
    with open(os.path.join(info, "METADATA"), "w", encoding="utf-8") as handle:
        handle.write(f"Metadata-Version: 2.1\nName: {runtime}\nVersion: {version}{local}\n")
    sys.path.append(meta)
    sys.meta_path.append(_Stubs())
    os.environ.setdefault("VLLM_TARGET_DEVICE", "cpu")
    logging.disable(logging.CRITICAL)
    warnings.simplefilter("ignore")
    _tolerant_registries()
    out = {"vllm": vllm, "sglang": sglang}[runtime](root)
    out["stubbed"] = sorted({m.split(".")[0] for m in _Stubs.made})
    sys.stdout.write(json.dumps(out))


if __name__ == "__main__":
    main()
