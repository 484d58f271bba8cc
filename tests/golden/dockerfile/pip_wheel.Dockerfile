FROM vllm/vllm-openai:v0.31.0
# Replace the image's vLLM with a patched wheel of another release.
RUN pip install --force-reinstall \
    https://example.com/wheels/vllm-0.32.0+cu128-cp38-abi3-manylinux1_x86_64.whl
CMD ["--model", "Qwen/Qwen3-8B", "--swap-space", "4"]
