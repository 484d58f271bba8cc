"""Decide whether an argv launches vLLM, and cut it into the program and the server's arguments.

Every extractor that ends with a list of words (shell commands, compose and Kubernetes lists,
Python argv lists) hands them here, so a launcher is recognised the same way everywhere.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

from vlint.extract import container
from vlint.extract.deployment import enclosed, from_tokens
from vlint.extract.wrappers import batch_gpus, is_expansion, unwrap
from vlint.knowledge.images import (
    API_SERVER_MODULE, DEMO_SERVER_MODULE, image_entry, release_from_image, runs_server,
    server_arguments, vllm_arguments,
)
from vlint.model import (
    Deployment, Entry, GpuCount, Invocation, Located, Locator, Pos, Span, Token,
)
from vlint.syntax.shell import iter_commands, line_break

# (``image_entry`` is re-exported: the image entrypoint tests read it from here.)
__all__ = [
    "CLI_MODULE", "DEMO_SERVER_MODULE", "PYTHON", "PYTHON_SWITCHES", "SHELLS", "forwarded",
    "image_entry", "recognise_all", "recognise_container", "recognise_script",
]

CLI_MODULE = "vllm.entrypoints.cli.main"
# vLLM's demo (non-OpenAI) server, with its own parser while the release shipped it.

# A Python interpreter's name (``python``, ``python3``, ``python3.12``) and the POSIX shells.
PYTHON = re.compile(r"python(\d+(\.\d+)?)?$")
SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ash"})
# The interpreter's options that take no value and name no program: after them the next word is
# the script, or the program comes on standard input.
PYTHON_SWITCHES = frozenset({"-u", "-B", "-E", "-I", "-O", "-OO", "-P", "-q", "-s", "-S"})
# The interpreter's options that take the next word (https://docs.python.org/3/using/cmdline.html);
# `-c CODE` ends them: what follows is the code's own argv, not a module to run.
_PYTHON_FLAGS_WITH_VALUE = frozenset({"-X", "-W"})


def basename(word: str) -> str:
    return word.rsplit("/", 1)[-1]


def _python_module(words: Sequence[Token], start: int) -> tuple[str, int] | None:
    """For ``python [flags] -m module ...``, the module and the index of the next word."""
    index = start
    while index < len(words):
        text = words[index].text
        if text == "-m" and index + 1 < len(words):
            return words[index + 1].text, index + 2
        if text.startswith("-m") and len(text) > 2:
            return text[2:], index + 1
        if text.startswith("-c"):
            return None
        if text in _PYTHON_FLAGS_WITH_VALUE:
            index += 2
        elif text.startswith("-"):
            index += 1
        else:
            return None
    return None


def _nested_shell(words: Sequence[Token], start: int) -> Token | None:
    """The script of ``sh -c SCRIPT`` (flags may be combined, as in ``bash -lc``)."""
    index = start
    while index < len(words):
        text = words[index].text
        if text.startswith("-") and not text.startswith("--") and "c" in text[1:]:
            # `bash -lc -- SCRIPT`: "--" ends the options; the script is the word after it.
            after = index + 1
            if after < len(words) and words[after].text == "--":
                after += 1
            return words[after] if after < len(words) else None
        if not text.startswith("-"):
            return None
        index += 1
    return None


def recognise_script(
    path: str, text: str, locate: Locator, *, kind: str = "shell", shell: bool = True
) -> list[Invocation]:
    """The vLLM launches among the commands of a shell text, positioned through ``locate``.

    ``shell`` is false for text that is only split into words the shell's way (a compose
    ``command:`` string): there a line break ends nothing, so no line break is reported.
    """
    found: list[Invocation] = []
    ray: Located[str] | None = None
    for command in iter_commands(text, locate):
        if ray is None:
            ray = _ray_start(command.words)
        launches = recognise_all(
            command.words, env=command.env, path=path, kind=kind, env_names=command.env_names
        )
        if not launches:
            continue
        broken = line_break(text, command.end, locate) if shell else None
        for invocation in launches:
            if broken is not None:
                invocation = replace(invocation, line_breaks=(*invocation.line_breaks, broken))
            found.append(invocation)
    if ray is not None:
        found = [_in_cluster(invocation, ray) for invocation in found]
    gpus = _batch_gpus(text, locate) if found and "#SBATCH" in text else None
    if gpus is not None:
        found = [invocation if invocation.deployment.gpus is not None else replace(
            invocation, deployment=replace(invocation.deployment, gpus=gpus))
            for invocation in found]
    return found


def _shifted(locate: Locator, start: int) -> Locator:
    """A locator for a text that starts at ``start`` of ``locate``'s text."""
    return lambda offset: locate(start + offset)


