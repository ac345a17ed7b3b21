"""Call edges by tier, and call sites left unresolved, of one language in a real checkout.

Layer 1 only, in this process, imported from this checkout: every tracked file of the
language's ecosystem (and its manifests, such as go.mod) is extracted and resolved as
``kgtool update`` does, and the ``calls`` edges whose source is a file of that language are
counted by tier and confidence, beside the call sites bound to nothing and the calls counted as
external. Run it on two checkouts of kgtool (before and after a resolver change) to compare.

Usage: python bench/call_tiers.py CHECKOUT --language go [--language gomod] [--json]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parent.parent
if str(CHECKOUT) not in sys.path[:1]:
    sys.path.insert(0, str(CHECKOUT))

from kgtool.raw.index import RepoIndex  # noqa: E402
from kgtool.raw.languages import language_for_path  # noqa: E402
from kgtool.raw.model import FileFacts  # noqa: E402
from kgtool.raw.resolve import FileResolution, resolve_files  # noqa: E402


def resolved_layer1(
    root: Path, languages: set[str], max_candidates: int = 8
) -> tuple[dict[str, FileFacts], RepoIndex, dict[str, FileResolution]]:
    """Every tracked file of ``languages`` in a checkout, extracted and resolved in this
    process as ``kgtool update`` does: (facts by path, their index, resolution by path)."""
    tracked = subprocess.run(
        ["git", "ls-files", "-z"], cwd=root, check=True, capture_output=True
    ).stdout.split(b"\0")
    facts = {}
    for raw in tracked:
        path = raw.decode("utf-8", "replace")
        language = language_for_path(path) if path else None
        if language is None or language.name not in languages:
            continue
        facts[path] = language.extract(path, (root / path).read_bytes())
    index = RepoIndex(facts)
    return facts, index, resolve_files(index, sorted(facts), max_candidates)


def counts(root: Path, languages: set[str], max_candidates: int = 8) -> dict:
    facts, _, results = resolved_layer1(root, languages, max_candidates)
    tiers: Counter[str] = Counter()
    unresolved = external = sites = 0
    for path, result in results.items():
        sites += len(facts[path].calls)
        for edge in result.edges:
            if edge.type == "calls":
                tiers[f"{edge.tier} {edge.confidence:g}"] += 1
        unresolved += sum(sum(names.values()) for names in result.unresolved.values())
        external += sum(result.external_calls.values())
    return {
        "files": sum(1 for f in facts.values() if f.calls or f.symbols),
        "call_sites": sites,
        "calls_by_tier": dict(sorted(tiers.items())),
        "unresolved_sites": unresolved,
        "external_calls": external,
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkout", type=Path)
    parser.add_argument("--language", action="append", required=True)
    args = parser.parse_args(argv)
    print(json.dumps(counts(args.checkout, set(args.language)), indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
