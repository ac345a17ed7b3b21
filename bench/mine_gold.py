"""Whether the miner's proposals hold the recipes repositories write down for themselves.

    python bench/mine_gold.py [--out DIR] [--repos a,b] [--proposals N] [--json FILE]
                              [NAME=SOURCE ...]

The gold is bench/gold_recipes/NAME.yaml: one recurring task per repository, written from its
own docs before the miner was run on it (the docs' commit, path and lines; the task; `files`,
only the paths the doc names, `<slot>` standing for the new thing's name; what the doc asks
without naming a path, not scored; commits that did the task). SOURCE defaults to the
repository as bench/sources.py finds it (a local mirror, else GitHub). Each repository is
cloned into DIR/NAME (reused), checked out at the gold's commit, mapped (`kgtool update`) and
mined there as a user with no API key would:

    kgtool mine-playbooks --rev COMMIT --max-proposals N --no-llm --out DIR/NAME-proposed

The proposals, best first, are the files it prints; their key files are read from the front
matter, each with the abstract path it stands for ("an example of apprise/plugins/<name>.py"
in its comment). New files match new files, edited ones edited ones: a key file standing for
no abstract path matches the same gold path, and an abstract path a gold template when one,
each `<slot>` read as any name without '/', matches the other with its own slots filled in
(tests/test_<name>.py matches tests/test_plugin_<name>.py; an edited lib/rules/index.js is
not an example of lib/rules/<name>.js). Per proposal: recall, the share of the gold files it
holds; precision, the share of its key files that are gold. The table gives per repository
the best proposal (highest recall, then precision, then rank): its title, rank, recall and
precision; the highest recall in the top 5 (the target: 0.6 for every recipe); then the top
10 titles.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, NamedTuple

import yaml

ROOT = Path(__file__).resolve().parent.parent
GOLD_DIR = ROOT / "bench" / "gold_recipes"
sys.path.insert(0, str(ROOT))

from bench.sources import source_of  # noqa: E402
from kgtool.mining.miner import MAX_PROPOSALS  # noqa: E402
from kgtool.playbook.parse import split_front_matter  # noqa: E402

SLOT = re.compile(r"<[^<>/]+>")
EXAMPLE_OF = re.compile(r"#.*\ban example of (\S+)")
TOP = 10


class Gold(NamedTuple):
    name: str
    repo: str
    source: str
    commit: str
    task: str
    files: list[str]


class Proposal(NamedTuple):
    rank: int  # 1 is the miner's best
    title: str
    keys: list[tuple[str, str]]  # (the key file's path, the abstract path it stands for)


class Score(NamedTuple):
    proposal: Proposal
    found: list[str]  # the gold files it holds
    recall: float
    precision: float


def load_gold(name: str, source: str | None) -> Gold:
    path = GOLD_DIR / f"{name}.yaml"
    if not path.exists():
        raise SystemExit(f"{path}: no gold recipe for {name!r}")
    data = yaml.safe_load(path.read_text())
    default = source_of(data["repo"])
    files = [str(f["path"]) for f in data["files"]]
    return Gold(name, data["repo"], source or default, data["commit"], data["task"], files)


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                          text=True).stdout  # fmt: skip


def kgtool(repo: Path, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if k != "ANTHROPIC_API_KEY"}
    env["PYTHONPATH"] = str(ROOT)  # the kgtool of this checkout, wherever the bench runs from
    done = subprocess.run(
        [sys.executable, "-m", "kgtool", "-C", str(repo), *args],
        cwd=ROOT, capture_output=True, text=True, env=env,
    )  # fmt: skip
    if done.returncode != 0:
        raise SystemExit(f"{repo}: kgtool {args[0]} failed: {done.stderr.strip()}")
    return done.stdout


def checkout(out: Path, gold: Gold) -> Path:
    """A clone of the source at the gold's commit: the history the recipe was read from."""
    clone = out / gold.name
    if not clone.exists():
        subprocess.run(["git", "clone", "-q", gold.source, str(clone)], check=True)
    try:
        git(clone, "checkout", "-q", "--detach", gold.commit)
    except subprocess.CalledProcessError as error:
        why = error.stderr.strip()
        raise SystemExit(f"{clone}: cannot check out {gold.commit}: {why}") from None
    fill_missing(clone)
    return clone


