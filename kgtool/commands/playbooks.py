"""``kgtool playbooks``: check, list, fix and start playbooks (layer 4)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from kgtool.commands import COMMANDS
from kgtool.commands._cli import EXIT_ERROR, EXIT_OK, command_parser, group_parser
from kgtool.commands._common import add_format_option, context
from kgtool.findings import json_document
from kgtool.integrations.skills import SKILLS_DIRS, export_skills, skills_folder
from kgtool.playbook.check import CheckReport, PlaybookReport, check_playbooks, playbooks_dir
from kgtool.playbook.fix import apply_fixes, plan_fixes
from kgtool.playbook.new import new_playbook

EXIT_REFUSED = 1


DESCRIPTION = """\
Layer 4: the playbooks in playbooks/*.md (and the miner's proposals in
playbooks/proposed/), each with the six fields intent, concepts, key_files, validation,
pitfalls and rollback. Every key file pointer is resolved against .kg/raw/ and the files
git tracks; a playbook with an error is refused. See `kgtool playbooks ACTION --help`."""

EXAMPLES = [
    ("kgtool playbooks check", "refuse playbooks whose pointers do not resolve"),
    ("kgtool playbooks list --json", "every playbook, its status and every pointer's outcome"),
    ("kgtool playbooks fix --dry-run", "show the certain renames it would apply"),
    ('kgtool playbooks new "add a language"', "a skeleton from the current change"),
]

EXIT_CODES = [
    (EXIT_OK, "done: every playbook accepted (check), nothing left to fix by hand (fix)"),
    (EXIT_REFUSED, "check: a playbook is refused; fix: problems remain for a person"),
    (EXIT_ERROR, "bad usage or settings; new: the file exists or the range selects nothing"),
]

EXPORT_DESCRIPTION = """\
Writes each executable playbook as an agent skill folder: .claude/skills/<name>/SKILL.md
(--to claude) or .agents/skills/<name>/SKILL.md (--to agents), YAML front matter with name
and description, then the playbook's steps, key files, validation, pitfalls and rollback, and
how to verify it (`kgtool playbooks check`). Refused playbooks are skipped and named. Only
folders kgtool wrote (they carry a marker line) are rewritten or removed; a skill of yours is
never touched. Byte-identical when nothing changed."""

EXPORT_EXAMPLES = [
    ("kgtool playbooks export --to claude", "skills for Claude Code"),
    ("kgtool playbooks export --to agents --out build/skills", "into another folder"),
]

CHECK_DESCRIPTION = """\
Checks every playbook: its front matter, and that each key file pointer resolves to exactly
one file or symbol (a missing one says what it probably became: a rename in git history, the
same symbol elsewhere, the nearest path). Reads the playbooks, .kg/raw/, the files git
tracks and, for suggestions, the history; writes nothing. Also part of `kgtool check`.
-q prints only problems and warnings (no summary line)."""

CHECK_EXAMPLES = [
    ("kgtool playbooks check", "each problem as file:line, then a summary"),
    ("kgtool playbooks check -q -C ../other", "another repository, only problems"),
]

CHECK_EXIT_CODES = [
    (EXIT_OK, "every playbook accepted (warnings allowed)"),
    (EXIT_REFUSED, "a playbook is refused"),
]

LIST_DESCRIPTION = """\
Lists every playbook with its status and whether it is executable (active and not refused:
an agent may act on it alone). --json adds every pointer's outcome, node, candidates and
suggestion. Reads as `kgtool playbooks check` does; writes nothing."""

LIST_EXAMPLES = [
    ("kgtool playbooks list", "one line per playbook"),
    ("kgtool playbooks list --json | jq '.playbooks[].slug'", "for scripts"),
]

FIX_DESCRIPTION = """\
Rewrites the key file pointers whose rename is certain (a single chain of git renames),
changing only that value in playbooks/*.md, and prints a unified diff of each change. What it
cannot decide is listed for a person. Reads as `kgtool playbooks check` does; writes only the
playbooks it fixes (nothing with --dry-run). -q prints only what is left for a person."""

FIX_EXAMPLES = [
    ("kgtool playbooks fix --dry-run", "show the diff, write nothing"),
    ("kgtool playbooks fix", "apply it"),
]

FIX_EXIT_CODES = [
    (EXIT_OK, "nothing is left to fix by hand"),
    (EXIT_REFUSED, "problems remain that need a person"),
]

NEW_DESCRIPTION = """\
Writes playbooks/<slug>.md, a skeleton with the six fields: key files and concepts are taken
from the current change (staged and unstaged) or from --from (A..B, A...B, or one commit); a
file renamed since is listed under its new path, and a file left out is named with the
reason. Its status is proposed, with TODOs to fill in. Reads the change, .kg/ and the
history; writes only the new playbook (nothing with --dry-run)."""

NEW_EXAMPLES = [
    ('kgtool playbooks new "add a language"', "from the change in the working tree"),
    ('kgtool playbooks new "add a command" --from HEAD~3..HEAD', "from three commits"),
    ('kgtool playbooks new "rename a field" --dry-run', "print the skeleton, write nothing"),
]

NEW_EXIT_CODES = [
    (EXIT_OK, "written (or printed, with --dry-run)"),
    (EXIT_ERROR, "bad usage or input: the file exists, the range selects no commits, ..."),
]


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The ``playbooks`` command and its actions (check, list, fix, new, export, ...).

    Long because it declares every action's parser, options and help in one place, as the
    other commands do; no logic runs here."""
    parser = group_parser(
        subparsers,
        "playbooks",
        COMMANDS["playbooks"],
        DESCRIPTION,
        EXAMPLES,
        EXIT_CODES,
        locks=False,
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)

    check = command_parser(
        actions,
        "check",
        "refuse playbooks whose pointers do not resolve",
        CHECK_DESCRIPTION,
        CHECK_EXAMPLES,
        CHECK_EXIT_CODES,
        locks=False,
    )
    add_format_option(check)
    check.set_defaults(run=run_check)

    listing = command_parser(
        actions,
        "list",
        "every playbook, its status, whether executable",
        LIST_DESCRIPTION,
        LIST_EXAMPLES,
        [(EXIT_OK, "listed")],
        locks=False,
    )
    listing.add_argument("--json", action="store_true", help="machine-readable output")
    listing.set_defaults(run=run_list)

    fix = command_parser(
        actions,
        "fix",
        "apply certain renames to pointers; show the diff",
        FIX_DESCRIPTION,
        FIX_EXAMPLES,
        FIX_EXIT_CODES,
        locks=False,
    )
    fix.add_argument("--dry-run", action="store_true", help="show the diff, write nothing")
    fix.set_defaults(run=run_fix)

    new = command_parser(
        actions,
        "new",
        "write a skeleton playbook from a change",
        NEW_DESCRIPTION,
        NEW_EXAMPLES,
        NEW_EXIT_CODES,
        locks=False,
    )
    new.add_argument("intent", help="what the user is trying to accomplish, in their words")
    new.add_argument(
        "--from",
        dest="rev_range",
        metavar="REV_RANGE",
        help="take files from these commits (A..B, or one commit) instead of the current change",
    )
    new.add_argument("--slug", help="file name without .md (default: from the intent)")
    new.add_argument("--dry-run", action="store_true", help="print the skeleton, write nothing")
    new.set_defaults(run=run_new)

    export = command_parser(
        actions,
        "export",
        "write each executable playbook as an agent skill folder (SKILL.md)",
        EXPORT_DESCRIPTION,
        EXPORT_EXAMPLES,
        [(EXIT_OK, "exported (refused playbooks are skipped and named, not an error)")],
        locks=False,
    )
    export.add_argument(
        "--to",
        choices=sorted(SKILLS_DIRS),
        required=True,
        help="claude: .claude/skills/<name>/SKILL.md; agents: .agents/skills/<name>/SKILL.md",
    )
    export.add_argument(
        "--out",
        metavar="DIR",
        help="the skills folder to write instead (relative to the repository root, inside "
        "it and outside .git/ and .kg/)",
    )
    export.set_defaults(run=run_export)


def run_check(args: argparse.Namespace) -> int:
    ctx = context(args)
    report = check_playbooks(ctx.root, ctx.config, ctx.store)
    if args.format == "json":
        print(_check_json(report), end="")
    elif not report.playbooks:
        if not args.quiet:
            print(f"no playbooks in {playbooks_dir(ctx.config)}/")
    else:
        for finding in report.findings():
            print(finding.format())
        if not args.quiet:
            print(report.summary())
    return EXIT_OK if report.ok else EXIT_REFUSED


def _check_json(report: CheckReport) -> str:
    return json_document(
        "playbooks check",
        report.ok,
        report.findings(),
        playbooks=len(report.playbooks),
        executable=sum(r.executable for r in report.playbooks),
        refused=sorted(r.playbook.slug for r in report.playbooks if r.refused),
    )


def _as_json(report: PlaybookReport) -> dict[str, Any]:
    playbook = report.playbook
    return {
        "slug": playbook.slug,
        "path": playbook.path,
        "status": playbook.status,
        "title": playbook.title,
        "intent": playbook.intent,
        "executable": report.executable,
        "refused": report.refused,
        "evidence": playbook.evidence,
        "concepts": [
            {
                "concept": c.scalar.value,
                "line": c.scalar.line,
                "community": c.community or None,
                "stale": c.stale or None,
            }
            for c in report.concepts
        ],
        "key_files": [
            {
                "pointer": p.scalar.value,
                "line": p.scalar.line,
                "outcome": p.resolution.outcome,
                "node": p.resolution.target or None,
                "candidates": list(p.resolution.candidates),
                "reason": p.resolution.reason or None,
                "suggestion": p.suggestion.text if p.suggestion else None,
            }
            for p in report.pointers
        ],
        "problems": [
            {"line": p.line, "severity": p.level, "code": p.code, "message": p.message}
            for p in report.problems
        ],
    }


def run_list(args: argparse.Namespace) -> int:
    ctx = context(args)
    report = check_playbooks(ctx.root, ctx.config, ctx.store)
    if args.json:
        document = {
            "playbooks": [_as_json(r) for r in report.playbooks],
            "warnings": [note.format() for note in report.notes],
        }
        # Dates and other YAML scalars in 'evidence' are not JSON: spell them as text.
        print(json.dumps(document, indent=2, ensure_ascii=False, default=str))
        return 0
    if not report.playbooks:
        print(f"no playbooks in {playbooks_dir(ctx.config)}/")
        return 0
    width = max(len(r.playbook.slug) for r in report.playbooks)
    for r in report.playbooks:
        verdict = "executable" if r.executable else "refused" if r.refused else "not executable"
        about = r.playbook.title or r.playbook.intent or r.playbook.path
        print(f"{r.playbook.slug:<{width}}  {r.playbook.status:<8}  {verdict:<14}  {about}")
    print(report.summary())
    return 0


def run_fix(args: argparse.Namespace) -> int:
    ctx = context(args)
    report = check_playbooks(ctx.root, ctx.config, ctx.store)
    result = plan_fixes(ctx.root, report)
    if not args.quiet:
        for fix in result.fixes:
            print(fix.diff(), end="")
    if not args.dry_run:
        apply_fixes(ctx.root, result)
    for skipped in result.skipped:
        print(f"not fixed: {skipped}")
    renamed = sum(len(f.renames) for f in result.fixes)
    verb = "would rewrite" if args.dry_run else "rewrote"
    if not args.quiet:
        print(f"{verb} {renamed} pointer{'s' * (renamed != 1)} in {len(result.fixes)} playbook(s)")
    # What is left is what a person must decide: count it as the check would.
    # A flow list can hold two pointers on one line: match the pointer, not just the line.
    fixed = {
        (f.path, line, f"key file '{old}' ") for f in result.fixes for line, old, _ in f.renames
    }
    left = [
        p
        for r in report.playbooks
        for p in r.errors
        if not any(
            (p.path, p.line) == (path, line) and p.message.startswith(head)
            for path, line, head in fixed
        )
    ]
    for problem in left:
        print(problem.format())
    if left:
        print(f"{len(left)} problem(s) left for a person: see `kgtool playbooks check`")
    return EXIT_REFUSED if left else 0


def run_export(args: argparse.Namespace) -> int:
    ctx = context(args)
    skills_dir = skills_folder(ctx.root, args.out or SKILLS_DIRS[args.to])
    report = check_playbooks(ctx.root, ctx.config, ctx.store)
    result = export_skills(ctx.root, report.playbooks, skills_dir)
    for path in result.written:
        print(f"wrote {path}")
    for folder in result.removed:
        print(f"removed {folder} (its playbook is no longer executable, or is gone)")
    for line in result.skipped:
        print(f"skipped {line}")
    exported = len(result.written) + len(result.unchanged)
    print(
        f"{exported} skill(s) exported ({len(result.written)} written, "
        f"{len(result.unchanged)} unchanged), {len(result.skipped)} playbook(s) skipped"
    )
    return EXIT_OK


def run_new(args: argparse.Namespace) -> int:
    ctx = context(args)
    created, text = new_playbook(
        ctx.root, ctx.config, ctx.store, args.intent, args.rev_range, args.slug, args.dry_run
    )
    if args.dry_run:
        print(text, end="")
        return EXIT_OK
    if not args.quiet:
        print(
            f"wrote {created.path}: {len(created.key_files)} key files, "
            f"{len(created.concepts)} concepts; fill in the TODOs, then set status: active"
        )
    for note in created.notes:  # files left out, and why: what the user must know
        print(f"  {note}")
    return EXIT_OK
