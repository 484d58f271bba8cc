"""What it does
    Reports a ``VLLM_*`` environment variable set for a launch (a shell ``VAR=x`` prefix,
    ``env VAR=x``, compose ``environment:``, Kubernetes ``env:``, Dockerfile ``ENV``, systemd
    ``Environment=``) that the targeted release does not read, and any variable named like a
    server option (``VLLM_MAX_NUM_SEQS``, ``MAX_NUM_SEQS``), which sets nothing.

Why is this bad?
    vLLM reads only the variables of its own table (``vllm/envs.py``); a misspelt or removed name
    is silently ignored, and no variable sets a command-line option: ``MAX_NUM_SEQS=8`` leaves
    ``--max-num-seqs`` at its default.

Example
    ``VLLM_MAX_NUM_SEQS=8 vllm serve m``

Use instead
    ``vllm serve m --max-num-seqs 8``

Fix safety
    No automatic fix.

vLLM releases
    All; the variables each release reads come from its ``vllm/envs.py`` (generated catalog),
    and "did you mean" suggestions from the same table.  A name without the ``VLLM_`` prefix is
    reported only when it reads like an option of three words or more (``MAX_NUM_SEQS``):
    shorter ones (``PORT``, ``HF_TOKEN``) are read by other programs.  A variable the command
    itself expands (``$MAX_NUM_SEQS`` in ``sh -c``) is in use and not reported.  The catalog
    does not record which variable replaced a removed one: the curated ``env_renames.toml``
    does, for the 57 names 0.10.2 reads and 0.33.0 does not (each with the last release that
    reads it and the vLLM source that names its replacement), and the message and help say
    it (``VLLM_ATTENTION_BACKEND``: ``--attention-backend``, from 0.13.0).  No fix moves the
    value onto the command line yet.
    Variables of vLLM's platform plugins are theirs and not reported: ``VLLM_ASCEND_*``
    (vllm-project/vllm-ascend, ``vllm_ascend/envs.py``).

References
    https://docs.vllm.ai/en/latest/configuration/env_vars/
"""

from __future__ import annotations

from collections.abc import Iterator

from packaging.version import Version

from vlint.checks.base import Context, Rule, did_you_mean
from vlint.knowledge.curated import env_renames
from vlint.model import Finding

RULE = Rule(code="VL404", name="env-var-not-read", severity="warning", since="0.1.0")

# The prefixes of variables a vLLM platform plugin reads itself (see the docs above).
_PLUGIN_PREFIXES = ("VLLM_ASCEND_",)


def _expanded(context: Context, name: str) -> bool:
    marks = (f"${name}", f"${{{name}")
    return any(mark in token.text for token in context.resolution.invocation.args
               for mark in marks)


def check(context: Context) -> Iterator[Finding]:
    invocation = context.resolution.invocation
    parser = context.resolution.parser
    read = context.resolution.release.env_vars
    if not read:
        return
    for name, span in invocation.env_names.items():
        if name in read or name.startswith(_PLUGIN_PREFIXES) or _expanded(context, name):
            continue
        bare = name[len("VLLM_"):] if name.startswith("VLLM_") else name
        option = parser.by_dest.get(bare.lower()) if parser is not None else None
        flag = (
            option.name
            if option is not None and (bare.count("_") >= 2 or bare != name)
            else None
        )
        if flag is None and not name.startswith("VLLM_"):
            continue
        message = f"'{name}' is not read by vLLM {context.releases}"
        renamed = env_renames().get(name)
        if renamed is not None and context.resolution.release.version > Version(renamed.last):
            message += f": vLLM read it up to {renamed.last}"
            if renamed.replacement:
                message += f"; {renamed.replacement} replaces it"
            yield context.finding(RULE, span, message, renamed.help)
            continue
        if flag is not None:
            message += f"; an environment variable does not set '{flag}'"
            help_text = f"pass '{flag}' on the command line instead"
        else:
            close = did_you_mean(name, read)
            help_text = f"did you mean '{close}'?" if close else "remove it, or check its name"
        yield context.finding(RULE, span, message, help_text)
