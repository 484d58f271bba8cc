from __future__ import annotations

from vlint.extract.kubernetes import extract
from vlint.model import Invocation, Pos, Span, Token


def run(text: str) -> list[Invocation]:
    return extract("resource.yaml", text)


def texts(invocation: Invocation) -> list[str]:
    return [token.text for token in invocation.args]


def arg(invocation: Invocation, text: str) -> Token:
    return next(token for token in invocation.args if token.text == text)


LLM_ISVC = (
    "apiVersion: serving.kserve.io/v1alpha1\n"              # 1
    "kind: LLMInferenceService\n"                           # 2
    "metadata: {name: qwen}\n"                              # 3
    "spec:\n"                                               # 4
    "  model:\n"                                            # 5
    "    uri: hf://Qwen/Qwen3-8B\n"                         # 6
    "    name: Qwen/Qwen3-8B\n"                             # 7
    "  parallelism:\n"                                      # 8
    "    tensor: 2\n"                                       # 9
    "    expert: true\n"                                    # 10
    "  template:\n"                                         # 11
    "    containers:\n"                                     # 12
    "    - name: main\n"                                    # 13
    "      env:\n"                                          # 14
    "      - name: VLLM_ADDITIONAL_ARGS\n"                  # 15
    "        value: >-\n"                                   # 16
    "          --max-model-len 32768\n"                     # 17
    "          --kv-cache-dtype fp8\n"                      # 18
    "      - name: HF_HOME\n"                               # 19
    "        value: /models\n"                              # 20
    "      args: [--max-num-seqs, \"64\"]\n"                # 21
    "      resources:\n"                                    # 22
    "        limits: {nvidia.com/gpu: \"2\"}\n"             # 23
    "  prefill:\n"                                          # 24
    "    parallelism: {tensor: 4}\n"                        # 25
    "    template:\n"                                       # 26
    "      containers:\n"                                   # 27
    "      - name: main\n"                                  # 28
    "        env:\n"                                        # 29
    "        - {name: VLLM_ADDITIONAL_ARGS, value: --enforce-eager}\n"  # 30
)


def test_llm_inference_service_is_the_controllers_vllm_serve() -> None:
    decode, prefill = run(LLM_ISVC)
    assert (decode.style, decode.entry, decode.origin) == ("cli", "serve", ("kubernetes",))
    assert texts(decode) == [
        "/mnt/models", "--tensor-parallel-size", "2", "--enable-expert-parallel",
        "--max-model-len", "32768", "--kv-cache-dtype", "fp8", "--max-num-seqs", "64",
    ]
    # The model the controller serves is the one `uri` downloads: it sits on the URI.
    assert arg(decode, "/mnt/models").span == Span(Pos(6, 10), Pos(6, 28))
    assert arg(decode, "--tensor-parallel-size").span == Span(Pos(9, 5), Pos(9, 11))
    assert arg(decode, "2").span == Span(Pos(9, 13), Pos(9, 14))
    assert texts(prefill) == ["/mnt/models", "--tensor-parallel-size", "4", "--enforce-eager"]


def test_vllm_additional_args_are_split_at_their_characters() -> None:
    decode, prefill = run(LLM_ISVC)
    # Through the folded block scalar: each word where it is written.
    assert arg(decode, "--max-model-len").span == Span(Pos(17, 11), Pos(17, 26))
    assert arg(decode, "32768").span == Span(Pos(17, 27), Pos(17, 32))
    assert arg(decode, "fp8").span == Span(Pos(18, 28), Pos(18, 31))
    assert arg(prefill, "--enforce-eager").span == Span(Pos(30, 47), Pos(30, 62))


def test_llm_inference_service_container_facts() -> None:
    decode, _ = run(LLM_ISVC)
    # VLLM_ADDITIONAL_ARGS is the controller's, not vLLM's: it is no environment variable.
    assert set(decode.deployment.env) == {"HF_HOME"}
    assert decode.deployment.gpus is not None and decode.deployment.gpus.value == 2
    assert decode.image is None  # the controller's image (llm-d) names no vLLM release


def test_the_main_container_is_not_read_twice() -> None:
    text = LLM_ISVC.replace("    - name: main\n", "    - name: main\n      image: vllm/vllm-openai:v0.32.0\n", 1)
    assert len(run(text)) == 2


