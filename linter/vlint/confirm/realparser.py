"""Build a vLLM release's real CLI parsers the way the release itself builds them.

Runs inside a vLLM interpreter (the cached venv with a release's sources first on ``PYTHONPATH``,
or a user's own).  Shared by ``vlint.confirm.probe``, ``rules/generator/introspect.py`` and
``tests/differential/probe.py``, which put this folder on ``sys.path`` and import it as the
top-level module ``realparser``: it imports neither vlint nor anything outside the standard library
until vLLM itself is loaded.

Rather than re-creating a release's call chain (which moved between files many times), the
release's own entry point is run -- the ``vllm`` console script, or ``python -m
vllm.entrypoints.openai.api_server`` -- with ``ArgumentParser.parse_args`` intercepted: the first
parser asked to parse is the one the CLI built, captured before anything is served.

Older releases import things at parser-build time that this runtime cannot load: vLLM's own
compiled extensions (``vllm._C``, ``vllm._moe_C``...: absent from a source tree) and third-party
packages too new or too old for that release.  ``install_stubs()`` (called by ``build()``) puts a
permissive stand-in module in place of each module named in ``VLINT_STUB_MODULES``
(comma-separated; a name covers its submodules; tools/vllm_env.py names only what a failed
build needed).  A third-party name is stubbed even if it imports (its finder runs first: such a
package may import and then raise); a ``vllm.*`` name only when nothing else can import it (its
finder runs last, so the release's own modules always win).  Unlisted compiled modules are left
absent on purpose: releases probe for them (``importlib.util.find_spec("vllm._core_C")``) and
fall back to pure-Python code, which a stand-in would defeat.  Nothing of a stand-in's runs
before ``parse_args`` is intercepted, so the parser is the release's own.
"""

from __future__ import annotations

import argparse
import dataclasses
import enum
import importlib
import importlib.abc
import importlib.machinery
import io
import json
import logging
import os
import runpy
import sys
import types
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager, redirect_stderr
from typing import Any

# Console-script targets of the ``vllm`` command across releases; the release's own packaging
# metadata (passed in VLINT_VLLM_CLI by tools/vllm_env.py) wins when present.
CLI_CANDIDATES = ("vllm.entrypoints.cli.main:main", "vllm.scripts:main")
API_SERVER_MODULE = "vllm.entrypoints.openai.api_server"
# vLLM's demo (non-OpenAI) server: its own small parser plus AsyncEngineArgs, while it existed.
DEMO_SERVER_MODULE = "vllm.entrypoints.api_server"


STUB_ENV = "VLINT_STUB_MODULES"


def stub_names() -> list[str]:
    """The modules named in ``VLINT_STUB_MODULES``."""
    raw = os.environ.get(STUB_ENV, "")
    return [n.strip() for n in raw.split(",") if n.strip()]