def fill_missing(clone: Path) -> None:
    """Stand an empty file in for each object the source lacks (a snapshot may leave out its
    largest files: pi-mono's zips and images), so that git log can follow renames past them;
    the miner reads paths, and the replacements live in the clone only."""
    listed = git(clone, "rev-list", "--objects", "--missing=print", "--all")
    missing = [line[1:] for line in listed.splitlines() if line.startswith("?")]
    empty = git(clone, "hash-object", "-w", os.devnull).strip() if missing else ""
    for sha in missing:
        git(clone, "update-ref", f"refs/replace/{sha}", empty)
    if missing:
        print(f"{clone.name}: {len(missing)} objects the source lacks read as empty files",
              file=sys.stderr)  # fmt: skip


def read_proposal(path: Path, rank: int, printed_title: str) -> Proposal:
    text = path.read_text(encoding="utf-8")
    span = split_front_matter(text)
    if isinstance(span, str):
        raise SystemExit(f"{path}: {span}")
    raw = text[span[0] : span[1]]
    data: dict[str, Any] = yaml.safe_load(raw) or {}
    keys: list[tuple[str, str]] = []
    abstract: dict[str, str] = {}
    # The abstract path is in a comment, which yaml drops: read it from the raw line.
    for line in raw.splitlines():
        found = EXAMPLE_OF.search(line)
        pointer = line.split("#", 1)[0].strip().lstrip("-").strip().strip("\"'")
        if found and pointer:
            abstract[pointer] = found.group(1).rstrip(")")
    for item in data.get("key_files") or []:
        pointer = str(item)
        keys.append((pointer.partition("::")[0], abstract.get(pointer, "")))
    return Proposal(rank, str(data.get("title") or printed_title), keys)


def mine(
    clone: Path, gold: Gold, out: Path, count: int, min_support: int | None = None
) -> list[Proposal]:
    folder = out / f"{gold.name}-proposed"
    shutil.rmtree(folder, ignore_errors=True)  # what a run writes is read back, nothing older
    kgtool(clone, "update", "-q")
    printed = kgtool(
        clone, "mine-playbooks", "--rev", gold.commit, "--max-proposals", str(count),
        "--no-llm", "--out", str(folder),
        *(["--min-support", str(min_support)] if min_support else []),
    )  # fmt: skip
    order: list[tuple[Path, str]] = []
    for line in printed.splitlines():
        path, sep, rest = line.partition(".md: ")
        if sep and Path(path + ".md").parent == folder:
            order.append((Path(path + ".md"), rest.rpartition(" (support")[0] or rest))
    if not order:  # a miner that prints nothing per proposal: its files, by name
        order = [(p, p.stem) for p in sorted(folder.glob("*.md"))]
        print(f"{gold.name}: no ranking printed; proposals taken by file name", file=sys.stderr)
    return [read_proposal(p, rank, title) for rank, (p, title) in enumerate(order, 1)]


def pattern(path: str) -> re.Pattern[str]:
    return re.compile("[^/]+".join(re.escape(part) for part in SLOT.split(path)) + r"\Z")


def same_place(gold: str, key: str) -> bool:
    """Whether a gold path (or template) and a key file (or abstract path) name one place."""
    return (
        gold == key
        or bool(pattern(gold).match(SLOT.sub("x", key)))
        or bool(pattern(key).match(SLOT.sub("x", gold)))
    )


