#!/bin/sh
# engine.yaml is not named like a vLLM config: it is found through --config
exec vllm serve my-model --config engine.yaml --port 8000
