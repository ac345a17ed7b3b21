"""The files layer 1 covers and the blob id of each, as the index listing says (``kgtool.
tracked``): every record read, or only those that differ from the listing the cache's blob
ids were read from."""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

from kgtool.config import Config
from kgtool.globs import exclusion, printable_name, valid_name
from kgtool.store import KG_DIR
from kgtool.tracked import Listing, TrackedBlobs, differing_records, records_of, tracked_blobs


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


# Past this many records that differ, the whole listing is read instead.
MOST_READ_AGAIN = 256
# Past this many files differing from the index then or now (each is a search of the
# listing: about 2 ms at 100k files), the whole listing is read instead.
MOST_SEARCHED = 16


class ListedThen(NamedTuple):
    """What the cache keeps of the listing its blob ids were read from."""

    staged: str  # the index listing (``Listing.staged``)
    modified: tuple[str, ...]  # the files that differed from it, sorted
    exclude: tuple[str, ...]  # the ``exclude`` setting they were read under

    @classmethod
    def of(cls, value: Any) -> ListedThen | None:
        """One as the cache kept it (a plain tuple); None when not shaped so."""
        if not (isinstance(value, tuple) and len(value) == len(cls._fields)):
            return None
        staged, modified, exclude = value
        shaped = isinstance(staged, str) and isinstance(modified, tuple)
        if not (shaped and isinstance(exclude, tuple)):
            return None
        if not all(isinstance(item, str) for item in (*modified, *exclude)):
            return None
        return cls(staged, modified, exclude)


def current_files_since(
    root: Path, listed: Listing, config: Config, then: ListedThen | None, blobs: dict[str, str]
) -> tuple[TrackedBlobs, list[str]]:
    """``current_files``, from ``blobs`` (the cache's) and the listing they were read from:
    only the records that differ from it, and the files differing from the index then or
    now, are read (at 100k files, reading every record cost an edit 60 ms). Every record is
    read when there is no such listing, when many differ, when a name is not ASCII (the
    names left out for it are found over every file), when the ``exclude`` setting changed,
    or when a record that differs is a merge's conflict (its path's other stages are read
    with it then)."""
    patterns = tuple(config["exclude"])
    if then is None or not then.staged or then.exclude != patterns:
        return current_files(root, listed, config)
    if not listed.staged.isascii():
        return current_files(root, listed, config)
    region = differing_records(then.staged, listed.staged, MOST_READ_AGAIN)
    if region is None:
        return current_files(root, listed, config)
    gone, came = region
    paths = {record.partition("\t")[2] for record in (*gone, *came)}
    others = (listed.modified | set(then.modified)) - paths
    if "" in blobs.values():  # a file that could not be read is tried on every run
        others.update(path for path, blob in blobs.items() if not blob and path not in paths)
    if len(others) > MOST_SEARCHED:
        return current_files(root, listed, config)
    records = list(came)
    for path in sorted(others):
        records += records_of(listed.staged, path)
    # A merge's conflict, then or now: its path's other stages may lie outside the region.
    if any(not record.partition("\t")[0].endswith(" 0") for record in (*gone, *records)):
        return current_files(root, listed, config)
    records.sort(key=lambda record: record.partition("\t")[2])  # the listing's order
    again = paths | others
    subset = Listing("".join(f"{record}\0" for record in records), listed.modified & again)
    found, bad_names = current_files(root, subset, config)
    now = dict(blobs)
    for path in again:
        now.pop(path, None)
    now.update(found.blobs)
    return TrackedBlobs(now, found.odd), bad_names


def listed_now(listed: Listing, config: Config) -> ListedThen:
    """What the cache keeps of the listing an update read (see ``ListedThen``)."""
    return ListedThen(listed.staged, tuple(sorted(listed.modified)), tuple(config["exclude"]))
