"""Taskfiles (go-task): the vLLM launches in the tasks' commands, read as the shell they are.

As go-task reads a Taskfile (https://taskfile.dev/docs/reference/schema, "Task" and "Command";
go-task/task ``taskfile/ast/task.go`` and ``cmd.go``, their ``UnmarshalYAML``):

- ``tasks.<name>`` is a command string, a list of commands, or a mapping whose ``cmds:`` lists
  commands and whose ``cmd:`` is one;
- a command is a string, or a mapping with ``cmd:`` (a ``for:`` loop's too) or ``defer:`` (a
  string run when the task ends); ``task:`` calls another task and runs nothing itself;
- each command is run by the shell interpreter library go-task uses, mvdan/sh (bash syntax;
  https://taskfile.dev/docs/guide, "`set` and `shopt`"), after Go's templates (``{{.MODEL}}``,
  ``{{.CLI_ARGS}}``) are expanded in it: vlint resolves no template, so the characters of each
  are an unresolved value, kept as written;
- ``env:`` at the top level and in a task gives the commands' environment, the task's over the
  top level's; a value is literal when it is a plain scalar without a template, unknown when it
  is ``sh:`` (a command's output) or holds one; ``dotenv:`` files are not read, so the
  environment is then incomplete (https://taskfile.dev/docs/guide, "Environment variables").

Each command is a YAML scalar (often a ``|`` block) handed to the shell extractor with a locator
built from the scalar's per-character file positions, so spans are exact in the Taskfile.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from vlint.discover import taskfile_claims
from vlint.extract import deployment, shell
from vlint.extract.expansions import hold, unresolving
from vlint.extract.nested import ExtractContext
from vlint.model import Deployment, EnvVar, Invocation, Token
from vlint.syntax import yamlpos
from vlint.syntax.lines import Chars
from vlint.syntax.templates import template_runs

if TYPE_CHECKING:
    from ruamel.yaml.nodes import Node, ScalarNode

    from vlint.syntax.yamlpos import SourceIndex

# The kind's claim lives with kind detection (``vlint.discover``).
claims = taskfile_claims

KIND = "taskfile"
MAX_VARIABLES = 200  # names per ``env:``; every launch carries them all


def extract(path: str, text: str, context: ExtractContext | None = None) -> list[Invocation]:
    """Every vLLM launch in the Taskfile's commands; raises Unparsable for invalid YAML."""
    context = context or ExtractContext((KIND,))
    source = yamlpos.SourceIndex(text)
    found: list[Invocation] = []
    for document in yamlpos.parse_documents(text):
        root = yamlpos.mapping_node(document)
        if root is None:
            continue
        top_env, top_complete = _env(source, root)
        tasks = yamlpos.mapping_node(yamlpos.mapping_get(root, "tasks"))
        for _, task in yamlpos.mapping_items(tasks) if tasks is not None else []:
            task_env, task_complete = _env(source, task)
            around = Deployment(env={**top_env, **task_env},
                                env_complete=top_complete and task_complete)
            for command in _commands(task):
                for invocation in _shell(path, source, command, context):
                    found.append(deployment.enclosed(invocation, KIND, around))
    return found


def _commands(task: Node) -> list[Node]:
    """The command scalars of a task, in order (go-task ``taskfile/ast/task.go``,
    ``Task.UnmarshalYAML``: a scalar, a sequence of commands, or a mapping with ``cmds:``
    and ``cmd:``)."""
    if yamlpos.is_scalar(task):
        return [task]
    if yamlpos.mapping_node(task) is None:
        return [found for item in yamlpos.sequence_items(task) for found in _command(item)]
    found: list[Node] = []
    for key in ("cmds", "cmd"):
        value = yamlpos.mapping_get(task, key)
        if value is None:
            continue
        items = [value] if key == "cmd" else yamlpos.sequence_items(value)
        found.extend(command for item in items for command in _command(item))
    return found


def _command(item: Node) -> list[Node]:
    """The shell text of one command, as go-task ``taskfile/ast/cmd.go`` (``Cmd.UnmarshalYAML``)
    reads it: a scalar; or a mapping whose ``defer:`` is a command (a scalar, or ``cmd:`` in
    it) or a task call, whose ``task:`` calls a task (no command of its own), or whose ``cmd:``
    is the command."""
    if yamlpos.is_scalar(item):
        return [item]
    if yamlpos.mapping_node(item) is None:
        return []
    deferred = yamlpos.mapping_get(item, "defer")
    if deferred is not None:
        if yamlpos.is_scalar(deferred):
            return [deferred]
        return _scalar(yamlpos.mapping_get(deferred, "cmd")) if yamlpos.mapping_node(
            deferred) is not None else []
    if yamlpos.mapping_get(item, "task") is not None:
        return []
    return _scalar(yamlpos.mapping_get(item, "cmd"))


def _scalar(node: Node | None) -> list[Node]:
    return [node] if node is not None and yamlpos.is_scalar(node) else []


def _shell(path: str, source: SourceIndex, node: Node, context: ExtractContext
           ) -> list[Invocation]:
    assert yamlpos.is_scalar(node)
    if yamlpos.is_null(node):
        return []
    value = yamlpos.scalar_value(node)
    chars = Chars.at(value, yamlpos.scalar_offsets(source, node), context.locator(source.text))
    held = hold(chars, template_runs(value))
    unresolved = unresolving(held, value)
    inner = context.inner(shell.KIND, held.locate)
    return [unresolved(invocation) for invocation in shell.extract(path, held.text, inner)]


def _env(source: SourceIndex, owner: Node) -> tuple[dict[str, EnvVar], bool]:
    """The ``env:`` of the top level or of a task (at most ``MAX_VARIABLES`` names), and
    whether the environment is complete (no ``dotenv:`` beside it)."""
    if yamlpos.mapping_node(owner) is None:
        return {}, True
    complete = yamlpos.mapping_get(owner, "dotenv") is None
    env_node = yamlpos.mapping_node(yamlpos.mapping_get(owner, "env"))
    env: dict[str, EnvVar] = {}
    for key, value in yamlpos.mapping_items(env_node) if env_node is not None else []:
        if len(env) >= MAX_VARIABLES:
            break
        name = yamlpos.scalar_token(source, key)
        env[name.text] = deployment.named(name, _value(source, key, value))
    return env, complete


def _value(source: SourceIndex, key: ScalarNode, value: Node) -> Token:
    """An ``env:`` value: literal when it is a scalar without a template; unknown (as written)
    for a template, ``sh:`` (the command's output) or any other shape, at the key when the
    value has no scalar of its own."""
    if yamlpos.is_scalar(value) and not yamlpos.is_null(value):
        return yamlpos.scalar_token(source, value, literal="{{" not in yamlpos.scalar_value(value))
    command = yamlpos.mapping_get(value, "sh") if yamlpos.mapping_node(value) else None
    if command is not None and yamlpos.is_scalar(command) and not yamlpos.is_null(command):
        return yamlpos.scalar_token(source, command, literal=False)
    return yamlpos.scalar_token(source, key, literal=False)
