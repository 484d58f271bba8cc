"""Dockerfiles (and Containerfiles): what the built image runs, and ``RUN`` lines that start vLLM.

The instructions come from ``vlint.syntax.dockerfile`` (directives, comments, continuations and
heredocs as Docker reads them), every character positioned through the context's locator.

The last stage is the image that runs.  Its command is joined as Docker joins it: an exec-form
``ENTRYPOINT`` followed by ``CMD``; a shell-form ``ENTRYPOINT`` ignores ``CMD``; an
``ENTRYPOINT`` resets a ``CMD`` inherited from an earlier stage; with no ``ENTRYPOINT`` and a
vLLM server base image, the ``CMD`` words are the server's arguments.  ``ARG`` and ``ENV``
values interpolate ``FROM`` and ``ENV``; a resolved ``${VAR}`` keeps the position of the
expression.  Interpolation is bounded: once the values substituted in one file pass
``MAX_EXPANDED`` characters (``ARG B=$A$A``, ``ARG C=$B$B``, ... doubles at every line), the file
is unparsable (VL002) rather than expanded.  Shell-form commands go to the shell extractor (no
variable is resolved there: the shell does that when the container starts).  A malformed exec
form (``CMD ["vllm", "serve"``) raises Unparsable: Docker would run it through ``/bin/sh`` as
written, which fails.

The target of a stage's launches is the vLLM the stage holds: its base image's release (only
an image repository known to tag vLLM releases, ``knowledge/images.py``), replaced by a later
``RUN pip install vllm==X`` (``pip3``, ``uv pip``, ``python -m pip``, extras, a specifier, a
wheel URL, ``${VLLM_VERSION}`` from ``ARG``/``ENV``), kept as the specifier (``==0.9.2``) that
``vlint.target`` resolves as it resolves a project's pins.  ``built_image`` tells compose what
a Dockerfile builds, with ``--build-arg`` values and a build target.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from vlint.errors import Unparsable
from vlint.extract import deployment, shell
from vlint.extract.argv import PYTHON, SHELLS, recognise_all
from vlint.extract.container_scripts import script_at, script_launches
from vlint.knowledge.images import image_entry, is_server_image, release_from_image
from vlint.extract.nested import ExtractContext
from vlint.model import Deployment, EnvVar, Invocation, Located, Pos, Span, Token
from vlint.syntax import shell as shell_syntax
from vlint.syntax.interpolation import interpolate, split_words
from vlint.syntax.dockerfile import BLANKS, Instruction, exec_form, parse, strip
from vlint.syntax.lines import Chars

KIND = "dockerfile"
_REFERENCE = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)")
# No Dockerfile substitutes a megabyte of variable values; a doubling chain of 40 ARGs would
# substitute a terabyte.
MAX_EXPANDED = 1 << 20


@dataclass(frozen=True)
class Command:
    """A ``CMD``/``ENTRYPOINT`` value: exec-form words, or shell-form text."""

    words: tuple[Token, ...] | None
    shell: Chars | None


class _Budget:
    """The characters variable substitution may still produce in one file."""

    def __init__(self) -> None:
        self.left = MAX_EXPANDED

    def spend(self, chars: Chars, variables: Mapping[str, str]) -> None:
        """Charge the most that interpolating ``chars`` can substitute, before doing it."""
        if "$" not in chars.text:
            return
        most = sum(len(variables.get(m.group(1), "")) for m in _REFERENCE.finditer(chars.text))
        self.left -= most
        if self.left < 0:
            raise Unparsable(
                f"ARG and ENV values expand to more than {MAX_EXPANDED:,} characters",
                chars.locate(0),
            )


@dataclass
class _Stage:
    base: str | None
    base_span: Span
    entrypoint: Command | None = None
    cmd: Command | None = None
    cmd_set: bool = False
    variables: dict[str, str] = field(default_factory=dict)
    env: dict[str, EnvVar] = field(default_factory=dict)
    # The vLLM release the stage holds: its base image's (a release, or "latest"), or the
    # specifier of a later ``pip install vllm==X`` (``==0.9.2``); None when unknown.
    release: str | None = None
    # Files ``COPY`` put into the image from the build context: path in the image -> source.
    copies: dict[str, str] = field(default_factory=dict)


def extract(path: str, text: str, context: ExtractContext | None = None) -> list[Invocation]:
    """The command the image runs (when it launches vLLM), every ``RUN`` that launches it, and
    the launches of the shell scripts ``COPY``/``ADD`` heredocs write into the image."""
    build = _Build()
    found: list[Invocation] = []
    for instruction in parse(text, context.locate if context else None):
        stage = build.step(instruction)
        if instruction.keyword == "RUN" and stage is not None:
            # A RUN is a build step, not the image's server: no image, only its release.
            found.extend(
                replace(i, deployment=replace(i.deployment, image=None))
                for i in _finish(_run(path, instruction), stage)
            )
        elif instruction.keyword in ("COPY", "ADD") and stage is not None:
            # A script written into the image (``COPY <<'EOF' /entrypoint.sh``): what it
            # launches runs in the image, when the image runs it.
            found.extend(_finish(_written_scripts(path, instruction), stage))
    if build.stage is not None:
        found.extend(_finish(_runs(path, build.stage), build.stage))
    return sorted(found, key=lambda invocation: invocation.anchor.start)


@dataclass(frozen=True)
class BuiltImage:
    """What a Dockerfile builds: its final stage, or the stage a build ``target`` names.

    ``base`` is the image the stage starts from, through ``FROM x AS y`` chains; ``entrypoint``
    and ``cmd`` are the stage's own (or inherited from an earlier stage of the file), None
    where the Dockerfile leaves its base image's; ``release`` is the vLLM release it holds (its
    base image's tag, or the specifier of a later ``pip install vllm==X``), None when unknown.
    The words of ``entrypoint`` and ``cmd`` are positioned in the Dockerfile's own text.
    ``launches`` are the vLLM launches the image's command makes when a container runs it with
    no command of its own (what ``extract`` reports for the stage's CMD/ENTRYPOINT, positioned
    in the Dockerfile).
    """

    base: str | None
    entrypoint: Command | None
    cmd: Command | None
    release: str | None
    launches: tuple[Invocation, ...] = ()


def built_image(
    text: str, build_args: Mapping[str, str] | None = None, target: str | None = None
) -> BuiltImage | None:
    """The image the Dockerfile ``text`` builds with the ``--build-arg`` values ``build_args``
    (they replace the defaults of the ``ARG`` they name, as ``docker build`` does); None when
    it has no stage, or none named ``target``.  Raises Unparsable as ``extract`` does."""
    build = _Build(build_args or {})
    for instruction in parse(text):
        build.step(instruction)
    stage = build.stages.get(target.lower()) if target else build.stage
    if stage is None:
        return None
    launches = tuple(_finish(_runs("", stage), stage))
    return BuiltImage(stage.base, stage.entrypoint, stage.cmd, stage.release, launches)


class _Build:
    """The stages of one Dockerfile, built instruction by instruction."""

    def __init__(self, build_args: Mapping[str, str] | None = None) -> None:
        self.build_args: Mapping[str, str] = build_args or {}
        self.global_args: dict[str, str] = {}
        self.stages: dict[str, _Stage] = {}
        self.stage: _Stage | None = None
        self.budget = _Budget()

    def step(self, instruction: Instruction) -> _Stage | None:
        """Apply one instruction; the stage it belongs to (None before the first FROM)."""
        keyword, args = instruction.keyword, instruction.args
        stage = self.stage
        if keyword == "FROM":
            self.stage = _from(args, self.global_args, self.stages, self.budget)
        elif keyword == "ARG":
            scope = self.global_args if stage is None else stage.variables
            _arg(args, scope, self.global_args, stage, self.budget, self.build_args)
        elif stage is None:
            pass
        elif keyword == "ENV":
            for variable in _assignments(args, stage.variables, self.budget):
                stage.env[variable.name] = variable
                stage.variables[variable.name] = variable.value.text
        elif keyword == "ENTRYPOINT":
            stage.entrypoint = _command(args)
            if not stage.cmd_set:
                stage.cmd = None
        elif keyword == "CMD":
            stage.cmd = _command(args)
            stage.cmd_set = True
        elif keyword == "RUN":
            _apply_installs(instruction, stage, self.budget)
        elif keyword == "COPY" and not instruction.heredocs:
            stage.copies.update(_copied(args))
        return self.stage


# --- instructions ---------------------------------------------------------------------------


def _interpolate(chars: Chars, variables: Mapping[str, str], budget: _Budget) -> Chars:
    """Docker's ``${VAR}``/``$VAR`` substitution; ``\\$`` is a literal dollar sign."""
    budget.spend(chars, variables)
    parts: list[Chars] = []
    start = 0
    for escaped in re.finditer(r"\\\$", chars.text):
        parts.append(interpolate(chars.slice(start, escaped.start()), variables))
        parts.append(chars.slice(escaped.start() + 1, escaped.end()))
        start = escaped.end()
    parts.append(interpolate(chars.slice(start, len(chars.text)), variables))
    return Chars(
        "".join(part.text for part in parts),
        (*(p for part in parts for p in part.positions[:-1]), chars.positions[-1]),
        tuple(flag for part in parts for flag in part.literal),
    )


