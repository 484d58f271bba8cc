"""Valid launches built at random (``vllm serve MODEL`` with flags and values drawn from the
catalog) and embedded in every host format: each file kind is recognised, the extractor finds
exactly the argv written, every token's span slices the original text to exactly that word, every
finding points at a written word (or at the whole launch), and the findings are deterministic."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st
from tests.robustness.robust_support import (
    HOSTS,
    Launch,
    Option,
    examples,
    known_options,
    random_argv,
    run_pipeline,
    sliced,
)

from vlint.discover import kind_of, prefilter
from vlint.extract import extractor
from vlint.model import Finding, Invocation

BOUNDED = settings(max_examples=examples(150), deadline=None)
UNKNOWN = st.one_of(st.none(), st.from_regex(r"--zzvlint-[a-z]{1,8}(-[a-z]{1,5})?", fullmatch=True))


@st.composite
def launches(draw: st.DrawFn) -> Launch:
    rng = draw(st.randoms(use_true_random=False))
    host = draw(st.sampled_from(sorted(HOSTS)))
    argv = random_argv(rng, draw(st.integers(0, 6)), draw(UNKNOWN))
    return HOSTS[host](rng, argv)


def _only_invocation(launch: Launch) -> Invocation:
    assert prefilter(launch.text.encode("utf-8"), launch.name)
    assert kind_of(launch.name, launch.text.encode("utf-8")) == launch.kind
    found = extractor(launch.kind).extract(launch.name, launch.text)
    assert len(found) == 1, launch.text
    return found[0]


# What may stand between two words of an argv in any host format: blanks, quotes, list
# punctuation and shell continuations.
_BETWEEN = frozenset(" \t\n\\\"',-[]")


def _first_of_a_pair(text: str, argv: tuple[str, ...] | list[str]) -> str | None:
    """The first word when ``text`` is two consecutive argv words and what lies between them
    (an unknown flag's span runs through the value meant for it)."""
    for first, second in zip(argv, argv[1:]):
        middle = text[len(first) : len(text) - len(second)]
        if (len(text) > len(first) + len(second) and text.startswith(first)
                and text.endswith(second) and set(middle) <= _BETWEEN):
            return first
    return None


def _points_at_a_written_word(finding: Finding, launch: Launch, anchor: Invocation) -> bool:
    if finding.span == anchor.anchor:
        return True  # a finding about the launch as a whole
    text = sliced(launch.text, finding.span.start, finding.span.end)
    if finding.code in ("VL101", "VL102", "VL103") and _first_of_a_pair(text, launch.argv):
        return True
    return text in launch.argv or any(
        word.startswith(f"{text}=") or word.endswith(f"={text}") for word in launch.argv
    )


@BOUNDED
@given(launches())
def test_tokens_and_findings_point_at_exactly_what_is_written(launch: Launch) -> None:
    invocation = _only_invocation(launch)
    # (Helm's extraArgs follow an unresolved MODEL word the chart supplies: not literal.)
    literal = [token for token in invocation.args if token.literal]
    assert [token.text for token in literal] == list(launch.argv), launch.text
    for token in literal:
        # A token starts after an opening quote; sub_span(0) ends before the closing one.
        written = sliced(launch.text, token.positions[0], token.sub_span(0).end)
        assert written == token.text, launch.text
    findings = run_pipeline(launch.kind, launch.text, launch.name)
    for finding in findings:
        assert _points_at_a_written_word(finding, launch, invocation), (finding, launch.text)
    unknown = [word for word in launch.argv if word.startswith("--zzvlint-")]
    flagged = [
        _first_of_a_pair(text, launch.argv) or text
        for text in (sliced(launch.text, f.span.start, f.span.end)
                     for f in findings if f.code == "VL101")
    ]
    assert sorted(flagged) == sorted(unknown), launch.text
    assert run_pipeline(launch.kind, launch.text, launch.name) == findings


SUFFIXED = [option for option in known_options() if "16k" in option.values]


@BOUNDED
@given(st.randoms(use_true_random=False), st.sampled_from(sorted(HOSTS)),
       st.sampled_from(SUFFIXED), st.integers(1, 512), st.sampled_from("kmg"),
       st.booleans())
def test_a_decimal_suffix_is_reported_exactly_at_its_value(
    rng: random.Random, host: str, option: Option, number: int, suffix: str, joined: bool
) -> None:
    value = f"{number}{suffix}"
    string = option.string
    flag = [f"{string}={value}"] if joined else [string, value]
    argv = [*random_argv(rng, rng.randint(0, 3), None, exclude=SUFFIXED), *flag]
    launch = HOSTS[host](rng, argv)
    findings = run_pipeline(launch.kind, launch.text, launch.name)
    at_value = [
        sliced(launch.text, f.span.start, f.span.end) for f in findings if f.code == "VL202"
    ]
    assert at_value == [value], (launch.text, findings)
    fixes = [f.fix for f in findings if f.code == "VL202"]
    assert fixes[0] is not None and fixes[0].edits[0].span == next(
        f.span for f in findings if f.code == "VL202"
    )
