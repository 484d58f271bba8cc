"""The entrypoint of a release's official server image, read from that release's own Dockerfile.

The ``vllm/vllm-openai`` image is built from the ``vllm-openai`` stage of the Dockerfile in the
release's sources (``docker/Dockerfile``; ``Dockerfile`` at the top in older trees).  Its
``ENTRYPOINT`` (own or inherited from a parent stage) decides what arguments given to the image
mean.  The instructions are read by ``vlint.syntax.dockerfile`` (continuations, comments,
heredocs and the escape directive as Docker reads them).  Stdlib only: the generator runs this
in its own interpreter, on the sdist archive.
"""

from __future__ import annotations

import json
import sys
import tarfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

# The one Dockerfile reader is vlint's own (its import closure is stdlib only).
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "linter"))
from vlint.errors import Unparsable  # noqa: E402
from vlint.syntax.dockerfile import exec_form, parse, strip  # noqa: E402
from vlint.syntax.lines import Chars  # noqa: E402

STAGE = "vllm-openai"
CANDIDATES = ("docker/Dockerfile", "Dockerfile")


def entrypoint_words(value: Chars) -> list[str]:
    """The argv of an ``ENTRYPOINT`` value: exec form (JSON) or shell form (``/bin/sh -c``)."""
    value = strip(value)
    try:
        words = exec_form(value)
    except Unparsable:
        words = None
    if words is not None:
        return [word.text for word in words]
    return ["/bin/sh", "-c", value.text]


def stage_entrypoint(text: str, stage: str = STAGE) -> list[str] | None:
    """The ENTRYPOINT in effect for ``stage`` (following ``FROM <parent stage>``), if any."""
    stages: dict[str, tuple[str, list[str] | None]] = {}
    current: str | None = None
    for instruction in parse(text):
        if instruction.keyword == "FROM":
            words = [w for w in instruction.args.text.split() if not w.startswith("--")]
            named = len(words) == 3 and words[1].lower() == "as"
            current = words[2].lower() if named else None
            if current is not None:
                stages[current] = (words[0].lower(), None)
        elif instruction.keyword == "ENTRYPOINT" and current is not None:
            stages[current] = (stages[current][0], entrypoint_words(instruction.args))
    seen: set[str] = set()
    name = stage
    while name in stages and name not in seen:
        seen.add(name)
        base, words = stages[name]
        if words is not None:
            return words
        name = base
    return None


def from_sdist(archive: Path) -> dict[str, Any] | None:
    """``{"entrypoint", "dockerfile", "stage"}`` for the release in ``archive``, if it says."""
    with tarfile.open(archive, "r:gz") as tar:
        members = {m.name.split("/", 1)[-1]: m for m in tar.getmembers() if m.isfile()}
        for candidate in CANDIDATES:
            member = members.get(candidate)
            if member is None:
                continue
            handle = tar.extractfile(member)
            if handle is None:
                continue
            words = stage_entrypoint(handle.read().decode("utf-8", "replace"))
            if words is not None:
                return {"entrypoint": words, "dockerfile": candidate, "stage": STAGE}
    return None


def main(argv: Sequence[str]) -> int:
    for name in argv:
        print(name, json.dumps(from_sdist(Path(name))))
    return 0


if __name__ == "__main__":
    import sys

    sys.exit(main(sys.argv[1:]))
