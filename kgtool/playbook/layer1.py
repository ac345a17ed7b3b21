"""The part of layer 1 that pointers resolve against: files, and the symbols in each file.

The committed ``.kg/raw.jsonl`` is used for every file whose content still matches it (the
file node's ``hash`` is the git blob id, so comparing costs one ``git ls-files``). A file that
changed since, or every file when raw.jsonl does not exist, has its symbols read from the file
itself, on demand, by the layer-1 extractor: resolution is then exact even before
``kgtool update`` has run. What needs the whole graph (finding where a symbol moved) uses the
symbols of raw.jsonl plus those read so far, and says so when raw.jsonl is missing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from kgtool.config import Config
from kgtool.findings import WARNING, Finding
from kgtool.repo import tracked_files
from kgtool.store import KG_DIR, RAW_FILE, Store

# Node records in raw.jsonl are canonical JSON (sorted keys, no spaces), so this substring
# tells them from edge records without decoding every edge: most lines are edges.
_NODE_MARK = b'"rec":"node"'
_META_MARK = b'"rec":"meta"'
KNOWN_FORMATS = {1}
NO_RAW_GRAPH = "P441"


@dataclass
class Layer1:
    files: dict[str, str]  # path -> git blob id, for every file the graph maps
    tracked_elsewhere: dict[str, str]  # tracked path not in the graph -> why
    raw_symbols: dict[str, dict[str, str]]  # path -> qualname -> kind, from raw.jsonl
    raw_hashes: dict[str, str]  # path -> blob id raw.jsonl was built from
    raw_present: bool
    root: Path
    max_file_bytes: int
    notes: list[Finding] = field(default_factory=list)  # said once per run, as warnings
    _parsed: dict[str, dict[str, str]] = field(default_factory=dict)

    @property
    def stale_files(self) -> list[str]:
        return sorted(p for p, blob in self.files.items() if self.raw_hashes.get(p) != blob)

    def symbols(self, path: str) -> dict[str, str]:
        """Qualname -> kind of every symbol defined in ``path`` as it is now."""
        if path not in self.files:
            return {}
        if self.raw_hashes.get(path) == self.files[path] and self.files[path]:
            return self.raw_symbols.get(path, {})
        if path not in self._parsed:
            # Imported here: a reader of raw.jsonl alone never loads the extractor.
            from kgtool.raw.extract import extract_file

            facts = extract_file(self.root, path, self.max_file_bytes)
            self._parsed[path] = {s.qualname: s.kind for s in facts.symbols}
        return self._parsed[path]

    def symbol_index(self) -> dict[str, list[str]]:
        """Qualname and bare name -> node IDs, over every symbol known without parsing."""
        index: dict[str, list[str]] = {}
        for path in sorted(self.files):
            if path in self._parsed:
                qualnames = self._parsed[path]
            elif self.raw_hashes.get(path) == self.files[path]:
                qualnames = self.raw_symbols.get(path, {})
            else:
                continue
            for qualname in qualnames:
                node = f"{path}::{qualname}"
                index.setdefault(qualname, []).append(node)
                short = qualname.rsplit(".", 1)[-1]
                if short != qualname:
                    index.setdefault(short, []).append(node)
        return index


def load_layer1(root: Path, config: Config, store: Store) -> Layer1:
    from kgtool.raw.build import excluded

    graph_files: dict[str, str] = {}
    elsewhere: dict[str, str] = {}
    for tracked in tracked_files(root):
        if tracked.path.startswith(f"{KG_DIR}/"):
            elsewhere[tracked.path] = f"kgtool's own output ({KG_DIR}/) is not in the graph"
        elif excluded(tracked.path, config["exclude"]):
            elsewhere[tracked.path] = "left out of the graph by the setting 'exclude'"
        elif tracked.deleted:
            elsewhere[tracked.path] = "deleted from the working tree"
        else:
            graph_files[tracked.path] = tracked.blob
    symbols: dict[str, dict[str, str]] = {}
    hashes: dict[str, str] = {}
    notes: list[Finding] = []
    raw_path = f"{KG_DIR}/{RAW_FILE}"
    data = store.read_bytes(RAW_FILE)
    present = data is not None
    if data is not None:
        read = _read_nodes(data)
        if read is None:
            present = False
            notes.append(
                Finding(
                    raw_path,
                    0,
                    WARNING,
                    NO_RAW_GRAPH,
                    "is damaged or has a format this kgtool does not know: run `kgtool update`",
                )
            )
        else:
            symbols, hashes = read
    view = Layer1(graph_files, elsewhere, symbols, hashes, present, root, config["max_file_bytes"])
    if not present and not notes:
        notes.append(
            Finding(
                raw_path,
                0,
                WARNING,
                NO_RAW_GRAPH,
                "does not exist: pointers were checked against `git ls-files` and the files "
                "themselves; run `kgtool update` for the full graph (and for suggestions of "
                "where a missing symbol moved)",
            )
        )
    view.notes.extend(notes)
    return view


def _read_nodes(data: bytes) -> tuple[dict[str, dict[str, str]], dict[str, str]] | None:
    symbols: dict[str, dict[str, str]] = {}
    hashes: dict[str, str] = {}
    for line in data.split(b"\n"):
        if _META_MARK not in line and _NODE_MARK not in line:
            continue
        try:
            record = json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError):
            return None  # damaged (a bad merge, a truncated write): read the files instead
        if not isinstance(record, dict):
            return None
        if _META_MARK in line:
            if record.get("format") not in KNOWN_FORMATS:
                return None
            continue
        node_id = record.get("id", "")
        if not isinstance(node_id, str):
            return None
        if record.get("kind") == "file":
            hashes[node_id] = record.get("hash", "")
        elif "::" in node_id and not record.get("external"):
            path, _, qualname = node_id.partition("::")
            symbols.setdefault(path, {})[qualname] = record.get("kind", "")
    return symbols, hashes