def _from(
    args: Chars, global_args: Mapping[str, str], stages: dict[str, _Stage], budget: _Budget
) -> _Stage:
    words = [w for w in split_words(args) if not w.text.startswith("--")]
    if not words:
        return _Stage(None, Span(args.pos(0), args.pos(-1)))
    written = words[0]
    image = _interpolate(Chars.of(written), global_args, budget)
    span = written.span
    parent = stages.get(image.text.lower())
    if parent is not None:
        stage = _Stage(parent.base, parent.base_span, parent.entrypoint, parent.cmd, False,
                       dict(parent.variables), dict(parent.env), parent.release)
    else:
        # Only a vLLM image's tag is a vLLM release (``nvidia/cuda:12.4.1`` is not).
        stage = _Stage(image.text, span, release=release_from_image(image.text))
    if len(words) >= 3 and words[1].text.lower() == "as":
        stages[words[2].text.lower()] = stage
    return stage


def _arg(
    args: Chars, scope: dict[str, str], global_args: Mapping[str, str], stage: _Stage | None,
    budget: _Budget, build_args: Mapping[str, str],
) -> None:
    for word in split_words(args):
        name, equals, _ = word.text.partition("=")
        if name in build_args:
            scope[name] = build_args[name]
        elif equals:
            value = _interpolate(Chars.of(word).slice(len(name) + 1), scope, budget)
            scope[name] = value.text
        elif stage is not None and name in global_args:
            scope[name] = global_args[name]


