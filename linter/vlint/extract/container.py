"""Container runs: ``docker run``, ``podman run``, ``nerdctl run``, ``kubectl run``,
``apptainer``/``singularity exec|run`` — the image, its run options (the Deployment facet) and
the launch inside it.

``extract.argv.recognise_all`` hands every command whose program is in ``PROGRAMS`` here, with
itself as ``recognise`` so that a command run inside the container is recognised the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from vlint.model import Invocation, Span, Token

__all__ = ["PROGRAMS", "recognise"]

PROGRAMS = frozenset({"docker", "podman", "nerdctl", "kubectl", "apptainer", "singularity"})

Recognise = Callable[..., list[Invocation]]


def recognise(
    words: Sequence[Token],
    start: int,
    *,
    path: str,
    kind: str,
    env: Mapping[str, Token],
    names: Mapping[str, Span],
    recognise: Recognise,
) -> list[Invocation]:
    """The vLLM launches of the container command ``words[start:]`` (none yet: being built)."""
    return []
