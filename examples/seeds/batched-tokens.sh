#!/usr/bin/env bash
# From the article on max_num_batched_tokens: the token budget of one scheduler iteration.
set -euo pipefail

# "16k" is 16,000 (lower case is decimal); the author meant 16,384.
vllm serve your-model-id \
  --max-model-len 8192 \
  --max-num-batched-tokens 16k \
  --port 8000

# Turning chunked prefill off: the budget must cover a whole context.  --disable-chunked-prefill
# exists only in the newest releases; older ones spell it --no-enable-chunked-prefill.
vllm serve your-model-id \
  --disable-chunked-prefill \
  --max-model-len 8192 \
  --max-num-batched-tokens 16384

# The same, broken: 4096 tokens cannot hold an 8192-token prompt without chunking.
vllm serve your-model-id \
  --no-enable-chunked-prefill \
  --max-model-len 8192 \
  --max-num-batched-tokens 4096
