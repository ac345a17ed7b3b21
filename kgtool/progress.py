"""Progress on a terminal: one line on stderr (``parsing 1234/5000 files``), rewritten in place.

Drawn only when the command line allows it (not ``-q``: :func:`show_on_terminal`) and
stderr is a terminal; a hook, a CI log or a pipe gets nothing. Redraws are throttled, and the
line is wiped when the work ends, so what the command prints afterwards starts on a clean
line. No colour, no cursor codes: a carriage return and spaces work on every terminal.
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Iterator

REDRAW_EVERY = 0.1  # seconds: at most 10 redraws a second

_shown = False  # set by the command line; off for library callers
_width = 0  # characters of the line on screen now, to wipe


def show_on_terminal(allowed: bool) -> None:
    """Whether progress may be drawn (when stderr is a terminal); wipes any line left."""
    global _shown
    clear()
    _shown = allowed


def _visible() -> bool:
    try:
        return _shown and sys.stderr.isatty()
    except (AttributeError, ValueError):  # a closed or stand-in stream
        return False


def draw(text: str) -> None:
    """Replace the progress line with ``text`` (unthrottled: callers throttle)."""
    global _width
    if not _visible():
        return
    columns = _columns()
    text = text[: columns - 1]
    sys.stderr.write("\r" + text + " " * max(0, _width - len(text)))
    sys.stderr.flush()
    _width = len(text)


def clear() -> None:
    global _width
    if _width and _visible():
        sys.stderr.write("\r" + " " * _width + "\r")
        sys.stderr.flush()
    _width = 0


def _columns() -> int:
    import shutil

    return shutil.get_terminal_size((80, 24)).columns


class Counter:
    """``what done/total unit``, redrawn at most every :data:`REDRAW_EVERY` seconds."""

    def __init__(self, what: str, total: int, unit: str) -> None:
        self.what, self.total, self.unit = what, total, unit
        self.done = 0
        self._drawn_at = 0.0
        if total:  # nothing to do is not worth a flicker
            self._draw()

    def advance(self, count: int = 1) -> None:
        self.done += count
        if self.total and time.monotonic() - self._drawn_at >= REDRAW_EVERY:
            self._draw()

    def _draw(self) -> None:
        self._drawn_at = time.monotonic()
        draw(f"{self.what} {self.done}/{self.total} {self.unit}")


@contextlib.contextmanager
def counting(what: str, total: int, unit: str = "files") -> Iterator[Counter]:
    """A counter on the progress line for the duration of the block; wiped after it."""
    counter = Counter(what, total, unit)
    try:
        yield counter
    finally:
        clear()


@contextlib.contextmanager
def status(text: str) -> Iterator[None]:
    """``text`` on the progress line while one long step runs (one that cannot count)."""
    draw(text)
    try:
        yield
    finally:
        clear()
