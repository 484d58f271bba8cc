FROM python:3.11-slim
RUN pip install vllm==0.32.0
# No ENTRYPOINT: a shell-form CMD is run by /bin/sh.
CMD exec vllm serve microsoft/phi-2 --max-num-seqs 64 \
        --max-num-batched-tokens 32 --max-model-len 2048
