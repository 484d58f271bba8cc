"""Kubernetes manifests: every container (and init container) that launches vLLM.

Containers are found by walking each document for ``containers:`` / ``initContainers:`` lists,
wherever they sit, so Deployments, StatefulSets, Jobs, CronJobs, Pods, LeaderWorkerSets, KubeRay
clusters, KServe runtimes and any custom resource holding a pod template are read alike; so are
the containers workflow engines write elsewhere (a Tekton Task's ``steps``/``sidecars`` with
their ``script``, an Argo template's ``container`` and ``script`` with its shell ``source``).  A
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

Custom resources whose controller writes the vLLM command from their fields
(``custom_resource``):

- KServe ``LLMInferenceService`` (``serving.kserve.io``): the controller's well-known config
  (kserve/kserve ``config/llmisvcconfig/config-llm-template.yaml`` and the
  ``*-worker-data-parallel`` / ``*-pipeline-parallel`` ones) runs ``vllm serve /mnt/models
  --served-model-name <spec.model.name> --port 8000``, then the flags of ``spec.parallelism``
  (``tensor`` -> ``--tensor-parallel-size``, ``pipeline`` -> ``--pipeline-parallel-size``,
  ``data`` -> ``--data-parallel-size``, ``dataLocal`` -> ``--data-parallel-size-local``,
  ``expert: true`` -> ``--enable-expert-parallel``), then ``${VLLM_ADDITIONAL_ARGS}`` (an
  unquoted expansion: split at blanks, no quote removal), then the ``main`` container's
  ``args``.  One launch for ``spec`` and one for ``spec.prefill`` when present (its own
  template and parallelism; ``spec.model`` is shared).  Only what the resource writes has a
  span; the controller's own words are not checked.
- production-stack ``VLLMRuntime`` (``production-stack.vllm.ai``): ``spec.model`` and
  ``spec.vllmConfig`` fields as the operator's flags (``_VLLM_RUNTIME``), ``extraArgs``,
  ``env``, and the image ``spec.deploymentConfig.image.{registry,name}``.
- KubeRay ``RayService``: ``spec.serveConfigV2`` is a Ray Serve config in a YAML string; its
  LLM configs are read by ``vlint.extract.ray_serve`` with positions through the string.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from vlint.errors import Unparsable
from vlint.extract import deployment
from vlint.extract.argv import SHELLS, recognise_container
from vlint.knowledge.images import image_entry, is_server_image, release_from_image
from vlint.knowledge.ray_serve import release_for_ray
from vlint.model import (
    Deployment, EnvVar, GpuCount, Invocation, Located, Mount, Port, Pos, Probe, ProbeKind,
    ServicePort, Span, Token,
)
from vlint.syntax import yamlpos
from vlint.discover import kubernetes_claims

# The kind's claim lives with kind detection (``vlint.discover``).
claims = kubernetes_claims

if TYPE_CHECKING:
    from vlint.extract.nested import ExtractContext
    from ruamel.yaml.nodes import Node

    from vlint.syntax.yamlpos import SourceIndex

KIND = "kubernetes"
_REFERENCE = re.compile(r"\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)")
_CONTAINER_LISTS = ("containers", "initContainers")
# Containers that workflow engines write in other places: a Tekton Task's ``steps`` and
# ``sidecars`` (https://tekton.dev/docs/pipelines/tasks/#defining-steps), each a container with
# an optional ``script``; an Argo Workflows template's ``container``, ``script`` (with its
# ``source``) and a container set's ``containers`` (https://argo-workflows.readthedocs.io/en/
# latest/fields/#template).
_STEP_LISTS = ("steps", "sidecars")
# KubeRay's resources: their pods form a Ray cluster (https://docs.ray.io/en/latest/cluster/
# kubernetes/getting-started.html).
_RAY_RESOURCES = frozenset({"RayCluster", "RayJob", "RayService"})
# The Services of one file matched against every container: a crafted file with thousands of
# both would cost their product.
MAX_SERVICES = 256
SHELL_SHEBANG = re.compile(r"#![ \t]*\S*/(?:env[ \t]+)?(?:ba|da|z|a)?sh\b")
_SINGLE_CONTAINERS = ("container", "script")
_GPU_RESOURCES = ("nvidia.com/gpu", "amd.com/gpu")
_PROBE_HANDLERS = ("httpGet", "tcpSocket", "grpc", "exec")
# No manifest substitutes a megabyte of variable values; forty doubling env entries would
# substitute a terabyte.
MAX_EXPANDED = 1 << 20
_MAX_DEPTH = 64

# Characters of the file that stand for values nobody can know statically (Helm templates),
# with the character originally written there.
Unresolved = Mapping[Pos, str]


def extract(path: str, text: str, context: ExtractContext | None = None) -> list[Invocation]:
    """Every vLLM launch in a (multi-document) manifest; raises Unparsable on invalid YAML."""
    return extract_documents(path, yamlpos.SourceIndex(text), documents_of(text), KIND, {})


def documents_of(text: str) -> list[Node]:
    """The manifest's documents; raises Unparsable on invalid YAML."""
    try:
        return yamlpos.parse_documents(text)
    except Unparsable:
        # YAML allows tabs in trailing white space, ruamel does not: retry without them.
        untabbed = _untab_trailing_blanks(text)
        if untabbed == text:
            raise
        return yamlpos.parse_documents(untabbed)


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
    path: str, source: SourceIndex, documents: Sequence[Node], kind: str, unresolved: Unresolved,
    *, substituted: bool = True,
) -> list[Invocation]:
    """The launches of parsed manifests; ``substituted`` is false for a manifest no tool
    rewrites before Kubernetes reads it (a heredoc the script hands straight to ``kubectl
    apply -f -``): a ``${VAR}`` there reaches the container as written."""
    reader = _Reader(path, source, kind, unresolved)
    reader.substituted = substituted
    for document in documents:
        reader.note_runtime(document)
        reader.note_config_map(document)
        reader.note_service(document)
    found: list[Invocation] = []
    for document in documents:
        reader.enter(document)
        found.extend(reader.custom_resource(document))
        found.extend(reader.walk(document, 0))
    return found


