"""The vLLM production stack's chart (``vllm-stack``): each ``servingEngineSpec.modelSpec[]``
entry as the ``vllm serve`` command its template writes.

Read from vllm-project/production-stack ``helm/templates/deployment-vllm-multi.yaml`` (and
``helm/templates/_helpers.tpl`` for ``chart.resources`` and ``chart.container-port``), commit
a6c01db05f65f556235413ba8dbcfb0c01132fff; for an entry with ``raySpec.enabled`` the command is
the ``ARGS`` array of the ``vllm-entrypoint.sh`` ConfigMap in ``helm/templates/ray-cluster.yaml``
instead.  The container's command is ``vllm serve MODELURL --host 0.0.0.0 --port PORT`` then,
in this order:

- ``enableLoRA`` (true) ``--enable-lora``; ``enableTool`` (true) ``--enable-auto-tool-choice``;
  ``toolCallParser`` ``--tool-call-parser V``;
- ``vllmConfig``: ``enableChunkedPrefill`` (written) ``--enable-chunked-prefill`` or
  ``--no-enable-chunked-prefill``; ``enablePrefixCaching`` ``--enable-prefix-caching``, or
  ``--no-enable-prefix-caching`` when written false (the Ray script writes nothing then);
  ``maxModelLen`` ``--max-model-len``, ``dtype`` ``--dtype``, ``tensorParallelSize``
  ``--tensor-parallel-size``, ``maxNumSeqs`` ``--max-num-seqs``, ``gpuMemoryUtilization``
  ``--gpu_memory_utilization``, ``maxLoras`` ``--max_loras``, ``runner`` ``--runner``,
  ``convert`` ``--convert`` (the Ray script: ``pipelineParallelSize``
  ``--pipeline-parallel-size``, dashes in ``--gpu-memory-utilization`` and ``--max-loras``, no
  ``runner``/``convert``, and ``--distributed-executor-backend ray``), then ``extraArgs``;
- ``modelRevision`` ``--revision V``; ``chatTemplate`` ``--chat-template /templates/V`` (the
  Ray script: ``V``).

What is not read: ``--host 0.0.0.0`` (vLLM's own default binds every interface too) and
``--port`` unless ``servingEngineSpec.containerPort`` is written (the chart's default is
vLLM's, 8000); the ``--no-enable-prefix-caching`` the template writes when ``vllmConfig`` has
no ``enablePrefixCaching`` key (no place in the file says it); the ``--kv-transfer-config``
JSON that ``lmcacheConfig`` makes.  An entry with ``enabled: false``, or every entry when
``servingEngineSpec.enableEngine`` is false, deploys nothing.

The Deployment facet: the image ``repository:tag``; the environment (``servingEngineSpec.env``
and the entry's ``env`` lists, ``VLLM_API_KEY`` from ``servingEngineSpec.vllmApiKey``,
``VLLM_USE_V1=0`` from ``vllmConfig.v0: "1"``; incomplete with ``envFromSecret`` or
``servingEngineSpec.configs``); the GPUs from the entry's ``resources`` or ``requestGPU``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from vlint.extract import deployment, kubernetes
from vlint.extract.chart_values import (
    flag, get, image, is_false, items, key_token, made, stand_in, truth, value, whole,
)
from vlint.model import Deployment, EnvVar, GpuCount, Invocation, Located, Span, Token
from vlint.syntax import yamlpos

if TYPE_CHECKING:
    from ruamel.yaml.nodes import Node

    from vlint.extract.kubernetes import _Reader

KEY = "servingEngineSpec"

_DEPLOYMENT_FLAGS = (
    ("maxModelLen", "--max-model-len"),
    ("dtype", "--dtype"),
    ("tensorParallelSize", "--tensor-parallel-size"),
    ("maxNumSeqs", "--max-num-seqs"),
    ("gpuMemoryUtilization", "--gpu_memory_utilization"),
    ("maxLoras", "--max_loras"),
    ("runner", "--runner"),
    ("convert", "--convert"),
)
_RAY_FLAGS = (
    ("maxModelLen", "--max-model-len"),
    ("dtype", "--dtype"),
    ("tensorParallelSize", "--tensor-parallel-size"),
    ("pipelineParallelSize", "--pipeline-parallel-size"),
    ("maxNumSeqs", "--max-num-seqs"),
    ("gpuMemoryUtilization", "--gpu-memory-utilization"),
    ("maxLoras", "--max-loras"),
)


def matches(node: Node) -> bool:
    """A values mapping of the chart: ``servingEngineSpec`` holding a ``modelSpec`` list."""
    return bool(items(get(get(node, KEY), "modelSpec")))


def read(reader: _Reader, node: Node) -> list[Invocation]:
    """One launch per deployed ``modelSpec`` entry."""
    spec = get(node, KEY)
    if spec is None or is_false(reader, get(spec, "enableEngine")):
        return []
    found: list[Invocation] = []
    for entry in items(get(spec, "modelSpec")):
        # An entry listed again through a YAML alias is the same deployment, read once.
        if id(entry) in reader.containers or yamlpos.mapping_node(entry) is None:
            continue
        reader.containers.add(id(entry))
        if not is_false(reader, get(entry, "enabled")):
            found.append(_launch(reader, spec, entry))
    return found


def _pair(reader: _Reader, node: Node, key: str, text: str) -> list[Token]:
    """``--flag VALUE`` for a key the template writes when present (``hasKey``)."""
    held = get(node, key)
    name = key_token(reader, node, key)
    if held is None or name is None:
        return []
    return [flag(text, name), value(reader, held)]


def _switch(reader: _Reader, node: Node, key: str, on: str, off: str | None) -> list[Token]:
    """The flag an ``if`` on a written key chooses (``off`` None: nothing when false)."""
    name = key_token(reader, node, key)
    if name is None:
        return []
    held = truth(reader, get(node, key))
    if held is None:
        return [flag(on, name).with_text(on, literal=False)]
    if held:
        return [flag(on, name)]
    return [flag(off, name)] if off is not None else []


def _launch(reader: _Reader, spec: Node, entry: Node) -> Invocation:
    ray = truth(reader, get(get(entry, "raySpec"), "enabled")) is True
    model_node = get(entry, "modelURL")
    model = value(reader, model_node) if model_node is not None else None
    start = reader.source.pos(entry.start_mark.index)
    if model is None:
        model = stand_in("MODEL", start)
    args: list[Token] = [model]
    args += _pair(reader, spec, "containerPort", "--port")
    ray_key = key_token(reader, entry, "raySpec")
    if ray and ray_key is not None:
        at = ray_key.sub_span(0)
        args += [made("--distributed-executor-backend", at), made("ray", at)]
    args += _switch(reader, entry, "enableLoRA", "--enable-lora", None)
    args += _switch(reader, entry, "enableTool", "--enable-auto-tool-choice", None)
    if truth(reader, get(entry, "toolCallParser")) is not False:
        args += _pair(reader, entry, "toolCallParser", "--tool-call-parser")
    config = get(entry, "vllmConfig")
    if config is not None and yamlpos.mapping_node(config) is not None:
        args += _config(reader, config, ray)
    if truth(reader, get(entry, "modelRevision")) is not False:
        args += _pair(reader, entry, "modelRevision", "--revision")
    if truth(reader, get(entry, "chatTemplate")) is not False:
        template = _pair(reader, entry, "chatTemplate", "--chat-template")
        if template and not ray:
            written = template[1]
            prefix = made("/templates/", Span(written.pos(0), written.pos(0)))
            template[1] = Token(
                prefix.text + written.text,
                (*prefix.positions[:-1], *written.positions),
                written.literal,
                unwritten=len(prefix.text),
            )
        args += template
    image_at = image(reader, entry)
    return Invocation(
        reader.path,
        (reader.kind,),
        "cli",
        model.sub_span(0) if model_node is not None else Span(start, start),
        entry="serve",
        args=tuple(args),
        deployment=deployment.pod_by_controller(Deployment(
            image=image_at,
            env=_environment(reader, spec, entry),
            env_complete=not (truth(reader, get(entry, "envFromSecret"))
                              or truth(reader, get(spec, "configs"))),
            gpus=_gpus(reader, entry),
        ), model.sub_span(0) if model_node is not None else Span(start, start)),
        target=kubernetes.vllm_release(image_at.value if image_at is not None else None),
    )


def _config(reader: _Reader, config: Node, ray: bool) -> list[Token]:
    args: list[Token] = []
    if get(config, "enableChunkedPrefill") is not None:
        args += _switch(reader, config, "enableChunkedPrefill", "--enable-chunked-prefill",
                        "--no-enable-chunked-prefill")
    args += _switch(reader, config, "enablePrefixCaching", "--enable-prefix-caching",
                    None if ray else "--no-enable-prefix-caching")
    for key, text in _RAY_FLAGS if ray else _DEPLOYMENT_FLAGS:
        args += _pair(reader, config, key, text)
    extra = get(config, "extraArgs")
    if extra is not None:
        args += reader.words(extra) or []
    return args


def _environment(reader: _Reader, spec: Node, entry: Node) -> dict[str, EnvVar]:
    env: dict[str, EnvVar] = {}
    config = get(entry, "vllmConfig")
    v0 = get(config, "v0")
    v0_key = key_token(reader, config, "v0") if config is not None and v0 is not None else None
    if v0_key is not None and v0 is not None:
        written = value(reader, v0)
        if written.literal and written.text == "1":
            env["VLLM_USE_V1"] = EnvVar("VLLM_USE_V1", made("0", written.sub_span(0)),
                                        v0_key.sub_span(0))
    api_key = key_token(reader, spec, "vllmApiKey")
    if api_key is not None and truth(reader, get(spec, "vllmApiKey")) is not False:
        # A secret reference (secretKeyRef) in the container: set, but not known.
        env["VLLM_API_KEY"] = EnvVar("VLLM_API_KEY", Token("", (api_key.span.end,), False),
                                     api_key.sub_span(0))
    env.update(reader.env(get(spec, "env")))
    env.update(reader.env(get(entry, "env")))
    return env


def _gpus(reader: _Reader, entry: Node) -> Located[GpuCount | None] | None:
    resources = get(entry, "resources")
    if truth(reader, resources):
        return reader.gpus(resources)
    request = reader.token(get(entry, "requestGPU"))
    if request is None:
        return None
    if not request.literal:
        return deployment.at(request, None)
    count = whole(request)
    return deployment.at(request, count) if count else None
