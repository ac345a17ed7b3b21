"""aider's repository map of a checkout, for a task, at several budgets: the second baseline of
bench/context_eval.py.

    "$KGTOOL_BENCH_AIDER_PYTHON" bench/aider_map.py < request.json > maps.json

Run by the python of a virtual environment holding aider-chat==0.86.2 (kept apart so that aider
and its pins stay out of kgtool's environment); it imports nothing of kgtool. The request on
stdin is one JSON object:

    {"root": "/abs/checkout", "task": "plain words", "files": ["a.py", ...],
     "budgets": [4000, 12000, 32000]}

``files`` are the checkout's tracked code files (paths relative to ``root``), all given to
aider as files outside the chat. The task's words are its mentioned identifiers, and a file
whose name (with or without its suffix) is one of those words is a mentioned file, as aider's
own chat would pass them. Budgets are counted in characters, as the rest of the bench counts
them: the token counter is a stand-in that counts characters (aider needs no model), the map
is asked for 87% of the budget (aider keeps a map up to 15% over what it was asked for), and
the text is cut at the last whole line within the budget. Prints {"<budget>": map text}.
aider keeps its tags cache (.aider.tags.cache.v4/) in ``root``: a second run is quicker. Run it
with PYTHONHASHSEED=0: aider walks sets of strings while it ranks, and with a random seed the
same request gave one of two maps (cobra, five runs).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sys
from typing import Any

ASKED_SHARE = 0.87  # of the budget: aider accepts a map up to 15% over what it was asked for


class CharacterModel:
    """What RepoMap asks of a model: a token count, here the text's characters."""

    def token_count(self, text: str) -> int:
        return len(text)


class QuietIO:
    """What RepoMap asks of aider's terminal: files read as text, messages to stderr."""

    def read_text(self, filename: str, silent: bool = False) -> str | None:
        try:
            with open(filename, encoding="utf-8", errors="replace") as handle:
                return handle.read()
        except OSError:
            return None

    def tool_output(self, *messages: Any, **_: Any) -> None:
        pass

    def tool_warning(self, message: str = "", **_: Any) -> None:
        print(f"aider: {message}", file=sys.stderr)

    def tool_error(self, message: str = "", **_: Any) -> None:
        print(f"aider: {message}", file=sys.stderr)


def cut(text: str, budget: int) -> str:
    """``text`` up to its last whole line within ``budget`` characters."""
    if len(text) <= budget:
        return text
    head = text[:budget]
    return head[: head.rfind("\n") + 1]


def mentioned_files(files: list[str], words: set[str]) -> set[str]:
    lowered = {w.lower() for w in words}
    return {
        path
        for path in files
        if os.path.basename(path).lower() in lowered
        or os.path.splitext(os.path.basename(path))[0].lower() in lowered
    }


def maps(root: str, task: str, files: list[str], budgets: list[int]) -> dict[str, str]:
    from aider.repomap import RepoMap

    words = {w for w in re.split(r"\W+", task) if w}
    absolute = [os.path.join(root, path) for path in files]
    mentioned = mentioned_files(files, words)
    out = {}
    for budget in budgets:
        repo_map = RepoMap(
            map_tokens=int(budget * ASKED_SHARE),
            root=root,
            main_model=CharacterModel(),
            io=QuietIO(),
            max_context_window=None,
        )
        text = repo_map.get_repo_map([], absolute, mentioned, words) or ""
        out[str(budget)] = cut(text, budget)
    return out


def main() -> int:
    request = json.load(sys.stdin)
    # aider's spinner and progress bars must not mix with the answer on stdout.
    with contextlib.redirect_stdout(sys.stderr):
        answer = maps(request["root"], request["task"], request["files"], request["budgets"])
    json.dump(answer, sys.stdout, sort_keys=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
