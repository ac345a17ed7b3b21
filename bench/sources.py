"""Where a benchmark finds a public repository: a local mirror when one is at hand, else
GitHub. Never a folder of one machine.

``KGTOOL_BENCH_MIRRORS`` names a folder of mirrors, one per repository, at
``<owner>+<name>/repo`` or ``<owner>+<name>`` (a bare or a full clone); a repository with no
mirror there, or every one when the variable is unset, is cloned from GitHub.
"""

from __future__ import annotations

import os
from pathlib import Path

MIRRORS_ENV = "KGTOOL_BENCH_MIRRORS"


def source_of(repo: str) -> str:
    """``owner/name`` as a path or URL ``git clone`` takes."""
    mirrors = os.environ.get(MIRRORS_ENV, "")
    if mirrors:
        folder = Path(mirrors) / repo.replace("/", "+")
        for candidate in (folder / "repo", folder):
            if (candidate / "HEAD").is_file() or (candidate / ".git").exists():
                return str(candidate)
    return f"https://github.com/{repo}"
