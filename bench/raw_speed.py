"""Layer 1 speed and memory: full build, no-change update, one-file edit, and scaling.

Each measured run is a separate ``kgtool update`` process, timed wall-clock (interpreter start
included), with its peak RSS read from the kernel (``ru_maxrss`` of the finished child) and
the time it reports for each layer. The baseline is the bare
tree-sitter parse of the same files in one process, without kgtool's queries or resolution.

    python bench/raw_speed.py synthetic --language typescript --files 700 --kb 7
    python bench/raw_speed.py scale --language typescript --sizes 1000 2000 5000 10000
    python bench/raw_speed.py repo /path/to/checkout
    python bench/raw_speed.py full /path/to/checkout --repeat 7

Besides an edit of one file, it adds an exported function to the file the most files import
(by layer 1's imports edges) and times that update too. The full build is run once; the
no-change run, the edit and the export edit ``--repeat`` times each (default 5), and their
median is reported. ``full`` times only the whole update from scratch against the bare
parse, ``--repeat`` times each, one after the other, so that both see the same minutes.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parent.parent
# This checkout's kgtool, whatever is installed: the numbers must be of this code. And as on a
# developer's machine, where an installed package has its bytecode: a machine that sets
# PYTHONDONTWRITEBYTECODE would otherwise compile every module on every run.
RUN_ENV = {
    **{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
    "PYTHONPATH": str(CHECKOUT),
}
GIT = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.com"]


@dataclass
class Run:
    seconds: float  # wall clock of the whole process, interpreter start included
    rss_mib: float  # peak RSS of the process and its workers
    layer1_s: float  # what kgtool reports for layer 1 (.kg/raw/)
    layer2_s: float  # and for layer 2 (communities)


def git(cwd: Path, *args: str) -> str:
    """A git command of the bench's (as its fixed author), its output; failing loudly."""
    return subprocess.run([*GIT, *args], cwd=cwd, capture_output=True, text=True, check=True).stdout


def timed_kgtool(root: Path, *args: str) -> float:
    """Wall seconds of one ``kgtool`` process of this checkout, interpreter start included."""
    started = time.perf_counter()
    # A failing run is no figure: raised, with what it said.
    done = subprocess.run(
        [sys.executable, "-m", "kgtool", *args], cwd=root, env=RUN_ENV, capture_output=True
    )
    if done.returncode:
        raise RuntimeError(f"kgtool {' '.join(args)} in {root}: {done.stderr.decode()[-500:]}")
    return time.perf_counter() - started


def tracked_paths(root: Path) -> list[str]:
    """The files git tracks in ``root`` (names may hold spaces)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=root, capture_output=True, text=True, check=True
    ).stdout
    return [path for path in listed.split("\0") if path]


def run_update(root: Path, *extra: str) -> Run:
    """One ``kgtool update`` process: wall time, peak RSS, and the per-layer times it prints."""
    started = time.perf_counter()
    # Not started in ``root``: ``-m`` puts the current folder first on the path, so a
    # repository with a kgtool/ of its own (kgtool's) would run that one.
    process = subprocess.Popen(
        [sys.executable, "-m", "kgtool", "-C", str(root), "update", *extra],
        cwd=tempfile.gettempdir(),
        stdout=subprocess.PIPE,
        text=True,
        env=RUN_ENV,
    )
    out = process.stdout.read() if process.stdout else ""
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"kgtool update failed in {root}")
    layer1 = re.search(r"(?:in |, )(\d+\.\d+)s", out.splitlines()[0])
    layer2 = re.search(r"communities\.json.* in (\d+\.\d+)s", out)
    # ru_maxrss of a waited child: the largest of it and its own waited children, in KiB.
    return Run(
        seconds,
        usage.ru_maxrss / 1024,
        float(layer1.group(1)) if layer1 else 0.0,
        float(layer2.group(1)) if layer2 else 0.0,
    )


def bare_parse_seconds(root: Path, language: str) -> float:
    from tree_sitter_language_pack import get_parser

    sys.path.insert(0, str(CHECKOUT))
    from kgtool.raw.languages import language_for_path

    files = tracked_paths(root)
    sources = []
    for path in files:
        found = language_for_path(path)
        if found is not None:
            sources.append((found.grammar, (root / path).read_bytes()))
    parsers = {grammar: get_parser(grammar) for grammar, _ in sources}  # type: ignore[arg-type]
    started = time.perf_counter()
    for grammar, source in sources:
        parsers[grammar].parse(source)
    return time.perf_counter() - started


TS_TEMPLATE = """\
import {{ {imported} }} from "./{target}";
import * as util{n} from "./{other}";

