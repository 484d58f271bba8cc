"""The llm-d ``llm-d-modelservice`` chart: each container of ``decode.containers[]`` and
``prefill.containers[]`` as the command its ``modelCommand`` makes.

Read from llm-d-incubation/llm-d-modelservice, commit
3051935eb5a49f6df21cd6aeb5e4f05b98799262, ``charts/llm-d-modelservice/templates/_helpers.tpl``
(``llm-d-modelservice.command`` and the three commands it chooses between,
``argsByProtocol``, ``vllmPort``, ``tensorParallelism``, ``dataParallelism``,
``dataLocalParallelism``) with ``decode-deployment.yaml`` and ``prefill-deployment.yaml``
(``decode.create``/``prefill.create``):

- ``modelCommand: vllmServe``: ``vllm serve MODEL --port PORT`` then ``--tensor-parallel-size``
  ``parallelism.tensor``, ``--data-parallel-size`` ``parallelism.data`` and
  ``--data-parallel-size-local`` ``parallelism.dataLocal`` (each only above 1),
  ``--served-model-name modelArtifacts.name``, then the container's ``args``;
- ``modelCommand: imageDefault``: the same words after ``--model`` given to the image's own
  entrypoint (read only for a vLLM server image, whose entrypoint is known);
- ``modelCommand: custom`` (the default): the container's ``command`` and ``args``.

``MODEL`` comes from ``modelArtifacts.uri``: ``hf://ID`` is ``ID`` (at its characters); a
``pvc://`` or ``pvc+hf://`` path becomes a path of the chart's making, not literal.  ``PORT``
is ``routing.servicePort`` for a prefill container or when ``routing.proxy.enabled`` is false,
else ``routing.proxy.targetPort``; where the file does not write it, the chart's default
decides and the value is not literal (placed at ``modelCommand``).  A data parallel size the
chart computes from ``dataLocal`` and ``workers`` is not read.  The container's ``env`` list,
image, ``resources``, ``ports``, probes and ``volumeMounts`` with the role's ``volumes`` fill the
Deployment facet; the GPUs the chart adds from ``parallelism`` and ``accelerator`` are not read.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from vlint.extract import deployment, kubernetes
from vlint.extract.argv import recognise_all
from vlint.extract.chart_values import (
    flag, get, image, is_false, items, key_token, made, server_image, stand_in, value, whole,
    words,
)
from vlint.knowledge.images import image_entry
from vlint.model import Invocation, Token
from vlint.syntax import yamlpos

if TYPE_CHECKING:
    from ruamel.yaml.nodes import Node

    from vlint.extract.kubernetes import _Reader

ROLES = ("decode", "prefill")
_PARALLELISM = (
    ("tensor", "--tensor-parallel-size"),
    ("data", "--data-parallel-size"),
    ("dataLocal", "--data-parallel-size-local"),
)


def matches(node: Node) -> bool:
    """A values mapping of the chart: ``modelArtifacts`` beside ``decode`` or ``prefill``."""
    return get(node, "modelArtifacts") is not None and any(
        yamlpos.mapping_node(get(node, role)) is not None for role in ROLES
    )


def read(reader: _Reader, node: Node) -> list[Invocation]:
    """Every vLLM launch among the created roles' containers; each container read here is
    marked read, so that the manifest walk does not read it again."""
    found: list[Invocation] = []
    for role in ROLES:
        spec = yamlpos.mapping_node(get(node, role))
        if spec is None:
            continue
        created = not is_false(reader, get(spec, "create"))
        for container in items(get(spec, "containers")):
            if id(container) in reader.containers or yamlpos.mapping_node(container) is None:
                continue
            reader.containers.add(id(container))
            if created:
                found.extend(_container(reader, node, role, spec, container))
    return found


def _container(
    reader: _Reader, values: Node, role: str, spec: Node, container: Node
) -> list[Invocation]:
    reference = image(reader, get(container, "image"))
    server = server_image(reference)
    target = kubernetes.vllm_release(reference.value if reference is not None else None)
    env = reader.env(get(container, "env"))
    expanded = {name: variable.value for name, variable in env.items()}
    args = [kubernetes.expand(w, expanded, reader.budget)
            for w in words(reader, get(container, "args")) or []]
    # The chart writes the container's own fields and the role's pod fields (``volumes``)
    # as given (templates/_helpers.tpl, "llm-d-modelservice.modelPod" and ".container").
    facts = replace(reader.facts(container, spec), image=reference, env=env)
    chosen = reader.token(get(container, "modelCommand"))
    mode = chosen.text if chosen is not None and chosen.literal else "custom"
    if chosen is not None and not chosen.literal:
        return []
    if mode == "custom":
        command = words(reader, get(container, "command"))
        if not command:
            return []  # the chart fails: "a `command` is required"
        command = [kubernetes.expand(w, expanded, reader.budget) for w in command]
        found = recognise_all([*command, *args], path=reader.path, kind=reader.kind)
        return [deployment.enclosed(i, reader.kind, facts, target) for i in found]
    if mode not in ("vllmServe", "imageDefault") or chosen is None:
        return []
    made_args = _model_command(reader, values, role, spec, chosen, mode == "imageDefault")
    if mode == "imageDefault" and server is None:
        return []
    return [
        Invocation(
            reader.path,
            (reader.kind,),
            "cli",
            chosen.sub_span(0),
            entry="serve" if mode == "vllmServe" else image_entry(target),
            entry_from_image=mode != "vllmServe",
            args=(*made_args, *args),
            deployment=facts,
            target=target,
        )
    ]


def _model_command(
    reader: _Reader, values: Node, role: str, spec: Node, chosen: Token, model_flag: bool
) -> list[Token]:
    at = chosen.sub_span(0)
    words_out: list[Token] = []
    if model_flag:
        words_out.append(made("--model", at))
    words_out.append(_model(reader, values, chosen))
    words_out.extend(_port(reader, values, role, chosen))
    parallelism = get(spec, "parallelism")
    for key, text in _PARALLELISM:
        held = get(parallelism, key)
        name = key_token(reader, parallelism, key) if parallelism is not None else None
        if held is None or name is None:
            continue
        written = value(reader, held)
        count = whole(written)
        if count is not None and count <= 1:
            continue
        if count is None and written.literal:
            continue  # not a number: the chart's `int` makes it 0
        words_out += [flag(text, name), written]
    artifacts = get(values, "modelArtifacts")
    name_node = get(artifacts, "name")
    words_out.append(made("--served-model-name", at))
    words_out.append(value(reader, name_node) if name_node is not None
                     else stand_in("", at.start))
    return words_out


def _model(reader: _Reader, values: Node, chosen: Token) -> Token:
    uri_node = get(get(values, "modelArtifacts"), "uri")
    uri = reader.token(uri_node)
    if uri is None:
        return stand_in("MODEL", chosen.pos(0))
    if uri.text.startswith("hf://"):
        return uri.slice(len("hf://"))
    return uri.with_text(uri.text, literal=False)


def _port(reader: _Reader, values: Node, role: str, chosen: Token) -> list[Token]:
    routing = get(values, "routing")
    proxy = get(routing, "proxy")
    enabled = get(proxy, "enabled")  # the chart's default is true
    direct = role == "prefill" or (enabled is not None and is_false(reader, enabled))
    holder, key = (routing, "servicePort") if direct else (proxy, "targetPort")
    held = get(holder, key)
    name = key_token(reader, holder, key) if holder is not None and held is not None else None
    if held is None or name is None:
        at = chosen.sub_span(0)
        return [made("--port", at), stand_in("PORT", at.start)]
    return [flag("--port", name), value(reader, held)]
