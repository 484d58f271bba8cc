#!/bin/bash
# Quoting, continuations, prefixes and chains: every flag keeps its exact column.
export MODEL="meta-llama/Llama-3.1-8B-Instruct"

CUDA_VISIBLE_DEVICES=0,1 VLLM_LOGGING_LEVEL=DEBUG vllm serve "$MODEL" \
    --tensor-parallel-size 2 \
    "--max-model-len" '32k' \
    --max_num_seqs=256 \
    --max-num-batched-tokens="${BUDGET:-8192}" \
    --gpu-memory-utilization 0.92 | tee serve.log

cd /srv && nohup python3 -u -m vllm.entrypoints.openai.api_server --model "$MODEL" \
    --max-num-seqs 4 --max-num-batched-tokens 2 --enable-chunked-prefill=true &

bash -c "vllm serve $MODEL --max-num-batched-token 4K --kv-cache-dtype fp9"
