"""Ray Serve LLM YAML: each ``LLMConfig`` as a keyword launch of the vLLM engine Ray builds.

Ray Serve LLM (``ray.serve.llm``, Ray 2.43+) turns each ``LLMConfig`` into vLLM engine
arguments (ray-project/ray ``python/ray/llm/_internal/serve/engines/vllm/vllm_models.py``,
``VLLMEngineConfig.from_llm_config`` and ``get_initialization_kwargs``): every key of
``engine_kwargs`` that is an ``AsyncEngineArgs`` field goes to ``AsyncEngineArgs(**kwargs)``,
one that is a field of vLLM's ``FrontendArgs`` goes to the OpenAI frontend instead, any other
raises ``Unknown engine argument``; ``model`` and ``served_model_name`` may not be written there
(``model`` is ``model_loading_config.model_source``, else ``model_id``).  So an ``LLMConfig`` is
read as ``AsyncEngineArgs(model=..., **engine_kwargs)`` (style ``python``): each keyword's name
token is its YAML key, its value the YAML value as PyYAML loads it (Ray reads the file with
``yaml.safe_load``).  Frontend keys (options of ``vllm serve`` that are not engine fields in
the newest known release) are left out: the engine never sees them; so is
``disable_log_requests``, which Ray turns into ``enable_log_requests``.

Where ``LLMConfig``s sit (Ray's docs, ``doc/source/serve/llm/``, and its release tests,
``release/llm_tests/serve/configs/``):

- a Serve config's ``applications[].args``: ``llm_configs: [...]`` (``build_openai_app``),
  ``llm_config:`` (``build_dp_openai_app``, ``build_llm_deployment``), ``prefill_config:`` and
  ``decode_config:`` (prefill/decode disaggregation); an Anyscale service YAML has the same
  ``applications:`` (and ``image_uri:``, which names the Ray release);
- a file of its own (top-level ``model_loading_config:``), named from ``llm_configs:`` by a
  path; such a file is read when it is linted itself (the reference is not followed);
- KubeRay ``RayService.spec.serveConfigV2``, a Serve config inside a YAML string
  (``vlint.extract.kubernetes`` hands it here with a locator into the manifest);
- the archived ray-llm model YAMLs (ray-project/ray-llm ``models/``): ``engine_config:
  {model_id, hf_model_id, engine_kwargs}``, which ray-llm passes to ``AsyncEngineArgs`` with
  ``model = hf_model_id or model_id``, ``max_model_len = max_total_tokens`` and
  ``tensor_parallel_size = scaling_config.num_workers``
  (``rayllm/backend/llm/vllm/vllm_compatibility.py``, ``_get_vllm_engine_config``).

``runtime_env.env_vars`` is the engine's environment.  The target is the vLLM the Ray release
pins (``vlint.knowledge.ray_serve``), where the file names the Ray release in an image tag.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import cache
from typing import TYPE_CHECKING

from vlint.errors import Unparsable
from vlint.extract import deployment
from vlint.extract.vllm_config import MAX_VALUES, loaded
from vlint.knowledge import catalog
from vlint.knowledge.ray_serve import ray_version_from_image, release_for_ray
from vlint.model import Deployment, EnvVar, Invocation, Keyword, Pos, Span, Token
from vlint.syntax import yamlpos
from vlint.discover import ray_serve_claims

# The kind's claim lives with kind detection (``vlint.discover``).
claims = ray_serve_claims

if TYPE_CHECKING:
    from ruamel.yaml.nodes import Node, ScalarNode

    from vlint.extract.nested import ExtractContext

KIND = "ray-serve"
CALLEE = "AsyncEngineArgs"
_APP_CONFIGS = ("llm_config", "prefill_config", "decode_config")
# Keys Ray rewrites before vLLM sees them: ``disable_log_requests`` becomes
# ``enable_log_requests = not value`` (``get_initialization_kwargs``).
RAY_REWRITES = frozenset({"disable_log_requests"})
# The keys of a deployment's ``user_config`` that hold vLLM's engine arguments by name.
_USER_ENGINE_KEYS = ("engine_args", "engine_kwargs")
# No Serve config deploys thousands of models; a crafted one stops being read there.
MAX_CONFIGS = 1_000


def extract(path: str, text: str, context: ExtractContext | None = None) -> list[Invocation]:
    """Every ``LLMConfig`` of a Ray Serve (or ray-llm model) YAML; Unparsable for bad YAML."""
    documents = yamlpos.parse_documents(text)
    source = yamlpos.SourceIndex(text)
    locate = source.pos if context is None or context.locate is None else context.locate
    origin = (KIND,) if context is None or not context.origin else context.origin
    reader = Reader(path, source, locate, origin)
    return [found for document in documents for found in reader.document(document)]


class Reader:
    """Reads ``LLMConfig`` mappings of one text; ``locate`` maps an offset of the text to the
    file (the text's own line table, or a locator into an enclosing manifest)."""

    def __init__(self, path: str, source: yamlpos.SourceIndex, locate: Callable[[int], Pos],
                 origin: tuple[str, ...], target: str | None = None) -> None:
        self.path = path
        self.source = source
        self.locate = locate
        self.origin = origin
        self.target = target
        self.budget = [MAX_VALUES]
        self.configs = 0

    def document(self, node: Node) -> list[Invocation]:
        if yamlpos.mapping_node(node) is None:
            return []
        target = self.target or _target_of_image(self.token(yamlpos.mapping_get(node,
                                                                                 "image_uri")))
        engine_config = yamlpos.mapping_get(node, "engine_config")
        if engine_config is not None and yamlpos.mapping_node(engine_config) is not None:
            found = self.ray_llm_model(node, engine_config, target)
            return [] if found is None else [found]
        if yamlpos.mapping_get(node, "model_loading_config") is not None:
            found = self.llm_config(node, target)
            return [] if found is None else [found]
        return list(self.applications(yamlpos.mapping_get(node, "applications"), target))

    def applications(self, node: Node | None, target: str | None) -> Iterator[Invocation]:
        for application in yamlpos.mappings_in(node):
            yield from self.user_engine_args(application, target)
            args = yamlpos.mapping_get(application, "args")
            if args is None or yamlpos.mapping_node(args) is None:
                continue
            configs = [value for key, value in yamlpos.mapping_items(args)
                       if key.value in _APP_CONFIGS]
            listed = yamlpos.mapping_get(args, "llm_configs")
            configs.extend(yamlpos.mappings_in(listed))
            for config in configs:
                found = self.llm_config(config, target)
                if found is not None:
                    yield found
            if not configs:
                command = self.cli_args(args, target)
                if command is not None:
                    yield command

    def user_engine_args(self, application: Node, target: str | None) -> Iterator[Invocation]:
        """A deployment of the application's own code given vLLM's engine arguments in its
        ``user_config`` (``deployments: [{user_config: {engine_args: {model: ...}}}]``, which
        Serve hands to the deployment's ``reconfigure``; https://docs.ray.io/en/latest/serve/
        configure-serve-deployment.html): read as ``AsyncEngineArgs(**engine_args)`` when it
        names the model and every key is an option of ``vllm serve`` in some release by its
        field name, the names no other library shares all of; frontend options left out."""
        known = catalog.option_lifetimes("serve")
        for deployment_node in yamlpos.mappings_in(yamlpos.mapping_get(application,
                                                                       "deployments")):
            user = yamlpos.mapping_get(deployment_node, "user_config")
            if user is None or yamlpos.mapping_node(user) is None:
                continue
            for key in _USER_ENGINE_KEYS:
                engine = yamlpos.mapping_get(user, key)
                if engine is None or yamlpos.mapping_node(engine) is None:
                    continue
                names = [str(k.value) for k, _ in yamlpos.mapping_items(engine)]
                if "model" not in names or len(names) < 2 or not all(
                        "--" + name.replace("_", "-") in known for name in names):
                    continue
                if self.count():
                    yield self.invocation(engine, list(self.engine_keywords(engine)), {},
                                          target)

    def cli_args(self, args: Node, target: str | None) -> Invocation | None:
        """An application of its own (KubeRay's vLLM sample, ``import_path: serve:model``)
        whose ``args`` are vLLM's command-line options by name (``model: ...``,
        ``tensor-parallel-size: 2``), which its ``build_app`` hands to vLLM's parser as
        ``--KEY VALUE`` (``vlint.extract.python_cli_dict`` reads that side): the API server's
        arguments.  Read only when there are two keys or more and every one is an option of
        ``vllm serve`` in some release (``model``, ``tensor_parallel_size`` too)."""
        items = yamlpos.mapping_items(args)
        known = catalog.option_lifetimes("serve")
        if len(items) < 2 or not all(
                "--" + str(key.value).replace("_", "-") in known for key, _ in items):
            return None
        words: list[Token] = []
        for key, value in items:
            name = self.scalar_token(key)
            start = name.pos(0)
            words.append(Token("--" + name.text, (start, start, *name.positions), unwritten=2))
            if yamlpos.is_scalar(value) and not yamlpos.is_null(value):
                words.append(self.scalar_token(value))
            elif yamlpos.sequence_items(value):
                words.extend(t for t in map(self.token, yamlpos.sequence_items(value)) if t)
            else:
                return None  # a nested mapping: written as JSON by whatever reads it
        return Invocation(self.path, self.origin, "cli", self.node_span(args),
                          entry="api_server", args=tuple(words), target=target)

    # -- one LLMConfig ----------------------------------------------------------------------

    def llm_config(self, node: Node, target: str | None) -> Invocation | None:
        """An ``LLMConfig`` mapping as ``AsyncEngineArgs(model=..., **engine_kwargs)``."""
        if yamlpos.mapping_node(node) is None or not self.count():
            return None
        loading = yamlpos.mapping_get(node, "model_loading_config")
        engine_kwargs = yamlpos.mapping_get(node, "engine_kwargs")
        if loading is None and engine_kwargs is None:
            return None
        keywords: list[Keyword] = []
        if loading is not None and yamlpos.mapping_node(loading) is not None:
            model = self.model_keyword(loading, ("model_source", "model_id"))
            if model is not None:
                keywords.append(model)
        keywords.extend(self.engine_keywords(engine_kwargs))
        return self.invocation(node, keywords, self.env(node), target)

    def ray_llm_model(self, node: Node, engine: Node, target: str | None) -> Invocation | None:
        """A ray-llm model YAML: ``engine_config`` as ray-llm hands it to ``AsyncEngineArgs``."""
        if not self.count():
            return None
        keywords: list[Keyword] = []
        model = self.model_keyword(engine, ("hf_model_id", "model_id"))
        if model is not None:
            keywords.append(model)
        scaling = yamlpos.mapping_get(node, "scaling_config")
        injected = (("max_total_tokens", engine, "max_model_len"),
                    ("num_workers", scaling, "tensor_parallel_size"))
        for key, holder, keyword in injected:
            if holder is not None and yamlpos.mapping_node(holder) is not None:
                found = self.keyword_at(holder, key, keyword)
                if found is not None:
                    keywords.append(found)
        keywords.extend(self.engine_keywords(yamlpos.mapping_get(engine, "engine_kwargs"),
                                             frontend=False))
        return self.invocation(node, keywords, self.env(engine), target)

    def invocation(self, node: Node, keywords: list[Keyword], env: dict[str, EnvVar],
                   target: str | None) -> Invocation:
        return Invocation(
            self.path, self.origin, "python", self.anchor(node), callee=CALLEE,
            keywords=tuple(keywords), deployment=Deployment(env=env), target=target,
        )

    def model_keyword(self, node: Node, keys: tuple[str, ...]) -> Keyword | None:
        """``model``, from the first of ``keys`` that holds a string."""
        for key in keys:
            found = self.keyword_at(node, key, "model")
            if found is not None and isinstance(found.value, str):
                return found
        return None

    def keyword_at(self, node: Node, key: str, keyword: str) -> Keyword | None:
        """The value of ``key`` as the keyword ``keyword`` (its name token on the key)."""
        for key_node, value in yamlpos.mapping_items(node):
            if key_node.value == key and not yamlpos.is_null(value):
                name = self.token(key_node)
                if name is None:
                    return None
                start, end = name.pos(0), name.pos(len(name.text))
                name = Token(keyword, (start,) * len(keyword) + (end,), unwritten=len(keyword))
                return self.keyword(name, value)
        return None

    def engine_keywords(self, node: Node | None, frontend: bool = True) -> Iterator[Keyword]:
        """``engine_kwargs`` entries, each at its key; frontend options left out."""
        if node is None or yamlpos.mapping_node(node) is None:
            return
        for key_node, value in yamlpos.mapping_items(node):
            name = self.token(key_node)
            if name is None or (frontend and (name.text in frontend_keys()
                                              or name.text in RAY_REWRITES)):
                continue
            yield self.keyword(name, value)

    def keyword(self, name: Token, value: Node) -> Keyword:
        span = self.node_span(value)
        if yamlpos.is_scalar(value):
            span = self.scalar_token(value).sub_span(0)
        python = loaded(value, self.budget)
        return Keyword(name=name, value_span=span, value=python, literal=True)

    def env(self, node: Node) -> dict[str, EnvVar]:
        """``runtime_env.env_vars``: the engine process's environment."""
        runtime = yamlpos.mapping_get(node, "runtime_env")
        if runtime is None or yamlpos.mapping_node(runtime) is None:
            return {}
        variables = yamlpos.mapping_get(runtime, "env_vars")
        if variables is None or yamlpos.mapping_node(variables) is None:
            return {}
        return deployment.environment(
            deployment.named(name, value) for key, node_value in yamlpos.mapping_items(variables)
            if (name := self.token(key)) is not None
            and (value := self.token(node_value)) is not None
        )

    # -- positions --------------------------------------------------------------------------

    def count(self) -> bool:
        """Whether another ``LLMConfig`` may be read (at most ``MAX_CONFIGS``)."""
        self.configs += 1
        if self.configs > MAX_CONFIGS:
            raise Unparsable(f"more than {MAX_CONFIGS:,} LLM configs")
        return True

    def token(self, node: Node | None) -> Token | None:
        if node is None or not yamlpos.is_scalar(node) or yamlpos.is_null(node):
            return None
        return self.scalar_token(node)

    def scalar_token(self, node: ScalarNode) -> Token:
        offsets = yamlpos.scalar_offsets(self.source, node)
        return Token.at(yamlpos.scalar_value(node), offsets, self.locate)

    def node_span(self, node: Node) -> Span:
        return Span(self.locate(node.start_mark.index), self.locate(node.end_mark.index))

    def anchor(self, node: Node) -> Span:
        """The first key of the config to the end of its last value."""
        items = yamlpos.mapping_items(node)
        if not items:
            return self.node_span(node)
        first = min(items, key=lambda item: item[0].start_mark.index)[0]
        last = max(items, key=lambda item: item[1].end_mark.index)[1]
        return Span(self.locate(first.start_mark.index), self.locate(last.end_mark.index))


def _target_of_image(image: Token | None) -> str | None:
    if image is None:
        return None
    ray = ray_version_from_image(image.text)
    return None if ray is None else release_for_ray(ray)


@cache
def frontend_keys() -> frozenset[str]:
    """``vllm serve`` option destinations that are not engine fields: vLLM's ``FrontendArgs``
    (the OpenAI server's own options), in the newest known release."""
    release = catalog.load(catalog.newest())
    parser = release.parser("serve")
    if parser is None:
        return frozenset()
    engine = release.engine_fields(CALLEE)
    return frozenset(dest for dest in parser.by_dest if dest not in engine)
