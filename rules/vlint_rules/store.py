"""The catalog's storage format: keyframes, deltas between releases, and lifecycle facts.

Stdlib only: ``rules/generate.py`` packs with it (in any Python) and ``vlint.knowledge.catalog`` unpacks
with it.  The format is described in ``rules/README.md`` ("File format").

Releases are ordered by version.  Every ``KEYFRAME_EVERY``-th release counted from the oldest,
and the newest release, is stored whole (a *keyframe*); every other release is stored as a
*delta* against the release just before it.  Loading any release therefore reads one keyframe
and at most ``KEYFRAME_EVERY - 1`` deltas.

A delta is an *op* applied to the base value:

``{"=": value}``
    the value, whole.
``{"{}": {"patch": {key: op}, "drop": [key]}}``
    a JSON object: change or add these keys, remove those; the rest is the base's.
``{"[]": {"key": how, "patch": {key: op}, "drop": [key], "order": ...}}``
    a list of records that each have an identity (``how``: ``"strings"`` = the record's option
    strings joined by spaces, ``"name"`` = its ``name``, ``"."`` = the item itself, for a list
    of strings).  ``order`` is absent when the result keeps the base's order with additions
    appended, ``"sorted"`` when the result is sorted by identity, otherwise the identities in
    order.

Ops are used only where smaller than the whole value.  Before diffing, each release is put in
its *stored form* (:func:`stored_form`): parts listed in ``DERIVED`` become an op against
another part of the same release (``api_server`` against ``serve``), under ``"derived"``.

``KEYFRAME_EVERY`` was chosen by measuring: a keyframe costs about 3 ms to read, each delta
about 0.6 ms to read and apply, so the longest chain (7 deltas) loads, parser built, in about
10 ms of CPU, half the 20 ms goal; a longer interval saves little space (rules/README.md).

Unpacking shares unchanged parts with the base: treat what :func:`unpack` returns as read-only.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

FORMAT = "vlint-catalog/2"
KEYFRAME_EVERY = 8
NOTICE = "GENERATED FILE - do not edit by hand; rerun the command below to refresh it."
ENTRIES = ("serve", "api_server", "demo_server")

# Lists whose items have an identity, by their path in a release's raw data.
KEYED_LISTS: Mapping[tuple[str, ...], str] = {
    ("serve", "options"): "strings",
    ("api_server", "options"): "strings",
    ("demo_server", "options"): "strings",
    ("engine_args", "EngineArgs"): "name",
    ("engine_args", "AsyncEngineArgs"): "name",
    ("env_vars",): ".",
    ("llm_params", "params"): ".",
}

# Parts stored as an op against another part of the same release (the api_server module's
# parser is nearly the serve parser, the demo server's is serve's engine options;
# AsyncEngineArgs extends EngineArgs).
DERIVED: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (("api_server",), ("serve",)),
    (("demo_server",), ("serve",)),
    (("engine_args", "AsyncEngineArgs"), ("engine_args", "EngineArgs")),
)
DERIVED_KEY = "derived"


_VERSION = re.compile(r"^v?(\d+(?:\.\d+)*)(?:[-_.]?(a|b|rc)(\d+))?(?:[-_.]?post(\d+))?"
                      r"(?:[-_.]?dev(\d+))?$")


def version_key(version: str) -> tuple[Any, ...]:
    """Release order as ``packaging.version.Version`` has it, for plain public versions
    (``0.4.0``, ``0.4.0.post1``, ``0.5.0rc1``); stdlib only, checked against packaging in tests."""
    match = _VERSION.match(version.strip().lower())
    if match is None:
        raise ValueError(f"not a release version: {version!r}")
    release, pre_kind, pre_n, post, dev = match.groups()
    numbers = [int(part) for part in release.split(".")]
    while len(numbers) > 1 and numbers[-1] == 0:
        numbers.pop()
    pre = (1, "", 0) if pre_kind is None else (0, pre_kind, int(pre_n))
    if pre_kind is None and post is None and dev is not None:
        pre = (-1, "", 0)  # X.devN comes before X's pre-releases
    return (tuple(numbers), pre, -1 if post is None else int(post),
            math.inf if dev is None else int(dev))


def dumps(obj: object) -> str:
    return json.dumps(obj, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def digest(raw: Mapping[str, Any]) -> str:
    """The sha256 of a release's raw data as :func:`dumps` writes it (recorded beside each
    stored release, so that a test can tell its reconstruction is exact)."""
    import hashlib  # only the generator and the tests need it

    return hashlib.sha256(dumps(raw).encode("utf-8")).hexdigest()


def same(a: Any, b: Any) -> bool:
    """JSON equality that tells ``true`` from ``1`` and ``1`` from ``1.0`` (and NaN equals NaN)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return bool(a == b)


def identity(how: str) -> Callable[[Any], str]:
    if how == "strings":
        return lambda record: " ".join(record["strings"])
    if how == "name":
        return lambda record: str(record["name"])
    return lambda item: str(item)


