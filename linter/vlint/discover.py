"""Find the files to lint and decide each one's kind, cheaply.

Kinds come from the file name (``identify``), then the shebang, then content sniffing for
YAML; a byte-level prefilter drops every file that cannot launch vLLM before any parsing.
"""

from __future__ import annotations

import errno
import fnmatch
import os
import re
import stat
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

from identify.identify import tags_from_filename

from vlint.syntax.globs import PathMatcher

ALWAYS_EXCLUDED = frozenset(
    {".git", ".hg", ".svn", ".venv", "venv", "node_modules", "__pycache__", ".mypy_cache",
     ".pytest_cache", ".ruff_cache", ".tox", ".nox", "site-packages"}
)
_COMPOSE_NAME = re.compile(r"^(docker-)?compose([.-].*)?\.ya?ml$|\.compose\.ya?ml$")
_COMPOSE_CONTENT = re.compile(rb"^services:[ \t]*(#.*)?\r?$", re.MULTILINE)
_SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "ash"})
_SBATCH = re.compile(rb"^#SBATCH[ \t]", re.MULTILINE)
# What the YAML kinds' claims look for (``yaml_kind``).
_VALUES_NAME = re.compile(r"(^|[-_.])values([-_.][^/]*)?\.ya?ml$")
_API_VERSION = re.compile(rb"^apiVersion:", re.MULTILINE)
_KIND = re.compile(rb"^kind:", re.MULTILINE)
_FLUX_HELM_RELEASE = re.compile(rb"^apiVersion:[ \t]*['\"]?helm\.toolkit\.fluxcd\.io/",
                                re.MULTILINE)
_HELM_RELEASE_KIND = re.compile(rb"^kind:[ \t]*['\"]?HelmRelease\b", re.MULTILINE)
_STACK_VALUES = re.compile(rb"^servingEngineSpec:", re.MULTILINE)
_MODEL_ARTIFACTS = re.compile(rb"^modelArtifacts:", re.MULTILINE)
_ROLES = re.compile(rb"^(decode|prefill):", re.MULTILINE)
_CONTROLLERS = re.compile(rb"^controllers:", re.MULTILINE)
_ACTION_NAME = re.compile(r"(^|[_.\-])action\.ya?ml$")
_RUNS = re.compile(rb"^runs:", re.MULTILINE)
_JOBS = re.compile(rb"^jobs:", re.MULTILINE)
_RUNS_ON = re.compile(rb"^\s+runs-on:", re.MULTILINE)
_RESOURCES = re.compile(rb"^resources:", re.MULTILINE)
_SKY_SHELL = re.compile(rb"^(run|setup):", re.MULTILINE)
_DSTACK_TYPE = re.compile(rb"^type:[ \t]*['\"]?(service|task|dev-environment)\b", re.MULTILINE)
_COMMANDS = re.compile(rb"^commands:", re.MULTILINE)
_OTHER_YAML = re.compile(rb"^(apiVersion|kind|services|jobs|runs|resources|steps):", re.MULTILINE)
VLLM_CONFIG_GLOBS = ("*vllm*config*.y*ml", "vllm*.yaml", "vllm*.yml")


@dataclass(frozen=True)
class Source:
    path: str
    kind: str
    text: str


