"""Describe one vLLM release's CLI as JSON, by building and probing its real parsers.

Runs inside the vLLM venv with the release's sources first on ``PYTHONPATH`` (see
``rules/generate.py``, which starts it).  Prints one JSON object on stdout.  Never imports vlint.
"""

from __future__ import annotations

import argparse
import dataclasses
import dis
import functools
import inspect
import json
import os
import platform
import re
import sys
import tempfile
import traceback
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any

_PROTO = os.fdopen(os.dup(1), "w")
os.dup2(2, 1)
sys.stdout = sys.stderr

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "linter" / "vlint" / "confirm"))
import realparser  # noqa: E402
import server_auth  # noqa: E402  (beside this file: sys.path[0])
from realparser import RealParser, to_json  # noqa: E402

PROBE_INPUTS = (
    "8", "-1", "0", "16k", "16K", "16000", "1.5k", "1.5K", "1.5", "2m", "2M", "1g", "1G",
    "1t", "1T", "16kb", "k", "auto", "None", "none", "true", "false", "x", '{"a": 1}', "",
)

ACTION_NAMES = {
    "_StoreAction": "store",
    "_StoreTrueAction": "store_true",
    "_StoreFalseAction": "store_false",
    "_StoreConstAction": "store_const",
    "_AppendAction": "append",
    "_AppendConstAction": "append_const",
    "_CountAction": "count",
    "_HelpAction": "help",
    "_VersionAction": "version",
    "BooleanOptionalAction": "boolean_optional",
    "_ExtendAction": "extend",
}
ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
# Defaults larger than this (whole config objects) are left out; the type says how to parse.
MAX_DEFAULT_CHARS = 200


# ---------------------------------------------------------------------------------------------
# Type callables


def _cells(fn: Any) -> list[Any]:
    closure = getattr(fn, "__closure__", None) or ()
    out = []
    for cell in closure:
        try:
            out.append(cell.cell_contents)
        except ValueError:
            pass
    # Default arguments bind things too (e.g. ``def parse(val, cls=SomeConfig)``).
    out.extend(getattr(fn, "__defaults__", None) or ())
    return out


def _qualname(fn: Any) -> str:
    if isinstance(fn, functools.partial):
        return "partial(" + _qualname(fn.func) + ")"
    name = getattr(fn, "__qualname__", None) or type(fn).__qualname__
    return f"{getattr(fn, '__module__', '') or ''}.{name}".lstrip(".")


def _code_names(fn: Any) -> set[str]:
    """Global names a function's code, and the code of functions nested in it, refers to."""
    fn = getattr(fn, "__func__", fn)
    names: set[str] = set()
    stack = [getattr(fn, "__code__", None)]
    while stack:
        code = stack.pop()
        if code is not None:
            names.update(code.co_names)
            stack.extend(c for c in code.co_consts if hasattr(c, "co_names"))
    return names


def _wrapper_names(fn: Any) -> set[str]:
    """Names ``parse_type``/``optional_type``'s wrapper uses, following the module-level
    ``parse_type`` that ``_optional_type`` calls."""
    names = _code_names(fn)
    inner = getattr(fn, "__globals__", {}).get("parse_type")
    return names | _code_names(inner) if "parse_type" in names and inner else names


def _string_literals(fn: Any) -> list[str]:
    """Constant strings a function tests its argument's membership in (``x in ["0", "1"]``)."""
    code = getattr(getattr(fn, "__func__", fn), "__code__", None)
    found: set[str] = set()
    previous = None
    for instr in dis.get_instructions(code) if code is not None else ():
        if (instr.opname == "CONTAINS_OP" and previous is not None
                and previous.opname == "LOAD_CONST"
                and isinstance(previous.argval, (tuple, frozenset))):
            found.update(s for s in previous.argval if isinstance(s, str))
        previous = instr
    return sorted(found)


