#!/usr/bin/env bash
# Launch script modelled on real repositories: the server started through environment
# managers, CPU pinning, watchdogs and cluster launchers.
set -euo pipefail
MODEL=${MODEL:-Qwen/Qwen2.5-7B-Instruct}

# uv project environment with an extra requirement
uv run --with vllm --python 3.12 --frozen \
  vllm serve "$MODEL" --swap-space 4 --host 127.0.0.1

# conda environment, output streamed
conda run -n vllm --no-capture-output \
  vllm serve "$MODEL" --max-num-batched-tokens 16k --host 127.0.0.1

# pinned to NUMA node 0
numactl --cpunodebind=0 --membind=0 taskset -c 0-31 \
  vllm serve "$MODEL" --tensor-parallel-size 2 --host 127.0.0.1 --gpu-memory-utilisation 0.9

# restarted by a watchdog after a day, line-buffered logs
timeout --kill-after=60 24h stdbuf -oL \
  python3.12 -m vllm.entrypoints.openai.api_server --model "$MODEL" --host 127.0.0.1 \
  --max-num-seqs eight

# a launcher held in a variable
LAUNCHER="srun --gpus 2"
$LAUNCHER vllm serve Qwen/Qwen2.5-7B-Instruct --host 0.0.0.0

# a Ray job: the entrypoint after --
ray job submit --address http://127.0.0.1:8265 --working-dir . -- \
  vllm serve "$MODEL" --host 127.0.0.1 --swap-space 8

# a clean environment: the API key set before env -i does not reach the server
VLLM_API_KEY=secret env -i PATH=/usr/bin HOME=/home/vllm \
  vllm serve Qwen/Qwen2.5-7B-Instruct --host 0.0.0.0

# not launches
timeout 5 curl -sf http://127.0.0.1:8000/health
uv run python scripts/smoke_test.py --model "$MODEL"