RAY_SERVICE = (
    "apiVersion: ray.io/v1\n"                               # 1
    "kind: RayService\n"                                    # 2
    "metadata: {name: llm}\n"                               # 3
    "spec:\n"                                               # 4
    "  serveConfigV2: |\n"                                  # 5
    "    applications:\n"                                   # 6
    "    - name: llms\n"                                    # 7
    "      import_path: ray.serve.llm:build_openai_app\n"   # 8
    "      args:\n"                                         # 9
    "        llm_configs:\n"                                # 10
    "        - model_loading_config:\n"                     # 11
    "            model_id: qwen-0.5b\n"                     # 12
    "          engine_kwargs:\n"                            # 13
    "            max_model_len: 4096\n"                     # 14
    "  rayClusterConfig:\n"                                 # 15
    "    rayVersion: '2.60.0'\n"                            # 16
    "    headGroupSpec:\n"                                  # 17
    "      template:\n"                                     # 18
    "        spec:\n"                                       # 19
    "          containers:\n"                               # 20
    "          - name: ray-head\n"                          # 21
    "            image: rayproject/ray-llm:2.60.0-py311-cu128\n"  # 22
)


def test_ray_service_serve_config_is_read_through_the_string() -> None:
    (found,) = run(RAY_SERVICE)
    assert found.origin == ("kubernetes", "ray-serve")
    assert found.callee == "AsyncEngineArgs"
    length = next(k for k in found.keywords if k.name.text == "max_model_len")
    assert length.value == 4096
    assert length.name.span == Span(Pos(14, 13), Pos(14, 26))
    assert length.value_span == Span(Pos(14, 28), Pos(14, 32))
    model = next(k for k in found.keywords if k.name.text == "model")
    assert model.value == "qwen-0.5b" and model.value_span.start == Pos(12, 23)
    assert found.target == "0.29.0"  # Ray 2.60.0 pins vllm==0.29.0


def test_ray_service_with_invalid_serve_config_reads_the_rest() -> None:
    text = RAY_SERVICE.replace("    applications:\n", "    applications: [\n", 1)
    assert run(text) == []


VLLM_RUNTIME = (
    "apiVersion: production-stack.vllm.ai/v1alpha1\n"      # 1
    "kind: VLLMRuntime\n"                                   # 2
    "metadata: {name: llama}\n"                             # 3
    "spec:\n"                                               # 4
    "  model:\n"                                            # 5
    "    maxModelLen: 4096\n"                               # 6
    "    modelURL: meta-llama/Llama-3.1-8B-Instruct\n"      # 7
    "    enableTool: true\n"                                # 8
    "  vllmConfig:\n"                                       # 9
    "    enableChunkedPrefill: false\n"                     # 10
    "    gpuMemoryUtilization: \"0.8\"\n"                   # 11
    "    extraArgs: [\"--swap-space\", \"4\"]\n"            # 12
    "    env:\n"                                            # 13
    "    - {name: HF_HOME, value: /data}\n"                 # 14
    "  deploymentConfig:\n"                                 # 15
    "    image: {registry: docker.io, name: \"vllm/vllm-openai:v0.9.0\"}\n"  # 16
)


def test_vllm_runtime_fields_are_the_operators_flags() -> None:
    (found,) = run(VLLM_RUNTIME)
    assert texts(found) == [
        "meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "4096",
        "--enable-auto-tool-choice", "--no-enable-chunked-prefill",
        "--gpu_memory_utilization", "0.8", "--swap-space", "4",
    ]
    assert arg(found, "--max-model-len").span == Span(Pos(6, 5), Pos(6, 16))
    assert arg(found, "4096").span == Span(Pos(6, 18), Pos(6, 22))
    assert arg(found, "--no-enable-chunked-prefill").span.start == Pos(10, 5)
    assert arg(found, "--swap-space").span == Span(Pos(12, 18), Pos(12, 30))
    assert set(found.deployment.env) == {"HF_HOME"}
    assert found.image == "docker.io/vllm/vllm-openai:v0.9.0"
    assert found.target == "0.9.0"


def test_a_vllm_runtime_without_fields_launches_nothing_known() -> None:
    text = "apiVersion: production-stack.vllm.ai/v1alpha1\nkind: VLLMRuntime\nspec: {}\n"
    assert run(text) == []
