"""Mutation testing of kgtool's core modules: how many small code changes the fast tests catch.

A benchmark, not a CI step: every mutant takes hours on two cores, the default sample of 40
per module 15-25 minutes. For each core module the script copies this checkout to a work
folder (the checkout itself is never touched), has mutmut generate every mutant of that one
module (operators, constants, conditions, removed calls, ...), draws a seeded sample of them,
and runs each sampled mutant against the fast test files mapped to the module below (mutmut
runs, of those, only the tests that call the mutated function). A mutant is killed when a test
fails or times out, and survives when every test passes; "no tests" means no mapped test
reaches the mutated function, which counts as a survivor. The kill rate is killed / sampled.
Judgements of the survivors: bench/results/mutation-notes.md.

Sampling: every module's mutants are listed sorted by name, and ``--per-module`` of them
are drawn with ``random.Random(f"{seed}:{module}")`` (all of them when there are fewer), so
the same seed and code draw the same mutants. ``--per-module 0`` runs every mutant.

    pip install '.[mutation]'   # mutmut, pinned
    nice -n 19 python bench/mutation.py                       # all modules, 40 mutants each
    nice -n 19 python bench/mutation.py --modules store --per-module 0   # one module, in full

Writes a markdown report (kill rate per module, then every survivor with its diff) to
``--out`` (bench/results/mutation.md by default), and the same results as JSON beside it. A
run of some modules keeps the other modules' results of an earlier run with the same sample
size and seed, so a module can be measured again after its tests change.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# mutmut's own script, not `python -m mutmut` (which makes mutmut import itself twice)
MUTMUT = shutil.which("mutmut", path=str(Path(sys.executable).parent)) or "mutmut"
MUTMUT_VERSION = "3.8.1"

RESOLUTION_TESTS = (
    "tests/test_raw_python.py",
    "tests/test_raw_inherits.py",
    "tests/test_raw_python_values.py",  # calls bound through values
    "tests/test_lang_go.py",
    "tests/test_lang_java.py",
    "tests/test_lang_javascript.py",
    "tests/test_lang_rust.py",
    "tests/test_lang_typescript.py",
)
COMMUNITY_TESTS = ("tests/test_communities.py",)
IDENTITY_TESTS = ("tests/test_communities_identity.py", *COMMUNITY_TESTS)
CLUSTER_TESTS = (
    "tests/test_communities_loose.py",
    "tests/test_communities_guards.py",  # the modularity guard, the 3% cap, the settings
    "tests/test_communities_placement.py",  # loose files, boundaries, locality on an update
    "tests/test_communities_packages.py",  # detected packages, code apart from docs and data
    *COMMUNITY_TESTS,
)
STORE_TESTS = (
    "tests/test_store.py",
    "tests/test_faults.py",
    "tests/test_config.py",  # the lock, waited on and given up
    "tests/test_hostile_cli.py",  # symlinks and files where .kg/'s folders should be
    "tests/test_raw_bad_input.py",
    "tests/test_raw_incremental.py",
)
POINTER_TESTS = ("tests/test_playbook_resolve.py", "tests/test_playbook_format.py")
DRIFT_TESTS = (
    "tests/test_ontology.py",
    "tests/test_ontology_offline.py",
    "tests/test_ontology_drift_report.py",
)
EVIDENCE_TESTS = ("tests/test_ontology_evidence.py", *DRIFT_TESTS)
MINER_TESTS = (
    "tests/test_mining_titles.py",
    "tests/test_mining_sweeps.py",
    "tests/test_mining_history.py",
    "tests/test_mining_evaluate.py",
    "tests/test_mining_proposals.py",
    "tests/test_mining_instances.py",  # which added files share a shape, read from layer 1
)

MINING_TESTS = (
    *MINER_TESTS,
    "tests/test_mining_kinds.py",
    "tests/test_mining_prs.py",
    "tests/test_mining_prose.py",
    "tests/test_mining_tasks.py",
    "tests/test_mining_paths.py",  # path abstraction: conventions, names, families
    "tests/test_mining_symbols.py",  # the symbols a task's changes touched
)
PR_TESTS = ("tests/test_ci.py", "tests/test_workflows.py", "tests/test_hostile_text.py")
HOOK_TESTS = ("tests/test_git_hooks.py", "tests/test_hooks.py", "tests/test_hostile_signals.py")
SKILL_TESTS = ("tests/test_skills_export.py",)
CONTEXT_TESTS = (
    "tests/test_context.py",
    "tests/test_context_ranking.py",
    "tests/test_query_words.py",
    "tests/test_query_agent_skills.py",
    "tests/test_query_history_index.py",
)
# Not tests/test_read_mcp.py: its client hands the server its stderr, which mutmut's runner
# has closed ("I/O operation on closed file"), and the first pass would fail.
READ_TESTS = (
    "tests/test_read_explain.py",
    "tests/test_read_impact.py",
    "tests/test_hostile_readers.py",
    "tests/test_read_mcp_in_process.py",  # the server in this process, its in-memory client
)
MAP_PAGE_TESTS = ("tests/test_map_page.py",)

# module name -> (the file mutated, the fast test files that cover it)
MODULES: dict[str, tuple[str, tuple[str, ...]]] = {
    "resolve": ("kgtool/raw/resolve.py", RESOLUTION_TESTS),
    # What resolve.py held until it was split by job: the symbol tables and the names.
    "index": ("kgtool/raw/index.py", RESOLUTION_TESTS),
    "names": ("kgtool/raw/names.py", RESOLUTION_TESTS),
    "identity": ("kgtool/communities/identity.py", IDENTITY_TESTS),
    "cluster": ("kgtool/communities/cluster.py", CLUSTER_TESTS),
    "store": ("kgtool/store.py", STORE_TESTS),
    "pointers": ("kgtool/playbook/resolve.py", POINTER_TESTS),
    "drift": ("kgtool/ontology/drift.py", DRIFT_TESTS),
    "evidence": ("kgtool/ontology/evidence.py", EVIDENCE_TESTS),
    # Every miner test: the kinds and tasks tests call patterns.py's grouping directly.
    "patterns": ("kgtool/mining/patterns.py", MINING_TESTS),
    "titles": ("kgtool/mining/titles.py", MINING_TESTS),
    # Where kgtool runs: the pull-request check, GitHub's formats, hooks, skill folders.
    "github": ("kgtool/integrations/github.py", PR_TESTS),
    "pr_check": ("kgtool/integrations/pr_check.py", PR_TESTS),
    "git_hooks": ("kgtool/integrations/git_hooks.py", HOOK_TESTS),
    "skills": ("kgtool/integrations/skills.py", SKILL_TESTS),
    # The read path.
    "context": ("kgtool/query/context.py", CONTEXT_TESTS),
    "bundle": ("kgtool/query/bundle.py", CONTEXT_TESTS),
    "agent_skills": ("kgtool/query/agent_skills.py", CONTEXT_TESTS),
    "content_index": ("kgtool/query/content_index.py", CONTEXT_TESTS),
    "history_index": ("kgtool/query/history_index.py", CONTEXT_TESTS),
    "lexical": ("kgtool/query/lexical.py", CONTEXT_TESTS),
    "rank": ("kgtool/query/rank.py", CONTEXT_TESTS),
    "words": ("kgtool/query/words.py", CONTEXT_TESTS),
    "labels": ("kgtool/query/labels.py", (*CONTEXT_TESTS, *READ_TESTS)),
    "kg": ("kgtool/query/kg.py", (*CONTEXT_TESTS, *READ_TESTS)),
    "layer_rows": ("kgtool/query/layer_rows.py", (*CONTEXT_TESTS, *READ_TESTS)),
    "impact": ("kgtool/query/impact.py", READ_TESTS),
    "explain": ("kgtool/query/explain.py", READ_TESTS),
    "server": ("kgtool/query/server.py", READ_TESTS),
    "query_playbooks": ("kgtool/query/playbooks.py", READ_TESTS),
    "map_page": ("kgtool/query/map_page.py", MAP_PAGE_TESTS),
    # The miner, beyond its patterns.
    "history": ("kgtool/mining/history.py", MINING_TESTS),
    "miner": ("kgtool/mining/miner.py", MINING_TESTS),
    "proposals": ("kgtool/mining/proposals.py", MINING_TESTS),
    "evaluate": ("kgtool/mining/evaluate.py", MINING_TESTS),
    "filters": ("kgtool/mining/filters.py", MINING_TESTS),
    "instances": ("kgtool/mining/instances.py", MINING_TESTS),
    "paths": ("kgtool/mining/paths.py", MINING_TESTS),
    "prose": ("kgtool/mining/prose.py", MINING_TESTS),
    "prs": ("kgtool/mining/prs.py", MINING_TESTS),
    "symbols": ("kgtool/mining/symbols.py", MINING_TESTS),
}

KILLED = "killed"
TIMEOUT = "timeout"
SURVIVED = "survived"
NO_TESTS = "no tests"
NOT_RUN = "not run"  # mutmut gave no exit code: the mutant was never tested
# mutmut's exit codes (mutmut/stats.py); anything else is reported as it is
STATUS_BY_EXIT_CODE = {1: KILLED, 3: KILLED, 0: SURVIVED, 5: NO_TESTS, 33: NO_TESTS}
TIMEOUT_CODES = {36, 24, -24, 152, 255}

# Tests that run kgtool as its own process (PYTHONPATH = the mutated copy) inherit mutmut's
# MUTANT_UNDER_TEST. Under "stats", mutmut's trampolines would record calls through a
# config read from the test repository's folder, and fail: such a process runs the original
# code instead (the functions it alone reaches count as reached by no test). Under a mutant's
# name it runs that mutant, as it should.
SITECUSTOMIZE = """import os
if os.environ.get("MUTANT_UNDER_TEST") == "stats":
    os.environ["MUTANT_UNDER_TEST"] = ""
