"""What git's index says of the tracked files, read from its listing (``git ls-files
--stage -z`` and ``git status``, which ``kgtool.repo`` runs): each file's mode and blob id,
those the working tree holds instead, and a fingerprint of the whole. No git runs here."""

from __future__ import annotations

import contextlib
import hashlib
import os
from pathlib import Path
from typing import NamedTuple

MODE_SYMLINK = "120000"
MODE_SUBMODULE = "160000"
MODE_REGULAR = "100644"


class TrackedFile(NamedTuple):
    """One is made per tracked file on every run: a tuple builds in two thirds of the time
    of a frozen dataclass."""

    path: str  # repository-relative, POSIX separators
    mode: str
    blob: str  # git blob id of the working-tree content ("" if it could not be read)
    deleted: bool = False  # tracked, but missing from the working tree


# Hex digits of a blob id in a repository of SHA-256 objects (``git init --object-format``).
SHA256_DIGITS = 64


def blob_id(content: bytes, like: str = "") -> str:
    """The id git gives this content as a blob (so tracked, unmodified files cost no hashing),
    in the object format of the id ``like`` (SHA-1 unless it has SHA-256's 64 digits): the
    ids of one repository are all of its format, and a file staged must keep its id."""
    header = b"blob %d\0" % len(content)
    if len(like) == SHA256_DIGITS:
        return hashlib.sha256(header + content).hexdigest()
    return hashlib.sha1(header + content).hexdigest()


class Listing(NamedTuple):
    """What git says of the tracked files: the index's entries as ``git ls-files --stage -z``
    prints them, and the files whose working-tree content differs from the index."""

    staged: str
    modified: set[str]

    def fingerprint(self, left_out: str) -> str:
        """A digest of the files and their contents, the entries under the folder
        ``left_out`` apart (contiguous: the index is sorted); "" when a file's content is not
        its index entry's (it differs in the working tree)."""
        if self.modified:
            return ""
        staged, marker = self.staged, f"\t{left_out}/"
        first = staged.find(marker)
        if first >= 0:
            start = staged.rfind("\0", 0, first) + 1
            end = staged.find("\0", staged.rfind(marker)) + 1
            # Every record cut must be one of the folder's (a path may hold a tab): else no
            # fingerprint, rather than one blind to a change.
            cut = staged[start : end - 1].split("\0") if end else [""]
            if any(not record.partition("\t")[2].startswith(marker[1:]) for record in cut):
                return ""
            staged = staged[:start] + staged[end:]
        data = staged.encode("utf-8", "surrogateescape")
        return hashlib.blake2b(data, digest_size=20).hexdigest()

    def paths_under(self, folder: str) -> list[str]:
        """The tracked paths under ``folder``, sorted (git's order); most listings hold none,
        and are not split to say so."""
        prefix = f"{folder}/"
        if f"\t{prefix}" not in self.staged:
            return []
        found = (record.partition("\t")[2] for record in self.staged.split("\0"))
        return sorted({path for path in found if path.startswith(prefix)})


# Characters compared at once while looking for where two listings part: a slice of each,
# compared in C; the mismatching block is then halved down to its first character.
COMPARED_AT_ONCE = 1 << 16


def differing_records(before: str, after: str, most: int) -> tuple[list[str], list[str]] | None:
    """The records (``ls-files --stage -z`` entries) of two listings between the longest
    run of whole records they start with and the longest they end with: (those of
    ``before``, those of ``after``). Every other record is the same in both, in the same
    place. Found by comparing slices in C, not by splitting either listing: for an edit of a
    few files, a few milliseconds at 100k files. None when either holds more than ``most``
    records there, or when the listings cannot be cut so (a listing not ending its last
    record, or whole records not alike on both sides: a path holding a tab can do that)."""
    if before == after:
        return [], []
    if (before and not before.endswith("\0")) or (after and not after.endswith("\0")):
        return None
    same_start = _same_run(before, after, min(len(before), len(after)))
    start = before.rfind("\0", 0, same_start) + 1  # back to the record the difference is in
    room = min(len(before), len(after)) - start
    same_end = _same_run(before, after, room, from_end=True)
    end_before = _record_end(before, len(before) - same_end, start)
    end_after = _record_end(after, len(after) - same_end, start)
    if before[end_before:] != after[end_after:]:  # cut apart: no run of whole records
        return None
    if max(before.count("\0", start, end_before), after.count("\0", start, end_after)) > most:
        return None  # counted, not split: edits far apart hold most of the listing between
    return (
        before[start:end_before].split("\0")[:-1] if end_before > start else [],
        after[start:end_after].split("\0")[:-1] if end_after > start else [],
    )


