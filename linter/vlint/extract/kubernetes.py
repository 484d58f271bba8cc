"""Kubernetes manifests: every container (and init container) that launches vLLM.

Containers are found by walking each document for ``containers:`` / ``initContainers:`` lists,
wherever they sit, so Deployments, StatefulSets, Jobs, CronJobs, Pods, LeaderWorkerSets, KubeRay
clusters, KServe runtimes and any custom resource holding a pod template are read alike.  A
container's argv is joined as the container runtime joins it: ``command:`` replaces the image's
entrypoint and ``args:`` its default arguments, so ``args:`` alone on a vLLM server image are the
server's own arguments.  ``$(VAR)`` references are expanded from the container's literal
``env:`` values, as the kubelet does; what cannot be known statically stays as written and is not
literal.  Expansion is bounded: once the values substituted in one file pass ``MAX_EXPANDED``
characters (``B: $(A)$(A)``, ``C: $(B)$(B)``, ... doubles at every entry), the file is
unparsable (VL002) rather than expanded.  A container listed again through a YAML alias is the
same container, read once.  Two argument lists outside containers are read too, because the controller that owns
them passes them to vLLM's API server unchanged: a KServe ``model:`` whose ``modelFormat`` is
vLLM, and a KubeAI-style resource with ``engine: VLLM`` and ``args:``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from vlint.model import Invocation, Pos, Span, Token

if TYPE_CHECKING:
    from ruamel.yaml.nodes import Node

    from vlint.syntax.yamlpos import SourceIndex

KIND = "kubernetes"
_API_VERSION = re.compile(rb"^apiVersion:", re.MULTILINE)
_KIND = re.compile(rb"^kind:", re.MULTILINE)
_REFERENCE = re.compile(r"\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)")
_CONTAINER_LISTS = ("containers", "initContainers")
# No manifest substitutes a megabyte of variable values; forty doubling env entries would
# substitute a terabyte.
MAX_EXPANDED = 1 << 20
_MAX_DEPTH = 64

# Characters of the file that stand for values nobody can know statically (Helm templates),
# with the character originally written there.
Unresolved = Mapping[Pos, str]


def claims(path: str, data: bytes) -> bool:
    """A Kubernetes resource: top-level ``apiVersion:`` and ``kind:`` keys."""
    return bool(_API_VERSION.search(data) and _KIND.search(data))


def extract(path: str, text: str) -> list[Invocation]:
    """Every vLLM launch in a (multi-document) manifest; raises Unparsable on invalid YAML."""
    from vlint.errors import Unparsable
    from vlint.syntax import yamlpos

    try:
        documents = yamlpos.parse_documents(text)
    except Unparsable:
        # YAML allows tabs in trailing white space, ruamel does not: retry without them.
        untabbed = _untab_trailing_blanks(text)
        if untabbed == text:
            raise
        documents = yamlpos.parse_documents(untabbed)
    return extract_documents(path, yamlpos.SourceIndex(text), documents, KIND, {})


def _untab_trailing_blanks(text: str) -> str:
    """``text`` with the tabs of each line's trailing blanks (after some text) made spaces."""
    lines = text.split("\n")
    for number, line in enumerate(lines):
        body = line.removesuffix("\r")
        kept = body.rstrip(" \t")
        if kept.strip() and "\t" in body[len(kept) :]:
            lines[number] = kept + " " * (len(body) - len(kept)) + line[len(body) :]
    return "\n".join(lines)


def extract_documents(
    path: str, source: SourceIndex, documents: Sequence[Node], kind: str, unresolved: Unresolved
) -> list[Invocation]:
    reader = _Reader(path, source, kind, unresolved)
    for document in documents:
        reader.note_runtime(document)
    found: list[Invocation] = []
    for document in documents:
        found.extend(reader.walk(document, 0))
    return found


