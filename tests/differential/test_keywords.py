"""Differential test: vlint's Python keyword checks judged by real vLLM releases.

For every release and every callee (``LLM``, ``EngineArgs``, ``AsyncEngineArgs``) a list of
keyword-argument cases is built from the generated catalog and by hand:

* every keyword the catalog accepts for the callee, with a valid sample value (the catalog's
  default, or a type-appropriate value; ``SAMPLE_VALUES`` where neither works);
* bogus and mistyped names (``max_num_seq``, ``max-num-seqs``, ...), names the catalog knows only
  in other releases, and names only another callee accepts;
* strings with unit suffixes for integer settings (``max_model_len="16k"``) and for a string
  setting (``served_model_name="32k"``);
* integer settings given digit-only strings (``max_num_seqs="256"``);
* a few cross-field bound cases (``max_num_seqs=8, max_num_batched_tokens=4``).

Each case is written as a tiny Python source and run through vlint's own extractor
(``vlint.extract.python.extract``) and ``check_invocation``; the same keywords go to the real
release (``RealVLLM.keywords(..., engine_config=True)``: the constructor, then
``create_engine_config()``; for ``LLM`` what ``LLM.__init__`` does before building the engine is
reproduced, see probe.py; ``CONSTRUCT_ONLY`` keywords skip the engine config).  The verdicts must agree: real vLLM rejects the call exactly when vlint
reports an error-severity finding.  All disagreements of one release/callee are collected and
shown as one table; agreement counts are printed (``pytest -s``).  Cases that cannot be compared
here are listed in ``NOT_COMPARABLE`` with the reason.
"""

from __future__ import annotations

import keyword as pykeyword
from dataclasses import dataclass, field
from typing import Any

import pytest
from packaging.version import Version

from tests.differential.releases import RELEASES, catalog_release, record
from vlint.knowledge import catalog
from vlint.knowledge.curated import document
from vlint.extract.python import extract
from vlint.engine.lint import check_invocation
from vlint.engine.merge import merge
from vlint.model import Finding

pytestmark = pytest.mark.differential

CALLEES = ("LLM", "EngineArgs", "AsyncEngineArgs")
CALLEE_IMPORT = {
    "LLM": "from vllm import LLM",
    "EngineArgs": "from vllm.engine.arg_utils import EngineArgs",
    "AsyncEngineArgs": "from vllm.engine.arg_utils import AsyncEngineArgs",
}

# Sample values for keywords whose catalog default is not a value the real release accepts
# back when written explicitly (name -> value); empty while the defaults all work.
SAMPLE_VALUES: dict[str, Any] = {}

# Keywords compared on construction only (no create_engine_config), with the reason: no value
# that JSON can carry builds an engine config on this machine, but the name itself is judged.
CONSTRUCT_ONLY: dict[str, str] = {
    "fault_tolerance_config": (
        "any dict (even the default one) switches fault tolerance on in "
        "EngineArgs.__post_init__, which then needs data-parallel external load balancing; "
        "None fails ParallelConfig validation; the real default is a FaultToleranceConfig "
        "object"),
    "reasoning_config": (
        "0.20.2 and 0.25.1: a ReasoningConfig built from {} names the reasoning parser '', and "
        "create_engine_config raises KeyError for it; the sample carries no parser name"),
}

# Case kinds whose real verdict comes from create_engine_config (cross-field bounds, and string
# values, which the dataclass stores as they are): not compared where the engine config cannot
# be built here.
ENGINE_TIME_KINDS = frozenset({"bound", "curated", "suffix", "numeric-string"})

# (release or "*", callee or "*", case name) -> why the case cannot be compared here.
NOT_COMPARABLE: dict[tuple[str, str, str], str] = {}

# Cases where vlint is known to be silent while real vLLM rejects, because the curated facts
# behind VL207 do not cover that era yet: (PEP 440 releases, case name) -> what is missing.
# The test asserts they still DISAGREE, so this list must shrink when the facts land.
_OLD_ERA = ("0.8.x-0.11.x compute with max_model_len, max_num_seqs, max_num_batched_tokens and "
            "gpu_memory_utilization before pydantic converts them (EngineArgs._set_default_args "
            "and friends), whatever else is written; keywords.toml curates 0.12.0 onward only")
