"""What a pull request can commit, tried against every command that reads it.

Builds a small repository (Python and a package.json, a playbook, an agent skill, labels) in a
temporary folder, then, per class of hostile input, commits each case and runs the commands a
hook, CI and an agent run. Each run is its own process, with a time bound and a memory bound
(RLIMIT_AS); a run fails the probe when it prints a traceback, exits with a code the command
does not document, is killed by either bound, or (for forged caches) passes a stale map.

Classes:
- forged: a stale map with a cache forged to vouch for it, committed under .kg/cache/, checked
  in a fresh clone (the check must fail);
- corrupt: committed .kg/ files damaged at seeded random points (truncated, bytes flipped,
  garbage inserted); after the commands, `kgtool update` (and deleting the one file an error
  names) must give the bytes of a clean build;
- nesting: JSON, YAML, TOML and front matter nested 50 to 5,000 deep in every structured file
  kgtool reads;
- bombs: YAML alias bombs and integers of 5,000 digits in the same files.

Usage: python bench/hostile_probe.py [--trials N] [--seed S] [--class NAME ...]
Prints a table of trials and failures per class, then every failure with its case.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the forger writes the cache as this checkout's kgtool does

from kgtool.config import load_config  # noqa: E402
from kgtool.raw import cache  # noqa: E402
from kgtool.raw.build import cache_key  # noqa: E402
from kgtool.repo import listing  # noqa: E402
from kgtool.store import Store  # noqa: E402

TIME_BOUND = 60.0  # seconds a run may take
MEMORY_BOUND = 2 << 30  # bytes of address space a run may map
GIT_ENV = {
    "GIT_AUTHOR_NAME": "Probe",
    "GIT_AUTHOR_EMAIL": "probe@example.com",
    "GIT_COMMITTER_NAME": "Probe",
    "GIT_COMMITTER_EMAIL": "probe@example.com",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00+00:00",
    "GIT_COMMITTER_DATE": "2026-01-01T00:00:00+00:00",
    "GIT_CONFIG_NOSYSTEM": "1",
}

FILES = {
    "app/__init__.py": "",
    "app/store.py": "class Store:\n    def save(self):\n        return 1\n",
    "app/cli.py": "from app.store import Store\n\n\ndef main():\n    Store().save()\n",
    "tests/test_store.py": (
        "from app.store import Store\n\n\ndef test_save():\n    Store().save()\n"
    ),
    "web/package.json": '{"name": "web", "scripts": {"test": "node t.js"}}\n',
    "web/index.js": "export function page() {\n  return 1;\n}\n",
    "playbooks/save-data.md": (
        "---\nintent: save data\nconcepts: []\nkey_files:\n  - app/store.py::Store.save\n"
        "validation:\n  - pytest\npitfalls:\n  - none yet\nrollback: nothing\n---\n\nSave it.\n"
    ),
    ".claude/skills/save/SKILL.md": "---\nname: save\ndescription: save data\n---\n\nSave.\n",
}

# (command, exit codes it documents for bad input or a failed check)
COMMANDS: list[tuple[list[str], set[int]]] = [
    (["update"], {0, 1, 2}),
    (["update", "--check"], {0, 1, 2}),
    (["check"], {0, 1, 2}),
    (["ci"], {0, 1, 2}),
    (["context", "save data in the store"], {0, 2}),
    (["impact", "app/store.py"], {0, 2}),
    (["explain", "app/store.py"], {0, 2}),
    (["playbooks", "list", "--json"], {0, 1, 2}),
    (["mine-playbooks", "--dry-run"], {0, 2}),
    (["diff"], {0, 2}),
]


class Failure(Exception):
    pass


def git(root: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *args], cwd=root, env={**os.environ, **GIT_ENV}, capture_output=True, text=True
    )
    if done.returncode:
        raise RuntimeError(f"git {' '.join(args)}: {done.stderr}")
    return done.stdout


def _bounded() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BOUND, MEMORY_BOUND))


def kgtool(root: Path, argv: list[str], runner: Path) -> tuple[int, str, str]:
    env = {
        **os.environ,
        **GIT_ENV,
        "PYTHONPATH": str(ROOT),
        "GITHUB_ACTIONS": "true",
        "GITHUB_STEP_SUMMARY": str(runner / "summary.md"),
        "GITHUB_OUTPUT": str(runner / "output.txt"),
        "GITHUB_REPOSITORY": "acme/app",
    }
    env.pop("ANTHROPIC_API_KEY", None)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "kgtool", *argv],
            cwd=root,
            env=env,
            capture_output=True,
            text=True,
            timeout=TIME_BOUND,
            preexec_fn=_bounded,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired as expired:
        raise Failure(f"kgtool {' '.join(argv)}: over {TIME_BOUND:g}s") from expired
    if "Traceback" in done.stderr or "MemoryError" in done.stderr:
        last = done.stderr.strip().splitlines()[-1]
        raise Failure(f"kgtool {' '.join(argv)}: traceback ({last})")
    if done.returncode < 0:
        raise Failure(f"kgtool {' '.join(argv)}: killed by signal {-done.returncode}")
    return done.returncode, done.stdout, done.stderr


def make_base(folder: Path) -> Path:
    """The repository every case starts from: committed with its map and offline labels."""
    root = folder / "base"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    for path, text in FILES.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    git(root, "add", "-A")
    runner = folder / "runner"
    runner.mkdir(exist_ok=True)
    for argv in (["update"], ["label", "--offline"]):
        code, out, err = kgtool(root, argv, runner)
        assert code == 0, (argv, out, err)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    return root


def copy_of(base: Path, folder: Path, name: str) -> Path:
    target = folder / name
    shutil.rmtree(target, ignore_errors=True)
    git(folder, "clone", "-q", str(base), str(target))
    return target


def kg_bytes(root: Path) -> dict[str, bytes]:
    kg = root / ".kg"
    return {
        p.relative_to(kg).as_posix(): p.read_bytes()
        for p in sorted(kg.rglob("*"))
        if p.is_file() and not p.name.endswith(".tmp")
    }


def run_all(root: Path, runner: Path) -> dict[str, int]:
    codes = {}
    for argv, allowed in COMMANDS:
        if argv[0] == "update" and len(argv) == 1:
            continue  # the writing run goes last (see each class)
        code, out, err = kgtool(root, argv, runner)
        if code not in allowed:
            raise Failure(f"kgtool {' '.join(argv)}: exit {code}: {(err or out)[-200:]}")
        codes[" ".join(argv)] = code
    return codes


# --- forged caches ------------------------------------------------------------------------


def forged_cases(rng: random.Random, trials: int) -> list[tuple[str, Callable[[Path], None]]]:
    def forge(kind: str) -> Callable[[Path], None]:
        def apply(root: Path) -> None:
            # The stale change: code edited, .kg/ not refreshed.
            store_py = root / "app/store.py"
            store_py.write_text(store_py.read_text() + "\n\ndef load():\n    return Store()\n")
            honest = Store(root)
            forged_dir = root / ".kg" / "cache"
            forged_dir.mkdir(parents=True, exist_ok=True)
            # The cache of the unrefreshed map, as the old kgtool kept it.
            for source in sorted(honest.cache_dir.iterdir()):
                if source.is_file():
                    (forged_dir / source.name).write_bytes(source.read_bytes())
            git(root, "add", "-A")
            forged = Store(root, cache_dir=forged_dir)
            manifest = cache.load_manifest(forged, cache_key(load_config(root)))
            if manifest is not None and kind in ("listing", "listing+noise"):
                manifest.listing = listing(root).fingerprint(".kg")
                manifest.save(forged)
            if kind in ("noise", "listing+noise"):
                for name in sorted(os.listdir(forged_dir)):
                    if name != "raw.manifest" and rng.random() < 0.5:
                        (forged_dir / name).write_bytes(rng.randbytes(rng.randint(1, 4096)))
            if kind == "read-cache":
                (forged_dir / "read.marshal").write_bytes(rng.randbytes(2048))
            git(root, "add", "-f", ".kg/cache")
            git(root, "commit", "-q", "-m", "stale map, forged cache")

        return apply

    kinds = ["listing", "noise", "listing+noise", "read-cache"]
    return [
        (f"forged-{kinds[i % len(kinds)]}-{i}", forge(kinds[i % len(kinds)])) for i in range(trials)
    ]


def run_forged(base: Path, folder: Path, name: str, apply: Callable[[Path], None]) -> None:
    work = copy_of(base, folder, f"w-{name}")
    git(work, "config", "user.name", "Probe")
    # The attacker's machine: its own cache, built at the base.
    kgtool(work, ["update"], folder / "runner")
    apply(work)
    fresh = copy_of(work, folder, f"ci-{name}")
    runner = folder / "runner"
    for argv in (["check"], ["update", "--check"], ["ci"]):
        code, out, _err = kgtool(fresh, argv, runner)
        if code != 1:
            raise Failure(f"kgtool {' '.join(argv)} passed a stale map (exit {code})")
    code, out, _ = kgtool(fresh, ["check"], runner)
    if "R108" not in out:
        raise Failure("no R108 finding for the tracked cache")
    run_all(fresh, runner)


# --- corruption -----------------------------------------------------------------------------


def damage(data: bytes, rng: random.Random) -> bytes:
    how = rng.choice(["truncate", "flip", "insert", "random", "empty", "swap-lines"])
    if how == "truncate" and data:
        return data[: rng.randrange(len(data))]
    if how == "flip" and data:
        buf = bytearray(data)
        for _ in range(rng.randint(1, 8)):
            buf[rng.randrange(len(buf))] = rng.randrange(256)
        return bytes(buf)
    if how == "insert":
        at = rng.randrange(len(data) + 1)
        return data[:at] + rng.randbytes(rng.randint(1, 64)) + data[at:]
    if how == "swap-lines":
        lines = data.splitlines(keepends=True)
        rng.shuffle(lines)
        return b"".join(lines)
    if how == "empty":
        return b""
    return rng.randbytes(rng.randint(1, 2048))


def run_corrupt(base: Path, folder: Path, name: str, rng: random.Random) -> None:
    work = copy_of(base, folder, f"w-{name}")
    runner = folder / "runner"
    kgtool(work, ["update"], runner)
    clean = kg_bytes(work)
    targets = sorted(p for p in clean if p != ".gitignore")
    target = rng.choice(targets)
    path = work / ".kg" / target
    path.write_bytes(damage(path.read_bytes(), rng))
    run_all(work, runner)
    code, _, err = kgtool(work, ["update"], runner)
    if code == 2:
        if f".kg/{target}" not in err:
            raise Failure(f"update refused without naming .kg/{target}: {err.strip()}")
        path.unlink()
        code, _out, err = kgtool(work, ["update"], runner)
    if code != 0:
        raise Failure(f"update after damage to {target}: exit {code}: {err.strip()[-200:]}")
    after = kg_bytes(work)
    if target == "ontology.yaml" and after.get(target) != clean.get(target):
        # Layer 3 is people's and the labeler's: update never rewrites it. Put it back.
        (work / ".kg" / target).write_bytes(clean[target])
        after = kg_bytes(work)
    if after != clean:
        differ = sorted(k for k in set(after) | set(clean) if after.get(k) != clean.get(k))
        raise Failure(f"after damage to {target}, .kg/ differs from a clean build: {differ[:3]}")


# --- nesting and bombs ---------------------------------------------------------------------

YAML_BOMB = (
    'a: &a ["x","x","x","x","x","x","x","x","x"]\n'
    "b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n"
    "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n"
    "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n"
    "e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n"
    "f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n"
    "g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\n"
    "h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]\n"
    "i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]\n"
)
BIG = "9" * 5000


def nested(depth: int, open_: str = "[", close: str = "]") -> str:
    return open_ * depth + close * depth


def front(body: str, text: str = "\nBody.\n") -> str:
    return f"---\n{body}\n---\n{text}"


PLACES: dict[str, Callable[[str, str], str]] = {
    # place -> (kind of payload, payload) -> file content
    "web/package.json": lambda kind, p: (
        f'{{"name": "web", "workspaces": {p}}}\n' if kind != "yaml" else ""
    ),
    "pnpm-workspace.yaml": lambda kind, p: f"packages: {p}\n" if kind != "toml" else "",
    "Cargo.toml": lambda kind, p: f"[workspace]\nmembers = {p}\n" if kind != "yaml" else "",
    ".kgtool.yaml": lambda kind, p: f"exclude: {p}\n" if kind != "toml" else "",
    "pyproject.toml": lambda kind, p: f"[tool.kgtool]\nexclude = {p}\n" if kind != "yaml" else "",
    "playbooks/deep.md": lambda kind, p: front(f"intent: {p}") if kind != "toml" else "",
    ".claude/skills/deep/SKILL.md": lambda kind, p: (
        front(f"name: deep\ndescription: {p}") if kind != "toml" else ""
    ),
    ".kg/communities.json": lambda kind, p: f'{{"version": {p}}}\n' if kind != "yaml" else "",
    ".kg/ontology.yaml": lambda kind, p: f"communities: {p}\n" if kind != "toml" else "",
}


def payload_cases(which: str) -> list[tuple[str, str, str]]:
    """(case name, place, content) for the class ``which``."""
    cases = []
    for place, make in sorted(PLACES.items()):
        if which == "nesting":
            for depth in (50, 200, 600, 1000, 5000):
                for kind, (o, c) in (
                    ("json", ("[", "]")),
                    ("yaml", ("[", "]")),
                    ("map", ("{a: ", "}")),
                ):
                    if kind == "map" and place.endswith((".json", ".toml")):
                        o, c = ('{"a": ', "}") if place.endswith(".json") else ("{a = ", "}")
                    content = make(kind, nested(depth, o, c))
                    if content:
                        cases.append((f"{place}@{depth}{kind}", place, content))
        else:
            for kind, p in (("int", BIG), ("yaml", "*i")):
                content = make(kind, p)
                if not content:
                    continue
                if kind == "yaml":  # the bomb's largest alias, used where a value is read
                    if place.endswith(".md"):
                        field = "name: deep\ndescription" if "SKILL" in place else "intent"
                        content = front(f"{YAML_BOMB}{field}: *i")
                    elif place.endswith(".yaml"):
                        content = YAML_BOMB + content
                    else:
                        continue
                cases.append((f"{place}:{kind}", place, content))
    return cases


def run_payload(base: Path, folder: Path, name: str, place: str, content: str) -> None:
    work = copy_of(base, folder, "w-" + hashlib.sha1(name.encode()).hexdigest()[:12])
    runner = folder / "runner"
    (work / place).parent.mkdir(parents=True, exist_ok=True)
    (work / place).write_text(content)
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", f"hostile {name}")
    run_all(work, runner)
    code, _out, _err = kgtool(work, ["update"], runner)
    if code not in (0, 1, 2):
        raise Failure(f"update: exit {code}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=12, help="forged and corrupt cases")
    parser.add_argument("--seed", type=int, default=27)
    parser.add_argument(
        "--class",
        dest="classes",
        action="append",
        choices=["forged", "corrupt", "nesting", "bombs"],
        help="run only these classes (repeatable)",
    )
    args = parser.parse_args()
    classes = args.classes or ["forged", "corrupt", "nesting", "bombs"]
    rng = random.Random(args.seed)
    results: dict[str, tuple[int, list[str]]] = {}
    with tempfile.TemporaryDirectory(prefix="hostile-probe-") as temp:
        folder = Path(temp)
        base = make_base(folder)
        for which in classes:
            started = time.monotonic()
            failures: list[str] = []
            trials = 0
            if which == "forged":
                for name, apply in forged_cases(rng, args.trials):
                    trials += 1
                    try:
                        run_forged(base, folder, name, apply)
                    except Failure as failure:
                        failures.append(f"{name}: {failure}")
            elif which == "corrupt":
                for i in range(args.trials):
                    trials += 1
                    try:
                        run_corrupt(base, folder, f"corrupt-{i}", random.Random(rng.random()))
                    except Failure as failure:
                        failures.append(f"corrupt-{i}: {failure}")
            else:
                for name, place, content in payload_cases(which):
                    trials += 1
                    try:
                        run_payload(base, folder, name, place, content)
                    except Failure as failure:
                        failures.append(f"{name}: {failure}")
            results[which] = (trials, failures)
            print(
                f"{which}: {trials} trials, {len(failures)} failures "
                f"({time.monotonic() - started:.0f}s)",
                flush=True,
            )
    print("\n| class | trials | failures |\n|---|---:|---:|")
    for which, (trials, failures) in results.items():
        print(f"| {which} | {trials} | {len(failures)} |")
    for which, (_, failures) in results.items():
        for failure in failures:
            print(f"{which}: {failure}")
    return 1 if any(failures for _, failures in results.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
