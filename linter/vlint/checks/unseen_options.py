"""Whether a launch may set options vlint cannot see: the rules that reason about an option
being absent (no ``--host``, no ``--api-key``, a release default on one side of a bound) ask
here first, and stay silent when it may.

An argv word that no option took as its value and that is not literal (``${VLLM_ARGS}`` in a
compose ``command:``, ``$(VLLM_ARGS)`` in Kubernetes ``args:``, ``vllm serve $ARGS``,
``"${ARGS[@]}"``, a Helm template) may expand to any words, options among them; so may a
Python launch's ``**kwargs``.  The normaliser already gives up on extra positionals for the
same reason (``Resolution.extra_positionals``).
"""

from __future__ import annotations

from vlint.normalise.resolution import Resolution


def may_set_unseen_options(resolution: Resolution) -> bool:
    """True when an option absent from what vlint reads may still be given to vLLM."""
    invocation = resolution.invocation
    if invocation.style == "python":
        return invocation.has_unpacked_kwargs
    return any(not word.literal for word in resolution.positionals)
