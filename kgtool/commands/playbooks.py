"""``kgtool playbooks``: check, list, fix and start playbooks (layer 4).

Exit codes: 0 when every playbook is accepted, 1 when one is refused (``check``; ``fix`` when
a problem remains that it could not fix), 2 for bad usage or settings.
"""

from __future__ import annotations

import argparse
import json

from kgtool.commands._common import add_format_option, context
from kgtool.findings import json_document
from kgtool.integrations.skills import SKILLS_DIRS, export_skills
from kgtool.playbook.check import CheckReport, PlaybookReport, check_playbooks, playbooks_dir
from kgtool.playbook.fix import apply_fixes, plan_fixes
from kgtool.playbook.new import new_playbook

EXIT_REFUSED = 1


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("playbooks", help="check, list, fix or start playbooks")
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)

    check = actions.add_parser("check", help="refuse playbooks whose pointers do not resolve")
    add_format_option(check)
    check.set_defaults(run=run_check)

    listing = actions.add_parser("list", help="every playbook, its status, whether executable")
    listing.add_argument("--json", action="store_true", help="machine-readable output")
    listing.set_defaults(run=run_list)

    fix = actions.add_parser("fix", help="apply certain renames to pointers; show the diff")
    fix.add_argument("--dry-run", action="store_true", help="show the diff, write nothing")
    fix.set_defaults(run=run_fix)

    new = actions.add_parser("new", help="write a skeleton playbook from a change")
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

    export = actions.add_parser(
        "export", help="write each executable playbook as an agent skill folder (SKILL.md)"
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
        help="the skills folder to write instead (relative to the repository root)",
    )
    export.set_defaults(run=run_export)


def run_check(args: argparse.Namespace) -> int:
    ctx = context(args)
    report = check_playbooks(ctx.root, ctx.config, ctx.store)
    if args.format == "json":
        print(_check_json(report), end="")
    elif not report.playbooks:
        print(f"no playbooks in {playbooks_dir(ctx.config)}/")
    else:
        for finding in report.findings():
            print(finding.format())
        print(report.summary())
    return 0 if report.ok else EXIT_REFUSED


def _check_json(report: CheckReport) -> str:
    return json_document(
        "playbooks check",
        report.ok,
        report.findings(),
        playbooks=len(report.playbooks),
        executable=sum(r.executable for r in report.playbooks),
        refused=sorted(r.playbook.slug for r in report.playbooks if r.refused),
    )


def _as_json(report: PlaybookReport) -> dict:
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
    for fix in result.fixes:
        print(fix.diff(), end="")
    if not args.dry_run:
        apply_fixes(ctx.root, result)
    for skipped in result.skipped:
        print(f"not fixed: {skipped}")
    renamed = sum(len(f.renames) for f in result.fixes)
    verb = "would rewrite" if args.dry_run else "rewrote"
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
    report = check_playbooks(ctx.root, ctx.config, ctx.store)
    skills_dir = ctx.root / (args.out or SKILLS_DIRS[args.to])
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
    return 0


def run_new(args: argparse.Namespace) -> int:
    ctx = context(args)
    created, text = new_playbook(
        ctx.root, ctx.config, ctx.store, args.intent, args.rev_range, args.slug, args.dry_run
    )
    if args.dry_run:
        print(text, end="")
        return 0
    print(
        f"wrote {created.path}: {len(created.key_files)} key files, "
        f"{len(created.concepts)} concepts; fill in the TODOs, then set status: active"
    )
    for note in created.notes:
        print(f"  {note}")
    return 0
