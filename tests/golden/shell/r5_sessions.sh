#!/usr/bin/env bash
# Start the model server on the GPU box and keep it running after logout.
set -euo pipefail
HOST=gpu01.lab.internal
MODEL=Qwen/Qwen3-8B

# over ssh: the remote shell reads the quoted command line
ssh -o BatchMode=yes "$HOST" "HF_HOME=/data/hf vllm serve $MODEL --max-model-len 32k --swap-space 4"

# in a detached tmux session on the box itself
tmux new-session -d -s vllm "vllm serve $MODEL --port 8001 --max-num-seqs=64k"
tmux send-keys -t vllm:0 "vllm serve $MODEL --port 8002 --disable-log-requests" Enter

# in the running container
docker exec -d -e VLLM_LOGGING_LEVEL=DEBUG vllm-box vllm serve "$MODEL" --port 8003 --gpu-memory-utilization=95