def describe_type(fn: Any) -> dict[str, Any]:
    """Map a type callable to a structural description (kind plus parameters)."""
    if fn is None:
        return {"kind": "none"}
    if isinstance(fn, functools.partial):
        inner = describe_type(fn.func)
        inner["partial_args"] = [to_json(a) for a in fn.args]
        return inner
    if fn is int:
        return {"kind": "int"}
    if fn is float:
        return {"kind": "float"}
    if fn is str:
        return {"kind": "str"}
    if fn is json.loads:
        return {"kind": "json"}
    if isinstance(fn, type) and issubclass(fn, typing.cast(type, __import__("enum").Enum)):
        return {"kind": "enum", "class": _qualname(fn)}
    name = getattr(fn, "__name__", "")
    qual = getattr(fn, "__qualname__", "")
    cells = _cells(fn)
    callables = [c for c in cells if callable(c) and not isinstance(c, type) or c in (int, float,
                                                                                         str)]
    if name in ("_optional_type", "_parse_type") and callables:
        inner = describe_type(callables[0])
        if name == "_optional_type":
            inner["optional"] = True
        inner["wrapped"] = True
        if inner["kind"] == "json" and "nullable_kvs" in _wrapper_names(fn):
            # 0.8.5-0.9.x: text that is not {...} goes to nullable_kvs (KEY=INT pairs).
            inner["non_object"] = "kvs"
        return inner
    if name == "human_readable_int":
        return {"kind": "human_int"}
    if name == "human_readable_int_or_auto":
        return {"kind": "human_int", "accepts": ["-1", "auto"]}
    if name == "union_dict_and_str":
        return {"kind": "json_or_str"}
    if name == "parse_dataclass":
        classes = [c for c in cells if isinstance(c, type)]
        spec: dict[str, Any] = {"kind": "config_json",
                                "config": classes[0].__name__ if classes else None}
        literals = _string_literals(getattr(classes[0], "from_cli", None)) if classes else []
        if literals:
            # e.g. 0.9.1 CompilationConfig.from_cli takes a bare level "0".."3" besides JSON.
            spec["accepts"] = literals
        return spec
    return {"kind": "opaque", "callable": _qualname(fn) if qual else repr(fn)}


def typespec_id(spec: dict[str, Any]) -> str:
    base = spec["kind"]
    if spec.get("config"):
        base += ":" + str(spec["config"])
    if spec.get("callable"):
        base += ":" + str(spec["callable"])
    if spec.get("non_object"):
        base += "+" + str(spec["non_object"])
    if spec.get("accepts"):
        base += "|" + "|".join(spec["accepts"])
    if spec.get("wrapped") and not spec.get("optional"):
        base = f"wrapped({base})"
    if spec.get("optional"):
        base += "?"
    return base


