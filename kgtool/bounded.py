"""The one reader of structured files a repository holds: JSON, YAML, TOML, front matter.

A pull request controls every byte of them, and Python's parsers trust their input: a
document nested a thousand deep raises RecursionError (json, tomllib, PyYAML's composer), an
integer of more than 4,300 digits raises ValueError (int()), and a few YAML anchors can stand
for billions of values (walked or printed later, they take gigabytes). Here each is refused
before it is built or walked, as one ``Unreadable`` error naming the file and, where known, the
line. The bounds are far beyond any real file, so a real file never meets one.

A leaf module: the standard library, and yaml or tomllib only when a file of that kind is read.
"""

from __future__ import annotations

import json
import os
import re
import stat
import sys
from collections.abc import Callable, Iterable
from functools import cache
from itertools import accumulate, islice
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kgtool.errors import KgError

if TYPE_CHECKING:
    import yaml

# Real manifests, settings and playbooks are a few levels deep (communities.json, kgtool's
# deepest, is five); a hundred leaves every recursive walk of the result far from Python's
# recursion limit of 1,000.
MAX_DEPTH = 100
# The size of a file each kind may have. Every byte is parsed (the pure-Python YAML reader
# takes seconds a megabyte), so each kind gets what its real files need, many times over:
# settings and front matter are a few kilobytes; manifests, labels and everything else up to
# sixteen megabytes; communities.json, which kgtool writes, about 120 bytes a file (1.2 MB at
# 10,000 files), so 64 MB is half a million files.
MAX_BYTES = 16 * 1024 * 1024
SETTINGS_BYTES = 1024 * 1024
DOCUMENT_BYTES = 64 * 1024 * 1024
# Python's int() refuses more than 4,300 digits with a ValueError; no counter, version or
# line number needs more than a hundred.
MAX_DIGITS = 100
# Values an alias may add, beyond the nodes written in the document: sharing a list of steps
# or a block of settings is a few dozen, the "billion laughs" document is billions.
MAX_ALIAS_VALUES = 10_000

_INT_TAG = "tag:yaml.org,2002:int"


class Unreadable(KgError, ValueError):
    """A file that cannot be read safely: the reason, the file and its line (0: unknown).
    A ValueError too, as ``json.loads`` raises for a document it refuses."""


class Missing(Unreadable):
    """There is no such file."""


class Malformed(Unreadable):
    """Not valid JSON, YAML, TOML or text encoding: a file's own mistake, not one of the
    bounds (readers that forgive a broken file still refuse a hostile one)."""


def read_file(path: Path, where: str, limit: int = MAX_BYTES, head: bool = False) -> bytes:
    """The bytes of a regular file, at most ``limit`` of them: a folder, a device
    (``/dev/zero``) or a pipe is refused instead of read for ever. ``head``: a larger file
    gives its first ``limit`` bytes instead of being refused (where only its start is read)."""
    try:
        # Non-blocking: opening a pipe with no writer would otherwise wait for one.
        handle = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise Missing("does not exist", where) from None
    except OSError as exc:
        raise Unreadable(f"cannot be read: {exc.strerror}", where) from None
    try:
        if not stat.S_ISREG(os.fstat(handle).st_mode):
            raise Unreadable("is not a regular file", where)
        chunks = []
        size = 0
        while size <= limit:
            chunk = os.read(handle, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        raise Unreadable(f"cannot be read: {exc.strerror}", where) from None
    finally:
        os.close(handle)
    if size > limit:
        if head:
            return b"".join(chunks)[:limit]
        raise Unreadable(f"is over the limit of {limit} bytes", where)
    return b"".join(chunks)


def read_tracked(root: Path, path: str, limit: int = MAX_BYTES, head: bool = False) -> bytes | None:
    """A tracked file's bytes as layer 1 reads them: None for a symlink (git keeps its
    target, not a file; followed, it may lead to /dev/zero or out of the tree), a file that is
    not regular, or one over ``limit`` bytes (with ``head``, its first ``limit`` bytes)."""
    full = root / path
    if full.is_symlink():
        return None
    try:
        return read_file(full, path, limit, head)
    except Unreadable:
        return None


def inside(root: Path, path: Path) -> bool:
    """Whether ``path`` stays inside ``root`` once every symlink on the way is followed."""
    real_root = os.path.realpath(root)
    return os.path.commonpath([os.path.realpath(path), real_root]) == real_root


def _text(data: bytes | str, where: str, first_line: int, limit: int = MAX_BYTES) -> str:
    if len(data) > limit:
        raise Unreadable(f"is over the limit of {limit} bytes", where)
    if isinstance(data, str):
        return data
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + first_line
        raise Malformed(f"is not valid UTF-8 (byte 0x{data[exc.start]:02x})", where, line) from None


def _too_deep(where: str, line: int) -> Unreadable:
    return Unreadable(f"is nested deeper than {MAX_DEPTH} levels", where, line)


def _too_long(where: str, line: int) -> Unreadable:
    return Unreadable(f"has a number of more than {MAX_DIGITS} digits", where, line)


# -- JSON ----------------------------------------------------------------------------------

_STEP = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}
_NOT_BRACKETS = re.compile(r"[^\[\]{}]+")
_BRACKET = re.compile(r"[\[\]{}]")
_ESCAPE = re.compile(r"\\.")
_LONG_NUMBER = re.compile(rf"[0-9]{{{MAX_DIGITS + 1}}}")


