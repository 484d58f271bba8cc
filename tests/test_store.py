"""The catalog's storage (rules/vlint_rules/store.py): keyframes and deltas rebuild every release
exactly, and the lifecycle facts agree with the releases they summarise."""

from __future__ import annotations

import copy
import json
import os
import random
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from packaging.version import Version

from vlint.knowledge import catalog
from vlint_rules import store

DATA = Path(store.__file__).parent / "data"
RAW_CACHE = Path(os.environ.get("VLINT_VLLM_HOME") or Path.home() / ".cache" / "vlint-vllm") / "generated"
RELEASES = [str(v) for v in catalog.known_releases()]


def _stored(version: str) -> Mapping[str, Any]:
    loaded: Mapping[str, Any] = json.loads((DATA / "releases" / f"{version}.json").read_text())
    return loaded


def _raws() -> dict[str, Mapping[str, Any]]:
    cache: dict[str, Any] = {}
    return {version: store.unpack(version, _stored, cache) for version in RELEASES}


def test_every_file_carries_the_generated_notice() -> None:
    for path in [DATA / "index.json", DATA / "lifecycle.json", *(DATA / "releases").glob("*.json")]:
        assert json.loads(path.read_text())["_generated"]["notice"] == store.NOTICE, path


def test_committed_files_are_what_packing_their_releases_gives() -> None:
    """Repacking the rebuilt releases reproduces every committed file byte for byte: the deltas,
    the index and the lifecycle facts are consistent and canonical."""
    files = store.pack(_raws())
    committed = {f"releases/{p.name}" for p in (DATA / "releases").glob("*.json")}
    assert committed | {"index.json", "lifecycle.json"} == set(files)
    for name, value in files.items():
        assert (DATA / name).read_text() == store.dumps(value), name


def test_chain_is_keyframe_plus_few_deltas() -> None:
    index = json.loads((DATA / "index.json").read_text())
    assert index["releases"] == RELEASES
    assert index["newest"] == RELEASES[-1]
    assert "keyframe" in _stored(RELEASES[-1])
    for version in RELEASES:
        hops, current = 0, version
        while "keyframe" not in (stored := _stored(current)):
            assert stored["base"] == index["base"][current]
            current = stored["base"]
            hops += 1
        assert hops < store.KEYFRAME_EVERY


@pytest.mark.parametrize("version", RELEASES)
def test_release_rebuilds_exactly(version: str) -> None:
    """The rebuilt release is byte for byte the raw data the generator packed (its sha256 is
    recorded beside it), and the raw cache's copy where that cache holds the same data."""
    rebuilt = catalog.load(version).raw
    assert store.digest(rebuilt) == _stored(version)["raw_sha256"]
    raw_path = RAW_CACHE / f"{version}.json"
    if not raw_path.exists():
        pytest.skip(f"no raw data for {version} in {RAW_CACHE}")
    raw = json.loads(raw_path.read_text())
    if store.digest(raw) != _stored(version)["raw_sha256"]:
        pytest.skip(f"the raw cache of {version} differs from the committed data "
                    "(python rules/generate.py --check --reuse --releases VERSION says how)")
    assert store.dumps(rebuilt) == store.dumps(raw)


def _mutate(rng: random.Random, raw: dict[str, Any]) -> dict[str, Any]:
    """A plausible next release: options added, dropped, changed and reordered; types, env vars
    and engine args changed; a section gone; a key added."""
    new = copy.deepcopy(raw)
    for entry in ("serve", "api_server"):
        if not new.get(entry):
            continue
        options = new[entry]["options"]
        for _ in range(rng.randrange(1, 6)):
            options.pop(rng.randrange(len(options)))
        for option in rng.sample(options, 5):
            option["default"] = rng.choice([None, 0, 0.0, False, True, "x", [1], {"a": 1.5}])
        for number in range(rng.randrange(0, 4)):
            options.append({"strings": [f"--new-{rng.randrange(10**6)}-{number}"], "dest": "d",
                            "action": "store", "default": 1})
        if rng.random() < 0.5:
            options.sort(key=lambda o: o["strings"][0])
        else:
            rng.shuffle(options)
        new[entry]["features"]["plain"] = {"ok": rng.random() < 0.5}
    for type_id in rng.sample(sorted(new["types"]), 3):
        del new["types"][type_id]
    new["types"]["int?"] = {"kind": "int", "probes": {"8": {"ok": 8.0}}}
    new["env_vars"] = sorted(set(new["env_vars"][2:]) | {"VLLM_NEW"})
    new["engine_args"]["EngineArgs"].insert(0, {"name": "first", "default": float("nan")})
    new["engine_args"]["AsyncEngineArgs"] = new["engine_args"]["AsyncEngineArgs"][::-1]
    new["llm_params"]["params"].append("zz")
    if rng.random() < 0.5:
        new["image"] = None
    new["stubbed"] = ["x"]
    return new


