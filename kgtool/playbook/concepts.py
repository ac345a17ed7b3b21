"""Concepts: a playbook's words for the parts of the code it touches, checked against layers
2 and 3. A concept is a layer-3 community name (any case) or a community ID.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from kgtool.errors import KgError
from kgtool.ontology.labels import ONTOLOGY_FILE, load_labels
from kgtool.store import KG_DIR, Store

COMMUNITIES_FILE = "communities.json"


@dataclass
class ConceptIndex:
    available: bool  # layer 2 or layer 3 exists, so concepts can be checked at all
    by_name: dict[str, str] = field(default_factory=dict)  # casefolded name -> community ID
    names: dict[str, str] = field(default_factory=dict)  # community ID -> layer-3 name
    ids: set[str] = field(default_factory=set)
    files: dict[str, str] = field(default_factory=dict)  # path -> community ID (layer 2)
    stale: dict[str, str] = field(default_factory=dict)  # community ID -> why it is stale
    notes: list[str] = field(default_factory=list)

    def resolve(self, concept: str) -> str:
        """The community ID a concept names, or "" when it names none."""
        text = concept.strip()
        if text in self.ids:
            return text
        return self.by_name.get(text.casefold(), "")


def load_concepts(store: Store) -> ConceptIndex:
    index = ConceptIndex(available=False)
    data = store.read_bytes(COMMUNITIES_FILE)
    if data is not None:
        try:
            document = json.loads(data.decode("utf-8"))
            communities = document.get("communities") or {}
            files = document.get("files") or {}
            if not isinstance(communities, dict) or not isinstance(files, dict):
                raise ValueError("'communities' and 'files' must be objects")
        except (ValueError, UnicodeDecodeError, AttributeError) as exc:
            index.notes.append(
                f"{KG_DIR}/{COMMUNITIES_FILE} cannot be read ({exc}): run `kgtool update`"
            )
        else:
            index.available = True
            index.ids.update(str(c) for c in communities)
            index.files = {str(p): str(c) for p, c in files.items()}
    try:
        labels = load_labels(store)
    except KgError as exc:
        index.notes.append(f"concepts were checked without layer-3 names: {exc}")
        labels = {}
    if labels or store.read_bytes(ONTOLOGY_FILE) is not None:
        index.available = True
    for community, label in sorted(labels.items()):
        index.ids.add(community)
        index.names[community] = label.name
        index.by_name.setdefault(label.name.casefold(), community)
    if not index.available:
        index.notes.append(
            f"concepts were not checked: neither {KG_DIR}/{COMMUNITIES_FILE} (layer 2) nor "
            f"{KG_DIR}/{ONTOLOGY_FILE} (layer 3) exists yet"
        )
    index.stale = stale_communities(store)
    return index


def stale_communities(store: Store) -> dict[str, str]:
    """Community ID -> why its layer-3 label is stale (DESIGN.md, "Drift").

    The seam for layer-3 drift, which is not built yet: until it is, no label is stale. When
    kgtool.ontology can say which labels drifted, return its verdict here; the warnings, the
    'playbooks.fail_on_stale_concepts' setting and their tests already go through this function.
    """
    return {}
