"""Extractors: one per file kind, each turning a file's text into invocations.

Every module here is an ``Extractor`` (``extract(path, text, context)``).  The registry maps each
kind to a loader that imports its module and returns it typed as an ``Extractor``, so mypy checks
every module against the Protocol.  The imports are lazy: a run imports the extractors of the
kinds it reads (importing all ten costs about a tenth of a cold run on one compose file).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from vlint.extract.nested import ExtractContext, Extractor

__all__ = ["EXTRACTORS", "ExtractContext", "Extractor", "extractor"]


def _compose() -> Extractor:
    from vlint.extract import compose  # lazy: only the kinds a run reads are imported

    return compose


def _dockerfile() -> Extractor:
    from vlint.extract import dockerfile  # lazy: as above

    return dockerfile


def _helm() -> Extractor:
    from vlint.extract import helm  # lazy: as above

    return helm


def _justfile() -> Extractor:
    from vlint.extract import justfile  # lazy: as above

    return justfile


def _kubernetes() -> Extractor:
    from vlint.extract import manifests  # lazy: as above

    return manifests


def _launcher() -> Extractor:
    from vlint.extract import launcher  # lazy: as above

    return launcher


def _makefile() -> Extractor:
    from vlint.extract import makefile  # lazy: as above

    return makefile


def _markdown() -> Extractor:
    from vlint.extract import markdown  # lazy: as above

    return markdown


def _notebook() -> Extractor:
    from vlint.extract import notebook  # lazy: as above

    return notebook


def _procfile() -> Extractor:
    from vlint.extract import procfile  # lazy: as above

    return procfile


def _python() -> Extractor:
    from vlint.extract import python  # lazy: as above

    return python


def _ray_serve() -> Extractor:
    from vlint.extract import ray_serve  # lazy: as above

    return ray_serve


def _shell() -> Extractor:
    from vlint.extract import shell_programs  # lazy: as above

    return shell_programs


def _supervisord() -> Extractor:
    from vlint.extract import supervisord  # lazy: as above

    return supervisord


def _systemd() -> Extractor:
    from vlint.extract import systemd  # lazy: as above

    return systemd


def _taskfile() -> Extractor:
    from vlint.extract import taskfile  # lazy: as above

    return taskfile


def _vllm_config() -> Extractor:
    from vlint.extract import vllm_config  # lazy: as above

    return vllm_config


EXTRACTORS: Mapping[str, Callable[[], Extractor]] = {
    "compose": _compose,
    "dockerfile": _dockerfile,
    "helm": _helm,
    "justfile": _justfile,
    "kubernetes": _kubernetes,
    "launcher": _launcher,
    "makefile": _makefile,
    "markdown": _markdown,
    "notebook": _notebook,
    "procfile": _procfile,
    "python": _python,
    "ray-serve": _ray_serve,
    "shell": _shell,
    "supervisord": _supervisord,
    "systemd": _systemd,
    "taskfile": _taskfile,
    "vllm-config": _vllm_config,
}


def extractor(kind: str) -> Extractor:
    """The extractor of ``kind``; a KeyError names a kind vlint does not read."""
    return EXTRACTORS[kind]()
