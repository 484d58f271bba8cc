"""What every rule module shares: its metadata shape and the context it checks."""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterable
from dataclasses import dataclass, replace
from functools import cached_property, lru_cache
from itertools import accumulate
from typing import Literal, Protocol

from vlint.model import Edit, Finding, Fix, Pos, Severity, Span, Token
from vlint.model.finding import Related
from vlint.normalise.resolution import Resolution
from vlint.settings import LIVENESS_BUDGET

FixSafety = Literal["safe", "unsafe", "none"]
# Who reports a rule: its ``check()`` per invocation and release, or a later stage (the engine
# for a file it cannot read or a run that failed, the filter stage, ``vlint confirm``).
Scope = Literal["invocation", "file", "run", "filter", "confirm"]
# The stage of a real vLLM that runs the check a rule predicts (``vlint confirm`` asks vLLM at
# that level): its argument parser, its engine configuration; None: vLLM cannot judge it.
ConfirmLevel = Literal["parse", "config"]


@dataclass(frozen=True)
class Rule:
    """A rule's metadata: its stable code and name, default severity, the vlint release that
    added it, its fix safety, who reports it (``scope``), and what ``vlint confirm`` can ask a
    real vLLM about its findings (``confirm``, ``model_specific``, ``vllm_words``)."""

    code: str
    name: str
    severity: Severity
    since: str
    fix: FixSafety = "none"
    scope: Scope = "invocation"
    confirm: ConfirmLevel | None = None
    # The check depends on the model (its context length when --max-model-len is not given), so
    # a stand-in model cannot refute it.
    model_specific: bool = False
    # What vLLM's message says for this rule when it names no option.
    vllm_words: tuple[str, ...] = ()


class RuleModule(Protocol):
    """A module under ``vlint.checks``: user docs in ``__doc__`` and ``RULE``."""

    __name__: str
    __doc__: str | None
    RULE: Rule


class CheckModule(RuleModule, Protocol):
    """A rule of scope ``invocation``: its ``check`` runs on each invocation, release by
    release."""

    def check(self, context: Context) -> Iterable[Finding]: ...


# Where a rule's message or help names the release it is checked against (``vLLM
# {context.releases}``): the release merge (``vlint.engine.merge``) writes the releases the
# finding applies to in its place.  The NUL characters keep it out of reach of written text.
RELEASES = "\0releases\0"


@dataclass(frozen=True)
class Context:
    """One invocation as resolved by one release, and the way to report on it;
    ``liveness_budget`` is the configuration's ``liveness-budget`` (VL612)."""

    resolution: Resolution
    liveness_budget: int = LIVENESS_BUDGET

    @property
    def releases(self) -> str:
        """The releases a finding applies to, for its message and help: a placeholder that the
        release merge fills (``0.31.0 and 0.32.0``)."""
        return RELEASES

    @property
    def path(self) -> str:
        return self.resolution.invocation.path

    @cached_property
    def _gathered(self) -> tuple[list[Pos], list[Pos]]:
        """The spans of the words written in several places, by start, and the furthest end
        among the first ``i`` of them."""
        spans = sorted(
            (token.span for token in self.resolution.invocation.args if token.gathered),
            key=lambda span: span.start,
        )
        ends = list(accumulate((span.end for span in spans), max))
        return [span.start for span in spans], ends

    @cached_property
    def _unwritten(self) -> tuple[list[Token], list[Pos], list[Pos]]:
        """The words with characters no file holds (``Token.unwritten``: a flag a chart writes
        for a values key), by start; their starts; and the furthest end among the first ``i``."""
        invocation = self.resolution.invocation
        tokens = sorted(
            (token for token in (*invocation.args, *(k.name for k in invocation.keywords))
             if token.unwritten),
            key=lambda token: token.span.start,
        )
        spans = [token.span for token in tokens]
        return tokens, [span.start for span in spans], list(accumulate((s.end for s in spans), max))

    @cached_property
    def _conditional(self) -> tuple[tuple[Span, str], ...]:
        return tuple(
            (token.span, token.condition)
            for token in self.resolution.invocation.args
            if token.condition is not None
        )

    def applicable(self, fix: Fix | None) -> Fix | None:
        """``fix``, unless it edits a word written in more than one place (a flag joined with
        a shell variable's value: no one stretch of the file holds that word) or a word that
        is not written at all (a flag a chart writes from a values key: the edit would write
        a flag into the key).

        One such edit is kept, rewritten: one that replaces a whole word whose unwritten
        characters are a prefix its producer writes before what the file holds (vLLM's
        ``--config`` loader writes ``--`` before each key, ``vllm/utils/argparse_utils.py``
        ``load_config_file``) by a replacement starting with that same prefix and going on
        with a plain name (``--max-seq-len-to-capture``), or by that plain name alone.  It
        writes the name alone at the word's written part (the key ``max-seq-len-to-capture:``),
        from which the producer makes the replacement.
        """
        if fix is None:
            return None
        starts, ends = self._gathered
        for edit in fix.edits:
            before = bisect_left(starts, edit.span.end)  # the words that start before it ends
            if before and ends[before - 1] > edit.span.start:
                return None
        tokens, token_starts, token_ends = self._unwritten
        if not tokens:
            return fix
        edits: list[Edit] = []
        for edit in fix.edits:
            # The words that start before the edit ends and end after it starts.
            first = bisect_right(token_ends, edit.span.start)
            last = bisect_left(token_starts, edit.span.end)
            touched = [token for token in tokens[first:last] if _overlap(token.span, edit.span)]
            if not touched:
                edits.append(edit)
                continue
            kept = _at_written_part(edit, touched[0]) if len(touched) == 1 else None
            if kept is None:
                return None
            edits.append(kept)
        return fix if edits == list(fix.edits) else replace(fix, edits=tuple(edits))

    def condition_at(self, span: Span) -> str | None:
        """What a written argument at ``span`` depends on: the shell variable of
        ``${VAR:+...}`` with ``VAR`` unknown (passed only when ``VAR`` is set), or the test of
        the branch whose assignment appended it to a command string.  A finding that starts
        in such a word (an option and its value) depends on it."""
        for written, condition in self._conditional:
            if written.start <= span.start < written.end or written.start == span.start:
                return condition
        return None

    def finding(
        self,
        rule: Rule,
        span: Span,
        message: str,
        help: str,
        *,
        severity: Severity | None = None,
        fix: Fix | None = None,
        alternative: Fix | None = None,
        redact: tuple[Span, ...] = (),
        related: tuple[Related, ...] = (),
    ) -> Finding:
        condition = self.condition_at(span)
        if condition is not None:
            # A variable name (``${VAR:+...}``), or the test of a shell branch that appended
            # the word (``'[ -n "$X" ]' succeeds``, ``vlint.syntax.shell``).
            when = f"${condition} is set" if condition.isidentifier() else condition
            message = f"{message} (passed only when {when})"
        fix, alternative = self.applicable(fix), self.applicable(alternative)
        return rule_finding(
            rule,
            self.path,
            span,
            message,
            help,
            severity=severity,
            vllm_versions=(str(self.resolution.release),),
            fix=fix,
            alternative=alternative,
            redact=redact,
            related=related,
        )


