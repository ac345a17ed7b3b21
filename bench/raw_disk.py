"""Layer 1 on disk: committed ``.kg/`` bytes per source byte, the largest file under ``.kg/``,
the shards, and what a one-file edit rewrites.

Each repository is cloned (or generated) into a temporary folder and mapped by this
checkout's kgtool, one ``kgtool update`` process per step (see ``bench/raw_speed.py``):

    python bench/raw_disk.py repo /path/to/checkout [/path/to/another ...]
    python bench/raw_disk.py synthetic --language typescript --files 10000 --kb 3

"Source bytes" are the tracked files kgtool maps (everything git tracks outside ``.kg/``),
"parsed source bytes" those of them a grammar read (the files with symbols to map);
"committed" is every file under ``.kg/`` but the local cache. ``format1_bytes`` is what the
same records took as one ``.kg/raw.jsonl`` with every default spelled out (format 1),
rebuilt from the shards by the reader.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from raw_speed import CHECKOUT, edit_one_file, generate, run_update, tracked_paths

sys.path.insert(0, str(CHECKOUT))

from kgtool.raw.graph import load, records
from kgtool.store import Store, canonical_json


def tracked_bytes(root: Path) -> tuple[int, int]:
    """(files, bytes) of what git tracks outside .kg/."""
    sizes = [
        (root / p).stat().st_size
        for p in tracked_paths(root)
        if not p.startswith(".kg/") and (root / p).is_file() and not (root / p).is_symlink()
    ]
    return len(sizes), sum(sizes)


def committed(root: Path) -> dict[str, int]:
    """Every file under .kg/ that is committed (not the cache), relative name -> bytes."""
    kg = root / ".kg"
    return {
        p.relative_to(kg).as_posix(): p.stat().st_size
        for p in kg.rglob("*")
        if p.is_file() and not p.relative_to(kg).as_posix().startswith("cache/")
    }


def format1_and_parsed_bytes(root: Path) -> tuple[int, int]:
    """(the same records with every default spelled out, one line each: format 1's size;
    the bytes of the files a grammar parsed)."""
    loaded = load(Store(root))
    assert loaded is not None and loaded.data is not None
    old = parsed = 0
    for record in records(loaded.data):
        old += len(canonical_json(record).encode()) + 1
        if record.get("kind") == "file" and record.get("status") in ("ok", "partial"):
            parsed += (root / record["id"]).stat().st_size
    return old, parsed


def shard_identities(root: Path) -> dict[str, tuple[int, int]]:
    return {
        p.name: (p.stat().st_ino, p.stat().st_mtime_ns) for p in (root / ".kg" / "raw").iterdir()
    }


def measure(root: Path) -> dict:
    shutil.rmtree(root / ".kg", ignore_errors=True)  # a repository that commits its own map
    files, source = tracked_bytes(root)
    full = run_update(root)
    on_disk = committed(root)
    layer1 = {name: size for name, size in on_disk.items() if name.startswith("raw/")}
    largest = max(on_disk, key=lambda name: on_disk[name])
    nothing = run_update(root)
    before = shard_identities(root)
    edit_one_file(root)
    edited = run_update(root)
    after = shard_identities(root)
    rewritten = [name for name in after if before.get(name) != after[name]]
    rewritten_bytes = sum((root / ".kg" / "raw" / name).stat().st_size for name in rewritten)
    edit_one_file(root)  # and back
    run_update(root)
    old, parsed = format1_and_parsed_bytes(root)
    kg_bytes = sum(on_disk.values())
    return {
        "files": files,
        "source_bytes": source,
        "parsed_source_bytes": parsed,
        "committed_kg_per_parsed_source_byte": round(kg_bytes / parsed, 3),
        "committed_kg_bytes": kg_bytes,
        "committed_kg_per_source_byte": round(kg_bytes / source, 3),
        "layer1_bytes": sum(layer1.values()),
        "layer1_per_source_byte": round(sum(layer1.values()) / source, 3),
        "format1_bytes": old,
        "format1_per_source_byte": round(old / source, 3),
        "format1_per_parsed_source_byte": round(old / parsed, 3),
        "shards": len(layer1),
        "largest_kg_file": largest,
        "largest_kg_file_bytes": on_disk[largest],
        "largest_shard_bytes": max(layer1.values()),
        "one_file_edit_rewrote_shards": len(rewritten),
        "one_file_edit_rewrote_bytes": rewritten_bytes,
        "full_build_s": round(full.seconds, 2),
        "no_change_s": round(nothing.seconds, 3),
        "one_file_edit_s": round(edited.seconds, 3),
        "peak_rss_mib_full": round(full.rss_mib),
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="mode", required=True)
    repo = sub.add_parser("repo")
    repo.add_argument("paths", type=Path, nargs="+")
    synthetic = sub.add_parser("synthetic")
    synthetic.add_argument("--language", default="typescript", choices=["typescript", "python"])
    synthetic.add_argument("--files", type=int, default=10000)
    synthetic.add_argument("--kb", type=float, default=3.0)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as temp:
        if args.mode == "repo":
            for number, path in enumerate(args.paths):
                copy = Path(temp) / f"repo{number}"
                subprocess.run(["git", "clone", "-q", str(path), str(copy)], check=True)
                print(json.dumps({"repo": str(path), **measure(copy)}), flush=True)
        else:
            root = Path(temp) / "repo"
            generate(root, args.language, args.files, args.kb)
            print(json.dumps({"synthetic": args.language, **measure(root)}), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