def load_json(
    data: bytes | str, where: str, limit: int = MAX_BYTES, written_here: bool = False
) -> Any:
    """A JSON document, refused (``Unreadable``) when not JSON, over ``limit`` bytes, too
    deep, or holding a number too long. Bytes are decoded as ``json.loads`` decodes them
    (UTF-8, with or without a byte order mark, or UTF-16/32).

    Parsed first, at C speed: ``json.loads`` refuses what Python cannot hold itself (a
    RecursionError past about a thousand levels, a ValueError past 4,300 digits), and only
    then is a document it accepted measured against the tighter bounds (communities.json is
    read on every commit: its measure must cost a fraction of its parse). ``written_here``:
    the bytes are those kgtool wrote (a digest it kept says so), whose bounds it kept when it
    wrote them; they are not measured again (two more passes over a 12 MB document at
    100,000 files, on every run that changed nothing)."""
    if isinstance(data, bytes):
        if len(data) > limit:
            raise Unreadable(f"is over the limit of {limit} bytes", where)
        encoding = json.detect_encoding(data)
        if encoding == "utf-8":
            text = _text(data, where, 1, limit)
        else:
            try:
                text = data.decode(encoding, "surrogatepass")
            except UnicodeDecodeError:
                raise Malformed(f"is not valid {encoding}", where) from None
    else:
        text = _text(data, where, 1, limit)
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        _check_json_text(text, where)  # a document too deep or long is said as such
        raise Malformed(f"is not valid JSON: {exc.msg}", where, exc.lineno) from None
    except (RecursionError, ValueError) as exc:
        _check_json_text(text, where)
        raise Malformed(f"is not valid JSON: {exc}", where) from None  # pragma: no cover
    if not written_here and (_deeper_than(text, MAX_DEPTH) or _LONG_NUMBER.search(text)):
        _check_json_text(text, where)  # strings apart, is it? Then where
    return value


def load_json_line(line: bytes, where: str) -> Any:
    """One record of a JSON-lines file kgtool writes (layer 1), which a commit can make hold
    anything: read at ``json.loads``'s speed, for there are millions. No record kgtool
    writes has a hundred brackets, and one with fewer cannot be nested a hundred deep; a
    number too long for ``int()`` is refused by ``json.loads`` itself (a ValueError)."""
    if line.count(b"[") + line.count(b"{") > MAX_DEPTH:
        return load_json(line, where)
    try:
        return json.loads(line)
    except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError, int() refusing
        raise Malformed(f"is not valid JSON: {exc}", where) from None


_PAIR = re.compile(r"\[\]|\{\}")


def _deeper_than(text: str, depth: int) -> bool:
    """Whether a document ``json.loads`` accepted may nest deeper than ``depth``, brackets in
    strings counted too (so it may say yes for a shallow one, never no for a deep one): each
    pass strips the innermost pairs at C speed, and real documents are empty in a few."""
    brackets = _NOT_BRACKETS.sub("", text)
    for _ in range(depth):
        if not brackets:
            return False
        brackets = _PAIR.sub("", brackets)
    return bool(brackets)