NOT_CURATED: dict[tuple[str, str], str] = {
    **{(">=0.8.5,<0.12", name): _OLD_ERA for name in (
        "max_model_len='16384'", "max_num_seqs='256'", "max_num_batched_tokens='8192'",
        "curated max_num_seqs='8192' alone", "curated max_num_batched_tokens='8192' alone")},
    # Up to 0.10.x writing the other setting does not avoid the comparison.
    **{(">=0.8.5,<0.11", name): _OLD_ERA for name in (
        "max_num_seqs='256', max_num_batched_tokens='8192'",
        "curated max_num_seqs='8192' with max_num_batched_tokens",
        "curated max_num_batched_tokens='8192' with max_num_seqs")},
    (">=0.8.5,<0.9", "gpu_memory_utilization='0.9'"): _OLD_ERA,
}
NOT_CURATED[(">=0.8.5,<0.9", "seed='1k'")] = (
    "0.8.5 stores a string seed as it is and never compares it; VL203 reports any suffix")
NOT_CURATED[(">=0.8.5,<0.9", "VL302 at the boundary")] = NOT_CURATED[
    (">=0.8.5,<0.9", "VL301 violated")] = (
    "on this CPU machine 0.8.5 selects the V0 engine, whose scheduler keeps chunked prefill off "
    "and so applies VL301 where the curated V1 era (0.8.0-0.11.0) does not")


def _not_curated(release: str, case: Case) -> str | None:
    from packaging.specifiers import SpecifierSet

    return next((why for (spec, name), why in NOT_CURATED.items()
                 if name == case.name and Version(release) in SpecifierSet(spec)), None)


@dataclass(frozen=True)
class Case:
    name: str
    kwargs: dict[str, Any] = field(hash=False)
    kind: str  # name, bogus, other-release, other-callee, suffix, numeric-string, bound


@dataclass
class Outcome:
    case: Case
    real_ok: bool
    real_detail: str
    vlint_errors: list[Finding]
    extractor_problem: str = ""

    @property
    def vlint_ok(self) -> bool:
        return not self.vlint_errors

    @property
    def agrees(self) -> bool:
        return not self.extractor_problem and self.real_ok == self.vlint_ok


# ------------------------------------------------------------------------------ cases


def _fields(release: str, callee: str) -> dict[str, Any]:
    return dict(catalog.load(Version(release)).engine_fields(callee))


def _type_sample(annotation: str) -> Any:
    text = annotation.replace(" ", "")
    if "None" in text or text.startswith("Optional["):
        return None
    head = text.split("[", 1)[0].split("|", 1)[0]
    samples: dict[str, Any] = {"int": 1, "float": 1.0, "bool": False, "str": "",
                               "list": [], "set": [], "dict": {}, "tuple": []}
    if head in samples:
        return samples[head]
    if text.startswith("Literal["):
        return eval(text[len("Literal["):].split(",", 1)[0].rstrip("]"))  # first literal
    if head.endswith("Config"):
        return {}  # config objects are built from dicts by EngineArgs.__post_init__
    return None


def sample_value(release: str, callee: str, name: str, model: str) -> Any:
    if name in SAMPLE_VALUES:
        return SAMPLE_VALUES[name]
    if name in ("model", "tokenizer"):
        return model
    spec = _fields(release, "EngineArgs").get(name) or _fields(release, callee).get(name) or {}
    if spec.get("default_known"):
        return spec.get("default")
    if "annotation" in spec:
        return _type_sample(str(spec["annotation"]))
    return None  # LLM-only parameters (chat_template ...) all default to None


