"""Where layer 1's records live on disk: shards under ``.kg/raw/``, a folder's files each.

A file's records (its node, its symbols, the edges whose source is in it) go to the shard of
its folder, so that an edit rewrites the shards of the edited files and no others, and a git
merge of two branches that touched different folders touches different shards.

Shard names are the folder, readable and safe on every file system:

- a folder whose every component is lower-case ASCII letters, digits, ``_`` and ``-`` (and
  starts with a letter or a digit) is named by its components joined with ``.``:
  ``kgtool/raw`` -> ``kgtool.raw.jsonl``;
- any other folder (upper case, dots, spaces, non-ASCII, a name Windows reserves, a very
  long path) gets the same spelling with everything else replaced by ``_``, lower-cased and
  cut to a length, plus ``@`` and 12 hex digits of the exact folder path's hash:
  ``src/Components`` -> ``src.components@1b0c…jsonl``. Names are all lower case, so ``Foo/``
  and ``foo/`` can never collide on a case-insensitive disk;
- files at the top of the repository go to ``_root.jsonl`` (a lossless name never starts
  with ``_``).

A folder whose records pass ``SHARD_LIMIT`` bytes is split by the hash of each file's path:
4 shards by its first base-4 digit (``tests+3.jsonl``), and a part still too large again by
the next digit (``tests+31.jsonl``), so that no part passes the limit unless one file's
records alone do; parts are about a quarter of their folder each, as the hash spreads the
files, not a guaranteed minimum. Which shard a file lands in depends on its own path and
the size of its folder alone: adding a file to one folder never moves a file of another.
"""

from __future__ import annotations

import functools
import hashlib
import posixpath
import re
from collections import defaultdict
from collections.abc import Mapping

SHARD_SUFFIX = ".jsonl"
# A shard past this many bytes is split; a single file's records past it get a shard alone.
# Small enough that an edit rewrites little and two branches rarely touch one shard.
SHARD_LIMIT = 256 << 10
ROOT_BASE = "_root"
HASH_MARK, SPLIT_MARK = "@", "+"
HASH_DIGITS = 12  # 48 bits: a collision among 100k folders has odds of about 1 in 50,000
SLUG_CHARS = 80  # the readable part of a hashed name: with the rest, far below 255 bytes
MAX_SPLIT_DEPTH = 12  # 4**12 parts: never reached unless one file's records pass the limit
_LOSSLESS = re.compile(r"[a-z0-9][a-z0-9_-]*")
_UNSAFE = re.compile(r"[^a-z0-9_-]")
# Windows reserves these names, with any extension, in every folder.
_RESERVED = re.compile(r"(con|prn|aux|nul|com[0-9]|lpt[0-9])", re.IGNORECASE)


@functools.lru_cache(maxsize=1 << 16)
def folder_base(folder: str) -> str:
    """The name of a folder's shard, without suffix or split part."""
    if not folder:
        return ROOT_BASE
    parts = folder.split("/")
    lossless = all(_LOSSLESS.fullmatch(part) for part in parts)
    slug = ".".join(parts)
    if lossless and not _RESERVED.fullmatch(parts[0]) and len(slug) <= SLUG_CHARS:
        return slug
    readable = ".".join(_UNSAFE.sub("_", part.lower()) for part in parts)[:SLUG_CHARS]
    if readable.startswith("-"):  # a name starting with "-" reads as an option on a command line
        readable = "_" + readable[1:]
    digest = hashlib.sha256(folder.encode("utf-8", "surrogateescape")).hexdigest()
    return f"{readable}{HASH_MARK}{digest[:HASH_DIGITS]}"


@functools.lru_cache(maxsize=1 << 16)
def _path_bits(path: str) -> int:
    """64 bits of the hash of a path: its base-4 digits, most significant first, choose its
    part of a split folder."""
    digest = hashlib.sha256(path.encode("utf-8", "surrogateescape")).digest()
    return int.from_bytes(digest[:8], "big")


def _digit(path: str, level: int) -> str:
    return str((_path_bits(path) >> (62 - 2 * level)) & 3)


def assign(sizes: Mapping[str, int], overhead: int = 0) -> dict[str, str]:
    """Path -> the name of its shard, given the bytes of each file's records; ``overhead``
    is what every shard holds besides them (its meta line)."""
    by_folder: dict[str, list[str]] = defaultdict(list)
    for path in sizes:
        by_folder[posixpath.dirname(path)].append(path)
    names: dict[str, str] = {}
    for folder, paths in by_folder.items():
        _split(folder_base(folder), "", paths, sizes, overhead, names)
    return names


def _split(
    base: str,
    part: str,
    paths: list[str],
    sizes: Mapping[str, int],
    overhead: int,
    names: dict[str, str],
) -> None:
    total = overhead + sum(sizes[path] for path in paths)
    if total <= SHARD_LIMIT or len(paths) == 1 or len(part) >= MAX_SPLIT_DEPTH:
        name = f"{base}{SPLIT_MARK}{part}{SHARD_SUFFIX}" if part else f"{base}{SHARD_SUFFIX}"
        for path in paths:
            names[path] = name
        return
    digits: dict[str, list[str]] = defaultdict(list)
    for path in paths:
        digits[_digit(path, len(part))].append(path)
    for digit in sorted(digits):
        _split(base, part + digit, digits[digit], sizes, overhead, names)


def base_of(name: str) -> str:
    """The ``folder_base`` a shard name was made from (no base holds the split mark)."""
    return name.removesuffix(SHARD_SUFFIX).split(SPLIT_MARK, 1)[0]


def is_safe_name(name: str) -> bool:
    """A shard name read from elsewhere (the cache) that names a file in .kg/raw/ itself."""
    return (
        isinstance(name, str)
        and is_shard_name(name)
        and "/" not in name
        and "\\" not in name
        and "\0" not in name
    )


def is_shard_name(name: str) -> bool:
    """A name layer 1 writes under ``.kg/raw/`` (temp files and anything else are not)."""
    return name.endswith(SHARD_SUFFIX) and not name.startswith(".")
