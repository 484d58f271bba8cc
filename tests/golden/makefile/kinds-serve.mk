# Serving targets for the demo deployment.
MODEL ?= meta-llama/Llama-3.1-8B-Instruct
TP ?= 2
PORT := 8000
IMAGE = vllm/vllm-openai:v0.32.0

define BANNER
Run `make serve` (vllm serve $(MODEL) --tensor-parallel-size $(TP)).
endef
export BANNER

.PHONY: help serve serve-docker bench clean

help: ## show the targets
	@grep -E '^[a-z-]+:.*##' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "%-14s %s\\n", $$1, $$2}'

serve: ## the API server on this host
	@echo "$$BANNER"
	@vllm serve $(MODEL) \
		--tensor-parallel-size $(TP) \
		--port $(PORT) \
		--max-model-len 8192 \
		--swap-space 4

serve-docker: ## the same, in the official image
	docker run --rm --gpus all --ipc=host -p $(PORT):8000 \
	  -v $$HOME/.cache/huggingface:/root/.cache/huggingface \
	  $(IMAGE) --model $(MODEL) --max-num-seqs 128

ifeq ($(DEBUG),1)
serve-debug: export VLLM_LOGGING_LEVEL = DEBUG
endif
serve-debug:
	-VLLM_LOGGING_LEVEL=DEBUG vllm serve $(MODEL) --port $(PORT)
	  --enforce-eager

bench: ; vllm bench serve --model $(MODEL) --port $(PORT)

clean:
	rm -rf __pycache__ *.log
