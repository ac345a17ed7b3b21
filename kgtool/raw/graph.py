"""Reading ``.kg/raw.jsonl`` back: what the later layers and the commands work from."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from kgtool.errors import KgError
from kgtool.store import KG_DIR, RAW_FILE, Store


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


def parse_raw(text: str, source: str = f"{KG_DIR}/{RAW_FILE}") -> RawGraph:
    graph = RawGraph()
    for number, line in enumerate(text.splitlines(), 1):
        if not line:
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise KgError(
                f"not a JSON record ({exc.msg}); run `kgtool update`", source, number
            ) from exc
        kind = record.get("rec")
        if kind == "node":
            graph.nodes[record["id"]] = record
        elif kind == "edge":
            graph.edges.append(record)
    return graph


def load_raw(store: Store) -> RawGraph:
    """The committed layer 1; an error that says what to run when there is none."""
    data = store.read_bytes(RAW_FILE)
    if data is None:
        raise KgError(f"{KG_DIR}/{RAW_FILE} does not exist yet: run `kgtool update`")
    return parse_raw(data.decode("utf-8"))
