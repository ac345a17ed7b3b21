"""Concepts: a playbook's words for the parts of the code it touches, checked against layers
2 and 3. A concept is a layer-3 community name (any case) or a community ID.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from kgtool import bounded
from kgtool.communities.document import COMMUNITIES_FILE, read_document_bytes
from kgtool.config import load_config
from kgtool.errors import KgError
from kgtool.findings import WARNING, Finding
from kgtool.ontology.model import Ontology, load_ontology
from kgtool.ontology.view import report_for
from kgtool.store import KG_DIR, ONTOLOGY_FILE, Store

NOT_CHECKED = "P442"


class ConceptIndex:
    __slots__ = ("available", "by_name", "files", "ids", "names", "notes", "stale")

    available: bool  # layer 2 or layer 3 exists, so concepts can be checked at all
    by_name: dict[str, str]  # casefolded name -> community ID
    names: dict[str, str]  # community ID -> layer-3 name
    ids: set[str]
    files: dict[str, str]  # path -> community ID (layer 2)
    stale: dict[str, str]  # community ID -> why it is stale
    notes: list[Finding]

    def __init__(
        self,
        available: bool,
        by_name: dict[str, str] | None = None,
        names: dict[str, str] | None = None,
        ids: set[str] | None = None,
        files: dict[str, str] | None = None,
        stale: dict[str, str] | None = None,
        notes: list[Finding] | None = None,
    ) -> None:
        self.available = available
        self.by_name = {} if by_name is None else by_name
        self.names = {} if names is None else names
        self.ids = set() if ids is None else ids
        self.files = {} if files is None else files
        self.stale = {} if stale is None else stale
        self.notes = [] if notes is None else notes

    def resolve(self, concept: str) -> str:
        """The community ID a concept names, or "" when it names none."""
        text = concept.strip()
        if text in self.ids:
            return text
        return self.by_name.get(text.casefold(), "")

    def of_files(self, paths: Iterable[str]) -> list[str]:
        """The communities of these files (layer 2), by layer-3 name where there is one; the
        community holding most of them first."""
        counts = Counter(self.files[p] for p in paths if p in self.files)
        ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
        return [self.names.get(community, community) for community, _ in ranked]


def load_concepts(store: Store) -> ConceptIndex:
    index = ConceptIndex(available=False)
    data = read_document_bytes(store)
    document: Any = None
    if data is not None:
        where = f"{KG_DIR}/{COMMUNITIES_FILE}"
        try:
            document = bounded.load_json(data, where, bounded.DOCUMENT_BYTES)
            communities = document.get("communities") or {}
            files = document.get("files") or {}
            if not isinstance(communities, dict) or not isinstance(files, dict):
                raise ValueError("'communities' and 'files' must be objects")
        except bounded.Unreadable as exc:
            index.notes.append(
                Finding(
                    where,
                    exc.line or 0,
                    WARNING,
                    NOT_CHECKED,
                    f"cannot be read ({exc.message}): run `kgtool update`",
                )
            )
        except (ValueError, AttributeError) as exc:
            index.notes.append(
                Finding(
                    where, 0, WARNING, NOT_CHECKED, f"cannot be read ({exc}): run `kgtool update`"
                )
            )
        else:
            index.available = True
            index.ids.update(str(c) for c in communities)
            index.files = {str(p): str(c) for p, c in files.items()}
    try:
        ontology = load_ontology(store)
    except KgError as exc:
        index.notes.append(
            Finding(
                exc.path or "",
                exc.line or 0,
                WARNING,
                NOT_CHECKED,
                f"concepts were checked without layer-3 names: {exc.message}",
            )
        )
        ontology = Ontology()
    if ontology.communities or store.read_bytes(ONTOLOGY_FILE) is not None:
        index.available = True
    for community, label in sorted(ontology.communities.items()):
        if label.retired:
            continue
        index.ids.add(community)
        index.names[community] = label.name
        index.by_name.setdefault(label.name.casefold(), community)
    if not index.available:
        index.notes.append(
            Finding(
                "",
                0,
                WARNING,
                NOT_CHECKED,
                f"concepts were not checked: neither {KG_DIR}/{COMMUNITIES_FILE} (layer 2) nor "
                f"{KG_DIR}/{ONTOLOGY_FILE} (layer 3) exists yet",
            )
        )
    index.stale = stale_communities(store, ontology, document)
    return index


def stale_communities(store: Store, ontology: Ontology, document: Any) -> dict[str, str]:
    """Community ID -> why its layer-3 label is stale: drifted, or inherited through a split.

    Judged against the committed communities.json as ``load_concepts`` read it
    (``document``) and ``ontology`` as read from ontology.yaml; when either could not be
    read, no label is called stale here: ``kgtool check`` reports those files itself.
    """
    if not isinstance(document, dict) or not (ontology.communities or ontology.edges):
        return {}
    try:
        return report_for(document, ontology, load_config(store.root)).stale_communities()
    except (KgError, ValueError, KeyError, TypeError, AttributeError):
        return {}