"""

GENERATE = (
    "from pathlib import Path\n"
    "import mutmut.__main__ as m\n"
    "Path('mutants').mkdir(exist_ok=True)\n"
    "m.copy_src_dir(); m.copy_also_copy_files(); m.setup_source_paths(); m.create_mutants(1)\n"
)


@dataclass
class ModuleResult:
    name: str
    path: str
    tests: tuple[str, ...]
    generated: int
    status_by_mutant: dict[str, str] = field(default_factory=dict)
    diff_by_survivor: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0

    def count(self, *statuses: str) -> int:
        return sum(1 for status in self.status_by_mutant.values() if status in statuses)

    @classmethod
    def from_json(cls, data: dict) -> ModuleResult:
        return cls(**{**data, "tests": tuple(data["tests"])})

    @property
    def measured(self) -> int:
        """The sampled mutants whose tests ran: one mutmut never ran is no result."""
        return len(self.status_by_mutant) - self.count(NOT_RUN)

    @property
    def kill_rate(self) -> float | None:
        return self.count(KILLED, TIMEOUT) / self.measured if self.measured else None

    @property
    def rate_text(self) -> str:
        return "not run" if self.kill_rate is None else f"{self.kill_rate:.0%}"


def status_of(exit_code: int | None) -> str:
    if exit_code in TIMEOUT_CODES:
        return TIMEOUT
    if exit_code is None:
        return NOT_RUN
    return STATUS_BY_EXIT_CODE.get(exit_code, f"exit {exit_code}")


def copy_checkout(destination: Path) -> None:
    """The tracked and new (not ignored) files of this checkout, as they are on disk."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for relative in filter(None, listed.split("\0")):
        source = ROOT / relative
        if source.is_file():
            target = destination / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)


