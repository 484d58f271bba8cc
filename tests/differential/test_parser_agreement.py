"""Differential test: vlint's argv normaliser (linter/vlint/normalise/resolution.py) judged by real vLLM.

For every release and entry (``vllm serve``; the api_server module where the catalog has it),
hand-written argvs covering each parser behaviour vlint models plus argvs generated from the
catalog (argv_cases.py) are parsed by the real release's parser and by ``normalise.resolve``:

* the verdicts must agree: real ``ok`` == ``not resolution.parse_errors()``;
* the rules must agree too: real vLLM rejects the argv exactly when vlint reports a parse-time
  error finding (families VL1xx and VL2xx, and VL402, which takes over VL107's report of a
  flag and its value in one word; VL3xx bounds are engine-time, judged in test_bounds.py);
* for accepted argvs, every setting vlint took from a written value and marked ``certain`` must
  equal the real namespace value (JSON-rendered like the probe does; for ``config_json`` flags,
  whose whole config object the real parser builds, vlint's JSON must be a subset of it).

All disagreements of one release/entry are collected and shown as one table.  Cases listed in
``argv_cases.NOT_MODELLED`` are behaviours vlint does not model yet; they must still disagree, so
that the list is updated when support lands.  Agreement counts are printed (``pytest -s``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import pytest

from tests.differential.argv_cases import (
    HAND_CASES,
    NOT_MODELLED,
    VARIES,
    Case,
    argv_for,
    generated_cases,
    jsonish,
    prefix_cases,
)
from tests.differential.releases import RELEASES, catalog_release, record
from vlint.knowledge.catalog import ParserSpec, Release
from vlint.engine.lint import check_invocation
from vlint.engine.merge import merge
from vlint.model import Invocation, Pos, Span, Token, line_locator
from vlint.normalise.resolution import Resolution, resolve

pytestmark = pytest.mark.differential

ENTRIES = ("serve", "api_server")
ANCHOR = Span(Pos(1, 1), Pos(1, 1))


def invocation(argv: list[str], entry: str) -> Invocation:
    tokens = tuple(Token.located(text, 0, line_locator(text)) for text in argv)
    return Invocation(path="x.sh", origin=("shell",), style="cli", anchor=ANCHOR,
                      entry=entry, args=tokens)  # type: ignore[arg-type]


def cases_for(release: Release, parser: ParserSpec, entry: str) -> list[Case]:
    found: dict[str, Case] = {}
    for case in (*HAND_CASES, *prefix_cases(parser), *generated_cases(release, parser)):
        if entry in case.entries:
            found.setdefault(case.name, case)
    return list(found.values())


# ------------------------------------------------------------------------------ comparison


def _same(mine: Any, theirs: Any, subset: bool = False) -> bool:
    """Equal as JSON values (bools are not ints); with ``subset``, dicts of mine may omit keys."""
    if isinstance(mine, bool) or isinstance(theirs, bool):
        return isinstance(mine, bool) and isinstance(theirs, bool) and mine == theirs
    if isinstance(mine, dict) and isinstance(theirs, dict):
        if not subset and mine.keys() != theirs.keys():
            return False
        return all(k in theirs and _same(v, theirs[k], subset) for k, v in mine.items())
    if isinstance(mine, list) and isinstance(theirs, list):
        return len(mine) == len(theirs) and all(
            _same(a, b, subset) for a, b in zip(mine, theirs, strict=True)
        )
    if isinstance(mine, (dict, list)) or isinstance(theirs, (dict, list)):
        return False
    return bool(mine == theirs) and type(mine) in (type(theirs), int, float) and (
        type(theirs) in (type(mine), int, float)
    )


def value_problems(
    resolution: Resolution, namespace: Mapping[str, Any], release: Release, parser: ParserSpec
) -> list[str]:
    problems = []
    for dest, setting in sorted(resolution.settings.items()):
        if setting.span is None or not setting.certain:
            continue
        mine = jsonish(setting.value)
        if dest not in namespace:
            problems.append(f"{dest}: vlint {mine!r}, real namespace has no {dest}")
            continue
        theirs = namespace[dest]
        option = parser.by_dest.get(dest)
        spec = release.type_of(option) if option is not None else None
        subset = bool(spec) and spec.get("kind") == "config_json"  # type: ignore[union-attr]
        if not _same(mine, theirs, subset):
            shown = json.dumps(theirs)
            if len(shown) > 120:
                shown = shown[:117] + "..."
            problems.append(f"{dest}: vlint {json.dumps(mine)} != real {shown}")
    return problems


@dataclass
class Outcome:
    case: Case
    argv: list[str]
    real: dict[str, Any]
    errors: list[str]
    problems: list[str]

    @property
    def agrees(self) -> bool:
        return not self.problems

    def row(self) -> str:
        real = "ok" if self.real.get("ok") else f"REJECT: {self.real.get('error', '')}"
        mine = "ok" if not self.errors else "REJECT: " + "; ".join(self.errors)
        detail = "\n        ".join(self.problems)
        return (f"  [{self.case.name}] {json.dumps(self.argv)}\n"
                f"      real:  {_clip(real)}\n      vlint: {_clip(mine)}\n"
                f"      why:   {detail}")


def _clip(text: str, size: int = 220) -> str:
    return text if len(text) <= size else text[: size - 3] + "..."


def compared_dests(resolution: Resolution) -> list[str]:
    """The destinations whose real values ``value_problems`` compares (and ``model_tag``, from
    which ``vllm serve`` sets the model: see ``served``)."""
    dests = [dest for dest, setting in resolution.settings.items()
             if setting.span is not None and setting.certain]
    return [*dests, "model_tag"] if "model" in dests else dests


def served(namespace: Mapping[str, Any], entry: str) -> Mapping[str, Any]:
    """The namespace as ``vllm serve`` hands it to the engine: its command sets ``args.model``
    from the positional ``model_tag`` right after parsing (``ServeSubcommand.cmd`` in
    vllm/entrypoints/cli/serve.py, in every release these tests run, 0.8.5-0.33.0), which the
    probe's parse does not run."""
    if entry == "serve" and namespace.get("model_tag") is not None:
        return {**namespace, "model": namespace["model_tag"]}
    return namespace