class Refused(Exception):
    """A file vlint will not read.  ``reason`` is short text for a note ("a symlink that leaves
    the repository", "not a regular file", an OS error's own words); never the file's content."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class TooLarge(Refused):
    """A regular file over the size limit; ``head`` is its first ``max_size + 1`` bytes, enough
    for the byte prefilter and the kind to decide whether skipping it deserves a note."""

    def __init__(self, reason: str, head: bytes) -> None:
        super().__init__(reason)
        self.head = head


def repository_root(path: str) -> Path | None:
    """The nearest folder at or above ``path`` (resolved) holding ``.git`` (a folder, or the
    file a worktree or submodule has), or None outside any repository."""
    root = _root_of(os.path.realpath(path))
    return None if root is None else Path(root)


@cache
def _root_of(folder: str) -> str | None:
    # Once per folder a run: sibling files and folders share their parents' answers.
    if os.path.lexists(os.path.join(folder, ".git")):
        return folder
    parent = os.path.dirname(folder)
    return None if parent == folder else _root_of(parent)


def linted_roots(paths: Sequence[str]) -> tuple[Path, ...]:
    """The folders vlint may read for ``paths``: for each, its repository root when there is
    one, else the path itself (a file's folder); resolved, without duplicates.

    A file, or a symlink (to a folder too), counts from the folder holding it, so that naming a
    symlink on the command line does not make its target a root.  Standard input (``-``) counts
    from the current folder.
    """
    roots: list[Path] = []
    for given in paths:
        absolute = os.path.abspath(os.getcwd() if given == "-" else given)
        is_folder = os.path.isdir(absolute) and not os.path.islink(absolute)
        start = Path(absolute if is_folder else os.path.dirname(absolute)).resolve()
        root = repository_root(str(start)) or start
        if root not in roots:
            roots.append(root)
    return tuple(roots)


def within(path: Path, roots: Sequence[Path]) -> bool:
    """Whether ``path`` (resolved) is one of ``roots`` or inside one."""
    return any(path == root or path.is_relative_to(root) for root in roots)


# Kernel pseudo-files look regular (/proc/self/environ) but are not a repository's bytes.
_PSEUDO = ("/proc", "/sys", "/dev")
_MAX_LINKS = 40  # as Linux's own limit: beyond it the chain is a loop


def confined_read(path: str, roots: Sequence[Path], max_size: int) -> bytes:
    """The bytes of the regular file ``path``, read only if it stays inside ``roots``.

    Symlinks are followed one by one: any link met once resolution is inside a root must lead
    to a place inside the roots, so a chain that leaves them is refused even if it comes back.
    Refused (with the reason) too: a path outside every root, anything not a regular file
    (FIFO, device, folder, /proc and /sys files), a symlink loop, and a file over ``max_size``
    bytes (``TooLarge``).  The file is opened without following a final symlink and without
    blocking (a FIFO swapped in after the checks cannot hang the run), the open descriptor is
    checked again, and at most ``max_size + 1`` bytes are read.
    """
    resolved = resolve_confined(path, roots)
    shown = str(resolved)
    if any(shown == pseudo or shown.startswith(pseudo + os.sep) for pseudo in _PSEUDO):
        raise Refused("not a regular file")
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    flags |= getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    try:
        with open(resolved, "rb", buffering=0, opener=lambda p, _: os.open(p, flags)) as handle:
            status = os.fstat(handle.fileno())
            if not stat.S_ISREG(status.st_mode):
                raise Refused("not a regular file")
            data = _read_at_most(handle.fileno(), max_size + 1)
    except OSError as error:
        if error.errno == errno.ELOOP:  # the final component became a symlink after the checks
            raise Refused("a symlink that leaves the repository") from None
        raise Refused(error.strerror or str(error)) from None
    if len(data) > max_size:
        raise TooLarge(f"larger than vlint's maximum file size, {max_size:,} bytes", data)
    return data


def resolve_confined(path: str, roots: Sequence[Path]) -> Path:
    """``path`` resolved as ``confined_read`` resolves it (for a writer): raises Refused when it
    or a symlink on the way leaves ``roots``.

    A file that is not itself a symlink resolves to its folder's resolution plus its name, and
    its folder's answer is the same for every file in it: folders are resolved once a run (a
    walk of 20,000 files would otherwise resolve every component of every path)."""
    absolute = os.path.join(os.getcwd(), path)
    folder, name = os.path.split(absolute)
    if name in ("", ".", ".."):
        return _checked(absolute, roots)
    try:
        status = os.lstat(absolute)
    except OSError as error:
        raise Refused(error.strerror or str(error)) from None
    if stat.S_ISLNK(status.st_mode):
        return _checked(absolute, roots)
    key = (folder, tuple(roots))
    if key not in _FOLDERS:
        try:
            _FOLDERS[key] = _checked(folder, roots)
        except Refused as refused:
            _FOLDERS[key] = refused
    answer = _FOLDERS[key]
    if isinstance(answer, Refused):
        raise Refused(answer.reason)
    return answer / name


_FOLDERS: dict[tuple[str, tuple[Path, ...]], Path | Refused] = {}


def forget() -> None:
    """Drop what this run learnt of the file system (folders resolved, repository roots): a
    new run, or a long-lived process, looks again."""
    _FOLDERS.clear()
    _root_of.cache_clear()


def _checked(path: str, roots: Sequence[Path]) -> Path:
    resolved = _resolve_confined(path, roots)
    if not within(resolved, roots):
        raise Refused("outside the linted repository")
    return resolved


def _read_at_most(descriptor: int, limit: int) -> bytes:
    chunks: list[bytes] = []
    left = limit
    while left > 0:
        chunk = os.read(descriptor, min(left, 1 << 20))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _resolve_confined(path: str, roots: Sequence[Path]) -> Path:
    """``path`` with every symlink resolved by hand, refusing a chain that leaves ``roots``."""
    pending = list(reversed(Path(os.path.join(os.getcwd(), path)).parts))
    current = Path(pending.pop())
    links = 0
    entered = False  # a symlink inside the roots was followed: the rest must stay inside
    while pending:
        part = pending.pop()
        if part == "..":
            current = current.parent
            continue
        candidate = current / part
        try:
            status = os.lstat(candidate)
        except OSError as error:
            raise Refused(error.strerror or str(error)) from None
        if not stat.S_ISLNK(status.st_mode):
            current = candidate
            continue
        links += 1
        if links > _MAX_LINKS:
            raise Refused(os.strerror(errno.ELOOP))
        inside = within(current, roots)
        if entered and not inside:
            raise Refused("a symlink that leaves the repository")
        entered = entered or inside
        target = Path(os.readlink(candidate))
        if target.is_absolute():
            current = Path(target.anchor)
        pending.extend(reversed(target.parts[1:] if target.is_absolute() else target.parts))
    if entered and not within(current, roots):
        raise Refused("a symlink that leaves the repository")
    return current


def prefilter(data: bytes, path: str = "") -> bool:
    """Whether the file could launch vLLM at all: every launch but Ray Serve LLM's (below) names
    ``vllm`` somewhere, in any case of its ASCII letters (a KubeAI model may name it only as ``engine: VLLM``, a KServe
    manifest only as ``modelFormat: {name: vLLM}``); a vLLM config file, ``vllm-config.yaml``,
    may name it only in its file name.

    Ray Serve LLM runs vLLM without its files having to name it (a Serve config's
    ``llm_configs:``, an ``LLMConfig`` file, ``from ray.serve.llm import LLMConfig`` in Python):
    every ``LLMConfig`` they hold, in YAML or as a call, writes ``model_loading_config``, a
    required field (ray-project/ray ``python/ray/llm/_internal/serve/configs/server_models.py``,
    ``LLMConfig``; https://docs.ray.io/en/latest/serve/llm/), so that one name lets them through
    at the cost of one more search.

    A chart's values files and templates pass when the chart names vLLM anywhere
    (``_vllm_chart``): ``args: ["{{ .Values.model }}"]`` under an image the values name.

    ``bytes.lower()`` folds only ASCII letters; one copy and one search is faster than two
    case-sensitive searches or a ``[vV][lL][lL][mM]`` pattern (benchmarks/: 5,000 files).
    """
    if b"vllm" in data.lower() or "vllm" in os.path.basename(path).lower():
        return True
    if b"model_loading_config" in data:
        return True
    values = values_chart(path) if path else None
    if values is not None and _vllm_chart(values):
        return True
    # (A chart's template sits under its ``templates/``: other paths skip the walk up.)
    chart = chart_folder(path) if "templates" in path else None
    return chart is not None and _vllm_chart(chart)


_CHART_FILES = 64  # of a chart's files searched for vLLM's name (a chart has a few dozen)
_CHART_FILE_SIZE = 1 << 18


# Folders a chart keeps values files in for installs other than its defaults: chart-testing's
# ``ci/`` (https://github.com/helm/chart-testing) and ``examples/`` (``helm install -f
# examples/gpu.yaml``), a file there or in a folder of its own (``examples/basic/values.yaml``).
_VALUES_FOLDERS = frozenset({"ci", "examples"})


def values_chart(path: str) -> str | None:
    """The chart folder a values file belongs to: ``Chart.yaml`` and ``templates/`` beside a
    file named as values are (``values.yaml``, ``values-prod.yaml``), or above the ``ci/`` or
    ``examples/`` folder (at most one folder deeper) that holds a YAML file; None otherwise."""
    name = os.path.basename(path)
    named = values_name(name)
    if not named and not name.endswith((".yaml", ".yml")):
        return None  # (before any path work: the prefilter asks this of every file)
    folder = os.path.dirname(os.path.abspath(path))
    if named and _is_chart(folder):
        return folder
    for _ in range(2):
        if os.path.basename(folder) in _VALUES_FOLDERS and _is_chart(os.path.dirname(folder)):
            return os.path.dirname(folder)
        folder = os.path.dirname(folder)
    return None


def _is_chart(folder: str) -> bool:
    return os.path.isfile(os.path.join(folder, "Chart.yaml")) and os.path.isdir(
        os.path.join(folder, "templates"))


def _vllm_chart(chart: str) -> bool:
    """Whether the chart in ``chart`` (a ``Chart.yaml`` there) names vLLM in its
    ``Chart.yaml``, its ``values.yaml`` or a template: its values files configure it however
    they are written (``model: org/m``, ``maxModelLen: 16k``).  The files are read confined to
    the chart's repository (``confined_read``), at most ``_CHART_FILES`` of them and their first
    ``_CHART_FILE_SIZE`` bytes, once while those files and the templates folder are unchanged."""
    stamp = tuple(_stamp(os.path.join(chart, name))
                  for name in ("Chart.yaml", "values.yaml", "templates"))
    return stamp[0] is not None and _names_vllm(chart, stamp)


def _stamp(name: str) -> tuple[int, int, int] | None:
    """A file's kind, size and modification time, not following links; None when absent."""
    try:
        status = os.lstat(name)
    except OSError:
        return None
    return status.st_mode, status.st_size, status.st_mtime_ns


@lru_cache(maxsize=16)
def _names_vllm(chart: str, stamp: tuple[tuple[int, int, int] | None, ...]) -> bool:
    roots = linted_roots([chart])
    names = [os.path.join(chart, "Chart.yaml"), os.path.join(chart, "values.yaml")]
    templates = os.path.join(chart, "templates")
    if os.path.isdir(templates) and not os.path.islink(templates):
        try:
            names.extend(os.path.join(templates, name) for name in sorted(os.listdir(templates)))
        except OSError:
            pass
    for name in names[:_CHART_FILES]:
        try:
            head = confined_read(name, roots, _CHART_FILE_SIZE)
        except TooLarge as large:
            head = large.head
        except Refused:
            continue  # absent, a folder, a link out of the repository, not a regular file
        if b"vllm" in head.lower():
            return True
    return False


def kind_of(path: str, data: bytes) -> str | None:
    name = os.path.basename(path)
    tags = tags_from_filename(name)
    runner = _runner_kind(path, name, tags, data)
    if runner is not None:
        return runner
    if "python" in tags:
        return "python"
    if "shell" in tags or "bash" in tags or "zsh" in tags:
        return "shell"
    if "yaml" in tags:
        return yaml_kind(path, data)
    if "markdown" in tags:
        return "markdown"
    if "jupyter" in tags:  # ``*.ipynb``
        return "notebook"
    if "makefile" in tags:  # ``Makefile``, ``makefile``, ``GNUmakefile``, ``*.mk``
        return "makefile"
    lowered = name.lower()
    if "dockerfile" in tags or lowered.endswith((".dockerfile", ".containerfile")):
        return "dockerfile"
    if lowered.endswith(".service"):
        return "systemd"
    if lowered.endswith((".sbatch", ".slurm")):
        return "shell"
    if data.startswith(b"#!"):
        interpreter = data[2 : data.find(b"\n") if b"\n" in data else None].split()
        words = [os.path.basename(w.decode("utf-8", "replace")) for w in interpreter]
        if words and words[0] == "env" and len(words) > 1:
            words = words[1:]
        if words and words[0] in _SHELLS:
            return "shell"
        if words and words[0].startswith("python"):
            return "python"
    # A Slurm batch script without a shebang or a known extension is still shell.
    if tags <= {"text"} and _SBATCH.search(data):
        return "shell"
    return None


# Task runners and process managers that launch vLLM from files of their own, by name.
_JUSTFILE_NAMES = frozenset({"justfile", ".justfile"})
_PROCFILE_NAME = re.compile(r"Procfile(?:\.[A-Za-z0-9_-]+)?")
_TASKFILE_NAME = re.compile(r"(?:.+\.)?[Tt]askfile(?:\.dist)?\.ya?ml")
_SUPERVISOR_FOLDERS = frozenset({"supervisor", "supervisord.d", "conf.d"})
_SUPERVISOR_PROGRAM = re.compile(rb"^[ \t]*\[program:", re.MULTILINE)


def _runner_kind(path: str, name: str, tags: set[str], data: bytes) -> str | None:
    """A justfile, a Procfile or a supervisord configuration, or None.

    just looks for ``justfile`` in any case of its letters, and ``.justfile``
    (casey/just ``src/search.rs``, ``JUSTFILE_NAMES``, compared ``eq_ignore_ascii_case``); its
    modules are ``NAME.just`` and ``NAME/mod.just`` (``src/compiler.rs``).  A Procfile is named
    ``Procfile`` (https://devcenter.heroku.com/articles/procfile); foreman and honcho read any
    name given with ``-f``, by convention ``Procfile.dev``, ``Procfile.local``.
    """
    if name.lower() in _JUSTFILE_NAMES or (name.endswith(".just") and len(name) > len(".just")):
        return "justfile"
    if _PROCFILE_NAME.fullmatch(name) and tags <= {"text"}:
        return "procfile"
    if supervisord_claims(path, data):
        return "supervisord"
    return None


def supervisord_claims(path: str, data: bytes) -> bool:
    """A supervisord configuration with a ``[program:x]`` section: ``supervisord.conf`` (the
    name supervisord looks for, https://supervisord.org/configuration.html "Configuration File"),
    another ``supervisor*.conf``, or a ``*.conf``/``*.ini`` in the folders its ``[include]``
    conventionally reads (``/etc/supervisor/conf.d/``, ``/etc/supervisord.d/``)."""
    name = os.path.basename(path).lower()
    if not name.endswith((".conf", ".ini")):
        return False
    named = name.startswith("supervisor") and name.endswith(".conf")
    if not named and os.path.basename(os.path.dirname(os.path.abspath(path))) not in (
            _SUPERVISOR_FOLDERS):
        return False
    return bool(_SUPERVISOR_PROGRAM.search(data))


def taskfile_claims(path: str, data: bytes) -> bool:
    """A go-task Taskfile: the names go-task looks for (go-task/task ``taskfile/taskfile.go``,
    ``DefaultTaskfiles``: ``Taskfile.yml``, ``taskfile.yaml``, the ``.dist`` variants), and
    included ones named ``NAME.Taskfile.yml`` (https://taskfile.dev/docs/guide
    "Including other Taskfiles")."""
    return bool(_TASKFILE_NAME.fullmatch(os.path.basename(path)))


def compose_claims(path: str, data: bytes) -> bool:
    """A compose file: a compose file name, or a top-level ``services:`` key."""
    return bool(_COMPOSE_NAME.search(os.path.basename(path)) or _COMPOSE_CONTENT.search(data))


claims = compose_claims  # the name the other kinds' claims had in their extractors


def helm_claims(path: str, data: bytes) -> bool:
    """A chart template (``{{`` in a resource, or a file under a chart's ``templates/``), a
    values file (``values*.yaml``), or a Flux ``HelmRelease``, whose ``spec.values`` are a
    chart's values."""
    name = os.path.basename(path)
    if (values_name(name) or values_chart(path) is not None) and not kubernetes_claims(path, data):
        return True
    if _FLUX_HELM_RELEASE.search(data) and _HELM_RELEASE_KIND.search(data):
        return True
    if _chart_values_content(data) and not kubernetes_claims(path, data):
        return True
    if b"{{" not in data:
        return False
    return kubernetes_claims(path, data) or _in_chart_templates(path)


def _chart_values_content(data: bytes) -> bool:
    """Values of a chart vlint reads by its shape, whatever the file's name (a values snippet in
    a Markdown fence, ``my-llama.yaml``): the production stack's ``servingEngineSpec:``,
    llm-d ModelService's ``modelArtifacts:`` beside ``decode:`` or ``prefill:``, app-template's
    ``controllers:`` with ``containers:``."""
    if _STACK_VALUES.search(data):
        return True
    if _MODEL_ARTIFACTS.search(data) and _ROLES.search(data):
        return True
    return bool(_CONTROLLERS.search(data) and b"containers:" in data)


def _in_chart_templates(path: str) -> bool:
    return chart_folder(path) is not None


def values_name(name: str) -> bool:
    """Whether a file name is a Helm values file's (``values.yaml``, ``values-prod.yaml``,
    ``vllm-values.yaml``, ``values.gpu.yml``)."""
    return bool(_VALUES_NAME.search(name))


def chart_folder(path: str) -> str | None:
    """The chart a template belongs to: the folder holding the nearest ``templates/`` above
    ``path``, when a ``Chart.yaml`` sits in it (Helm's chart layout,
    https://helm.sh/docs/topics/charts/#the-chart-file-structure); None otherwise."""
    folder = os.path.dirname(os.path.abspath(path))
    while os.path.basename(folder) != "templates":
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent
    chart = os.path.dirname(folder)
    return chart if os.path.isfile(os.path.join(chart, "Chart.yaml")) else None


def kubernetes_claims(path: str, data: bytes) -> bool:
    """A Kubernetes resource: top-level ``apiVersion:`` and ``kind:`` keys."""
    return bool(_API_VERSION.search(data) and _KIND.search(data))


def launcher_claims(path: str, data: bytes) -> bool:
    """A workflow or composite action, a SkyPilot task, or a dstack configuration."""
    normalised = path.replace(os.sep, "/")
    name = os.path.basename(normalised)
    if "/.github/workflows/" in "/" + normalised:
        return True
    if _ACTION_NAME.search(name) and _RUNS.search(data):
        return True
    if _JOBS.search(data) and _RUNS_ON.search(data):
        return True
    if _RESOURCES.search(data) and _SKY_SHELL.search(data):
        return True
    return bool(_DSTACK_TYPE.search(data) and _COMMANDS.search(data))


def vllm_config_claims(path: str, data: bytes) -> bool:
    """A file named like a vLLM config, or whose top-level keys are ``vllm serve`` options
    (``vllm_config_by_content``), that is not another kind of YAML."""
    if _OTHER_YAML.search(data):
        return False
    name = os.path.basename(path).lower()
    return any(fnmatch.fnmatch(name, g) for g in VLLM_CONFIG_GLOBS) or vllm_config_by_content(data)


_TOP_KEY = re.compile(rb"^([A-Za-z][A-Za-z0-9_-]{0,63})[ \t]*:(?=[ \t]|\r?$)", re.MULTILINE)
_MAX_TOP_KEYS = 500
# Option names that other YAML uses as well: alone they do not make a vLLM config.
_GENERIC_KEYS = frozenset({"api-key", "log-level", "root-path"})


def vllm_config_by_content(data: bytes) -> bool:
    """Whether a YAML file reads as a vLLM ``--config`` file by its top-level keys alone: at
    least two, 80 % of them option names of ``vllm serve`` in some known release (with ``_``
    or ``-``, as vLLM's config loader accepts them), and one of them a multi-word option
    (``max-model-len``), not only ``model``/``port``/``host``.  Bytes only, no parsing: the
    keys are the lines that start in column 0 with ``name:``."""
    keys: list[str] = []
    for match in _TOP_KEY.finditer(data):
        keys.append(match.group(1).decode("ascii").replace("_", "-"))
        if len(keys) > _MAX_TOP_KEYS:
            return False
    if len(keys) < 2:
        return False
    options = _serve_option_names()
    known = [key for key in keys if key in options]
    return (len(known) * 5 >= len(keys) * 4
            and any("-" in key and key not in _GENERIC_KEYS for key in known))


@cache
def _serve_option_names() -> frozenset[str]:
    """``vllm serve`` long option names without their dashes, in every known release."""
    from vlint.knowledge import catalog  # lazy: only YAML that no other kind claims needs it

    return frozenset(string[2:] for string in catalog.option_lifetimes("serve")
                     if string.startswith("--"))


_RAY_APPLICATIONS = re.compile(rb"^applications:", re.MULTILINE)
_RAY_LLM_CONFIG = re.compile(
    rb"^[ \t-]*(llm_configs?|prefill_config|decode_config|engine_kwargs|engine_args):",
    re.MULTILINE)
_RAY_LLM_FILE = re.compile(rb"^model_loading_config:", re.MULTILINE)
_RAY_LLM_MODEL = re.compile(rb"^engine_config:", re.MULTILINE)
_ENGINE_KWARGS = re.compile(rb"^[ \t]+engine_kwargs:", re.MULTILINE)


def ray_serve_claims(path: str, data: bytes) -> bool:
    """A Ray Serve config (or Anyscale service) whose applications configure Ray Serve LLM, a
    Ray Serve ``LLMConfig`` file (top-level ``model_loading_config:``), or a ray-llm model
    YAML (top-level ``engine_config:`` with ``engine_kwargs:``)."""
    if _RAY_APPLICATIONS.search(data):
        return bool(_RAY_LLM_CONFIG.search(data))
    if _RAY_LLM_FILE.search(data):
        return True
    return bool(_RAY_LLM_MODEL.search(data) and _ENGINE_KWARGS.search(data))


# YAML kinds in the order they are tried: each claim looks at the name and the bytes only (no
# parsing), so the first claim wins cheaply.
YAML_KINDS: tuple[tuple[str, Callable[[str, bytes], bool]], ...] = (
    ("taskfile", taskfile_claims),
    ("compose", compose_claims),
    ("helm", helm_claims),
    ("kubernetes", kubernetes_claims),
    ("launcher", launcher_claims),
    ("ray-serve", ray_serve_claims),
    ("vllm-config", vllm_config_claims),
)


def yaml_kind(path: str, data: bytes) -> str | None:
    """The kind of a YAML file (or Markdown block), or None for YAML that launches nothing."""
    for kind, claimed in YAML_KINDS:
        if claimed(path, data):
            return kind
    return None


def walk(paths: Sequence[str], excluded: PathMatcher | None = None) -> Iterator[str]:
    """Every regular file under ``paths``, sorted, skipping VCS and environment folders.

    ``excluded`` (the configuration's ``exclude``) drops files and folders, named ones too, so
    that a pre-commit hook passing file names honours it.
    """
    skip = excluded or (lambda path, is_dir: False)
    for given in paths:
        root = Path(given)
        if root.is_file():
            if not skip(root, False):
                yield given
            continue
        ignored = _gitignore(root).spec
        if ignored is None and excluded is None:
            yield from _plain_walk(root)
            continue
        for folder, dirs, files in os.walk(root):
            dirs[:] = sorted(
                d for d in dirs
                if d not in ALWAYS_EXCLUDED and not _ignored(ignored, root, Path(folder, d), True)
                and not skip(Path(folder, d), True)
            )
            for name in sorted(files):
                path = Path(folder, name)
                if not _ignored(ignored, root, path, False) and not skip(path, False):
                    yield str(path)


def _plain_walk(root: Path) -> Iterator[str]:
    """``walk`` when nothing is ignored but ALWAYS_EXCLUDED: the same names, without building a
    Path for every file (a third of the walk).  Folder names from os.walk are already in Path's
    normal form but for the leading ``./`` of the root ``.``, which Path drops."""
    strip = 2 if str(root) == "." else 0
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in ALWAYS_EXCLUDED)
        for name in sorted(files):
            yield os.path.join(folder, name)[strip:]


