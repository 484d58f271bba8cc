"""Benchmark driver that starts a vLLM server from a command string, as many harnesses do."""

import os
import shlex
import subprocess
import sys

model = sys.argv[1]
port = int(os.environ.get("PORT", "8000"))

cmd = f"vllm serve {model} --port {port} --tensor-parallel-size 2"
cmd += " --max-num-batched-token 8192 --swap-space 4"
server = subprocess.Popen(shlex.split(cmd))

# The same command through a shell, with an extra flag appended inline.
subprocess.run(cmd + " --enable-prefix-caching --rope-scaling yarn", shell=True, check=False)

# Written inline in the call.
os.system(f"vllm serve {model} --port {port + 1} --gpu-memory-utilisation 0.9 &")

# Joined from a list of literals, then split on white space.
line = " ".join(["vllm", "serve", "facebook/opt-125m", "--max-model-len", "2k", "--dtype", "float"])
argv = line.split()

if os.environ.get("DEBUG"):
    cmd = "vllm serve debug/model --enforce-eager"
# Assigned on one branch: not followed.
subprocess.call(cmd, shell=True)
