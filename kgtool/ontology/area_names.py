"""Names for areas, made from layer 2 alone: deterministic, never stored in ontology.yaml.

An area that is a whole package is called by its package folder's name ("coding-agent"). Any
other area (a part of a package, or of a one-package repository) is named by the offline
labeler as if it were one community made of its communities: its files, its communities'
busiest files and symbols. Areas change far less often than communities and each is shown with
its communities' names underneath, so a name that follows the paths is enough; ``kgtool
label`` does not write area labels.
"""

from __future__ import annotations

import posixpath
from collections import Counter
from typing import Any

from kgtool.communities.identity import id_number
from kgtool.ontology.facts import community_items

Document = dict[str, Any]
TOP = 5  # main files and symbols an area is named from, busiest first


def area_names(document: Document, max_paths: int) -> dict[str, str]:
    """Area ID -> its name; {} for a document without areas."""
    areas: dict[str, Any] = document.get("areas", {})
    communities: dict[str, Any] = document["communities"]
    per_package = Counter(area["package"] for area in areas.values())
    names: dict[str, str] = {}
    pseudo: dict[str, Any] = {}
    for aid in sorted(areas, key=id_number):
        area = areas[aid]
        package = area["package"]
        if package and per_package[package] == 1:
            names[aid] = posixpath.basename(package)
            continue
        members = sorted(p for cid in area["communities"] for p in communities[cid]["members"])
        pseudo[aid] = {
            "members": members,
            "size": len(members),
            "main_files": _busiest(communities, area["communities"], "main_files"),
            "top_symbols": _busiest(communities, area["communities"], "top_symbols"),
        }
    if pseudo:
        # Imported here: the map only pays for the labeler when an area needs it.
        from kgtool.ontology.offline import OfflineLabeler

        items = community_items({"communities": pseudo, "edges": []}, {}, {}, max_paths)
        taken = {name.casefold() for name in names.values()}
        batch = OfflineLabeler().label(list(items.values()), [], taken)
        for aid in pseudo:
            text = batch.communities.get(aid)
            names[aid] = text.name if text else aid
    return names


def _busiest(communities: dict[str, Any], members: list[str], key: str) -> list[list[Any]]:
    scored = [tuple(item) for cid in members for item in communities[cid].get(key, [])]
    ranked = sorted(scored, key=lambda item: (-item[1], item[0]))
    return [list(item) for item in ranked[:TOP]]
