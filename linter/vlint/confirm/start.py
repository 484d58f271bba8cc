"""The ``start`` level of ``vlint confirm``: a dry start of the real ``vllm serve``.

Each command-line invocation's literal arguments are handed, as an argv list and never through a
shell, to the ``vllm serve`` of a vLLM interpreter, with the host forced to ``127.0.0.1`` and a
free port.  vlint waits for ``/health`` and one two-token completion, or for the process to exit,
then stops the server's whole process group.  What vLLM logs at start-up -- the ``non-default
args`` it parsed, the configuration the engine was initialised with and the chunked-prefill
budget -- is compared with what was written: a setting vLLM changed on its own becomes a VL903
finding.  With a stand-in model (a local tiny model directory) the weights are random
(``--load-format dummy``), so the start runs on a CPU too.

vlint's own process never imports vLLM: the server is a child process and everything is read
from its log and its HTTP answers.  It runs as ``python -I -m vllm.entrypoints.cli.main serve``
from a fresh temporary folder with the allow-listed environment of :mod:`vlint.confirm` and no
PYTHONPATH (the interpreter's installed vLLM); an invocation with an option that loads code is
not started (see :func:`vlint.confirm.refusal`) unless ``--unsafe-allow-code`` is given.
"""

from __future__ import annotations

import ast
import json
import re
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from vlint.checks import model_specific, rule_module
from vlint.checks.base import rule_finding
from vlint.checks.setting_changed_at_start import RULE as CHANGED_RULE
from vlint.confirm import (TUNING_VLLM_ENV, Sandbox, VLLMPython, _owner, numbered,
                           find_python, loopback_words, python_command, refusal, report_roots,
                           sandbox, stop_tree, stopping_children)
from vlint.engine.report import Report
from vlint.model import Confirmation, Finding, Invocation, Span, Token

StartState = Literal["healthy", "exited", "timeout", "unhealthy"]
ConfirmState = Literal["confirmed", "refuted", "unverified"]

HOST = "127.0.0.1"
DEFAULT_TIMEOUT_S = 240.0
STOP_GRACE_S = 20.0
# The stand-in's context limit without --max-model-len (the probe's default), and when the
# written value is not a plain number.
STAND_IN_CONTEXT = 4096
STAND_IN_CONTEXT_MAX = 131072
# Settings a stand-in start replaces: they describe the model or where the server listens, not
# what vlint checks.
REPLACED_BY_STAND_IN = ("model", "model_tag", "tokenizer", "load_format", "served_model_name")
REPLACED_ALWAYS = ("host", "port")
VALUE_FLAGS_REPLACED = ("--host", "--port")

_BANNER = re.compile(r"\bversion (\d+\.\d+\.\d+)")
_NON_DEFAULT = re.compile(r"non-default args: (\{.*\})\s*$")
_ENGINE_CONFIG = re.compile(r"Initializing a V1 LLM engine \(v([^)]*)\) with config: (.*)$")
_CHUNKED = re.compile(r"Chunked prefill is enabled with max_num_batched_tokens=(\d+)")
_LOG_PREFIX = re.compile(r"^(?:\([^)]*\)\s+)?(INFO|WARNING|ERROR|CRITICAL|DEBUG)\s+\S+\s+\S+\s+"
                         r"\[[^\]]*\]\s?(.*)$")
_CONFIG_PAIR = re.compile(r"(?:^|, )([a-z_]+)=")

# A written setting (its ``dest``) and the key under which vLLM's start-up log reports what it
# applied; the values are compared as text after normalising.
APPLIED_KEYS: Mapping[str, str] = {
    "max_model_len": "max_seq_len",
    "max_num_batched_tokens": "max_num_batched_tokens",
    "enable_chunked_prefill": "enable_chunked_prefill",
    "enable_prefix_caching": "enable_prefix_caching",
    "enforce_eager": "enforce_eager",
    "tensor_parallel_size": "tensor_parallel_size",
    "pipeline_parallel_size": "pipeline_parallel_size",
    "data_parallel_size": "data_parallel_size",
    "kv_cache_dtype": "kv_cache_dtype",
    "trust_remote_code": "trust_remote_code",
    "quantization": "quantization",
    "seed": "seed",
}