def _assignments(
    args: Chars, variables: Mapping[str, str], budget: _Budget
) -> list[EnvVar]:
    """``ENV A=1 B="x y"`` or the legacy ``ENV A x y``; values interpolated."""
    words = split_words(args)
    if not words:
        return []
    if "=" not in words[0].text:
        stripped = strip(args)
        cut = len(words[0].text)
        value = strip(stripped.slice(cut, len(stripped.text)))
        return [deployment.named(words[0], _interpolate(value, variables, budget).token())]
    # Every value of one ENV instruction sees the variables from before it, as in Docker.
    found: list[EnvVar] = []
    for word in words:
        written = deployment.assignment(word)
        if written is None:
            continue
        after = written.value
        interpolated = _interpolate(Chars.of(written.value), variables, budget).token()
        found.append(replace(written, value=interpolated))
    return found


def _command(args: Chars) -> Command:
    stripped = strip(args)
    words = exec_form(stripped)
    return Command(words, None) if words is not None else Command(None, stripped)


# --- what a RUN installs ----------------------------------------------------------------------

_PIP = re.compile(r"pip(\d+(\.\d+)?)?$")
# pip's and uv pip's install options that take the next word as their value.
_PIP_VALUE_OPTIONS = frozenset({
    "-r", "--requirement", "-c", "--constraint", "-e", "--editable", "-i", "--index-url",
    "--extra-index-url", "--index", "--default-index", "-f", "--find-links", "-t", "--target",
    "--prefix", "--root", "-p", "--python", "--trusted-host", "--platform", "--python-version",
    "--implementation", "--abi", "--cache-dir", "--src", "--upgrade-strategy", "-C",
    "--config-settings", "--global-option", "--no-binary", "--only-binary", "--index-strategy",
    "--torch-backend", "--extra", "--group", "--override", "--progress-bar", "--log", "--proxy",
    "--retries", "--timeout", "--exists-action", "--cert", "--client-cert", "--report",
})
_UPGRADE = frozenset({"-U", "--upgrade", "--force-reinstall"})
# A wheel of vLLM named by URL or path: ``.../vllm-0.6.3+cu118-cp38-abi3-manylinux1_x86_64.whl``.
_WHEEL = re.compile(r"(?:^|/)vllm-(\d[0-9A-Za-z.!+]*)-[^/]*\.whl$")


@dataclass(frozen=True)
class _Install:
    """A ``pip install`` that names vllm: the specifier it pins (None: not pinned, or not
    literal), and whether it replaces the vLLM already in the image."""

    specifier: str | None
    replaces: bool


