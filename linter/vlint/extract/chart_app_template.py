"""The bjw-s ``app-template`` chart (its ``common`` library): each container of
``controllers.<controller>.containers.<name>`` (and ``initContainers``) as the Kubernetes
container the library renders.

Read from bjw-s/helm-charts, commit a19bb622a206d9fdca05d6e1561e532a33490f5b,
``charts/library/common/templates/lib/``: ``controller/_enabled_controllers.tpl`` and
``controller/_enabled_containers.tpl`` (a controller or container with ``enabled: false`` is
not rendered), ``container/_valuesToObject.tpl`` (``defaultContainerOptions`` of the controller
fill every key a container leaves empty, under the default ``overwrite`` strategy),
``container/_spec.tpl`` with ``container/fields/_image.tpl`` (``image`` is
``repository:tag``), ``fields/_command.tpl`` and ``fields/_args.tpl`` (a list, or one string
as a single word), and ``fields/_env.tpl`` (``env`` as a list of Kubernetes entries, or a map
of names to a value or to a mapping holding ``value`` or ``valueFrom``).

The container's argv is then read as the kubelet runs it (``vlint.extract.kubernetes``):
``command`` replaces the image's entrypoint, ``args`` alone are a vLLM server image's
arguments.  The GPUs come from ``resources``; ``envFrom`` makes the environment incomplete.
Probes and ``persistence`` mounts are not read.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from vlint.extract import deployment, kubernetes
from vlint.extract.argv import recognise_all
from vlint.extract.chart_values import get, image, is_false, server_image, truth, value, words
from vlint.knowledge.images import image_entry
from vlint.model import Deployment, EnvVar, Invocation, Token
from vlint.syntax import yamlpos

if TYPE_CHECKING:
    from ruamel.yaml.nodes import Node

    from vlint.extract.kubernetes import _Reader

KEY = "controllers"
_CONTAINER_MAPS = ("containers", "initContainers")


def matches(node: Node) -> bool:
    """A values mapping of the chart: ``controllers`` whose controllers hold container maps."""
    controllers = get(node, KEY)
    if controllers is None or yamlpos.mapping_node(controllers) is None:
        return False
    return any(
        yamlpos.mapping_node(get(controller, name)) is not None
        for _, controller in yamlpos.mapping_items(controllers)
        for name in _CONTAINER_MAPS
    )


def read(reader: _Reader, node: Node) -> list[Invocation]:
    """Every vLLM launch among the enabled controllers' containers."""
    found: list[Invocation] = []
    controllers = yamlpos.mapping_node(get(node, KEY))
    if controllers is None:
        return found
    for _, controller in yamlpos.mapping_items(controllers):
        if yamlpos.mapping_node(controller) is None or is_false(reader, get(controller, "enabled")):
            continue
        defaults = get(controller, "defaultContainerOptions")
        for name in _CONTAINER_MAPS:
            containers = yamlpos.mapping_node(get(controller, name))
            if containers is None:
                continue
            for _, container in yamlpos.mapping_items(containers):
                if id(container) in reader.containers or yamlpos.mapping_node(container) is None:
                    continue
                reader.containers.add(id(container))
                if not is_false(reader, get(container, "enabled")):
                    found.extend(_container(reader, container, defaults))
    return found


def _field(reader: _Reader, container: Node, defaults: Node | None, key: str) -> Node | None:
    """A container's key, or the controller's default when the container's is empty."""
    own = get(container, key)
    if own is not None and truth(reader, own) is not False:
        return own
    fallback = get(defaults, key)
    return fallback if fallback is not None else own


def _container(reader: _Reader, container: Node, defaults: Node | None) -> list[Invocation]:
    reference = image(reader, _field(reader, container, defaults, "image"))
    server = server_image(reference)
    target = kubernetes.vllm_release(reference.value if reference is not None else None)
    env = _env(reader, _field(reader, container, defaults, "env"))
    values = {name: variable.value for name, variable in env.items()}
    command = words(reader, _field(reader, container, defaults, "command"))
    if command is not None:
        command = [kubernetes.expand(word, values, reader.budget) for word in command]
    args = [kubernetes.expand(word, values, reader.budget)
            for word in words(reader, _field(reader, container, defaults, "args")) or []]
    resources = _field(reader, container, defaults, "resources")
    facts = Deployment(
        image=reference,
        env=env,
        env_complete=_field(reader, container, defaults, "envFrom") is None,
        gpus=reader.gpus(resources),
    )

    def finish(found: Sequence[Invocation]) -> list[Invocation]:
        return [deployment.enclosed(i, reader.kind, facts, target) for i in found]

    if command:
        found = recognise_all([*command, *args], path=reader.path, kind=reader.kind)
        if not found and args:
            # An entrypoint script that ends with `exec "$@"` runs the args as given.
            found = recognise_all(args, path=reader.path, kind=reader.kind)
        return finish(found)
    if args:
        return finish(recognise_all(args, path=reader.path, kind=reader.kind,
                                    image=server.value if server is not None else None))
    if server is None:
        return []
    return [Invocation(reader.path, (reader.kind,), "cli", server.span, deployment=facts,
                       target=target, entry=image_entry(target))]


def _env(reader: _Reader, node: Node | None) -> dict[str, EnvVar]:
    """``env`` as a Kubernetes list, or a map of names to values or to ``{value: ...}`` /
    ``{valueFrom: ...}`` mappings (a value from a secret or a field is set, but unknown)."""
    if node is None or yamlpos.mapping_node(node) is None:
        return reader.env(node)
    env: dict[str, EnvVar] = {}
    for key, held in yamlpos.mapping_items(node):
        name = reader.token(key)
        if name is None or not name.literal:
            continue
        if yamlpos.mapping_node(held) is not None:
            given = get(held, "value")
            if given is not None:
                env[name.text] = deployment.named(name, value(reader, given))
            else:
                env[name.text] = deployment.named(
                    name, Token("", (name.span.end,), literal=False))
            continue
        token = reader.token(held)
        env[name.text] = deployment.named(name, token if token is not None
                                          else Token("", (name.span.end,)))
    return env