def score(gold: Gold, proposal: Proposal) -> Score:
    def holds(path: str, key: tuple[str, str]) -> bool:
        # A new file is not an edited one: lib/rules/index.js (edited) is not an example of
        # lib/rules/<name>.js, and tests/<name>.test.ts (added) is not tests/stream.test.ts.
        pointer, abstract = key
        template = abstract or (pointer if SLOT.search(pointer) else "")
        if template:
            return bool(SLOT.search(path)) and same_place(path, template)
        return path == pointer

    found = [g for g in gold.files if any(holds(g, k) for k in proposal.keys)]
    gold_keys = [k for k in proposal.keys if any(holds(g, k) for g in gold.files)]
    precision = len(gold_keys) / len(proposal.keys) if proposal.keys else 0.0
    return Score(proposal, found, len(found) / len(gold.files), precision)


class Row(NamedTuple):
    gold: Gold
    scores: list[Score]  # one per proposal, best first

    def best(self) -> Score | None:
        """The proposal holding most of the recipe (then the most precise, the best ranked)."""
        held = [s for s in self.scores if s.found]
        return min(held, key=lambda s: (-s.recall, -s.precision, s.proposal.rank), default=None)

    def top5(self) -> float:
        return max((s.recall for s in self.scores[:5]), default=0.0)


def table(rows: list[Row]) -> str:
    lines = [
        "| repo | task | best proposal | rank | recall | precision | top-5 recall |",
        "|---|---|---|---:|---:|---:|---:|",
    ]
    for row in rows:
        gold, top, count = row.gold, row.best(), len(row.scores)
        if top is None:
            lines.append(f"| {gold.repo} | {gold.task} | none of {count} | - | 0.00 | - | 0.00 |")
            continue
        lines.append(
            f"| {gold.repo} | {gold.task} | {top.proposal.title} | {top.proposal.rank} of "
            f"{count} | {top.recall:.2f} ({len(top.found)}/{len(gold.files)}) "
            f"| {top.precision:.2f} | {row.top5():.2f} |"
        )
    hit = sum(1 for row in rows if row.top5() >= 0.6)
    lines += ["", f"recipes with at least 60% of their files in a top-5 proposal: {hit} of "
              f"{len(rows)}"]  # fmt: skip
    for row in rows:
        lines += ["", f"{row.gold.name}: top {TOP} of {len(row.scores)}"]
        for s in row.scores[:TOP]:
            p = s.proposal
            lines.append(f"  {p.rank:2}. {p.title}  (recall {s.recall:.2f}, "
                         f"precision {s.precision:.2f}, {len(p.keys)} key files)")  # fmt: skip
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sources", nargs="*", metavar="NAME=SOURCE")
    parser.add_argument("--out", type=Path, default=Path("/tmp/mine-gold"),
                        help="clones and proposals, reused (default: %(default)s)")  # fmt: skip
    parser.add_argument("--repos", help="only these recipes (names, comma-separated)")
    parser.add_argument("--proposals", type=int, default=MAX_PROPOSALS,
                        help="--max-proposals of the miner (its default)")  # fmt: skip
    parser.add_argument("--json", type=Path, help="also write every proposal's score here")
    parser.add_argument("--min-support", type=int,
                        help="--min-support of the miner (default: the miner's)")  # fmt: skip
    args = parser.parse_args()
    if any("=" not in s for s in args.sources):
        parser.error("sources are NAME=SOURCE, NAME a recipe in bench/gold_recipes/")
    given = dict(s.split("=", 1) for s in args.sources)
    names = list(given) or sorted(p.stem for p in GOLD_DIR.glob("*.yaml"))
    if args.repos:
        names = [n for n in names if n in args.repos.split(",")]
    args.out.mkdir(parents=True, exist_ok=True)
    rows: list[Row] = []
    for name in names:
        gold = load_gold(name, given.get(name))
        print(f"{name}: mining {gold.source} at {gold.commit[:12]}", file=sys.stderr, flush=True)
        out = args.out.resolve()
        proposals = mine(checkout(out, gold), gold, out, args.proposals, args.min_support)
        rows.append(Row(gold, [score(gold, p) for p in proposals]))
    if args.json:
        dump = {
            row.gold.name: [s._replace(proposal=s.proposal._asdict())._asdict() for s in row.scores]
            for row in rows
        }
        args.json.write_text(json.dumps(dump, indent=1, sort_keys=True) + "\n")
    print(table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
