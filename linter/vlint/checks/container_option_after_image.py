"""What it does
    Reports an option of the container tool (``docker run``, ``podman run``, ``nerdctl run``,
    ``apptainer run``, ``kubectl run ... --``) written after the image, among the server's
    arguments, when the target vLLM release has no option of that name.

Why is this bad?
    The tool's options end at the image: every word after it goes to the container's entry
    point.  ``docker run vllm/vllm-openai:v0.10.1 --model m --gpus all`` starts the container
    without GPUs and passes ``--gpus all`` to vLLM, which stops with ``unrecognized
    arguments``; a short option such as ``-p 8000:8000`` can even be read as an abbreviation of
    one of vLLM's (``-pp``, the pipeline parallel size) and fail on its value.

Example
    ``docker run vllm/vllm-openai:v0.10.1 --model m --privileged -p 8000:8000``

Use instead
    ``docker run --privileged -p 8000:8000 vllm/vllm-openai:v0.10.1 --model m``

Fix safety
    No automatic fix: the option may take the next word as its value, and moving words across
    a shell line (continuations, comments) is not a safe edit.

vLLM releases
    All.  An option string some release's own parser accepts as written is vLLM's and not
    reported: ``--port``, or ``--device`` (vLLM's until 0.9.2; ``removed-flag`` or
    ``abbreviated-flag`` say what later releases make of it).  One that no release has, but
    the target release reads as an abbreviation (``-p`` for ``-pp``), is reported.  The
    container tools' options come from their documentation (``vlint.syntax.container_cli``
    cites each).  This rule stands in for ``unknown-flag`` (VL101), ``abbreviated-flag``
    (VL105) and the value rules (VL2xx) on the options it reports, and for
    ``unexpected-positional`` (VL107) and ``positional-model-ignored`` (VL403) on their values,
    so one mistake gives one finding.

References
    https://docs.docker.com/reference/cli/docker/container/run/
    https://docs.vllm.ai/en/latest/deployment/docker/
"""

from __future__ import annotations

from collections.abc import Iterator

from vlint.checks.base import Context, Rule
from vlint.knowledge.catalog import option_lifetimes
from vlint.model import Finding
from vlint.model.finding import Related
from vlint.normalise.resolution import OptionUse
from vlint.syntax.container_cli import RUN_OPTIONS, OptionTable, is_option

RULE = Rule(code="VL407", name="container-option-after-image", severity="error", since="0.1.0")


def explains(context: Context, use: OptionUse) -> bool:
    """Whether ``use`` is a container option written after the image (this rule's finding),
    which other rules then leave alone."""
    invocation = context.resolution.invocation
    container = invocation.deployment.container
    if container is None or use.match in ("exact", "underscore"):
        return False
    if use.written in option_lifetimes(invocation.entry):
        # vLLM's in some release (``--device auto``): meant for vLLM, whatever this release
        # makes of it (VL102/VL103/VL105 say what).
        return False
    table = RUN_OPTIONS.get(container.value)
    if table is None or not is_option(table, use.written):
        return False
    at = invocation.arg_indexes.get(id(use.token))
    return at is not None and invocation.args[at] is use.token


def values(context: Context) -> set[int]:
    """The ``id`` of each word that is the separate value of a container option this rule
    reports (``8000:8000`` of ``-p 8000:8000``): the tool's value, not a stray positional."""
    invocation = context.resolution.invocation
    container = invocation.deployment.container
    table = RUN_OPTIONS.get(container.value) if container is not None else None
    if table is None:
        return set()
    args = invocation.args
    found: set[int] = set()
    for use in context.resolution.uses:
        if not explains(context, use) or "=" in use.token.text:
            continue
        at = invocation.arg_indexes[id(use.token)]  # (explains: it is an argument)
        if at + 1 < len(args) and _takes_next(table, use.token.text):
            found.add(id(args[at + 1]))
    return found


def _takes_next(table: OptionTable, written: str) -> bool:
    """Whether the option word ``written`` takes the next word as its value."""
    if written.startswith("--"):
        return written in table.valued
    # A group of short options: only a value-taking last letter takes the next word.
    return f"-{written[-1:]}" in table.valued and all(
        f"-{letter}" in table.flags for letter in written[1:-1])


def check(context: Context) -> Iterator[Finding]:
    invocation = context.resolution.invocation
    container = invocation.deployment.container
    if container is None:
        return
    program = container.value
    image = invocation.image
    for use in context.resolution.uses:
        if not explains(context, use):
            continue
        related: tuple[Related, ...] = ()
        if invocation.image_span is not None:
            related = (Related(invocation.image_span, "the image: the options of "
                               f"'{program}' end here"),)
        yield context.finding(
            RULE,
            use.name_span,
            f"'{use.written}' is a '{program}' option written after the image '{image}': "
            f"it is passed to vLLM {context.releases}",
            f"move '{use.written}' (and its value) before the image",
            related=related,
        )
