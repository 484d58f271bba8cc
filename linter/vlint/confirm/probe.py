"""vlint's probe: answers questions about the vLLM installed in the interpreter that runs it.

Run as a script (``python probe.py``) by ``vlint confirm`` in the user's vLLM interpreter; it never
imports vlint (only ``realparser``, which sits beside it and is stdlib-only until vLLM loads).
Requests on stdin, one JSON object a line; one JSON answer a line on stdout:

    {"op": "ping"}                      -> {"ok": true, "vllm_release": "0.32.0", ...}
    {"op": "parse", "argv": [...], "entry": "serve"}
        argv through the release's real serve parser, built by its own CLI entry point and
        parsed the top-level way (``vllm serve ARGV``): ok, error, warnings, namespace
    {"op": "engine_config", "argv": [...]}
        parse, then ``EngineArgs.from_cli_args(ns).create_engine_config()``.  A model that is not
        a local directory is replaced by a generated stand-in (a tiny Llama ``config.json`` whose
        ``max_position_embeddings`` fits the argv's ``--max-model-len``, a tokenizer built offline
        with ``tokenizers``); the answer then says ``"stand_in": true``: model-specific checks
        were not confirmed
    {"op": "keywords", "callee": "EngineArgs" | "AsyncEngineArgs", "kwargs": {...}}
        ``callee(**kwargs)`` then ``create_engine_config()``, with the same stand-in model

vLLM logs to stdout; the probe keeps the real stdout for answers and points fd 1 at stderr.

``vlint confirm`` runs it as ``python -I probe.py --path DIR ...`` from a fresh temporary folder:
isolated mode keeps the working directory, PYTHON* variables and the user's site-packages off
``sys.path``, and each ``--path`` (a folder vlint vetted: outside the linted checkout) is put
first on ``sys.path``, in order, the way PYTHONPATH would be.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from vlint.confirm import realparser
else:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import realparser

STANDIN_CONFIG: dict[str, Any] = {
    "architectures": ["LlamaForCausalLM"],
    "model_type": "llama",
    "hidden_size": 128,
    "intermediate_size": 256,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 4,
    "head_dim": 32,
    "vocab_size": 1024,
    "rms_norm_eps": 1e-5,
    "rope_theta": 10000.0,
    "hidden_act": "silu",
    "tie_word_embeddings": False,
    "torch_dtype": "float32",
    "bos_token_id": 1,
    "eos_token_id": 2,
    "pad_token_id": 0,
}
# The stand-in's context limit when the invocation sets no --max-model-len.
DEFAULT_CONTEXT = 4096

_PARSERS: dict[str, realparser.RealParser | Exception] = {}
_STANDINS: dict[int, str] = {}
_WORK: list[str] = []


def release() -> str:
    """The vLLM release this interpreter loads: ``vllm.__version__``, else its distribution's."""
    try:
        from vllm import (  # type: ignore[import-not-found]
            __version__ as version,  # lazy: vLLM loads on the first request
        )

        if isinstance(version, str) and version and version != "dev":
            return version.split("+")[0]
    except Exception:
        pass
    from importlib.metadata import version as dist_version  # lazy: only without __version__

    return dist_version("vllm").split("+")[0]


def _parser(entry: str) -> realparser.RealParser:
    if entry not in _PARSERS:
        try:
            _PARSERS[entry] = realparser.build(entry)
        except Exception as exc:
            _PARSERS[entry] = exc
    got = _PARSERS[entry]
    if isinstance(got, Exception):
        raise RuntimeError(f"cannot build the {entry} parser: {type(got).__name__}: {got}")
    return got


def _workdir() -> str:
    if not _WORK:
        _WORK.append(tempfile.mkdtemp(prefix="vlint-standin-"))
    return _WORK[0]


def standin_model(context: int) -> str:
    """A tiny Llama model directory (config and offline tokenizer; no weights) whose context limit
    is ``context`` tokens."""
    if context in _STANDINS:
        return _STANDINS[context]
    folder = Path(_workdir()) / f"ctx{context}"
    write_standin_model(folder, context)
    _STANDINS[context] = str(folder)
    return str(folder)


