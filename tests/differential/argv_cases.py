"""Argv cases for the parser-agreement differential test (test_parser_agreement.py).

Three kinds of data live here:

* ``HAND_CASES``: hand-written argvs, one or more per parser behaviour in /work/shared/VLLM.md's
  list (abbreviations, underscores, ``=value``, boolean families, unit suffixes, choices, arity,
  negative numbers, ``--``, positionals, duplicates, ``-O``, dotted keys...).
* ``generated_cases``: per release and entry, from the catalog: every option string with a valid
  sample value (every choice, or one per type kind), an invalid value where the type can be
  checked, and the bare flag and ``=false`` for value-less flags.
* ``NOT_MODELLED``: cases whose behaviour vlint's normaliser does not model yet.  The test asserts
  that they still DISAGREE with real vLLM, so this list must shrink when support lands.

Every argv is written without the model; ``argv_for`` adds it the way each entry takes it
(``vllm serve m ...`` or ``api_server --model m ...``) unless the case says ``model=False``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from vlint.knowledge.catalog import OptionSpec, ParserSpec, Release

ENTRIES = ("serve", "api_server")


@dataclass(frozen=True)
class Case:
    name: str
    args: tuple[str, ...]
    model: bool = True
    entries: tuple[str, ...] = ENTRIES


def argv_for(case: Case, entry: str) -> list[str]:
    if not case.model:
        return list(case.args)
    lead = ["m"] if entry == "serve" else ["--model", "m"]
    return [*lead, *case.args]


def _c(name: str, *args: str, model: bool = True, entries: tuple[str, ...] = ENTRIES) -> Case:
    return Case(name, tuple(args), model, entries)


# ------------------------------------------------------------------------------ hand-written

HAND_CASES: tuple[Case, ...] = (
    # exact flags and =value
    _c("exact int", "--max-num-seqs", "8"),
    _c("equals int", "--max-num-seqs=8"),
    _c("equals empty int", "--max-num-seqs="),
    _c("equals value with '='", "--served-model-name=a=b"),
    _c("exact that prefixes others", "--tokenizer", "t"),
    _c("exact that prefixes others, equals", "--tokenizer=t"),
    _c("exact that prefixes others 2", "--data-parallel-size", "1"),
    _c("short alias", "-tp", "2"),
    _c("short alias equals", "-tp=2"),
    _c("short alias attached", "-qfp8"),
    _c("short alias attached equals-ish", "-q=fp8"),
    _c("short alias attached, not a single-char option", "-tp2"),
    _c("short alias, prefix of -tp", "-t", "2"),
    _c("short alias, ambiguous single-dash prefix", "-d", "2"),
    _c("short alias, ambiguous single-dash prefix -p", "-p", "2"),
    _c("short alias -dp attached", "-dp2"),
    _c("short prefix with equals", "-t=2"),
    _c("short alias and value in one item", "-q fp8"),
    _c("short alias and value in one item 2", "-tp 2"),
    _c("value with a space that starts with a short alias", "--served-model-name", "-q x"),
    _c("value with a space that starts with '-'", "--served-model-name", "-a b"),
    # abbreviations (Python 3.11 argparse, allow_abbrev=True)
    _c("abbrev unique", "--max-num-seq", "8"),
    _c("abbrev unique short", "--max-num-se", "8"),
    _c("abbrev unique equals", "--max-num-se=8"),
    _c("abbrev ambiguous --max", "--max", "8"),
    _c("abbrev ambiguous --max-num", "--max-num", "8"),
    _c("abbrev ambiguous --max-num-s", "--max-num-s", "8"),
    _c("abbrev unique --max-num-b", "--max-num-b", "8"),
    _c("abbrev equals, value with a space", "--served-model-na=a b"),
    _c("abbrev equals, value with a space, as the model", "--max-num-se=8 9", model=False,
       entries=("serve",)),
    _c("abbrev ambiguous --dis", "--dis"),
    _c("abbrev boolean unique", "--enforce-eag"),
    _c("abbrev --no- boolean", "--no-enforce-eag"),
    _c("abbrev of underscored", "--max_num_se", "8"),
    _c("abbrev --max-model", "--max-model", "4096"),
    _c("abbrev --gpu-mem", "--gpu-mem", "0.8"),
    # underscores
    _c("underscore", "--max_num_seqs", "8"),
    _c("underscore equals", "--max_num_seqs=8"),
    _c("underscore boolean", "--enforce_eager"),
    _c("underscore --no_ boolean", "--no_enforce_eager"),
    _c("underscore value untouched", "--served-model-name", "my_model"),
    _c("underscore in value after =", "--served-model-name=my_model"),
    _c("underscore short alias unaffected", "-tp", "2", "--tensor_parallel_size", "4"),
    # boolean families
    _c("boolean", "--enforce-eager"),
    _c("boolean --no-", "--no-enforce-eager"),
    _c("boolean =true", "--enforce-eager=true"),
    _c("boolean =false", "--enforce-eager=false"),
    _c("boolean --no- =false", "--no-enforce-eager=false"),
    _c("chunked prefill", "--enable-chunked-prefill"),
    _c("chunked prefill --no-", "--no-enable-chunked-prefill"),
    _c("chunked prefill --disable-", "--disable-chunked-prefill"),
    _c("chunked prefill =false", "--enable-chunked-prefill=false"),
    _c("chunked prefill =true", "--enable-chunked-prefill=true"),
    _c("chunked prefill =False", "--enable-chunked-prefill=False"),
    _c("chunked prefill --disable- =true", "--disable-chunked-prefill=true"),
    _c("prefix caching --no-", "--no-enable-prefix-caching"),
    _c("prefix caching --disable-", "--disable-prefix-caching"),
    _c("custom all-reduce --disable-", "--disable-custom-all-reduce"),
    _c("custom all-reduce --enable-", "--enable-custom-all-reduce"),
    _c("custom all-reduce hidden --no-disable-", "--no-disable-custom-all-reduce"),
    _c("sliding window --enable-", "--enable-sliding-window"),
    _c("abbrev of --disable-chunked", "--disable-chunked-p"),
    _c("abbrev of --no-enable-chunked", "--no-enable-chunked"),
    _c("store_true", "--disable-log-stats"),
    _c("store_true =true", "--disable-log-stats=true"),
    _c("store_true --no-", "--no-disable-log-stats"),
    _c("boolean then later --no- (last wins)", "--enforce-eager", "--no-enforce-eager"),
    _c("--no- then boolean (last wins)", "--no-enable-chunked-prefill", "--enable-chunked-prefill"),
    _c("boolean followed by a value-looking word", "--enforce-eager", "true"),
    # unit suffixes (human-readable ints)
    *(
        _c(f"batched tokens {value}", "--max-num-batched-tokens", value)
        for value in ("16k", "16K", "1.5k", "1.5K", "2M", "1g", "16kb", "k", "1T", "2t",
                      "8192", "-1", "auto", "1e3", "0.5k", " 16k", "16 k", "None")
    ),
    _c("batched tokens =16k", "--max-num-batched-tokens=16k"),
    *(
        _c(f"max-model-len {value}", "--max-model-len", value)
        for value in ("auto", "AUTO", "-1", "32K", "32k", "1.5k", "0.5K", "4096", "-2", "None",
                      "x")
    ),
    _c("max-model-len =32K", "--max-model-len=32K"),
    *(
        _c(f"max-num-seqs {value}", "--max-num-seqs", value)
        for value in ("16k", "16K", "1.5k", " 8", "8.0", "-1", "0x10", "None", "")
    ),
    *(
        _c(f"gpu-memory-utilization {value}", "--gpu-memory-utilization", value)
        for value in ("0.9", "1e-1", "x", "-0.5", "inf", "nan", "9k")
    ),
    _c("max-num-scheduled-tokens 8k", "--max-num-scheduled-tokens", "8k"),
    _c("max-num-active-seqs 4k", "--max-num-active-seqs", "4k"),
    # choices
    _c("choice invalid", "--dtype", "fp17"),
    _c("choice valid", "--dtype", "bfloat16"),
    _c("choice valid equals", "--dtype=half"),
    _c("choice case", "--dtype", "BFLOAT16"),
    _c("choice empty", "--dtype="),
    _c("choice kv-cache-dtype", "--kv-cache-dtype", "fp8"),
    _c("choice kv-cache-dtype invalid", "--kv-cache-dtype", "fp7"),
    _c("optional str empty", "--quantization="),
    _c("optional str None", "--quantization", "None"),
    # arity
    _c("missing value at end", "--max-num-seqs"),
    _c("missing value before flag", "--max-num-seqs", "--enforce-eager"),
    _c("missing value before unknown flag", "--max-num-seqs", "--bogus"),
    _c("nargs+ missing value", "--served-model-name"),
    _c("nargs+ missing value before flag", "--served-model-name", "--enforce-eager"),
    _c("nargs+ two values", "--served-model-name", "a", "b"),
    _c("nargs+ eats the positional", "--served-model-name", "a", "m", model=False),
    _c("nargs+ eats a following word", "--served-model-name", "a", "n"),
    _c("nargs+ eats the positional, other flag first", "--max-num-seqs", "8",
       "--served-model-name", "a", "m", model=False),
    _c("nargs+ then flag", "--served-model-name", "a", "--max-num-seqs", "8"),
    _c("nargs? bare at end", "--hf-token"),
    _c("nargs? bare before flag", "--hf-token", "--enforce-eager"),
    _c("nargs? with value", "--hf-token", "abc"),
    _c("append twice", "--middleware", "a", "--middleware", "b"),
    # negative numbers
    _c("negative int", "--max-num-seqs", "-1"),
    _c("negative int equals", "--max-num-seqs=-1"),
    _c("negative float", "--gpu-memory-utilization", "-.5"),
    _c("negative float, not last", "--gpu-memory-utilization", "-0.5", "--enforce-eager"),
    _c("negative float equals", "--gpu-memory-utilization=-0.5"),
    _c("negative with suffix is an option", "--max-num-batched-tokens", "-1k"),
    _c("negative int as positional", "-5", model=False),
    # -- separator
    _c("-- then model", "--", "m", model=False),
    _c("-- after model", "--", entries=("serve",)),
    _c("-- then extra positional", "--", "n"),
    _c("flag, -- then model", "--max-num-seqs", "8", "--", "m", model=False),
    _c("-- twice", "--", "--"),
    _c("flag then trailing --", "--max-num-seqs", "8", "--"),
    _c("nargs+ stops at --", "--served-model-name", "a", "--", entries=("serve",)),
    _c("nargs+ stops at -- before the model", "--served-model-name", "a", "--", "m",
       model=False, entries=("api_server",)),
    _c("missing value before --", "--max-num-seqs", "--", "8"),
    _c("-- then flag-looking", "--", "--max-num-seqs", entries=("serve",)),
    # spaces inside one argv item
    _c("flag and value in one item", "--dtype auto"),
    _c("flag and value in one item, as the model", "--dtype auto", model=False,
       entries=("serve",)),
    _c("equals with a space", "--dtype=auto x"),
    _c("value with a space", "--served-model-name", "a b"),
    # positionals
    _c("two positionals", "n"),
    _c("model only", "m", model=False, entries=("serve",)),
    _c("no model", model=False),
    _c("empty positional", "", model=False),
    _c("extra empty positional", ""),
    _c("dash positional", "-"),
    _c("model after flags", "--max-num-seqs", "8", "m", model=False),
    # unknown flags
    _c("unknown flag", "--bogus-flag"),
    _c("unknown flag with value", "--bogus-flag", "8"),
    _c("unknown flag equals", "--bogus-flag=8"),
    _c("unknown short flag", "-z"),
    _c("removed-looking flag", "--max-num-sequences", "8"),
    # duplicates
    _c("duplicate last wins", "--max-num-seqs", "8", "--max-num-seqs", "16"),
    _c("duplicate via alias", "--tensor-parallel-size", "2", "-tp", "4"),
    _c("duplicate via abbrev and underscore", "--max-num-seq", "8", "--max_num_seqs=32"),
    _c("duplicate choice", "--dtype", "half", "--dtype", "bfloat16"),
    # JSON values
    _c("config JSON", "--compilation-config", '{"mode": 3}'),
    _c("config JSON short alias", "-cc", '{"mode": 3}'),
    _c("config JSON equals", '--compilation-config={"mode": 3}'),
    _c("config JSON bad", "--compilation-config", "{mode: 3"),
    _c("config JSON human int", "--compilation-config", '{"max_cudagraph_capture_size": 1k}'),
    _c("config JSON bare int", "--compilation-config", "3"),
    _c("json flag", "--hf-overrides", '{"a": 1}'),
    _c("json flag bad", "--hf-overrides", "{a"),
    # -O forms and dotted keys (vLLM's own rewrites before argparse)
    _c("-O3", "-O3"),
    _c("-O 3", "-O", "3"),
    _c("-O=3", "-O=3"),
    _c("-O bare", "-O"),
    _c("--optimization-level 3", "--optimization-level", "3"),
    _c("dotted", "--compilation-config.mode", "3"),
    _c("dotted equals", "--compilation-config.mode=3"),
    _c("dotted underscore key", "--compilation-config.max_cudagraph_capture_size", "8"),
    _c("dotted underscore head", "--compilation_config.mode", "3"),
    _c("dotted human int", "--compilation-config.max_cudagraph_capture_size", "1k"),
    # --model in serve (rewritten to the positional by vLLM)
    _c("--model instead of positional", "--model", "m", model=False, entries=("serve",)),
    _c("--model and positional", "--model", "x", entries=("serve",)),
    # --config (file loading)
    _c("--config missing file", "--config", "/nonexistent/vlint.yaml"),
    # help
    _c("help", "--help"),
    # whole command lines as deployments write them
    _c("config: tp2 long context", "--tensor-parallel-size", "2", "--max-model-len", "32768",
       "--gpu-memory-utilization", "0.9", "--dtype", "bfloat16", "--enable-prefix-caching"),
    _c("config: served name, port, key", "--served-model-name", "chat", "--host", "0.0.0.0",
       "--port", "8000", "--api-key", "k", "--max-num-seqs", "64"),
    _c("config: fp8 kv cache, chunked", "--kv-cache-dtype", "fp8", "--enable-chunked-prefill",
       "--max-num-batched-tokens", "8192", "--trust-remote-code"),
    _c("config: equals forms", "--max-model-len=8192", "--tensor-parallel-size=1",
       "--dtype=auto", "--seed=0", "--swap-space=4"),
    _c("config: quantized, eager", "--quantization", "awq", "--enforce-eager",
       "--max-num-seqs", "16", "--disable-log-requests"),
    _c("config: tokenizer options", "--tokenizer", "t", "--tokenizer-mode", "auto",
       "--revision", "main", "--load-format", "auto"),
    # typos (no option starts with them)
    _c("typo --max-modle-len", "--max-modle-len", "4096"),
    _c("typo --tensor-paralel-size", "--tensor-paralel-size", "2"),
    _c("typo --gpu-memory-utilisation", "--gpu-memory-utilisation", "0.9"),
    _c("typo --enforce-eagr", "--enforce-eagr"),
    _c("typo --trust-remote-cod=true", "--trust-remote-cod=true"),
    _c("typo single dash long flag", "-max-model-len", "4096"),
    _c("typo triple dash", "---max-model-len", "4096"),
    # flags that some releases do not have yet, or no longer have
    _c("release-bound --use-v2-block-manager", "--use-v2-block-manager"),
    _c("release-bound --swap-space", "--swap-space", "4"),
    _c("release-bound --disable-log-requests", "--disable-log-requests"),
    _c("release-bound --enable-log-requests", "--enable-log-requests"),
    _c("release-bound --num-lookahead-slots", "--num-lookahead-slots", "0"),
    _c("release-bound --max-seq-len-to-capture", "--max-seq-len-to-capture", "8192"),
    _c("release-bound --guided-decoding-backend", "--guided-decoding-backend", "xgrammar"),
    _c("release-bound --task", "--task", "generate"),
    _c("release-bound --runner", "--runner", "generate"),
    _c("release-bound --async-scheduling", "--async-scheduling"),
    _c("release-bound --kv-cache-memory-bytes", "--kv-cache-memory-bytes", "1G"),
    _c("release-bound --structured-outputs-config", "--structured-outputs-config", "{}"),
    _c("release-bound --max-num-partial-prefills", "--max-num-partial-prefills", "2"),
    _c("release-bound --preemption-mode", "--preemption-mode", "swap"),
    _c("release-bound --device", "--device", "cpu"),
    _c("release-bound --disable-async-output-proc", "--disable-async-output-proc"),
    # booleans given values
    _c("boolean =1", "--trust-remote-code=1"),
    _c("boolean =yes", "--enforce-eager=yes"),
    _c("boolean =True", "--enable-prefix-caching=True"),
    _c("boolean =0", "--enable-prefix-caching=0"),
    _c("boolean =", "--enforce-eager="),
    _c("boolean followed by a number", "--trust-remote-code", "1"),
    _c("store_true =false", "--disable-log-stats=false"),
    # unit suffixes of every kind, on every kind of setting
    *(
        _c(f"max-model-len suffix {value}", "--max-model-len", value)
        for value in ("1m", "1M", "2g", "1G", "128", "8kb", "8KB", "8KiB", "0.25m", "1e4")
    ),
    *(
        _c(f"kv-cache-memory-bytes {value}", "--kv-cache-memory-bytes", value)
        for value in ("8G", "8g", "512M", "1.5G", "1T", "1024", "8GB", "x")
    ),
    _c("suffix on a float setting", "--gpu-memory-utilization", "0.9k"),
    _c("suffix on a plain int setting", "--seed", "1k"),
    _c("suffix on a string setting", "--served-model-name", "32k"),
    _c("suffix on a port", "--port", "8k"),
    # bad choices
    _c("choice load-format invalid", "--load-format", "tensors"),
    _c("choice tokenizer-mode invalid", "--tokenizer-mode", "fast"),
    _c("choice quantization invalid", "--quantization", "int3"),
    _c("choice dtype near miss", "--dtype", "bf16"),
    _c("choice dtype with a space", "--dtype", " half"),
    _c("choice uvicorn-log-level invalid", "--uvicorn-log-level", "verbose"),
    # duplicates
    _c("duplicate boolean", "--enforce-eager", "--enforce-eager"),
    _c("duplicate nargs+", "--served-model-name", "a", "--served-model-name", "b"),
    _c("duplicate =form and spaced form", "--max-model-len=4096", "--max-model-len", "8192"),
    _c("duplicate one invalid", "--max-num-seqs", "x", "--max-num-seqs", "8"),
    # -O forms
    _c("-O0", "-O0"),
    _c("-O1", "-O1"),
    _c("-O2", "-O2"),
    _c("-O4", "-O4"),
    _c("-Ox", "-Ox"),
    _c("-O JSON", "-O", '{"mode": 3}'),
    _c("-O3 and -cc", "-O3", "-cc", '{"mode": 2}'),
    _c("-O3 twice", "-O3", "-O3"),
    # JSON and dotted arguments
    _c("JSON speculative-config", "--speculative-config", '{"method": "ngram"}'),
    _c("JSON speculative-config bad", "--speculative-config", "{method}"),
    _c("JSON limit-mm-per-prompt", "--limit-mm-per-prompt", '{"image": 2}'),
    _c("JSON limit-mm-per-prompt old form", "--limit-mm-per-prompt", "image=2"),
    _c("JSON override-generation-config", "--override-generation-config",
       '{"temperature": 0.5}'),
    _c("JSON kv-transfer-config", "--kv-transfer-config", '{"kv_connector": "X"}'),
    _c("JSON list where a dict is wanted", "--hf-overrides", "[1, 2]"),
    _c("JSON single quotes", "--hf-overrides", "{'a': 1}"),
    _c("dotted -cc", "-cc.mode", "3"),
    _c("dotted two keys", "--compilation-config.mode", "3",
       "--compilation-config.max_cudagraph_capture_size", "8"),
    _c("dotted nested", "--compilation-config.pass_config.enable_fusion", "true"),
    _c("dotted hf-overrides", "--hf-overrides.a", "1"),
    _c("dotted unknown head", "--bogus-config.mode", "3"),
    _c("dotted and JSON of the same flag", "--compilation-config", '{"mode": 3}',
       "--compilation-config.max_cudagraph_capture_size", "8"),
)


# ------------------------------------------------------------------------------ generated

VALID_SAMPLE = {
    "int": "8",
    "float": "0.5",
    "str": "x",
    "human_int": "16k",
    "json": '{"a": 1}',
    "config_json": "{}",
    "json_or_str": "x",
    "opaque": "x",
    "none": "x",
}
INVALID_SAMPLES: dict[str, tuple[str, ...]] = {
    "int": ("x", "1.5"),
    "float": ("x",),
    "human_int": ("x", "1.5K"),
    "json": ("{bad",),
    "config_json": ("{bad", "[1]"),
}


def _kind(release: Release, option: OptionSpec) -> tuple[str, bool]:
    spec = release.type_of(option) or {"kind": "str"}
    return str(spec.get("kind")), bool(spec.get("optional"))


def generated_cases(release: Release, parser: ParserSpec) -> Iterator[Case]:
    """Per option: a valid sample value per string, invalid values, bare booleans."""
    for option in parser.options:
        if option.action in ("help", "version"):
            for string in option.strings:
                yield _c(f"gen {string}", string)
            continue
        if not option.takes_value:
            for string in option.strings:
                yield _c(f"gen {string}", string)
            yield _c(f"gen {option.strings[0]}=false", f"{option.strings[0]}=false")
            continue
        kind, optional = _kind(release, option)
        first = option.strings[0]
        if option.choices is not None:
            choices = [str(c) for c in option.choices if c is not None]
            for choice in choices:
                yield _c(f"gen {first} {choice!r}", first, choice)
            valid = choices[0] if choices else VALID_SAMPLE.get(kind, "x")
            yield _c(f"gen {first} invalid choice", first, "not-a-choice")
        else:
            valid = VALID_SAMPLE.get(kind, "x")
            for bad in INVALID_SAMPLES.get(kind, ()):
                yield _c(f"gen {first} invalid {bad!r}", first, bad)
        for string in option.strings:
            yield _c(f"gen {string} {valid!r}", string, valid)
        yield _c(f"gen {first}={valid}", f"{first}={valid}")
        if optional:
            yield _c(f"gen {first} 'None'", first, "None")
        if option.nargs == "?":
            yield _c(f"gen {first} (bare)", first)
        if option.nargs in ("+", "*"):
            yield _c(f"gen {first} two values", first, valid, valid)


def prefix_cases(parser: ParserSpec) -> Iterator[Case]:
    """Abbreviations found in the catalog: the shortest unique prefix of a few flags, and the
    longest ambiguous prefix of each of them (argparse 3.11 rejects every ambiguous prefix)."""
    longs = parser.long_strings
    targets = ("--max-num-batched-tokens", "--max-num-seqs", "--max-model-len",
               "--enable-chunked-prefill", "--no-enable-chunked-prefill", "--disable-log-stats",
               "--tensor-parallel-size", "--gpu-memory-utilization", "--kv-cache-dtype")
    for target in targets:
        if target not in parser.by_string:
            continue
        option = parser.by_string[target]
        value = () if not option.takes_value else ("8",)
        for size in range(3, len(target)):
            prefix = target[:size]
            found = [s for s in longs if s.startswith(prefix)]
            if found == [target]:
                yield _c(f"prefix unique {prefix}", prefix, *value)
                break
        ambiguous = [
            target[:size] for size in range(3, len(target))
            if len([s for s in longs if s.startswith(target[:size])]) > 1
            and target[:size] not in parser.by_string
        ]
        if ambiguous:
            yield _c(f"prefix ambiguous {ambiguous[-1]}", ambiguous[-1], *value)
    # Single-dash options: argparse 3.11 also matches prefixes of them (-pc for -pcp), and
    # takes the first two characters as the option with the rest attached (-q<value>).
    shorts = sorted(s for s in parser.by_string if not s.startswith("--"))
    seen: set[str] = set()
    for string in shorts:
        option = parser.by_string[string]
        value = () if not option.takes_value else ("1",)
        for size in range(2, len(string)):
            prefix = string[:size]
            if prefix not in parser.by_string and prefix not in seen:
                seen.add(prefix)
                yield _c(f"short prefix {prefix}", prefix, *value)


# ------------------------------------------------------------------------------ not modelled


@dataclass(frozen=True)
class NotModelled:
    """A case vlint gets wrong: in ``releases`` (None: all), except in ``agrees_in`` (releases,
    or ``release:entry``, where real vLLM happens to agree with vlint anyway)."""

    reason: str
    entries: tuple[str, ...] = ENTRIES
    releases: tuple[str, ...] | None = None
    agrees_in: tuple[str, ...] = ()

    def applies(self, entry: str, release: str) -> bool:
        return (entry in self.entries
                and (self.releases is None or release in self.releases)
                and release not in self.agrees_in and f"{release}:{entry}" not in self.agrees_in)


_DASH_O = "vLLM rewrites -O<n>/-O <n>/-O=<n> to --optimization-level before argparse"
_DOTTED = ("vLLM turns --<json-flag>.<key> <value> into a JSON argument before argparse "
           "(dotted sub-keys)")
_MODEL = "`vllm serve` rewrites --model X to the positional model_tag before argparse"
_CONFIG = "--config FILE is loaded (YAML expanded into arguments) before argparse"
_SERVED = ("`vllm serve` raises ValueError when the first argument is an option and "
           "--served-model-name is given without --config (model must come first)")
_LORA = ("custom argparse Action LoRAParserAction: each value must be JSON or name=path and "
         "becomes a LoRAModulePath; vlint treats the flag as a plain store of strings")
_HELP = "-h/--help prints the help and exits (status 0): the parse never completes"
_OPAQUE = ("the release's own type callable (CompilationConfig.from_cli, from_json... in 0.8.5: "
           "ast.literal_eval, pydantic) is 'opaque' in the catalog: vlint accepts any text")
_ADAPTERS = ("--prompt-adapters splits each value into name=path (ValueError otherwise); vlint "
             "treats it as a plain store of strings")
_ENV_CHOICES = ("0.8.5's --guided-decoding-backend choices depend on VLLM_USE_V1 when "
                "vllm.config is imported (the V0 or the V1 literal), which the platform decides "
                "at run time: the real parser accepted 'outlines' in one run and refused it in "
                "another on this machine")

# Cases whose real verdict depends on the machine the real parser runs on: neither compared nor
# counted, (case name) -> (releases, why).
VARIES: dict[str, tuple[tuple[str, ...], str]] = {
    "gen --guided-decoding-backend 'lm-format-enforcer'": (("0.8.5",), _ENV_CHOICES),
    "gen --guided-decoding-backend 'outlines'": (("0.8.5",), _ENV_CHOICES),
}
_JSON_HUMAN = ("a dotted key's value '1k' is not expanded where features.dotted_json_human_int "
               "is false (0.15.0: the string fails the config's validation); vlint's dotted "
               "rewrite expands it in every release")
_CONFIG_FIELDS = ("the config class validates a JSON argument's keys and values (pydantic) "
                  "while parsing; vlint checks the JSON syntax, not the config classes' fields")

NOT_MODELLED: dict[str, NotModelled] = {
    "--config missing file": NotModelled(_CONFIG, agrees_in=("0.8.5:api_server",
                                                             "0.9.2:api_server")),
    "gen --config 'x'": NotModelled(_CONFIG),
    "gen --lora-modules 'x'": NotModelled(_LORA),
    "gen --lora-modules=x": NotModelled(_LORA),
    "gen --lora-modules two values": NotModelled(_LORA),
    "help": NotModelled(_HELP),
    "JSON kv-transfer-config": NotModelled(_CONFIG_FIELDS),
    "dotted nested": NotModelled(_CONFIG_FIELDS, agrees_in=("0.8.5", "0.9.2", "0.10.2",
                                                             "0.11.2")),
    # Older releases (found by the differential test; each entry names where it applies).
    **{name: NotModelled(_OPAQUE, releases=("0.8.5",)) for name in (
        "config JSON bad", "gen --compilation-config 'x'", "gen -O 'x'",
        "gen --compilation-config=x", "gen --kv-transfer-config 'x'",
        "gen --kv-transfer-config=x", "gen --override-pooler-config 'x'",
        "gen --override-pooler-config=x")},
    "config JSON human int": NotModelled(_OPAQUE, releases=("0.8.5",)),
    **{name: NotModelled(_ADAPTERS, releases=("0.8.5", "0.9.2")) for name in (
        "gen --prompt-adapters 'x'", "gen --prompt-adapters=x", "gen --prompt-adapters 'None'",
        "gen --prompt-adapters two values")},
    "-O4": NotModelled(f"0.8.5: {_OPAQUE}; 0.11.2: {_CONFIG_FIELDS}",
                       releases=("0.8.5", "0.11.2")),
    # 0.9-0.11 rewrite -O<x> to the dotted key -O.level=<x> / -O.mode=<x>; the config class
    # then validates the level.
    "-Ox": NotModelled(f"0.8.5: {_OPAQUE}; 0.9.2-0.11.2: {_CONFIG_FIELDS}",
                       releases=("0.8.5", "0.9.2", "0.10.2", "0.11.2")),
    "dotted human int": NotModelled(_JSON_HUMAN, releases=("0.11.2", "0.13.0", "0.15.0")),
    "gen -h": NotModelled(_HELP),
    "gen --help": NotModelled(_HELP),
}


def jsonish(value: Any) -> Any:
    """Render a vlint value the way the probe renders namespace values (realparser.to_json)."""
    if isinstance(value, float):
        return value if value == value and abs(value) != float("inf") else repr(value)
    if isinstance(value, (list, tuple)):
        return [jsonish(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((jsonish(v) for v in value), key=repr)
    if isinstance(value, dict):
        return {str(k): jsonish(v) for k, v in value.items()}
    return value