def rule_errors(argv: list[str], entry: str, release: Release) -> list[str]:
    """vlint's parse-time error findings for the argv (the families real vLLM's parse judges)."""
    return [
        f"{f.code} {f.message}"
        for f in merge(check_invocation(invocation(argv, entry), (release.version,)))
        if f.severity == "error" and (f.code[:3] in ("VL1", "VL2") or f.code == "VL402")
    ]


def judge(case: Case, argv: list[str], real: dict[str, Any], release: Release,
          parser: ParserSpec, resolution: Resolution, reported: list[str]) -> Outcome:
    errors = resolution.parse_errors()
    problems: list[str] = []
    real_ok = bool(real.get("ok"))
    if real_ok != (not errors):
        problems.append(f"verdict: real {'accepts' if real_ok else 'rejects'}, "
                        f"vlint {'accepts' if not errors else 'rejects'}")
    elif real_ok:
        namespace = served(real.get("namespace", {}), resolution.invocation.entry)
        problems.extend(value_problems(resolution, namespace, release, parser))
    if real_ok and reported:
        problems.append("rules: real accepts, vlint reports " + "; ".join(reported))
    if not real_ok and not reported:
        problems.append("rules: real rejects, vlint reports no error")
    return Outcome(case, argv, real, errors, problems)


# ------------------------------------------------------------------------------ the test


@pytest.mark.parametrize("entry", ENTRIES)
@pytest.mark.parametrize("version", RELEASES)
def test_parser_agreement(real_chosen: Any, version: str, entry: str) -> None:
    release = catalog_release(version)
    real_chosen.require(version)
    parser = release.parser(entry)
    if parser is None:
        record(version, f"argv {entry}", f"no {entry} parser in the catalog")
        pytest.skip(f"the catalog has no {entry} parser for {version}")
    cases = cases_for(release, parser, entry)
    argvs = [argv_for(case, entry) for case in cases]
    resolutions = [resolve(invocation(argv, entry), release) for argv in argvs]
    # Real vLLM parses in its own process while vlint's rules run here.
    with ThreadPoolExecutor(1) as pool:
        asked = pool.submit(real_chosen.parse_many, version, argvs, entry,
                            [compared_dests(r) for r in resolutions])
        reported = [rule_errors(argv, entry, release) for argv in argvs]
        replies = asked.result()
    broken = [(a, r) for a, r in zip(argvs, replies, strict=True) if r.get("probe_failure")]
    assert not broken, f"the real-vLLM probe failed: {broken[:3]}"

    outcomes = [judge(*got, release, parser, resolution, errors) for got, resolution, errors
                in zip(zip(cases, argvs, replies, strict=True), resolutions, reported,
                       strict=True)]
    varies = [o for o in outcomes if version in VARIES.get(o.case.name, ((), ""))[0]]
    for got in varies:
        print(f"  not compared (depends on the machine): {got.case.name}: "
              f"{VARIES[got.case.name][1]}")
    outcomes = [o for o in outcomes if all(o is not v for v in varies)]
    modelled = [o for o in outcomes if not _not_modelled(o.case, entry, version)]
    excluded = [o for o in outcomes if _not_modelled(o.case, entry, version)]
    disagreements = [o for o in modelled if not o.agrees]
    now_agree = [o for o in excluded if o.agrees]

    hand = {case.name for case in HAND_CASES}
    hand_agreed = sum(o.agrees for o in modelled if o.case.name in hand)
    record(version, f"argv {entry}",
           f"{entry} {len(modelled) - len(disagreements)}/{len(modelled)} argv cases agree "
           f"(hand-written {hand_agreed}/{sum(o.case.name in hand for o in modelled)}; "
           f"{len(excluded)} not modelled)")
    print(f"\n[parser-agreement] vLLM {version} {entry}: {len(outcomes)} cases, "
          f"{len(modelled)} modelled, {len(modelled) - len(disagreements)} agreed, "
          f"{len(disagreements)} disagreed; {len(excluded)} not modelled "
          f"({len(excluded) - len(now_agree)} still disagree)")

    message = []
    if disagreements:
        message.append(f"vlint disagrees with real vLLM {version} ({entry}; "
                       f"{real_chosen.describe(version)}) on "
                       f"{len(disagreements)} of {len(modelled)} modelled cases:")
        message.extend(o.row() for o in disagreements)
    if now_agree:
        message.append("NOT_MODELLED cases that now agree (remove them from argv_cases."
                       "NOT_MODELLED):")
        message.extend(o.row() for o in now_agree)
    assert not message, "\n".join(message)


def _not_modelled(case: Case, entry: str, version: str) -> bool:
    known = NOT_MODELLED.get(case.name)
    return known is not None and known.applies(entry, version)
