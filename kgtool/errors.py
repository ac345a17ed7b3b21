"""The error types kgtool reports to users: a message, and where the problem is."""

from __future__ import annotations

from kgtool.escape import printable
from kgtool.findings import ERROR, Finding


class KgError(Exception):
    """A problem the user can fix; printed as one line, exit code ``exit_code``.

    ``code`` is the finding code it stands for when a check reports it instead of stopping
    (a check that cannot read its input fails, and the others still run).
    """

    exit_code = 2

    def __init__(
        self, message: str, path: str | None = None, line: int | None = None, code: str = ""
    ) -> None:
        self.message = message
        self.path = path
        self.line = line
        self.code = code
        super().__init__(str(self))

    def __str__(self) -> str:
        if self.path and self.line:
            return f"{self.path}:{self.line}: {self.message}"
        if self.path:
            return f"{self.path}: {self.message}"
        return self.message

    def finding(self, code: str) -> Finding:
        """This error as a check's finding; ``code`` unless the error names its own."""
        return Finding(self.path or "", self.line or 0, ERROR, self.code or code, self.message)

    def report_lines(self) -> list[str]:
        """What the command line prints for it, on stderr: one line, whatever a path or a
        name the repository chose holds (a newline, a terminal's escape sequence), as a
        finding's."""
        return [f"kgtool: error: {printable(str(self))}"]


class ManyErrors(KgError):
    """Several problems found together (every bad setting of a file, not only the first),
    printed one finding a line."""

    def __init__(self, findings: list[Finding]) -> None:
        self.findings = findings
        first = findings[0]
        super().__init__(first.message, first.path, first.line, first.code)

    def __str__(self) -> str:
        return "\n".join(f.format() for f in self.findings)

    def report_lines(self) -> list[str]:
        return [f.format() for f in self.findings]


class LockTimeout(KgError):
    exit_code = 3


def extra_install(extra: str) -> str:
    """How a user adds one of kgtool's optional extras, said the same wherever one is missing:
    from kgtool's own repository or checkout, never by name from PyPI, where a package
    called kgtool is another project's."""
    return (
        f'pip install "kgtool[{extra}] @ git+<kgtool\'s repository>" (in a checkout: '
        f"pip install '.[{extra}]'; see docs/install.md)"
    )