export interface Shape{n} {{
  area(): number;
  name: string;
}}

export class Service{n} extends Base{n} implements Shape{n} {{
  name = "service{n}";
  private items: number[] = [];

  constructor(private readonly limit: number) {{
    super();
  }}

  area(): number {{
    return this.items.reduce((a, b) => a + b, 0) * {n};
  }}

{methods}
}}

export class Base{n} {{
  protected start(): void {{
    console.log("start {n}");
  }}
}}

export function {exported}(value: number): number {{
  const service = new Service{n}(value);
  service.area();
  return {imported}(value) + util{n}.helper{other_n}(value);
}}

export function helper{n}(value: number): number {{
  return value * 2;
}}
"""

TS_METHOD = """\
  method{m}(input: string): string {{
    const parts = input.split(",");
    if (parts.length > {m}) {{
      this.start();
      return parts.map((p) => p.trim()).join(";") + this.area().toString();
    }}
    for (let i = 0; i < parts.length; i++) {{
      this.items.push(parts[i].length + i);
    }}
    return this.method{prev}(input.slice(1));
  }}
"""

PY_TEMPLATE = """\
from pkg.mod{target} import run{target}
from pkg import mod{other} as util


class Base{n}:
    def start(self):
        print("start {n}")


class Service{n}(Base{n}):
    def __init__(self, limit):
        self.limit = limit
        self.items = []

    def area(self):
        return sum(self.items) * {n}

{methods}

def run{n}(value):
    service = Service{n}(value)
    service.area()
    return run{target}(value) + util.helper{other}(value)


def helper{n}(value):
    return value * 2
"""

PY_METHOD = """\
    def method{m}(self, text):
        parts = text.split(",")
        if len(parts) > {m}:
            self.start()
            return ";".join(p.strip() for p in parts) + str(self.area())
        for index, part in enumerate(parts):
            self.items.append(len(part) + index)
        return self.method{prev}(text[1:])

"""


def generate(root: Path, language: str, count: int, kb: float, seed: int = 7) -> None:
    """A repository of ``count`` interlinked files of about ``kb`` KiB each."""
    rng = random.Random(seed)
    root.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    method = TS_METHOD if language == "typescript" else PY_METHOD
    per_method = len(method.format(m=1, prev=0).encode())
    methods_per_file = max(1, int(kb * 1024 / per_method) - 2)
    for n in range(count):
        # Most links stay within a neighbourhood of files, as in real code.
        target = (n + rng.randrange(1, 12)) % count
        other = (n + rng.randrange(1, 40)) % count
        methods = "".join(
            method.format(m=m, prev=max(0, m - 1)) for m in range(1, methods_per_file + 1)
        )
        if language == "typescript":
            folder = root / "src" / f"area{n // 50}"
            folder.mkdir(parents=True, exist_ok=True)
            text = TS_TEMPLATE.format(
                n=n,
                target=f"../area{target // 50}/mod{target}",
                other=f"../area{other // 50}/mod{other}",
                other_n=other,
                imported=f"run{target}",
                exported=f"run{n}",
                methods=methods,
            )
            (folder / f"mod{n}.ts").write_text(text)
        else:
            folder = root / "pkg"
            folder.mkdir(parents=True, exist_ok=True)
            (folder / "__init__.py").write_text("")
            text = PY_TEMPLATE.format(n=n, target=target, other=other, methods=methods)
            (folder / f"mod{n}.py").write_text(text)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run([*GIT, "commit", "-qm", "synthetic"], cwd=root, check=True)


# Sources whose line comments start with "//" (the others' with "#").
SLASH_COMMENTS = (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs", ".go", ".java")


def comment_line(path: Path | str) -> str:
    """A comment line in a source file's own syntax: an edit that parses and names nothing."""
    slash = str(path).endswith(SLASH_COMMENTS)
    return "\n// kgtool bench edit\n" if slash else "\n# kgtool bench edit\n"