def _apply_installs(instruction: Instruction, stage: _Stage, budget: _Budget) -> None:
    """Record in ``stage`` the vLLM a ``RUN`` installs: ``pip install vllm==0.9.2``, ``pip3
    install "vllm[audio]>=0.9"``, ``uv pip install --system vllm==${VLLM_VERSION}``,
    ``python3 -m pip install vllm-0.9.2-...whl``.  The shell form's ``$VAR``/``${VAR}`` are the
    stage's ARG and ENV values, as the shell that runs it sees them; the exec form expands
    nothing.  The last install of a stage wins; ``pip install vllm`` without a version keeps
    the vLLM already there unless it upgrades (``-U``)."""
    texts = [instruction.args, *instruction.heredocs]
    if not any("vllm" in chars.text.lower() for chars in texts):
        return
    args = strip(instruction.args)
    exec_words = exec_form(args)
    if exec_words is not None:
        commands = [[word.text for word in exec_words]]
    else:
        commands = [
            [_expanded(word, stage.variables, budget) for word in command.words]
            for chars in texts for command in shell_syntax.parse_words(chars.text)
        ]
    for words in commands:
        install = _vllm_install(words)
        if install is not None and install.replaces:
            stage.release = install.specifier


def _expanded(word: Token, variables: Mapping[str, str], budget: _Budget) -> str:
    if word.literal:
        return word.text
    chars = Chars(word.text, (word.span.start,) * (len(word.text) + 1), (True,) * len(word.text))
    expanded = _interpolate(chars, variables, budget)
    return expanded.text if all(expanded.literal) else word.text


def _vllm_install(words: Sequence[str]) -> _Install | None:
    """The vllm install of one command's words, if it is a pip install naming vllm."""
    start = _install_arguments(words)
    if start is None:
        return None
    found: _Install | None = None
    upgrade = False
    skip = False
    for word in words[start:]:
        if skip:
            skip = False
        elif word.startswith("-"):
            upgrade |= word in _UPGRADE
            skip = word in _PIP_VALUE_OPTIONS
        else:
            pinned = _requirement(word)
            if pinned is not None:
                found = pinned
    if found is None:
        return None
    return _Install(found.specifier, found.replaces or upgrade)


def _install_arguments(words: Sequence[str]) -> int | None:
    """Where the arguments of ``pip install`` (``pip3``, ``uv pip``, ``python -m pip``) start."""
    for index, word in enumerate(words):
        name = word.rsplit("/", 1)[-1]
        rest = list(words[index + 1 : index + 4])
        if _PIP.match(name) and rest[:1] == ["install"]:
            return index + 2
        if name == "uv" and rest[:2] == ["pip", "install"]:
            return index + 3
        if PYTHON.match(name) and rest[:3] == ["-m", "pip", "install"]:
            return index + 4
    return None


def _requirement(word: str) -> _Install | None:
    """What one ``pip install`` argument says of vllm: None when it is not vllm."""
    wheel = _WHEEL.search(word)
    if wheel is not None:
        return _pin("==" + wheel.group(1))
    if "vllm" not in word.lower():
        return None
    if "$" in word:
        return _Install(None, True)  # vllm, at a version the build decides
    from packaging.requirements import InvalidRequirement, Requirement  # lazy: 15 ms, rare

    try:
        requirement = Requirement(word)
    except InvalidRequirement:
        return None
    if requirement.name.lower() != "vllm" or requirement.url:
        return None
    specifier = str(requirement.specifier)
    return _pin(specifier) if specifier else _Install(None, False)


def _pin(specifier: str) -> _Install:
    """``==0.6.3+cu118`` is release 0.6.3 built for CUDA 11.8: the local label is dropped."""
    if specifier.startswith("==") and "," not in specifier and "+" in specifier:
        specifier = specifier.partition("+")[0]
    return _Install(specifier, True)


# --- what runs ------------------------------------------------------------------------------


def _shell(path: str, chars: Chars) -> list[Invocation]:
    return shell.extract(path, chars.text, chars.locate)


def _made_up(text: str, at: Pos) -> Token:
    return Token(text, (at,) * (len(text) + 1))


def _run(path: str, instruction: Instruction) -> list[Invocation]:
    args = strip(instruction.args)
    words = exec_form(args)
    if words is not None:
        return recognise_all(words, path=path, kind=KIND)
    # Drop the RUN options (--mount=..., --network=...) before the command.
    command = args
    while command.text.startswith("--"):
        space = re.search(r"[ \t]", command.text)
        command = strip(command.slice(space.start(), len(command.text))) if space else \
            command.slice(0, 0)
    found = _shell(path, command)
    first = re.split(r"[ \t]+", command.text, maxsplit=1)[0]
    if command.text.startswith("<<") or first.rsplit("/", 1)[-1] in SHELLS:
        for body in instruction.heredocs:
            found.extend(_shell(path, body))
    return found