# A substitution written for a tool run over the manifest before Kubernetes reads it (envsubst,
# kustomize's or Flux's ``${VAR}``): https://www.gnu.org/software/gettext/manual/html_node/
# envsubst-Invocation.html, https://fluxcd.io/flux/components/kustomize/kustomizations/
# #post-build-variable-substitution.
_SUBSTITUTION = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*(?::?[-=?+][^{}]*)?\}")


def _has_image(node: Node) -> bool:
    return yamlpos.mapping_node(node) is not None and yamlpos.mapping_get(node, "image") is not None


def _with_images(node: Node) -> bool:
    """A list of containers (``image:`` in its items), not a list of step names (Argo's)."""
    return any(_has_image(item) for item in yamlpos.sequence_items(node))


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
        # Whether a ``${VAR}`` may be substituted before Kubernetes reads the manifest.
        self.substituted = True
        # The ``data`` of this file's ConfigMaps, by name.
        self.config_maps: dict[str, Node] = {}
        # The multi-node group of the document being walked (``Deployment.cluster``, ``nodes``).
        self.cluster: Located[str] | None = None
        self.nodes: Located[int | None] | None = None
        # The walked LeaderWorkerSet's templates: (start, end) offsets of each, and its role.
        self.roles: list[tuple[int, int, str]] = []
        # The file's Services (namespace as written, name) and the walked document's namespace.
        self.services: list[tuple[str | None, Located[str]]] = []
        self.namespace: str | None = None
        # The Services with a selector: namespace, selector, target ports.
        self.selectors: list[tuple[str | None, dict[str, str], tuple[ServicePort, ...]]] = []
        # The labels of the pod template being walked (None: not known), and its containers.
        self.labels: dict[str, str] | None = None
        self.pod_containers: int | None = None

    def note_service(self, document: Node) -> None:
        if yamlpos.mapping_node(document) is None:
            return
        kind = self.token(yamlpos.mapping_get(document, "kind"))
        if kind is None or kind.text != "Service" or len(self.services) >= MAX_SERVICES:
            return
        name, namespace = self.named(document)
        if name is not None:
            self.services.append((namespace, name))
            spec = yamlpos.mapping_get(document, "spec")
            if spec is None or yamlpos.mapping_node(spec) is None:
                return
            selector = self.literal_map(yamlpos.mapping_get(spec, "selector"))
            if not selector:
                return  # no selector: endpoints are managed by hand
            targets: list[ServicePort] = []
            for item in yamlpos.mappings_in(yamlpos.mapping_get(spec, "ports")):
                written = self.token(yamlpos.mapping_get(item, "targetPort")) or \
                    self.token(yamlpos.mapping_get(item, "port"))
                if written is None:
                    continue
                value: int | str | None = None
                if written.literal:
                    value = deployment.port_number(written.text) or written.text
                targets.append(ServicePort(name.value, deployment.at(written, value)))
            self.selectors.append((namespace, selector, tuple(targets)))

    def literal_map(self, node: Node | None) -> dict[str, str] | None:
        """A mapping of literal scalars (labels, a selector); None when any is not literal."""
        if node is None or yamlpos.mapping_node(node) is None:
            return None
        found: dict[str, str] = {}
        for key, value in yamlpos.mapping_items(node):
            key_token, value_token = self.token(key), self.token(value)
            if key_token is None or value_token is None or not (
                    key_token.literal and value_token.literal):
                return None
            found[key_token.text] = value_token.text
        return found

    def named(self, document: Node) -> tuple[Located[str] | None, str | None]:
        """A document's literal ``metadata.name`` and ``metadata.namespace``."""
        metadata = yamlpos.mapping_get(document, "metadata")
        if metadata is None or yamlpos.mapping_node(metadata) is None:
            return None, None
        name = self.token(yamlpos.mapping_get(metadata, "name"))
        namespace = self.token(yamlpos.mapping_get(metadata, "namespace"))
        located = deployment.at(name, name.text) if name is not None and name.literal else None
        return located, namespace.text if namespace is not None and namespace.literal else None

    def enter(self, document: Node) -> None:
        """What the pods of the document about to be walked share: its namespace, and the group
        they form, a LeaderWorkerSet (its ``size`` nodes, 1 when not written, as the LWS
        controller defaults it) or a KubeRay resource (a Ray cluster)."""
        self.cluster, self.nodes = None, None
        self.roles = []
        self.namespace = self.named(document)[1] if yamlpos.mapping_node(document) else None
        kind = self.token(yamlpos.mapping_get(document, "kind")) \
            if yamlpos.mapping_node(document) is not None else None
        if kind is None or not kind.literal:
            return
        if kind.text in _RAY_RESOURCES:
            self.cluster = deployment.at(kind, "ray")
        elif kind.text == "LeaderWorkerSet":
            self.cluster = deployment.at(kind, "leaderworkerset")
            spec = yamlpos.mapping_get(document, "spec")
            template = yamlpos.mapping_get(spec, "leaderWorkerTemplate") \
                if spec is not None and yamlpos.mapping_node(spec) is not None else None
            size = yamlpos.mapping_get(template, "size") \
                if template is not None and yamlpos.mapping_node(template) is not None else None
            self.nodes = self.number(size) if size is not None else deployment.at(kind, 1)
            for role in ("leader", "worker"):
                held = yamlpos.mapping_get(template, f"{role}Template") \
                    if template is not None and yamlpos.mapping_node(template) else None
                if held is not None:
                    self.roles.append((held.start_mark.index, held.end_mark.index, role))

    def note_runtime(self, document: Node) -> None:
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
        if not yamlpos.is_scalar(node) or yamlpos.is_null(node):
            return None
        token = yamlpos.scalar_token(self.source, node)
        # (Only a Helm template has unresolved places; a manifest's scalars stay unpositioned.)
        if self.unresolved and any(p in self.unresolved for p in token.positions[:-1]):
            return token.with_text(token.text, literal=False)
        if self.substituted and "${" in token.text and _SUBSTITUTION.search(token.text):
            # ``"${VLLM_MAX_MODEL_LEN}"``: Kubernetes expands only ``$(VAR)``; a ``${VAR}`` is
            # left for a tool run before ``kubectl apply`` (envsubst, Flux's postBuild, a CI
            # step), so the value is not known.
            return token.with_text(token.text, literal=False)
        return token

    def words(self, node: Node | None) -> list[Token] | None:
        """A list of strings (``command:``, ``args:``); None when absent or not a list."""
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
        items = yamlpos.sequence_items(node) or [node]
        return Span(
            self.source.pos(items[0].start_mark.index), self.source.pos(items[-1].end_mark.index)
        )

    def env(self, node: Node | None) -> dict[str, EnvVar]:
        """``env:`` as a list of name/value entries (Kubernetes) or a name -> value mapping."""
        env: dict[str, EnvVar] = {}
        values: dict[str, Token] = {}
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
            end = name.span.end
            if value is not None:
                value = expand(value, values, self.budget)
            elif value_node is not None and yamlpos.is_null(value_node):
                value = Token("", (end,))
            else:
                # valueFrom: a key of a ConfigMap of this file is its value there; a secret, a
                # field or another file's config map is known only at run time.
                value = self.config_map_value(yamlpos.mapping_get(item, "valueFrom")) or \
                    Token("", (end,), literal=False)
            env[name.text] = deployment.named(name, value)
            values[name.text] = value
        if yamlpos.mapping_node(node) is not None:
            for key, value_node in yamlpos.mapping_items(node):
                value = self.token(value_node)
                key_token = self.token(key)
                if value is not None and key_token is not None:
                    env[key_token.text] = deployment.named(key_token, value)
        return env

    def config_map_value(self, node: Node | None) -> Token | None:
        """``valueFrom.configMapKeyRef`` of a ConfigMap in this file: that key's value at its
        place in the ConfigMap's ``data`` (the kubelet reads it there when the pod starts;
        https://kubernetes.io/docs/concepts/configuration/configmap/); None otherwise."""
        ref = yamlpos.mapping_get(node, "configMapKeyRef") \
            if node is not None and yamlpos.mapping_node(node) is not None else None
        if ref is None or yamlpos.mapping_node(ref) is None:
            return None
        name = self.token(yamlpos.mapping_get(ref, "name"))
        key = self.token(yamlpos.mapping_get(ref, "key"))
        data = self.config_maps.get(name.text) if name is not None and name.literal else None
        if data is None or key is None or not key.literal:
            return None
        return self.token(yamlpos.mapping_get(data, key.text))

    def env_from(self, node: Node | None) -> tuple[dict[str, EnvVar], bool]:
        """The variables ``envFrom`` gives from this file's ConfigMaps (every key, with its
        ``prefix``), and whether that is all it gives (no secret, no other file's map)."""
        variables: dict[str, EnvVar] = {}
        if node is None:
            return variables, True
        complete = True
        for item in yamlpos.sequence_items(node):
            ref = yamlpos.mapping_get(item, "configMapRef") \
                if yamlpos.mapping_node(item) is not None else None
            name = self.token(yamlpos.mapping_get(ref, "name")) \
                if ref is not None and yamlpos.mapping_node(ref) is not None else None
            data = self.config_maps.get(name.text) if name is not None and name.literal else None
            if data is None:
                complete = False
                continue
            prefix = self.token(yamlpos.mapping_get(item, "prefix"))
            lead = prefix.text if prefix is not None and prefix.literal else ""
            for key, value in yamlpos.mapping_items(data):
                key_token, value_token = self.token(key), self.token(value)
                if key_token is not None and value_token is not None:
                    named = lead + key_token.text
                    variables[named] = EnvVar(named, value_token, key_token.span)
        if yamlpos.is_scalar(node) and not yamlpos.is_null(node) or \
                yamlpos.mapping_node(node) is not None:
            complete = False  # not a list: not what the kubelet reads
        return variables, complete

    def note_config_map(self, document: Node) -> None:
        """Remember a ConfigMap's ``data`` by its name (one file's; the last one of a name)."""
        if yamlpos.mapping_node(document) is None:
            return
        kind = self.token(yamlpos.mapping_get(document, "kind"))
        metadata = yamlpos.mapping_get(document, "metadata")
        data = yamlpos.mapping_get(document, "data")
        if kind is None or kind.text != "ConfigMap" or metadata is None or data is None:
            return
        if yamlpos.mapping_node(metadata) is None or yamlpos.mapping_node(data) is None:
            return
        name = self.token(yamlpos.mapping_get(metadata, "name"))
        if name is not None and name.literal:
            self.config_maps[name.text] = data

    # -- the container's deployment facts -------------------------------------------------

    def number(self, node: Node | None) -> Located[int | None] | None:
        token = self.token(node)
        if token is None:
            return None
        return deployment.at(token, deployment.whole_number(token.text) if token.literal else None)

    def text(self, node: Node | None) -> Located[str | None] | None:
        token = self.token(node)
        if token is None:
            return None
        return deployment.at(token, token.text if token.literal else None)

    def facts(self, node: Node, pod: Node | None) -> Deployment:
        """A container's GPUs, ports, probes and mounts, and its pod's IPC, ``/dev/shm`` and
        service links."""
        pod = pod if pod is not None and yamlpos.mapping_node(pod) is not None else None
        volumes = self.volumes(pod)
        mounts = self.mounts(yamlpos.mapping_get(node, "volumeMounts"), volumes)
        shm = next((volumes[m.source.value][1] for m in mounts
                    if m.memory and m.target.value == "/dev/shm" and m.source is not None
                    and m.source.value in volumes), None)
        host_ipc = self.token(yamlpos.mapping_get(pod, "hostIPC")) if pod is not None else None
        links = (
            self.token(yamlpos.mapping_get(pod, "enableServiceLinks")) if pod is not None else None
        )
        at = node.start_mark.index
        return Deployment(
            cluster=self.cluster,
            nodes=self.nodes,
            role=next((role for start, end, role in self.roles if start <= at < end), None),
            services=tuple(name for namespace, name in self.services
                           if namespace == self.namespace),
            service_ports=tuple(port for namespace, selector, ports in self.selectors
                                if namespace == self.namespace and self.labels is not None
                                and selector.items() <= self.labels.items()
                                for port in ports),
            pod_containers=self.pod_containers,
            gpus=self.gpus(yamlpos.mapping_get(node, "resources")),
            ipc=None if host_ipc is None else deployment.at(
                host_ipc, ("host" if host_ipc.text == "true" else "private") if host_ipc.literal
                else None),
            shm_size=shm,
            ports=self.ports(yamlpos.mapping_get(node, "ports")),
            probes=tuple(
                probe for kind in ("liveness", "readiness", "startup")
                if (probe := self.probe(node, kind)) is not None
            ),
            volumes=mounts,
            service_links=None if links is None else deployment.at(
                links, links.text == "true" if links.literal and links.text in ("true", "false")
                else None),
        )

    def gpus(self, resources: Node | None) -> Located[GpuCount | None] | None:
        """``resources.limits`` (else ``requests``) of ``nvidia.com/gpu`` or ``amd.com/gpu``."""
        if resources is None or yamlpos.mapping_node(resources) is None:
            return None
        for section in ("limits", "requests"):
            held = yamlpos.mapping_get(resources, section)
            if held is None or yamlpos.mapping_node(held) is None:
                continue
            for name in _GPU_RESOURCES:
                token = self.token(yamlpos.mapping_get(held, name))
                if token is not None:
                    count = deployment.whole_number(token.text) if token.literal else None
                    return deployment.at(token, count)
        return None

    def ports(self, node: Node | None) -> tuple[Port, ...]:
        found: list[Port] = []
        for item in yamlpos.mappings_in(node):
            token = self.token(yamlpos.mapping_get(item, "containerPort"))
            if token is None:
                continue
            name = self.token(yamlpos.mapping_get(item, "name"))
            number = deployment.port_number(token.text) if token.literal else None
            found.append(Port(deployment.at(token, number),
                              name.text if name is not None and name.literal else None))
        return tuple(found)

    def probe(self, container: Node, kind: ProbeKind) -> Probe | None:
        key_node = next((k for k, _ in yamlpos.mapping_items(container)
                         if k.value == f"{kind}Probe"), None)
        node = yamlpos.mapping_get(container, f"{kind}Probe")
        if key_node is None or node is None or yamlpos.mapping_node(node) is None:
            return None
        key = self.token(key_node)
        span = key.sub_span(0) if key is not None else self.list_span(node)
        handler = next((h for h in _PROBE_HANDLERS if yamlpos.mapping_get(node, h) is not None),
                       "")
        action = yamlpos.mapping_get(node, handler) if handler else None
        port: Located[int | str | None] | None = None
        path: Located[str | None] | None = None
        authorized = False
        if action is not None and yamlpos.mapping_node(action) is not None:
            headers = yamlpos.mapping_get(action, "httpHeaders")
            authorized = any(
                (name := self.token(yamlpos.mapping_get(header, "name"))) is not None
                and name.text.lower() == "authorization"
                for header in yamlpos.mappings_in(headers))
            token = self.token(yamlpos.mapping_get(action, "port"))
            if token is not None:
                value: int | str | None = None
                if token.literal:
                    value = deployment.port_number(token.text) or token.text
                port = deployment.at(token, value)
            path = self.text(yamlpos.mapping_get(action, "path"))
        return Probe(
            kind, span, handler or "none", port, path,
            self.number(yamlpos.mapping_get(node, "initialDelaySeconds")),
            self.number(yamlpos.mapping_get(node, "periodSeconds")),
            self.number(yamlpos.mapping_get(node, "failureThreshold")),
            authorized,
        )

    def volumes(self, pod: Node | None) -> dict[str, tuple[bool, Located[int | None] | None]]:
        """The pod's volumes by name: memory-backed (``emptyDir.medium: Memory``) and the
        ``sizeLimit`` of an ``emptyDir``."""
        found: dict[str, tuple[bool, Located[int | None] | None]] = {}
        listed = yamlpos.mapping_get(pod, "volumes") if pod is not None else None
        for item in yamlpos.sequence_items(listed) if listed is not None else []:
            if yamlpos.mapping_node(item) is None:
                continue
            name = self.token(yamlpos.mapping_get(item, "name"))
            empty = yamlpos.mapping_get(item, "emptyDir")
            if name is None or not name.literal:
                continue
            if empty is None or yamlpos.mapping_node(empty) is None:
                found[name.text] = (False, None)
                continue
            medium = self.token(yamlpos.mapping_get(empty, "medium"))
            limit = self.token(yamlpos.mapping_get(empty, "sizeLimit"))
            size = None if limit is None else deployment.at(
                limit, deployment.kubernetes_bytes(limit.text) if limit.literal else None)
            found[name.text] = (medium is not None and medium.text == "Memory", size)
        return found

    def mounts(
        self, node: Node | None, volumes: Mapping[str, tuple[bool, Located[int | None] | None]]
    ) -> tuple[Mount, ...]:
        found: list[Mount] = []
        for item in yamlpos.mappings_in(node):
            target = self.text(yamlpos.mapping_get(item, "mountPath"))
            if target is None:
                continue
            source = self.text(yamlpos.mapping_get(item, "name"))
            memory = source is not None and volumes.get(source.value or "", (False, None))[0]
            found.append(Mount(target, source, memory))
        return tuple(found)

    # -- custom resources -----------------------------------------------------------------

    def custom_resource(self, document: Node) -> list[Invocation]:
        """The launches a controller makes of a custom resource's fields (module docstring)."""
        if yamlpos.mapping_node(document) is None:
            return []
        kind = self.token(yamlpos.mapping_get(document, "kind"))
        spec = yamlpos.mapping_get(document, "spec")
        if kind is None or spec is None or yamlpos.mapping_node(spec) is None:
            return []
        if kind.text == "LLMInferenceService":
            found = self.llm_inference_service(spec, spec)
            prefill = yamlpos.mapping_get(spec, "prefill")
            if prefill is not None and yamlpos.mapping_node(prefill) is not None:
                found.extend(self.llm_inference_service(prefill, spec))
            return found
        if kind.text == "RayService":
            return self.ray_service(spec)
        if kind.text == "VLLMRuntime":
            return self.vllm_runtime(spec)
        return []

    def vllm_runtime(self, spec: Node) -> list[Invocation]:
        """A production-stack ``VLLMRuntime``: the fields its operator makes flags of."""
        args: list[Token] = []
        env: dict[str, EnvVar] = {}
        for section, fields in _VLLM_RUNTIME.items():
            node = yamlpos.mapping_get(spec, section)
            if node is None or yamlpos.mapping_node(node) is None:
                continue
            for key, value in yamlpos.mapping_items(node):
                name, token = self.token(key), self.token(value)
                flag = fields.get(str(key.value))
                if name is not None and token is not None and flag == "":
                    args.insert(0, token)  # the model: the first argument
                elif name is not None and token is not None and flag is not None:
                    args.extend(self.runtime_flag(name, token, flag))
            env.update(self.env(yamlpos.mapping_get(node, "env")))
            args.extend(self.words(yamlpos.mapping_get(node, "extraArgs")) or [])
        if not args:
            return []
        image = self.runtime_image(yamlpos.mapping_get(spec, "deploymentConfig"))
        facts = deployment.pod_by_controller(Deployment(image=image, env=env), args[0].sub_span(0))
        return [Invocation(self.path, (self.kind,), "cli", args[0].sub_span(0), args=tuple(args),
                           deployment=facts,
                           target=vllm_release(image.value) if image is not None else None)]

    def runtime_flag(self, name: Token, value: Token, flag: str) -> list[Token]:
        """One VLLMRuntime field as its operator writes it (``_VLLM_RUNTIME``)."""
        start, end = name.pos(0), name.pos(len(name.text))

        def at_key(text: str) -> Token:
            return Token(text, (start,) * len(text) + (end,), unwritten=len(text))

        if flag.startswith("--enable-") and flag.endswith("?"):  # a boolean with a --no- form
            option = flag[:-1]
            if value.text not in ("true", "false"):
                return []
            return [at_key(option if value.text == "true" else "--no-" + option[2:])]
        if flag.endswith("!"):  # a boolean written only when true
            return [at_key(flag[:-1])] if value.text == "true" else []
        return [at_key(flag), value]

    def runtime_image(self, node: Node | None) -> Located[str] | None:
        """``deploymentConfig.image``: the operator runs ``registry + "/" + name``."""
        image = yamlpos.mapping_get(node, "image") if node is not None and \
            yamlpos.mapping_node(node) is not None else None
        if image is None or yamlpos.mapping_node(image) is None:
            return None
        registry = self.token(yamlpos.mapping_get(image, "registry"))
        name = self.token(yamlpos.mapping_get(image, "name"))
        if registry is None or name is None or not (registry.literal and name.literal):
            return None
        return Located(f"{registry.text}/{name.text}", name.sub_span(0))

    def llm_inference_service(self, part: Node, spec: Node) -> list[Invocation]:
        """One KServe LLMInferenceService workload (``spec`` or ``spec.prefill``)."""
        template = yamlpos.mapping_get(part, "template")
        containers = (yamlpos.mapping_get(template, "containers")
                      if template is not None and yamlpos.mapping_node(template) else None)
        main = next((c for c in yamlpos.mappings_in(containers)
                     if (name := self.token(yamlpos.mapping_get(c, "name"))) is not None
                     and name.text == "main"), None)
        model = yamlpos.mapping_get(spec, "model")
        uri = self.token(yamlpos.mapping_get(model, "uri")) if model is not None and \
            yamlpos.mapping_node(model) is not None else None
        args: list[Token] = []
        if uri is not None:
            # The controller downloads ``uri`` to /mnt/models and serves that folder.
            start, end = uri.pos(0), uri.pos(len(uri.text))
            args.append(Token(_KSERVE_MODEL, (start,) * len(_KSERVE_MODEL) + (end,),
                              unwritten=len(_KSERVE_MODEL)))
        args.extend(self.parallelism(yamlpos.mapping_get(part, "parallelism")))
        facts = Deployment()
        if main is not None:
            self.containers.add(id(main))
            variables = self.env(yamlpos.mapping_get(main, "env"))
            # Read by the controller's command line, not by vLLM.
            additional = variables.pop("VLLM_ADDITIONAL_ARGS", None)
            if additional is not None:
                args.extend(blank_split(additional.value))
            env = {name: variable.value for name, variable in variables.items()}
            args.extend(expand(word, env, self.budget)
                        for word in self.words(yamlpos.mapping_get(main, "args")) or [])
            facts = replace(self.facts(main, template), env=variables,
                            env_complete=yamlpos.mapping_get(main, "envFrom") is None)
        span = uri.sub_span(0) if uri is not None else self.list_span(part)
        return [Invocation(self.path, (self.kind,), "cli", span, args=tuple(args),
                           deployment=deployment.pod_by_controller(facts, span))]

    def parallelism(self, node: Node | None) -> list[Token]:
        """``spec.parallelism`` as the flags KServe's templates write (module docstring)."""
        if node is None or yamlpos.mapping_node(node) is None:
            return []
        flags: list[Token] = []
        for key, value in yamlpos.mapping_items(node):
            flag = _PARALLELISM.get(str(key.value))
            name, token = self.token(key), self.token(value)
            if flag is None or name is None or token is None:
                continue
            start, end = name.pos(0), name.pos(len(name.text))
            flag_token = Token(flag, (start,) * len(flag) + (end,), unwritten=len(flag))
            if flag == "--enable-expert-parallel":
                if token.text == "true":
                    flags.append(flag_token)
                continue
            flags.extend((flag_token, token))
        return flags

    def ray_service(self, spec: Node) -> list[Invocation]:
        """KubeRay ``spec.serveConfigV2``: a Ray Serve config inside a YAML string."""
        from vlint.extract import ray_serve  # lazy: only RayService manifests need it

        node = yamlpos.mapping_get(spec, "serveConfigV2")
        config = self.token(node)
        if config is None or not config.literal:
            return []
        cluster = yamlpos.mapping_get(spec, "rayClusterConfig")
        version = self.token(yamlpos.mapping_get(cluster, "rayVersion")) if cluster is not None \
            and yamlpos.mapping_node(cluster) is not None else None
        target = release_for_ray(version.text) if version is not None else None
        inner = yamlpos.SourceIndex(config.text)
        try:
            documents = yamlpos.parse_documents(config.text)
        except Unparsable:
            return []  # KubeRay rejects it too; the manifest itself is fine YAML
        reader = ray_serve.Reader(self.path, inner, config.pos, (self.kind, ray_serve.KIND),
                                  target)
        return [found for document in documents for found in reader.document(document)]

    # -- structure ------------------------------------------------------------------------

    def walk(self, node: Node, depth: int) -> list[Invocation]:
        if depth > _MAX_DEPTH or id(node) in self.walked:
            return []
        self.walked.add(id(node))
        found: list[Invocation] = []
        if yamlpos.mapping_node(node) is not None:
            found.extend(self.engine_args(node))
            outer = self.labels
            metadata = yamlpos.mapping_get(node, "metadata")
            if metadata is not None and yamlpos.mapping_get(node, "spec") is not None and \
                    yamlpos.mapping_node(metadata) is not None:
                # A pod template's (or a pod's) labels, for the Services that select it.
                self.labels = self.literal_map(yamlpos.mapping_get(metadata, "labels")) or None
            listed = yamlpos.mapping_get(node, "containers")
            if listed is not None:
                # The pod's long-running containers: its containers and the init containers
                # that keep running beside them (``restartPolicy: Always``, native sidecars).
                sidecars = [item for item in yamlpos.mappings_in(
                    yamlpos.mapping_get(node, "initContainers"))
                    if (policy := self.token(yamlpos.mapping_get(item, "restartPolicy")))
                    is not None and policy.text == "Always"]
                self.pod_containers = len(yamlpos.sequence_items(listed)) + len(sidecars)
            for key, value in yamlpos.mapping_items(node):
                if key.value in _CONTAINER_LISTS and yamlpos.sequence_items(value):
                    for container in yamlpos.sequence_items(value):
                        if id(container) not in self.containers:
                            self.containers.add(id(container))
                            found.extend(self.container(container, pod=node))
                elif key.value in _STEP_LISTS and _with_images(value):
                    for container in yamlpos.sequence_items(value):
                        if id(container) not in self.containers and _has_image(container):
                            self.containers.add(id(container))
                            found.extend(self.container(container, pod=node))
                elif key.value in _SINGLE_CONTAINERS and _has_image(value):
                    if id(value) not in self.containers:
                        self.containers.add(id(value))
                        found.extend(self.container(value, pod=node))
                else:
                    found.extend(self.walk(value, depth + 1))
            self.labels = outer
        else:
            for item in yamlpos.sequence_items(node):
                found.extend(self.walk(item, depth + 1))
        return found

    def container(
        self,
        node: Node,
        more_args: Sequence[Token] = (),
        more_env: Mapping[str, EnvVar] | None = None,
        pod: Node | None = None,
    ) -> list[Invocation]:
        if yamlpos.mapping_node(node) is None:
            return []
        image_token = self.token(yamlpos.mapping_get(node, "image"))
        image = image_token.text if image_token is not None and image_token.literal else None
        server_image = image is not None and is_server_image(image)
        from_maps, env_complete = self.env_from(yamlpos.mapping_get(node, "envFrom"))
        variables = {**from_maps, **self.env(yamlpos.mapping_get(node, "env")),
                     **(more_env or {})}
        env = {name: variable.value for name, variable in variables.items()}
        command = self.words(yamlpos.mapping_get(node, "command"))
        args = self.words(yamlpos.mapping_get(node, "args"))
        script = self._script(node, command)
        if script is not None:
            command, args = script, []
        command = (
            [expand(word, env, self.budget) for word in command] if command is not None else None
        )
        args = [expand(word, env, self.budget) for word in [*(args or ()), *more_args]]
        target = vllm_release(image)
        facts = replace(
            self.facts(node, pod),
            image=deployment.image(image_token) if image is not None and image_token else None,
            env=variables,
            env_complete=env_complete,
        )

        def finish(found: Sequence[Invocation]) -> list[Invocation]:
            return [deployment.enclosed(i, self.kind, facts, target) for i in found]

        if command or args:
            # An image not known statically (``${VLLM_IMAGE}``) is decided on its written text
            # and the arguments (``knowledge.images.runs_server``); it names no release.
            decided = image if image is not None else (
                image_token.text if image_token is not None else None)
            return finish(recognise_container(command or (), args, path=self.path,
                                              kind=self.kind, image=decided))
        if server_image and image_token is not None:

            return [
                Invocation(
                    self.path, (self.kind,), "cli", image_token.span, deployment=facts,
                    target=target, entry=image_entry(target), entry_from_image=True,
                )
            ]
        return []

    def _script(self, node: Node, command: list[Token] | None) -> list[Token] | None:
        """A container's shell script, as ``sh -c SCRIPT``: Tekton's ``script:`` (run by the
        interpreter of its ``#!``, ``sh`` without one), Argo's ``source:`` (run by the
        template's ``command``, here only a shell); None for none or another interpreter."""
        tekton = yamlpos.mapping_get(node, "script")
        argo = yamlpos.mapping_get(node, "source")
        if tekton is not None and yamlpos.is_scalar(tekton):
            token = self.token(tekton)
            body = token.text.lstrip() if token is not None else ""
            if token is None or (body.startswith("#!") and not SHELL_SHEBANG.match(body)):
                return None
        elif argo is not None and yamlpos.is_scalar(argo) and command:
            token = self.token(argo)
            if token is None or command[0].text.rsplit("/", 1)[-1] not in SHELLS:
                return None
        else:
            return None
        at = token.pos(0)
        made = [Token(word, (at,) * (len(word) + 1), literal=True, unwritten=len(word))
                for word in ("sh", "-c")]
        return [*made, token]

    def engine_args(self, node: Node) -> list[Invocation]:
        """Argument lists a controller appends to vLLM's API server (KServe, KubeAI)."""
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
        values = {name: variable.value for name, variable in env.items()}
        words = [expand(word, values, self.budget) for word in self.words(args_node) or []]
        if not words:
            return []
        return [
            Invocation(
                self.path,
                (self.kind,),
                "cli",
                self.list_span(args_node),
                entry="api_server",
                args=tuple(words),
                deployment=deployment.pod_by_controller(Deployment(env=env),
                                                        self.list_span(args_node)),
            )
        ]