BOGUS_NAMES = (
    "max_num_seq", "max-num-seqs", "max_num_batched_token", "maxnumseqs", "MAX_NUM_SEQS",
    "max_model_length", "tensor_parallel", "gpu_memory_utilisation", "--max-model-len",
)
SUFFIX_CASES: tuple[tuple[str, dict[str, Any]], ...] = (
    ("max_model_len='16k'", {"max_model_len": "16k"}),
    ("max_num_batched_tokens='16K'", {"max_num_batched_tokens": "16K"}),
    ("max_num_seqs='1k'", {"max_num_seqs": "1k"}),
    ("served_model_name='32k'", {"served_model_name": "32k"}),
    ("kv_cache_memory_bytes='8G'", {"kv_cache_memory_bytes": "8G"}),
    ("seed='1k'", {"seed": "1k"}),
    ("max_model_len=16384", {"max_model_len": 16384}),
)
# Integer settings given digit-only strings (no suffix).  pydantic's lax mode turns "16384"
# into 16384 when the config is validated, but EngineArgs does arithmetic on max_num_seqs /
# max_num_batched_tokens first when the OTHER one is left unset
# (_set_default_max_num_seqs_and_batched_tokens_args: min("256" * max_model_len, default) or
# min(default, "8192") -> TypeError).
NUMERIC_STRING_CASES: tuple[tuple[str, dict[str, Any]], ...] = (
    ("max_model_len='16384'", {"max_model_len": "16384"}),
    ("max_num_seqs='256'", {"max_num_seqs": "256"}),
    ("max_num_batched_tokens='8192'", {"max_num_batched_tokens": "8192"}),
    ("max_num_seqs='256', max_num_batched_tokens='8192'",
     {"max_num_seqs": "256", "max_num_batched_tokens": "8192"}),
    ("gpu_memory_utilization='0.9'", {"gpu_memory_utilization": "0.9"}),
)
BOUND_CASES: tuple[tuple[str, dict[str, Any]], ...] = (
    ("VL302 violated", {"max_num_seqs": 8, "max_num_batched_tokens": 4}),
    ("VL302 at the boundary", {"max_num_seqs": 8, "max_num_batched_tokens": 8}),
    ("VL301 violated", {"max_model_len": 4096, "max_num_batched_tokens": 2048,
                        "enable_chunked_prefill": False}),
    ("VL301 exempt (chunked prefill on)", {"max_model_len": 4096,
                                           "max_num_batched_tokens": 2048,
                                           "enable_chunked_prefill": True}),
    ("VL303 violated", {"max_num_seqs": 16, "max_num_active_seqs": 32}),
    ("VL304 violated", {"max_model_len": 1024, "max_num_seqs": 1,
                        "max_num_batched_tokens": 2048}),
)


def curated_cases() -> tuple[tuple[str, dict[str, Any]], ...]:
    """Every entry of curated/keywords.toml, with and without the setting that avoids it."""
    found: list[tuple[str, dict[str, Any]]] = []
    for fact in document("keywords")["string_breaks_defaults"]:
        setting, other = fact["setting"], fact["unless_written"]
        found.append((f"curated {setting}='8192' alone", {setting: "8192"}))
        found.append((f"curated {setting}='8192' with {other}", {setting: "8192", other: 8192}))
    return tuple(found)


def _neighbours(release: str) -> list[str]:
    """The releases before and after ``release`` in RELEASES that the catalog has: their names
    that ``release`` lacks are the removed and the too-new keywords."""
    known = {str(v) for v in catalog.known_releases()}
    index = RELEASES.index(release)
    return [r for r in RELEASES[max(index - 1, 0):index + 2] if r != release and r in known]


