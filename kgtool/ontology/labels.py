"""Reading layer 3 (``.kg/ontology.yaml``): the names people and the labeler gave communities.

Only what other layers need to read lives here for now: a community's name and summary. The
file may be missing (no labels yet) and people may edit it, so problems in it are clear errors.
"""

from __future__ import annotations

from dataclasses import dataclass

import yaml

from kgtool.errors import KgError
from kgtool.store import KG_DIR, Store

ONTOLOGY_FILE = "ontology.yaml"


@dataclass(frozen=True)
class CommunityLabel:
    community: str  # community ID, e.g. "c7"
    name: str
    summary: str = ""


def load_labels(store: Store) -> dict[str, CommunityLabel]:
    """Community ID -> its label; empty when layer 3 has not been written."""
    data = store.read_bytes(ONTOLOGY_FILE)
    if data is None:
        return {}
    where = f"{KG_DIR}/{ONTOLOGY_FILE}"
    try:
        document = yaml.safe_load(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise KgError("is not valid UTF-8", where) from exc
    except yaml.YAMLError as exc:
        # The problem alone: str(exc) spans several lines, with a drawing of the spot.
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or "cannot be parsed"
        raise KgError(f"invalid YAML: {problem}", where, mark.line + 1 if mark else None) from exc
    if document is not None and not isinstance(document, dict):
        raise KgError("must be a mapping with a 'communities' key", where)
    communities = (document or {}).get("communities") or {}
    if not isinstance(communities, dict):
        raise KgError("'communities' must be a mapping of community IDs to labels", where)
    labels = {}
    for community, entry in communities.items():
        if isinstance(entry, dict) and isinstance(entry.get("name"), str):
            labels[str(community)] = CommunityLabel(
                str(community), entry["name"], str(entry.get("summary") or "")
            )
    return labels
