"""The read path: answers for agents and people, read from ``.kg/`` and ``playbooks/`` only.

Nothing here parses source code or clusters: a reader must start fast and must never change
the map. When ``.kg/`` is missing or older than the working tree, the answer says so.
"""