@dataclass(frozen=True)
class StartOutcome:
    """What one dry start showed."""

    state: StartState
    argv: tuple[str, ...]
    seconds: float
    returncode: int | None
    health: bool
    completion: bool
    # vLLM's last error line when it exited (or failed to answer), else "".
    error: str
    # What vLLM parsed (``non-default args``) and what its engine applied, by setting name.
    parsed: Mapping[str, object] = field(default_factory=dict)
    applied: Mapping[str, str] = field(default_factory=dict)
    release: str = ""
    pgid: int = 0
    # True when some process of the group outlived SIGTERM and had to be killed.
    killed: bool = False
    log_tail: str = ""

    @property
    def started(self) -> bool:
        return self.state == "healthy"


@dataclass(frozen=True)
class Changed:
    """A setting the start-up log reports with another value than the one written."""

    dest: str
    written: str
    applied: str


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        port: int = sock.getsockname()[1]
        return port


def server_argv(args: Sequence[str], port: int, stand_in_model: str | None = None) -> list[str]:
    """The invocation's words with ``--host``/``--port`` replaced (and, with a stand-in model,
    the model replaced by it and random weights asked for)."""
    out: list[str] = []
    words = list(args)
    i = 0
    while i < len(words):
        word = words[i]
        name = word.split("=", 1)[0]
        if name in VALUE_FLAGS_REPLACED or (stand_in_model and name in ("--model", "--load-format")):
            i += 1 if "=" in word else 2
            continue
        out.append(word)
        i += 1
    if stand_in_model:
        if out and not out[0].startswith("-"):
            out[0] = stand_in_model
        else:
            out.insert(0, stand_in_model)
        out += ["--load-format", "dummy"]
    return out + ["--host", HOST, "--port", str(port)]


def serve_command(python: str, args: Sequence[str]) -> list[str]:
    """``python -I -m vllm.entrypoints.cli.main serve ARGS`` (isolated: see
    :func:`vlint.confirm.python_command`)."""
    return python_command(python, "-m", "vllm.entrypoints.cli.main", "serve", *args)


def _message(line: str) -> str:
    match = _LOG_PREFIX.match(line.strip())
    return (match.group(2) if match else line).strip()


def parse_log(text: str) -> tuple[dict[str, object], dict[str, str], str]:
    """The parsed arguments, the applied settings and the release from a start-up log."""
    parsed: dict[str, object] = {}
    applied: dict[str, str] = {}
    release = ""
    for line in text.splitlines():
        if not release and (match := _BANNER.search(line)):
            release = match.group(1)
        if match := _NON_DEFAULT.search(line):
            try:
                value = ast.literal_eval(match.group(1))
            except (ValueError, SyntaxError):
                continue
            if isinstance(value, dict):
                parsed = {str(k): v for k, v in value.items()}
        elif match := _ENGINE_CONFIG.search(line):
            release = match.group(1)
            applied.update(_config_pairs(match.group(2)))
        elif match := _CHUNKED.search(line):
            applied["max_num_batched_tokens"] = match.group(1)
    return parsed, applied, release


def _config_pairs(text: str) -> dict[str, str]:
    """``key=value, key=value`` of vLLM's config line; values may contain commas and brackets,
    so each value runs up to the next top-level ``, key=``."""
    marks = [(m.start(1), m.end()) for m in _CONFIG_PAIR.finditer(text)]
    pairs: dict[str, str] = {}
    for index, (start, value_start) in enumerate(marks):
        end = marks[index + 1][0] - 2 if index + 1 < len(marks) else len(text)
        pairs.setdefault(text[start:value_start - 1], text[value_start:end].strip())
    return pairs


def _norm(value: object) -> str:
    text = str(value).strip().strip("'\"")
    return text.removeprefix("torch.").lower()


def changed_settings(parsed: Mapping[str, object], applied: Mapping[str, str],
                     skip: Sequence[str] = ()) -> list[Changed]:
    changed = []
    for dest, key in APPLIED_KEYS.items():
        if dest in skip or dest not in parsed or key not in applied:
            continue
        written, used = _norm(parsed[dest]), _norm(applied[key])
        if parsed[dest] is None or written == used:
            continue
        changed.append(Changed(dest, str(parsed[dest]), applied[key]))
    return changed


def last_error(text: str) -> str:
    """vLLM's last error line: the final exception message or ERROR log line."""
    lines = [line for line in text.splitlines() if line.strip()]
    for index in range(len(lines) - 1, -1, -1):
        message = _message(lines[index])
        if re.match(r"^[A-Za-z_.]*(Error|Exception)\b.*:", message) and "background process" \
                not in message:
            # pydantic puts the validator's own message on the next line.
            after = _message(lines[index + 1]) if index + 1 < len(lines) else ""
            if "validation error" in message and after.startswith("Value error"):
                return f"{message}: {after.split(' [type=')[0]}"
            return message
    for line in reversed(lines):
        if " ERROR " in line or line.startswith("ERROR"):
            return _message(line)
    return _message(lines[-1]) if lines else ""


