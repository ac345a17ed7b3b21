"""The files layer 1 covers and the blob id of each, as the index listing says (``kgtool.
tracked``): every record read, or only those that differ from the listing the cache's blob
ids were read from."""

from __future__ import annotations

from pathlib import Path

from kgtool.config import Config
from kgtool.globs import exclusion, printable_name, valid_name
from kgtool.raw import cache
from kgtool.store import KG_DIR
from kgtool.tracked import Listing, TrackedBlobs, differing_records, record_of, tracked_blobs


def current_files(root: Path, listed: Listing, config: Config) -> tuple[TrackedBlobs, list[str]]:
    """The files layer 1 covers (their blob ids by path, and the odd ones' records), and the
    names left out for not being UTF-8. Each step runs over every file only when it must:
    most listings have nothing under .kg/, no ``exclude`` and only ASCII names."""
    blobs, odd = tracked_blobs(root, listed)
    left_out = listed.paths_under(KG_DIR)
    patterns = config["exclude"]
    if patterns:
        skip = exclusion(patterns)
        left_out += [path for path in blobs if skip(path)]
    bad_names: list[str] = []
    if not listed.staged.isascii():
        bad = sorted(path for path in blobs if not (path.isascii() or valid_name(path)))
        skipped = set(left_out)
        bad_names = [printable_name(path) for path in bad if path not in skipped]
        left_out += bad
    for path in left_out:
        blobs.pop(path, None)
        odd.pop(path, None)
    return TrackedBlobs(blobs, odd), bad_names


# Past this many files whose blob ids are read again, the whole listing is read instead: each
# is a search of it.
MOST_READ_AGAIN = 256


def current_files_since(
    root: Path, listed: Listing, config: Config, manifest: cache.Manifest | None
) -> tuple[TrackedBlobs, list[str]]:
    """``current_files``, from the manifest's blob ids and the listing they were read from:
    only the records that differ from it, and the files differing from the index then or
    now, are read (at 100k files, reading every record cost an edit 60 ms). The whole
    listing is read when there is no such manifest, when many differ, or when a name is not
    ASCII (the names left out for it are found over every file)."""
    if manifest is None or not manifest.listed[0] or not listed.staged.isascii():
        return current_files(root, listed, config)
    staged_then, modified_then = manifest.listed
    region = differing_records(staged_then, listed.staged)
    if region is None:
        return current_files(root, listed, config)
    paths = {record.partition("\t")[2] for records in region for record in records}
    others = (listed.modified | set(modified_then)) - paths
    if "" in manifest.blobs.values():  # a file that could not be read is tried on every run
        others.update(path for path, blob in manifest.blobs.items() if not blob)
    others -= paths
    if len(paths) + len(others) > MOST_READ_AGAIN:
        return current_files(root, listed, config)
    records = list(region[1])
    for path in sorted(others):
        records += record_of(listed.staged, path)
    # In the listing's order (by path: the names are ASCII), each path's stages in theirs.
    records.sort(key=lambda record: record.partition("\t")[2])
    again = paths | others
    subset = Listing("".join(f"{record}\0" for record in records), listed.modified & again)
    found, bad_names = current_files(root, subset, config)
    blobs = dict(manifest.blobs)
    for path in again:
        blobs.pop(path, None)
    blobs.update(found.blobs)
    return TrackedBlobs(blobs, found.odd), bad_names


def listed_now(listed: Listing) -> tuple[str, tuple[str, ...]]:
    """What the manifest keeps of the listing an update read (see ``Manifest.listed``)."""
    return listed.staged, tuple(sorted(listed.modified))