# A batch job's directive: ``#SBATCH`` at the start of a line, its options after it; a job has
# a few dozen at most, and each is read by the shell reader, so a crafted file is cut off.
MAX_DIRECTIVES = 256
_DIRECTIVE = re.compile(r"^#SBATCH[ \t]+([^\n]*)", re.MULTILINE)


def _batch_gpus(text: str, locate: Locator) -> Located[GpuCount | None] | None:
    """The GPUs per node the script's ``#SBATCH`` directives ask for: a launch in the job
    runs on one of its nodes with them."""
    words: list[Token] = []
    lead = "sbatch "  # a program for the options: the shell reader reads commands
    for count, match in enumerate(_DIRECTIVE.finditer(text)):
        if count >= MAX_DIRECTIVES:
            break
        line = lead + match.group(1)
        for command in iter_commands(line, _shifted(locate, match.start(1) - len(lead))):
            words.extend(command.words[1:])
    return batch_gpus(words) if words else None


def _ray_start(words: Sequence[Token]) -> Located[str] | None:
    """``ray start ...`` (a node joining or heading a Ray cluster), at its program word."""
    if len(words) < 2 or words[1].text != "start":
        return None
    program = words[0]
    if not program.literal or program.text.rsplit("/", 1)[-1] != "ray":
        return None
    return Located("ray", program.sub_span(0))


def _in_cluster(invocation: Invocation, ray: Located[str]) -> Invocation:
    """A launch of a script that starts a Ray node: vLLM may place its workers on the cluster."""
    if invocation.deployment.cluster is not None:
        return invocation
    return replace(invocation, deployment=replace(invocation.deployment, cluster=ray))


def _span_of(words: Sequence[Token]) -> Span:
    return Span(words[0].span.start, words[-1].span.end)


def _command_span(words: Sequence[Token]) -> Span:
    """Where a command starting with its program is written: from the program to the last
    word, or from the second word when the program's characters sit on a line before the one
    its end is on (a Makefile variable expanded in a recipe, ``$(VLLM) serve`` after ``VLLM :=
    .venv/bin/vllm``: its characters are the assignment's, its end where it is referred to)."""
    first = words[0]
    if len(words) > 1 and first.text and first.positions[len(first.text) - 1].line < \
            first.positions[-1].line:
        first = words[1]
    return Span(first.span.start, words[-1].span.end)


def recognise_all(
    words: Sequence[Token],
    *,
    path: str,
    kind: str,
    env: Mapping[str, Token] | None = None,
    image: str | None = None,
    env_names: Mapping[str, Span] | None = None,
) -> list[Invocation]:
    """Every vLLM launch in ``words``: the command itself, or the script of ``sh -c``.

    ``image`` is given when ``words`` are the arguments of that image's own entrypoint.
    """
    return _recognise(
        words, path=path, kind=kind, env=env, image=image, env_names=env_names, fallback=True
    )


