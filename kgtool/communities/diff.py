"""The architecture changelog between two communities.json documents.

Splits and merges are read from the lineage the head recorded (``split_from``, ``retired``)
and, where the head has no record (say the base was clustered on its own), from member
overlap: more than half of a community's files in one other community. A file whose move is
explained by a split or a merge is not listed again as moved; the changelog names the event.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from kgtool.communities.counts import describe_counts
from kgtool.communities.identity import id_number
from kgtool.escape import md_text, mermaid_label, printable

MERMAID_LABEL = 48  # characters of a community's name in the summary's graph

Document = dict[str, Any]
Report = dict[str, Any]


def _majority(paths: list[str], where: dict[str, str]) -> str | None:
    homes = Counter(where[p] for p in paths if p in where)
    if not homes:
        return None
    best, count = min(homes.items(), key=lambda item: (-item[1], id_number(item[0])))
    return best if count * 2 > sum(homes.values()) else None


def _events(
    old: dict[str, Any],
    new: dict[str, Any],
    old_files: dict[str, str],
    new_files: dict[str, str],
    retired_info: dict[str, Any],
) -> tuple[
    list[dict[str, Any]],
    list[dict[str, Any]],
    list[dict[str, Any]],
    list[dict[str, Any]],
    set[tuple[str, str]],
]:
    """Splits, merges, creations and retirements between two levels of groups (communities, or
    areas), each ``{id: {members, split_from?}}``, with the (from, into) pairs they explain."""
    split, merged, created, retired = [], [], [], []
    explained: set[tuple[str, str]] = set()
    for cid in sorted(set(new) - set(old), key=id_number):
        members = new[cid]["members"]
        source = new[cid].get("split_from")
        if source not in old:
            source = _majority(members, old_files)
        if source in old and source in new:
            files = [p for p in members if old_files.get(p) == source]
            split.append({"from": source, "into": cid, "files": files})
            explained.add((source, cid))
        else:
            created.append({"id": cid, "size": len(members), "files": members})
    for cid in sorted(set(old) - set(new), key=id_number):
        members = old[cid]["members"]
        heir = retired_info.get(cid, {}).get("merged_into")
        if heir not in new:
            heir = _majority(members, new_files)
        if heir in new:
            files = [p for p in members if new_files.get(p) == heir]
            merged.append({"from": cid, "into": heir, "files": files})
            explained.add((cid, heir))
        else:
            retired.append({"id": cid, "size": len(members), "files": members})
    return split, merged, created, retired, explained


def compare(
    base: Document,
    head: Document,
    change: float,
    min_edges: int,
    names: dict[str, str],
    renames: dict[str, str] | None = None,
) -> Report:
    """``names``: a name for community and area IDs of either side (for the touched ones);
    ``renames``: new path -> old path of the files git found renamed between the two."""
    old, new = base["communities"], head["communities"]
    old_files: dict[str, str] = base["files"]
    new_files: dict[str, str] = head["files"]
    split, merged, created, retired, explained = _events(
        old, new, old_files, new_files, head.get("retired", {})
    )
    renamed = [
        {"from": before, "to": after, "was_in": old_files[before], "is_in": new_files[after]}
        for after, before in sorted((renames or {}).items())
        if before in old_files and after in new_files and before not in new_files
    ]
    renamed_to = {entry["to"] for entry in renamed}
    renamed_from = {entry["from"] for entry in renamed}
    born = {e["id"] for e in created}
    gone = {e["id"] for e in retired}
    added = sorted(set(new_files) - set(old_files))
    removed = sorted(set(old_files) - set(new_files))
    moved = [
        {"file": path, "from": old_files[path], "to": new_files[path]}
        for path in sorted(set(old_files) & set(new_files))
        if old_files[path] != new_files[path]
        and (old_files[path], new_files[path]) not in explained
    ]
    report: Report = {
        "base": {"communities": len(old), "files": len(old_files)},
        "head": {"communities": len(new), "files": len(new_files)},
        "split": split,
        "merged": merged,
        "created": created,
        "retired": retired,
        "moved": moved,
        "renamed": renamed,
        # New files by the community they joined (a created community's are its event's),
        # and files gone by the one they left: renamed ones are said as renames.
        "joined": _by_community(
            [p for p in added if p not in renamed_to and new_files[p] not in born], new_files
        ),
        "left": _by_community(
            [p for p in removed if p not in renamed_from and old_files[p] not in gone], old_files
        ),
        "files_added": added,
        "files_removed": removed,
        "coupling": _coupling(base, head, change, min_edges),
        "names": {},
    }
    if "areas" in base and "areas" in head:
        report["areas"] = compare_areas(base, head)
    touched = touched_communities(report) | touched_areas(report)
    touched |= {move["community"] for move in report.get("areas", {}).get("moved", [])}
    report["names"] = {cid: names[cid] for cid in sorted(touched, key=_id_order) if cid in names}
    return report


def _by_community(paths: list[str], where: dict[str, str]) -> list[dict[str, Any]]:
    """[{community, files}] of ``paths`` by the community ``where`` puts each in, the one
    with most files first."""
    groups: dict[str, list[str]] = {}
    for path in paths:
        groups.setdefault(where[path], []).append(path)
    order = sorted(groups, key=lambda cid: (-len(groups[cid]), id_number(cid)))
    return [{"community": cid, "files": groups[cid]} for cid in order]


def _id_order(gid: str) -> tuple[str, int]:
    return gid[0], id_number(gid)


def _area_view(document: Document) -> tuple[dict[str, Any], dict[str, str]]:
    """Areas as groups of files ({id: {members, split_from?}}) and each code file's area."""
    communities = document["communities"]
    groups: dict[str, Any] = {}
    where: dict[str, str] = {}
    for aid, area in document["areas"].items():
        members = sorted(p for cid in area["communities"] for p in communities[cid]["members"])
        groups[aid] = {
            "members": members,
            **({"split_from": area["split_from"]} if area.get("split_from") else {}),
        }
        where.update(dict.fromkeys(members, aid))
    return groups, where