def cases_for(release: str, callee: str, model: str) -> list[Case]:
    accepted = _fields(release, callee)
    cases: list[Case] = []
    for name in sorted(accepted):
        kwargs = {"model": model}
        kwargs[name] = sample_value(release, callee, name, model)
        cases.append(Case(f"{name}={kwargs[name]!r}", kwargs, "name"))
    for name in BOGUS_NAMES:
        cases.append(Case(f"{name}=8", {"model": model, name: 8}, "bogus"))
    neighbours = _neighbours(release)
    others = sorted({n for r in neighbours for n in _fields(r, callee)} - set(accepted))
    for name in others:
        value = next(sample_value(r, callee, name, model) for r in neighbours
                     if name in _fields(r, callee))
        cases.append(Case(f"{name}={value!r}", {"model": model, name: value}, "other-release"))
    for other in CALLEES:
        for name in sorted(set(_fields(release, other)) - set(accepted) - set(others)):
            value = sample_value(release, other, name, model)
            cases.append(Case(f"{name}={value!r}", {"model": model, name: value},
                              "other-callee"))
    for kind, group in (("suffix", SUFFIX_CASES), ("numeric-string", NUMERIC_STRING_CASES),
                        ("bound", BOUND_CASES), ("curated", curated_cases())):
        for label, values in group:
            if all(name in accepted for name in values):
                cases.append(Case(label, {"model": model, **values}, kind))
    seen: set[str] = set()
    unique = []
    for case in cases:
        if case.name not in seen:
            seen.add(case.name)
            unique.append(case)
    return unique


def source_for(callee: str, kwargs: dict[str, Any]) -> str:
    """A Python source with one call; names that are not identifiers go through ``**{...}``."""
    plain = [f"{k}={v!r}" for k, v in kwargs.items()
             if k.isidentifier() and not pykeyword.iskeyword(k)]
    odd = {k: v for k, v in kwargs.items() if not (k.isidentifier() and not
                                                  pykeyword.iskeyword(k))}
    args = plain + ([f"**{odd!r}"] if odd else [])
    return f"{CALLEE_IMPORT[callee]}\n\n{callee}({', '.join(args)})\n"


# ------------------------------------------------------------------------------ comparison


def vlint_verdict(release: str, callee: str, case: Case) -> tuple[list[Finding], str]:
    found = extract("case.py", source_for(callee, case.kwargs))
    calls = [inv for inv in found if inv.style == "python"]
    if len(calls) != 1 or calls[0].callee != callee:
        return [], f"extracted {[(i.style, i.callee) for i in found]}"
    invocation = calls[0]
    names = [kw.name.text for kw in invocation.keywords]
    if names != list(case.kwargs) or invocation.has_unpacked_kwargs:
        return [], f"extracted keywords {names} (unpacked={invocation.has_unpacked_kwargs})"
    wrong = [kw.name.text for kw in invocation.keywords
             if not kw.literal or kw.value != case.kwargs[kw.name.text]]
    if wrong:
        return [], f"values not extracted for {wrong}"
    findings = merge(check_invocation(invocation, (Version(release),)))
    return [f for f in findings if f.severity == "error"], ""


def _first_line(text: str, width: int = 110) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    # pydantic puts the useful part on the second and third lines
    line = " | ".join(lines[:3]) if lines and "validation error" in lines[0] else (
        lines[0] if lines else "")
    return line if len(line) <= width else line[: width - 3] + "..."


def _not_comparable(release: str, callee: str, case: Case) -> str | None:
    for key in ((release, callee, case.name), ("*", callee, case.name),
                (release, "*", case.name), ("*", "*", case.name)):
        if key in NOT_COMPARABLE:
            return NOT_COMPARABLE[key]
    return None


def table(outcomes: list[Outcome]) -> str:
    rows = [("case", "kind", "real vLLM", "vlint")]
    for got in outcomes:
        real = "accepts" if got.real_ok else f"rejects: {got.real_detail}"
        mine = got.extractor_problem or (
            "no error" if got.vlint_ok else
            "; ".join(f"{f.code} {_first_line(f.message, 80)}" for f in got.vlint_errors))
        rows.append((got.case.name, got.case.kind, real, mine))
    widths = [min(max(len(r[i]) for r in rows), 60) for i in range(3)]
    return "\n".join(
        "  ".join(cell.ljust(widths[i]) if i < 3 else cell for i, cell in enumerate(row))
        for row in rows
    )