def _size(value: Any) -> int:
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False))


def diff(base: Any, new: Any, path: tuple[str, ...] = ()) -> dict[str, Any] | None:
    """The op that turns ``base`` into ``new`` (None when they are the same)."""
    if same(base, new):
        return None
    op: dict[str, Any] | None = None
    if isinstance(base, dict) and isinstance(new, dict):
        op = _diff_dict(base, new, path)
    elif isinstance(base, list) and isinstance(new, list) and path in KEYED_LISTS:
        op = _diff_keyed(base, new, path, KEYED_LISTS[path])
    whole = {"=": new}
    if op is None or _size(op) >= _size(whole):
        return whole
    return op


def _diff_dict(base: dict[str, Any], new: dict[str, Any], path: tuple[str, ...]) -> dict[str, Any]:
    patch: dict[str, Any] = {}
    for key, value in new.items():
        if key not in base:
            patch[key] = {"=": value}
        else:
            op = diff(base[key], value, (*path, key))
            if op is not None:
                patch[key] = op
    body: dict[str, Any] = {"patch": patch}
    dropped = sorted(key for key in base if key not in new)
    if dropped:
        body["drop"] = dropped
    return {"{}": body}


def _diff_keyed(base: list[Any], new: list[Any], path: tuple[str, ...],
                how: str) -> dict[str, Any] | None:
    ident = identity(how)
    old_keys = [ident(item) for item in base]
    new_keys = [ident(item) for item in new]
    if len(set(old_keys)) != len(old_keys) or len(set(new_keys)) != len(new_keys):
        return None  # no identity: replaced whole
    old = dict(zip(old_keys, base))
    patch: dict[str, Any] = {}
    for key, item in zip(new_keys, new):
        if key not in old:
            patch[key] = {"=": item}
        else:
            op = diff(old[key], item, (*path, "*"))
            if op is not None:
                patch[key] = op
    body: dict[str, Any] = {"key": how, "patch": patch}
    new_set = set(new_keys)
    dropped = [key for key in old_keys if key not in new_set]
    if dropped:
        body["drop"] = sorted(dropped)
    kept = [key for key in old_keys if key in new_set]
    appended = [key for key in new_keys if key not in old]
    if kept + appended == new_keys:
        pass
    elif sorted(new_keys) == new_keys:
        body["order"] = "sorted"
    else:
        body["order"] = new_keys
    return {"[]": body}


def apply(base: Any, op: Mapping[str, Any] | None) -> Any:
    """The value ``op`` makes of ``base`` (``base`` is not modified; unchanged parts are shared)."""
    if op is None:
        return base
    if "=" in op:
        return op["="]
    if "{}" in op:
        body = op["{}"]
        result = dict(base)
        for key in body.get("drop", ()):
            del result[key]
        for key, sub in body["patch"].items():
            result[key] = apply(base.get(key), sub)
        return result
    if "[]" in op:
        body = op["[]"]
        ident = identity(body["key"])
        items = {ident(item): item for item in base}
        order = list(items)
        for key in body.get("drop", ()):
            del items[key]
        patch = body["patch"]
        for key, sub in patch.items():
            if key not in items:
                order.append(key)
            items[key] = apply(items.get(key), sub)
        wanted = body.get("order")
        if wanted == "sorted":
            keys: Iterable[str] = sorted(items)
        elif wanted is not None:
            keys = wanted
        else:
            keys = (key for key in order if key in items)
        return [items[key] for key in keys]
    raise ValueError(f"unknown catalog op: {sorted(op)}")


def _get(data: Mapping[str, Any], path: tuple[str, ...]) -> Any:
    value: Any = data
    for key in path:
        if not isinstance(value, Mapping) or key not in value:
            return None
        value = value[key]
    return value


def _with(data: Mapping[str, Any], path: tuple[str, ...], value: Any, remove: bool = False
          ) -> dict[str, Any]:
    """A copy of ``data`` with ``value`` at ``path`` (or the key removed)."""
    result = dict(data)
    if len(path) > 1:
        result[path[0]] = _with(data[path[0]], path[1:], value, remove)
    elif remove:
        del result[path[0]]
    else:
        result[path[0]] = value
    return result


def stored_form(raw: Mapping[str, Any]) -> dict[str, Any]:
    """``raw`` with each derivable part replaced by an op against its source part."""
    if DERIVED_KEY in raw:
        raise ValueError(f"a release's data may not have a {DERIVED_KEY!r} key")
    stored = dict(raw)
    derived: dict[str, Any] = {}
    for target, source in DERIVED:
        value, origin = _get(raw, target), _get(raw, source)
        if not value or not origin or type(value) is not type(origin):
            continue
        op = diff(origin, value, target) or {"{}": {"patch": {}}}
        if "=" in op:
            continue
        derived[".".join(target)] = {"from": ".".join(source), "op": op}
        stored = _with(stored, target, None, remove=True)
    if derived:
        stored[DERIVED_KEY] = derived
    return stored