def _get(url: str, timeout: float) -> int:
    with urllib.request.urlopen(url, timeout=timeout) as reply:  # noqa: S310 (loopback only)
        status: int = reply.status
        return status


def _complete(base: str, timeout: float) -> bool:
    with urllib.request.urlopen(f"{base}/v1/models", timeout=timeout) as reply:  # noqa: S310
        model = json.loads(reply.read())["data"][0]["id"]
    body = json.dumps({"model": model, "prompt": "Hello", "max_tokens": 2}).encode()
    request = urllib.request.Request(f"{base}/v1/completions", data=body,
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=timeout) as reply:  # noqa: S310
        answer = json.loads(reply.read())
    return bool(answer.get("choices"))


def stop_group(proc: subprocess.Popen[bytes], grace: float = STOP_GRACE_S) -> bool:
    """SIGTERM the server's group and every descendant, wait ``grace`` seconds, then SIGKILL
    what is left; True if SIGKILL was needed.  Bounded: see :func:`vlint.confirm.stop_tree`."""
    return stop_tree(proc, grace)


def dry_start(python: str, args: Sequence[str], *, env: Mapping[str, str] | None = None,
              stand_in_model: str | None = None, timeout: float = DEFAULT_TIMEOUT_S,
              cwd: str | None = None) -> StartOutcome:
    """Start ``vllm serve`` with ``args``, wait for health and a completion or an exit, stop it.
    Without ``env`` and ``cwd`` it runs in a sandbox of its own (:func:`vlint.confirm.sandbox`)."""
    if env is None or cwd is None:
        with sandbox(VLLMPython(python, {}, "dry_start"), import_path=False) as box:
            return dry_start(python, args, env=box.env if env is None else env,
                             stand_in_model=stand_in_model, timeout=timeout,
                             cwd=box.work if cwd is None else cwd)
    port = free_port()
    argv = serve_command(python, server_argv(args, port, stand_in_model))
    full = dict(env)
    if stand_in_model:
        # On the CPU build a fixed KV cache size replaces the memory-fraction check, which a
        # shared CI machine would fail; a stand-in model needs very little.
        full.setdefault("VLLM_CPU_KVCACHE_SPACE", "1")
    base = f"http://{HOST}:{port}"
    began = time.monotonic()
    health = completion = False
    state: StartState = "timeout"
    error = ""
    with tempfile.TemporaryFile() as log:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, cwd=cwd,
                                stderr=subprocess.STDOUT, env=full, start_new_session=True)
        killed = False
        try:
            while time.monotonic() - began < timeout:
                if proc.poll() is not None:
                    state = "exited"
                    break
                try:
                    health = _get(f"{base}/health", 2.0) == 200
                except (OSError, urllib.error.URLError):
                    health = False
                if health:
                    try:
                        completion = _complete(base, max(5.0, timeout - (time.monotonic() - began)))
                    except (OSError, urllib.error.URLError, ValueError, KeyError,
                            IndexError) as exc:
                        error = f"completion failed: {exc}"
                    state = "healthy" if completion else "unhealthy"
                    break
                time.sleep(0.5)
        finally:
            seconds = time.monotonic() - began
            killed = stop_group(proc)
        log.seek(0)
        text = log.read().decode("utf-8", "replace")
    if state == "exited" or (state == "timeout" and not error):
        error = last_error(text) if state == "exited" else f"no /health after {timeout:.0f} s"
    parsed, applied, release = parse_log(text)
    return StartOutcome(state=state, argv=tuple(argv), seconds=seconds,
                        returncode=proc.returncode if state == "exited" else None,
                        health=health, completion=completion, error=error, parsed=parsed,
                        applied=applied, release=release, pgid=proc.pid, killed=killed,
                        log_tail=text[-4000:])


def _flag_token(invocation: Invocation, dest: str) -> Token | None:
    names = {"--" + dest.replace("_", "-"), "--" + dest}
    for token in invocation.args:
        if token.text.split("=", 1)[0] in names:
            return token
    return None


