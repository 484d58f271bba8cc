#!/bin/sh
# The limits written the wrong way round, a budget below the sequence count, an abbreviated
# flag, and a boolean given a value.
nohup vllm serve /srv/models/text-model \
  --max-num-seqs 16 \
  --max-num-active-seqs 64 \
  --max-num-batched-tokens 1.5K \
  --max-model 4096 \
  --enable-chunked-prefill=false > serve.log 2>&1 &

VLLM_MAX_NUM_SEQS=8 python3 -m vllm.entrypoints.openai.api_server --model /srv/models/small \
  --max-num-seqs 512 --max-num-batched-tokens 256 --gpu-memory-utilisation 0.9
