"""Answer questions about one real vLLM release, one JSON line per request.

Runs inside the vLLM venv (see tools/vllm_env.py) with the release's source dir first on
PYTHONPATH.  Does not import vlint.  Requests on stdin, one per line:

    {"op": "parse", "entry": "serve" | "api_server", "argv": [...], "dests": [...]}
                                       (dests, optional: only these namespace values)
    {"op": "options", "entry": "serve" | "api_server"}   (every option string -> its dest)
    {"op": "module", "name": "vllm.entrypoints.api_server"}   (whether the module exists)
    {"op": "engine_config", "argv": [...]}
    {"op": "keywords", "callee": "LLM" | "EngineArgs" | "AsyncEngineArgs", "kwargs": {...},
     "engine_config": false}
    {"op": "ping"}

``keywords`` asks whether the release accepts a Python call's keyword arguments (values are JSON,
so a type object or a set cannot be passed); see ``keywords()`` below for exactly what is run.

Each answer is one JSON line on stdout.  vLLM's own logging is sent to stderr so that it cannot
corrupt the protocol.  Parsers are built once per process.
"""

from __future__ import annotations

import ast
import hashlib
import inspect
import json
import os
import sys
import textwrap
from pathlib import Path
from typing import Any

# vLLM logs to sys.stdout; keep the real stdout for answers and point fd 1 at stderr.
_PROTO = os.fdopen(os.dup(1), "w", buffering=1)
os.dup2(2, 1)
sys.stdout = sys.stderr

# The probe runs in the vLLM interpreter, where vlint is not installed: it imports confirm's
# parser module by its file's folder (which mypy, checking vlint.confirm, cannot see).
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "linter" / "vlint" / "confirm"))
import realparser  # type: ignore[import-not-found]  # noqa: E402

realparser.install_stubs()  # the release's stub list (tools/vllm_env.py), before vLLM loads

_PARSERS: dict[str, realparser.RealParser | Exception] = {}


def _parser(entry: str) -> realparser.RealParser:
    if entry not in _PARSERS:
        try:
            _PARSERS[entry] = realparser.build(entry)
        except Exception as exc:  # remembered: a release may lack an entry
            _PARSERS[entry] = exc
    got = _PARSERS[entry]
    if isinstance(got, Exception):
        raise RuntimeError(f"cannot build the {entry} parser: {type(got).__name__}: {got}")
    return got


# ------------------------------------------------------------------------------ op "keywords"
#
# EngineArgs / AsyncEngineArgs: ``cls(**kwargs)`` (the dataclass constructor and its
# ``__post_init__``), then, with ``engine_config``, ``create_engine_config(ENGINE_CONTEXT)`` -- the
# usage context ``LLMEngine.from_engine_args`` / ``AsyncLLM.from_engine_args`` default to.
#
# LLM: no LLM is constructed (that loads the model).  What ``LLM.__init__`` does with its keyword
# arguments before ``LLMEngine.from_engine_args`` is reproduced, as read in the 0.31.0, 0.32.0 and
# 0.33.0 sources of vllm/entrypoints/llm.py (identical there), in this order:
#
#   1. the keywords are bound to ``inspect.signature(LLM.__init__)`` with the defaults applied
#      (a missing ``model`` or a duplicate is a TypeError, as in the call itself);
#   2. ``disable_log_stats`` defaults to True in ``**kwargs``;
#   3. ``kv_transfer_config`` given as a dict becomes ``KVTransferConfig(**dict)``; a pydantic
#      ValidationError is re-raised as ValueError;
#   4. ``hf_overrides=None`` becomes ``{}``;
#   5. ``compilation_config`` (an int -> ``CompilationConfig(mode=CompilationMode(int))``),
#      ``structured_outputs_config``, ``profiler_config`` and ``attention_config``: None -> the
#      default config, a dict -> the config class built from the dict's *init fields only* (other
#      keys are dropped silently), anything else passed through;
#   6. ``data_parallel_size > 1`` without ``distributed_executor_backend="external_launcher"``
#      (and not on TPU) raises ValueError;
#   7. ``EngineArgs(...)`` is called with exactly the keywords of the release's own call: the
#      keyword list and each value expression are read from the release's source with ``ast`` and
#      evaluated over the reproduced locals (so ``offload_params or set()`` and the ``*_instance``
#      configs are the release's own expressions), plus ``**kwargs``; ``chat_template`` is the one
#      parameter not forwarded (LLM keeps it for ``load_chat_template``);
#   8. with ``engine_config``: ``create_engine_config(UsageContext.LLM_CLASS)``, as
#      ``LLMEngine.from_engine_args`` does.
#
# Not reproduced: a ``worker_cls`` given as a class (cloudpickled by LLM; JSON cannot carry a
# class), ``configure_logging_if_needed``/``log_non_default_args`` (logging only), building the
# engine and loading the model (everything after the VllmConfig), and
# ``load_chat_template(chat_template)`` (runs after the engine is built).  The reproduction is
# tied to the reviewed source: when ``LLM.__init__`` (up to ``self.llm_engine =``) hashes to
# something not in ``LLM_INIT_REVIEWED``, the op fails as a probe failure until it is re-read.