def compare_areas(base: Document, head: Document) -> Report:
    """The area level of the changelog: areas split, merged, created, retired (by the same
    rules as communities, over their code files), and communities that changed area."""
    old, old_files = _area_view(base)
    new, new_files = _area_view(head)
    split, merged, created, retired, explained = _events(
        old, new, old_files, new_files, head.get("retired_areas", {})
    )
    old_area = {cid: c["area"] for cid, c in base["communities"].items() if c.get("area")}
    moved = [
        {"community": cid, "from": old_area[cid], "to": community["area"]}
        for cid, community in sorted(head["communities"].items(), key=lambda i: id_number(i[0]))
        if cid in old_area
        and community.get("area")
        and community["area"] != old_area[cid]
        and (old_area[cid], community["area"]) not in explained
    ]
    return {
        "base": len(old),
        "head": len(new),
        "split": split,
        "merged": merged,
        "created": created,
        "retired": retired,
        "moved": moved,
    }


def touched_areas(report: Report) -> set[str]:
    areas = report.get("areas")
    if not areas:
        return set()
    touched: set[str] = set()
    for event in (*areas["split"], *areas["merged"], *areas["moved"]):
        touched |= {event["from"], event["into" if "into" in event else "to"]}
    touched |= {e["id"] for e in (*areas["created"], *areas["retired"])}
    return touched


def _coupling(
    base: Document, head: Document, change: float, min_edges: int
) -> dict[str, list[dict[str, Any]]]:
    both = set(base["communities"]) & set(head["communities"])
    before = {(e["src"], e["dst"]): e for e in base.get("edges", [])}
    after = {(e["src"], e["dst"]): e for e in head.get("edges", [])}
    appeared, vanished, changed = [], [], []
    for pair in sorted(set(before) | set(after), key=lambda p: (id_number(p[0]), id_number(p[1]))):
        if pair[0] not in both or pair[1] not in both:
            continue  # a created or retired community: its event already says so
        old, new = before.get(pair), after.get(pair)
        entry: dict[str, Any] = {"src": pair[0], "dst": pair[1]}
        if old is None and new is not None:
            appeared.append({**entry, "types": new["types"], "total": new["total"]})
        elif new is None and old is not None:
            vanished.append({**entry, "types": old["types"], "total": old["total"]})
        elif old is not None and new is not None:
            delta = new["total"] - old["total"]
            kinds_moved = set(old["types"]) != set(new["types"])
            big = abs(delta) >= min_edges and abs(delta) >= change * old["total"]
            if big or kinds_moved:
                changed.append(
                    {
                        **entry,
                        "before": old["types"],
                        "after": new["types"],
                        "total_before": old["total"],
                        "total_after": new["total"],
                    }
                )
    return {"appeared": appeared, "vanished": vanished, "changed": changed}