_SHEBANG = re.compile(r"#![ \t]*\S*/(?:env[ \t]+)?(?:ba|da|z|k|a)?sh\b")


def _written_scripts(path: str, instruction: Instruction) -> list[Invocation]:
    """The launches of each shell script a ``COPY``/``ADD`` heredoc writes: a body whose first
    line is a shell's ``#!`` (BuildKit's heredocs, https://docs.docker.com/reference/dockerfile/
    #here-documents)."""
    found: list[Invocation] = []
    for body in instruction.heredocs:
        if _SHEBANG.match(body.text):
            found.extend(_shell(path, body))
    return found


def _runs(path: str, stage: _Stage) -> list[Invocation]:
    """What the last stage's container runs, when that launches vLLM."""
    entrypoint, cmd = stage.entrypoint, stage.cmd
    image = stage.base
    if entrypoint is not None and entrypoint.shell is not None:
        return _shell(path, entrypoint.shell)
    cmd_words: tuple[Token, ...] = ()
    if cmd is not None and cmd.words is not None:
        cmd_words = cmd.words
    elif cmd is not None and cmd.shell is not None:
        if entrypoint is None:
            return _shell(path, cmd.shell)
        at = cmd.shell.pos(0)
        cmd_words = (_made_up("/bin/sh", at), _made_up("-c", at), cmd.shell.token())
    if entrypoint is not None and entrypoint.words is not None:
        words = (*entrypoint.words, *cmd_words)
        return recognise_all(words, path=path, kind=KIND) or _copied_script(path, stage, words)
    if image is not None and is_server_image(image):
        if not cmd_words:

            entry = image_entry(stage.release)
            return [Invocation(path, (KIND,), "cli", stage.base_span, entry=entry,
                               entry_from_image=True)]
        # The stage's release, not the base image's tag: a later pip install replaces it.
        return [replace(invocation, target=stage.release)
                for invocation in recognise_all(cmd_words, path=path, kind=KIND, image=image)]
    return recognise_all(cmd_words, path=path, kind=KIND) or _copied_script(path, stage,
                                                                             cmd_words)


def _copied(args: Chars) -> dict[str, str]:
    """``COPY [--flags] SRC... DEST`` from the build context: each file's path in the image
    and its source (``DEST/`` or several sources: the folder they go into); ``--from`` copies
    from another image or stage, not from the repository, and gives none."""
    words = exec_form(args)
    texts = [w.text for w in words] if words is not None else \
        [w.text for w in split_words(args)]
    flags = [w for w in texts if w.startswith("--")]
    paths = [w for w in texts if not w.startswith("--")]
    if any(flag.startswith("--from") for flag in flags) or len(paths) < 2:
        return {}
    *sources, dest = paths
    into = dest.endswith("/") or len(sources) > 1
    return {(dest.rstrip("/") + "/" + os.path.basename(source.rstrip("/"))) if into else dest:
            source for source in sources if "$" not in source and "*" not in source}


def _copied_script(path: str, stage: _Stage, words: Sequence[Token]) -> list[Invocation]:
    """The launches of the shell script the container runs when ``COPY`` put it there from the
    build context (taken as the Dockerfile's folder; ``vlint.extract.container_scripts``)."""
    at = script_at(words)
    copied = _copied_source(stage.copies, words[at].text) if at < len(words) else None
    if copied is None:
        return []
    source = os.path.join(os.path.dirname(os.path.abspath(path)), copied)
    return script_launches(path, KIND, words, source)


def _copied_source(copies: Mapping[str, str], target: str) -> str | None:
    """The build-context path of the file ``COPY`` put at ``target`` in the image: copied
    itself, or inside a copied folder (``COPY . /app`` holds ``/app/serve.py``; the longest
    destination that holds it)."""
    if target in copies:
        return copies[target]
    best: tuple[int, str] | None = None
    for dest, source in copies.items():
        folder = dest.rstrip("/")
        if folder and target.startswith(folder + "/") and (best is None or len(folder) > best[0]):
            best = (len(folder), os.path.join(source, target[len(folder) + 1:]))
    return None if best is None else best[1]


def _finish(found: Sequence[Invocation], stage: _Stage) -> list[Invocation]:
    image = None if stage.base is None else Located(stage.base, stage.base_span)
    facts = Deployment(image=image, env=stage.env)
    return [deployment.enclosed(invocation, KIND, facts, stage.release) for invocation in found]
