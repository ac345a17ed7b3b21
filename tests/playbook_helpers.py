"""Writing playbooks in tests: the six fields filled, the pointers chosen by the test."""

from __future__ import annotations

from conftest import Repo


def playbook_text(
    key_files: list[str],
    concepts: list[str] | None = None,
    status: str | None = None,
    extra: str = "",
) -> str:
    lines = ["---", "intent: change the thing"]
    if status:
        lines.append(f"status: {status}")
    lines.append("concepts: [" + ", ".join(concepts or []) + "]")
    lines.append("key_files:")
    lines += [f"  - {pointer}" for pointer in key_files]
    lines += [
        "validation: pytest",
        "pitfalls:",
        "  - forgetting the tests",
        "rollback: nothing breaks",
    ]
    if extra:
        lines.append(extra)
    lines += ["---", "", "# Steps", "", "Edit `args.ts` first.", ""]
    return "\n".join(lines)


def add_playbook(repo: Repo, slug: str, key_files: list[str], **kwargs: object) -> str:
    path = f"playbooks/{slug}.md"
    repo.write(path, playbook_text(key_files, **kwargs), dedent=False)  # type: ignore[arg-type]
    return path


def line_of(repo: Repo, path: str, needle: str) -> int:
    lines = (repo.root / path).read_text().splitlines()
    return next(number for number, line in enumerate(lines, 1) if needle in line)
