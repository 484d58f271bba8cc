"""Property tests for vlint's value parser (``vlint.normalise.values``): it never raises, a written-out
value parses back to itself, and unit suffixes mean what vLLM's ``human_readable_int`` means
(lower case k/m/g/t powers of 1000, upper case K/M/G/T powers of 1024), computed here
independently with exact integer and fraction arithmetic."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import example, given, settings
from hypothesis import strategies as st

from vlint.normalise.values import ParsedValue, parse_human_int, parse_value

from tests.robustness.robust_support import examples

BOUNDED = settings(max_examples=examples(200), deadline=None)
POWERS = {"k": 1000, "m": 1000**2, "g": 1000**3, "t": 1000**4,
          "K": 1024, "M": 1024**2, "G": 1024**3, "T": 1024**4}
KINDS = ("int", "float", "str", "json", "human_int", "json_or_str", "config_json", "opaque",
         "none", "no-such-kind")


def typespecs() -> st.SearchStrategy[dict[str, object]]:
    return st.fixed_dictionaries(
        {"kind": st.sampled_from(KINDS)},
        optional={"optional": st.booleans(), "wrapped": st.booleans(),
                  "accepts": st.sampled_from([(), ("-1", "auto")]), "config": st.just("X")},
    )


def _format(number: int, suffix: str) -> str:
    """The shortest way to write ``number`` with ``suffix`` (``16384``, ``K`` -> ``16K``)."""
    return f"{number // POWERS[suffix]}{suffix}" if suffix else str(number)


@BOUNDED
@given(typespecs(), st.text(max_size=60))
@example({"kind": "human_int"}, "1" * 400 + "k")  # float overflow to infinity
@example({"kind": "human_int"}, "9" * 5000 + "K")  # beyond int()'s digit limit
@example({"kind": "config_json"}, '{"a":' * 5000)  # JSON nested past the recursion limit
@example({"kind": "json"}, "[" * 100_000)
@example({"kind": "int", "wrapped": True}, "9" * 5000)
def test_parse_value_never_raises(typespec: dict[str, object], text: str) -> None:
    result = parse_value(typespec, text)
    assert isinstance(result, ParsedValue)
    assert result.ok or isinstance(result.error, str)


@BOUNDED
@given(st.text(alphabet="0123456789.kKmMgGtT-+ _x\u0661", max_size=30))
def test_human_int_never_raises(text: str) -> None:
    result = parse_human_int(text)
    assert result.ok == (result.error is None)
    if result.ok:
        assert isinstance(result.value, int)


@BOUNDED
@given(st.integers(min_value=-(10**30), max_value=10**30))
def test_plain_integers_round_trip(number: int) -> None:
    assert parse_human_int(str(number)) == ParsedValue(True, number)
    assert parse_value({"kind": "int"}, str(number)).value == number


@BOUNDED
@given(st.integers(min_value=0, max_value=10**6), st.sampled_from(sorted(POWERS)))
def test_suffixes_against_an_independent_computation(number: int, suffix: str) -> None:
    parsed = parse_human_int(f"{number}{suffix}")
    assert parsed.ok and parsed.value == number * POWERS[suffix]
    assert parsed.suffix == suffix and parsed.binary == suffix.isupper()
    # The written-out value (what VL202's fix writes) parses back to the same number, and so
    # does the shortest suffixed form of that number.
    assert parse_human_int(str(parsed.value)).value == parsed.value
    assert parse_human_int(_format(number * POWERS[suffix], suffix)).value == parsed.value


@BOUNDED
@given(st.integers(min_value=0, max_value=10**6), st.integers(min_value=1, max_value=999),
       st.sampled_from("kmgt"))
def test_decimal_fractions_with_lower_case_suffixes(whole: int, part: int, suffix: str) -> None:
    text = f"{whole}.{part}{suffix}"
    parsed = parse_human_int(text)
    exact = Fraction(f"{whole}.{part}") * POWERS[suffix]
    assert parsed.ok and isinstance(parsed.value, int)
    # vLLM multiplies a float, so the result is the exact value truncated, give or take the
    # float's rounding (a relative 2**-52 per operation).
    assert abs(parsed.value - int(exact)) <= 1 + exact * Fraction(1, 2**50)


@BOUNDED
@given(st.integers(min_value=0, max_value=10**6), st.integers(min_value=0, max_value=999),
       st.sampled_from("KMGT"))
def test_decimals_with_binary_suffixes_are_refused(whole: int, part: int, suffix: str) -> None:
    parsed = parse_human_int(f"{whole}.{part}{suffix}")
    assert not parsed.ok
    assert parsed.error is not None and f"{whole}.{part}{suffix.lower()}" in parsed.error


@BOUNDED
@given(st.integers(min_value=1, max_value=10**6), st.sampled_from(sorted(POWERS)))
def test_suffix_case_matters(number: int, suffix: str) -> None:
    lower = parse_human_int(f"{number}{suffix.lower()}").value
    upper = parse_human_int(f"{number}{suffix.upper()}").value
    assert isinstance(lower, int) and isinstance(upper, int) and lower < upper


@BOUNDED
@given(st.text(alphabet="0123456789", min_size=1, max_size=12), st.sampled_from(["kb", "KiB", "x"]))
def test_unknown_suffixes_are_refused(number: str, suffix: str) -> None:
    assert not parse_human_int(number + suffix).ok
