"""What it does
    Reports a key set to ``false`` in a vLLM ``--config`` YAML file that the targeted release
    silently drops, when the option's default is not already off.

Why is this bad?
    vLLM turns a config file's ``false`` into ``--no-KEY`` only when the parser that reads the
    file has that option string; otherwise the key is dropped without a word.  For
    ``vllm serve`` the file is read by the top-level parser, which has none of the serve
    options, so in 0.31-0.33 every ``false`` is dropped: ``enable-chunked-prefill: false``
    leaves chunked prefill on, and the scheduler budget the author sized for it off is wrong.

Example
    ``enable-chunked-prefill: false`` in ``config.yaml``, run with
    ``vllm serve m --config config.yaml``

Use instead
    ``vllm serve m --config config.yaml --no-enable-chunked-prefill`` (the release's own
    negative form, on the command line)

Fix safety
    No automatic fix: the remedy belongs in the command line, which is another file.

vLLM releases
    Whether a release drops a ``false`` is read from the catalog: the generator loads a probe
    config file with ``enable-chunked-prefill: false`` through each release's real parser (serve
    and API server) and records the result; a release whose parser dropped it although the
    ``--no-`` form exists drops every ``false``, otherwise a ``false`` survives exactly when
    ``--no-KEY`` is one of the parser's option strings (``load_config_file``).

References
    https://docs.vllm.ai/en/latest/configuration/serve_args/ (the ``--config`` section);
    ``FlexibleArgumentParser.load_config_file`` in ``vllm/utils/argparse_utils.py``
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from vlint.knowledge.catalog import ParserSpec
from vlint.checks.base import Context, Rule
from vlint.model import Finding

RULE = Rule(code="VL405", name="config-false-dropped", severity="warning", since="0.1.0")


def drops_false(parser: ParserSpec, key: str) -> bool | None:
    """Whether the release drops ``key: false`` from a config file; None when unknown."""
    probe = parser.features.get("config_file")
    if not isinstance(probe, Mapping) or not probe.get("supported"):
        return None
    values: Mapping[str, Any] = probe.get("separate", {}).get("values", {})
    for line in str(probe.get("yaml", "")).splitlines():
        name, _, value = line.partition(":")
        if line[:1].isspace() or value.strip() != "false":
            continue
        applied = values.get(name.strip().replace("-", "_")) is False
        if not applied and f"--no-{name.strip()}" in parser.by_string:
            return True
    return f"--no-{key}" not in parser.by_string


def check(context: Context) -> Iterator[Finding]:
    parser = context.resolution.parser
    if parser is None:
        return
    for key in context.resolution.invocation.config_false:
        option = parser.by_string.get("--" + key.text.replace("_", "-"))
        if option is None or (option.default_known and option.default is False):
            continue
        if not drops_false(parser, key.text):
            continue
        negative = sorted(
            (s in option.hidden, len(s), s) for s in option.strings
            if s.startswith("--") and option.stores(s) is False
        )
        remedy = (
            f"pass '{negative[0][2]}' on the command line instead"
            if negative else "remove the key; the release has no way to turn it off"
        )
        yield context.finding(
            RULE,
            key.span,
            f"'{key.text}' set to false in a --config file is silently dropped by vLLM "
            f"{context.releases}",
            remedy,
        )