def run_probes(fn: Callable[[str], Any], spec: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for text in PROBE_INPUTS:
        try:
            value = fn(text)
            if spec["kind"] == "config_json" and value is not None:
                # A whole validated config object: only success is comparable.
                out[text] = {"ok": {"__config__": type(value).__name__}}
            else:
                out[text] = {"ok": to_json(value)}
        except Exception as exc:  # ArgumentTypeError, ValueError, TypeError, pydantic errors
            msg = str(exc).splitlines()[0] if str(exc) else ""
            out[text] = {"error": msg[:300], "exception": type(exc).__name__}
    return out


# ---------------------------------------------------------------------------------------------
# Parsers


def action_kind(action: argparse.Action) -> str:
    return ACTION_NAMES.get(type(action).__name__, type(action).__name__)


def json_default(value: Any) -> tuple[Any, bool]:
    if value is None or value is argparse.SUPPRESS:
        return None, False
    converted = to_json(value)
    text = json.dumps(converted, sort_keys=True)
    if "__repr__" in text or len(text) > MAX_DEFAULT_CHARS:
        return None, False
    return converted, True


def group_titles(parser: argparse.ArgumentParser) -> dict[int, str]:
    titles: dict[int, str] = {}
    for group in parser._action_groups:
        for action in group._group_actions:
            titles.setdefault(id(action), group.title or "")
    return titles


def deprecation_of(parser: argparse.ArgumentParser, action: argparse.Action,
                   real: RealParser) -> dict[str, Any] | None:
    marked = action in getattr(parser, "_deprecated", ()) or bool(
        getattr(action, "deprecated", False)
    )
    help_text = action.help if isinstance(action.help, str) else ""
    in_help = [s for s in SENTENCE_END.split(help_text) if "deprecat" in s.lower()]
    by_class = "deprecat" in type(action).__name__.lower()
    if not (marked or in_help or by_class):
        return None
    message = " ".join(in_help)
    warned = warn_for(real, action)
    if warned:
        message = message or warned
    return {"message": re.sub(r"\s+", " ", message)[:400] or "deprecated",
            "marked": marked or by_class, "warning": warned}


def sample_argv(action: argparse.Action) -> list[str]:
    flag = action.option_strings[0]
    if action.nargs == 0:
        return [flag]
    if action.choices:
        value = next((c for c in action.choices if c is not None), "x")
        return [flag, str(value)]
    kind = describe_type(action.type)["kind"]
    return [flag, {"int": "1", "float": "1.0", "human_int": "1", "json": "{}",
                   "config_json": "{}", "json_or_str": "x"}.get(kind, "x")]


def warn_for(real: RealParser, action: argparse.Action) -> str | None:
    argv = ["m", *sample_argv(action)] if real.prefix else sample_argv(action)
    result = real.parse(argv)
    hits = [w for w in result.get("warnings", []) if "deprecat" in w.lower()]
    return hits[0][:400] if hits else None


def negative_strings(action: argparse.Action, strings: list[str]) -> list[str] | None:
    """For value-less boolean actions, the option strings that store False."""
    if not isinstance(action, argparse.BooleanOptionalAction):
        return None
    declared = getattr(action, "negative_option_strings", None)
    if declared is not None:
        return sorted(declared)
    return sorted(s for s in strings if s.startswith("--no-"))


def describe_parser(real: RealParser, types: dict[str, Any]) -> dict[str, Any]:
    leaf = real.leaf
    titles = group_titles(leaf)
    positionals, options = [], []
    for action in leaf._actions:
        spec = describe_type(action.type)
        type_id = None
        if spec["kind"] != "none":
            type_id = typespec_id(spec)
            if spec["kind"] == "opaque":
                type_id += "@" + action.dest
            if type_id not in types:
                types[type_id] = {**spec, "probes": run_probes(action.type, spec)}
        if not action.option_strings:
            positionals.append({"dest": action.dest, "nargs": to_json(action.nargs),
                                "metavar": to_json(action.metavar), "type": type_id})
            continue
        default, known = json_default(action.default)
        # Every string the parser resolves to this action: vLLM hides some (0.33.0's
        # --no-enable-X) from action.option_strings but keeps them registered.
        registered = [s for s, a in leaf._option_string_actions.items() if a is action]
        strings = list(action.option_strings) + [
            s for s in registered if s not in action.option_strings
        ]
        options.append({
            "strings": strings,
            "hidden": [s for s in strings if s not in action.option_strings],
            "negative_strings": negative_strings(action, strings),
            "dest": action.dest,
            "action": action_kind(action),
            "nargs": to_json(action.nargs),
            "const": to_json(action.const),
            "type": type_id,
            "choices": [to_json(c) for c in action.choices] if action.choices else None,
            "default": default,
            "default_known": known,
            "required": bool(action.required),
            "deprecated": deprecation_of(leaf, action, real),
            "group": titles.get(id(action), ""),
        })
    options.sort(key=lambda o: o["strings"][0])
    return {
        "positionals": positionals,
        "options": options,
        "features": features(real, options),
        "parser": {
            "class": type(leaf).__name__,
            "allow_abbrev": leaf.allow_abbrev,
            "top_allow_abbrev": real.top.allow_abbrev,
            "prefix_chars": leaf.prefix_chars,
            "prog": leaf.prog,
            "entry": real.cli_target,
        },
    }


# ---------------------------------------------------------------------------------------------
# Features, detected by probing the real parser


def _find(options: list[dict[str, Any]], **want: Any) -> dict[str, Any] | None:
    return next((o for o in options if all(o.get(k) == v for k, v in want.items())), None)


def _has(options: list[dict[str, Any]], flag: str) -> bool:
    return any(flag in o["strings"] for o in options)


def features(real: RealParser, options: list[dict[str, Any]]) -> dict[str, Any]:
    lead = ["m"] if real.prefix else ["--model", "m"]

    def probe(argv: list[str], dest: str | None = None) -> dict[str, Any]:
        full = [*lead, *argv]
        got = real.parse(full)
        out: dict[str, Any] = {"argv": full, "ok": got["ok"]}
        if got["ok"]:
            if dest is not None:
                out["value"] = got["namespace"].get(dest)
            if got["warnings"]:
                out["warnings"] = got["warnings"]
        else:
            out["error"] = got["error"]
        return out

    found: dict[str, Any] = {}

    def check(name: str, argv: list[str], dest: str | None, expect: Any = None) -> None:
        result = probe(argv, dest)
        ok = result["ok"] and (expect is None or result.get("value") == expect)
        found[name] = {"supported": bool(ok), **result}

    check("plain", ["--max-num-seqs", "8"], "max_num_seqs", 8)
    check("equals_value", ["--max-num-seqs=8"], "max_num_seqs", 8)
    check("underscore_to_dash", ["--max_num_seqs", "8"], "max_num_seqs", 8)
    check("underscore_to_dash_equals", ["--max_num_seqs=8"], "max_num_seqs", 8)
    check("allow_abbrev", ["--max-num-seq", "8"], "max_num_seqs", 8)
    check("duplicate_last_wins", ["--max-num-seqs", "8", "--max-num-seqs", "9"],
          "max_num_seqs", 9)
    found["duplicate_warning"] = {
        "supported": bool(found["duplicate_last_wins"].get("warnings")),
        "warnings": found["duplicate_last_wins"].get("warnings", []),
    }
    cp = "--enable-chunked-prefill"
    check("equals_on_boolean_optional", [f"{cp}=false"], "enable_chunked_prefill")
    check("boolean_optional_no", ["--no-enable-chunked-prefill"], "enable_chunked_prefill", False)
    check("enable_disable_pairs", ["--disable-chunked-prefill"], "enable_chunked_prefill")
    store_true = _find(options, action="store_true")
    if store_true:
        flag = store_true["strings"][-1]
        check("equals_on_store_true", [f"{flag}=false"], store_true["dest"])
        found["equals_on_store_true"]["flag"] = flag
    # CompilationConfig's level field is `mode` from 0.12 and `level` before: the probes try
    # the newer name first and record the first key the release's config keeps.
    for name, key_argvs in (
        ("dotted_json", [("mode", ["--compilation-config.mode", "3"]),
                         ("level", ["--compilation-config.level", "3"])]),
        ("dotted_json_underscore_key", [("mode", ["--compilation_config.mode", "3"]),
                                        ("level", ["--compilation_config.level", "3"])]),
        ("dotted_json_equals", [("mode", ["--compilation-config.mode=3"]),
                                ("level", ["--compilation-config.level=3"])]),
        ("dotted_json_human_int", [("max_cudagraph_capture_size",
                                    ["--compilation-config.max_cudagraph_capture_size", "1k"])]),
        ("json_value", [("mode", ["--compilation-config", '{"mode": 3}']),
                        ("level", ["--compilation-config", '{"level": 3}'])]),
    ):
        for key, argv in key_argvs:
            check(name, argv, "compilation_config")
            value = found[name].pop("value", None)
            sub = value.get(key) if isinstance(value, dict) else None
            found[name]["value"] = {key: sub}
            found[name]["supported"] = found[name]["ok"] and sub in (3, 1000)
            if found[name]["supported"]:
                break
    olevel = next((o for o in options if "-O" in o["strings"] or
                   o["dest"] in ("optimization_level",)), None)
    odest = olevel["dest"] if olevel else "compilation_config"
    check("dash_O", ["-O3"], odest)
    check("dash_O_space", ["-O", "3"], odest)
    check("dash_O_equals", ["-O=3"], odest)
    if real.prefix:
        model_option = probe_raw(real, ["--model", "m"])
        found["model_option"] = {"supported": bool(model_option["ok"]), **model_option}
        found["served_model_name_without_model"] = probe_raw(
            real, ["--served-model-name", "x"])
    found["human_readable_int"] = probe(["--max-num-batched-tokens", "16k"],
                                        "max_num_batched_tokens")
    found["config_file"] = config_file_feature(real, options, lead)
    for name in ("--max-num-active-seqs", "--max-num-queued-reqs", "--max-num-scheduled-tokens",
                 "--enable-chunked-prefill", "--disable-chunked-prefill",
                 "--no-enable-chunked-prefill", "--max-num-batched-tokens"):
        found.setdefault("flags_present", {})[name] = _has(options, name)
    return found


def _mode(value: Any) -> Any:
    return value.get("mode") if isinstance(value, dict) else None


def probe_raw(real: RealParser, argv: list[str]) -> dict[str, Any]:
    got = real.parse(argv)
    out: dict[str, Any] = {"argv": argv, "ok": got["ok"]}
    if got["ok"]:
        out["value"] = got["namespace"].get("model_tag", got["namespace"].get("model"))
        out["warnings"] = got["warnings"]
    else:
        out["error"] = got["error"]
    return out


CONFIG_YAML = """\
max-num-seqs: 8
max_num_batched_tokens: 16k
enable-chunked-prefill: false
enforce-eager: true
compilation-config:
  mode: 3
"""
CONFIG_KEYS = ("max_num_seqs", "max_num_batched_tokens", "enable_chunked_prefill",
               "enforce_eager", "compilation_config")


def config_file_feature(real: RealParser, options: list[dict[str, Any]],
                        lead: list[str]) -> dict[str, Any]:
    if not _has(options, "--config"):
        return {"supported": False}
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "c.yaml")
        Path(path).write_text(CONFIG_YAML)
        results = {}
        for label, argv in (("separate", [*lead, "--config", path]),
                            ("equals", [*lead, f"--config={path}"])):
            got = real.parse(argv)
            if got["ok"]:
                ns = got["namespace"]
                value = {k: ns.get(k) for k in CONFIG_KEYS}
                value["compilation_config"] = {"mode": _mode(value["compilation_config"])}
                results[label] = {"ok": True, "values": value}
            else:
                results[label] = {"ok": False, "error": got["error"].replace(tmp, "<tmp>")}
    return {"supported": True, "yaml": CONFIG_YAML, **results}


