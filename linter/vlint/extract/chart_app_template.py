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
Probes follow ``container/fields/_probes.tpl``: a probe is rendered only when ``enabled``; a
``custom`` one is its ``spec`` (a Kubernetes probe), any other takes its handler from ``type``
(``TCP`` by default) and its port from ``port`` or the controller's primary service (not read:
the port is then unknown).  Mounts follow ``container/fields/_volumeMounts.tpl``: each enabled
``persistence`` item is mounted through its ``globalMounts`` and the
``advancedMounts.<controller>.<container>`` entries, at ``path`` (default ``/<item>``); an
``emptyDir`` item with ``medium: Memory`` is memory-backed, and its ``sizeLimit`` is the size
of ``/dev/shm`` when it is mounted there.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from vlint.extract import deployment, kubernetes
from vlint.extract.argv import recognise_container
from vlint.extract.chart_values import (
    get, image, is_false, items, key_token, server_image, truth, value, words,
)
from vlint.knowledge.images import image_entry
from vlint.model import (
    Deployment, EnvVar, Invocation, Located, Mount, Probe, ProbeKind, Token,
)
from vlint.syntax import yamlpos

if TYPE_CHECKING:
    from ruamel.yaml.nodes import Node

    from vlint.extract.kubernetes import _Reader

KEY = "controllers"
_CONTAINER_MAPS = ("containers", "initContainers")
_PROBES: tuple[ProbeKind, ...] = ("liveness", "readiness", "startup")
_PROBE_HANDLERS = ("httpGet", "tcpSocket", "grpc", "exec")
_PROBE_TYPES = {"TCP": "tcpSocket", "HTTP": "httpGet", "HTTPS": "httpGet", "GRPC": "grpc"}


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
    persistence = get(node, "persistence")
    for controller_key, controller in yamlpos.mapping_items(controllers):
        if yamlpos.mapping_node(controller) is None or is_false(reader, get(controller, "enabled")):
            continue
        defaults = get(controller, "defaultContainerOptions")
        for name in _CONTAINER_MAPS:
            containers = yamlpos.mapping_node(get(controller, name))
            if containers is None:
                continue
            for container_key, container in yamlpos.mapping_items(containers):
                if id(container) in reader.containers or yamlpos.mapping_node(container) is None:
                    continue
                reader.containers.add(id(container))
                if not is_false(reader, get(container, "enabled")):
                    mounts = _mounts(reader, persistence, str(controller_key.value),
                                     str(container_key.value))
                    found.extend(_container(reader, container, defaults, mounts))
    return found


def _field(reader: _Reader, container: Node, defaults: Node | None, key: str) -> Node | None:
    """A container's key, or the controller's default when the container's is empty."""
    own = get(container, key)
    if own is not None and truth(reader, own) is not False:
        return own
    fallback = get(defaults, key)
    return fallback if fallback is not None else own


def _container(
    reader: _Reader,
    container: Node,
    defaults: Node | None,
    mounts: tuple[tuple[Mount, Located[int | None] | None], ...],
) -> list[Invocation]:
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
        shm_size=next((size for mount, size in mounts
                       if mount.memory and mount.target.value == "/dev/shm"), None),
        probes=_probes(reader, _field(reader, container, defaults, "probes")),
        volumes=tuple(mount for mount, _ in mounts),
    )

    def finish(found: Sequence[Invocation]) -> list[Invocation]:
        return [deployment.enclosed(i, reader.kind, facts, target) for i in found]

    if command or args:
        written = reference.value if reference is not None else None
        return finish(recognise_container(command or (), args, path=reader.path, kind=reader.kind,
                                          image=written))
    if server is None:
        return []
    return [Invocation(reader.path, (reader.kind,), "cli", server.span, deployment=facts,
                       target=target, entry=image_entry(target), entry_from_image=True)]


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


def _probes(reader: _Reader, node: Node | None) -> tuple[Probe, ...]:
    found: list[Probe] = []
    for kind in _PROBES:
        held = get(node, kind)
        key = key_token(reader, node, kind) if node is not None else None
        if held is None or key is None or truth(reader, get(held, "enabled")) is not True:
            continue
        spec = get(held, "spec")
        if truth(reader, get(held, "custom")):
            handler = next((h for h in _PROBE_HANDLERS if get(spec, h) is not None), "")
            action = get(spec, handler) if handler else None
        else:
            written = reader.token(get(held, "type"))
            handler = _PROBE_TYPES.get(written.text if written is not None else "TCP", "")
            action = held
        port_token = reader.token(get(action, "port"))
        port: Located[int | str | None] | None = None
        if port_token is not None:
            number = deployment.port_number(port_token.text) if port_token.literal else None
            port = deployment.at(port_token, number or (port_token.text if port_token.literal
                                                        else None))
        found.append(Probe(
            kind, key.sub_span(0), handler or "none", port, reader.text(get(action, "path")),
            reader.number(get(spec, "initialDelaySeconds")),
            reader.number(get(spec, "periodSeconds")),
            reader.number(get(spec, "failureThreshold")),
        ))
    return tuple(found)


def _mounts(
    reader: _Reader, persistence: Node | None, controller: str, container: str
) -> tuple[tuple[Mount, Located[int | None] | None], ...]:
    """The container's mounts of ``persistence`` items, each with its memory ``sizeLimit``."""
    found: list[tuple[Mount, Located[int | None] | None]] = []
    if persistence is None or yamlpos.mapping_node(persistence) is None:
        return ()
    for key, item in yamlpos.mapping_items(persistence):
        name = reader.token(key)
        if name is None or yamlpos.mapping_node(item) is None:
            continue
        if is_false(reader, get(item, "enabled")):
            continue
        kind = reader.token(get(item, "type"))
        medium = reader.token(get(item, "medium"))
        memory = (kind is not None and kind.text == "emptyDir"
                  and medium is not None and medium.text == "Memory")
        limit = reader.token(get(item, "sizeLimit"))
        size = None if limit is None else deployment.at(
            limit, deployment.kubernetes_bytes(limit.text) if limit.literal else None)
        host = reader.token(get(item, "hostPath"))
        default: Located[str | None] = (
            deployment.at(host, host.text if host.literal else None)
            if kind is not None and kind.text == "hostPath" and host is not None
            else Located(f"/{name.text}", name.sub_span(0)))
        configured = truth(reader, get(item, "globalMounts")) or truth(
            reader, get(item, "advancedMounts"))
        entries = [*items(get(item, "globalMounts")),
                   *items(get(get(get(item, "advancedMounts"), controller), container))]
        targets = [default] if not configured else []
        for entry in entries:
            path = reader.token(get(entry, "path"))
            targets.append(default if path is None
                           else deployment.at(path, path.text if path.literal else None))
        found.extend((Mount(target, deployment.at(name, name.text), memory),
                      size if memory else None) for target in targets)
    return tuple(found)
