"""What is inside each file, for ``context``: a lexical index of its identifiers, comments,
docstrings and strings, kept in the read cache.

Built by ``kgtool update`` (and by the first question when the cache lacks it), from the
files layer 1 lists. Each file's words are kept by its blob id, so that a refresh reads only
the files whose content is new: an update after an edit tokenizes the edited files alone,
and the index it writes equals one built from scratch (both are :func:`lexical.build` of the
same words).
"""

from __future__ import annotations

from kgtool import bounded
from kgtool.query import CONTENT_INDEX_FILE
from kgtool.query.kg import MapState, read_cached, remember_cached
from kgtool.query.lexical import Lexicon, build, is_lexicon, words_of
from kgtool.repo import blob_id

INDEX_FILE = CONTENT_INDEX_FILE  # (key, lexicon) for one layer 1
WORDS_FILE = "read-content-words.marshal"  # (version, {blob id: {word: count}})
VERSION = 1  # raise when what words_of keeps changes
BINARY_PROBE = 8_000  # a NUL byte in this many first bytes: not text, nothing to index


def content_lexicon(state: MapState) -> Lexicon:
    """The content index of the files layer 1 lists, from the read cache when it holds the
    one for this layer 1, else built (reading only files the cache has no words for)."""
    cached = read_cached(state.store, INDEX_FILE, _key(state))
    return Lexicon(*cached) if is_lexicon(cached) else refresh(state)


def refresh(state: MapState) -> Lexicon:
    """Build the index again from the words kept per blob, reading the files whose blob is
    new; keep both in the read cache."""
    kept = read_cached(state.store, WORDS_FILE, str(VERSION))
    known: dict[str, dict[str, int]] = kept if isinstance(kept, dict) else {}
    limit = int(state.config["max_file_bytes"])
    memo: dict[str, str] = {}
    by_blob: dict[str, dict[str, int]] = {}
    by_path: dict[str, dict[str, int]] = {}
    for path, blob in sorted(state.raw_hashes.items()):
        words = known.get(blob)
        if not isinstance(words, dict):
            data = bounded.read_tracked(state.root, path, limit)
            if data is None or b"\0" in data[:BINARY_PROBE]:
                continue
            words = words_of(data.decode("utf-8", "replace"), memo)
            # Kept by blob only when the file is the one layer 1 read: a file edited since
            # would otherwise lend its words to the older content.
            if blob_id(data) != blob:
                by_path[path] = words
                continue
        by_blob[blob] = words
        by_path[path] = words
    lexicon = build(by_path)
    if state._key:
        remember_cached(state.store, str(VERSION), by_blob, WORDS_FILE)
        remember_cached(state.store, _key(state), tuple(lexicon), INDEX_FILE)
    return lexicon


def _key(state: MapState) -> str:
    return f"{VERSION}:{state._key}" if state._key else ""
