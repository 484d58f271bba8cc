"""Lookups several rules share: an option string's history across releases, suffix forms."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from packaging.version import Version

from vlint.checks import container_option_after_image
from vlint.checks.base import Context, Rule
from vlint.checks.unseen_options import may_set_unseen_options
from vlint.knowledge.catalog import Lifetime, option_lifetimes
from vlint.model import Finding, Span
from vlint.model.finding import Related
from vlint.normalise.bounds import violations
from vlint.normalise.resolution import OptionUse, ValueUse
from vlint.normalise.values import parse_value

SUFFIXED_NUMBER = re.compile(r"^(?P<number>-?\d+(?:\.\d+)?)(?P<suffix>[kKmMgGtT])$")


def unknown_uses(context: Context) -> Iterator[OptionUse]:
    """Options the release does not know at all (ambiguous prefixes are not unknown)."""
    for use in context.resolution.uses:
        if use.match == "unknown" and not _expanded(use.written):
            yield use


def _expanded(text: str) -> bool:
    """An option name built from a variable or template cannot be judged."""
    return any(mark in text for mark in ("$", "`", "{{"))


def canonical(written: str) -> str:
    return written.replace("_", "-") if written.startswith("--") else written


def lifetime(context: Context, use: OptionUse) -> tuple[str, Lifetime] | None:
    """The option string as known in some release, and the releases that had it."""
    lifetimes = option_lifetimes(context.resolution.invocation.entry)
    for string in (use.written, canonical(use.written)):
        if string in lifetimes:
            return string, lifetimes[string]
    return None


def release_version(context: Context) -> Version:
    return context.resolution.release.version


def accepts_suffixes(typespec: Mapping[str, Any] | None, suffix: str = "K") -> bool:
    """Whether the type takes unit suffixes (this one: t/T only from 0.10)."""
    return typespec is not None and parse_value(typespec, f"1{suffix}").ok


def typed_values(context: Context) -> Iterator[tuple[OptionUse, ValueUse, Mapping[str, Any] | None]]:
    """Every literal value given to a known option, with the option's type."""
    release = context.resolution.release
    for use in context.resolution.uses:
        if use.option is None or container_option_after_image.explains(context, use):
            continue  # (a container option after the image: VL407 reports it, not its value)
        typespec = release.type_of(use.option)
        for value in use.values:
            if value.literal and value.parsed is not None:
                yield use, value, typespec


def integer_setting(context: Context, dest: str) -> bool:
    """Whether the release's CLI reads this setting as an integer (so a Python keyword must be
    an int, not a string such as ``"16k"``)."""
    parser = context.resolution.parser
    option = parser.by_dest.get(dest) if parser is not None else None
    if option is None:
        return False
    typespec = context.resolution.release.type_of(option)
    return typespec is not None and typespec.get("kind") in ("int", "human_int")


def bound_check(rule: Rule, message: str, help_text: str) -> Callable[[Context], Iterator[Finding]]:
    """The ``check`` of a curated cross-field bound (VL3xx): one finding per violation of the
    rule's bounds in ``vlint_rules/curated/bounds.toml``.  ``message`` and ``help_text`` are
    templates: ``{left}`` and ``{right}`` are the two sides' values, ``{releases}`` the
    releases (see ``Context.releases``).  The finding is at the first written setting of the
    bound; the others it names are its related locations.  Where the arguments may set options
    unseen (``$VLLM_ARGS``), a bound is judged only when every setting it names (its sides and
    its conditions) is written: any other may differ from the release's default."""

    def check(context: Context) -> Iterator[Finding]:
        resolution = context.resolution
        unseen = may_set_unseen_options(resolution)
        for found in violations(resolution, rule.code):
            named = (found.bound.left, *found.bound.right, *found.bound.when)
            if unseen and any(resolution.written(name) is None for name in named):
                continue
            if not _certain_as_anchored(context, found.span, named):
                continue
            values = {"left": found.left, "right": found.right, "releases": context.releases}
            related = tuple(Related(span, f"{name} is set here") for name, span in found.related)
            yield context.finding(rule, found.span, message.format_map(values),
                                  help_text.format_map(values), related=related)

    return check


def _certain_as_anchored(context: Context, anchor: Span, named: Sequence[str]) -> bool:
    """Whether the finding at ``anchor`` says truly when the bound fails: a setting written
    conditionally (``${VAR:+...}``, a word a shell branch appended) may be absent, so a
    violation that needs it is reported only when it holds under the anchor's own condition
    (the finding's message names it); one under another condition is not certain."""
    condition = context.condition_at(anchor)
    for name in named:
        setting = context.resolution.written(name)
        if setting is None or setting.span is None:
            continue
        other = context.condition_at(setting.span)
        if other is not None and other != condition:
            return False
    return True
