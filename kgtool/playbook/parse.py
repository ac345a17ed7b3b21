"""Reading playbook files: front matter with the line of every value, and clear errors.

Only the safe YAML loader is used (the one ``yaml.safe_load`` runs); it is driven by hand so
that the composed nodes, which carry line and column marks, are kept next to the values.
Every problem is collected rather than raised: one broken playbook never stops the others.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import yaml

from kgtool import bounded
from kgtool.findings import ERROR, Finding
from kgtool.playbook.model import (
    ACTIVE,
    KNOWN_FIELDS,
    PROPOSED,
    PROPOSED_DIR,
    REQUIRED_FIELDS,
    STATUSES,
    Playbook,
    Scalar,
)

NOT_READ = "P401"  # the file itself: not UTF-8, too large, out of the repository
FRONT_MATTER = "P402"  # the YAML between the '---' lines
FIELD = "P403"  # one field: unknown, missing, of the wrong type
DUPLICATE_SLUG = "P404"

INDEX_NAMES = {"readme.md"}  # a folder's human index, not a playbook
_STR_TAG = "tag:yaml.org,2002:str"
_MERGE_TAG = "tag:yaml.org,2002:merge"


def discover(root: Path, directory: str) -> list[str]:
    """Repository-relative paths of every playbook: ``<dir>/*.md`` and ``<dir>/proposed/*.md``."""
    found: list[str] = []
    for folder in (directory, f"{directory}/{PROPOSED_DIR}"):
        full = root / folder
        if not full.is_dir():
            continue
        for entry in os.scandir(full):
            if (
                entry.name.endswith(".md")
                and entry.name.lower() not in INDEX_NAMES
                and entry.is_file()
            ):
                found.append(f"{folder}/{entry.name}")
    return sorted(found)


def load_playbooks(root: Path, directory: str, max_bytes: int) -> list[Playbook]:
    playbooks = [read_playbook(root, path, max_bytes) for path in discover(root, directory)]
    first_by_slug: dict[str, Playbook] = {}
    for playbook in playbooks:
        # Case-folded: on a case-insensitive checkout, Foo.md and foo.md are one file.
        key = playbook.slug.casefold()
        first = first_by_slug.setdefault(key, playbook)
        if first is not playbook:
            playbook.problems.append(
                Finding(
                    playbook.path,
                    1,
                    ERROR,
                    DUPLICATE_SLUG,
                    f"duplicate slug '{playbook.slug}': {first.path} has it",
                )
            )
    return playbooks


def outside_repository(root: Path, path: str) -> bool:
    """Whether ``root/path`` leads, through a symlink on the way, outside the repository: in
    CI a pull request could otherwise make kgtool read (and print) any file of the runner."""
    return not bounded.inside(root, root / path)


def read_playbook(root: Path, path: str, max_bytes: int) -> Playbook:
    if outside_repository(root, path):
        playbook = _empty(path)
        playbook.problems.append(
            Finding(path, 0, ERROR, NOT_READ, "leads outside the repository (a symlink); not read")
        )
        return playbook
    try:
        size = (root / path).stat().st_size
        if size > max_bytes:
            playbook = _empty(path)
            playbook.problems.append(
                Finding(
                    path,
                    0,
                    ERROR,
                    NOT_READ,
                    f"is {size} bytes, over the limit of {max_bytes} "
                    "(setting 'playbooks.max_bytes'); not read",
                )
            )
            return playbook
        data = (root / path).read_bytes()
    except OSError as exc:
        playbook = _empty(path)
        playbook.problems.append(
            Finding(path, 0, ERROR, NOT_READ, f"cannot be read: {exc.strerror}")
        )
        return playbook
    return parse_playbook(path, data)


def _empty(path: str) -> Playbook:
    slug = path.rsplit("/", 1)[-1].removesuffix(".md")
    in_proposed = path.rsplit("/", 2)[-2:-1] == [PROPOSED_DIR]
    return Playbook(path, slug, status=PROPOSED if in_proposed else ACTIVE)


# What is read of a skill's SKILL.md for its front matter: a few lines, where the body after it
# may be a whole manual (or, committed as a link, /dev/zero).
SKILL_HEAD_BYTES = 20_000


def split_front_matter(text: str) -> tuple[int, int, int] | str:
    """(start, end, first line) of the YAML between the '---' lines, or why there is none.

    ``start``/``end`` are character offsets into ``text``; ``first line`` is the 1-based file
    line the YAML starts on.
    """
    offset = 1 if text.startswith("\ufeff") else 0
    first_end = text.find("\n", offset)
    first = text[offset:] if first_end < 0 else text[offset:first_end]
    if first.rstrip() != "---":
        return "no front matter: a playbook starts with a line '---', its YAML fields, then '---'"
    start = first_end + 1
    position = start
    while position < len(text):
        line_end = text.find("\n", position)
        line = text[position:] if line_end < 0 else text[position:line_end]
        if line.rstrip() in ("---", "..."):
            return start, position, 2
        if line_end < 0:
            break
        position = line_end + 1
    return "front matter is not closed: no '---' line after the opening one on line 1"


def parse_playbook(path: str, data: bytes) -> Playbook:
    playbook = _empty(path)

    def problem(line: int, message: str, code: str = FRONT_MATTER) -> None:
        playbook.problems.append(Finding(path, line, ERROR, code, message))

    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        problem(
            line,
            f"is not valid UTF-8 (byte 0x{data[exc.start]:02x}); write playbooks as UTF-8",
            NOT_READ,
        )
        return playbook
    split = split_front_matter(text)
    if isinstance(split, str):
        problem(1, split)
        return playbook
    start, end, first_line = split
    source = text[start:end]
    loader = bounded.bounded_loader()(source)
    try:
        node = loader.get_single_node()
        if node is not None:
            bounded.check_node(node, path, first_line)
        duplicate = _first_duplicate_key(node)
        if duplicate is not None:
            key_node, first = duplicate
            problem(
                key_node.start_mark.line + first_line,
                f"field '{key_node.value}' is given twice "
                f"(first on line {first.start_mark.line + first_line})",
            )
            return playbook
        document = loader.construct_document(node) if node is not None else None
    except bounded.Unreadable as exc:
        # The composer's own refusal (too deep) knows only the line within the front matter.
        found_line = exc.line if exc.path else (exc.line or 1) - 1 + first_line
        problem(found_line or first_line, exc.message)
        return playbook
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + first_line if mark is not None else first_line
        # YAML's own words for a tab ("found character '\t' that cannot start any token")
        # do not say what to do; tabs inside values are fine, so only a failed parse is blamed.
        tab = _first_indent_tab(source, line - first_line)
        if tab is not None:
            problem(tab + first_line, "tab in indentation: YAML indents with spaces only")
            return playbook
        detail = " ".join(str(p) for p in (exc.context, exc.problem) if p)
        problem(line, f"invalid YAML: {detail}")
        return playbook
    except yaml.YAMLError as exc:
        problem(first_line, f"invalid YAML: {exc}")
        return playbook
    finally:
        loader.dispose()

    if node is None:
        document, node = {}, yaml.MappingNode("tag:yaml.org,2002:map", [])
    if not isinstance(node, yaml.MappingNode) or not isinstance(document, dict):
        problem(
            first_line, "front matter must be a mapping of fields (intent: ..., key_files: ...)"
        )
        return playbook
    _read_fields(
        playbook,
        node,
        document,
        first_line,
        start,
        lambda line, message: problem(line, message, FIELD),
    )
    return playbook


def _first_indent_tab(source: str, up_to: int) -> int | None:
    """0-based index of the first line, up to ``up_to``, indented with a tab."""
    for index, line in enumerate(source.split("\n")[: up_to + 1]):
        if "\t" in line[: len(line) - len(line.lstrip(" \t"))]:
            return index
    return None


def _first_duplicate_key(node: yaml.Node | None) -> tuple[yaml.Node, yaml.Node] | None:
    """PyYAML keeps the last of two equal keys without a word; a playbook must not."""
    if not isinstance(node, yaml.MappingNode):
        return None
    seen: dict[str, yaml.Node] = {}
    for key_node, _ in node.value:
        if not isinstance(key_node, yaml.ScalarNode) or key_node.tag == _MERGE_TAG:
            continue
        if key_node.value in seen:
            return key_node, seen[key_node.value]
        seen[key_node.value] = key_node
    return None


def _kind(value: Any) -> str:
    if value is None:
        return "empty"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string" if value.strip() else "an empty string"
    if isinstance(value, list):
        return "a list" if value else "an empty list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__


def _read_fields(
    playbook: Playbook,
    node: yaml.MappingNode,
    document: dict[Any, Any],
    first_line: int,
    offset: int,
    problem: Any,
) -> None:
    """Each known field of a playbook's front matter read into ``playbook``, with the line
    of every problem.

    Long because it is one flat check per field, in the order the format lists them, each
    a few lines; they share the node table and the problem callback and nothing else."""
    # After construction, merge keys ("<<") have been flattened into node.value, merged pairs
    # first, so the last pair for a key is the one the document means.
    nodes: dict[str, tuple[yaml.Node, yaml.Node]] = {}
    for key_node, value_node in node.value:
        line = key_node.start_mark.line + first_line
        if not isinstance(key_node, yaml.ScalarNode) or not isinstance(key_node.value, str):
            problem(line, "field names must be plain words such as 'intent'")
            continue
        if key_node.value not in KNOWN_FIELDS:
            known = ", ".join(KNOWN_FIELDS)
            problem(line, f"unknown field '{key_node.value}' (playbook fields: {known})")
            continue
        nodes[key_node.value] = (key_node, value_node)
        playbook.field_lines[key_node.value] = line
    if not playbook.field_lines:
        playbook.field_lines["---"] = 1  # readable, though it has no fields
    for name in REQUIRED_FIELDS:
        if name not in nodes:
            problem(1, f"missing field '{name}'")

    def line_of(item: yaml.Node) -> int:
        line: int = item.start_mark.line + first_line
        return line

    def scalar(item: yaml.Node, value: Any) -> Scalar:
        style = (item.style or "") if isinstance(item, yaml.ScalarNode) else ""
        return Scalar(
            value,
            line_of(item),
            item.start_mark.index + offset,
            item.end_mark.index + offset,
            style,
        )

    def text_field(name: str) -> str:
        key_node, _ = nodes[name]
        value = document.get(name)
        if not isinstance(value, str) or not value.strip():
            problem(
                line_of(key_node), f"field '{name}' must be a non-empty string, not {_kind(value)}"
            )
            return ""
        return value

    def pointer_list(name: str, allow_empty: bool) -> list[Scalar]:
        key_node, value_node = nodes[name]
        value = document.get(name)
        if value is None and allow_empty:
            return []
        if not isinstance(value, list) or not isinstance(value_node, yaml.SequenceNode):
            problem(
                line_of(key_node), f"field '{name}' must be a list of strings, not {_kind(value)}"
            )
            return []
        if not value and not allow_empty:
            problem(line_of(key_node), f"field '{name}' is empty: list at least one")
            return []
        items = []
        for item_node, item in zip(value_node.value, value, strict=True):
            if not isinstance(item, str) or not item.strip():
                problem(
                    line_of(item_node),
                    f"each entry of '{name}' must be a non-empty string, not {_kind(item)}",
                )
                continue
            items.append(scalar(item_node, item))
        return items

    def steps(name: str) -> list[str]:
        key_node, value_node = nodes[name]
        value = document.get(name)
        if isinstance(value, str) and value.strip():
            return [value]
        if isinstance(value, list) and value:
            good = []
            for item_node, item in zip(value_node.value, value, strict=True):
                if isinstance(item, str) and item.strip():
                    good.append(item)
                else:
                    problem(
                        line_of(item_node),
                        f"each entry of '{name}' must be a non-empty string, not {_kind(item)}",
                    )
            return good
        problem(
            line_of(key_node),
            f"field '{name}' must be a string or a list of strings, not {_kind(value)}",
        )
        return []

    if "intent" in nodes:
        playbook.intent = text_field("intent")
    if "title" in nodes:
        playbook.title = text_field("title")
    if "status" in nodes:
        status = document.get("status")
        if status in STATUSES:
            playbook.status = status
        else:
            problem(
                line_of(nodes["status"][0]),
                f"field 'status' must be one of {', '.join(STATUSES)}, not {status!r}",
            )
    if "concepts" in nodes:
        playbook.concepts = pointer_list("concepts", allow_empty=True)
    if "key_files" in nodes:
        playbook.key_files = pointer_list("key_files", allow_empty=False)
    for name in ("validation", "pitfalls", "rollback"):
        if name in nodes:
            setattr(playbook, name, steps(name))
    if "evidence" in nodes:
        playbook.evidence = document.get("evidence")


_SLUG_JUNK = re.compile(r"[^a-z0-9]+")


def slugify(text: str, limit: int = 60) -> str:
    slug = _SLUG_JUNK.sub("-", text.lower()).strip("-")
    if len(slug) > limit:
        slug = slug[:limit].rsplit("-", 1)[0] or slug[:limit]
    return slug or "playbook"
