"""The one error type kgtool reports to users: a message, and where the problem is."""

from __future__ import annotations


class KgError(Exception):
    """A problem the user can fix; printed as one line, exit code ``exit_code``."""

    exit_code = 2

    def __init__(self, message: str, path: str | None = None, line: int | None = None) -> None:
        self.message = message
        self.path = path
        self.line = line
        super().__init__(str(self))

    def __str__(self) -> str:
        if self.path and self.line:
            return f"{self.path}:{self.line}: {self.message}"
        if self.path:
            return f"{self.path}: {self.message}"
        return self.message


class LockTimeout(KgError):
    exit_code = 3