def _overlap(word: Span, edit: Span) -> bool:
    """Whether an edit changes characters of a word (an insertion: whether it falls inside)."""
    return edit.start < word.end and word.start < edit.end


# What may stand alone where a producer's prefix goes before it: an option's name.
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")


def _at_written_part(edit: Edit, word: Token) -> Edit | None:
    """``edit`` of the whole ``word``, as the edit of its written part (``Context.applicable``);
    None when it cannot be written there."""
    made = word.text[: word.unwritten]
    if len(made) == len(word.text):
        return None
    # A rule that knows the file's form may have left the prefix out already (VL105 writes a
    # config file's key as the key).
    name = edit.replacement.removeprefix(made)
    span = word.sub_span(0)
    if edit.span != span or word.sub_span(len(made)) != span or not _NAME.fullmatch(name):
        return None
    return Edit(span, name)


def rule_finding(
    rule: Rule,
    path: str,
    span: Span,
    message: str,
    help: str,
    *,
    severity: Severity | None = None,
    vllm_versions: tuple[str, ...] = (),
    fix: Fix | None = None,
    alternative: Fix | None = None,
    redact: tuple[Span, ...] = (),
    related: tuple[Related, ...] = (),
) -> Finding:
    """A finding of ``rule``; the pipeline uses it directly for the rules only it can report.
    ``related``: the other places the problem is about (each with what it is there)."""
    if span.end < span.start:
        # Joined from two tokens written in different places (a flag in the command, its value
        # in a shell variable assigned above it): the range between them, in file order.
        span = Span(span.end, span.start)
    return Finding(
        code=rule.code,
        name=rule.name,
        severity=severity or rule.severity,
        message=_bounded(message),
        help=_bounded(help),
        path=path,
        span=span,
        vllm_versions=vllm_versions,
        fix=fix,
        alternative=alternative,
        redact=redact,
        related=related,
    )


# A message or help line quotes what was written, which can be as long as the file: past this
# many characters it is elided (a rule quoting a value should elide it itself, more tightly).
TEXT_MAX = 1000


def _bounded(text: str) -> str:
    if len(text) <= TEXT_MAX:
        return text
    head = text[: TEXT_MAX - 1]
    if head.count("\0") % 2:  # the cut falls inside a placeholder: cut before it
        head = head[: head.rindex("\0")]
    return head + "…"


def did_you_mean(word: str, choices: Iterable[str]) -> str | None:
    return _closest(word, tuple(choices))


@lru_cache(maxsize=4096)
def _closest(word: str, choices: tuple[str, ...]) -> str | None:
    import difflib  # lazy: only a typo needs it, and a plain run never imports difflib

    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.75)
    return close[0] if close else None