def raw_form(stored: Mapping[str, Any]) -> Mapping[str, Any]:
    """The release's data from its stored form (inverse of :func:`stored_form`)."""
    derived = stored.get(DERIVED_KEY)
    if not derived:
        return stored
    raw = {key: value for key, value in stored.items() if key != DERIVED_KEY}
    for target, how in derived.items():
        origin = _get(raw, tuple(how["from"].split(".")))
        raw = _with(raw, tuple(target.split(".")), apply(origin, how["op"]))
    return raw


def keyframes(releases: Sequence[str], every: int = KEYFRAME_EVERY) -> set[str]:
    """The releases stored whole: every ``every``-th from the oldest, and the newest."""
    ordered = sorted(releases, key=version_key)
    chosen = {v for i, v in enumerate(ordered) if i % every == 0}
    if ordered:
        chosen.add(ordered[-1])
    return chosen


def _header(command: str, **extra: Any) -> dict[str, Any]:
    return {"notice": NOTICE, "generator": "rules/generate.py", "command": command,
            "format": FORMAT, **extra}


def pack(raws: Mapping[str, Mapping[str, Any]],
         every: int = KEYFRAME_EVERY) -> dict[str, Any]:
    """Every file of the catalog (path relative to ``data/`` → JSON value) for these releases."""
    ordered = sorted(raws, key=version_key)
    whole = keyframes(ordered, every)
    stored = {version: stored_form(raws[version]) for version in ordered}
    files: dict[str, Any] = {}
    chain: dict[str, str | None] = {}
    previous: str | None = None
    for version in ordered:
        command = f"python rules/generate.py --releases {version}"
        if version in whole:
            files[f"releases/{version}.json"] = {
                "_generated": _header(command), "release": version,
                "raw_sha256": digest(raws[version]), "keyframe": stored[version]}
            chain[version] = None
        else:
            assert previous is not None
            files[f"releases/{version}.json"] = {
                "_generated": _header(command), "release": version,
                "raw_sha256": digest(raws[version]), "base": previous,
                "delta": diff(stored[previous], stored[version]) or {"{}": {"patch": {}}}}
            chain[version] = previous
        previous = version
    files["index.json"] = {
        "_generated": _header("python rules/generate.py"),
        "releases": ordered,
        "newest": ordered[-1] if ordered else None,
        "base": chain,
    }
    files["lifecycle.json"] = {
        "_generated": _header("python rules/generate.py"),
        **lifecycle(ordered, raws),
    }
    return files


def option_strings(raw: Mapping[str, Any], entry: str) -> list[str] | None:
    section = raw.get(entry)
    if not section:
        return None
    return sorted({s for option in section["options"] for s in option["strings"]})


def lifecycle(ordered: Sequence[str], raws: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """Per entry point: the releases that have it, each option string's ``[first, last]``
    ranges of consecutive releases, and where each string was first marked deprecated."""
    result: dict[str, Any] = {}
    for entry in ENTRIES:
        present: list[str] = []
        ranges: dict[str, list[list[str]]] = {}
        deprecated: dict[str, dict[str, Any]] = {}
        last_seen: dict[str, int] = {}
        for position, version in enumerate(ordered):
            section = raws[version].get(entry)
            if not section:
                continue
            present.append(version)
            for option in section["options"]:
                mark = option.get("deprecated")
                for string in option["strings"]:
                    if mark and string not in deprecated:
                        deprecated[string] = {"release": version,
                                              "message": mark.get("message"),
                                              "marked": bool(mark.get("marked"))}
                    if last_seen.get(string) == position:
                        continue
                    if last_seen.get(string) == position - 1:
                        ranges[string][-1][1] = version
                    else:
                        ranges.setdefault(string, []).append([version, version])
                    last_seen[string] = position
            # a release without this entry point breaks every range
        result[entry] = {"releases": present,
                         "options": dict(sorted(ranges.items())),
                         "deprecated": dict(sorted(deprecated.items()))}
    return result


def unpack(version: str, read: Callable[[str], Mapping[str, Any]],
           cache: dict[str, Any] | None = None) -> Mapping[str, Any]:
    """A release's raw data; ``read(version)`` returns its stored file, ``cache`` keeps the
    stored forms rebuilt on the way (keyframe and intermediate releases)."""
    cache = {} if cache is None else cache
    chain: list[Mapping[str, Any]] = []
    current: str | None = version
    while current is not None and current not in cache:
        stored = read(current)
        chain.append(stored)
        current = None if "keyframe" in stored else stored["base"]
    value: Any = cache[current] if current is not None else None
    for stored in reversed(chain):
        if "keyframe" in stored:
            value = stored["keyframe"]
        else:
            value = apply(value, stored["delta"])
        cache[stored["release"]] = value
    return raw_form(value)
