"""What a labeler is given and what it gives back: the contract between layer 3's bookkeeping
(which labels are missing or drifted, what evidence they keep) and the two labelers (the
offline one and the LLM one).

A labeler sees structure only: paths, symbol names, first lines of docstrings, typed edge
counts and the names of neighbouring communities. It never sees whole source files.
"""

from __future__ import annotations

from typing import NamedTuple, Protocol

from kgtool.communities.identity import id_number
from kgtool.errors import KgError

# Typed counts as layer 2 keeps them: edge type -> tier -> number of layer-1 edges.
TypedCounts = dict[str, dict[str, int]]


class CommunityItem(NamedTuple):
    """One community to name, as a labeler sees it."""

    id: str  # "c7"
    size: int  # number of member files
    paths: tuple[str, ...]  # member paths, sorted; at most ``ontology.max_paths`` of them
    main_files: tuple[str, ...]  # busiest files first (edges in from other files)
    top_symbols: tuple[str, ...]  # layer-1 IDs, highest in-degree first
    docstrings: dict[str, str]  # path -> first line of its module docstring or header comment
    edges_out: TypedCounts  # summed over every other community
    edges_in: TypedCounts
    neighbours: dict[str, str]  # community ID -> its current name (label or offline name)
    previous_name: str = ""  # the drifted label being replaced, if any: continuity helps
    family: str = ""  # the base class most of its files derive from (layer 2's families)
    manifest: str = ""  # the manifest of the package it is most of (its line in docstrings)


class EdgeItem(NamedTuple):
    """One inter-community edge to phrase: "<src name> <phrase> <dst name>"."""

    src: str
    dst: str
    src_name: str
    dst_name: str
    types: TypedCounts
    previous_phrase: str = ""


class CommunityText(NamedTuple):
    name: str  # 2-5 words, unique on the map
    summary: str  # one sentence


class LabelBatch:
    """A labeler's answer; items it could not label are simply absent."""

    __slots__ = ("communities", "edges", "problems")

    communities: dict[str, CommunityText]
    edges: dict[tuple[str, str], str]  # (src, dst) -> phrase
    problems: list[str]  # one line each, for the user

    def __init__(
        self,
        communities: dict[str, CommunityText] | None = None,
        edges: dict[tuple[str, str], str] | None = None,
        problems: list[str] | None = None,
    ) -> None:
        self.communities = {} if communities is None else communities
        self.edges = {} if edges is None else edges
        self.problems = [] if problems is None else problems

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LabelBatch):
            return NotImplemented
        return (self.communities, self.edges, self.problems) == (
            other.communities,
            other.edges,
            other.problems,
        )

    __hash__ = None  # type: ignore[assignment]  # unhashable, as __eq__ alone makes it


class Labeler(Protocol):
    # What ``by`` records for its labels: "offline" or "llm:<model>".
    by: str

    def label(
        self,
        communities: list[CommunityItem],
        edges: list[EdgeItem],
        taken_names: set[str],  # casefolded names already on the map, to stay unique
    ) -> LabelBatch: ...


class LabelerError(KgError):
    """The labeler could not answer (network, rate limit, server error, timeout, a reply that
    stayed invalid): every old label is kept and the command exits non-zero."""

    exit_code = 4


def edge_key(src: str, dst: str) -> str:
    """How ontology.yaml and the command line spell an edge: ``c7->c6``."""
    return f"{src}->{dst}"


def edge_order(key: str) -> tuple[int, int]:
    """Sort key of ``c7->c6``: by source ID number, then destination, as layer 2 orders edges."""
    src, _, dst = key.partition("->")
    return id_number(src), id_number(dst)
