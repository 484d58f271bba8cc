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
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from vlint.errors import Unparsable
from vlint.extract import deployment, shell
from vlint.extract.argv import recognise_all
from vlint.knowledge.images import image_entry, is_server_image, release_from_image
from vlint.extract.compose import interpolate, split_words
from vlint.extract.nested import ExtractContext
from vlint.model import Deployment, EnvVar, Invocation, Located, Pos, Span, Token
from vlint.syntax.dockerfile import BLANKS, Instruction, exec_form, parse, strip
from vlint.syntax.lines import Chars

KIND = "dockerfile"
_SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ash"})
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


def extract(path: str, text: str, context: ExtractContext | None = None) -> list[Invocation]:
    """The command the image runs (when it launches vLLM) and every ``RUN`` that launches it."""
    instructions = parse(text, context.locate if context else None)
    global_args: dict[str, str] = {}
    stages: dict[str, _Stage] = {}
    stage: _Stage | None = None
    found: list[Invocation] = []
    budget = _Budget()
    for instruction in instructions:
        keyword, args = instruction.keyword, instruction.args
        if keyword == "FROM":
            stage = _from(args, global_args, stages, budget)
        elif keyword == "ARG":
            scope = global_args if stage is None else stage.variables
            _arg(args, scope, global_args, stage, budget)
        elif stage is None:
            continue
        elif keyword == "ENV":
            for variable in _assignments(args, stage.variables, budget):
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
            # A RUN is a build step, not the image's server: no image, only its release.
            found.extend(
                replace(i, deployment=replace(i.deployment, image=None))
                for i in _finish(_run(path, instruction), stage)
            )
    if stage is not None:
        found.extend(_finish(_runs(path, stage), stage))
    return sorted(found, key=lambda invocation: invocation.anchor.start)


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
                       dict(parent.variables), dict(parent.env))
    else:
        stage = _Stage(image.text, span)
    if len(words) >= 3 and words[1].text.lower() == "as":
        stages[words[2].text.lower()] = stage
    return stage


def _arg(
    args: Chars, scope: dict[str, str], global_args: Mapping[str, str], stage: _Stage | None,
    budget: _Budget,
) -> None:
    for word in split_words(args):
        name, equals, _ = word.text.partition("=")
        if equals:
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
    if command.text.startswith("<<") or first.rsplit("/", 1)[-1] in _SHELLS:
        for body in instruction.heredocs:
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
        return recognise_all((*entrypoint.words, *cmd_words), path=path, kind=KIND)
    if image is not None and is_server_image(image):
        if not cmd_words:

            entry = image_entry(release_from_image(image))
            return [Invocation(path, (KIND,), "cli", stage.base_span, entry=entry)]
        return recognise_all(cmd_words, path=path, kind=KIND, image=image)
    return recognise_all(cmd_words, path=path, kind=KIND)


def _finish(found: Sequence[Invocation], stage: _Stage) -> list[Invocation]:

    # Only a vLLM image's tag is a vLLM release (``nvidia/cuda:12.4.1`` is not).
    server = stage.base is not None and is_server_image(stage.base)
    target = release_from_image(stage.base) if stage.base and server else None
    image = None if stage.base is None else Located(stage.base, stage.base_span)
    facts = Deployment(image=image, env=stage.env)
    return [deployment.enclosed(invocation, KIND, facts, target) for invocation in found]
