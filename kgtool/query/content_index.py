"""What is inside each file, for ``context``: a lexical index of its identifiers, comments,
docstrings and strings, kept in the read cache.

Built by the first question after a change (never by ``kgtool update``, whose commit it
would slow), from the files layer 1 lists. Each file's words are kept by its blob id, so
that a refresh reads only the files whose content is new: a question after an edit
tokenizes the edited files alone, and the index it writes equals one built from scratch
(both are :func:`lexical.build` of the same words).
"""

from __future__ import annotations

from typing import TypeGuard

from kgtool import bounded
from kgtool.query import CONTENT_INDEX_FILE
from kgtool.query.kg import MapState, read_cached, remember_cached
from kgtool.query.lexical import Lexicon, build, is_lexicon, words_of

INDEX_FILE = CONTENT_INDEX_FILE  # (key, lexicon) for one layer 1
WORDS_FILE = "read-content-words.marshal"  # (version, {blob id: {word: count}})
VERSION = 2  # raise when what words_of keeps changes
BINARY_PROBE = 8_000  # a NUL byte in this many first bytes: not text, nothing to index


def content_lexicon(state: MapState) -> Lexicon:
    """The content index of the files layer 1 lists, from the read cache when it holds the
    one for this layer 1, else built (reading only files the cache has no words for)."""
    cached = read_cached(state.store, INDEX_FILE, _key(state))
    return Lexicon(*cached) if is_lexicon(cached) else refresh(state)


def refresh(state: MapState) -> Lexicon:
    """Build the index again from the words kept per blob, reading the files whose blob is
    new; keep both in the read cache. A file edited since layer 1 read it is indexed as it
    is now, for this question only: its words are not kept, nor is an index holding them."""
    kept = read_cached(state.store, WORDS_FILE, str(VERSION))
    known: dict[str, dict[str, int]] = kept if isinstance(kept, dict) else {}
    limit = int(state.config["max_file_bytes"])
    edited = set(state.stale_files)
    memo: dict[str, str] = {}
    by_blob: dict[str, dict[str, int]] = {}
    by_path: dict[str, dict[str, int]] = {}
    for path, blob in sorted(state.raw_hashes.items()):
        words = None if path in edited else known.get(blob)
        if not _counts(words):
            data = bounded.read_tracked(state.root, path, limit)
            # Binary and oversized files have no words: kept so, never read again.
            text = data is not None and b"\0" not in data[:BINARY_PROBE]
            words = words_of(data.decode("utf-8", "replace"), memo) if text and data else {}
        if path not in edited:
            by_blob[blob] = words
        if words:
            by_path[path] = words
    lexicon = build(by_path)
    key = _key(state)
    if key:
        remember_cached(state.store, str(VERSION), by_blob, WORDS_FILE)
        if not edited:
            remember_cached(state.store, key, tuple(lexicon), INDEX_FILE)
    return lexicon


def _counts(words: object) -> TypeGuard[dict[str, int]]:
    """Whether a cached entry is a file's word counts (the cache may have been damaged)."""
    return isinstance(words, dict) and all(
        isinstance(w, str) and type(n) is int and n > 0 for w, n in words.items()
    )


def _key(state: MapState) -> str:
    return f"{VERSION}:{state.read_key}" if state.read_key else ""
