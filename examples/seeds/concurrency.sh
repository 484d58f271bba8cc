#!/bin/sh
# From the article on continuous-batching limits: sequences, active requests, queued requests.
MODEL_DIR=/srv/models/text-model

# Runner capacity 64, at most 16 RUNNING, at most 48 in flight per API server.
exec vllm serve "$MODEL_DIR" \
  --host 127.0.0.1 \
  --max-num-seqs 64 \
  --max-num-active-seqs 16 \
  --max-num-batched-tokens 2048 \
  --max-num-queued-reqs 48 \
  --enable-chunked-prefill
