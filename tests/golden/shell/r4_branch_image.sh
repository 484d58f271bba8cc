#!/usr/bin/env bash
# Start the server in a container; --cpu switches to the locally built CPU image.
IMAGE=vllm/vllm-openai:latest
GPU_FLAGS="--gpus all"
MODEL=Qwen/Qwen2-VL-2B-Instruct
while [[ $# -gt 0 ]]; do
    case $1 in
        --cpu)
            IMAGE="vllm-cpu-env"
            GPU_FLAGS=""
            shift
            ;;
        --big)
            MODEL=Qwen/Qwen2-VL-7B-Instruct
            shift
            ;;
        *)
            echo "unknown option $1"
            exit 1
            ;;
    esac
done

docker run -it --rm \
  ${GPU_FLAGS} \
  --ipc=host --network=host \
  -v "$HOME/.cache/huggingface:/root/.cache/huggingface" \
  ${IMAGE} \
  --model ${MODEL} --max-num-batched-tokens 8k --swap-space 4 --api-key sk-live-4f9a2c7e1b