def touched_communities(report: Report) -> set[str]:
    touched: set[str] = set()
    for event in (*report["split"], *report["merged"]):
        touched |= {event["from"], event["into"]}
    touched |= {e["id"] for e in (*report["created"], *report["retired"])}
    for move in report["moved"]:
        touched |= {move["from"], move["to"]}
    for entry in report.get("renamed", []):
        touched |= {entry["was_in"], entry["is_in"]}
    touched |= {group["community"] for key in ("joined", "left") for group in report.get(key, [])}
    for entries in report["coupling"].values():
        for entry in entries:
            touched |= {entry["src"], entry["dst"]}
    return touched


def is_empty(report: Report) -> bool:
    return (
        not touched_communities(report)
        and not touched_areas(report)
        and not (report["files_added"] or report["files_removed"])
    )


def _files(paths: list[str], limit: int = 5) -> str:
    shown = ", ".join(paths[:limit])
    return shown + (f" and {len(paths) - limit} more" if len(paths) > limit else "")


def _name(cid: str, report: Report) -> str:
    name = report["names"].get(cid)
    return f"{cid} ({name})" if name else cid


def _change_lines(report: Report) -> list[str]:
    lines = []
    for e in report["split"]:
        lines.append(
            f"split: {_name(e['into'], report)} split off {_name(e['from'], report)} "
            f"with {len(e['files'])} file(s): {_files(e['files'])}"
        )
    for e in report["merged"]:
        lines.append(
            f"merged: {_name(e['from'], report)} merged into {_name(e['into'], report)} "
            f"({len(e['files'])} file(s))"
        )
    renamed_into = {e["from"]: e["is_in"] for e in report.get("renamed", [])}
    for e in report["created"]:
        lines.append(f"created: {_name(e['id'], report)}, {e['size']} file(s)")
    for e in report["retired"]:
        # A community whose files were renamed away went where they went.
        heir = _majority(e["files"], renamed_into)
        where = f"; its files, renamed, are in {_name(heir, report)}" if heir else ""
        lines.append(f"retired: {_name(e['id'], report)}, {e['size']} file(s){where}")
    for e in report.get("renamed", []):
        if e["was_in"] == e["is_in"]:
            where = f"stays in {_name(e['is_in'], report)}"
        else:
            where = f"from {_name(e['was_in'], report)} to {_name(e['is_in'], report)}"
        lines.append(f"renamed: {e['from']} → {e['to']}, {where}")
    for group in report.get("joined", []):
        lines.append(_group_line("new", ("joins", "join"), group, report))
    for group in report.get("left", []):
        lines.append(_group_line("removed", ("left", "left"), group, report))
    for e in report["moved"]:
        lines.append(f"moved: {e['file']}: {_name(e['from'], report)} -> {_name(e['to'], report)}")
    lines += _area_lines(report)
    coupling = report["coupling"]
    for e in _strongest(coupling["appeared"]):
        lines.append(
            f"new coupling: {_name(e['src'], report)} -> {_name(e['dst'], report)}: "
            f"{describe_counts(e['types'])}"
        )
    for e in _strongest(coupling["vanished"]):
        lines.append(
            f"coupling gone: {_name(e['src'], report)} -> {_name(e['dst'], report)}: "
            f"was {describe_counts(e['types'])}"
        )
    for e in _strongest(coupling["changed"]):
        lines.append(
            f"coupling changed: {_name(e['src'], report)} -> {_name(e['dst'], report)}: "
            f"{describe_counts(e['before'])} -> {describe_counts(e['after'])}"
        )
    return lines


def _group_line(what: str, verbs: tuple[str, str], group: dict[str, Any], report: Report) -> str:
    """ "new: utils/retry.py joins c12 (Utils)", "new: 3 files join c12 (Utils): a, b, c";
    ``verbs``: for one file, for several."""
    files, where = group["files"], _name(group["community"], report)
    if len(files) == 1:
        return f"{what}: {files[0]} {verbs[0]} {where}"
    return f"{what}: {len(files)} files {verbs[1]} {where}: {_files(files)}"