def write_standin_model(folder: Path, context: int) -> None:
    """Write the stand-in model into ``folder``; needs the ``tokenizers`` library (vLLM has it).
    ``tools/vllm_env.py`` uses it too, for the cached model of the tests."""
    from tokenizers import (  # type: ignore[import-not-found]
        Tokenizer, decoders, models, pre_tokenizers, trainers)  # lazy: only a stand-in model

    folder.mkdir(parents=True, exist_ok=True)
    config = dict(STANDIN_CONFIG, max_position_embeddings=context)
    (folder / "config.json").write_text(json.dumps(config, indent=2, sort_keys=True) + "\n")
    (folder / "generation_config.json").write_text(json.dumps({"bos_token_id": 1,
                                                               "eos_token_id": 2}))
    tok = Tokenizer(models.BPE(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=1024,
                                  special_tokens=["<pad>", "<s>", "</s>", "<unk>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator([f"the quick brown fox jumps over the lazy dog {i}"
                             for i in range(200)], trainer=trainer)
    tok.save(str(folder / "tokenizer.json"))
    (folder / "tokenizer_config.json").write_text(json.dumps({
        "tokenizer_class": "PreTrainedTokenizerFast", "bos_token": "<s>", "eos_token": "</s>",
        "unk_token": "<unk>", "pad_token": "<pad>", "model_max_length": context}))


def _context_of(value: Any) -> int:
    return value if isinstance(value, int) and value > 0 else DEFAULT_CONTEXT


def engine_config(argv: list[str], entry: str = "serve") -> dict[str, Any]:
    real = _parser(entry)
    ns, report = realparser.parse_namespace(real, argv)
    if ns is None:
        report["stage"] = "parse"
        return report
    namespace = {k: realparser.to_json(v) for k, v in sorted(vars(ns).items())
                 if k != "dispatch_function"}
    model = getattr(ns, "model_tag", None) or getattr(ns, "model", None)
    local = isinstance(model, str) and os.path.isdir(model)
    folder = model if local else standin_model(_context_of(getattr(ns, "max_model_len", None)))
    reply = realparser.engine_config(real, argv, str(folder))
    reply["namespace"] = namespace
    reply["stand_in"] = not local
    reply["max_model_len_given"] = getattr(ns, "max_model_len", None) is not None
    reply["parse_warnings"] = report.get("warnings", [])
    if not reply.get("ok"):
        reply["stage"] = "engine_config"
    return reply


def keywords(callee: str, kwargs: dict[str, Any]) -> dict[str, Any]:
    if callee not in ("EngineArgs", "AsyncEngineArgs"):
        return {"ok": False, "error": f"callee {callee!r} is not reproduced by this probe",
                "probe_failure": True}
    from vllm.engine import (  # type: ignore[import-not-found]
        arg_utils,  # lazy: vLLM, asked for keywords
    )

    model = kwargs.get("model")
    local = isinstance(model, str) and os.path.isdir(model)
    if not local:
        kwargs["model"] = standin_model(_context_of(kwargs.get("max_model_len")))
        kwargs.pop("tokenizer", None)
    reply: dict[str, Any]
    with realparser.capture_output() as (handler, _err, pywarn):
        stage = "construct"
        try:
            args = getattr(arg_utils, callee)(**kwargs)
            stage = "engine_config"
            args.create_engine_config()
            reply = {"ok": True}
        except Exception as exc:
            reply = {"ok": False, "stage": stage, "error": f"{type(exc).__name__}: {exc}"}
    reply["warnings"] = list(dict.fromkeys(handler.messages + pywarn))
    reply["stand_in"] = not local
    reply["max_model_len_given"] = kwargs.get("max_model_len") is not None
    return reply


def answer(request: dict[str, Any]) -> dict[str, Any]:
    op = request.get("op")
    if op == "ping":
        import vllm  # lazy: the first ping loads vLLM (slow), after the probe has started

        return {"ok": True, "vllm_release": release(), "vllm_file": vllm.__file__}
    argv = [str(a) for a in request.get("argv", [])]
    if op == "parse":
        reply = realparser.parse(_parser(str(request.get("entry", "serve"))), argv)
        reply.setdefault("stage", "parse")
        return reply
    if op == "engine_config":
        return engine_config(argv, str(request.get("entry", "serve")))
    if op == "keywords":
        return keywords(str(request.get("callee", "")), dict(request.get("kwargs") or {}))
    return {"ok": False, "error": f"unknown op {op!r}", "probe_failure": True}


def import_paths(argv: list[str]) -> list[str]:
    """The folders of ``--path DIR`` arguments, in order."""
    paths = []
    for index, arg in enumerate(argv):
        if arg == "--path" and index + 1 < len(argv):
            paths.append(argv[index + 1])
    return paths


def main(argv: list[str] | None = None) -> int:
    sys.path[0:0] = import_paths(sys.argv[1:] if argv is None else argv)
    proto = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    try:
        for line in sys.stdin:
            if not line.strip():
                continue
            try:
                reply = answer(json.loads(line))
            except Exception as exc:
                reply = {"ok": False, "error": f"probe failure: {type(exc).__name__}: {exc}",
                         "probe_failure": True}
            proto.write(realparser.json_line(reply) + "\n")
            proto.flush()
    finally:
        import shutil  # lazy: only when the probe ends

        for folder in _WORK:
            shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