@pytest.mark.parametrize("callee", CALLEES)
@pytest.mark.parametrize("release", RELEASES)
def test_keywords_agree(real_chosen: Any, release: str, callee: str) -> None:
    catalog_release(release)
    real_chosen.require(release)
    real_vllm = real_chosen
    model = real_vllm.standin_model()
    baseline = real_vllm.keywords(release, callee, {}, engine_config=True)
    if baseline.get("probe_failure"):
        # LLM: what LLM.__init__ does is reproduced only for reviewed sources (probe.py).
        record(release, f"keywords {callee}", f"{callee} not compared")
        pytest.skip(f"{callee} of vLLM {release} cannot be reproduced: {baseline['error']}")
    # Where even the default engine config cannot be built here (the stand-in model's
    # architecture is not inspectable with this release's stubbed modules), the keywords are
    # judged on construction alone and vlint's engine-time findings (VL3xx) are not compared.
    construct_only = not baseline["ok"]
    cases = [case for case in cases_for(release, callee, model)
             if not (construct_only and case.kind in ENGINE_TIME_KINDS)]
    outcomes: list[Outcome] = []
    skipped: list[tuple[Case, str]] = []
    for case in cases:
        reason = _not_comparable(release, callee, case)
        if reason is not None:
            skipped.append((case, reason))
            continue
        full = not construct_only and not (
            case.kind == "name" and set(case.kwargs) & set(CONSTRUCT_ONLY))
        real = real_vllm.keywords(release, callee, case.kwargs, engine_config=full)
        assert not real.get("probe_failure"), (release, callee, case.name, real)
        errors, problem = vlint_verdict(release, callee, case)
        if construct_only:
            errors = [f for f in errors if not f.code.startswith("VL3")]
        detail = "" if real["ok"] else f"[{real.get('stage')}] {_first_line(real['error'])}"
        outcomes.append(Outcome(case, bool(real["ok"]), detail, errors, problem))

    pending = [o for o in outcomes if _not_curated(release, o.case) is not None]
    outcomes = [o for o in outcomes if _not_curated(release, o.case) is None]
    agreed = [o for o in outcomes if o.agrees]
    disagreed = [o for o in outcomes if not o.agrees]
    now_agree = [o for o in pending if o.agrees]
    for got in pending:
        print(f"  not curated yet: {got.case.name}: {_not_curated(release, got.case)}")
    assert not now_agree, ("NOT_CURATED cases that now agree (remove them): "
                           + ", ".join(o.case.name for o in now_agree))
    by_kind: dict[str, list[int]] = {}
    for got in outcomes:
        counts = by_kind.setdefault(got.case.kind, [0, 0])
        counts[0] += got.agrees
        counts[1] += 1
    summary = ", ".join(f"{kind} {a}/{n}" for kind, (a, n) in sorted(by_kind.items()))
    record(release, f"keywords {callee}",
           f"{callee}(**kw) {len(agreed)}/{len(outcomes)} agree"
           + (" (construction only)" if construct_only else ""))
    print(f"\n[{release} {callee}] agree {len(agreed)}/{len(outcomes)} ({summary}); "
          f"real rejects {sum(not o.real_ok for o in outcomes)}; "
          f"not comparable {len(skipped)}")
    for case, reason in skipped:
        print(f"  not compared: {case.name}: {reason}")
    for name, reason in CONSTRUCT_ONLY.items():
        print(f"  construction only: {name}: {reason}")
    if disagreed:
        print(table(disagreed))
    assert not disagreed, (
        f"{len(disagreed)} disagreement(s) for {callee} in vLLM {release}:\n" + table(disagreed)
    )


def test_cases_are_well_formed() -> None:
    """Every case is a valid Python call the extractor sees whole (no real vLLM needed)."""
    for release in RELEASES:
        catalog_release(release)
        for callee in CALLEES:
            cases = cases_for(release, callee, "/standin/model")
            kinds = {case.kind for case in cases}
            assert {"name", "bogus", "suffix", "bound"} <= kinds, (release, callee, kinds)
            for case in cases:
                _, problem = vlint_verdict(release, callee, case)
                assert not problem, (release, callee, case.name, problem)
