#!/bin/sh
# Mentions vllm but launches nothing: no findings.
echo "vllm serve --max-num-seqs eight"   # a string, not a command
pip install vllm
grep -r "vllm serve" docs/