def toggle_comment(path: Path) -> None:
    """Append ``comment_line`` to a file, or take it away again."""
    text, line = path.read_text(), comment_line(path)
    path.write_text(text + line if line not in text else text.replace(line, ""))


def edit_one_file(root: Path) -> None:
    files = tracked_paths(root)
    from kgtool.raw.languages import language_for_path

    source_files = [f for f in files if language_for_path(f) is not None]
    toggle_comment(root / source_files[len(source_files) // 2])


# The edit below writes lines of one of these languages: a function, a name layer 1 binds
# calls to (a constant is no symbol, and adding one resolves nothing again).
EXPORT_LINES = {
    **dict.fromkeys(
        (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"),
        "\nexport function kgtoolBenchExport() {\n  return 1;\n}\n",
    ),
    ".py": "\ndef kgtool_bench_export():\n    return 1\n",
}


def most_imported_file(root: Path) -> tuple[str, int] | None:
    """The Python, TypeScript or JavaScript file the most files import, by layer 1's
    ``imports`` edges, and how many; None when no such file is imported."""
    sys.path.insert(0, str(CHECKOUT))
    from kgtool.raw.graph import load, read_raw
    from kgtool.store import Store

    loaded = load(Store(root))
    assert loaded is not None and loaded.data is not None
    importers: dict[str, set[str]] = {}
    for edge in read_raw(loaded.data).edges:
        if edge["type"] == "imports" and not edge["dst"].startswith("ext:"):
            target = edge["dst"].split("::", 1)[0]
            if Path(target).suffix in EXPORT_LINES:
                importers.setdefault(target, set()).add(edge["src"].split("::", 1)[0])
    if not importers:
        return None
    path = max(sorted(importers), key=lambda p: len(importers[p]))
    return path, len(importers[path])


def toggle_export(root: Path, path: str) -> None:
    """Add an exported name to ``path``, or take it away again."""
    target = root / path
    text = target.read_text()
    line = EXPORT_LINES[target.suffix]
    target.write_text(text.replace(line, "") if line in text else text + line)


def in_own_process(function, *args):
    """``function(*args)`` in a process of its own. The bare parse holds every source and
    the most-imported search all of layer 1: done here, they would raise this process's
    peak, which Linux then counts in the peak of every kgtool it starts (a child started by
    vfork shares this process's memory until its exec, and the kernel keeps that high-water
    mark)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        return pool.submit(function, *args).result()


def median_run(runs: list[Run]) -> Run:
    """The run of median wall time: on a noisy machine one run of a 0.2 s command can be off
    by half."""
    return sorted(runs, key=lambda run: run.seconds)[len(runs) // 2]


def edits(root: Path, edit: Callable[[Path], None], repeat: int) -> Run:
    """The median of ``repeat`` updates after ``edit`` each (it toggles: an edit, then the
    edit taken back, and so on), the files left as they were."""
    runs = []
    for _ in range(repeat):
        edit(root)
        runs.append(run_update(root))
    if repeat % 2:
        edit(root)
        run_update(root)
    return median_run(runs)


def measure(root: Path, language: str, repeat: int = 5) -> dict:
    shutil.rmtree(root / ".kg", ignore_errors=True)
    size = sum((root / p).stat().st_size for p in tracked_paths(root) if (root / p).is_file())
    bare = in_own_process(bare_parse_seconds, root, language)
    full = run_update(root)
    run_update(root)  # the first run after a build may restamp the cache's manifest
    nothing = median_run([run_update(root) for _ in range(repeat)])
    edited = edits(root, edit_one_file, repeat)
    # An exported name added to the file most files import: the names it adds can bind only
    # the call sites that mention them.
    export_edit: dict = {}
    most_imported = in_own_process(most_imported_file, root)
    if most_imported is not None:
        imported, importers = most_imported
        exported = edits(root, lambda r: toggle_export(r, imported), repeat)
        export_edit = {
            "export_edit": {"file": imported, "importers": importers},
            "export_edit_s": round(exported.seconds, 3),
            "export_edit_layer1_s": exported.layer1_s,
            "export_edit_peak_rss_mib": round(exported.rss_mib),
        }
    # Record lines of every shard, less each shard's meta line.
    shards = list((root / ".kg" / "raw").glob("*.jsonl"))
    records = sum(p.read_bytes().count(b"\n") for p in shards) - len(shards)
    return {
        "files": len(tracked_paths(root)),
        "megabytes": round(size / 1e6, 2),
        "raw_records": records,
        "bare_parse_s": round(bare, 3),
        "full_build_s": round(full.seconds, 3),
        "full_layer1_s": full.layer1_s,
        "full_layer2_s": full.layer2_s,
        "layer1_over_bare": round(full.layer1_s / bare, 2) if bare else None,
        "no_change_s": round(nothing.seconds, 3),
        "one_file_edit_s": round(edited.seconds, 3),
        "one_file_edit_layer1_s": edited.layer1_s,
        "one_file_edit_layer2_s": edited.layer2_s,
        **export_edit,
        "peak_rss_mib": {
            "full": round(full.rss_mib),
            "no_change": round(nothing.rss_mib),
            "one_file_edit": round(edited.rss_mib),
        },
        "cores": os.cpu_count(),
    }


def full_builds(root: Path, repeat: int) -> dict:
    """The whole ``kgtool update`` from scratch (no .kg/, no cache) against the bare parse,
    ``repeat`` times each in turn; medians, and the median of each pair's ratio."""
    from statistics import median

    bare: list[float] = []
    full: list[Run] = []
    for _ in range(repeat):
        bare.append(in_own_process(bare_parse_seconds, root, ""))
        shutil.rmtree(root / ".kg", ignore_errors=True)
        shutil.rmtree(root / ".git" / "kgtool-cache", ignore_errors=True)
        full.append(run_update(root))
    pairs = list(zip(full, bare, strict=True))
    return {
        "files": len(tracked_paths(root)),
        "bare_parse_s": round(median(bare), 3),
        "full_build_s": round(median(run.seconds for run in full), 3),
        "layer1_s": round(median(run.layer1_s for run in full), 3),
        "layer2_s": round(median(run.layer2_s for run in full), 3),
        "full_over_bare": round(median(r.seconds / b for r, b in pairs), 2),
        "layer1_over_bare": round(median(r.layer1_s / b for r, b in pairs), 2),
        "peak_rss_mib": round(median(run.rss_mib for run in full)),
        "runs": repeat,
        "cores": os.cpu_count(),
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="mode", required=True)
    synthetic = sub.add_parser("synthetic")
    synthetic.add_argument("--language", default="typescript", choices=["typescript", "python"])
    synthetic.add_argument("--files", type=int, default=700)
    synthetic.add_argument("--kb", type=float, default=7.0)
    scale = sub.add_parser("scale")
    scale.add_argument("--language", default="typescript", choices=["typescript", "python"])
    scale.add_argument("--sizes", type=int, nargs="+", default=[1000, 2000, 5000, 10000])
    scale.add_argument("--kb", type=float, default=3.0)
    repo = sub.add_parser("repo")
    repo.add_argument("path", type=Path)
    full = sub.add_parser("full")
    full.add_argument("path", type=Path)
    for mode in (synthetic, scale, repo, full):
        mode.add_argument(
            "--repeat",
            type=int,
            default=5,
            help="runs of each update but the build (full: of the build and of the bare parse)",
        )
    args = parser.parse_args(argv)
    if args.mode in ("repo", "full"):
        with tempfile.TemporaryDirectory() as temp:
            copy = Path(temp) / "repo"
            subprocess.run(["git", "clone", "-q", str(args.path), str(copy)], check=True)
            if args.mode == "full":
                result = full_builds(copy, args.repeat)
            else:
                result = measure(copy, "", args.repeat)
            print(json.dumps({"repo": str(args.path), **result}, indent=2))
        return 0
    sizes = [args.files] if args.mode == "synthetic" else args.sizes
    for count in sizes:
        with tempfile.TemporaryDirectory() as temp:
            root = Path(temp) / "repo"
            generate(root, args.language, count, args.kb)
            result = measure(root, args.language, args.repeat)
            print(json.dumps({"language": args.language, **result}), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
