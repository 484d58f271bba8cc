"""The entrypoint of a release's official server image, read from that release's own Dockerfile.

The ``vllm/vllm-openai`` image is built from the ``vllm-openai`` stage of the Dockerfile in the
release's sources (``docker/Dockerfile``; ``Dockerfile`` at the top in older trees).  Its
``ENTRYPOINT`` (own or inherited from a parent stage) decides what arguments given to the image
mean.  Stdlib only: the generator runs this in its own interpreter, on the sdist archive.
"""

from __future__ import annotations

import json
import re
import tarfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

STAGE = "vllm-openai"
CANDIDATES = ("docker/Dockerfile", "Dockerfile")
_FROM = re.compile(r"^FROM\s+(?:--\S+\s+)*(?P<base>\S+)(?:\s+AS\s+(?P<name>\S+))?\s*$", re.I)
_ENTRYPOINT = re.compile(r"^ENTRYPOINT\s+(?P<value>.*)$", re.I)


def logical_lines(text: str) -> list[str]:
    """Dockerfile instructions: comments dropped, ``\\`` continuations joined."""
    lines: list[str] = []
    pending = ""
    for raw in text.splitlines():
        stripped = raw.strip()
        if not pending and (not stripped or stripped.startswith("#")):
            continue
        if pending and stripped.startswith("#"):
            continue
        if stripped.endswith("\\"):
            pending += stripped[:-1] + " "
            continue
        lines.append(pending + stripped)
        pending = ""
    if pending:
        lines.append(pending)
    return lines


def entrypoint_words(value: str) -> list[str]:
    """The argv of an ``ENTRYPOINT`` value: exec form (JSON) or shell form (``/bin/sh -c``)."""
    value = value.strip()
    if value.startswith("["):
        try:
            words = json.loads(value)
        except ValueError:
            words = None
        if isinstance(words, list) and all(isinstance(w, str) for w in words):
            return words
    return ["/bin/sh", "-c", value]


def stage_entrypoint(text: str, stage: str = STAGE) -> list[str] | None:
    """The ENTRYPOINT in effect for ``stage`` (following ``FROM <parent stage>``), if any."""
    stages: dict[str, tuple[str, list[str] | None]] = {}
    current: str | None = None
    for line in logical_lines(text):
        found = _FROM.match(line)
        if found:
            current = (found.group("name") or "").lower() or None
            if current is not None:
                stages[current] = (found.group("base").lower(), None)
            continue
        entry = _ENTRYPOINT.match(line)
        if entry and current is not None:
            stages[current] = (stages[current][0], entrypoint_words(entry.group("value")))
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