def mutmut_config(path: str, tests: tuple[str, ...]) -> str:
    top_level = sorted(
        {p.split("/")[0] for p in tests}
        | {"README.md", "action.yml", "hooks", "playbooks", ".github", "CHANGELOG.md"}
    )
    also_copy = [p for p in top_level if p != "tests"] + [
        ".pre-commit-hooks.yaml",
        ".kgtool.yaml",
        "sitecustomize.py",
    ]
    return (
        "\n[tool.mutmut]\n"
        'source_paths = ["kgtool"]\n'
        f"only_mutate = {json.dumps([path])}\n"
        f"also_copy = {json.dumps(also_copy)}\n"
        f"pytest_add_cli_args_test_selection = {json.dumps(list(tests))}\n"
        'pytest_add_cli_args = ["-p", "no:cacheprovider", "-p", "no:randomly"]\n'
    )


def mutant_names(work: Path, path: str) -> list[str]:
    meta = json.loads((work / "mutants" / f"{path}.meta").read_text())
    return sorted(meta["exit_code_by_key"])


def exit_codes(work: Path, path: str) -> dict[str, int | None]:
    return json.loads((work / "mutants" / f"{path}.meta").read_text())["exit_code_by_key"]


def run_module(
    name: str, workdir: Path, per_module: int, seed: int, jobs: int, log: Path
) -> ModuleResult:
    path, tests = MODULES[name]
    work = workdir / name
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    copy_checkout(work)
    (work / "sitecustomize.py").write_text(SITECUSTOMIZE)
    with (work / "pyproject.toml").open("a") as pyproject:
        pyproject.write(mutmut_config(path, tests))
    started = time.monotonic()
    with log.open("a") as out:
        out.write(f"\n===== {name}: {path}\n")
        out.flush()
        subprocess.run(
            [sys.executable, "-c", GENERATE], cwd=work, stdout=out, stderr=out, check=True
        )
        every = mutant_names(work, path)
        chosen = every
        if per_module and len(every) > per_module:
            chosen = sorted(random.Random(f"{seed}:{name}").sample(every, per_module))
        subprocess.run(
            [MUTMUT, "run", "--max-children", str(jobs), *chosen],
            cwd=work,
            stdout=out,
            stderr=out,
            check=False,
        )
    codes = exit_codes(work, path)
    result = ModuleResult(name, path, tests, len(every), seconds=time.monotonic() - started)
    result.status_by_mutant = {mutant: status_of(codes.get(mutant)) for mutant in chosen}
    for mutant, status in result.status_by_mutant.items():
        if status not in (KILLED, TIMEOUT):
            shown = subprocess.run(
                [MUTMUT, "show", mutant],
                cwd=work,
                capture_output=True,
                text=True,
                check=False,
            )
            result.diff_by_survivor[mutant] = shown.stdout.strip()
    return result


