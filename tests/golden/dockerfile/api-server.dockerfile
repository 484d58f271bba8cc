# A CUDA base image with vLLM installed by pip: the entrypoint starts the API server module and
# the CMD (exec form, with JSON escapes) is appended to it.
FROM nvidia/cuda:12.4.1-devel-ubuntu22.04 AS build
RUN --mount=type=cache,target=/root/.cache/pip pip install "vllm==0.31.0"
# A warm-up in a RUN heredoc that starts the server during the build.
RUN <<EOT bash
set -euo pipefail
vllm serve facebook/opt-125m --max-num-seqs 4 --max-num-batched-token 2048 &
sleep 60 && kill %1
EOT

FROM build
ENV VLLM_PORT=8000
ENTRYPOINT ["python3", "-m", "vllm.entrypoints.openai.api_server"]
CMD ["--model", "Qwen/Qwen2.5-7B-Instruct", "--served-model-name", "qwen\u002d7b", \
     "--max-num-seqs", "512", "--max-num-batched-tokens", "256", \
     "--enable-chunked-prefill=false"]