class _Reader:
    def __init__(self, path: str, source: SourceIndex, kind: str, unresolved: Unresolved) -> None:
        self.path = path
        self.source = source
        self.kind = kind
        self.unresolved = unresolved
        # KServe serving runtimes of this file: name -> their first container.
        self.runtimes: dict[str, Node] = {}
        # Nodes walked already: an alias is its anchored node again, and walking it once per
        # alias would take exponential time on nested aliases ("billion laughs").
        self.walked: set[int] = set()
        self.containers: set[int] = set()
        self.budget = Budget()
        # Scalars read already: an alias repeats its node (20,000 aliases of one argument).
        self.tokens: dict[int, Token | None] = {}

    def note_runtime(self, document: Node) -> None:
        from vlint.syntax import yamlpos

        if yamlpos.mapping_node(document) is None:
            return
        kind = self.token(yamlpos.mapping_get(document, "kind"))
        if kind is None or kind.text not in ("ServingRuntime", "ClusterServingRuntime"):
            return
        metadata = yamlpos.mapping_get(document, "metadata")
        spec = yamlpos.mapping_get(document, "spec")
        if metadata is None or spec is None or yamlpos.mapping_node(metadata) is None:
            return
        name = self.token(yamlpos.mapping_get(metadata, "name"))
        containers = yamlpos.mapping_get(spec, "containers") if yamlpos.mapping_node(spec) else None
        items = yamlpos.sequence_items(containers) if containers is not None else []
        if name is not None and name.literal and items:
            self.runtimes[name.text] = items[0]

    # -- values ---------------------------------------------------------------------------

    def token(self, node: Node | None) -> Token | None:
        """A scalar as a token; one that touches a template placeholder is not literal."""
        if node is None:
            return None
        if id(node) not in self.tokens:
            self.tokens[id(node)] = self._token(node)
        return self.tokens[id(node)]

    def _token(self, node: Node) -> Token | None:
        from vlint.syntax import yamlpos

        if not yamlpos.is_scalar(node) or yamlpos.is_null(node):
            return None
        value = yamlpos.scalar_value(node)
        positions = yamlpos.scalar_positions(self.source, node)
        literal = not any(p in self.unresolved for p in positions[:-1])
        return Token(value, positions, literal)

    def words(self, node: Node | None) -> list[Token] | None:
        """A list of strings (``command:``, ``args:``); None when absent or not a list."""
        from vlint.syntax import yamlpos

        if node is None or yamlpos.is_null(node):
            return None
        if yamlpos.is_scalar(node):
            return None
        words: list[Token] = []
        for item in yamlpos.sequence_items(node):
            word = self.token(item)
            if word is not None:
                words.append(word)
        return words

    def list_span(self, node: Node) -> Span:
        """From a list's first item to the end of its last (a block list's own end mark is
        at the next key)."""
        from vlint.syntax import yamlpos

        items = yamlpos.sequence_items(node) or [node]
        return Span(
            self.source.pos(items[0].start_mark.index), self.source.pos(items[-1].end_mark.index)
        )

    def env(self, node: Node | None) -> dict[str, Token]:
        """``env:`` as a list of name/value entries (Kubernetes) or a name -> value mapping."""
        from vlint.syntax import yamlpos

        env: dict[str, Token] = {}
        if node is None:
            return env
        for item in yamlpos.sequence_items(node):
            if yamlpos.mapping_node(item) is None:
                continue
            name = self.token(yamlpos.mapping_get(item, "name"))
            if name is None or not name.literal:
                continue
            value_node = yamlpos.mapping_get(item, "value")
            value = self.token(value_node)
            if value is not None:
                env[name.text] = expand(value, env, self.budget)
            elif value_node is not None and yamlpos.is_null(value_node):
                env[name.text] = Token("", (name.span.end,))
            else:
                # valueFrom (a secret, a config map, a field): known only at run time.
                env[name.text] = Token("", (name.span.end,), literal=False)
        if yamlpos.mapping_node(node) is not None:
            for key, value_node in yamlpos.mapping_items(node):
                value = self.token(value_node)
                if value is not None:
                    env[str(key.value)] = value
        return env

    # -- structure ------------------------------------------------------------------------

    def walk(self, node: Node, depth: int) -> list[Invocation]:
        from vlint.syntax import yamlpos

        if depth > _MAX_DEPTH or id(node) in self.walked:
            return []
        self.walked.add(id(node))
        found: list[Invocation] = []
        if yamlpos.mapping_node(node) is not None:
            found.extend(self.engine_args(node))
            for key, value in yamlpos.mapping_items(node):
                if key.value in _CONTAINER_LISTS and yamlpos.sequence_items(value):
                    for container in yamlpos.sequence_items(value):
                        if id(container) not in self.containers:
                            self.containers.add(id(container))
                            found.extend(self.container(container))
                else:
                    found.extend(self.walk(value, depth + 1))
        else:
            for item in yamlpos.sequence_items(node):
                found.extend(self.walk(item, depth + 1))
        return found

    def container(
        self, node: Node, more_args: Sequence[Token] = (), more_env: Mapping[str, Token] | None = None
    ) -> list[Invocation]:
        from vlint.syntax import yamlpos
        from vlint.extract.argv import is_server_image, recognise_all

        if yamlpos.mapping_node(node) is None:
            return []
        image_token = self.token(yamlpos.mapping_get(node, "image"))
        image = image_token.text if image_token is not None and image_token.literal else None
        server_image = image is not None and is_server_image(image)
        env = {**self.env(yamlpos.mapping_get(node, "env")), **(more_env or {})}
        command = self.words(yamlpos.mapping_get(node, "command"))
        args = self.words(yamlpos.mapping_get(node, "args"))
        command = (
            [expand(word, env, self.budget) for word in command] if command is not None else None
        )
        args = [expand(word, env, self.budget) for word in [*(args or ()), *more_args]]
        target = vllm_release(image)

        def finish(found: Sequence[Invocation]) -> list[Invocation]:
            return [
                replace(
                    invocation,
                    kind=self.kind,
                    env={**env, **invocation.env},
                    image=image,
                    target=invocation.target or target,
                )
                for invocation in found
            ]

        if command:
            # An explicit command replaces the image's entrypoint: the image no longer matters.
            found = recognise_all(
                [*command, *args], path=self.path, kind=self.kind, env=env
            )
            if not found and args:
                # Entrypoint scripts commonly end with `exec "$@"`, running the args as given.
                found = recognise_all(args, path=self.path, kind=self.kind, env=env)
            return finish(found)
        if args:
            return finish(
                recognise_all(
                    args,
                    path=self.path,
                    kind=self.kind,
                    env=env,
                    image=image if server_image else None,
                )
            )
        if server_image and image_token is not None:
            from vlint.extract.argv import image_entry

            return [
                Invocation(
                    self.path, self.kind, "cli", image_token.span, env=env, image=image,
                    target=target, entry=image_entry(target),
                )
            ]
        return []

    def engine_args(self, node: Node) -> list[Invocation]:
        """Argument lists a controller appends to vLLM's API server (KServe, KubeAI)."""
        from vlint.syntax import yamlpos

        args_node = yamlpos.mapping_get(node, "args")
        if args_node is None or not yamlpos.sequence_items(args_node):
            return []
        engine = self.token(yamlpos.mapping_get(node, "engine"))
        model_format = yamlpos.mapping_get(node, "modelFormat")
        format_name = (
            self.token(yamlpos.mapping_get(model_format, "name"))
            if model_format is not None and yamlpos.mapping_node(model_format) is not None
            else None
        )
        runtime = self.token(yamlpos.mapping_get(node, "runtime"))
        env = self.env(yamlpos.mapping_get(node, "env"))
        if runtime is not None and runtime.text in self.runtimes and model_format is not None:
            # KServe appends the model's args and env to its serving runtime's container.
            more = self.words(args_node) or []
            return self.container(self.runtimes[runtime.text], more, env)
        if not any(t is not None and t.text.lower() == "vllm" for t in (engine, format_name)):
            return []
        words = [expand(word, env, self.budget) for word in self.words(args_node) or []]
        if not words:
            return []
        return [
            Invocation(
                self.path,
                self.kind,
                "cli",
                self.list_span(args_node),
                entry="api_server",
                args=tuple(words),
                env=env,
            )
        ]