# A .gitignore is the repository's: its patterns become regular expressions, and a pattern with
# many wildcards backtracks for seconds on a long name (``*a*a*a*a*b``), so only simple ones are
# honoured.  An ignored pattern makes vlint lint more, never less.
MAX_IGNORE_PATTERNS = 1_000
MAX_PATTERN_LENGTH = 256
MAX_PATTERN_WILDCARDS = 2  # runs of ``*`` (``**`` is one)
MAX_IGNORE_SIZE = 256 * 2**10  # bytes
_WILDCARD_RUN = re.compile(r"\*+")
_PATTERN_NOTES = 5


@dataclass(frozen=True)
class IgnoreFile:
    """A walked folder's ``.gitignore`` as vlint honours it, and the notes on what it did not."""

    spec: object | None
    notes: tuple[str, ...] = ()


def ignore_notes(root: str) -> tuple[str, ...]:
    """What vlint did not honour of the ``.gitignore`` of the folder ``root`` it walks."""
    return _gitignore(Path(root)).notes if os.path.isdir(root) else ()


def _gitignore(root: Path) -> IgnoreFile:
    ignore_file = root / ".gitignore"
    try:
        status = os.stat(ignore_file)
        identity: tuple[int, ...] | None = (status.st_ino, status.st_size, status.st_mtime_ns)
    except OSError:
        identity = None
    if identity is None and not os.path.lexists(ignore_file):
        return IgnoreFile(None)
    return _read_gitignore(str(ignore_file), identity)