LLM_INIT_REVIEWED: dict[str, str] = {
    # sha256 of the dedented source of LLM.__init__ up to "self.llm_engine =": releases
    "3e78479b80276b049477175a349697e0fa777da8e7dd53d955b9ad204a9435c7": "0.31.0 0.32.0 0.33.0",
}
_CONFIG_ARGS = {
    "structured_outputs_config": ("StructuredOutputsConfig", "structured_outputs_instance"),
    "profiler_config": ("ProfilerConfig", "profiler_config_instance"),
    "attention_config": ("AttentionConfig", "attention_config_instance"),
}
_LLM_PLAN: dict[str, Any] = {}


def llm_plan() -> dict[str, Any]:
    """The forwarding of the release's ``LLM.__init__``, read from its source once."""
    if _LLM_PLAN:
        return _LLM_PLAN
    from vllm.entrypoints import llm as llm_module  # type: ignore[import-not-found]

    init = llm_module.LLM.__init__
    source = textwrap.dedent(inspect.getsource(init))
    head = source.split("self.llm_engine =", 1)[0]
    digest = hashlib.sha256(head.encode("utf-8")).hexdigest()
    call = next(
        (node for node in ast.walk(ast.parse(source))
         if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
         and node.func.id == "EngineArgs"),
        None,
    )
    if call is None:
        raise RuntimeError("LLM.__init__ does not call EngineArgs(...)")
    forwards = {kw.arg: kw.value for kw in call.keywords if kw.arg is not None}
    splat = [ast.unparse(kw.value) for kw in call.keywords if kw.arg is None]
    params = [p for p in inspect.signature(init).parameters.values()
              if p.name != "self" and p.kind is not inspect.Parameter.VAR_KEYWORD]
    _LLM_PLAN.update(
        module=llm_module,
        signature=inspect.signature(init),
        forwards=forwards,
        splat=splat,
        consumed=[p.name for p in params if p.name not in forwards],  # kept by LLM itself
        sha256=digest,
        reviewed=digest in LLM_INIT_REVIEWED,
    )
    return _LLM_PLAN


def llm_engine_args(kwargs: dict[str, Any]) -> Any:
    """Steps 1-7 above: the EngineArgs that ``LLM(**kwargs)`` would build."""
    plan = llm_plan()
    if not plan["reviewed"]:
        raise _NotReproduced(
            f"LLM.__init__ (sha256 {plan['sha256']}) is not the reviewed source; re-read "
            "vllm/entrypoints/llm.py and update LLM_INIT_REVIEWED in tests/differential/probe.py")
    if plan["splat"] != ["kwargs"]:
        raise _NotReproduced(f"EngineArgs(...) is passed **{plan['splat']}, not **kwargs")
    mod = plan["module"]
    bound = plan["signature"].bind(None, **kwargs)  # 1. TypeError as in the call
    bound.apply_defaults()
    local: dict[str, Any] = {k: v for k, v in bound.arguments.items() if k not in ("self",
                                                                                    "kwargs")}
    extra: dict[str, Any] = dict(bound.arguments.get("kwargs", {}))
    extra.setdefault("disable_log_stats", True)  # 2.
    if isinstance(extra.get("kv_transfer_config"), dict):  # 3.
        from pydantic import ValidationError
        from vllm.config.kv_transfer import KVTransferConfig  # type: ignore[import-not-found]

        try:
            extra["kv_transfer_config"] = KVTransferConfig(**extra["kv_transfer_config"])
        except ValidationError as e:
            raise ValueError(f"Invalid 'kv_transfer_config' provided: {e}") from e
    if local.get("hf_overrides") is None:  # 4.
        local["hf_overrides"] = {}

    def make_config(value: Any, cls: Any) -> Any:  # 5.
        if value is None:
            return cls()
        if isinstance(value, dict):
            return cls(**{k: v for k, v in value.items() if mod.is_init_field(cls, k)})
        return value

    compilation = local.get("compilation_config")
    if isinstance(compilation, int):
        local["compilation_config_instance"] = mod.CompilationConfig(
            mode=mod.CompilationMode(compilation))
    else:
        local["compilation_config_instance"] = make_config(compilation, mod.CompilationConfig)
    for name, (cls_name, target) in _CONFIG_ARGS.items():
        local[target] = make_config(local.get(name), getattr(mod, cls_name))
    dp_size = int(extra.get("data_parallel_size", 1))  # 6.
    backend = extra.get("distributed_executor_backend")
    if dp_size > 1 and backend != "external_launcher" and not mod.current_platform.is_tpu():
        raise ValueError(f"LLM(data_parallel_size={dp_size}) is not supported for single-"
                         "process usage and may hang.")
    forwarded: dict[str, Any] = {}  # 7.
    for name, expr in plan["forwards"].items():
        try:
            forwarded[name] = eval(  # the release's own expression over reproduced locals
                compile(ast.Expression(expr), "<llm.py>", "eval"), {"set": set}, local)
        except NameError as exc:
            raise _NotReproduced(f"EngineArgs({name}={ast.unparse(expr)}): {exc}") from exc
    return mod.EngineArgs(**forwarded, **extra)


