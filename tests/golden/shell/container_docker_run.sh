#!/usr/bin/env bash
# Start the OpenAI-compatible server in the official image, then a second one for a
# smaller model on another port.  (vlint golden input: docker/podman/nerdctl run.)
set -euo pipefail

MODEL="${MODEL:-Qwen/Qwen2.5-7B-Instruct}"

docker run -d --name vllm-main \
    --runtime nvidia --gpus all \
    -v "$HOME/.cache/huggingface:/root/.cache/huggingface" \
    --env "HF_TOKEN=$HF_TOKEN" \
    -p 8000:8000 \
    --ipc=host \
    vllm/vllm-openai:v0.32.0 \
    --model "$MODEL" \
    --max-num-seqs 64 \
    --gpu-memory-utilisation 0.9

# The options after the image go to vLLM, not to docker.
docker run --rm vllm/vllm-openai:v0.31.0 --model facebook/opt-125m --port 8001 \
    --shm-size 8g -p 8001:8001 --privileged

# Podman with the GPUs named through CDI.
podman run -it --rm --device nvidia.com/gpu=all --security-opt=label=disable \
    --shm-size=16g -e VLLM_LOGGING_LEVEL=DEBUG \
    docker.io/vllm/vllm-openai:v0.33.0 --model m --max-model-len 4k

# A plain Python image running vllm itself.
nerdctl run --gpus '"device=0,1"' python:3.12 \
    vllm serve m --tensor-parallel-size 2 --max-num-batched-tokens 16

# Not launches: another command, or options vlint cannot read.
docker run --rm busybox echo "vllm serve m"
docker run --made-up-option vllm/vllm-openai:v0.32.0 --model m --bogus-flag
