"""What a missing pointer probably became: a rename in git history, the same symbol in another
file, or the nearest existing path. Only a chain of plain renames is certain enough for
``kgtool playbooks fix`` to apply.

History is read once per run, and only when some pointer is missing: the common path (every
pointer resolves) never runs git beyond ``ls-files``. Renames, paths and symbols are indexed once
per run, so a missing pointer costs a few lookups; only the nearest path or symbol compares it
with every name, and those searches share one budget per run (``NEAREST_BUDGET``): a pull
request that commits 60,000 missing pointers gets each named, and the nearest names of the
first ones.
"""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import NamedTuple

from kgtool.errors import KgError
from kgtool.findings import NOTE, Finding
from kgtool.playbook.layer1 import Layer1, SymbolIndex
from kgtool.playbook.resolve import Resolution, SuffixIndex, split_pointer
from kgtool.repo import PathChange, is_shallow, path_changes

SHORT = 7
MAX_SHOWN = 3
# Names compared by the nearest-path and nearest-symbol searches in one run (difflib, ~10 µs a
# name): about a second whatever the repository's size or the number of missing pointers. A
# few hundred missing pointers in a repository of a few hundred files are all searched.
NEAREST_BUDGET = 100_000
UNSEARCHED = "P443"


class Suggestion(NamedTuple):
    text: str  # "it was renamed to src/cli/args.ts in 1a2b3c4"
    replacement: str = ""  # the pointer to write instead; only when certain


class _Step(NamedTuple):
    change: PathChange
    order: int  # position in history, oldest first


def _when(change: PathChange) -> str:
    return f"in {change.commit[:SHORT]}" if change.commit else "in the working tree (uncommitted)"


