#!/usr/bin/env bash
# Deploys the serving pod straight from this script, then writes a copy for the record.
set -euo pipefail

NAMESPACE=${NAMESPACE:-serving}

kubectl -n "$NAMESPACE" apply -f - <<EOF
apiVersion: apps/v1
kind: Deployment
metadata:
  name: vllm
spec:
  replicas: 1
  selector:
    matchLabels: {app: vllm}
  template:
    metadata:
      labels: {app: vllm}
    spec:
      containers:
        - name: server
          image: vllm/vllm-openai:v0.32.0
          args:
            - --model=meta-llama/Llama-3.1-8B-Instruct
            - --max-num-seq=32
            - --max-model-len=$MAX_LEN
            - --served-model-name=\$(MODEL_NAME)
          env:
            - name: MODEL_NAME
              value: llama-8b
            - name: HF_TOKEN
              value: hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789
EOF

cat <<'YAML' | envsubst | kubectl apply -f -
apiVersion: v1
kind: Pod
metadata:
  name: vllm-canary
spec:
  containers:
    - name: server
      image: vllm/vllm-openai:${TAG}
      command: ["sh", "-c"]
      args:
        - |
          vllm serve meta-llama/Llama-3.1-8B-Instruct \
            --swap-space 4 --max-num-seqs "$SEQS"
YAML

if [ -n "${RECORD:-}" ]; then
	cat > vllm.yaml <<-EOF
	apiVersion: v1
	kind: Pod
	spec:
	  containers:
	    - image: vllm/vllm-openai:v0.32.0
	      args: ["--model", "m", "--swap-space", "4"]
	EOF
fi