def _check_json_text(text: str, where: str) -> None:
    """Depth and number length, measured on the text outside strings (at C speed: the
    document is not parsed twice). A JSON string holds no raw newline, so lines are kept."""
    outside = _ESCAPE.sub("", text) if "\\" in text else text
    outside = "".join(outside.split('"')[0::2])
    long_number = _LONG_NUMBER.search(outside)
    if long_number:
        raise _too_long(where, outside.count("\n", 0, long_number.start()) + 1)
    brackets = _NOT_BRACKETS.sub("", outside)
    if max(accumulate(map(_STEP.__getitem__, map(ord, brackets))), default=0) > MAX_DEPTH:
        depths = accumulate(map(_STEP.__getitem__, map(ord, brackets)))
        index = next(i for i, depth in enumerate(depths) if depth > MAX_DEPTH)
        match = next(islice(_BRACKET.finditer(outside), index, None))
        raise _too_deep(where, outside.count("\n", 0, match.start()) + 1)


# -- YAML ----------------------------------------------------------------------------------


@cache
def bounded_loader() -> type[yaml.SafeLoader]:
    """PyYAML's safe loader, with a composer that refuses a node deeper than ``MAX_DEPTH``
    before its recursion does (drive it by hand to keep the nodes' marks, then call
    ``check_node`` on what it composed)."""
    import yaml

    class BoundedLoader(yaml.SafeLoader):  # type: ignore[misc]  # PyYAML: no type information
        depth = 0

        def compose_node(self, parent: Any, index: Any) -> Any:
            self.depth += 1
            try:
                if self.depth > MAX_DEPTH:
                    mark = self.peek_event().start_mark
                    raise _too_deep("", mark.line + 1)
                return super().compose_node(parent, index)
            finally:
                self.depth -= 1

    return BoundedLoader


def check_node(root: yaml.Node, where: str, first_line: int = 1) -> None:
    """Refuse a composed document nested too deep, with a number too long, an alias that
    refers to itself, or more values through aliases than ``MAX_ALIAS_VALUES``.

    Level by level, each node once: most documents share no node (no alias), and this walk
    is a fraction of composing them (ontology.yaml is read on every run). A node met twice
    is an alias: then the document is measured with aliases expanded (``_check_aliases``).
    ``first_line``: the file line of the document's first line (front matter starts below).
    """
    import yaml

    scalar_node, sequence_node = yaml.ScalarNode, yaml.SequenceNode
    seen: set[int] = set()
    level = [root]
    depth = 0
    while level:
        depth += 1
        if depth > MAX_DEPTH:
            raise _too_deep(where, level[0].start_mark.line + first_line)
        below: list[yaml.Node] = []
        for node in level:
            if id(node) in seen:
                _check_aliases(root, where, first_line)
                return
            seen.add(id(node))
            if node.__class__ is scalar_node:
                if node.tag == _INT_TAG and len(node.value) > MAX_DIGITS:
                    raise _too_long(where, node.start_mark.line + first_line)
            elif node.__class__ is sequence_node:
                below += node.value
            else:
                for pair in node.value:
                    below += pair
        level = below


def _children(node: yaml.Node) -> list[yaml.Node]:
    import yaml

    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [item for pair in node.value for item in pair]
    return []


def _check_aliases(root: yaml.Node, where: str, first_line: int) -> None:
    """``check_node`` for a document with aliases: linear in the nodes written, however
    many the aliases stand for, as each node is measured once and a shared one counted by
    its size."""
    sizes: dict[int, tuple[int, int]] = {}  # id -> (values once expanded, levels below)
    active: set[int] = set()
    # (node, its depth, whether its children are measured, the line of what holds it: an
    # alias has no node of its own, so a problem it makes is said where it is written)
    stack: list[tuple[yaml.Node, int, bool, int]] = [(root, 1, False, root.start_mark.line)]
    while stack:
        node, depth, finished, held_at = stack.pop()
        key = id(node)
        if finished:
            measured = [sizes[id(child)] for child in _children(node)]
            sizes[key] = (
                1 + sum(size for size, _ in measured),
                1 + max((levels for _, levels in measured), default=0),
            )
            active.discard(key)
            continue
        if key in sizes:
            if depth - 1 + sizes[key][1] > MAX_DEPTH:
                raise _too_deep(where, held_at + first_line)
            continue
        if key in active:
            raise Unreadable(
                "an alias refers to itself (recursive anchor)", where, held_at + first_line
            )
        line = node.start_mark.line
        if depth > MAX_DEPTH:
            raise _too_deep(where, line + first_line)
        if node.tag == _INT_TAG and len(str(node.value)) > MAX_DIGITS:
            raise _too_long(where, line + first_line)
        active.add(key)
        stack.append((node, depth, True, held_at))
        stack.extend((child, depth + 1, False, line) for child in reversed(_children(node)))
    expanded = sizes[id(root)][0]
    if expanded - len(sizes) > MAX_ALIAS_VALUES:
        raise Unreadable(
            f"expands to {expanded} values through aliases (aliases may add at most "
            f"{MAX_ALIAS_VALUES})",
            where,
            root.start_mark.line + first_line,
        )


