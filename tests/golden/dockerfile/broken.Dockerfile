FROM vllm/vllm-openai:v0.32.0
# The closing bracket is missing: Docker would run this through /bin/sh as written.
CMD ["meta-llama/Llama-3.1-8B-Instruct", "--max-num-seqs", "8"
