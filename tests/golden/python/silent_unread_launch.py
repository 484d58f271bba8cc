"""Starts the evaluation server, then runs the benchmark against it."""
import os
import subprocess

from vllm import AsyncLLMEngine, LLM

# A launch vlint reads: the whole command is in the call.
os.system("vllm serve facebook/opt-125m --max-num-seqs 8 --port 8001 &")

# Launches vlint cannot read: the command is assembled elsewhere.
SERVER = "vllm serve facebook/opt-125m --swap-space 4 --port 8000"
subprocess.Popen(with_gpu_env(SERVER))
engine = AsyncLLMEngine.from_engine_args(load_engine_args("engine.yaml"))

# Not launches.
print("start it yourself with: vllm serve facebook/opt-125m")
# vllm serve facebook/opt-125m --port 8002
llm = LLM(model="facebook/opt-125m", max_num_seqs=4)