def yaml_error(exc: Exception, where: str, first_line: int = 1) -> Malformed:
    """A YAMLError as one ``Unreadable``, at the line of its mark."""
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    line = mark.line + first_line if mark is not None else first_line
    detail = " ".join(
        str(part) for part in (getattr(exc, "context", None), getattr(exc, "problem", None)) if part
    )
    return Malformed(f"invalid YAML: {detail or exc}", where, line)


def compose_yaml(
    data: bytes | str, where: str, first_line: int = 1, fast: bool = False, limit: int = MAX_BYTES
) -> yaml.Node | None:
    """The checked node tree of a YAML document (None when empty). ``fast``: libyaml's
    composer where it is installed (it refuses a thousand levels itself), for a large file;
    without libyaml, the bounded composer (PyYAML's own recurses until Python gives up)."""
    import yaml

    text = _text(data, where, first_line, limit)
    fast_loader = getattr(yaml, "CSafeLoader", None) if fast else None
    loader = fast_loader or bounded_loader()
    try:
        node = yaml.compose(text, Loader=loader)
    except Unreadable as exc:
        raise Unreadable(exc.message, where, (exc.line or 1) - 1 + first_line) from None
    except yaml.YAMLError as exc:
        raise yaml_error(exc, where, first_line) from None
    if node is not None:
        check_node(node, where, first_line)
    return node


def construct(node: yaml.Node | None) -> Any:
    """The Python value of a node ``check_node`` accepted."""
    import yaml

    if node is None:
        return None
    return yaml.constructor.SafeConstructor().construct_document(node)


def load_yaml(data: bytes | str, where: str, first_line: int = 1, limit: int = MAX_BYTES) -> Any:
    """A YAML document's value (None when empty), refused (``Unreadable``) when not YAML,
    over ``limit`` bytes, too deep, holding a number too long, or too many values through
    aliases."""
    import yaml

    node = compose_yaml(data, where, first_line, limit=limit)
    try:
        return construct(node)
    except yaml.YAMLError as exc:
        raise yaml_error(exc, where, first_line) from None


# -- TOML ----------------------------------------------------------------------------------


def load_toml(data: bytes | str, where: str) -> dict[str, Any]:
    """A TOML document, refused (``Unreadable``) when not TOML, too large, too deep, or
    holding a number too long."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib

    text = _text(data, where, 1)
    try:
        document: dict[str, Any] = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        found = re.search(r"\(at line (\d+)", str(exc))
        reason = re.sub(r"\s*\(at line \d+, column \d+\)$", "", str(exc))
        raise Malformed(f"invalid TOML: {reason}", where, int(found[1]) if found else 0) from None
    except RecursionError:
        raise _too_deep(where, _naive_deep_line(text)) from None
    except ValueError:  # int() of more than 4,300 digits
        raise _too_long(where, _long_number_line(text)) from None
    _check_value(document, where, lambda: _naive_deep_line(text), lambda: _long_number_line(text))
    return document


def _check_value(
    value: Any, where: str, deep_line: Callable[[], int], long_line: Callable[[], int]
) -> None:
    """Depth and integer length of a parsed value (tomllib takes no hooks to check them as
    it parses; a TOML file is a few hundred values)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise _too_deep(where, deep_line())
        children: Iterable[Any] = ()
        if isinstance(item, dict):
            children = item.values()
        elif isinstance(item, list):
            children = item
        elif isinstance(item, int) and item.bit_length() > MAX_DIGITS * 10 // 3:
            raise _too_long(where, long_line())
        stack.extend((child, depth + 1) for child in children)


def _naive_deep_line(text: str) -> int:
    """The line where brackets (counted everywhere, strings too) first pass ``MAX_DEPTH``,
    or where dotted keys do; 0 if neither: where to look, for the message only."""
    depth = 0
    for number, line in enumerate(text.splitlines(), 1):
        if line.split("=", 1)[0].count(".") >= MAX_DEPTH:
            return number
        for char in line:
            depth += _STEP.get(ord(char), 0)
            if depth > MAX_DEPTH:
                return number
    return 0


def _long_number_line(text: str) -> int:
    found = _LONG_NUMBER.search(text.replace("_", ""))
    return text.replace("_", "").count("\n", 0, found.start()) + 1 if found else 0