def vllm_release(image: str | None) -> str | None:
    """The vLLM release an image's tag names, for images of vLLM only.

    Other images' tags (``ghcr.io/llm-d/llm-d-cuda:v0.9.0``) version something else.
    """
    return release_from_image(image) if image is not None else None


_KSERVE_MODEL = "/mnt/models"
# production-stack's operator (vllm-project/production-stack
# operator/internal/controller/vllmruntime_controller.go, ``deploymentForVLLMRuntime``) runs
# ``vllm serve <model.modelURL> --host 0.0.0.0 --port <vllmConfig.port>`` and a flag per field
# below, then ``vllmConfig.extraArgs``; ``vllmConfig.env`` is the container's environment.
# "" marks the model; "X?" a boolean written as X or --no-X; "X!" a flag written when true.
# (A field left out is written by the operator too, with no span here: not checked.)
_VLLM_RUNTIME: Mapping[str, Mapping[str, str]] = {
    "model": {
        "modelURL": "",
        "enableLoRA": "--enable-lora!",
        "enableTool": "--enable-auto-tool-choice!",
        "toolCallParser": "--tool-call-parser",
        "maxModelLen": "--max-model-len",
        "dtype": "--dtype",
        "maxNumSeqs": "--max-num-seqs",
    },
    "vllmConfig": {
        "port": "--port",
        "enableChunkedPrefill": "--enable-chunked-prefill?",
        "enablePrefixCaching": "--enable-prefix-caching?",
        "tensorParallelSize": "--tensor-parallel-size",
        "gpuMemoryUtilization": "--gpu_memory_utilization",
        "maxLoras": "--max_loras",
    },
}
_PARALLELISM = {
    "tensor": "--tensor-parallel-size",
    "pipeline": "--pipeline-parallel-size",
    "data": "--data-parallel-size",
    "dataLocal": "--data-parallel-size-local",
    "expert": "--enable-expert-parallel",
}
_BLANK = re.compile(r"[^ \t\n]+")


def blank_split(value: Token) -> list[Token]:
    """An unquoted ``${VAR}`` expansion's words: split at blanks, each at its characters."""
    return [value.slice(m.start(), m.end()) for m in _BLANK.finditer(value.text)]


class Budget:
    """The characters ``$(VAR)`` expansion may still substitute in one file."""

    def __init__(self) -> None:
        self.left = MAX_EXPANDED

    def spend(self, token: Token, env: Mapping[str, Token]) -> None:
        """Charge the most that expanding ``token`` can substitute, before doing it."""
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
    ``envFrom``), stays as written and makes the token not literal.  A token with a value put
    in is gathered (``Token.gathered``): the value is written at the variable, and an edit at
    the reference would replace the reference with it.
    """
    if "$" not in token.text:
        return token
    (budget or Budget()).spend(token, env)
    text: list[str] = []
    positions: list[Pos] = []
    literal = token.literal
    gathered = token.gathered
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
            gathered = True
        else:
            text.append(match.group())
            positions.extend(token.positions[match.start() : match.end()])
            literal = False
    text.append(token.text[index:])
    positions.extend(token.positions[index:])
    return Token("".join(text), tuple(positions), literal, gathered=gathered)
