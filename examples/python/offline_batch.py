"""Offline batch generation: keyword arguments are the CLI flags with underscores."""

from vllm import LLM

llm = LLM(
    model="your-model-id",
    max_num_batched_tokens=16384,
    max_model_len=8192,
)

# A CLI habit carried into Python: the unit suffix is not parsed here, and the name is wrong.
batch = LLM(model="your-model-id", max_num_batched_tokens="16k", max_num_seq=8)

outputs = llm.generate(["Explain continuous batching in three sentences."])
for output in outputs:
    print(output.outputs[0].text)
