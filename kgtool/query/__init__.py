"""The read path: answers from ``.kg/`` and ``playbooks/`` for agents and people.

Nothing here parses source or runs Leiden: every answer is read from what ``kgtool update``
wrote, through one loader (``kgtool.query.kg``), and says so in the same words when that is
missing or older than the working tree.
"""

# The read cache's indexes ``context`` builds on its first question after a change (named
# here, where a reader can check they are there without importing more).
CONTENT_INDEX_FILE = "read-content.marshal"
HISTORY_INDEX_FILE = "read-history.marshal"
