"""Ray Serve LLM application, modelled on Ray's documentation (doc/source/serve/llm/)."""

from ray import serve
from ray.serve.llm import LLMConfig, build_openai_app

llm_config = LLMConfig(
    model_loading_config=dict(
        model_id="qwen-7b",
        model_source="Qwen/Qwen2.5-7B-Instruct",
    ),
    deployment_config=dict(autoscaling_config=dict(min_replicas=1, max_replicas=2)),
    accelerator_type="L4",
    engine_kwargs=dict(
        tensor_parallel_size=2,
        max_model_len=8192,
        max_num_seq=64,
        gpu_memory_utilization=1.5,
    ),
    runtime_env={"env_vars": {"VLLM_USE_V1": "1"}},
)

small = LLMConfig(
    model_loading_config={"model_id": "facebook/opt-125m"},
    engine_kwargs={"enable_chunked_prefill": True, "max_num_batched_tokens": 512},
)

app = build_openai_app({"llm_configs": [llm_config, small]})
serve.run(app, blocking=True)