def _recognise(
    words: Sequence[Token],
    *,
    path: str,
    kind: str,
    env: Mapping[str, Token] | None,
    image: str | None,
    env_names: Mapping[str, Span] | None,
    fallback: bool,
) -> list[Invocation]:
    """``recognise_all``; ``fallback`` is false for the words after an unknown wrapper's
    ``--``, which are not searched for another ``--`` (the caller tries each one)."""
    merged_env = dict(env or {})
    names = dict(env_names or {})
    target = release_from_image(image) if image else None
    if not words:
        return []
    server_image = image is not None and runs_server(image, words)
    if image is not None and server_image and _repeated_entry(words):
        return [_image_arguments(words, path, kind, merged_env, names, target)]
    unwrapped = unwrap(words, merged_env, names)
    words, start = unwrapped.words, unwrapped.start
    if start >= len(words):
        return []
    if target is None and unwrapped.image is not None:
        target = release_from_image(unwrapped.image.value)
    program = basename(words[start].text)
    if program in container.PROGRAMS:
        return container.recognise(
            words, start, path=path, kind=kind, env=merged_env, names=names, recognise=recognise_all
        )

    def build(entry: Entry, args_from: int, anchor_to: int) -> Invocation:
        return Invocation(
            path=path,
            origin=(kind,),
            style="cli",
            anchor=_command_span(words[start:anchor_to]),
            entry=entry,
            args=tuple(words[args_from:]),
            deployment=Deployment(env=from_tokens(merged_env, names), gpus=unwrapped.gpus,
                                  image=unwrapped.image),
            target=target,
        )

    if unwrapped.module:
        # `uv run -m MODULE ...`: the module word is where the launch starts.
        return _module_launch(build, words, words[start].text, start + 1)
    if program == "vllm" and start + 1 < len(words) and words[start + 1].text == "serve":
        return [build("serve", start + 2, start + 2)]
    if start > 0 and _held_vllm(words, start - 1):
        # (A variable before a word is read as a wrapper it holds, ``$LAUNCHER vllm serve``;
        # before ``serve``, it holds vLLM.)
        start -= 1
        return [build("serve", start + 2, start + 2)]
    if _held_vllm(words, start):
        return [build("serve", start + 2, start + 2)]
    if PYTHON.match(program) or is_expansion(words[start]):
        # (`"$PY" -m vllm.entrypoints...`: an interpreter held in a variable.)
        found = _python_module(words, start + 1)
        if found is not None:
            return _module_launch(build, words, *found)
        if not (server_image and is_expansion(words[start])):
            return []
        # (``docker run $VLLM_IMAGE $VLLM_ARGS``: the server's arguments, all unresolved.)
    if program in SHELLS:
        script = _nested_shell(words, start + 1)
        if script is None:
            return []
        last = len(script.text)
        # The script's text ends before the word's closing quote, not after it.
        end = script.sub_span(0).end if last else script.pos(0)

        def locate(offset: int) -> Pos:
            return script.pos(offset) if offset < last else end

        found_inside = recognise_script(path, script.text, locate)
        around = Deployment(env=from_tokens(merged_env, names), gpus=unwrapped.gpus)
        positional = _positional(words, script)
        return [enclosed(forwarded(invocation, positional), kind, around, target)
                for invocation in found_inside]
    if image is not None and server_image:
        return [_image_arguments(words, path, kind, merged_env, names, target)]
    if not fallback:
        return []
    return _after_double_dash(words, start, path, kind, merged_env, names)


def _held_vllm(words: Sequence[Token], start: int) -> bool:
    """``$(VLLM) serve ...``, ``"$VLLM_BIN" serve ...``: a program held in a variable vlint
    cannot resolve, followed by ``serve`` and arguments of vLLM's server, where the variable's
    name says vLLM or the arguments are unmistakably vLLM's
    (``knowledge.images.vllm_arguments``)."""
    if start + 1 >= len(words) or words[start + 1].text != "serve" or \
            not is_expansion(words[start]):
        return False
    rest = words[start + 2:]
    if rest and not rest[0].text.startswith("-"):
        rest = rest[1:]  # the model, ``vllm serve``'s positional argument
    if "vllm" in words[start].text.lower():
        return not rest or server_arguments(rest)
    return vllm_arguments(rest)


# The words that expand to every positional parameter, each its own word: "$@" and "${@}".
_ALL_POSITIONAL = frozenset({"$@", "${@}"})


def _positional(words: Sequence[Token], script: Token) -> tuple[Token, ...] | None:
    """The positional parameters of ``sh -c SCRIPT NAME ARG...``: the words after the script
    and the one that becomes ``$0`` (POSIX ``sh``, "-c": "the first operand after the command
    string is assigned to $0, the rest to the positional parameters"); None when the words
    end with the script."""
    for index, word in enumerate(words):
        if word is script:
            rest = words[index + 2:]
            return tuple(rest) if index + 1 < len(words) else None
    return None


def forwarded(invocation: Invocation, positional: tuple[Token, ...] | None) -> Invocation:
    """The launch with a word ``"$@"`` among its arguments replaced by the positional
    parameters the shell was given (``exec vllm serve "$@"`` in ``sh -c SCRIPT -- ARGS``)."""
    if positional is None or not any(
            t.text in _ALL_POSITIONAL and not t.literal for t in invocation.args):
        return invocation
    args: list[Token] = []
    for token in invocation.args:
        if token.text in _ALL_POSITIONAL and not token.literal:
            args.extend(positional)
        else:
            args.append(token)
    return replace(invocation, args=tuple(args))


