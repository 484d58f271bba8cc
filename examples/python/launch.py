"""Start a server from Python: the argv list is linted like a shell command."""

import subprocess

model = "Qwen/Qwen2.5-7B-Instruct"
subprocess.run(
    ["vllm", "serve", model, "--max-num-seqs", "8", "--max-num-batched-tokens", "4"],
    check=True,
)
