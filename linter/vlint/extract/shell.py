"""Shell scripts: the vLLM launches among their simple commands.

The words and commands come from ``vlint.syntax.shell`` (tree-sitter-bash, every character
positioned); ``vlint.extract.argv`` recognises the launches among them.  Manifests applied from a
here-document (``kubectl apply -f - <<EOF``) are read by ``vlint.extract.heredocs``.
"""

from __future__ import annotations

from collections.abc import Sequence

from vlint.extract import heredocs
from vlint.extract.argv import recognise_script
from vlint.extract.nested import ExtractContext
from vlint.model import Invocation, Locator
from vlint.syntax.shell import ShellCommand, iter_commands, parse_words

__all__ = ["KIND", "ShellCommand", "extract", "iter_commands", "parse_words"]

KIND = "shell"


def extract(
    path: str,
    text: str,
    context: ExtractContext | Locator | None = None,
    *,
    shell: bool = True,
    unknown: Sequence[tuple[int, int]] = (),
) -> list[Invocation]:
    """The vLLM invocations among the commands of a shell text.

    ``context.locate`` positions the text in its file (by default the text is the file); a bare
    locator is taken as the context of a nested text.
    ``shell`` is false for text that is only split into words the shell's way (a compose
    ``command:`` string): there a line break ends nothing, no line break is reported, and
    there is no here-document.  ``unknown`` lists the ``(start, end)`` ranges of ``text`` that
    stand for values not known (a document's ``<placeholder>``, written as a ``$`` word): in a
    here-document the shell leaves as written, they are unresolved too.
    """
    if context is None or isinstance(context, ExtractContext):
        locate = (context or ExtractContext((KIND,))).locator(text)
    else:
        locate = context
    found = recognise_script(path, text, locate, shell=shell)
    if shell:
        found.extend(heredocs.manifests(path, text, locate, unknown))
    return found
