# syntax=docker/dockerfile:1
ARG VLLM_VERSION=0.32.0
FROM nvidia/cuda:12.8.1-runtime-ubuntu24.04 AS runtime
ARG VLLM_VERSION
RUN apt-get update && apt-get install -y --no-install-recommends python3-pip
RUN --mount=type=cache,target=/root/.cache/uv \
    uv pip install --system "vllm[audio]==${VLLM_VERSION}"

FROM runtime
EXPOSE 8000
CMD vllm serve Qwen/Qwen3-8B --host 127.0.0.1 \
    --max-num-seqs 4 --max-num-batched-tokens 2
