"""Positions: the one line table, tokens as offsets plus a locator, spans made only when asked."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from vlint.model import LineIndex, Pos, Span, Token, line_locator
from vlint.model import positions
from vlint.syntax.lines import Chars
from vlint.syntax.shell import parse_words
from vlint.syntax import yamlpos
from vlint.syntax.yamlpos import SourceIndex


def counting(locate: Callable[[int], Pos]) -> tuple[Callable[[int], Pos], list[int]]:
    calls: list[int] = []

    def counted(offset: int) -> Pos:
        calls.append(offset)
        return locate(offset)

    return counted, calls


# -- the line table ----------------------------------------------------------------------------


def test_line_index_maps_offsets_both_ways() -> None:
    text = "ab\ncd\r\n\nxyz"
    index = LineIndex.of(text)
    assert index.starts == [0, 3, 7, 8]
    assert [index.pos(o) for o in (0, 2, 3, 5, 6, 7, 8, 11)] == [
        Pos(1, 1), Pos(1, 3), Pos(2, 1), Pos(2, 3), Pos(2, 4), Pos(3, 1), Pos(4, 1), Pos(4, 4),
    ]
    for offset in range(len(text) + 1):
        assert index.offset(index.pos(offset)) == offset


def test_line_index_clamps_but_locate_runs_on() -> None:
    index = LineIndex.of("ab\ncd")
    assert index.pos(-3) == Pos(1, 1)
    assert index.pos(99) == Pos(2, 3)
    # ``locate`` is the locator of a text: past its end it runs on along the last line.
    assert index.locate(7) == Pos(2, 5)


def test_one_table_per_text_shared_by_every_reader(monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[str] = []
    real = LineIndex.__init__

    def counted(self: LineIndex, text: str) -> None:
        built.append(text)
        real(self, text)

    monkeypatch.setattr(LineIndex, "__init__", counted)
    positions.clear_line_tables()
    text = "services:\n  vllm:\n    image: x\n"
    assert LineIndex.of(text) is LineIndex.of(text)
    line_locator(text)(5)
    SourceIndex(text).pos(12)
    assert built == [text]


def test_line_locator_with_a_base() -> None:
    locate = line_locator("ab\ncd", Pos(10, 7))
    assert [locate(o) for o in (0, 1, 3, 4)] == [Pos(10, 7), Pos(10, 8), Pos(11, 1), Pos(11, 2)]


def test_source_index_is_the_line_table() -> None:
    text = "a: 1\nb: [2, 3]\n"
    source = SourceIndex(text)
    assert [source.pos(o) for o in range(len(text) + 2)] == [
        LineIndex.of(text).pos(o) for o in range(len(text) + 2)
    ]


# -- tokens ------------------------------------------------------------------------------------


def test_a_contiguous_token_stores_no_position_and_makes_none_until_asked() -> None:
    locate, calls = counting(line_locator("vllm serve m --port 8000"))
    token = Token.located("--port", 13, locate)
    assert token.offsets == range(13, 20)
    assert calls == []
    assert token.span == Span(Pos(1, 14), Pos(1, 20))
    assert len(calls) == 2
    assert token.sub_span(2, 6) == Span(Pos(1, 16), Pos(1, 20))
    calls.clear()
    assert token.positions == tuple(Pos(1, 14 + i) for i in range(7))
    assert len(calls) == 7
    calls.clear()
    token.positions
    assert calls == []  # made once


def test_shell_words_are_ranges_unless_their_characters_are_scattered() -> None:
    (command,) = parse_words("vllm serve --model 'a b' x\\\ny")
    plain, quoted, joined = command.words[2], command.words[3], command.words[4]
    assert isinstance(plain.offsets, range)
    assert plain.span == Span(Pos(1, 12), Pos(1, 19))
    assert quoted.text == "a b" and not isinstance(quoted.offsets, range)
    assert quoted.positions == (Pos(1, 21), Pos(1, 22), Pos(1, 23), Pos(1, 25))
    assert joined.text == "xy" and joined.positions == (Pos(1, 26), Pos(2, 1), Pos(2, 2))


def test_explicit_positions_build_the_same_token() -> None:
    located = Token.located("ab", 3, line_locator("xx\nab"))
    explicit = Token("ab", (Pos(2, 1), Pos(2, 2), Pos(2, 3)))
    assert located == explicit and hash(located) == hash(explicit)
    assert explicit != Token("ab", (Pos(2, 1), Pos(2, 2), Pos(2, 3)), literal=False)
    assert explicit.positions == located.positions
    with pytest.raises(ValueError, match="needs 3 positions"):
        Token("ab", (Pos(1, 1),))
    with pytest.raises(ValueError, match="needs 3 positions"):
        Token.at("ab", (0, 1), line_locator("ab"))


def test_tokens_are_immutable() -> None:
    token = Token("a", (Pos(1, 1), Pos(1, 2)))
    with pytest.raises(AttributeError):
        token.text = "b"


def test_sub_span_trims_one_closing_quote_at_the_end_only() -> None:
    # ``--x="ab"``: the value ``ab`` ends at its closing quote, the token after it.
    text = '--x="ab"'
    (command,) = parse_words(f"vllm {text}")
    token = command.words[1]
    assert token.text == "--x=ab"
    assert token.span == Span(Pos(1, 6), Pos(1, 14))
    assert token.sub_span(4) == Span(Pos(1, 11), Pos(1, 13))  # before the closing quote
    assert token.sub_span(4, 5) == Span(Pos(1, 11), Pos(1, 12))
    assert token.sub_span(0, 3) == Span(Pos(1, 6), Pos(1, 9))
    # A made-up word maps every character to one place: nothing to trim.
    made_up = Token("ab", (Pos(3, 1), Pos(3, 1), Pos(3, 3)))
    assert made_up.sub_span(0) == Span(Pos(3, 1), Pos(3, 3))
    # A one-character value whose end is two columns on is trimmed too.
    single = Token("a", (Pos(1, 2), Pos(1, 4)))
    assert single.sub_span(0) == Span(Pos(1, 2), Pos(1, 3))
    # An empty sub-range is never trimmed.
    assert single.sub_span(1) == Span(Pos(1, 4), Pos(1, 4))


def test_slice_moved_and_with_text_keep_the_offsets() -> None:
    token = Token.located("--port=8000", 5, line_locator("vllm --port=8000"))
    value = token.slice(7)
    assert value.text == "8000" and value.offsets == range(12, 17)
    assert value.span == Span(Pos(1, 13), Pos(1, 17))
    moved = value.moved(lambda p: Pos(p.line + 9, p.column + 2))
    assert moved.span == Span(Pos(10, 15), Pos(10, 19)) and moved.offsets == value.offsets
    masked = value.with_text("****", literal=False)
    assert masked.text == "****" and not masked.literal and masked.span == value.span


def test_chars_slices_and_tokens_share_the_locator() -> None:
    locate, calls = counting(line_locator("CMD vllm serve"))
    chars = Chars.at("vllm serve", range(4, 15), locate)
    word = chars.slice(5).token()
    assert calls == []
    assert word.text == "serve" and word.span == Span(Pos(1, 10), Pos(1, 15))
    assert chars.locate(99) == Pos(1, 15)
    explicit = Chars("ab", (Pos(1, 1), Pos(1, 2), Pos(1, 3)))
    assert explicit.token(1).span == Span(Pos(1, 2), Pos(1, 3))


def test_a_yaml_scalar_token_is_offsets_into_the_file() -> None:
    text = 'a:\n  b: "x\\ty"\n  c: |\n    one\n    two\n'
    source = SourceIndex(text)
    (document,) = yamlpos.parse_documents(text)
    for _, node in yamlpos.mapping_items(yamlpos.mapping_items(document)[0][1]):
        assert yamlpos.is_scalar(node)
        token = yamlpos.scalar_token(source, node)
        assert token.text == yamlpos.scalar_value(node)
        assert token.positions == yamlpos.scalar_positions(source, node)
    inner = yamlpos.mapping_items(yamlpos.mapping_items(document)[0][1])
    node = inner[0][1]
    assert yamlpos.is_scalar(node)
    b = yamlpos.scalar_token(source, node)
    assert b.text == "x\ty" and b.positions == (Pos(2, 7), Pos(2, 8), Pos(2, 10), Pos(2, 11))


def test_tokens_pickle_and_copy_whatever_their_locator() -> None:
    import copy
    import pickle

    # A closure locator (nesting composes them) cannot be pickled: a copy keeps the positions.
    token = Token.located("--port", 5, line_locator("vllm --port")).moved(
        lambda p: Pos(p.line + 2, p.column)
    )
    for copied in (pickle.loads(pickle.dumps(token)), copy.deepcopy(token), copy.copy(token)):
        assert copied == token and copied.span == Span(Pos(3, 6), Pos(3, 12))
    chars = Chars.at("ab", range(3), lambda offset: Pos(1, offset + 1))
    assert pickle.loads(pickle.dumps(chars)).positions == chars.positions
