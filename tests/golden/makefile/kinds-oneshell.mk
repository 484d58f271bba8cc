# One shell per recipe: the server waits for the GPUs, then starts.
.ONESHELL:
SHELL := /bin/bash
GPUS := $(shell nvidia-smi -L | wc -l)

serve:
	@set -euo pipefail
	until nvidia-smi > /dev/null; do sleep 1; done
	@echo "serving on $(GPUS) GPUs as $$USER"
	exec vllm serve "$(MODEL)" --tensor-parallel-size $(GPUS) \
	  --max-model-len 16k --api-key "$$VLLM_API_KEY" \
	  --enable-chunked-prefill=false

smoke: ; @vllm serve facebook/opt-125m --max-num-seqs=0x10 --port 8000
