"""One module per subcommand; each has ``register(subparsers)`` and ``run(args) -> int``.

Only the module of the command being run is imported: a hook run on every commit must not
pay for the imports of every other command (the clustering libraries alone cost 0.1 s).
"""

from __future__ import annotations

import importlib
from types import ModuleType

# Subcommand -> the one line ``kgtool --help`` shows for it (its module registers the rest).
COMMANDS: dict[str, str] = {
    "update": "build or refresh .kg/ for this repository",
    "check": "run every check; change nothing",
    "label": "name unlabelled or drifted communities and edges (.kg/ontology.yaml)",
    "diff": "architecture changes (communities, moved files, coupling) between revisions",
    "playbooks": "check, list, fix or start playbooks",
    "ci": "check a pull request: every check, its architecture changes, its playbooks",
    "mine-playbooks": "propose playbooks from recurring changes in the history",
    "hooks": "install or remove plain git hooks, or run what they run",
    "impact": "what depends on a file or symbol (callers, importers, subclasses)",
    "explain": "what a community, label, file or symbol is, where it lives, what it touches",
    "mcp": "serve impact, explain, playbooks and the map to agents (MCP on stdio)",
    "context": "the playbook, communities and symbols to read first for a task",
    "merge-driver": "what git runs for a .kg/ file both sides of a merge changed",
    "map": "the map as a picture: MAP.md's diagram, or an interactive page (--html)",
}


def load(name: str) -> ModuleType:
    # "mine-playbooks" lives in mine_playbooks.py: a module name cannot hold a hyphen.
    return importlib.import_module(f"kgtool.commands.{name.replace('-', '_')}")