def test_pack_unpack_round_trip_on_synthetic_releases() -> None:
    rng = random.Random(3)
    raw: dict[str, Any] = copy.deepcopy(dict(catalog.load(RELEASES[-1]).raw))
    raws: dict[str, Mapping[str, Any]] = {}
    for number in range(11):
        raws[f"1.{number}.0"] = raw
        raw = _mutate(rng, raw)
    raws["1.5.0"] = {**raws["1.5.0"], "serve": None}  # a release without vllm serve
    raws["1.6.0"] = {**raws["1.6.0"], "api_server": raws["1.6.0"]["serve"]}  # identical entries
    frozen = store.dumps(raws)
    files = store.pack(raws, every=4)
    assert store.dumps(raws) == frozen, "packing must not modify its input"
    text = {name: json.loads(store.dumps(value)) for name, value in files.items()}
    assert sorted(name for name in text if "keyframe" in text[name]) == [
        "releases/1.0.0.json", "releases/1.10.0.json", "releases/1.4.0.json", "releases/1.8.0.json"]
    cache: dict[str, Any] = {}
    for version, expected in raws.items():
        rebuilt = store.unpack(version, lambda v: text[f"releases/{v}.json"], cache)
        assert store.same(rebuilt, expected), version
    assert store.dumps(raws) == frozen, "unpacking must not modify the packed data"


def test_same_tells_json_types_apart() -> None:
    assert not store.same(1, True)
    assert not store.same(1, 1.0)
    assert store.same(float("nan"), float("nan"))
    assert not store.same({"a": [1]}, {"a": [1], "b": None})
    assert store.diff({"a": 1}, {"a": True}) == {"=": {"a": True}}


def test_version_order_agrees_with_packaging() -> None:
    versions = ["0.4.0", "0.4.0.post1", "0.4.1", "0.5.0", "0.5.0.post1", "0.6.1.post2",
                "0.6.1.post1", "0.9.2", "0.10.0", "0.10.1.1", "1.0.0rc1", "1.0", "0.5.3.post1"]
    assert sorted(versions, key=store.version_key) == sorted(versions, key=Version)


def test_lifecycle_agrees_with_the_releases() -> None:
    raws = _raws()
    for entry in store.ENTRIES:
        lifetimes = catalog.option_lifetimes(entry)
        for version in RELEASES:
            strings = store.option_strings(raws[version], entry)
            assert catalog.has_entry(Version(version), entry) == (strings is not None)
            assert catalog.option_strings(Version(version), entry) == frozenset(strings or ())
            if strings is not None:
                parser = catalog.load(version).parser(entry)
                assert parser is not None and set(parser.by_string) == set(strings)
        for string, life in lifetimes.items():
            assert life.first == life.ranges[0][0] and life.last == life.ranges[-1][1]
            if life.deprecated_in is not None:
                parser = catalog.load(life.deprecated_in).parser(entry)
                assert parser is not None and parser.by_string[string].deprecated is not None


def test_lifecycle_ranges_with_a_gap() -> None:
    def release(*strings: str, deprecated: str | None = None) -> dict[str, Any]:
        options = [{"strings": [s], "deprecated": {"message": "old", "marked": True}
                    if s == deprecated else None} for s in strings]
        return {"serve": {"options": options}, "api_server": None}

    facts = store.lifecycle(["1.0", "1.1", "1.2", "1.3"], {
        "1.0": release("--a", "--b"), "1.1": release("--a"),
        "1.2": release("--a", "--b", deprecated="--a"), "1.3": {"serve": None, "api_server": None},
    })
    assert facts["serve"]["releases"] == ["1.0", "1.1", "1.2"]
    assert facts["serve"]["options"] == {"--a": [["1.0", "1.2"]], "--b": [["1.0", "1.0"], ["1.2", "1.2"]]}
    assert facts["serve"]["deprecated"] == {"--a": {"release": "1.2", "message": "old", "marked": True}}
    assert facts["api_server"] == {"releases": [], "options": {}, "deprecated": {}}