class _NotReproduced(Exception):
    """The release does something with its keywords that this probe does not reproduce."""


def keywords(callee: str, kwargs: dict[str, Any], want_config: bool) -> dict[str, Any]:
    """Does ``callee(**kwargs)`` of this release accept the keywords (and, with ``want_config``,
    does the engine config build)?  ``model`` defaults to the stand-in model directory."""
    from vllm.engine import arg_utils  # type: ignore[import-not-found]
    from vllm.usage.usage_lib import UsageContext  # type: ignore[import-not-found]

    kwargs.setdefault("model", os.environ.get("VLINT_STANDIN_MODEL", ""))
    if callee not in ("LLM", "EngineArgs", "AsyncEngineArgs"):
        return {"ok": False, "error": f"unknown callee {callee!r}", "probe_failure": True}
    reply: dict[str, Any]
    with realparser.capture_output() as (handler, err, pywarn):
        stage = "construct"
        try:
            if callee == "LLM":
                args = llm_engine_args(kwargs)
                usage = UsageContext.LLM_CLASS
            else:
                args = getattr(arg_utils, callee)(**kwargs)
                usage = UsageContext.ENGINE_CONTEXT
            if want_config:
                stage = "engine_config"
                args.create_engine_config(usage_context=usage)
            reply = {"ok": True}
        except _NotReproduced as exc:
            reply = {"ok": False, "error": f"not reproduced: {exc}", "probe_failure": True}
        except Exception as exc:
            reply = {"ok": False, "stage": stage, "error": f"{type(exc).__name__}: {exc}"}
    reply["warnings"] = list(dict.fromkeys(handler.messages + pywarn))
    if callee == "LLM" and _LLM_PLAN:
        reply["llm_consumed"] = list(_LLM_PLAN["consumed"])
    return reply


def answer(request: dict[str, Any]) -> dict[str, Any]:
    op = request.get("op")
    if op == "ping":
        import vllm  # type: ignore[import-not-found]

        return {"ok": True, "vllm_file": vllm.__file__}
    argv = [str(a) for a in request.get("argv", [])]
    if op == "parse":
        parser = _parser(str(request.get("entry", "serve")))
        dests = request.get("dests")
        report: dict[str, Any]
        if dests is None:
            report = parser.parse(argv)
            return report
        ns, report = realparser.parse_namespace(parser, argv)
        if ns is not None:  # only the values asked for: rendering all of them is the slow part
            values = vars(ns)
            report["namespace"] = {k: realparser.to_json(values[k]) for k in dests if k in values}
        return report
    if op == "module":
        import importlib.util

        try:
            found = importlib.util.find_spec(str(request["name"])) is not None
        except ModuleNotFoundError:  # a parent package is missing
            found = False
        return {"ok": True, "found": found}
    if op == "options":
        leaf = _parser(str(request.get("entry", "serve"))).leaf
        return {"ok": True, "strings": {s: a.dest for s, a in leaf._option_string_actions.items()}}
    if op == "engine_config":
        model = os.environ.get("VLINT_STANDIN_MODEL", "")
        built: dict[str, Any] = realparser.engine_config(_parser("serve"), argv, model)
        return built
    if op == "keywords":
        return keywords(str(request.get("callee", "")), dict(request.get("kwargs") or {}),
                        bool(request.get("engine_config", False)))
    return {"ok": False, "error": f"unknown op {op!r}"}


def watch_parent() -> None:
    """Exit as soon as the process that started this probe is gone (an interrupted or killed
    test run), even while a request or the warm-up is still running: each probe holds about
    0.6 GB.  The parent's pid comes in VLINT_PROBE_PARENT (realvllm.spawn_tied)."""
    import threading
    import time

    parent = int(os.environ.get("VLINT_PROBE_PARENT") or 0)
    if not parent:
        return

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, name="vlint-parent-watch", daemon=True).start()


def main() -> int:
    watch_parent()
    # Build the parsers named in VLINT_PROBE_WARMUP (comma-separated entries) before the first
    # request, so that a probe started ahead of time is ready when asked.
    # "engine" builds the default engine config once (its first build imports most of vLLM).
    for entry in filter(None, os.environ.get("VLINT_PROBE_WARMUP", "").split(",")):
        try:
            if entry == "engine":
                keywords("EngineArgs", {}, True)
            else:
                _parser(entry)
        except Exception:
            pass  # a parser's failure is remembered in _PARSERS and reported when asked for
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            reply = answer(json.loads(line))
        except Exception as exc:
            reply = {"ok": False, "error": f"probe failure: {type(exc).__name__}: {exc}",
                     "probe_failure": True}
        _PROTO.write(realparser.json_line(reply) + "\n")
        _PROTO.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
