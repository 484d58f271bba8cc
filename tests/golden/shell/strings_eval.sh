#!/usr/bin/env bash
# Launch script that assembles the vLLM command in variables (the way many serving repos do).
set -euo pipefail

MODEL="Qwen/Qwen2.5-7B-Instruct"
PORT=8000
TP_ARGS=(--tensor-parallel-size 2 --pipeline-parallel-size 1)
EXTRA_ARGS=()
EXTRA_ARGS+=(--max-num-seq 128 --disable-log-requests)

CMD="vllm serve ${MODEL} --host 0.0.0.0 --port ${PORT}"
CMD="$CMD --gpu-memory-utilization 0.92 --swap-space 8"
CMD+=" --max-model-len 32k"

echo "Running: $CMD"
eval $CMD &

# The same server started through bash -c, with a conditional LoRA flag.
bash -c "$CMD ${ENABLE_LORA:+--enable-lora --max-lora-rank 48}" &

# An array holding the whole command.
SERVER=(vllm serve "$MODEL" "${TP_ARGS[@]}" "${EXTRA_ARGS[@]}" --api-key "sk-live-4f9a0c2e7b")
"${SERVER[@]}" &

# Assigned only on one branch: unknown afterwards, never guessed.
if [ -n "${QUANT:-}" ]; then
  QUANT_ARGS="--quantization $QUANT"
fi
vllm serve "$MODEL" $QUANT_ARGS --port 8001 &

# Built by a command: unresolved.
LAUNCH=$(python make_launch.py)
$LAUNCH --port 8002 &
wait
