"""Structure-aware atheris fuzzer for vlint's extractors and pipeline.

The first byte of an input picks what it exercises: one of the file kinds (the rest of the input,
as UTF-8 text, goes through the whole pipeline for that kind: extract, normalise, check, merge),
the file-kind choice (``discover``), or the value parser.  Anything raised other than what the
pipeline turns into findings is a crash.

    python tests/robustness/fuzz/fuzz_extractors.py CORPUS_DIR -atheris_runs=20000

``make_corpus(folder)`` writes a seed corpus from tests/golden and examples/ (each file once per
kind that reads it: its kind byte, then its bytes).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
for source_root in ("linter", "rules"):
    if str(ROOT / source_root) not in sys.path:
        sys.path.insert(0, str(ROOT / source_root))

import atheris  # noqa: E402

with atheris.instrument_imports(include=["vlint"]):
    import importlib
    import importlib.util

    from vlint import discover  # noqa: F401
    from vlint.normalise import rewrites  # noqa: F401

    from vlint.knowledge import catalog

    from vlint.fix import apply as fix

    from vlint.normalise import resolution as normalise
    from vlint.checks import all_rules
    from vlint.extract import EXTRACTORS
    from vlint.engine.lint import Report, lint_text
    from vlint.normalise.values import parse_value

    # vlint imports its stages lazily: import them here so that they are instrumented too.
    _extractors = (f"vlint.extract.{kind.replace('-', '_')}" for kind in EXTRACTORS)
    for _module in (*_extractors, "vlint.extract.argv", "vlint.syntax.yamlpos",
                    "vlint.extract.nested", "vlint.syntax.fastyaml"):
        if importlib.util.find_spec(_module) is not None:
            importlib.import_module(_module)
    all_rules()

KINDS = tuple(sorted(EXTRACTORS))
NAMES = ("serve.sh", "compose.yaml", "deployment.yaml", "values.yaml", "Dockerfile", "README.md",
         "launch.py", "vllm.service", "vllm-config.yaml", "job.sbatch", "action.yml", "x")
VALUE_KINDS = ("int", "float", "str", "json", "human_int", "json_or_str", "config_json", "opaque")
TARGET = (catalog.newest(),)


def test_one_input(data: bytes) -> None:
    if not data:
        return
    choice, rest = data[0], data[1:]
    text = rest.decode("utf-8", "replace")
    if choice < 200:
        kind = KINDS[choice % len(KINDS)]
        lint_text("fuzz.txt", kind, text, TARGET, Report(), reraise=True)
    elif choice < 230:
        name = NAMES[choice % len(NAMES)]
        if discover.prefilter(rest, name):
            discover.kind_of(name, rest)
    else:
        spec = {"kind": VALUE_KINDS[choice % len(VALUE_KINDS)], "optional": choice % 2 == 0,
                "wrapped": choice % 3 == 0}
        parse_value(spec, text)


def make_corpus(folder: Path) -> int:
    """Seed inputs from the golden files and examples; returns how many were written."""
    count = 0
    sources = [p for top in ("tests/golden", "examples") for p in sorted((ROOT / top).rglob("*"))]
    for path in sources:
        if not path.is_file() or path.suffix == ".out" or path.stat().st_size > 64_000:
            continue
        data = path.read_bytes()
        kind = discover.kind_of(path.name, data) if discover.prefilter(data, path.name) else None
        for index, name in enumerate(KINDS):
            if kind is None or name == kind:
                (folder / f"{count:05d}").write_bytes(bytes([index]) + data)
                count += 1
                if kind is None:
                    break
    return count


def main() -> None:
    sys.setrecursionlimit(3000)
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--make-corpus":
        os.makedirs(sys.argv[2], exist_ok=True)
        print(make_corpus(Path(sys.argv[2])))
    else:
        main()