def setting_findings(invocation: Invocation, outcome: StartOutcome,
                     stand_in: bool) -> list[Finding]:
    """VL903 for each setting the started vLLM applied with another value than written."""
    skip = REPLACED_ALWAYS + (REPLACED_BY_STAND_IN if stand_in else ())
    findings = []
    for change in changed_settings(outcome.parsed, outcome.applied, skip):
        token = _flag_token(invocation, change.dest)
        span: Span = token.span if token else invocation.anchor
        release = outcome.release or "?"
        findings.append(Finding(
            code=CHANGED_RULE.code, name=CHANGED_RULE.name, severity=CHANGED_RULE.severity,
            message=(f"{change.dest} was written as '{change.written}' but vLLM {release} "
                     f"started with '{change.applied}'"),
            help="write the value vLLM applies, or find out why it changes yours",
            path=invocation.path, span=span,
            vllm_versions=(release,) if outcome.release else (),
        ))
    return findings


def verdict(finding: Finding, outcome: StartOutcome) -> tuple[ConfirmState, str]:
    """A finding about an invocation, judged by that invocation's dry start."""
    if finding.code == CHANGED_RULE.code:
        return "confirmed", "reported by vLLM's start-up log"
    if outcome.state in ("timeout", "unhealthy"):
        return "unverified", outcome.error or f"the start ended as {outcome.state}"
    if finding.severity != "error":
        # A warning's consequence (a changed meaning, an ignored value) does not stop a start.
        return "unverified", "a dry start shows only whether vLLM starts"
    if outcome.started:
        return "refuted", "vLLM started and answered a completion"
    return "confirmed", outcome.error or f"vLLM exited with {outcome.returncode}"


def invocation_words(invocation: Invocation) -> list[str] | None:
    """The literal argv after ``vllm serve``, or None when a word is not known statically
    (a ``--host``/``--port`` value may be unknown: the start replaces it)."""
    if invocation.style != "cli":
        return None
    args = invocation.args
    for index, token in enumerate(args):
        replaced = token.text.split("=", 1)[0] in VALUE_FLAGS_REPLACED or (
            index > 0 and args[index - 1].text in VALUE_FLAGS_REPLACED)
        if not token.literal and not replaced:
            return None
    return [t.text for t in args]


def make_stand_in(python: str, box: Sandbox, folder: str, context: int) -> str:
    """A tiny Llama model directory (config and offline tokenizer; ``--load-format dummy`` gives
    it random weights) built by the probe's own generator (vlint's copy in the sandbox) inside
    the vLLM interpreter, isolated, from the sandbox folder."""
    Path(folder).mkdir(parents=True, exist_ok=True)
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import probe; "
            "probe._WORK.append(sys.argv[2]); print(probe.standin_model(int(sys.argv[3])))")
    done = subprocess.run(python_command(python, "-c", code, box.probe_dir, folder,
                                         str(context)),
                          capture_output=True, text=True, env=dict(box.env), cwd=box.work,
                          timeout=300, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"cannot build the stand-in model: {last_error(done.stderr)}")
    return done.stdout.strip().splitlines()[-1]


def _context(words: Sequence[str]) -> int:
    for index, word in enumerate(words):
        name, _, value = word.partition("=")
        if name in ("--max-model-len", "--max_model_len"):
            value = value or (words[index + 1] if index + 1 < len(words) else "")
            return int(value) if value.isdigit() else STAND_IN_CONTEXT_MAX
    return STAND_IN_CONTEXT


def _launch_env(box: Sandbox, invocation: Invocation) -> dict[str, str]:
    """The sandbox environment plus the launch's own literal tuning variables (never one that
    names code, a path or an address: see TUNING_VLLM_ENV)."""
    env = dict(box.env)
    env.update({name: token.text for name, token in invocation.env.items()
                if name in TUNING_VLLM_ENV and token.literal})
    return env


def describe(outcome: StartOutcome | str) -> str:
    """What happened to one invocation, in words (quotes vLLM's output: escape it to print)."""
    if isinstance(outcome, str):
        return outcome if outcome.startswith("not run: ") else f"not run: {outcome}"
    seconds = f"{outcome.seconds:.0f} s"
    if outcome.state == "healthy":
        return f"started, /health ok, completion answered in {seconds}"
    if outcome.state == "unhealthy":
        return f"started, /health ok, but no completion after {seconds}: {outcome.error}"
    if outcome.state == "exited":
        return f"exited with {outcome.returncode} after {seconds}: {outcome.error}"
    return f"no /health after {seconds}: stopped"


