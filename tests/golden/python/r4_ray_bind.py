"""A Ray Serve deployment whose constructor hands its keywords to the engine."""

from ray import serve
from starlette.requests import Request
from vllm.engine.arg_utils import AsyncEngineArgs
from vllm.engine.async_llm_engine import AsyncLLMEngine


@serve.deployment(ray_actor_options={"num_gpus": 1})
class ChatDeployment:
    def __init__(self, **kwargs):
        args = AsyncEngineArgs(**kwargs)
        self.engine = AsyncLLMEngine.from_engine_args(args)

    async def __call__(self, request: Request) -> dict:
        return {"ok": True}


deployment = ChatDeployment.bind(
    model="tiiuae/falcon-7b-instruct",
    dtype="bfloat16",
    swap_space=4,
    max_num_batched_tokens="8k",
)
small = ChatDeployment.options(name="small").bind(model="facebook/opt-125m", max_model_len=2048)
