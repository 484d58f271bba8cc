"""Container images: which references name a vLLM server image, the release a tag pins, and
which server a release's official image starts (its ENTRYPOINT, generated into the catalog).

Extractors, rules and the target resolution all ask these questions about an image reference.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from packaging.version import InvalidVersion, Version

from vlint.knowledge import catalog, curated
from vlint.knowledge.curated import ImageRepository
from vlint.model import Entry, Token

__all__ = [
    "API_SERVER_MODULE", "DEMO_SERVER_MODULE", "LATEST", "Reference", "image_entry", "is_server_image", "parse_reference",
    "release_from_image", "repository_entry", "runs_server", "server_arguments", "vllm_arguments",
    "unversioned_note",
]

API_SERVER_MODULE = "vllm.entrypoints.openai.api_server"
# vLLM's old demo (non-OpenAI) server, shipped while the release has it (catalog entry
# ``demo_server``).
DEMO_SERVER_MODULE = "vllm.entrypoints.api_server"
LATEST = "latest"
_PYTHON = re.compile(r"python(\d+(\.\d+)?)?$")
# vLLM's own server images (``vllm/vllm-openai``, ``vllm/vllm-openai-rocm``, mirrors of them under
# any registry): their ENTRYPOINT is the one the catalog records from vLLM's Dockerfile.  A
# vendor's image named ``vllm`` (``rocm/vllm``, ``nvcr.io/nvidia/vllm``, ``intel/vllm``) is
# built on its own entry point (a shell, ``nvidia_entrypoint.sh``), so it is not one: whether
# it runs the server with given words is ``runs_server``'s call.
_SERVER_IMAGE = re.compile(r"(^|/)vllm-openai(-[a-z0-9]+)?(:|@|$)")
# An image whose repository is named vLLM (its own, a vendor's, a team's): one the target note
# speaks of when its tag names no release.
_VLLM_REPOSITORY = re.compile(r"(^|/)(vllm-openai(-[a-z0-9]+)?|vllm)(:|@|$)")
_RELEASE_TAG = re.compile(r"^v?(\d+\.\d+\.\d+(?:\.\d+)?(?:\.post\d+)?)(?:[-+].*)?$")
_HUB_PREFIXES = ("docker.io/", "index.docker.io/", "registry-1.docker.io/")
# The first part of a reference names a registry when it has a dot or a port, or is localhost.
_REGISTRY_HOST = re.compile(r"[.:]|^localhost$")


def is_server_image(image: str) -> bool:
    """Whether an image reference names a vLLM OpenAI server image (``vllm/vllm-openai:...``)."""
    name = image.split("@", 1)[0]
    repository = name.rsplit(":", 1)[0] if ":" in name.rsplit("/", 1)[-1] else name
    return bool(_SERVER_IMAGE.search(repository + ":"))


class Reference(NamedTuple):
    """An image reference's parts: ``repository`` (lower case, without a Docker Hub registry
    prefix), ``tag`` and ``digest`` (empty when not written)."""

    repository: str
    tag: str
    digest: str


def parse_reference(image: str) -> Reference:
    """``[registry/]path[:tag][@digest]`` split into its parts (no validation)."""
    name, _, digest = image.strip().partition("@")
    last = name.rsplit("/", 1)[-1]
    tag = ""
    if ":" in last:
        name, _, tag = name.rpartition(":")
    repository = name.lower()
    for prefix in _HUB_PREFIXES:
        if repository.startswith(prefix):
            repository = repository[len(prefix):]
            break
    return Reference(repository, tag, digest)


def release_from_image(image: str) -> str | None:
    """The vLLM release an image's tag pins (``vllm/vllm-openai:v0.10.1`` -> ``0.10.1``), read
    through the curated table of image repositories (``rules/vlint_rules/curated/images.toml``).

    ``latest`` (written, implied by a missing tag, or ``latest-<variant>``) of a repository
    tagged with vLLM releases is returned as ``"latest"``.  A vendor's tag gives the release
    the vendor documents for it (``nvcr.io/nvidia/vllm:26.01-py3`` -> ``0.11.1``).  None for
    every other image: a repository not in the table (``ghcr.io/llm-d/llm-d-cuda:v0.9.0``
    versions llm-d, ``python:3.11.7`` Python), a tag that names no release, an image pinned by
    digest alone (``vllm/vllm-openai@sha256:...`` names no release; with a tag as well,
    ``vllm/vllm-openai:v0.9.1@sha256:...``, the tag gives it), or a reference that is not
    literal (``vllm/vllm-openai:${TAG}``).
    """
    if "$" in image or "{" in image:
        return None
    reference = parse_reference(image)
    entry = repository_entry(reference.repository)
    if entry is None or entry.tags == "own":
        return None
    tag = reference.tag
    if entry.tags == "release":
        if tag == "" and reference.digest:
            return None
        if tag in ("", "latest") or tag.startswith("latest-"):
            return LATEST
        match = _RELEASE_TAG.match(tag)
        return match.group(1) if match else None
    if entry.tags == "pattern":
        found = re.search(entry.pattern, tag) if tag not in entry.not_releases else None
        return found.group(1) if found else None
    if entry.tags == "map":
        key = re.match(entry.key, tag)
        return entry.releases.get(key.group(1)) if key else None
    return None


def repository_entry(repository: str) -> ImageRepository | None:
    """The curated entry of ``repository``; a Docker Hub repository of the table is also
    known behind a registry host that mirrors it (``mirror.example.com/vllm/vllm-openai``:
    a pull-through cache keeps the repository's path)."""
    table = curated.image_repositories()
    entry = table.get(repository)
    if entry is not None:
        return entry
    host, _, path = repository.partition("/")
    if not path or not _REGISTRY_HOST.search(host):
        return None
    for name, candidate in table.items():
        hub = not _REGISTRY_HOST.search(name.partition("/")[0])
        if hub and (path == name or path.endswith("/" + name)):
            return candidate
    return None


def unversioned_note(image: str) -> str | None:
    """Why a vLLM image gives no release, for the target's note; None when it gives one, or
    when the image is not one vlint knows to hold vLLM (nothing to say about it)."""
    if "$" in image or "{" in image or release_from_image(image) is not None:
        return None
    reference = parse_reference(image)
    entry = repository_entry(reference.repository)
    if entry is None and not _VLLM_REPOSITORY.search(reference.repository + ":"):
        return None
    shown = reference.repository
    if entry is None:
        return f"image {shown} is not one vlint knows to tag vLLM releases"
    if not reference.tag and reference.digest:
        return f"image {shown} is pinned by digest only, which names no vLLM release"
    return f"image tag '{reference.tag or 'latest'}' of {shown} is not a vLLM version"


def image_entry(target: str | None) -> Entry:
    """Which server the ``vllm/vllm-openai`` image of a release starts (its Dockerfile's
    ENTRYPOINT, generated into the catalog); ``vllm serve`` when the release is not known."""
    if target is None:
        return "serve"
    try:
        # (``==0.9.2``: a Dockerfile's ``pip install vllm==0.9.2`` over a server image.)
        version = catalog.newest() if target == LATEST else Version(target.removeprefix("=="))
    except InvalidVersion:
        return "serve"
    known = catalog.known_releases()
    if version not in known:
        return "serve"
    image = _nearest_image(known, known.index(version))
    entrypoint = [w.rsplit("/", 1)[-1] for w in image.get("entrypoint", ())]
    if entrypoint[-1:] == [API_SERVER_MODULE] and entrypoint[:1] and _PYTHON.match(entrypoint[0]):
        return "api_server"
    return "serve"


def _nearest_image(known: Sequence[Version], index: int) -> Mapping[str, Any]:
    """The image facts of ``known[index]``, or of the nearest release that has them.

    A release whose source distribution ships no Dockerfile (0.4.x to 0.6.1) or that was read
    from a wheel has none; its image is taken to start what the nearest release's image starts,
    the newer one first (the official image's ENTRYPOINT changed once in all known releases,
    and never between neighbours that both record it).
    """
    for distance in range(len(known)):
        for neighbour in (index + distance, index - distance):
            if 0 <= neighbour < len(known):
                image = catalog.load(known[neighbour]).raw.get("image")
                if image:
                    found: Mapping[str, Any] = image
                    return found
    return {}


def runs_server(image: str, words: Sequence[Token]) -> bool:
    """Whether an image given ``words`` as its arguments runs vLLM's server with them.

    A vLLM server image does (``vllm/vllm-openai``, ``knowledge.images.is_server_image``).  So
    does an image whose reference names vLLM without being one vlint knows (a locally built
    ``vllm-cpu-env``, ``team-vllm:local``, a ``$VLLM_IMAGE`` variable, a vendor's CPU build)
    when every option among ``words`` is an option string of ``vllm serve`` in some release:
    the words are written for vLLM's parser.  An option no vLLM release has (``--concurrency``)
    means the image's own entry point reads them, and nothing is guessed.  Any other image
    does when its words are unmistakably vLLM's (``vllm_arguments``).
    """
    if is_server_image(image):
        return True
    if "vllm" in image.lower():
        return server_arguments(words)
    return vllm_arguments(words)


def server_arguments(words: Sequence[Token]) -> bool:
    """Whether ``words`` start with an option (or with a model reference, ``org/name`` or a
    path, followed by options: ``vllm serve``'s positional model) and every written option among
    them is one that ``vllm serve`` (or the API server) accepted in some known release; or
    every word is unresolved (``$VLLM_ARGS``): nothing written contradicts it.  A word whose
    value is unresolved counts by its written option (``--model={{ .Values.model }}``)."""
    if words and not any(word.literal or _named(word) for word in words):
        # ``docker run $VLLM_IMAGE $VLLM_ARGS``: nothing written says otherwise.
        return True
    if not words or not (words[0].literal or _named(words[0])):
        return False
    first = words[0].text
    if not first.startswith("-"):
        if not _MODEL.match(first) or first.endswith(_SCRIPTS) or len(words) < 2 \
                or not words[1].text.startswith("-"):
            return False
    known = _every_option_string()
    for word in words:
        text = word.text
        if not word.literal or not text.startswith("-") or text == "-" or _NUMBER.match(text):
            continue
        option = _option(text)
        if option not in known and not _joined_short(option, known):
            return False
    return True


def vllm_arguments(words: Sequence[Token]) -> bool:
    """Whether ``words`` are vLLM's server arguments even though the image's name does not say
    vLLM (``{{ .Values.image.repository }}`` left empty, ``team/llm-server:1.2``): they are
    ``server_arguments`` and hold at least ``_OWN_OPTIONS`` different options of three or more
    words (``--max-model-len``, ``--tensor-parallel-size``, ``--gpu-memory-utilization``), the
    long names no other server shares all of.  ``--model m --port 8000`` says nothing."""
    if not any(word.literal for word in words) or not server_arguments(words):
        return False
    long_names = {_option(word.text) for word in words
                  if word.text.startswith("--") and (word.literal or _named(word))}
    return sum(1 for name in long_names if name[2:].count("-") >= 2) >= _OWN_OPTIONS


def _option(text: str) -> str:
    """The option a word names, as vLLM reads it (``_`` in a long name read as ``-``)."""
    option = text.partition("=")[0]
    return "--" + option[2:].replace("_", "-") if option.startswith("--") else option


def _named(word: Token) -> bool:
    """Whether an unresolved word is written as a known long option with its value joined
    (``--model=$MODEL``): its option is known even though its value is not."""
    name, joined, _ = word.text.partition("=")
    return bool(joined) and name.startswith("--") and _option(name) in _every_option_string()


_NUMBER = re.compile(r"-\d")
_OWN_OPTIONS = 2
# A model given as ``vllm serve``'s first word: a repository id or a path, never a program.
_MODEL = re.compile(r"[\w.-]*/[\w./-]+$")
_SCRIPTS = (".py", ".sh", ".bash")


def _joined_short(option: str, known: frozenset[str]) -> bool:
    """Whether ``option`` is a short option of the catalog with its value joined to it
    (``-O3``, ``-tp4``): argparse reads a single-dash option's value from the same word."""
    if option.startswith("--"):
        return False
    return any(option[:end] in known for end in range(2, len(option)))


@functools.cache
def _every_option_string() -> frozenset[str]:
    """Every option string of ``vllm serve`` and the OpenAI API server in any known release
    (from the catalog's lifetimes: what appeared, in which releases)."""
    return frozenset(
        (*catalog.option_lifetimes("serve"), *catalog.option_lifetimes("api_server"))
    )