# ---------------------------------------------------------------------------------------------
# Engine args, LLM, env vars


def describe_dataclass(cls: type) -> list[dict[str, Any]]:
    out = []
    for field in dataclasses.fields(cls):
        if field.default is not dataclasses.MISSING:
            default, known = json_default(field.default)
        elif field.default_factory is not dataclasses.MISSING:
            try:
                default, known = json_default(field.default_factory())
            except Exception:
                default, known = None, False
        else:
            default, known = None, False
        annotation = field.type if isinstance(field.type, str) else _annotation(field.type)
        out.append({"name": field.name, "default": default, "default_known": known,
                    "annotation": re.sub(r"\s+", " ", annotation)})
    return sorted(out, key=lambda f: f["name"])


def _annotation(tp: Any) -> str:
    text = getattr(tp, "__name__", None) if isinstance(tp, type) else None
    return text or repr(tp).replace("typing.", "")


def engine_args() -> dict[str, Any]:
    from vllm.engine import arg_utils  # type: ignore[import-not-found]

    out = {}
    for name in ("EngineArgs", "AsyncEngineArgs"):
        cls = getattr(arg_utils, name, None)
        if cls is not None:
            out[name] = describe_dataclass(cls)
    return out


def llm_params() -> dict[str, Any]:
    from vllm.entrypoints.llm import LLM  # type: ignore[import-not-found]

    sig = inspect.signature(LLM.__init__)
    params = [p for p in sig.parameters.values() if p.name != "self"]
    var_kw = next((p.name for p in params if p.kind is p.VAR_KEYWORD), None)
    forwarded = False
    if var_kw:
        source = inspect.getsource(LLM.__init__)
        forwarded = bool(re.search(r"EngineArgs\((?s:.*?)\*\*" + var_kw, source))
    return {
        "params": sorted(p.name for p in params if p.kind not in (p.VAR_KEYWORD,
                                                                  p.VAR_POSITIONAL)),
        "var_keyword": forwarded,
    }


