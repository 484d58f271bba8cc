"""Other libraries' classes that start vLLM's engine in-process (LangChain ``VLLM``, LlamaIndex
``Vllm``; ``rules/vlint_rules/curated/engine_wrappers.toml``): the keywords they pass on to
``vllm.LLM``, and their ``vllm_kwargs``, are the launch's, each at its place."""

from __future__ import annotations

from vlint.extract.python import extract
from vlint.model import Pos, Span

LANGCHAIN = '''\
from langchain_community.llms import VLLM

settings = {"gpu_memory_utilization": 0.8}
llm = VLLM(model="org/m", trust_remote_code=True, max_new_tokens=128, temperature=0.2,
           tensor_parallel_size=2, vllm_kwargs={"max_model_len": 4096})
other = VLLM(model="org/m", vllm_kwargs=settings)
'''


def test_langchain_vllm_is_an_llm_call_of_its_engine_keywords() -> None:
    first, second = extract("chain.py", LANGCHAIN)
    assert first.callee == "LLM" and first.style == "python"
    names = [keyword.name.text for keyword in first.keywords]
    assert names == ["model", "trust_remote_code", "tensor_parallel_size", "max_model_len"]
    length = first.keywords[-1]
    assert length.name.span == Span(Pos(5, 50), Pos(5, 63))
    assert length.value_span == Span(Pos(5, 66), Pos(5, 70))
    assert not first.has_unpacked_kwargs
    assert [keyword.name.text for keyword in second.keywords] == ["model", "gpu_memory_utilization"]


def test_llama_index_vllm_with_a_server_url_is_a_client() -> None:
    text = ("from llama_index.llms.vllm import Vllm, VllmServer\n"
            'local = Vllm(model="org/m", vllm_kwargs={"swap_space": 1})\n'
            'remote = Vllm(model="org/m", api_url="http://gpu01:8000")\n'
            'server = VllmServer(api_url="http://gpu01:8000")\n')
    [local] = extract("index.py", text)
    assert [keyword.name.text for keyword in local.keywords] == ["model", "swap_space"]
    assert local.anchor.start == Pos(2, 9)


def test_an_openai_compatible_client_is_no_launch() -> None:
    text = ("from langchain_community.llms import VLLMOpenAI\n"
            'llm = VLLMOpenAI(openai_api_base="http://gpu01:8000/v1", model_name="m")\n')
    assert extract("client.py", text) == []


RAY_DATA = '''\
from ray.data.llm import build_llm_processor, vLLMEngineProcessorConfig

config = vLLMEngineProcessorConfig(
    model_source="org/m",
    engine_kwargs={"max_model_len": 16384, "swap_space": 4},
    concurrency=1,
    batch_size=64,
)
'''


def test_ray_data_processor_config_is_an_async_engine_args_call() -> None:
    [launch] = extract("batch.py", RAY_DATA)
    assert launch.callee == "AsyncEngineArgs"
    assert [keyword.name.text for keyword in launch.keywords] == [
        "model", "max_model_len", "swap_space"]
    # `model` is read on `model_source`, none of its characters written (no fix renames it).
    model = launch.keywords[0]
    assert model.name.span.start == Pos(4, 5) and model.name.unwritten == len("model")
    assert model.value_span == Span(Pos(4, 18), Pos(4, 25))
    # Ray's own settings (concurrency, batch_size) never reach vLLM.
    assert "batch_size" not in [keyword.name.text for keyword in launch.keywords]
