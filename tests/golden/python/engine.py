import vllm as v
from vllm import LLM as Engine
from vllm.engine.arg_utils import AsyncEngineArgs, EngineArgs

settings = {"max_num_seqs": 8, "max_num_batched_tokens": 4}
first = Engine("facebook/opt-125m", max_model_len=2048, enable_chunked_prefill=False,
               max_num_batched_tokens=1024)
second = v.LLM(model="facebook/opt-125m", **{"max_num_seqs": 64, "max_num_batched_token": 32})
third = EngineArgs(model="m", max_num_seqs=16, max_num_active_seqs=64)
fourth = AsyncEngineArgs(model="m", max_model_len="32K", **settings)


class LLM:  # not vLLM's: never linted
    def __init__(self, **kwargs: object) -> None:
        pass


LLM(max_num_seq=1)
