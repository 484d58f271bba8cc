"""Property test for ``vlint.extract.nested``: a block cut out of a file (a Markdown fence inside
a list or a blockquote, a YAML block scalar) maps every offset of its text back to the very
character of the file it came from."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from tests.robustness.robust_support import examples, offset

from vlint.extract.nested import embedded
from vlint.model import Pos

LINE = st.text(st.characters(codec="utf-8", exclude_characters="\n\r"),
               max_size=20)


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.tuples(LINE, st.integers(0, 25), st.booleans()), min_size=1, max_size=12))
def test_every_offset_maps_to_its_file_character(rows: list[tuple[str, int, bool]]) -> None:
    file_lines = [line for line, _, _ in rows]
    file_text = "\n".join(file_lines)
    kept = [(number, min(shift, len(line)), line[min(shift, len(line)):])
            for number, (line, shift, keep) in enumerate(rows, start=1) if keep]
    if not kept:
        return
    block = embedded(kept)
    lines = block.text.split("\n")
    start = 0
    for index, ((number, shift, text), line) in enumerate(zip(kept, lines)):
        assert line == text
        for column in range(len(text)):
            pos = block.locate(start + column)
            assert pos == Pos(number, shift + column + 1)
            assert block.move(Pos(index + 1, column + 1)) == pos
            assert file_text[offset(file_text, pos)] == text[column]
        start += len(text) + 1
