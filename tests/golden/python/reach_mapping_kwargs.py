"""Offline scoring with one engine configuration, and the same model behind Ray Serve LLM."""
import os

from ray import serve
from ray.serve.llm import LLMConfig, build_openai_app
from vllm import LLM, SamplingParams


def build_engine(model_name: str, tensor_parallel_size: int) -> LLM:
    engine_config = {
        "model": model_name,
        "tensor_parallel_size": tensor_parallel_size,
        "max_model_len": 8192,
        "max_num_seqs": 256,
        "max_num_batched_tokens": 128,
        "enable_chunked_prefill": False,
        "device": "cuda",
    }
    return LLM(**engine_config)


engine_kwargs = dict(
    max_model_len=32768,
    tensor_parallel_size=4,
    swap_space=8,
)
if os.environ.get("LOAD_FORMAT"):
    engine_kwargs["load_format"] = os.environ["LOAD_FORMAT"]

llm_config = LLMConfig(
    model_loading_config=dict(model_id="chat", model_source="Qwen/Qwen2.5-32B-Instruct"),
    accelerator_type="A100",
    engine_kwargs=engine_kwargs,
)
app = build_openai_app({"llm_configs": [llm_config]})
serve.run(app)
params = SamplingParams(max_tokens=64)
