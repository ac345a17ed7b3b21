"""What every run needs first: the repository root, its settings and its store."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from kgtool.config import Config, load_config
from kgtool.repo import find_root
from kgtool.store import Store

if TYPE_CHECKING:
    from kgtool.ontology.map import LabelledMap


class Context(NamedTuple):
    root: Path
    config: Config
    store: Store

    @property
    def map(self) -> LabelledMap:
        """The readable map (MAP.md and its pages) that goes with layer 2."""
        # Imported here: the read commands never draw the map, and layer 3's labeler it
        # pulls in would cost them a good part of their start-up time.
        from kgtool.ontology.map import LabelledMap

        return LabelledMap(self.root, self.config, self.store)


def open_context(directory: Path) -> Context:
    """The repository holding ``directory``, its settings and its store; refuses a .kg/ that
    is unsafe to read (a symlink out of the repository, ...) before anything reads it."""
    root = find_root(directory)
    store = Store(root)
    store.refuse_unsafe()  # before anything is read from .kg/, not only before a write
    return Context(root, load_config(root), store)