@lru_cache(maxsize=64)
def _read_gitignore(ignore_file: str, identity: tuple[int, ...] | None) -> IgnoreFile:
    try:
        data = confined_read(ignore_file, linted_roots([ignore_file]), MAX_IGNORE_SIZE)
    except Refused as refused:
        return IgnoreFile(None, (f"{ignore_file}: skipped ({refused.reason})",))
    kept, notes = _simple_patterns(ignore_file, data.decode("utf-8", "replace").splitlines())
    import pathspec  # lazy: only a .gitignore with patterns beyond the simple ones

    return IgnoreFile(pathspec.GitIgnoreSpec.from_lines(kept) if kept else None, tuple(notes))


def _simple_patterns(ignore_file: str, lines: list[str]) -> tuple[list[str], list[str]]:
    """The patterns vlint honours, and a note for those it does not (the first few, then a
    count; never the pattern itself, which is the repository's text)."""
    kept: list[str] = []
    refused: list[str] = []
    over = False
    for number, line in enumerate(lines, 1):
        pattern = line.strip()
        if not pattern or pattern.startswith("#"):
            continue
        if len(kept) >= MAX_IGNORE_PATTERNS:
            over = True
            break
        if len(line) > MAX_PATTERN_LENGTH:
            refused.append(f"{ignore_file}:{number}: pattern not honoured (too long)")
        elif len(_WILDCARD_RUN.findall(line)) > MAX_PATTERN_WILDCARDS:
            refused.append(f"{ignore_file}:{number}: pattern not honoured (too many wildcards)")
        else:
            kept.append(line)
    notes = refused[:_PATTERN_NOTES]
    if len(refused) > _PATTERN_NOTES:
        notes.append(f"{ignore_file}: {len(refused) - _PATTERN_NOTES} more patterns not honoured")
    if over:
        notes.append(f"{ignore_file}: only the first {MAX_IGNORE_PATTERNS:,} patterns are "
                     "honoured")
    return kept, notes


def _ignored(spec: object | None, root: Path, path: Path, is_dir: bool) -> bool:
    if spec is None:
        return False
    import pathspec  # lazy: only a .gitignore with patterns beyond the simple ones

    assert isinstance(spec, pathspec.PathSpec)
    relative = path.relative_to(root).as_posix() + ("/" if is_dir else "")
    return spec.match_file(relative)