def env_vars() -> list[str]:
    """Names in ``vllm/envs.py``'s table; empty for releases before that module (0.4.x)."""
    try:
        import vllm.envs as envs  # type: ignore[import-not-found]
    except ImportError:
        return []
    table = getattr(envs, "environment_variables", {})
    return sorted(table)


# ---------------------------------------------------------------------------------------------


def build_entry(entry: str, types: dict[str, Any]) -> dict[str, Any] | None:
    """The entry's description, or None when the release cannot build it (no ``vllm serve``
    before 0.5; an api_server module that no longer parses on its own; no demo server)."""
    try:
        real = realparser.build(entry)
    except Exception as exc:
        print(f"introspect: no {entry} parser: {type(exc).__name__}: {exc}", file=sys.stderr)
        return None
    return describe_parser(real, types)


def build_demo_server(types: dict[str, Any]) -> dict[str, Any] | None:
    """The demo server's parser; None where the release's own module raises while building it,
    before any argument is read (0.7.x passes pydantic-style ``ge=``/``le=`` to argparse's
    ``add_argument``: ``TypeError``, whatever the environment).  Any other failure (an import
    this runtime cannot satisfy) stops the generator: it would tell nothing about the release."""
    try:
        real = realparser.build("demo_server")
    except Exception as exc:
        module = os.path.join("vllm", "entrypoints", "api_server.py")
        frames = traceback.extract_tb(exc.__traceback__)[-3:]
        if isinstance(exc, ImportError) or not any(f.filename.endswith(module) for f in frames):
            raise
        print(f"introspect: the release's demo server fails before parsing: "
              f"{type(exc).__name__}: {exc}", file=sys.stderr)
        return None
    return describe_parser(real, types)