def recognise_container(
    command: Sequence[Token], args: Sequence[Token], *, path: str, kind: str, image: str | None
) -> list[Invocation]:
    """The launches of a container that the runtime starts as Kubernetes does: ``command``
    replaces the image's entrypoint (the image no longer matters) and ``args`` follow it;
    ``args`` alone are the image's arguments, a server's when the image runs one
    (``knowledge.images.runs_server``)."""
    if command:
        found = recognise_all([*command, *args], path=path, kind=kind)
        if not found and args:
            # Entrypoint scripts commonly end with `exec "$@"`, running the args as given.
            found = recognise_all(args, path=path, kind=kind)
        return found
    if args:
        server = image if image is not None and runs_server(image, args) else None
        return recognise_all(args, path=path, kind=kind, image=server)
    return []


def _module_launch(
    build: Callable[[Entry, int, int], Invocation], words: Sequence[Token], module: str,
    after: int,
) -> list[Invocation]:
    """The launch of ``python -m MODULE`` whose arguments start at ``words[after]``.

    ``python -m dynamo.vllm`` is deliberately not one: NVIDIA Dynamo's worker parses its own
    options first (``DynamoRuntimeArgGroup``, ``DynamoVllmArgGroup``: ``--endpoint``,
    ``--disaggregation-mode``, ...) and hands only the rest to vLLM's ``AsyncEngineArgs``
    parser, not to ``vllm serve``'s (ai-dynamo/dynamo, components/src/dynamo/vllm/args.py,
    ``parse_args``).  Read as ``vllm serve``, every Dynamo option would be a false VL101 and
    the server options it rejects (``--host``, ``--api-key``) would pass, against a vLLM
    release the command does not name.
    """
    if module == API_SERVER_MODULE:
        return [build("api_server", after, after)]
    if module == DEMO_SERVER_MODULE:
        return [build("demo_server", after, after)]
    if module == CLI_MODULE and after < len(words) and words[after].text == "serve":
        return [build("serve", after + 1, after + 1)]
    return []


# Programs that print their arguments rather than run them (`echo -- vllm serve`).
_PRINTERS = frozenset({"echo", "printf"})
_MAX_SEPARATORS = 4


def _after_double_dash(
    words: Sequence[Token], start: int, path: str, kind: str, env: Mapping[str, Token],
    names: Mapping[str, Span],
) -> list[Invocation]:
    """``tool [options] -- vllm serve ...``: a wrapper vlint has no table for, ending its
    options with ``--``; the words after the first ``--`` are read as the command it runs."""
    if basename(words[start].text) in _PRINTERS:
        return []
    separators = [index for index in range(start + 1, len(words)) if words[index].text == "--"]
    # (`tini -- dumb-init -- vllm serve`: each `--` in turn, a few at most, so that a line of
    # many `--` words stays linear.)
    for index in separators[:_MAX_SEPARATORS]:
        found = _recognise(words[index + 1:], path=path, kind=kind, env=env, image=None,
                           env_names=names, fallback=False)
        if found:
            return found
    return []


def _repeated_entry(words: Sequence[Token]) -> int:
    """How many leading words repeat what a server image's entrypoint already runs."""
    if len(words) >= 2 and basename(words[0].text) == "vllm" and words[1].text == "serve":
        return 2
    if words and words[0].text == "serve":
        return 1
    return 0


def _image_arguments(
    words: Sequence[Token],
    path: str,
    kind: str,
    env: dict[str, Token],
    names: dict[str, Span],
    target: str | None,
) -> Invocation:
    # The image's own entrypoint runs the server; these words are its arguments.
    repeated = _repeated_entry(words)
    return Invocation(
        path=path,
        origin=(kind,),
        style="cli",
        anchor=_span_of(words),
        entry=image_entry(target),
        entry_from_image=True,
        args=tuple(words[repeated:]),
        deployment=Deployment(env=from_tokens(env, names)),
        target=target,
        repeated_entry=tuple(words[:repeated]),
    )