def confirm_report(report: Report, python: VLLMPython | str | None = None, *,
                   stand_in_model: bool = False,
                   timeout: float = DEFAULT_TIMEOUT_S,
                   record: list[StartOutcome] | None = None,
                   roots: Sequence[str] = (), allow_code: bool = False,
                   progress: Callable[[str], None] | None = None) -> Report:
    """Dry-start each command-line invocation of ``report`` (one at a time), annotate every
    finding with the start's verdict, and add VL903 for settings vLLM changed at start and
    VL901 when vLLM would not start and no error finding predicted it.  Each start's outcome
    is appended to ``record`` when given, and ``progress`` is told ``PATH:LINE: what
    happened`` (:func:`describe`) for each invocation.  An invocation
    :func:`vlint.confirm.refusal` refuses is not started (its findings stay unverified)
    unless ``allow_code``; every address option is bound to 127.0.0.1."""
    roots = report_roots(report, roots)
    if python is None or isinstance(python, str):
        newest = max(report.targets) if report.targets else None
        python = find_python(python, str(newest) if newest else None, roots)
    outcomes: dict[int, StartOutcome | str] = {}
    models: dict[int, str] = {}
    targets = {id(inv): tuple(rels) for inv, rels in report.launches}
    with stopping_children(), sandbox(python, roots, import_path=False) as box:
        work = box.work

        def outcome_of(invocation: Invocation) -> StartOutcome | str:
            key = id(invocation)
            if key not in outcomes:
                words = invocation_words(invocation)
                refused = None if words is None else refusal(
                    invocation, targets.get(key, ()), "start", work, allow_code)
                if words is None:
                    outcomes[key] = "not a command line with literal arguments"
                elif refused is not None:
                    outcomes[key] = refused
                else:
                    words = loopback_words(invocation, targets.get(key, ()))
                    model = None
                    if stand_in_model:
                        context = _context(words)
                        if context not in models:
                            models[context] = make_stand_in(python.python, box,
                                                            f"{work}/{len(models)}", context)
                        model = models[context]
                    got = dry_start(python.python, words, env=_launch_env(box, invocation),
                                    stand_in_model=model, timeout=timeout, cwd=work)
                    outcomes[key] = got
                    if record is not None:
                        record.append(got)
                if progress is not None:
                    where = f"{invocation.path}:{invocation.anchor.start.line}"
                    progress(f"{where}: {describe(outcomes[key])}")
            return outcomes[key]

        launches = [inv for inv, _ in report.launches]
        findings: list[Finding] = []
        for finding in report.findings:
            invocation = _owner(finding, launches)
            got = outcome_of(invocation) if invocation is not None else (
                "not about one vLLM invocation")
            findings.append(replace(finding, confirmation=_confirmation(finding, got,
                                                                        stand_in_model)))
        number = numbered(launches)
        for invocation in launches:
            got = outcome_of(invocation)
            if isinstance(got, str):
                continue
            mark = Confirmation("confirmed", "start", got.release or None, "vLLM's start-up log")
            findings += [replace(f, confirmation=mark, invocation=number[id(invocation)])
                         for f in setting_findings(invocation, got, stand_in_model)]
            if got.state == "exited" and not any(
                    f.confirmation is not None and f.confirmation.state == "confirmed"
                    and f.severity == "error" and _owner(f, [invocation]) is invocation
                    for f in findings):
                findings.append(replace(_unpredicted(invocation, got),
                                        invocation=number[id(invocation)]))
    findings.sort(key=lambda f: (f.path, f.span.start, f.code, f.message))
    return replace(report, findings=findings)


def _confirmation(finding: Finding, got: StartOutcome | str, stand_in: bool) -> Confirmation:
    if isinstance(got, str):
        return Confirmation("unverified", "start", None, got)
    release = got.release or None
    if release and finding.vllm_versions and release not in finding.vllm_versions:
        about = ", ".join(finding.vllm_versions)
        return Confirmation("unverified", "start", release,
                            f"the finding is about vLLM {about}; vLLM {release} started")
    state, message = verdict(finding, got)
    if stand_in and state == "refuted" and model_specific(finding.code):
        state, message = "unverified", "it depends on the real model; a stand-in model started"
    return Confirmation(state, "start", release, message)


def _unpredicted(invocation: Invocation, got: StartOutcome) -> Finding:
    rule = rule_module("VL901").RULE
    release = got.release or "?"
    return replace(
        rule_finding(rule, invocation.path, invocation.anchor,
                     f"vLLM {release} does not start with this invocation, and no finding "
                     f"predicted it: {got.error}",
                     "do what vLLM's message asks; vlint missed this (worth reporting to vlint)",
                     vllm_versions=(got.release,) if got.release else ()),
        confirmation=Confirmation("confirmed", "start", got.release or None, got.error))
