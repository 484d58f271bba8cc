"""Starts the evaluation server in a GPU sandbox and on a lab machine, then waits for it."""
import logging
import os

from fabric import Connection
from sandbox_sdk import Sandbox, SessionExecuteRequest

MODEL = os.environ.get("MODEL", "Qwen/Qwen2.5-7B-Instruct")
PORT = 8000
logger = logging.getLogger(__name__)

box = Sandbox.create(image="vllm/vllm-openai:v0.9.1", gpu="H100")
logger.info(f"starting: vllm serve {MODEL} --port {PORT}")
job = box.process.execute_session_command(
    "server",
    SessionExecuteRequest(
        command=(
            f"vllm serve {MODEL} --port {PORT} "
            # long prompts: keep the context large
            "--max-model-len 32k "
            "--swap-space 4 --gpu-memory-utilisation 0.9"
        ),
        run_async=True,
    ),
)

lab = Connection("gpu-box.internal")
start = "vllm serve " + MODEL + " --tensor-parallel-size 2"
start += " --max-num-batched-token 8192"
lab.run(start, hide=True, asynchronous=True)

# Not launches: messages, and commands that are not vLLM's.
print("to start it by hand: vllm serve Qwen/Qwen2.5-7B-Instruct --swap-space 4")
lab.run("nvidia-smi --query-gpu=memory.used --format=csv")
lab.run("echo vllm serve is starting")