class Suggester:
    def __init__(self, view: Layer1, root: Path, max_commits: int, since: str = "") -> None:
        """``since``: a commit; only what happened to paths after it is followed."""
        self.view = view
        self.root = root
        self.max_commits = max_commits
        self.since = since
        self._by_source: dict[str, list[_Step]] | None = None
        self._sources: SuffixIndex | None = None
        self._history_error = ""  # why history could not be read, when it could not
        self._shallow: bool | None = None
        self._symbols: SymbolIndex | None = None
        self._files: SuffixIndex | None = None
        self._made: dict[tuple[str, str], Suggestion] = {}
        self.budget = NEAREST_BUDGET  # names the nearest searches may still compare
        self.searched = 0  # missing pointers given a nearest search
        self.unsearched = 0  # and those left without one: the budget was spent
        self._skipped = False  # the pointer being suggested for was refused a search
        self._sorted_files: list[str] | None = None

    @property
    def by_source(self) -> dict[str, list[_Step]]:
        if self._by_source is None:
            self._by_source = {}
            try:
                changes = path_changes(self.root, self.max_commits, self.since)
            except KgError as error:
                # A missing object (a partial clone whose remote is gone, a damaged
                # repository): renames are an extra, the verdict does not depend on them.
                lines = [line for line in str(error).splitlines() if line.strip()]
                self._history_error = lines[-1] if lines else str(error)
                changes = []
            for order, change in enumerate(changes):
                self._by_source.setdefault(change.old_path, []).append(_Step(change, order))
        return self._by_source

    @property
    def sources(self) -> SuffixIndex:
        """Every path history renamed or deleted, by its suffixes."""
        if self._sources is None:
            self._sources = SuffixIndex(self.by_source)
        return self._sources

    @property
    def shallow(self) -> bool:
        if self._shallow is None:
            self._shallow = is_shallow(self.root)
        return self._shallow

    def note(self, where: str) -> Finding | None:
        """One line for the run when missing pointers were left without a nearest search."""
        if not self.unsearched:
            return None
        return Finding(
            where,
            0,
            NOTE,
            UNSEARCHED,
            f"{self.unsearched} more missing key file{'s' * (self.unsearched != 1)} "
            "got no nearest path or symbol: the first "
            f"{self.searched} used up the search budget ({NEAREST_BUDGET:,} names compared); "
            "renames and symbols that moved are still named",
        )

    def _spend(self, names: int) -> bool:
        """Whether a nearest search over ``names`` names may run (the budget is not spent)."""
        if self.budget <= 0:
            self._skipped = True
            return False
        self.budget -= names
        return True

    def suggest(self, resolution: Resolution) -> Suggestion:
        key = (resolution.pointer, resolution.path)
        made = self._made.get(key)
        if made is None:
            budget = self.budget
            self._skipped = False
            made = self._made[key] = self._suggest(resolution)
            self.searched += self.budget < budget
            self.unsearched += self._skipped
        return made

    def _suggest(self, resolution: Resolution) -> Suggestion:
        path, symbol = resolution.written_path, resolution.symbol
        if not resolution.path and not path:
            path, symbol = split_pointer(resolution.pointer)
        hints: list[str] = []
        if resolution.path:  # the file is there; the symbol is not
            moved = self._symbol_elsewhere(symbol, exclude=resolution.path)
            if moved:
                hints.append(moved)
            near = self._near_symbol(resolution.path, symbol)
            if near:
                hints.append(near)
            return Suggestion("; ".join(hints) or "no symbol of that name is known anywhere")

        renamed = self._history(path)
        if renamed is not None:
            text, final, certain = renamed
            if final and symbol:
                if symbol in self.view.symbols(final):
                    return Suggestion(text, f"{final}::{symbol}" if certain else "")
                hints.append(f"{text}, but {final} defines no '{symbol}'")
            elif final:
                return Suggestion(text, final if certain else "")
            else:
                hints.append(text)
        if symbol:
            moved = self._symbol_elsewhere(symbol)
            if moved:
                hints.append(moved)
        near = self._near_path(path)
        if near:
            hints.append(near)
        if renamed is None and self._history_error:
            hints.insert(
                0,
                f"git history could not be read, so no rename is suggested ({self._history_error})",
            )
        elif renamed is None:
            hint = "no file by that name in git history"
            if self.shallow:
                hint += " (a shallow clone: older history is not here)"
            hints.insert(0, hint)
        return Suggestion("; ".join(hints))

    def _history(self, path: str) -> tuple[str, str, bool] | None:
        """(message, final path if it exists now, certain) for the renames of ``path``."""
        sources = [path] if path in self.by_source else self.sources.ending_with(path)
        if not sources:
            return None
        if len(sources) > 1:
            shown = ", ".join(sources[:MAX_SHOWN])
            more = f" and {len(sources) - MAX_SHOWN} more" if len(sources) > MAX_SHOWN else ""
            return f"several files of that name were renamed or deleted: {shown}{more}", "", False
        return self._follow(sources[0])

    def chain(self, path: str) -> tuple[list[PathChange], bool]:
        """What happened to ``path``, in order: renames, each from where the last left it,
        ending where it is now or in a deletion; and whether that reading is certain."""
        steps: list[PathChange] = []
        certain = True
        after = -1
        current = path
        while True:
            later = [s for s in self.by_source.get(current, []) if s.order > after]
            if not later:
                break
            # The same path renamed twice (re-created in between) leaves its meaning open:
            # follow the latest, but never call it certain.
            if len(later) > 1:
                certain = False
            step = later[-1] if len(later) > 1 else later[0]
            steps.append(step.change)
            after = step.order
            if step.change.status != "R":
                break
            current = step.change.new_path
        return steps, certain

    def _follow(self, path: str) -> tuple[str, str, bool]:
        steps, certain = self.chain(path)
        last = steps[-1]
        via = ""
        if len(steps) > 1:
            middle = [f"{c.new_path} {_when(c)}" for c in steps[:-1] if c.status == "R"]
            via = f" (by way of {', '.join(middle)})" if middle else ""
        if last.status == "D":
            if len(steps) > 1:
                prior = steps[-2]
                return (
                    f"it was renamed to {prior.new_path} {_when(prior)}, "
                    f"which was deleted {_when(last)}",
                    "",
                    False,
                )
            return f"it was deleted {_when(last)}", "", False
        final = last.new_path
        if final in self.view.files:
            return f"it was renamed to {final} {_when(last)}{via}", final, certain
        return (
            f"it was renamed to {final} {_when(last)}{via}, which is not in the graph now",
            "",
            False,
        )

    def _symbol_elsewhere(self, symbol: str, exclude: str = "") -> str:
        if not symbol:
            return ""
        if self._symbols is None:
            self._symbols = self.view.symbol_index()
        found, count = self._symbols.elsewhere(symbol, exclude, MAX_SHOWN)
        if not count:
            short = symbol.rsplit(".", 1)[-1]
            found, count = self._symbols.elsewhere(short, exclude, MAX_SHOWN)
        if not count:
            return ""
        more = f" and {count - MAX_SHOWN} more" if count > MAX_SHOWN else ""
        return f"'{symbol}' is now defined as {', '.join(found)}{more}"

    def _near_symbol(self, path: str, symbol: str) -> str:
        names = list(self.view.symbols(path))
        if not self._spend(len(names)):
            return ""
        close = difflib.get_close_matches(symbol, names, MAX_SHOWN, 0.6)
        return f"nearest in {path}: {', '.join(close)}" if close else ""

    def _near_path(self, path: str) -> str:
        if self._files is None:
            self._files = SuffixIndex(self.view.files)
        by_name = self._files.names
        if "/" in path:
            if self._sorted_files is None:
                self._sorted_files = sorted(self.view.files)
            files = self._sorted_files
            if not self._spend(len(files)):
                return ""
            close = difflib.get_close_matches(path, files, MAX_SHOWN, 0.6)
        else:
            if not self._spend(len(by_name)):
                return ""
            names = difflib.get_close_matches(path, list(by_name), MAX_SHOWN, 0.6)
            close = [f for name in names for f in by_name[name]][:MAX_SHOWN]
        return f"nearest existing path: {', '.join(close)}" if close else ""
