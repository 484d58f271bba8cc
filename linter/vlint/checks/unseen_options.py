"""Whether a launch may set options vlint cannot see: the rules that reason about an option
being absent (no ``--host``, no ``--api-key``, a release default on one side of a bound) ask
here first, and stay silent when it may.

A word that is not literal may expand to any words, options among them, where nothing says what
it holds:

- a launch whose arguments are all such words and no option (``vllm serve $ARGS``, compose
  ``command: ${VLLM_ARGS}``, Kubernetes ``args: ["$(VLLM_ARGS)"]``): the whole argv is unknown;
- such a word that is not the model (``vllm serve m --port 1 $EXTRA_ARGS``, where ``vllm
  serve`` takes one positional, the model): the word holds more arguments.

The model itself written as a variable beside written options (``vllm serve "$MODEL" --port
1``, ``--model ${MODEL}``, a Helm ``{{ .Values.model }}``, a Markdown ``<model>``) is the model:
it leaves the other options known.  A Python launch's ``**kwargs`` may hold any keyword.  A
vLLM ``--config`` file is only part of a launch: the command that loads it (``vllm serve
--config FILE ...``) may give any option besides the file's keys.  The normaliser gives up on
extra positionals for the same reason (``Resolution.extra_positionals``).
"""

from __future__ import annotations

from vlint.normalise.resolution import Resolution


def may_set_unseen_options(resolution: Resolution) -> bool:
    """True when an option absent from what vlint reads may still be given to vLLM."""
    invocation = resolution.invocation
    if not invocation.args_complete:
        return True
    if invocation.style == "python":
        return invocation.has_unpacked_kwargs
    model = resolution.written("model")
    model_at = model.span if model is not None else None
    unresolved = [word for word in resolution.positionals if not word.literal]
    if any(word.sub_span(0) != model_at for word in unresolved):
        return True  # a word beside the model
    return bool(unresolved) and not resolution.uses
