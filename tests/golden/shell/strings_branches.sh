#!/usr/bin/env bash
# Launch script whose command string grows in branches (the way many serving repos build it).
set -euo pipefail

MODEL="${MODEL:-Qwen/Qwen2.5-7B-Instruct}"

CMD="vllm serve $MODEL \
    --port 8000 \
    --max-model-len 8192"

# Only on a GPU host.
if command -v nvidia-smi >/dev/null 2>&1; then
    CMD="$CMD --gpu-memory-utilization 0.9 --swap-space 4"
fi

# Exclusive branches: each passes its own --dtype, never both (no duplicate-flag finding).
if [ "${PRECISION:-}" = "bf16" ]; then
    CMD="${CMD} --dtype bfloat16"
else
    CMD="${CMD} --dtype half"
fi

[[ -n "${LORA:-}" ]] && CMD+=" --enable-lora --max-lora-rank 48"
[[ "${TRUST:-}" == "yes" ]] && CMD+=" --trust-remote-code"

echo "starting: $CMD"
eval $CMD &

# An array extended in case items.
ARGS=(--max-num-seqs 64)
case "${SIZE:-small}" in
    large) ARGS+=(--max-num-batched-tokens 32) ;;
    *) ARGS+=(--enforce-eager) ;;
esac
vllm serve "$MODEL" --port 8001 "${ARGS[@]}" &

# A branch that replaces the command: unknown afterwards, never guessed.
RUN="vllm serve $MODEL --port 8002"
if [ -n "${OTHER:-}" ]; then
    RUN="vllm serve other/model"
fi
$RUN --swap-space 4 &
wait
