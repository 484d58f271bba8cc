"""vLLM ``--config`` YAML files: their keys as the arguments the release's parser makes of them.

vLLM's ``FlexibleArgumentParser.load_config_file`` (0.31-0.33, ``vllm/utils/argparse_utils.py``)
reads the file with PyYAML's ``safe_load`` (YAML 1.1: ``yes``/``on`` are booleans) and turns
each top-level key into arguments: ``true`` -> ``--key``; a list -> ``--key`` and ``str(item)``
for each item; a mapping -> ``--key`` and its JSON; anything else -> ``--key`` and ``str(value)``.
A ``false`` becomes ``--no-key`` only when the parsing parser has that option string, otherwise
it is silently dropped; whether that happens is the release's and the entry point's business
(the catalog's ``config_file`` probe), so ``false`` keys are kept apart in
``Invocation.config_false`` for VL405 instead of being guessed into ``args``.

A file is a vLLM config when an invocation names it with ``--config FILE`` (resolved relative
to the referencing file) or when its name matches ``*vllm*config*.y*ml`` / ``vllm*.y*ml`` and
some top-level key is a ``vllm serve`` option.  Flag tokens point at the YAML key, value tokens
at the YAML value.  A flag's dashes are unwritten (``Token.unwritten``): a fix renaming the flag
renames the key (``vlint.checks.base.Context.applicable``); a value vLLM converts (a list item,
a mapping's JSON) is unwritten whole, and no fix edits it.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from vlint.errors import Unparsable
from vlint.knowledge import catalog
from vlint.model import Entry, Invocation, Span, Token
from vlint.extract.config_refs import KIND as KIND, referrer
from vlint.syntax import yamlpos
from vlint.discover import vllm_config_claims

# The kind's claim lives with kind detection (``vlint.discover``).
claims = vllm_config_claims

if TYPE_CHECKING:
    from vlint.extract.nested import ExtractContext
    from ruamel.yaml.nodes import Node, ScalarNode

    from vlint.syntax.yamlpos import SourceIndex

# The values a file may hold once its aliases are expanded; nested aliases can make a small file
# expand to billions ("billion laughs"), which is reported as unparsable instead.
MAX_VALUES = 20_000
_BOOLS = {
    **dict.fromkeys("yes Yes YES true True TRUE on On ON".split(), True),
    **dict.fromkeys("no No NO false False FALSE off Off OFF".split(), False),
}
_NULLS = frozenset({"", "~", "null", "Null", "NULL"})
_INT = re.compile(
    r"[-+]?0b[01_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+"
    r"|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+"
)
_FLOAT = re.compile(
    r"[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9_]+(?:[eE][-+][0-9]+)?"
    r"|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)"
)


def extract(path: str, text: str, context: ExtractContext | None = None) -> list[Invocation]:
    """The file as a ``vllm serve`` invocation, when its keys are serve options."""
    naming = referrer()
    if naming is not None:
        config = read(path, text, entry=naming.entry, target=naming.target)
        return [] if config is None else [config]
    found = read(path, text, entry="serve")
    if found is None:
        return []
    parser = catalog.load(catalog.newest()).parser("serve")
    keys = [t.text for t in found.args if t.text.startswith("--")]
    keys += ["--" + t.text for t in found.config_false]
    if parser is None or not any(k.replace("_", "-") in parser.by_string for k in keys):
        return []
    return [found]


def read(path: str, text: str, *, entry: Entry, target: str | None = None) -> Invocation | None:
    """The arguments of a config file as the release's parser expands them; None when the file
    is not a mapping (vLLM itself fails on it).  Raises Unparsable for invalid YAML."""
    documents = yamlpos.parse_documents(text)
    if not documents or yamlpos.mapping_node(documents[0]) is None:
        return None
    source = yamlpos.SourceIndex(text)
    args: list[Token] = []
    false_keys: list[Token] = []
    budget = [MAX_VALUES]
    for key, value in yamlpos.mapping_items(documents[0]):
        name = str(key.value)
        key_positions = yamlpos.scalar_positions(source, key)
        loaded = _load(value, budget)
        if isinstance(loaded, bool) and not loaded:
            false_keys.append(Token(name, key_positions))
            continue
        # vLLM writes the dashes; the rest of the flag is the key (``Token.unwritten``).
        flag = Token("--" + name, (key_positions[0], key_positions[0], *key_positions),
                     unwritten=2)
        if isinstance(loaded, bool):
            args.append(flag)
        elif isinstance(loaded, list):
            if loaded:
                args.append(flag)
                args.extend(_value(source, item, str(v))
                            for item, v in zip(yamlpos.sequence_items(value), loaded))
        elif isinstance(loaded, dict):
            args.extend((flag, _value(source, value, json.dumps(loaded))))
        else:
            args.extend((flag, _value(source, value, str(loaded))))
    start = source.pos(documents[0].start_mark.index)
    anchor = Span(start, source.pos(documents[0].end_mark.index))
    return Invocation(path, (KIND,), "cli", anchor, entry=entry, args=tuple(args), target=target,
                      config_false=tuple(false_keys), args_complete=False)


def _value(source: SourceIndex, node: Node, text: str) -> Token:
    """The argument vLLM makes of a value, at the value; a converted one sits at its start."""
    if yamlpos.is_scalar(node) and yamlpos.scalar_value(node) == text:
        return yamlpos.scalar_token(source, node)
    start = source.pos(node.start_mark.index)
    return Token(text, (*(start for _ in text), source.pos(node.end_mark.index)),
                 unwritten=len(text))


def loaded(node: Node, budget: list[int]) -> Any:
    """The Python value PyYAML's ``safe_load`` gives a node, spending ``budget`` as ``_load``
    does (other YAML kinds whose values reach vLLM as Python values: Ray Serve)."""
    return _load(node, budget)


def _load(node: Node, budget: list[int]) -> Any:
    """The Python value PyYAML's ``safe_load`` gives a node (YAML 1.1 implicit types).

    ``budget`` holds how many more values may be made; raises Unparsable when it runs out.
    """
    budget[0] -= 1
    if budget[0] < 0:
        raise Unparsable(f"YAML aliases expand to more than {MAX_VALUES:,} values")
    if yamlpos.is_scalar(node):
        return _scalar(node)
    if yamlpos.mapping_node(node) is not None:
        return {str(k.value): _load(v, budget) for k, v in yamlpos.mapping_items(node)}
    return [_load(item, budget) for item in yamlpos.sequence_items(node)]


def _scalar(node: ScalarNode) -> Any:
    text = yamlpos.scalar_value(node)
    tag = str(node.tag)
    if node.style is not None and node.style != "":
        return text
    if not tag.endswith(("null", "bool", "int", "float", "str")) and tag.startswith("tag:"):
        return text
    if tag.endswith(":str") and node.style:
        return text
    if text in _NULLS:
        return None
    if text in _BOOLS:
        return _BOOLS[text]
    if _INT.fullmatch(text):
        try:
            return _int(text)
        except ValueError:  # more digits than int() converts
            return text
    if _FLOAT.fullmatch(text):
        return _float(text)
    return text


def _int(text: str) -> int:
    digits = text.replace("_", "")
    sign = -1 if digits.startswith("-") else 1
    digits = digits.lstrip("+-")
    if digits.startswith("0b"):
        return sign * int(digits[2:], 2)
    if digits.startswith("0x"):
        return sign * int(digits[2:], 16)
    if ":" in digits:
        total = 0
        for part in digits.split(":"):
            total = total * 60 + int(part)
        return sign * total
    if digits != "0" and digits.startswith("0"):
        return sign * int(digits, 8)
    return sign * int(digits)


def _float(text: str) -> float:
    digits = text.replace("_", "").lower()
    if digits.lstrip("+-") == ".inf":
        return float("-inf") if digits.startswith("-") else float("inf")
    if digits == ".nan":
        return float("nan")
    if ":" in digits:
        sign = -1.0 if digits.startswith("-") else 1.0
        total = 0.0
        for part in digits.lstrip("+-").split(":"):
            total = total * 60 + float(part)
        return sign * total
    return float(digits)