def ships(module: str) -> bool:
    """Whether the release's package has ``module`` as a source file of its own (a stand-in
    from ``realparser.install_stubs`` has no file)."""
    import importlib.util

    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return False
    origin = getattr(spec, "origin", None) if spec is not None else None
    return isinstance(origin, str) and origin.endswith(".py") and os.path.isfile(origin)


def main() -> int:
    realparser.install_stubs()  # before vLLM is first imported
    import vllm  # noqa: F401

    types: dict[str, Any] = {}
    serve = build_entry("serve", types)
    api_server = build_entry("api_server", types)
    if serve is None and api_server is None:
        raise SystemExit("introspect: neither the serve nor the api_server parser builds")
    # The demo server (`python -m vllm.entrypoints.api_server`): its parser where the release
    # ships the module (VL408 reads the module's presence, never the parser's).
    demo_shipped = ships(realparser.DEMO_SERVER_MODULE)
    demo_server = build_demo_server(types) if demo_shipped else None
    result = {
        "serve": serve,
        "api_server": api_server,
        "demo_server": demo_server,
        "modules": {realparser.DEMO_SERVER_MODULE: demo_shipped},
        "engine_args": engine_args(),
        "llm_params": llm_params(),
        "env_vars": env_vars(),
        "api_key_paths": server_auth.guarded_paths(Path(vllm.__file__).resolve().parent),
        "types": dict(sorted(types.items())),
        "runtime": {"python": platform.python_version()},
        # Modules given a stand-in (realparser.install_stubs), recorded in _generated.stubbed.
        "stubbed": realparser.stubbed_modules(),
    }
    text = json.dumps(result, sort_keys=True, default=repr)
    # Reprs of functions carry memory addresses; drop them so output is deterministic.
    _PROTO.write(ADDRESS.sub("", text) + "\n")
    _PROTO.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
