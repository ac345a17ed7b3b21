"""kgtool: a four-layer code knowledge graph of a git repository, kept fresh on every commit."""

__version__ = "0.1.0"