def _strongest(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Couplings by weight, the most edges first, then the most of them bound by syntax
    (EXTRACTED): what a reviewer should read first."""

    def key(e: dict[str, Any]) -> tuple[int, int, int, int]:
        types = e.get("types") or e.get("after") or {}
        total = int(e.get("total", e.get("total_after", 0)))
        extracted = sum(int(tiers.get("EXTRACTED", 0)) for tiers in types.values())
        return (-total, -extracted, id_number(e["src"]), id_number(e["dst"]))

    return sorted(entries, key=key)


def _area_lines(report: Report) -> list[str]:
    areas = report.get("areas")
    if not areas:
        return []
    lines = []
    for e in areas["split"]:
        lines.append(
            f"area split: {_name(e['into'], report)} split off {_name(e['from'], report)} "
            f"with {len(e['files'])} code file(s)"
        )
    for e in areas["merged"]:
        lines.append(
            f"area merged: {_name(e['from'], report)} merged into {_name(e['into'], report)} "
            f"({len(e['files'])} code file(s))"
        )
    for e in areas["created"]:
        lines.append(f"area created: {_name(e['id'], report)}, {e['size']} code file(s)")
    for e in areas["retired"]:
        lines.append(f"area retired: {_name(e['id'], report)}, {e['size']} code file(s)")
    for e in areas["moved"]:
        lines.append(f"area moved: {_name(e['community'], report)}: {e['from']} -> {e['to']}")
    return lines


def _headline(report: Report, base_name: str, head_name: str) -> str:
    b, h = report["base"], report["head"]
    areas = report.get("areas")
    area_count = f"{areas['base']} -> {areas['head']} areas, " if areas else ""
    return (
        f"Architecture {base_name} -> {head_name}: {b['communities']} -> {h['communities']} "
        f"communities, {area_count}{b['files']} -> {h['files']} files "
        f"(+{len(report['files_added'])} -{len(report['files_removed'])})"
    )


def render_text(
    report: Report, base_name: str, head_name: str, extra: list[str] | None = None
) -> str:
    """``extra``: lines the layers above add to the changelog (label changes)."""
    lines = [_headline(report, base_name, head_name)]
    changes = _change_lines(report) + (extra or [])
    lines += [f"  {printable(line)}" for line in changes] or ["  no architectural change"]
    return "\n".join(lines) + "\n"


def render_markdown(
    report: Report, base_name: str, head_name: str, extra: list[str] | None = None
) -> str:
    lines = ["## Architecture changes", "", _headline(report, base_name, head_name), ""]
    changes = _change_lines(report) + (extra or [])
    if not changes:
        return "\n".join([*lines, "No architectural change."]) + "\n"
    # Names and file names are the repository's: shown as text, never as markup.
    lines += [f"- {md_text(line)}" for line in changes]
    lines += ["", "```mermaid", "graph LR"]
    retired = {e["id"] for e in report["retired"]} | {e["from"] for e in report["merged"]}
    for cid in sorted(touched_communities(report), key=id_number):
        label = mermaid_label(_name(cid, report), MERMAID_LABEL)
        lines.append(f'  {cid}["{label}"]' + (":::retired" if cid in retired else ""))
    for e in report["split"]:
        lines.append(f"  {e['from']} -.->|split| {e['into']}")
    for e in report["merged"]:
        lines.append(f"  {e['from']} -.->|merged| {e['into']}")
    moves = Counter((m["from"], m["to"]) for m in report["moved"])
    for (a, b), count in sorted(moves.items(), key=lambda i: (id_number(i[0][0]), i[0][1])):
        lines.append(f'  {a} -.->|"{count} file(s) moved"| {b}')
    coupling = report["coupling"]
    for kind, verb in (("appeared", "new"), ("vanished", "gone"), ("changed", "changed")):
        for e in coupling[kind]:
            total = e.get("total", e.get("total_after"))
            arrow = "-.->" if kind == "vanished" else "-->"
            lines.append(f'  {e["src"]} {arrow}|"{verb} ×{total}"| {e["dst"]}')
    lines += ["  classDef retired stroke-dasharray: 5 5", "```"]
    return "\n".join(lines) + "\n"