def vllm_release(image: str | None) -> str | None:
    """The vLLM release an image's tag names, for images of vLLM only.

    Other images' tags (``ghcr.io/llm-d/llm-d-cuda:v0.9.0``) version something else.
    """
    from vlint.extract.argv import release_from_image

    return release_from_image(image) if image is not None else None


class Budget:
    """The characters ``$(VAR)`` expansion may still substitute in one file."""

    def __init__(self) -> None:
        self.left = MAX_EXPANDED

    def spend(self, token: Token, env: Mapping[str, Token]) -> None:
        """Charge the most that expanding ``token`` can substitute, before doing it."""
        from vlint.errors import Unparsable

        self.left -= sum(
            len(value.text) for m in _REFERENCE.finditer(token.text)
            if m.group(1) is not None and (value := env.get(m.group(1))) is not None
        )
        if self.left < 0:
            raise Unparsable(
                f"$(VAR) references expand to more than {MAX_EXPANDED:,} characters",
                token.positions[0],
            )


def expand(token: Token, env: Mapping[str, Token], budget: Budget | None = None) -> Token:
    """Kubernetes' ``$(VAR)`` expansion of a command, argument or env value.

    ``$$`` is one ``$``; a defined variable's value sits at the start of its reference; a
    reference to a variable that is not literal, or not defined here (it may come from
    ``envFrom``), stays as written and makes the token not literal.
    """
    if "$" not in token.text:
        return token
    (budget or Budget()).spend(token, env)
    text: list[str] = []
    positions: list[Pos] = []
    literal = token.literal
    index = 0
    for match in _REFERENCE.finditer(token.text):
        text.append(token.text[index : match.start()])
        positions.extend(token.positions[index : match.start()])
        index = match.end()
        at = token.positions[match.start()]
        if match.group() == "$$":
            text.append("$")
            positions.append(at)
            continue
        value = env.get(match.group(1))
        if value is not None and value.literal:
            text.append(value.text)
            positions.extend([at] * len(value.text))
        else:
            text.append(match.group())
            positions.extend(token.positions[match.start() : match.end()])
            literal = False
    text.append(token.text[index:])
    positions.extend(token.positions[index:])
    return Token("".join(text), tuple(positions), literal)
