"""One module per subcommand; each has ``register(subparsers)`` and ``run(args) -> int``."""

from __future__ import annotations

from kgtool.commands import check, diff, playbooks, update

COMMANDS = (update, check, diff, playbooks)