def _same_run(a: str, b: str, room: int, from_end: bool = False) -> int:
    """How many characters ``a`` and ``b`` start (``from_end``: end) with alike, at most
    ``room``: blocks compared in C, the first that differs halved down to its character."""

    def alike(low: int, high: int) -> bool:  # characters low..high counted from that side
        if from_end:
            return a[len(a) - high : len(a) - low] == b[len(b) - high : len(b) - low]
        return a[low:high] == b[low:high]

    same = 0
    while same < room:
        upto = min(same + COMPARED_AT_ONCE, room)
        if alike(same, upto):
            same = upto
            continue
        while upto - same > 1:
            middle = (same + upto) // 2
            if alike(same, middle):
                same = middle
            else:
                upto = middle
        return same
    return room


def _record_end(text: str, at: int, start: int) -> int:
    """Where the record holding the character before ``at`` ends (past its NUL); ``start``
    when ``at`` is at or before it (no character of a record differs)."""
    if at <= start:
        return start
    return text.index("\0", at - 1) + 1


def records_of(staged: str, path: str) -> list[str]:
    """The records of ``path`` in a listing (one; three stages during a merge's conflict),
    found by searching the text, not splitting it."""
    found: list[str] = []
    marker = f"\t{path}\0"
    at = staged.find(marker)
    while at >= 0:
        start = staged.rfind("\0", 0, at) + 1
        record = staged[start : at + len(marker) - 1]
        if record.partition("\t")[2] == path:  # not a longer path ending "<tab>path"
            found.append(record)
        at = staged.find(marker, at + 1)
    return found


def files_listed(root: Path, listed: Listing) -> list[TrackedFile]:
    """Each tracked file of a listing with the blob id of its working-tree content, sorted
    by path."""
    staged, modified = listed
    files: dict[str, TrackedFile] = {}
    for record in staged.split("\0"):
        meta, tab, path = record.partition("\t")
        if not tab:
            continue
        mode, blob, stage = meta.split(" ")
        if stage == "0" or stage == "2":  # during a merge conflict, keep "ours"
            files[path] = TrackedFile(path, mode, blob)
    # What the working tree holds instead of the index, read where it differs.
    for path in modified & files.keys():
        files[path] = _working_tree_entry(root, path, files[path].mode, files[path].blob)
    return [files[path] for path in sorted(files)]


class TrackedBlobs(NamedTuple):
    """``tracked_files`` as layer 1 reads it on every run: each file's blob id by path (cut
    from the listing in C), and a ``TrackedFile`` only for a symlink, a submodule, a file
    deleted (one a file cost a 10,000-file repository 5 ms a run), of the records read:
    ``kgtool.raw.current.current_files_since`` reads only those that differ."""

    blobs: dict[str, str]  # "" for a file whose working-tree content could not be read
    odd: dict[str, TrackedFile]


def tracked_blobs(root: Path, listed: Listing) -> TrackedBlobs:
    """Each tracked file's blob id and the odd ones' records, as ``tracked_files`` says."""
    staged, modified = listed
    records = staged.split("\0")
    if records and not records[-1]:
        records.pop()
    # "mode blob stage<tab>path": a mode is six digits and every blob id of a repository is
    # as long as every other, so every path starts where the first one does.
    start = records[0].find("\t") + 1 if records else 0
    if start < 10 or {r[start - 3 : start] for r in records} != {" 0\t"}:
        # A merge's conflicts (stages 1, 2, 3; "ours" kept), or no file: record by record.
        files = files_listed(root, listed)
        return TrackedBlobs(
            {tracked.path: tracked.blob for tracked in files},
            {f.path: f for f in files if f.deleted or f.mode in (MODE_SYMLINK, MODE_SUBMODULE)},
        )
    paths = [r[start:] for r in records]
    blobs = dict(zip(paths, [r[7 : start - 3] for r in records], strict=True))
    modes = [r[:6] for r in records]
    odd: dict[str, TrackedFile] = {}
    if MODE_SYMLINK in modes or MODE_SUBMODULE in modes:
        for path, mode in zip(paths, modes, strict=True):
            if mode in (MODE_SYMLINK, MODE_SUBMODULE):
                odd[path] = TrackedFile(path, mode, blobs[path])
    for path in sorted(modified & blobs.keys()):
        # A regular file's mode (644 or 755) is not kept: only a symlink's and a
        # submodule's tell anything apart, and those are in ``odd``.
        mode = odd[path].mode if path in odd else MODE_REGULAR
        entry = _working_tree_entry(root, path, mode, blobs[path])
        blobs[path] = entry.blob
        if entry.deleted or path in odd:
            odd[path] = entry
    return TrackedBlobs(blobs, odd)


def _working_tree_entry(root: Path, path: str, mode: str, indexed: str) -> TrackedFile:
    """A modified file's entry: what the working tree holds instead of the index (whose
    blob id, ``indexed``, says the repository's object format)."""
    entry = TrackedFile(path, mode, "")
    if mode != MODE_SUBMODULE:
        full = root / path
        if not os.path.lexists(full):
            entry = TrackedFile(path, mode, "", deleted=True)
        elif mode != MODE_SYMLINK and full.is_file() and not full.is_symlink():
            with contextlib.suppress(OSError):
                entry = TrackedFile(path, mode, blob_id(full.read_bytes(), indexed))
    return entry
