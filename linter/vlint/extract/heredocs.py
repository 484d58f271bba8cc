"""Manifests written in a shell here-document and applied on the spot.

``kubectl apply -f - <<EOF ... EOF`` (also ``create`` and ``replace``, ``oc``, ``microk8s
kubectl``, ``k3s kubectl``, ``sudo``) reads a Kubernetes manifest from its standard input
(``-f -``, https://kubernetes.io/docs/reference/kubectl/generated/kubectl_apply/).  The body
is read by the kubernetes extractor, every position mapped back through the shell text to the
file.  The body may come through a pipeline: ``cat <<EOF | kubectl apply -f -`` (``cat`` and
``tee`` pass it as it is; ``envsubst`` replaces its ``$NAME`` and ``${NAME}`` with values not
known here).  Any other command between the body and ``kubectl`` (``sed``, ``yq``) changes it
in ways not known: the body is not read.

A body the shell expands (an unquoted delimiter, ``vlint.syntax.heredoc``) keeps each
expansion as written, not literal, so no rule reads a value from it.

A compose file read from stdin (``docker compose -f - up <<EOF``) is not read yet: the compose
extractor reads its commands through the shell extractor, so reading it from here would be an
import cycle; VL004 reports a launch it sees there as unread.

A body written to a file (``cat > vllm.yaml <<EOF``) is not read: the script does not deploy
it there, and what later applies the file (if anything does: an edit, a ``kustomize`` overlay,
another script) is not known.  VL004 reports a launch it sees there as unread.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import replace

from vlint.errors import Unparsable
from vlint.extract.nested import moved
from vlint.model import Invocation, LineIndex, Locator, Pos
from vlint.syntax import yamlpos
from vlint.syntax.heredoc import Heredoc, heredocs
from vlint.syntax.shell import ShellCommand, iter_commands

__all__ = ["manifests"]

_HINT = re.compile(r"\b(?:kubectl|oc)\b")
_KUBECTL = frozenset({"kubectl", "oc"})
_KUBECTL_HOSTS = frozenset({"microk8s", "k3s"})  # ``microk8s kubectl``, ``k3s kubectl``
_APPLY = frozenset({"apply", "create", "replace"})
# kubectl's global options that take a value (``kubectl options``,
# https://kubernetes.io/docs/reference/kubectl/kubectl/): their value is not the subcommand.
_KUBECTL_VALUED = frozenset(
    {"-n", "--namespace", "--context", "--kubeconfig", "--cluster", "--user", "-s", "--server",
     "--token", "--as", "--as-group", "--request-timeout", "-v", "--v"}
)
_PASSING = frozenset({"cat", "tee"})  # pass standard input through unchanged
_ENVSUBST = "envsubst"
_ENVSUBST_REFERENCE = re.compile(r"\$(?:[A-Za-z_][A-Za-z0-9_]*|\{[A-Za-z_][A-Za-z0-9_]*\})")
_MAX_STAGES = 8  # pipeline stages followed from the command that reads a body
_PIPE = re.compile(r"(?:[ \t]|\\\n)*\|&?(?:[ \t]|\\\n)*")


def manifests(
    path: str, text: str, locate: Locator, unknown: Sequence[tuple[int, int]] = ()
) -> list[Invocation]:
    """The vLLM launches in the manifests the shell text ``text`` applies from
    here-documents, positioned through ``locate``; the ``(start, end)`` ranges of ``unknown``
    are values not known (a document's placeholders), unresolved wherever a body holds them."""
    if "<<" not in text or _HINT.search(text) is None:
        return []
    bodies = heredocs(text)
    if not bodies:
        return []
    index = LineIndex.of(text)
    commands = list(iter_commands(text, index.locate))
    starts = [index.offset(command.span.start) for command in commands]
    placeholders = {at for start, end in unknown for at in range(start, end)}
    found: list[Invocation] = []
    for body in bodies:
        reader = _reader(commands, starts, body.redirect)
        if reader is None:
            continue
        substituted = _applier(text, commands, starts, reader, body, index)
        if substituted is None:
            continue
        found.extend(_read(path, body, substituted, locate, placeholders))
    return found


def _reader(commands: Sequence[ShellCommand], starts: Sequence[int], redirect: int) -> int | None:
    """The command whose redirections hold the ``<<`` at ``redirect`` (commands come in
    source order: the last one that starts before it)."""
    number = bisect_right(starts, redirect) - 1
    if number >= 0 and redirect < commands[number].end:
        return number
    return None


def _applier(
    text: str,
    commands: Sequence[ShellCommand],
    starts: Sequence[int],
    number: int,
    body: Heredoc,
    index: LineIndex,
) -> bool | None:
    """Whether ``envsubst`` substituted the body on its way to ``kubectl``; None when no
    ``kubectl`` applies it unchanged."""
    words = _words(text, commands[number], body, index)
    substituted = False
    for _ in range(_MAX_STAGES):
        if _applies(words):
            return substituted
        program = words[0].rsplit("/", 1)[-1] if words else ""
        if program == _ENVSUBST and len(words) == 1:
            substituted = True
        elif program not in _PASSING or (program == "cat" and words[1:] not in ([], ["-"])):
            return None
        following = number + 1
        if following >= len(commands) or not _PIPE.fullmatch(
            text, commands[number].end, starts[following]
        ):
            return None
        number = following
        words = [word.text for word in commands[number].words]
    return None


def _words(text: str, command: ShellCommand, body: Heredoc, index: LineIndex) -> list[str]:
    """The words of the command that reads the body.  tree-sitter-bash 0.25 drops a lone
    ``-`` written just before a ``<<`` (``kubectl apply -f - <<EOF`` parses as ``kubectl apply
    -f``): a ``-`` written between the last word and the ``<<``, on its line, is put back."""
    words = [word.text for word in command.words]
    if command.words:
        between = text[index.offset(command.words[-1].span.end) : body.redirect]
        if "\n" not in between:
            words.extend(word for word in between.split() if word == "-")
    return words


def _applies(words: Sequence[str]) -> bool:
    """Whether ``words`` apply a Kubernetes manifest read from standard input."""
    if words[:1] == ["sudo"]:
        words = words[1:]
    if not words:
        return False
    program = words[0].rsplit("/", 1)[-1]
    rest = list(words[1:])
    if program in _KUBECTL_HOSTS and rest[:1] == ["kubectl"]:
        program, rest = "kubectl", rest[1:]
    return program in _KUBECTL and _subcommand(rest) in _APPLY and _reads_stdin(rest)


def _subcommand(words: Sequence[str]) -> str | None:
    """The first word that is neither an option nor the value of a global option."""
    skip = False
    for word in words:
        if skip:
            skip = False
        elif word.startswith("-"):
            skip = word in _KUBECTL_VALUED
        else:
            return word
    return None


def _reads_stdin(words: Sequence[str]) -> bool:
    """Whether ``-f``/``--filename`` names ``-``, standard input."""
    for at, word in enumerate(words):
        if word in ("-f", "--filename") and words[at + 1 : at + 2] == ["-"]:
            return True
        if word in ("-f-", "-f=-", "--filename=-"):
            return True
    return False


def _read(
    path: str, body: Heredoc, substituted: bool, locate: Locator, placeholders: set[int]
) -> list[Invocation]:
    """The launches of one applied body, at their file positions."""
    expanded = list(body.expanded)
    if substituted:
        expanded.extend(m.span() for m in _ENVSUBST_REFERENCE.finditer(body.text))
    unknown = {at for start, end in expanded for at in range(start, end)}
    if placeholders:
        unknown.update(at for at, offset in enumerate(body.offsets[:-1]) if offset in placeholders)
    source = yamlpos.SourceIndex(body.text)
    unresolved = {source.pos(at): body.text[at] for at in unknown}
    from vlint.extract import kubernetes  # lazy: only a script that applies a manifest reads one

    try:
        documents = yamlpos.parse_documents(body.text)
        found = kubernetes.extract_documents(path, source, documents, kubernetes.KIND,
                                             unresolved, substituted=False)
    except Unparsable:
        return []  # not YAML as written (a template the shell fills): nothing to read
    move = _mover(body, locate)
    # The shell text leads the origin even when the manifest's container runs a shell itself.
    return [replace(moved(invocation, move), origin=("shell", *invocation.origin))
            for invocation in found]


def _mover(body: Heredoc, locate: Locator) -> Callable[[Pos], Pos]:
    """Moves a position in the body alone to the file, through the shell text's offsets."""
    lines = LineIndex.of(body.text)
    last = len(body.offsets) - 1

    def move(pos: Pos) -> Pos:
        return locate(body.offsets[min(max(lines.offset(pos), 0), last)])

    return move
