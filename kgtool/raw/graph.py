"""What ``.kg/raw.jsonl`` reads back into: the shape layer 2 and ``kgtool diff`` work from."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class RawGraph:
    """Layer 1 as written: node records by ID, and every edge record in file order."""

    nodes: dict[str, dict[str, Any]] = field(default_factory=dict)
    edges: list[dict[str, Any]] = field(default_factory=list)

    @property
    def files(self) -> list[str]:
        """Repository paths of every file node, sorted."""
        return sorted(i for i, n in self.nodes.items() if n["kind"] == "file")

    def file_of(self, node_id: str) -> str:
        """The file a node lives in (an external package has none: "")."""
        if node_id.startswith("ext:"):
            return ""
        return node_id.split("::", 1)[0]
