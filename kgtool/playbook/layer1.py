"""The part of layer 1 that pointers resolve against: files, and the symbols in each file.

The committed layer 1 (``.kg/raw/``) is used for every file whose content still matches it (the
file node's ``hash`` is the git blob id, so comparing costs one ``git ls-files``). A file that
changed since, or every file when layer 1 does not exist, has its symbols read from the file
itself, on demand, by the layer-1 extractor: resolution is then exact even before
``kgtool update`` has run. What needs the whole graph (finding where a symbol moved) uses the
symbols of layer 1 plus those read so far, and says so when layer 1 is missing.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from kgtool.config import Config
from kgtool.findings import WARNING, Finding
from kgtool.raw import graph as raw_graph
from kgtool.repo import tracked_files
from kgtool.store import KG_DIR, Store

NO_RAW_GRAPH = "P441"


class SymbolIndex(NamedTuple):
    nodes: dict[str, list[str]]  # qualname or bare name -> node IDs, files in path order
    # (name, path) -> where that file's nodes sit in nodes[name]: one file's nodes are
    # consecutive, so leaving them out of an answer costs nothing per node.
    spans: dict[tuple[str, str], tuple[int, int]]

    def elsewhere(self, name: str, path: str, shown: int) -> tuple[list[str], int]:
        """The first ``shown`` nodes called ``name`` outside ``path``, and how many there are."""
        listed = self.nodes.get(name, [])
        start, stop = self.spans.get((name, path), (0, 0))
        first = listed[: min(start, shown)] + listed[stop : stop + shown]
        return first[:shown], len(listed) - (stop - start)


class Layer1:
    __slots__ = (
        "_parsed",
        "files",
        "max_file_bytes",
        "notes",
        "raw_hashes",
        "raw_present",
        "raw_symbols",
        "root",
        "tracked_elsewhere",
    )

    files: dict[str, str]  # path -> git blob id, for every file the graph maps
    tracked_elsewhere: dict[str, str]  # tracked path not in the graph -> why
    raw_symbols: dict[str, dict[str, str]]  # path -> qualname -> kind, from layer 1
    raw_hashes: dict[str, str]  # path -> blob id layer 1 was built from
    raw_present: bool
    root: Path
    max_file_bytes: int
    notes: list[Finding]  # said once per run, as warnings
    _parsed: dict[str, dict[str, str]]

    def __init__(
        self,
        files: dict[str, str],
        tracked_elsewhere: dict[str, str],
        raw_symbols: dict[str, dict[str, str]],
        raw_hashes: dict[str, str],
        raw_present: bool,
        root: Path,
        max_file_bytes: int,
        notes: list[Finding] | None = None,
        _parsed: dict[str, dict[str, str]] | None = None,
    ) -> None:
        self.files = files
        self.tracked_elsewhere = tracked_elsewhere
        self.raw_symbols = raw_symbols
        self.raw_hashes = raw_hashes
        self.raw_present = raw_present
        self.root = root
        self.max_file_bytes = max_file_bytes
        self.notes = [] if notes is None else notes
        self._parsed = {} if _parsed is None else _parsed

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
            # Imported here: a reader of layer 1 alone never loads the extractor.
            from kgtool.raw.extract import extract_file

            facts = extract_file(self.root, path, self.max_file_bytes)
            self._parsed[path] = {s.qualname: s.kind for s in facts.symbols}
        return self._parsed[path]

    def symbol_index(self) -> SymbolIndex:
        """Qualname and bare name -> node IDs, over every symbol known without parsing."""
        nodes: dict[str, list[str]] = {}
        spans: dict[tuple[str, str], tuple[int, int]] = {}
        for path in sorted(self.files):
            if path in self._parsed:
                qualnames = self._parsed[path]
            elif self.raw_hashes.get(path) == self.files[path]:
                qualnames = self.raw_symbols.get(path, {})
            else:
                continue
            for qualname in qualnames:
                node = f"{path}::{qualname}"
                short = qualname.rsplit(".", 1)[-1]
                for name in (qualname, short) if short != qualname else (qualname,):
                    listed = nodes.setdefault(name, [])
                    start = spans.get((name, path), (len(listed), len(listed)))[0]
                    listed.append(node)
                    spans[(name, path)] = (start, len(listed))
        return SymbolIndex(nodes, spans)


def load_layer1(root: Path, config: Config, store: Store) -> Layer1:
    from kgtool.globs import excluded

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
    loaded = raw_graph.load(store)
    raw_path = loaded.where if loaded is not None else raw_graph.WHERE
    present = loaded is not None
    if loaded is not None:
        read = raw_graph.read_nodes(loaded.data) if loaded.data is not None else None
        if read is None:
            present = False
            notes.append(Finding(raw_path, loaded.line, WARNING, NO_RAW_GRAPH, raw_graph.DAMAGED))
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