def report(results: list[ModuleResult], per_module: int, seed: int) -> str:
    sampling = f"{per_module} per module" if per_module else "every mutant"
    lines = [
        "# Mutation testing of kgtool's core modules",
        "",
        f"Written by `bench/mutation.py` (mutmut {MUTMUT_VERSION}; sample: {sampling}, "
        f"seed {seed}). Kill rate = (killed + timed out) / sampled; a mutant no mapped test "
        "reaches counts as a survivor.",
        "",
        "| module | file | mutants | sampled | killed | timeout | survived | no tests "
        "| kill rate | minutes |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        lines.append(
            f"| {r.name} | `{r.path}` | {r.generated} | {len(r.status_by_mutant)} "
            f"| {r.count(KILLED)} | {r.count(TIMEOUT)} | {r.count(SURVIVED)} "
            f"| {r.count(NO_TESTS)} | {r.rate_text} | {r.seconds / 60:.1f} |"
        )
    lines += ["", "Tests run per module:", ""]
    for r in results:
        lines.append(f"- {r.name}: {', '.join(f'`{t}`' for t in r.tests)}")
    lines += ["", "## Survivors", ""]
    for r in results:
        if not r.diff_by_survivor:
            continue
        lines += [f"### {r.name} (`{r.path}`)", ""]
        for mutant, diff in r.diff_by_survivor.items():
            lines += [
                f"`{mutant}` ({r.status_by_mutant[mutant]})",
                "",
                "```diff",
                *[line for line in diff.splitlines() if not line.startswith("# ")],
                "```",
                "",
            ]
    return "\n".join(lines).rstrip() + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--modules", nargs="+", choices=sorted(MODULES), default=list(MODULES))
    parser.add_argument("--per-module", type=int, default=40, help="0: every mutant")
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--jobs", type=int, default=2, help="mutants tested at once")
    parser.add_argument("--workdir", type=Path, help="kept afterwards (default: a temp folder)")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "mutation.md")
    args = parser.parse_args()
    if shutil.which(MUTMUT) is None:
        print(f"mutmut is not installed: pip install mutmut=={MUTMUT_VERSION}", file=sys.stderr)
        return 2
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="kgtool-mutation-"))
    workdir.mkdir(parents=True, exist_ok=True)
    log = workdir / "mutmut.log"
    saved = args.out.with_suffix(".json")
    by_name: dict[str, ModuleResult] = {}
    if saved.exists():
        earlier = json.loads(saved.read_text())
        if (earlier["per_module"], earlier["seed"]) == (args.per_module, args.seed):
            by_name = {r["name"]: ModuleResult.from_json(r) for r in earlier["modules"]}
    for name in args.modules:
        result = run_module(name, workdir, args.per_module, args.seed, args.jobs, log)
        by_name[name] = result
        print(
            f"{name}: {result.rate_text} of {result.measured} sampled and run "
            f"({result.generated} mutants) in {result.seconds / 60:.1f} min",
            flush=True,
        )
        results = [by_name[n] for n in MODULES if n in by_name]
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(report(results, args.per_module, args.seed))
        document = {
            "per_module": args.per_module,
            "seed": args.seed,
            "modules": [asdict(r) for r in results],
        }
        saved.write_text(json.dumps(document, indent=1, sort_keys=True) + "\n")
    print(f"report: {args.out}; mutmut's output: {log}")
    if not args.workdir:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