class _StubMeta(type):
    """Attributes of a stand-in class are stand-in classes (``ops.paged_attention``...)."""

    def __getattr__(cls, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return _stub_class(f"{cls.__qualname__}.{name}", cls.__module__)


class _Stub(metaclass=_StubMeta):
    """Anything: callable, subclassable, attribute-rich, iterable (empty), falsy."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return _Stub()

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return _stub_class(name, type(self).__module__)

    def __iter__(self) -> Iterator[Any]:
        return iter(())

    def __bool__(self) -> bool:
        return False


def _stub_class(name: str, module: str) -> type:
    return _StubMeta(name.rpartition(".")[2] or name, (_Stub,),
                     {"__module__": module, "__qualname__": name})


class StubModule(types.ModuleType):
    """A stand-in module: every public attribute is a stand-in class; it is a package."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        value = _stub_class(name, self.__name__)
        setattr(self, name, value)
        return value


class _StubLoader(importlib.abc.Loader):
    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        module = StubModule(spec.name)
        module.__path__ = []
        module.__all__ = []  # type: ignore[attr-defined]
        module.__vlint_stub__ = True  # type: ignore[attr-defined]
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        pass


class StubFinder(importlib.abc.MetaPathFinder):
    """Finds stand-ins for the listed modules (and their submodules)."""

    def __init__(self, names: list[str]) -> None:
        self.names = names
        self.stubbed: list[str] = []

    def wants(self, fullname: str) -> bool:
        return any(fullname == n or fullname.startswith(n + ".") for n in self.names)

    def find_spec(self, fullname: str, path: Any = None,
                  target: types.ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        if not self.wants(fullname):
            return None
        self.stubbed.append(fullname)
        return importlib.machinery.ModuleSpec(fullname, _StubLoader(), is_package=True)


_FINDERS: list[StubFinder] = []
_SHIMS: list[str] = []
SHIM_ENV = "VLINT_RUNTIME_SHIMS"
# An older release registers its own config/tokenizer/processor classes under model types that
# this runtime's transformers already knows ("'aimv2' is already used by a Transformers
# config"); with its own transformers the names were free, so the registration is let through.
REGISTER_SHIM = "transformers-register-exist-ok"
# An older release asks torch's C module for CPU features (``torch._C._cpu._is_avx512_supported``)
# that this runtime's torch offers only as ``torch.cpu._is_avx512_supported``: the same answer.
TORCH_CPU_SHIM = "torch-cpu-isa"
AUTO_CLASSES = ("AutoConfig", "AutoTokenizer", "AutoProcessor", "AutoImageProcessor",
                "AutoFeatureExtractor", "AutoVideoProcessor")


def install_stubs() -> list[StubFinder]:
    """Install the two stub finders once (see the module docstring), and the runtime shims
    named in ``VLINT_RUNTIME_SHIMS``; returns the finders."""
    if not _FINDERS:
        names = stub_names()
        _FINDERS.append(StubFinder([n for n in names if n.split(".")[0] != "vllm"]))
        _FINDERS.append(StubFinder([n for n in names if n.split(".")[0] == "vllm"]))
        sys.meta_path.insert(0, _FINDERS[0])
        sys.meta_path.append(_FINDERS[1])
        shims = [n.strip() for n in os.environ.get(SHIM_ENV, "").split(",") if n.strip()]
        if REGISTER_SHIM in shims:
            _register_exist_ok()
        if TORCH_CPU_SHIM in shims:
            _torch_cpu_probes()
    return _FINDERS


def _torch_cpu_probes() -> None:
    torch = importlib.import_module("torch")
    for name in dir(torch.cpu):
        if name.startswith("_is_") and name.endswith("_supported") and not hasattr(
                torch._C._cpu, name):
            setattr(torch._C._cpu, name, getattr(torch.cpu, name))
            if "shim:" + TORCH_CPU_SHIM not in _SHIMS:
                _SHIMS.append("shim:" + TORCH_CPU_SHIM)


def _register_exist_ok() -> None:
    import inspect  # lazy: only when transformers needs the shim

    transformers = importlib.import_module("transformers")
    for name in AUTO_CLASSES:
        try:  # a class whose backend is missing (torchvision) raises on any attribute
            cls = getattr(transformers, name, None)
            original = getattr(cls, "register", None)
        except ImportError:
            continue
        if original is None or "exist_ok" not in inspect.signature(original).parameters:
            continue

        def register(*args: Any, _original: Any = original, **kwargs: Any) -> Any:
            kwargs["exist_ok"] = True
            return _original(*args, **kwargs)

        setattr(cls, "register", staticmethod(register))
        if not _SHIMS:
            _SHIMS.append("shim:" + REGISTER_SHIM)


def stubbed_modules() -> list[str]:
    """Every module name that was given a stand-in in this process, and the shims applied."""
    return sorted({name for finder in _FINDERS for name in finder.stubbed} | set(_SHIMS))


class _Captured(BaseException):
    def __init__(self, parser: argparse.ArgumentParser) -> None:
        super().__init__()
        self.parser = parser


@contextmanager
def _intercept_parse_args() -> Iterator[None]:
    original = argparse.ArgumentParser.parse_args

    def capture(self: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> Any:
        raise _Captured(self)

    argparse.ArgumentParser.parse_args = capture  # type: ignore[method-assign]
    try:
        yield
    finally:
        argparse.ArgumentParser.parse_args = original  # type: ignore[method-assign]


@contextmanager
def _argv(argv: list[str]) -> Iterator[None]:
    saved = sys.argv
    sys.argv = argv
    try:
        yield
    finally:
        sys.argv = saved


def _resolve(target: str) -> Callable[[], object]:
    module, _, attr = target.partition(":")
    obj: Any = importlib.import_module(module)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj  # type: ignore[no-any-return]


def _capture(run: Callable[[], object]) -> argparse.ArgumentParser:
    try:
        with _intercept_parse_args():
            run()
    except _Captured as got:
        return got.parser
    raise RuntimeError("the entry point returned without parsing arguments")


def cli_targets() -> list[str]:
    env = os.environ.get("VLINT_VLLM_CLI")
    return ([env] if env else []) + [c for c in CLI_CANDIDATES if c != env]


@dataclasses.dataclass
class RealParser:
    """A captured top-level parser plus the argv prefix that selects the entry."""

    entry: str
    top: argparse.ArgumentParser
    prefix: list[str]
    cli_target: str

    @property
    def leaf(self) -> argparse.ArgumentParser:
        """The parser that holds the entry's own options (serve's subparser, or the top)."""
        if not self.prefix:
            return self.top
        for action in self.top._actions:
            if isinstance(action, argparse._SubParsersAction):
                return action.choices[self.prefix[0]]  # type: ignore[no-any-return]
        raise RuntimeError("no subcommands in the vllm parser")

    def parse(self, argv: list[str]) -> dict[str, Any]:
        return parse(self, argv)


def build(entry: str) -> RealParser:
    """Build the release's parser for ``serve`` (via the vllm CLI), ``api_server`` or
    ``demo_server`` (``python -m vllm.entrypoints.api_server``)."""
    install_stubs()
    if entry == "serve":
        errors = []
        first: BaseException | None = None
        for target in cli_targets():
            try:
                main = _resolve(target)
            except (ImportError, AttributeError) as exc:
                errors.append(f"{target}: {type(exc).__name__}: {exc}")
                first = first or exc
                continue
            with _argv(["vllm", "serve", "m"]), _quiet():
                top = _capture(main)
            return RealParser("serve", top, ["serve"], target)
        # Chained to the release's own target's failure, whose traceback tools/vllm_env.py reads.
        raise RuntimeError("no vllm CLI entry point: " + "; ".join(errors)) from first
    if entry == "api_server":
        with _argv([API_SERVER_MODULE, "--model", "m"]), _quiet():
            top = _capture(lambda: runpy.run_module(API_SERVER_MODULE, run_name="__main__"))
        return RealParser("api_server", top, [], API_SERVER_MODULE)
    if entry == "demo_server":
        with _argv([DEMO_SERVER_MODULE, "--model", "m"]), _quiet():
            top = _capture(lambda: runpy.run_module(DEMO_SERVER_MODULE, run_name="__main__"))
        return RealParser("demo_server", top, [], DEMO_SERVER_MODULE)
    raise ValueError(f"unknown entry {entry!r}")


@contextmanager
def _quiet() -> Iterator[None]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def _reset_warn_once() -> None:
    # vLLM's warning_once/info_once are lru-cached; a long-lived probe must warn every time.
    mod = sys.modules.get("vllm.logger")
    for value in vars(mod).values() if mod else ():
        clear = getattr(value, "cache_clear", None)
        if callable(clear):
            clear()


@contextmanager
def capture_output() -> Iterator[tuple[_Collect, io.StringIO, list[str]]]:
    """Collect vLLM's logged warnings, Python warnings and stderr text."""
    handler = _Collect()
    logger = logging.getLogger("vllm")
    logger.addHandler(handler)
    err = io.StringIO()
    pywarn: list[str] = []
    _reset_warn_once()
    try:
        with warnings.catch_warnings(record=True) as caught, redirect_stderr(err):
            warnings.simplefilter("always")
            yield handler, err, pywarn
            pywarn.extend(f"{w.category.__name__}: {w.message}" for w in caught)
    finally:
        logger.removeHandler(handler)


def argparse_error(stderr_text: str) -> str:
    for line in reversed(stderr_text.splitlines()):
        _, sep, message = line.partition(": error: ")
        if sep:
            return message.strip()
    return stderr_text.strip().splitlines()[-1] if stderr_text.strip() else "exit"


def parse_namespace(real: RealParser, argv: list[str]) -> tuple[argparse.Namespace | None,
                                                                 dict[str, Any]]:
    """Parse through the top-level parser; returns the namespace and a JSON-able report."""
    with capture_output() as (handler, err, pywarn):
        try:
            ns = real.top.parse_args([*real.prefix, *argv])
        except SystemExit as exc:
            text = err.getvalue()
            msg = argparse_error(text) if exc.code not in (0, None) else "exit 0"
            return None, {"ok": False, "error": msg, "exit_code": exc.code}
        except Exception as exc:  # vLLM's own rewrites raise ValueError, AssertionError...
            return None, {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
    warns = handler.messages + pywarn
    return ns, {"ok": True, "warnings": warns}


def parse(real: RealParser, argv: list[str]) -> dict[str, Any]:
    ns, report = parse_namespace(real, argv)
    if ns is not None:
        report["namespace"] = {
            k: to_json(v) for k, v in sorted(vars(ns).items()) if k != "dispatch_function"
        }
    return report


def to_json(value: Any) -> Any:
    """A JSON-safe rendering of a parsed value (unknown objects become their repr)."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if value == value and abs(value) != float("inf") else repr(value)
    if isinstance(value, enum.Enum):
        return to_json(value.value)
    if isinstance(value, (list, tuple, set, frozenset)):
        items = [to_json(v) for v in value]
        return sorted(items, key=repr) if isinstance(value, (set, frozenset)) else items
    if isinstance(value, dict):
        return {str(k): to_json(v) for k, v in value.items()}
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        try:
            return to_json(dump())
        except Exception:
            pass
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_json(getattr(value, f.name, None)) for f in dataclasses.fields(value)}
    return {"__repr__": repr(value)}


def engine_config(real: RealParser, argv: list[str], model_dir: str) -> dict[str, Any]:
    """Parse, then build the engine config the way serve does, with a stand-in local model."""
    ns, report = parse_namespace(real, argv)
    if ns is None:
        return report
    from vllm.engine.arg_utils import (  # type: ignore[import-not-found]
        EngineArgs,  # lazy: vLLM, asked for an engine configuration
    )

    if getattr(ns, "model_tag", None):
        ns.model = ns.model_tag
    # EngineArgs resolves the model path on construction, so swap in the stand-in first.
    for field in ("model", "tokenizer"):
        value = getattr(ns, field, None)
        if (field == "model" or value is not None) and not (
            isinstance(value, str) and os.path.isdir(value)
        ):
            setattr(ns, field, model_dir)
    with capture_output() as (handler, err, pywarn):
        try:
            config = EngineArgs.from_cli_args(ns).create_engine_config()
        except Exception as exc:
            return {"ok": False, "error": f"{type(exc).__name__}: {exc}",
                    "warnings": handler.messages + pywarn}
    sched = config.scheduler_config
    fields = (
        [f.name for f in dataclasses.fields(sched)] if dataclasses.is_dataclass(sched)
        else sorted(vars(sched))
    )
    scheduler = {}
    for name in fields:
        value = to_json(getattr(sched, name, None))
        if value is None or isinstance(value, (bool, int, float, str)):
            scheduler[name] = value
    model_cfg = config.model_config
    return {
        "ok": True,
        "scheduler": scheduler,
        "model": {"max_model_len": getattr(model_cfg, "max_model_len", None)},
        "warnings": handler.messages + pywarn,
    }


def json_line(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, default=repr)
